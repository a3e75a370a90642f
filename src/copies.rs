//! Copies found by content: which sheets of a batch, each read alone, hold the same
//! game (White's and Black's sheets scanned under names that say nothing), so that
//! they can be read again as the two copies of one game.
//!
//! [`match_games`] takes each sheet's game as read alone (English SAN, ply order) and
//! returns the joins and the doubts. Candidates come from an index of short windows of
//! consecutive plies only (never all pairs), so a batch of thousands of sheets costs
//! about as much as the plies it holds; each candidate is then compared over the whole
//! game. Games of one tournament share their openings, so the comparison asks for
//! agreement well past any opening line other games of the batch also play.

use std::collections::HashMap;

use crate::report::GameInfo;

/// Plies in an index window. Four consecutive plies read the same on both copies are
/// common even with a misread every few plies, and rarely repeat by chance outside
/// the opening.
const WINDOW: usize = 4;

/// A window played by more sheets than this is an opening line (or a common endgame
/// shuffle): it says nothing about which two sheets are one game, and indexing it
/// would make the candidates grow with the square of the batch.
const BUCKET_CAP: usize = 12;

/// Windows two sheets must share to be compared at all: one shared window may be
/// chance.
const MIN_SHARED_WINDOWS: u32 = 2;

/// A game shorter than this (in plies, the shorter of the two) is never joined by
/// content: there is too little past an opening to tell two games apart.
const MIN_PLIES: usize = 20;

/// The shorter game must hold at least this share of the longer one's plies: two
/// copies of one game read about as long; a short game that agrees with the start of
/// a long one is another game that left the line, or a sheet read only in part.
const MIN_LENGTH_RATIO: f32 = 0.6;

/// Aligned plies may be this many plies apart: a copy's decoder may assume a missed
/// move or skip a cell, which shifts the rest of its game.
const BAND: usize = 2;

/// Share of the shorter game's plies that must agree to join at all. Copies read with
/// a misread in one ply in ten agree on about 0.9 of them (a misread may also send a
/// decoder off for a few plies); different games agree on their shared opening only.
const MIN_SHARE: f32 = 0.6;

/// Share at or above which a join is sure; below it (but at least [`MIN_SHARE`]) the
/// join is made and reported as doubtful.
const SURE_SHARE: f32 = 0.8;

/// Plies that must agree past the opening, that is past the longest first plies
/// either sheet shares with a third sheet of the batch: a tournament's games share
/// their first 8 to 15 moves, and agreement there says nothing.
const MIN_PAST_OPENING: usize = 10;

/// Plies past the opening at or above which a join may be sure.
const SURE_PAST_OPENING: usize = 20;

/// After the first ply on which the two differ, at least this share of the shorter
/// game's remaining plies must still agree: a misread in one copy leaves the plies
/// after it agreeing, while two games that left a common line (an opening no third
/// sheet of the batch plays) agree on almost nothing after it.
const MIN_SHARE_AFTER_SPLIT: f32 = 0.5;

/// Two sheets joined as the copies of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Join {
    /// Indexes into the games given, `a < b`.
    pub a: usize,
    pub b: usize,
    /// Plies that agree (aligned, see [`BAND`]).
    pub agree: usize,
    /// Plies of the shorter game.
    pub of: usize,
    /// Plies that agree past the opening other sheets of the batch share.
    pub past_opening: usize,
    /// Sure, or doubtful (joined, and worth a look).
    pub sure: bool,
}

/// A sheet not joined though it could be a copy of another: two candidates pass
/// every test with about the same agreement (a third copy, a sheet scanned twice), or
/// its best candidate was joined to a sheet that agrees with it better. `with`: its
/// candidates within [`margin`] of the best.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tie {
    pub a: usize,
    /// The candidates, best first.
    pub with: Vec<usize>,
}

/// What [`match_games`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Matches {
    /// The joins, by their first sheet.
    pub joins: Vec<Join>,
    /// Sheets left alone though a candidate passes every test.
    pub ties: Vec<Tie>,
    /// Whole-game comparisons made (the candidates the index gave): grows with the
    /// batch, not with its square.
    pub compared: usize,
}

/// A candidate's agreement must beat the next plausible candidate's by this many
/// plies to be the sheet's copy; otherwise the sheets tie and none is joined.
fn margin(of: usize) -> usize {
    (of / 10).max(4)
}

/// Finds the sheets that hold the same game: `games[i]` is sheet i's game as read
/// alone (SAN, ply order). A join is mutual (each is the other's best candidate) and
/// unique (no other candidate of either comes within [`margin`]).
pub fn match_games(games: &[Vec<String>]) -> Matches {
    let opening = openings(games);
    let mut shared: HashMap<(usize, usize), u32> = HashMap::new();
    for bucket in index(games).into_values() {
        if bucket.len() < 2 || bucket.len() > BUCKET_CAP {
            continue;
        }
        for (x, &i) in bucket.iter().enumerate() {
            for &j in &bucket[x + 1..] {
                *shared.entry((i, j)).or_default() += 1;
            }
        }
    }
    let mut compared = 0;
    // Each sheet's plausible copies: (agreement, other sheet, the join).
    let mut plausible: Vec<Vec<(usize, usize, Join)>> = vec![Vec::new(); games.len()];
    let mut pairs: Vec<(usize, usize)> = shared
        .into_iter()
        .filter(|&(_, n)| n >= MIN_SHARED_WINDOWS)
        .map(|(p, _)| p)
        .collect();
    pairs.sort_unstable();
    for (a, b) in pairs {
        compared += 1;
        if let Some(join) = compare(games, &opening, a, b) {
            plausible[a].push((join.agree, b, join.clone()));
            plausible[b].push((join.agree, a, join));
        }
    }
    for p in &mut plausible {
        p.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    }
    let mut matches = Matches {
        compared,
        ..Matches::default()
    };
    let clear = |i: usize| -> bool {
        let p = &plausible[i];
        p.len() < 2 || p[0].0 >= p[1].0 + margin(p[0].2.of)
    };
    let mut joined = vec![false; games.len()];
    for (a, p) in plausible.iter().enumerate() {
        let Some((_, b, join)) = p.first() else {
            continue;
        };
        let mutual = plausible[*b].first().is_some_and(|q| q.1 == a);
        if mutual && clear(a) && clear(*b) && a < *b {
            joined[a] = true;
            joined[*b] = true;
            matches.joins.push(join.clone());
        }
    }
    // A sheet with a plausible copy that is not joined (two candidates about as good,
    // or its best candidate joined to a sheet that agrees better) is never silent.
    for (a, p) in plausible.iter().enumerate() {
        if joined[a] || p.is_empty() {
            continue;
        }
        let best = p[0].0;
        matches.ties.push(Tie {
            a,
            with: p
                .iter()
                .take_while(|q| q.0 + margin(q.2.of) > best)
                .map(|q| q.1)
                .collect(),
        });
    }
    matches
}

/// Window of plies -> the sheets that play it (each sheet once per window).
fn index(games: &[Vec<String>]) -> HashMap<&[String], Vec<usize>> {
    let mut index: HashMap<&[String], Vec<usize>> = HashMap::new();
    for (i, game) in games.iter().enumerate() {
        for w in game.windows(WINDOW) {
            let bucket = index.entry(w).or_default();
            if bucket.last() != Some(&i) && bucket.len() <= BUCKET_CAP {
                bucket.push(i);
            }
        }
    }
    index
}

/// Plies two games share from the first.
fn common_prefix(a: &[String], b: &[String]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// For each sheet, its first plies shared with the two other sheets that share the
/// most: `[(plies, sheet); 2]`, best first. The longest prefix a game shares with any
/// other is with a neighbour in sorted order; the two best, so that the pair's own
/// copy can be left out.
fn openings(games: &[Vec<String>]) -> Vec<[(usize, usize); 2]> {
    let mut order: Vec<usize> = (0..games.len()).collect();
    order.sort_by(|&x, &y| games[x].cmp(&games[y]));
    let mut best = vec![[(0, usize::MAX); 2]; games.len()];
    for (at, &i) in order.iter().enumerate() {
        let near = order[at.saturating_sub(2)..(at + 3).min(order.len())].iter();
        let mut found: Vec<(usize, usize)> = near
            .filter(|&&j| j != i)
            .map(|&j| (common_prefix(&games[i], &games[j]), j))
            .collect();
        found.sort_by_key(|f| std::cmp::Reverse(f.0));
        for (slot, f) in best[i].iter_mut().zip(found) {
            *slot = f;
        }
    }
    best
}

/// The longest first plies sheet `i` shares with a sheet other than `not`.
fn opening_without(opening: &[[(usize, usize); 2]], i: usize, not: usize) -> usize {
    opening[i]
        .iter()
        .find(|(_, j)| *j != not)
        .map_or(0, |(n, _)| *n)
}

/// Whether sheets `a` and `b` pass every test of one game, and how well they agree.
fn compare(
    games: &[Vec<String>],
    opening: &[[(usize, usize); 2]],
    a: usize,
    b: usize,
) -> Option<Join> {
    let (x, y) = (&games[a], &games[b]);
    let of = x.len().min(y.len());
    let longer = x.len().max(y.len());
    if of < MIN_PLIES || (of as f32) < MIN_LENGTH_RATIO * longer as f32 {
        return None;
    }
    let book = opening_without(opening, a, b).max(opening_without(opening, b, a));
    let aligned = align(x, y);
    let agree = aligned.len();
    let past_opening = aligned.iter().filter(|&&(i, _)| i >= book).count();
    let split = common_prefix(x, y);
    let after_split = aligned.iter().filter(|&&(i, _)| i > split).count();
    let rest = of.saturating_sub(split + 1);
    let share = agree as f32 / of as f32;
    // A third sheet that shares most of the game is no opening but a third copy (a
    // sheet scanned twice): the pair stays a candidate, and the three tie.
    let third_copy = book as f32 >= MIN_SHARE * of as f32;
    if share < MIN_SHARE
        || (past_opening < MIN_PAST_OPENING && !third_copy)
        || (after_split as f32) < MIN_SHARE_AFTER_SPLIT * rest as f32
    {
        return None;
    }
    Some(Join {
        a,
        b,
        agree,
        of,
        past_opening,
        sure: share >= SURE_SHARE && past_opening >= SURE_PAST_OPENING && !third_copy,
    })
}

/// The plies of `x` and `y` that agree in the best alignment of the two, each ply
/// of one matched to a ply of the other at most [`BAND`] plies away, in order: the
/// longest common subsequence within the band. Returns the pairs of indexes.
fn align(x: &[String], y: &[String]) -> Vec<(usize, usize)> {
    // Plies of the longer game past the shorter one's end (and the band) agree with
    // nothing; cut them so that both ends lie in the band.
    let short = x.len().min(y.len()) + BAND;
    let (x, y) = (&x[..x.len().min(short)], &y[..y.len().min(short)]);
    let (n, m) = (x.len(), y.len());
    let w = 2 * BAND + 1;
    // score[i][d]: best over x[..i] and y[..j] with j = i + d - BAND (in the band).
    let mut score = vec![vec![0u32; w]; n + 1];
    let at = |i: usize, j: usize| -> Option<usize> {
        let d = j as isize - i as isize + BAND as isize;
        (0..w as isize).contains(&d).then_some(d as usize)
    };
    let get =
        |score: &Vec<Vec<u32>>, i: usize, j: usize| -> u32 { at(i, j).map_or(0, |d| score[i][d]) };
    for i in 0..=n {
        for j in i.saturating_sub(BAND)..=(i + BAND).min(m) {
            if i == 0 || j == 0 {
                continue;
            }
            let d = at(i, j).expect("in the band");
            let diagonal = get(&score, i - 1, j - 1) + u32::from(x[i - 1] == y[j - 1]);
            let up = get(&score, i - 1, j);
            let left = get(&score, i, j - 1);
            score[i][d] = diagonal.max(up).max(left);
        }
    }
    // Walk back from the best end cell in the band.
    let mut i = n;
    let mut j = (n.saturating_sub(BAND)..=(n + BAND).min(m))
        .max_by_key(|&j| (get(&score, n, j), std::cmp::Reverse(j)))
        .unwrap_or(0);
    let mut pairs = Vec::new();
    while i > 0 && j > 0 {
        let here = get(&score, i, j);
        if x[i - 1] == y[j - 1]
            && at(i - 1, j - 1).is_some()
            && get(&score, i - 1, j - 1) + 1 == here
        {
            pairs.push((i - 1, j - 1));
            i -= 1;
            j -= 1;
        } else if at(i - 1, j).is_some() && get(&score, i - 1, j) == here {
            i -= 1;
        } else if at(i, j - 1).is_some() && get(&score, i, j - 1) == here {
            j -= 1;
        } else {
            i -= 1;
            j -= 1;
        }
    }
    pairs.reverse();
    pairs
}

/// A name read on two sheets of one game is the same name where its words, sorted,
/// differ by at most one edit in this many letters: each sheet's header is read
/// alone, and a few letters may come out differently on each (`Käthe Köhler` read
/// `Käthe Kiöhler` and `Hiäthe Kiphter`); two players' names differ in most of theirs.
const NAME_EDITS_PER_LETTER: usize = 2;

/// How a continuation sheet's header (`later`) agrees with a first sheet's game
/// fields: the number of the fields that tell a folder's games apart (white, black,
/// board) both say and agree on, or `None` where one they both say disagrees (another
/// name or board). A round is one folder's for every game, and the event and date one
/// tournament's: they tell no two of its games apart, and a misread one would only
/// part a sheet from its own.
pub fn header_agreement(first: &GameInfo, later: &GameInfo) -> Option<usize> {
    let (agree, disagree) = header_fields(first, later);
    (disagree == 0).then_some(agree)
}

/// The number of the fields that tell a folder's games apart (white, black, board)
/// that both sheets say and that disagree (see [`header_agreement`]).
pub fn header_disagreements(first: &GameInfo, later: &GameInfo) -> usize {
    header_fields(first, later).1
}

/// Of white, black and board, those both headers say: how many agree and how many
/// disagree.
fn header_fields(first: &GameInfo, later: &GameInfo) -> (usize, usize) {
    let names = [(&first.white, &later.white), (&first.black, &later.black)]
        .into_iter()
        .filter_map(|(a, b)| Some(same_name(a.as_ref()?, b.as_ref()?)));
    let board = first.board.zip(later.board).map(|(a, b)| a == b);
    names.chain(board).fold((0, 0), |(agree, disagree), same| {
        if same {
            (agree + 1, disagree)
        } else {
            (agree, disagree + 1)
        }
    })
}

/// Whether two readings of a name are one name: the fewest edits between the first's
/// words and the second's in any order (`Kowalski, J.` and `J. Kowalsky`) within
/// [`NAME_EDITS_PER_LETTER`].
fn same_name(a: &str, b: &str) -> bool {
    let words = |name: &str| -> Vec<String> {
        name.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(String::from)
            .collect()
    };
    let (a, mut b) = (words(a).join(" "), words(b));
    b.truncate(4);
    let letters = a.chars().count().max(b.join(" ").chars().count());
    let mut fewest = usize::MAX;
    permutations(&mut b, 0, &mut |order| {
        fewest = fewest.min(crate::form::fields::edit_distance(&a, &order.join(" ")));
    });
    fewest * NAME_EDITS_PER_LETTER <= letters
}

/// Calls `each` with every order of `items[k..]` after `items[..k]`.
fn permutations(items: &mut [String], k: usize, each: &mut impl FnMut(&[String])) {
    if k + 1 >= items.len() {
        each(items);
        return;
    }
    for i in k..items.len() {
        items.swap(k, i);
        permutations(items, k + 1, each);
        items.swap(k, i);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_continuation_sheets_header_agrees_with_its_first_sheet_only() {
        let game = |white: &str, black: &str, round: &str, board: Option<u32>| GameInfo {
            white: Some(white.into()),
            black: Some(black.into()),
            round: Some(round.into()),
            board,
            ..GameInfo::default()
        };
        let first = game("Kowalski, Jan", "Nowak, Piotr", "3", Some(12));
        // The same game, its names read with a slip and in another order.
        let later = game("Jan Kowalsky", "Nowak Piotr", "3", None);
        assert_eq!(header_agreement(&first, &later), Some(2));
        // A misread first letter that would sort the words otherwise.
        let slips = game("Zöiner, Jürgen", "Hiäthe Kiphter", "5", Some(114));
        let own = game("Zöllner, Türgen", "Käthe Kiöhler", "5", Some(114));
        assert_eq!(header_agreement(&own, &slips), Some(3));
        // A round misread on one sheet parts nothing.
        let misread = game("Kowalski, Jan", "Nowak, Piotr", "34", Some(12));
        assert_eq!(header_agreement(&first, &misread), Some(3));
        // Another board of the same round, another game.
        let other = game("Wiśniewski, Adam", "Zając, Ewa", "3", Some(7));
        assert_eq!(header_agreement(&other, &later), None);
        assert_eq!(header_agreement(&other, &first), None);
        // A header that says nothing agrees with nothing.
        assert_eq!(header_agreement(&first, &GameInfo::default()), Some(0));
        // Another game's names and board disagree three times; a misread board once.
        assert_eq!(header_disagreements(&other, &first), 3);
        assert_eq!(header_disagreements(&other, &later), 2);
        let board = game("Kowalski, Jan", "Nowak, Piotr", "3", Some(72));
        assert_eq!(header_disagreements(&first, &board), 1);
        assert_eq!(header_disagreements(&first, &later), 0);
    }

    use super::*;
    use shakmaty::san::San;
    use shakmaty::{Chess, Position};

    /// A fixed-seed generator (xorshift), so that the games are the same every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// A legal game: `opening` played first, then random legal moves (seed `seed`)
    /// up to `plies` plies or the game's end.
    fn game(opening: &[String], plies: usize, seed: u64) -> Vec<String> {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut pos = Chess::default();
        let mut sans = Vec::new();
        for san in opening {
            let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            sans.push(san.clone());
        }
        while sans.len() < plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.below(moves.len())];
            sans.push(San::from_move(&pos, m).to_string());
            pos.play_unchecked(m);
        }
        sans
    }

    /// `game` as another copy reads it: the plies at `misread` read as another move.
    fn misread(game: &[String], at: &[usize]) -> Vec<String> {
        let mut g = game.to_vec();
        for &i in at {
            g[i] = format!("Qh{}", i % 8 + 1);
        }
        g
    }

    #[test]
    fn true_copies_with_misread_plies_join() {
        let g = game(&[], 70, 1);
        assert_eq!(g.len(), 70, "the generator plays on");
        let other = game(&[], 60, 2);
        // Five misread plies, one early (in the first window) and one late.
        let copy = misread(&g, &[2, 11, 30, 45, 68]);
        let m = match_games(&[g.clone(), other, copy]);
        assert_eq!(m.joins.len(), 1, "{m:?}");
        let j = &m.joins[0];
        assert_eq!((j.a, j.b, j.agree, j.of), (0, 2, 65, 70));
        assert!(j.sure, "{j:?}");
        assert!(m.ties.is_empty());
    }

    #[test]
    fn a_copy_whose_decoder_assumed_a_move_still_joins() {
        // Copy b has one ply more at 20 (an assumed move) and reads the rest shifted.
        let g = game(&[], 60, 3);
        let mut copy = g.clone();
        copy.insert(20, "Kh1".into());
        copy.truncate(58);
        let m = match_games(&[copy, g]);
        assert_eq!(m.joins.len(), 1, "{m:?}");
        assert_eq!(m.joins[0].agree, 57);
    }

    #[test]
    fn games_sharing_their_first_15_moves_then_diverging_stay_apart() {
        let opening = game(&[], 30, 4);
        let a = game(&opening, 70, 5);
        let b = game(&opening, 70, 6);
        assert_eq!(a[..30], b[..30]);
        assert_ne!(a[30], b[30]);
        let m = match_games(&[a.clone(), b.clone()]);
        assert!(m.joins.is_empty(), "{m:?}");
        // Even short games, where the shared opening is most of the game: 30 of 40
        // plies agree, and nothing after they split.
        let m = match_games(&[a[..40].to_vec(), b[..40].to_vec()]);
        assert!(m.joins.is_empty(), "{m:?}");
        // A game and a copy of it that a decoder read only in part (20 of 70 plies).
        let m = match_games(&[a.clone(), a[..20].to_vec()]);
        assert!(m.joins.is_empty(), "{m:?}");
        // Too short to tell from an opening.
        let m = match_games(&[a[..16].to_vec(), a[..16].to_vec()]);
        assert!(m.joins.is_empty(), "{m:?}");
    }

    #[test]
    fn of_100_games_sharing_an_opening_only_the_true_pair_joins() {
        // 100 games of one tournament: groups share their first 10 to 15 moves; one
        // game's two copies (misread here and there) are among them.
        let openings: Vec<Vec<String>> = (0..4)
            .map(|k| game(&[], 20 + 2 * k, 100 + k as u64))
            .collect();
        let mut games: Vec<Vec<String>> = (0..100)
            .map(|i| game(&openings[i % 4], 50 + i % 40, 1000 + i as u64))
            .collect();
        let copy = misread(&games[37], &[24, 33, 50]);
        games.insert(71, copy);
        let m = match_games(&games);
        assert_eq!(m.joins.len(), 1, "{m:?}");
        let j = &m.joins[0];
        assert_eq!((j.a, j.b), (37, 71));
        assert!(j.sure);
        // The opening shared with other games is not counted as evidence.
        assert!(j.past_opening <= j.agree - 20, "{j:?}");
        assert!(m.ties.is_empty(), "{m:?}");
    }

    #[test]
    fn a_game_read_from_three_sheets_is_a_tie_not_a_join() {
        let g = game(&[], 60, 7);
        // Read alike three times (one sheet scanned thrice).
        let m = match_games(&[g.clone(), g.clone(), g.clone()]);
        assert!(m.joins.is_empty(), "{m:?}");
        assert_eq!(m.ties.len(), 3, "{m:?}");
        let games = [
            g.clone(),
            misread(&g, &[40]),
            misread(&g, &[41]),
            game(&[], 60, 8),
        ];
        let m = match_games(&games);
        assert!(m.joins.is_empty(), "{m:?}");
        assert_eq!(m.ties.len(), 3, "{m:?}");
        assert_eq!(m.ties[0].a, 0);
        assert_eq!(m.ties[0].with.len(), 2);
    }

    #[test]
    fn a_third_copy_left_alone_is_named() {
        // Sheets 0 and 1 agree best; sheet 2, a worse read of the same game, is left
        // alone and reported, not dropped silently.
        let g = game(&[], 60, 10);
        let worse: Vec<usize> = (3..60).step_by(6).collect();
        let m = match_games(&[g.clone(), misread(&g, &[30]), misread(&g, &worse)]);
        assert_eq!(m.joins.len(), 1, "{m:?}");
        assert_eq!((m.joins[0].a, m.joins[0].b), (0, 1));
        assert_eq!(m.ties.len(), 1, "{m:?}");
        assert_eq!(m.ties[0].a, 2);
    }

    #[test]
    fn a_badly_read_copy_joins_as_doubtful() {
        let g = game(&[], 60, 9);
        let bad: Vec<usize> = (5..60).step_by(4).collect(); // one ply in four misread
        let m = match_games(&[g.clone(), misread(&g, &bad)]);
        assert_eq!(m.joins.len(), 1, "{m:?}");
        assert!(!m.joins[0].sure, "{m:?}");
    }

    #[test]
    fn the_candidates_grow_with_the_batch_not_its_square() {
        // 2000 games in 5 openings of 12 moves: all share their first windows, which
        // the index leaves out; the comparisons stay about one per true pair.
        let openings: Vec<Vec<String>> = (0..5).map(|k| game(&[], 24, 200 + k)).collect();
        let mut games: Vec<Vec<String>> = (0..2000)
            .map(|i| game(&openings[i % 5], 60, 5000 + i as u64))
            .collect();
        for i in 0..50 {
            let copy = misread(&games[i * 40], &[30, 45]);
            games.push(copy);
        }
        let m = match_games(&games);
        assert_eq!(m.joins.len(), 50, "{:?}", &m.ties);
        assert!(m.compared < 2 * games.len(), "{} comparisons", m.compared);
    }
}
