//! `read --pairs`, copies found by content: the sheets no name or `--pair` placed are
//! read alone first (their reports held back), the games they read are matched
//! ([`scoresheet::copies::match_games`]), and each matched pair is read again as the
//! two copies of one game, whose report replaces the two single ones.

use scoresheet::copies::{Matches, header_agreement, header_disagreements, match_games};
use scoresheet::{GameInfo, Joined};

use super::super::diag;
use super::super::inputs::Job;
use super::jobs::{Outcome, emit, new_outcome};

/// The game a held report reads (SAN, ply order), if the outcome is one sheet read
/// alone without errors or human corrections: a sheet a human has corrected stays as
/// its report is.
fn single_game(job: &Job, o: &Outcome) -> Option<Vec<String>> {
    let (Job::One(_), [_], true) = (job, o.held.as_slice(), o.errors.is_empty()) else {
        return None;
    };
    page_game(o, 0)
}

/// The game held report `k` of an outcome reads (SAN, ply order), if read alone and
/// not corrected by a human.
fn page_game(o: &Outcome, k: usize) -> Option<Vec<String>> {
    let report = &o.held.get(k)?.1;
    if !report.corrections.is_empty() || !report.copies.is_empty() || !report.sheets.is_empty() {
        return None;
    }
    let mut plies: Vec<(u32, &str)> = report
        .moves
        .iter()
        .filter_map(|m| Some((m.ply?, m.san.as_deref()?)))
        .collect();
    plies.sort_by_key(|p| p.0);
    plies.dedup_by_key(|p| p.0);
    Some(plies.into_iter().map(|(_, san)| san.to_string()).collect())
}

/// Each sheet of `todo` read alone that may be a copy: (job, held report, its game).
/// A sheet file gives one; a multi-page file (a scanner's PDF) one per page read.
fn candidates(todo: &[Job], outcomes: &[Outcome]) -> Vec<(usize, usize, Vec<String>)> {
    let mut out = Vec::new();
    for (i, (job, o)) in todo.iter().zip(outcomes).enumerate() {
        if !matches!(job, Job::One(_)) {
            continue;
        }
        for k in 0..o.held.len() {
            if let Some(game) = page_game(o, k) {
                out.push((i, k, game));
            }
        }
    }
    out
}

/// Joins the sheets of `todo` read alone (`outcomes[i]` is `todo[i]`'s, reports held;
/// each page of a multi-page file is a sheet) that hold the same game: each join is
/// one stderr line naming both sheets (a warning when doubtful), sheets that tie are a
/// warning and stay alone; `read` reads the joined pairs (reports held), and each
/// pair's report, marked [`Joined`], replaces its two sheets' reports. A pair that fails to read leaves its
/// sheets as they were read. With `sharded`, says that only this shard's sheets were
/// compared.
pub(super) fn join_by_content(
    todo: &[Job],
    outcomes: &mut [Outcome],
    sharded: bool,
    read: impl FnOnce(&[Job]) -> Vec<Outcome>,
) {
    let (at, games): (Vec<(usize, usize)>, Vec<Vec<String>>) = candidates(todo, outcomes)
        .into_iter()
        .map(|(i, k, g)| ((i, k), g))
        .unzip();
    if games.len() < 2 {
        return;
    }
    if sharded {
        diag(format!(
            "--shard: the {} sheets of this shard that no name pairs are compared with each other only; copies that fall to other shards are read alone (name them `_w`/`_b` or give --pair to keep them together)",
            games.len()
        ));
    }
    let Matches { joins, ties, .. } = match_games(&games);
    let names: Vec<String> = at
        .iter()
        .map(|&(i, k)| outcomes[i].held[k].1.source.clone())
        .collect();
    let name = |k: usize| names[k].clone();
    // One warning for each group of sheets that may hold one game, however many of
    // them are left alone.
    let groups: std::collections::BTreeSet<Vec<usize>> = ties
        .iter()
        .map(|t| {
            let mut g: Vec<usize> = std::iter::once(t.a).chain(t.with.iter().copied()).collect();
            g.sort_unstable();
            g
        })
        .collect();
    for group in groups {
        let mut files: Vec<String> = group.into_iter().map(name).collect();
        let last = files.pop().unwrap_or_default();
        diag(format!(
            "warning: {} and {last} may hold one game, but no two of them clearly; read alone: give --pair A B for the two copies",
            files.join(", ")
        ));
    }
    let mut pairs = Vec::with_capacity(joins.len());
    // The input of a candidate: its file, and its page where the file has several.
    let input = |k: usize| -> Option<(super::super::inputs::Input, String)> {
        let (i, h) = at[k];
        let Job::One(input) = &todo[i] else {
            return None;
        };
        let stem = outcomes[i].held[h].0.clone();
        let page = outcomes[i].held[h].1.page.index;
        Some((
            super::super::inputs::Input {
                page,
                stem: stem.clone(),
                ..input.clone()
            },
            stem,
        ))
    };
    let mut joined = Vec::with_capacity(joins.len());
    for j in &joins {
        let (Some((x, xs)), Some((y, ys))) = (input(j.a), input(j.b)) else {
            continue;
        };
        let line = format!(
            "{} and {} read as the two copies of one game: {} of {} plies agree",
            name(j.a),
            name(j.b),
            j.agree,
            j.of
        );
        diag(if j.sure {
            line
        } else {
            format!(
                "warning: {line}, a doubtful join: check the game, or read the two apart without --pairs"
            )
        });
        pairs.push(Job::Game(vec![vec![x], vec![y]], format!("{xs}+{ys}")));
        joined.push(j);
    }
    let read = read(&pairs);
    // Held reports replaced by their pair's, removed once all pairs are in.
    let mut gone: Vec<(usize, usize)> = Vec::new();
    for (j, o) in joined.into_iter().zip(read) {
        for e in o.errors.iter().chain(&o.notes) {
            diag(e);
        }
        if !o.errors.is_empty() || o.held.len() != 1 {
            diag(format!(
                "{} and {}: read apart, as the two copies could not be read together",
                name(j.a),
                name(j.b)
            ));
            continue;
        }
        let (stem, mut report) = o.held.into_iter().next().expect("one held report");
        report.joined = Some(Joined {
            by: "content".into(),
            agree: j.agree,
            of: j.of,
            sure: j.sure,
        });
        gone.extend([at[j.a], at[j.b]]);
        // Two sheets read as one game: one report in place of two.
        outcomes[at[j.b].0].sheets -= 1;
        let into = &mut outcomes[at[j.a].0];
        into.sheets = into.sheets - 1 + o.sheets;
        into.held.push((stem, report));
        into.claims.extend(o.claims);
    }
    gone.sort_unstable();
    for &(i, k) in gone.iter().rev() {
        outcomes[i].held.remove(k);
    }
}

/// How a continuation sheet's first sheets were found.
enum Found {
    /// The sheets read alone whose moves end where it starts.
    ByEnd,
    /// Of several that end there, the one its header agrees with.
    ByHeader,
    /// The one sheet that ends there, whose header names another game.
    Parted,
}

/// Of white, black and board, how many must disagree for a continuation's header to
/// part it from the one sheet that ends where it starts: one misread field does not.
const PARTING_FIELDS: usize = 2;

/// Joins each continuation sheet that no name or `--continue` placed (read alone, it
/// failed as one printed from move N) to the one sheet read alone whose cells end at
/// move N - 1 in the same folder (where several do, the one whose game fields its own
/// header agrees with best, players and board, and no other as well): one stderr
/// line names both, and the two are read as one game over two sheets, named after the
/// first. A continuation sheet with several such first sheets (or one another
/// continuation also claims), or with one whose header names another game, is a
/// warning naming them and keeps its error. Runs after [`join_by_content`]: sheets
/// joined as copies are not looked at.
pub(super) fn join_continuations(
    todo: &[Job],
    outcomes: &mut [Outcome],
    read: impl FnOnce(&[Job]) -> Vec<Outcome>,
) {
    let folder = |i: usize| match &todo[i] {
        Job::One(input) => input.path.parent().map(std::path::Path::to_path_buf),
        Job::Game(..) => None,
    };
    // Sheets read alone and where their cells end.
    let ends: Vec<(usize, u32)> = (0..todo.len())
        .filter(|&i| single_game(&todo[i], &outcomes[i]).is_some())
        .filter_map(|i| {
            let report = &outcomes[i].held[0].1;
            (report.sheets.is_empty())
                .then(|| report.moves.iter().map(|m| m.move_number).max())
                .flatten()
                .map(|end| (i, end))
        })
        .collect();
    // Every continuation sheet's error was held back; one file's only sheet may join.
    let later: Vec<(usize, u32)> = (0..todo.len())
        .filter_map(|i| Some((i, outcomes[i].continues.as_ref()?.0)))
        .collect();
    let none = GameInfo::default();
    // The first sheets that end where a continuation starts; where several do, the
    // one its own header agrees with best (and no other as well), if any agrees.
    let candidates = |(j, at): (usize, u32)| -> (Vec<usize>, Found) {
        let by_end: Vec<usize> = ends
            .iter()
            .filter(|&&(i, end)| end + 1 == at && folder(i) == folder(j))
            .map(|&(i, _)| i)
            .collect();
        let Some((_, said)) = outcomes[j].continues.as_ref() else {
            return (by_end, Found::ByEnd);
        };
        // One sheet ends there: its own, unless the headers part them (another
        // game's first sheet, its own not in the folder or not read).
        if let [first] = by_end[..] {
            let game = outcomes[first].held[0].1.game.as_ref().unwrap_or(&none);
            let parted = header_disagreements(game, said) >= PARTING_FIELDS;
            return (by_end, if parted { Found::Parted } else { Found::ByEnd });
        }
        let agreeing: Vec<(usize, usize)> = by_end
            .iter()
            .filter_map(|&i| {
                let first = outcomes[i].held[0].1.game.as_ref().unwrap_or(&none);
                header_agreement(first, said).map(|n| (i, n))
            })
            .collect();
        let best = agreeing.iter().map(|a| a.1).max().unwrap_or(0);
        match agreeing.iter().filter(|a| a.1 == best).collect::<Vec<_>>()[..] {
            [&(i, _)] if best > 0 => (vec![i], Found::ByHeader),
            _ => (by_end, Found::ByEnd),
        }
    };
    let name = |i: usize| match &todo[i] {
        Job::One(input) => input.path.display().to_string(),
        Job::Game(_, stem) => stem.clone(),
    };
    let alone = |j: usize| matches!(todo[j], Job::One(_)) && outcomes[j].errors.len() == 1;
    // Each lone continuation's first sheets, found once; a first sheet two of them
    // name is neither's.
    let found: Vec<_> = later
        .iter()
        .filter(|l| alone(l.0))
        .map(|&l| (l, candidates(l)))
        .collect();
    let mut claims: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for (_, (firsts, how)) in &found {
        if let ([first], false) = (&firsts[..], matches!(how, Found::Parted)) {
            *claims.entry(*first).or_default() += 1;
        }
    }
    let mut chains = Vec::new();
    let mut jobs = Vec::new();
    for ((j, at), (firsts, how)) in found {
        match firsts[..] {
            [] => {}
            [first] if matches!(how, Found::Parted) => diag(format!(
                "warning: {} is printed from move {at}, where the moves of {} end, but the headers name another game (players or board); not joined: give --continue {} {} if it is that game's",
                name(j),
                name(first),
                name(first),
                name(j)
            )),
            [first] if claims[&first] == 1 => {
                let header = if matches!(how, Found::ByHeader) {
                    " and its header agrees, of the sheets that end there"
                } else {
                    ""
                };
                diag(format!(
                    "{} goes on from {} (printed from move {at}, where the other's moves end{header}): read as one game over two sheets",
                    name(j),
                    name(first)
                ));
                if let (Job::One(a), Job::One(b)) = (&todo[first], &todo[j]) {
                    jobs.push(Job::Game(vec![vec![a.clone(), b.clone()]], a.stem.clone()));
                    chains.push((first, j));
                }
            }
            ref firsts => diag(format!(
                "warning: {} may go on from any of {}; not joined: give --continue FIRST {}",
                name(j),
                firsts
                    .iter()
                    .map(|&i| name(i))
                    .collect::<Vec<_>>()
                    .join(", "),
                name(j)
            )),
        }
    }
    for ((first, j), o) in chains.into_iter().zip(read(&jobs)) {
        for e in o.errors.iter().chain(&o.notes) {
            diag(e);
        }
        if o.errors.is_empty() && o.held.len() == 1 {
            outcomes[first] = o;
            outcomes[j] = new_outcome();
        }
    }
    // The continuation sheets left alone fail as read (their error held back so far).
    for (j, _) in later {
        for e in &outcomes[j].errors {
            diag(e);
        }
    }
}

/// Writes (or collects) every report held back for the join, with no review budget.
pub(super) fn emit_held(outcomes: &mut [Outcome], out: Option<&std::path::Path>, round_file: bool) {
    for o in outcomes {
        for (stem, report) in std::mem::take(&mut o.held) {
            emit(o, &report, &stem, out, round_file);
        }
    }
}
