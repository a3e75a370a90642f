//! Games whose file names say nothing -> their boards, from what their sheets say:
//! the board and round written in the header, the players' names (scored against the
//! pairings' names, [`crate::report::FieldRead::candidates`]) and, as a weak hint,
//! the result. One assignment over the round: each board takes at most one game, the
//! surest first; a game below [`MIN_SCORE`], or whose best board went to a surer game,
//! stays without a board (the caller warns, naming its files): never a guess.

use crate::report::FieldRead;

use super::{Pairing, name_key};

/// Weight of each field's agreement (each in -1..1 before weighting). The board
/// written is the strongest single sign; the names together outweigh it (a hand
/// that writes a clear `12` may still sit at another board's sheet only if both
/// names say so); the round only separates rounds; the result is a hint, since many
/// games of a round share one.
const BOARD: f32 = 2.0;
const ROUND: f32 = 1.0;
const NAME: f32 = 1.0;
const RESULT: f32 = 0.25;

/// The least score that places a game: a board read at confidence 0.5, or both
/// names at 0.5 each, or one sure name and a little more.
pub const MIN_SCORE: f32 = 1.0;

/// A game placed on a pairing.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    /// Index into the pairings given.
    pub pairing: usize,
    pub score: f32,
    /// The fields that agreed with the pairing (`board`, `round`, `white`, `black`,
    /// `result`), in that order.
    pub by: Vec<&'static str>,
}

/// The assignment of a batch's games to pairings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Assignment {
    /// For each game given, its pairing, if placed.
    pub placed: Vec<Option<Placed>>,
    /// Games whose best pairing (at least [`MIN_SCORE`]) went to another game: (the
    /// game left without a board, the pairing, the game placed there).
    pub contested: Vec<(usize, usize, usize)>,
    /// Games no free pairing reaches [`MIN_SCORE`] for (and not contested).
    pub unmatched: Vec<usize>,
}

/// A number as a header field holds it (`12`, `Bo. 12`, `12.`).
fn number_in(text: &str) -> Option<u32> {
    let digits: String = text
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// How much a field's written number agrees with `want`: +confidence when equal,
/// -confidence when another number is read; none when nothing is read.
fn number_agreement(fields: &[&FieldRead], want: Option<u32>) -> Option<f32> {
    let want = want?;
    mean(fields.iter().filter_map(|f| {
        let n = number_in(f.value.as_deref()?)?;
        let c = f.confidence.clamp(0.0, 1.0);
        Some(if n == want { c } else { -c })
    }))
}

/// How well a name field names `name`: the score of the candidate spelled as `name`
/// (0 when the candidates leave it out), else how much more the written value is
/// like `name` than like the likest of the round's other `names` ([`likeness`],
/// doubled, weighted by its confidence: a spelling as near to two names says
/// nothing); none when nothing is read.
fn name_agreement(fields: &[&FieldRead], name: &str, names: &[String]) -> Option<f32> {
    if name.trim().is_empty() {
        return None;
    }
    let key = name_key(name);
    mean(fields.iter().filter_map(|f| {
        if !f.candidates.is_empty() {
            let s = f
                .candidates
                .iter()
                .filter(|c| name_key(&c.value) == key)
                .map(|c| c.score)
                .fold(0.0f32, f32::max);
            return Some(s.clamp(0.0, 1.0));
        }
        let v = f.value.as_deref().filter(|v| !v.trim().is_empty())?;
        let v = name_key(v);
        let other = names
            .iter()
            .filter(|n| **n != key)
            .map(|n| likeness(&v, n))
            .fold(0.0f32, f32::max);
        let margin = (2.0 * (likeness(&v, &key) - other)).clamp(-1.0, 1.0);
        Some(margin * f.confidence.clamp(0.0, 1.0))
    }))
}

/// Agreement of the result written with the pairing's: +1, -1, or none.
fn result_agreement(fields: &[&FieldRead], result: Option<&str>) -> Option<f32> {
    let want = result?;
    mean(fields.iter().filter_map(|f| {
        let v = crate::report::normalise_result(f.value.as_deref()?)?;
        (v != "*").then_some(if v == want { 1.0 } else { -1.0 })
    }))
}

fn mean(values: impl Iterator<Item = f32>) -> Option<f32> {
    let (sum, n) = values.fold((0.0, 0), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f32)
}

/// 1 - edit distance / the longer length, over characters: how alike two spellings
/// of a name are (1: the same).
pub fn likeness(a: &str, b: &str) -> f32 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 1.0;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    1.0 - row[b.len()] as f32 / longest as f32
}

/// How well a game's header fields (of all its copies) fit a pairing, and which
/// fields agreed; `names` are the round's players ([`name_key`]), against which a
/// name read without candidates is weighed.
pub fn score(fields: &[FieldRead], p: &Pairing, names: &[String]) -> (f32, Vec<&'static str>) {
    let of =
        |name: &str| -> Vec<&FieldRead> { fields.iter().filter(|f| f.field == name).collect() };
    let parts = [
        (
            "board",
            BOARD,
            number_agreement(&of("board"), Some(p.board)),
        ),
        ("round", ROUND, number_agreement(&of("round"), p.round)),
        ("white", NAME, name_agreement(&of("white"), &p.white, names)),
        ("black", NAME, name_agreement(&of("black"), &p.black, names)),
        (
            "result",
            RESULT,
            result_agreement(&of("result"), p.result.as_deref()),
        ),
    ];
    let mut total = 0.0;
    let mut by = Vec::new();
    for (name, weight, agreement) in parts {
        if let Some(a) = agreement {
            total += weight * a;
            if a >= 0.5 {
                by.push(name);
            }
        }
    }
    (total, by)
}

/// Places each game (its header fields, all copies) on at most one of `pairings`,
/// each pairing taking at most one game; pairings in `taken` (claimed by file names
/// or the sheet map) take none. Pairs are placed surest first; a game whose best
/// pairing went to a surer game is contested, not moved to its next best.
pub fn assign(games: &[&[FieldRead]], pairings: &[Pairing], taken: &[usize]) -> Assignment {
    let names: Vec<String> = pairings
        .iter()
        .flat_map(|p| [name_key(&p.white), name_key(&p.black)])
        .filter(|n| !n.is_empty())
        .collect();
    let mut scored: Vec<(f32, usize, usize, Vec<&'static str>)> = Vec::new();
    for (g, fields) in games.iter().enumerate() {
        for (p, pairing) in pairings.iter().enumerate() {
            if taken.contains(&p) {
                continue;
            }
            let (s, by) = score(fields, pairing, &names);
            if s >= MIN_SCORE {
                scored.push((s, g, p, by));
            }
        }
    }
    // Surest first; ties in a stable order (game, then pairing).
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut out = Assignment {
        placed: vec![None; games.len()],
        ..Assignment::default()
    };
    let mut holder: Vec<Option<usize>> = vec![None; pairings.len()];
    let mut lost: Vec<bool> = vec![false; games.len()];
    for (s, g, p, by) in scored {
        if out.placed[g].is_some() || lost[g] {
            continue;
        }
        match holder[p] {
            None => {
                holder[p] = Some(g);
                out.placed[g] = Some(Placed {
                    pairing: p,
                    score: s,
                    by,
                });
            }
            Some(other) => {
                lost[g] = true;
                out.contested.push((g, p, other));
            }
        }
    }
    out.unmatched = (0..games.len())
        .filter(|&g| out.placed[g].is_none() && !lost[g])
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::FieldCandidate;

    fn field(name: &str, value: Option<&str>, confidence: f32) -> FieldRead {
        FieldRead {
            field: name.into(),
            value: value.map(str::to_string),
            confidence,
            ..FieldRead::default()
        }
    }

    /// A name field read against the closed vocabulary: the candidates as given.
    fn named(name: &str, read: &str, candidates: &[(&str, f32)]) -> FieldRead {
        FieldRead {
            candidates: candidates
                .iter()
                .map(|&(value, score)| FieldCandidate {
                    value: value.into(),
                    score,
                })
                .collect(),
            ..field(name, Some(read), 0.4)
        }
    }

    const SURNAMES: [&str; 20] = [
        "Kowalski",
        "Nowak",
        "Müller",
        "Schmidt",
        "Ivanov",
        "Petrova",
        "Dubois",
        "Rossi",
        "García",
        "Novák",
        "Horvath",
        "Jensen",
        "Larsen",
        "Smith",
        "Brown",
        "Wiśniewska",
        "Kuznetsov",
        "Fischer",
        "Weber",
        "Lewandowski",
    ];

    /// A round of `n` boards; names past the tenth board get its number too.
    fn round(n: usize) -> Vec<Pairing> {
        (1..=n as u32)
            .map(|b| Pairing {
                round: Some(3),
                board: b,
                white: format!(
                    "{}{}, Anna",
                    SURNAMES[(2 * b as usize - 2) % 20],
                    if b > 10 { b.to_string() } else { String::new() }
                ),
                black: format!(
                    "{}{}, Jan",
                    SURNAMES[(2 * b as usize - 1) % 20],
                    if b > 10 { b.to_string() } else { String::new() }
                ),
                result: Some(if b % 2 == 0 { "1-0" } else { "0-1" }.into()),
                ..Pairing::default()
            })
            .collect()
    }

    #[test]
    fn a_game_without_a_board_written_is_placed_by_its_names() {
        let pairings = round(40);
        // Board 17's names, read poorly (each the best of its candidates but far
        // from sure), and no board field; the round field is read.
        let (w, b) = (&pairings[16].white, &pairings[16].black);
        let game = vec![
            field("round", Some("3"), 0.9),
            field("board", None, 0.0),
            named(
                "white",
                "Kwalsk Ana",
                &[(w, 0.55), (&pairings[10].white, 0.3)],
            ),
            named(
                "black",
                "Nwk? Jan",
                &[(b, 0.6), (&pairings[11].black, 0.25)],
            ),
        ];
        // Another game, board 5 written and sure, no names.
        let other = vec![field("board", Some("5"), 0.95)];
        let a = assign(&[&game, &other], &pairings, &[]);
        let placed = a.placed[0].as_ref().expect("placed by the names");
        assert_eq!(pairings[placed.pairing].board, 17);
        assert_eq!(placed.by, vec!["round", "white", "black"]);
        assert_eq!(pairings[a.placed[1].as_ref().unwrap().pairing].board, 5);
        assert!(a.contested.is_empty() && a.unmatched.is_empty());
    }

    #[test]
    fn a_board_claimed_by_a_file_name_or_a_surer_game_is_not_given_twice() {
        let pairings = round(10);
        let sure = vec![
            field("board", Some("4"), 0.9),
            named("white", "Schmidt", &[(&pairings[3].white, 0.9)]),
        ];
        let unsure = vec![field("board", Some("4"), 0.6)];
        let a = assign(&[&unsure, &sure], &pairings, &[]);
        assert_eq!(a.placed[1].as_ref().map(|p| p.pairing), Some(3));
        assert_eq!(a.placed[0], None);
        assert_eq!(a.contested, vec![(0, 3, 1)]);
        // Board 4 named by a file name: neither game takes it, and none moves to
        // another board.
        let a = assign(&[&unsure, &sure], &pairings, &[3]);
        assert_eq!(a.placed, vec![None, None]);
        assert_eq!(a.unmatched, vec![0, 1]);
    }

    #[test]
    fn nothing_read_or_fields_that_contradict_place_no_game() {
        let pairings = round(10);
        let blank: Vec<FieldRead> = Vec::new();
        // Board 2 written, but both names are board 7's (typed out, no candidates:
        // as read without the pairings' names) and the round is another.
        let torn = vec![
            field("board", Some("2"), 0.7),
            field("round", Some("4"), 0.9),
            field("white", Some("Larsen Ana"), 0.9),
            field("black", Some("Smith, Jan"), 0.9),
        ];
        let a = assign(&[&blank, &torn], &pairings, &[]);
        assert_eq!(a.placed, vec![None, None]);
        assert_eq!(a.unmatched, vec![0, 1]);
        // The names alone, typed out without candidates, place it; the wrong board
        // written counts against.
        let names: Vec<String> = pairings
            .iter()
            .flat_map(|p| [name_key(&p.white), name_key(&p.black)])
            .collect();
        let (s7, _) = score(&torn[2..], &pairings[6], &names);
        let (s7_with_board, _) = score(&torn, &pairings[6], &names);
        assert!(s7 >= MIN_SCORE && s7_with_board < s7);
    }

    #[test]
    fn the_result_only_breaks_ties() {
        let pairings = round(2);
        // The same name on both boards' sheets (a player's name misread as the other
        // board's): only the result written tells them apart.
        let mut p = pairings.clone();
        p[1].white = p[0].white.clone();
        p[1].black = p[0].black.clone();
        let game = vec![
            named("white", "Kowalski", &[(&p[0].white, 0.9)]),
            named("black", "Nowak", &[(&p[0].black, 0.9)]),
            field("result", Some("1-0"), 0.8),
        ];
        let a = assign(&[&game], &p, &[]);
        assert_eq!(a.placed[0].as_ref().map(|x| x.pairing), Some(1));
        assert_eq!(
            a.placed[0].as_ref().unwrap().by,
            vec!["white", "black", "result"]
        );
    }

    #[test]
    fn numbers_and_likeness_as_fields_hold_them() {
        assert_eq!(number_in("Bo. 12"), Some(12));
        assert_eq!(number_in("3."), Some(3));
        assert_eq!(number_in("x"), None);
        assert!((likeness("kowalski jan", "kowalski jan") - 1.0).abs() < 1e-6);
        assert!(likeness("kowalsky jan", "kowalski jan") > 0.9);
        assert!(likeness("nowak ewa", "kowalski jan") < 0.5);
        assert!((likeness("", "") - 1.0).abs() < 1e-6 && likeness("ab", "") < 1e-6);
    }
}
