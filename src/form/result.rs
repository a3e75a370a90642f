//! The result a player writes on the sheet: in the cell after the last move (`1-0`,
//! `0-1`, `1:0`, `0:1`, `=`), the way most players end a scoresheet, or a word saying
//! that the side to move resigned (`resigns`, `aufgegeben`, `poddał`, `сдался`).
//!
//! The cell's reading is scored against each way of writing a result with the CTC
//! forward algorithm, as moves are; a result is taken when the ways of writing it
//! hold at least [`MIN_SHARE`] of the cell's probability mass and come within
//! [`RESULT_SLACK`] nats of the reader's own best reading, unless that reading is empty
//! (the cells looked at hold ink, and the reader often takes a small `=` for nothing;
//! when no result is read and the reader sees nothing at all there, the pipeline reads
//! the cell's ink again cut out closer: `closeup.rs`). Only what the reader's alphabet
//! can spell is looked for: a draw written `½-½` or `1/2` needs a reader with
//! `½` and `/` (cellreader 2.1.0 on; with an older one only `=` reads as a draw), and
//! the resign words need `n`, `u`, `д`, `я` (cellreader 2.2.0 on: [`reads_words`]);
//! with an older reader a resign cell is not read.

use crate::decode::{CellScorer, DecodedSheet, Entry, Trie};
use crate::grid::Grid;
use crate::vocab::{Alphabet, CellScores};

/// Share of a cell's probability mass its result's spellings must hold at least; and
/// they must come within [`RESULT_SLACK`] nats of the reader's own best reading of the
/// cell (this reader spreads a cleanly read cell's mass: a `0-1` it reads as `0-1` may
/// hold 0.4 of it).
pub const MIN_SHARE: f32 = 0.15;

/// Cells after the last move looked at for a result (a player may leave the other
/// side's cell empty and write the result in the next row).
const LOOK_AHEAD: usize = 2;

/// How each result may be written with the reader's glyphs (a handwritten zero is
/// also the reader's `O`, as in castling). The reader often drops the small separator
/// of a result (`0:1` read `01`, `½-½` read `½½`: 4 of the 18 results missed on 96
/// selection-hand sheets), and no move is spelt with two of these glyphs alone, so the
/// forms without one count too.
const SPELLINGS: &[(&str, &str)] = &[
    ("1-0", "1-0"),
    ("1-O", "1-0"),
    ("1:0", "1-0"),
    ("1:O", "1-0"),
    ("10", "1-0"),
    ("1O", "1-0"),
    ("+-", "1-0"),
    ("0-1", "0-1"),
    ("O-1", "0-1"),
    ("0:1", "0-1"),
    ("O:1", "0-1"),
    ("01", "0-1"),
    ("O1", "0-1"),
    ("-+", "0-1"),
    ("=", "1/2-1/2"),
    ("½-½", "1/2-1/2"),
    ("½:½", "1/2-1/2"),
    ("½½", "1/2-1/2"),
    ("½", "1/2-1/2"),
    ("1/2-1/2", "1/2-1/2"),
    ("1/2:1/2", "1/2-1/2"),
    ("1/2", "1/2-1/2"),
    ("12", "1/2-1/2"),
    ("1-2-1-2", "1/2-1/2"),
];

/// Words written after the last move for a resignation: the `word` column of
/// `src/resign_words.tsv`, in its order (the one list; `training/common.py`'s
/// `RESIGN_WORDS` draws from it; scored through `glyph::canonical`, so `resigns` is the
/// reader's `reSignS`). The side to move after the last move resigned.
pub(crate) static RESIGN_WORDS: std::sync::LazyLock<Vec<&str>> = std::sync::LazyLock::new(|| {
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/resign_words.tsv"))
        .lines()
        .filter(|line| !line.starts_with('#'))
        .skip(1) // the header
        .filter_map(|line| line.split('\t').nth(1))
        .collect()
});

/// The key a resign word's share is kept under (never a PGN result).
const RESIGNED: &str = "resigned";

/// How far (nats) a resign word may fall short of the reader's own best reading of the
/// cell and still be read, and the least share of the cell's mass it must hold: a hand's
/// doubtful letters (`Resigns` read `Re5igf5`) cost a few nats, and on pages that write
/// no result these invent none (docs/measurements.md has the figures).
const WORD_SLACK: f32 = 5.0;
const WORD_MIN_SHARE: f32 = 0.001;

/// How far (nats) a written result may fall short of the reader's own best reading of
/// the cell and still be read (its share of the cell's mass must still reach
/// [`MIN_SHARE`]): the reader takes a handwritten `0` for `a` (`0:1` read `a:1`), or
/// drops a `1` that is a bare stroke (`1-0` read `-O`), and the decoder then made the
/// cell one more move. From 1 to 4 nats the same results more are read right on
/// generated forms and sheets, and none invented on pages that write none.
const RESULT_SLACK: f32 = 2.0;

/// Whether the reader's alphabet spells the resign words (cellreader 2.2.0 on).
pub fn reads_words(alphabet: &Alphabet) -> bool {
    RESIGN_WORDS
        .iter()
        .all(|w| w.chars().all(|c| alphabet.class_of(c).is_some()))
}

/// A result read from a sheet cell.
#[derive(Clone, Debug, PartialEq)]
pub struct WrittenResult {
    /// PGN form: `1-0`, `0-1`, `1/2-1/2`.
    pub result: String,
    /// The sheet cell it was read in.
    pub cell: usize,
    /// Share of the cell's probability mass the result holds.
    pub share: f32,
    /// It was read from a resign word (the side to move lost), not a written result.
    pub resigned: bool,
}

/// The result (if any) a cell shows: the best result's share of the cell's mass, when
/// it is at least the share of the reader's own best reading (`None` otherwise).
/// `floor` as [`CellScorer::new`] takes it. (The reading of a cell after the last move
/// without the resign words; the pipeline reads those cells with them.)
#[cfg(test)]
pub fn cell_result(scores: &CellScores, alphabet: &Alphabet, floor: f32) -> Option<(String, f32)> {
    best_share(scores, alphabet, floor, false, false)
}

/// As [`cell_result`], for a result printed on a form (`1-0  ½-½  0-1`): forms print
/// no `+-` or `-+`, and a stacked `½-½` in a small print reads as `-+` (on the French
/// federation's form, that read as `0-1` hid the ticked `0-1`).
pub fn printed_result(
    scores: &CellScores,
    alphabet: &Alphabet,
    floor: f32,
) -> Option<(String, f32)> {
    best_share(scores, alphabet, floor, false, true)
}

/// As [`cell_result`], the resign words counted too (`words`) under [`RESIGNED`], and
/// (`printed`) without the spellings with `+`.
fn best_share(
    scores: &CellScores,
    alphabet: &Alphabet,
    floor: f32,
    words: bool,
    printed: bool,
) -> Option<(String, f32)> {
    let scorer = CellScorer::new(scores, alphabet, floor);
    let mut trie = Trie::default();
    trie.reset(&scorer);
    let total = scorer.total_mass();
    let mut shares: Vec<(&str, f32)> = Vec::new();
    let resign = RESIGN_WORDS.iter().map(|w| (*w, RESIGNED));
    let spellings = SPELLINGS
        .iter()
        .copied()
        .filter(|(spelling, _)| !(printed && spelling.contains('+')));
    for (spelling, res) in spellings.chain(resign.filter(|_| words)) {
        let p = (scorer.score_text(&mut trie, spelling, alphabet) - total).exp();
        match shares.iter_mut().find(|(r, _)| *r == res) {
            Some(entry) => entry.1 += p,
            None => shares.push((res, p)),
        }
    }
    // The reader's own best reading, unless it sees nothing: a small `=` or `½` is
    // often read as an empty cell, and the cells looked at hold ink.
    let greedy = alphabet.greedy(scores);
    let own = if greedy.is_empty() {
        0.0
    } else {
        (scorer.score_text(&mut trie, &greedy, alphabet) - total).exp()
    };
    // A word is long: the reader's own reading of it (`aufg6ben`) may outweigh the
    // word by more than a short result's would; within WORD_SLACK nats of it, it counts.
    // A written result within RESULT_SLACK nats of it; a printed one must match it.
    shares
        .into_iter()
        .filter(|(r, share)| {
            let slack = if *r == RESIGNED {
                (-WORD_SLACK).exp()
            } else if printed {
                1.0
            } else {
                (-RESULT_SLACK).exp()
            };
            *share + 1e-6 >= own * slack
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(r, share)| (r.to_string(), share.min(1.0)))
}

/// The entry of the last cell that gives the game a move.
pub fn last_move_entry(decoded: &DecodedSheet) -> Option<&Entry> {
    decoded
        .entries
        .iter()
        .filter(|e| e.ply.is_some() && e.cell.is_some())
        .max_by_key(|e| e.cell)
}

/// The first inked cell among the [`LOOK_AHEAD`] after the decoded game's last move
/// (of the `read` cells read).
pub fn inked_after_game(
    decoded: &DecodedSheet,
    grid: &Grid,
    read: usize,
    blank_ink: f32,
) -> Option<usize> {
    let last = last_move_entry(decoded)
        .and_then(|e| e.cell)
        .map_or(0, |c| c + 1);
    (last..(last + LOOK_AHEAD).min(read))
        .find(|&i| grid.cells.get(i).is_some_and(|c| c.ink >= blank_ink))
}

/// Whether `cell` is the only inked cell (of the `read` cells read) after the decoded
/// game's last move.
pub fn alone_after_game(
    decoded: &DecodedSheet,
    grid: &Grid,
    read: usize,
    cell: usize,
    blank_ink: f32,
) -> bool {
    let after = last_move_entry(decoded)
        .and_then(|e| e.cell)
        .map_or(0, |c| c + 1);
    !grid
        .cells
        .iter()
        .enumerate()
        .take(read)
        .skip(after)
        .any(|(i, c)| i != cell && c.ink >= blank_ink)
}

/// The result that `cell` (the first inked cell after the decoded game's last move:
/// [`inked_after_game`]) shows, read as `scores`, if it reads as a result or a resign
/// word (the side to move after the last move lost); `None` otherwise.
pub fn result_in_cell(
    decoded: &DecodedSheet,
    cell: usize,
    scores: &CellScores,
    alphabet: &Alphabet,
    floor: f32,
) -> Option<WrittenResult> {
    let (result, share) = result_in_copies(&[scores], alphabet, floor, false)?;
    let resigned = result == RESIGNED;
    let result = if !resigned {
        result
    } else if decoded.moves.len().is_multiple_of(2) {
        "0-1".to_string()
    } else {
        "1-0".to_string()
    };
    Some(WrittenResult {
        result,
        cell,
        share,
        resigned,
    })
}

/// The result (or [`RESIGNED`]) that every copy's reading of one cell shows, each copy's
/// share of it at least [`MIN_SHARE`] (a resign word's [`WORD_MIN_SHARE`], unless
/// `strict`), with the product of those shares: the share of the copies' summed
/// evidence, as the decoder's `cell_p` of a move read from several copies is. `None`
/// where a copy shows no result or another one.
fn result_in_copies(
    cells: &[&CellScores],
    alphabet: &Alphabet,
    floor: f32,
    strict: bool,
) -> Option<(String, f32)> {
    let mut agreed: Option<(String, f32)> = None;
    for scores in cells {
        let (result, share) = best_share(scores, alphabet, floor, true, false)?;
        let least = if result == RESIGNED && !strict {
            WORD_MIN_SHARE
        } else {
            MIN_SHARE
        };
        if share < least {
            return None;
        }
        agreed = match agreed {
            None => Some((result, share)),
            Some((seen, product)) if seen == result => Some((seen, product * share)),
            Some(_) => return None,
        };
    }
    agreed
}

/// Whether every copy's reading of one cell (`cells`, one per copy) shows the same
/// result or resign word, as [`result_in_cell`] takes it from one copy.
pub fn copies_show_result(cells: &[&CellScores], alphabet: &Alphabet, floor: f32) -> bool {
    result_in_copies(cells, alphabet, floor, false).is_some()
}

/// The last decoded move's cell, when it reads better as a result (or a resign word)
/// than as that move (the decoder, which only knows moves, may have made one of a
/// `1-0`): the cell to end the game before. With several copies of the game
/// (`copies`, each its cells' scores), each must show the same result, and their
/// shares' product is weighed against the move's `cell_p` (the share of the copies'
/// summed evidence).
pub fn result_in_last_move(
    decoded: &DecodedSheet,
    copies: &[&[CellScores]],
    alphabet: &Alphabet,
    floor: f32,
) -> Option<usize> {
    let last = last_move_entry(decoded)?;
    let cell = last.cell?;
    let cells: Vec<&CellScores> = copies.iter().filter_map(|c| c.get(cell)).collect();
    if cells.is_empty() {
        return None;
    }
    let (_, share) = result_in_copies(&cells, alphabet, floor, true)?;
    (share > last.cell_p.unwrap_or(0.0)).then_some(cell)
}

/// Readings for tests: a small alphabet and a cell that shows a text cleanly.
#[cfg(test)]
pub(crate) mod test_readings {
    use crate::vocab::{Alphabet, CellScores};

    /// Files, digits, result glyphs and the English pieces.
    pub fn alphabet() -> Alphabet {
        let symbols: Vec<char> = "_abcdefgh0123456789-:=+NBRQKO½".chars().collect();
        Alphabet::new(symbols, 0)
    }

    /// A cell that shows `text` cleanly: one frame per glyph, blanks between.
    pub fn clean(text: &str, a: &Alphabet) -> CellScores {
        let classes = a.len();
        let mut frames = Vec::new();
        for c in text.chars() {
            frames.push(a.class_of(c).unwrap());
            frames.push(0);
        }
        while frames.len() < 12 {
            frames.push(0);
        }
        let mut logp = vec![-9.0f32; frames.len() * classes];
        for (t, &k) in frames.iter().enumerate() {
            for c in 0..classes {
                logp[t * classes + c] = if c == k { -0.01 } else { -9.0 };
            }
        }
        CellScores::new(frames.len(), classes, logp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::test_readings::{alphabet, clean as cell};

    #[test]
    fn results_as_written_in_a_cell() {
        let a = alphabet();
        for (text, want) in [
            ("1-0", "1-0"),
            ("0:1", "0-1"),
            ("0-1", "0-1"),
            ("=", "1/2-1/2"),
            // The separator lost in the reading.
            ("10", "1-0"),
            ("O1", "0-1"),
        ] {
            let (r, share) = cell_result(&cell(text, &a), &a, 6.0).unwrap();
            assert_eq!(r, want, "{text}");
            assert!(share > 0.9, "{text}: {share}");
        }
        // `1/2` with its slash lost is a draw too.
        let (r, _) = cell_result(&cell("12", &a), &a, 6.0).unwrap();
        assert_eq!(r, "1/2-1/2");
        // Castling and a move are not results.
        for text in ["0-0", "00", "e4", "Nf3", "e1", "h10"] {
            assert_eq!(cell_result(&cell(text, &a), &a, 6.0), None, "{text}");
        }
        // A player may write `+-`; a form prints digits: read as a printed option,
        // `-+` (a stacked `½-½` in small print) is no result.
        let (r, _) = cell_result(&cell("-+", &a), &a, 6.0).unwrap();
        assert_eq!(r, "0-1");
        assert_eq!(printed_result(&cell("-+", &a), &a, 6.0), None);
        let (r, _) = printed_result(&cell("0-1", &a), &a, 6.0).unwrap();
        assert_eq!(r, "0-1");
    }

    #[test]
    fn resign_words_are_read_where_the_alphabet_spells_them() {
        // A reader with the words' glyphs (2.2.0 on) reads a resign word after the last
        // move; results on the form's options (`cell_result`) never count words.
        let words: Vec<char> = "_abcdefghilpr0123456789-:=+ANBRQKOS½nuдяЛ."
            .chars()
            .collect();
        let a = Alphabet::new(words, 0);
        assert!(reads_words(&a));
        assert!(!reads_words(&alphabet()));
        for word in [
            "resigns",
            "Resign",
            "aufgegeben",
            "aufg.",
            "poddał",
            "сдался",
            "сд.",
        ] {
            let (r, share) = best_share(&cell(word, &a), &a, 6.0, true, false).unwrap();
            assert_eq!(r, RESIGNED, "{word}");
            assert!(share > 0.9, "{word}: {share}");
            assert_eq!(cell_result(&cell(word, &a), &a, 6.0), None, "{word}");
        }
        // Results and moves are not words.
        let (r, _) = best_share(&cell("1-0", &a), &a, 6.0, true, false).unwrap();
        assert_eq!(r, "1-0");
        for text in ["Re1", "e4", "Rd1", "a6"] {
            assert_eq!(
                best_share(&cell(text, &a), &a, 6.0, true, false),
                None,
                "{text}"
            );
        }
    }

    /// A cell showing `text` one glyph a frame (blanks between), where each glyph of
    /// `doubts` is read as its stand-in with 0.8 and as itself with 0.2.
    fn doubtful(text: &str, doubts: &[(char, char)], a: &Alphabet) -> CellScores {
        doubtful_at(text, doubts, 0.2, a)
    }

    /// As [`doubtful`], each doubtful glyph kept at probability `p`.
    fn doubtful_at(text: &str, doubts: &[(char, char)], p: f32, a: &Alphabet) -> CellScores {
        let classes = a.len();
        let mut logp = Vec::new();
        for c in text.chars() {
            let mut frame = vec![-9.0f32; classes];
            match doubts.iter().find(|(g, _)| *g == c) {
                Some(&(_, stand_in)) => {
                    frame[a.class_of(c).unwrap()] = p.ln();
                    frame[a.class_of(stand_in).unwrap()] = (1.0 - p).ln();
                }
                None => frame[a.class_of(c).unwrap()] = -0.01,
            }
            logp.extend(frame);
            let mut blank = vec![-9.0f32; classes];
            blank[0] = -0.01;
            logp.extend(blank);
        }
        CellScores::new(logp.len() / classes, classes, logp)
    }

    #[test]
    fn a_result_read_with_a_doubtful_glyph_still_counts() {
        // `0:1` whose `0` the reader takes for `a` four times in five (`a:1`, ln 4 = 1.4
        // nats over the result, where the decoder made it a move): the result, inside
        // RESULT_SLACK. Nine times in ten (2.2 nats) is
        // too far; a printed result must match the reader's reading.
        let a = alphabet();
        let near = doubtful_at("0:1", &[('0', 'a')], 0.2, &a);
        let (r, share) = best_share(&near, &a, 6.0, true, false).unwrap();
        assert_eq!(r, "0-1");
        assert!(share >= MIN_SHARE, "{share}");
        assert_eq!(best_share(&near, &a, 6.0, true, true), None);
        let far = doubtful_at("0:1", &[('0', 'a')], 0.1, &a);
        assert_eq!(best_share(&far, &a, 6.0, true, false), None);
    }

    #[test]
    fn a_resign_word_read_with_a_few_wrong_letters_still_counts() {
        // `Resigns` read `Re5igf5` (a cursive hand): the word is
        // ln(0.512 / 0.008) = 4.2 nats under the reader's own reading and holds 0.8% of
        // the cell, inside WORD_SLACK and WORD_MIN_SHARE. One more doubtful letter
        // (`Rc5igf5`, 5.5 nats) is too far.
        let a = Alphabet::new(
            "_abcdefghilpr0123456789-:=+ANBRQKOS½nuдяЛ."
                .chars()
                .collect(),
            0,
        );
        let three = doubtful("Resigns", &[('s', '5'), ('n', 'f')], &a);
        let (r, share) = best_share(&three, &a, 6.0, true, false).unwrap();
        assert_eq!(r, RESIGNED);
        assert!(
            (WORD_MIN_SHARE..0.01).contains(&share),
            "{share} (a share under 0.01)"
        );
        let four = doubtful("Resigns", &[('s', '5'), ('n', 'f'), ('e', 'c')], &a);
        assert_eq!(best_share(&four, &a, 6.0, true, false), None);
    }

    /// A cell the reader takes for empty but for `p` of its mass on a `=`.
    fn faint_draw(p: f32, a: &Alphabet) -> CellScores {
        let (steps, classes) = (12, a.len());
        let mut logp = vec![-9.0f32; steps * classes];
        for t in 0..steps {
            logp[t * classes] = -0.01;
        }
        logp[0] = (1.0 - p).ln();
        logp[a.class_of('=').unwrap()] = p.ln();
        CellScores::new(steps, classes, logp)
    }

    #[test]
    fn a_small_draw_sign_read_as_an_empty_cell_still_counts() {
        // An inked cell read as empty, a third of its mass on `=`: the reader's own
        // reading (nothing) does not outvote it, and it holds more than MIN_SHARE.
        let a = alphabet();
        let (r, share) = cell_result(&faint_draw(0.3, &a), &a, 6.0).unwrap();
        assert_eq!(r, "1/2-1/2");
        assert!(
            (0.25..0.4).contains(&share) && share >= MIN_SHARE,
            "{share}"
        );
        // A speck with a trace of `=` is under MIN_SHARE.
        let (_, share) = cell_result(&faint_draw(0.05, &a), &a, 6.0).unwrap();
        assert!(share < MIN_SHARE, "{share}");
    }
}
