//! Printed move numbers -> the table's numbering. The number cells of the first rows
//! of each block are read with the cell reader, digits only; every reading votes for
//! the number of heading rows above the first move row and for the number printed on
//! that row (1, or 51, 61 ... on a continuation sheet). A heading band (`Nr. | Weiß |
//! Schwarz`, `WHITE | BLACK`) is dropped because its number cell holds no number, not
//! because of what its words look like.

use image::GrayImage;

use crate::grid::{Grid, crop_box};
use crate::model::{CellModel, ModelError};
use crate::page::Page;
use crate::vocab::{Alphabet, CellScores};

/// Number cells read in the first block, and in each block after it (a two-line
/// heading and two move rows below it: two readings that tell how many rows the block
/// before holds).
const ROWS_FIRST_BLOCK: usize = 6;
const ROWS_OTHER_BLOCKS: usize = 4;
/// Most heading rows a table may have above its first move row.
const MAX_HEADING_ROWS: usize = 3;
/// Readings that must agree, and the share of all numbers read they must be.
const MIN_AGREEING: usize = 3;
const MIN_SHARE: f32 = 0.6;
/// A glyph is at a time step when the blank's probability there is below this.
const MAX_BLANK_P: f32 = 0.5;
/// The glyph is read as the likeliest digit when that digit holds at least this share
/// of the digits' probability there (a printed 5 the reader, trained on handwriting,
/// takes for a `g` is still likelier a 5 than any other digit).
const MIN_DIGIT_SHARE: f32 = 0.5;

/// Most rows the ruling may have lost at the top of every block (the first move row
/// under a dark heading band has no rule of its own above it).
const MAX_MISSING_ROWS: usize = 3;
/// Most rows the ruling may have added at the foot of every block (ruled down to a
/// frame around the table and the result box below it).
const MAX_TRAILING_ROWS: usize = 3;

/// What the printed numbers say about the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Anchor {
    /// Leading rows of every block that hold no move (headings).
    pub heading_rows: usize,
    /// Move rows printed above the first row found, in every block (the ruling lost
    /// them): the table is to be extended up by as many rows.
    pub missing_rows: usize,
    /// Rows at the foot of every block that are no move rows: the next block's
    /// printed numbers start that many rows earlier than the rows found say.
    pub trailing_rows: usize,
    /// The number printed on the first move row.
    pub first_move: u32,
    /// Readings that agree, of those that gave a number.
    pub agreeing: usize,
    pub read: usize,
}

/// The number a digits-only best path through `scores` spells, if any: every time
/// step where the blank is unlikely holds a glyph, read as its likeliest digit when
/// that digit is clear, else passed over; repeats collapse as in CTC.
pub fn digits(scores: &CellScores, alphabet: &Alphabet) -> Option<u32> {
    let digit_class: Vec<(usize, u32)> = ('0'..='9')
        .filter_map(|c| {
            alphabet
                .class_of(c)
                .map(|k| (k, c.to_digit(10).unwrap_or(0)))
        })
        .collect();
    let blank = alphabet.blank();
    let mut out: Vec<u32> = Vec::new();
    let mut prev: Option<usize> = None;
    for t in 0..scores.steps {
        let row = scores.row(t);
        let (best_k, best_d, best_lp) = digit_class.iter().map(|&(k, d)| (k, d, row[k])).fold(
            (usize::MAX, 0, f32::NEG_INFINITY),
            |a, b| {
                if b.2 > a.2 { b } else { a }
            },
        );
        if best_k == usize::MAX || row[blank].exp() >= MAX_BLANK_P {
            prev = None;
            continue;
        }
        let digit_mass: f32 = digit_class.iter().map(|&(k, _)| row[k].exp()).sum();
        if best_lp.exp() <= MIN_DIGIT_SHARE * digit_mass {
            // a glyph that is no clear digit (a heading's letter, a stray mark)
            prev = None;
            continue;
        }
        if prev != Some(best_k) {
            out.push(best_d);
        }
        prev = Some(best_k);
    }
    if out.is_empty() || out.len() > 3 || out[0] == 0 {
        return None;
    }
    Some(out.iter().fold(0, |n, d| n * 10 + d))
}

/// Numbers a sheet may start from: 1, and the usual first moves of a continuation
/// sheet (26, 31, 41, 51, 61 ...: one more than a multiple of five).
fn plausible_start(s: i64) -> bool {
    s == 1 || (s > 1 && s <= 301 && (s - 1) % 5 == 0)
}

/// The numbering that most readings `(block, row, number)` agree on, when enough do:
/// how many leading rows are headings, or how many move rows the ruling lost above
/// the first row found, how many rows at the foot of every block are no move rows
/// (the blocks after the first start earlier than the rows found say: ruled down to a
/// frame around the table and its result box), and the number printed on the first
/// move row.
pub fn vote(reads: &[(usize, usize, u32)], rows_per_block: usize) -> Option<Anchor> {
    // (votes, heading rows, missing rows, trailing rows, first, readings in rows kept)
    let mut best: Option<(usize, usize, usize, usize, i64, usize)> = None;
    let headings = (0..=MAX_HEADING_ROWS.min(rows_per_block.saturating_sub(1))).map(|h| (h, 0));
    let missing = (1..=MAX_MISSING_ROWS).map(|m| (0, m));
    for (h, m) in headings.chain(missing) {
        // what a heading row's words read as (`Nr.` as `N6`) is no number: only the
        // readings of the rows this choice keeps count
        let in_rows = reads.iter().filter(|&&(_, r, _)| r >= h).count();
        for t in 0..=MAX_TRAILING_ROWS {
            // rows a block really has: those found, less the headings and the rows
            // below the table, plus the lost ones
            let Some(kept) = (rows_per_block + m).checked_sub(h + t).filter(|&k| k > 0) else {
                continue;
            };
            let kept = kept as i64;
            let mut firsts: Vec<(i64, usize)> = reads
                .iter()
                .filter(|&&(_, r, _)| r >= h)
                .map(|&(b, r, v)| {
                    let s = i64::from(v) - b as i64 * kept - (r - h) as i64 - m as i64;
                    (s, b)
                })
                .filter(|&(s, _)| plausible_start(s))
                .collect();
            firsts.sort_unstable();
            let mut i = 0;
            while i < firsts.len() {
                let same = &firsts[i..];
                let j = same.iter().take_while(|&&(s, _)| s == firsts[i].0).count();
                // rows below the table are told only by the later blocks' numbers:
                // two of their readings at least
                let later = same[..j].iter().filter(|&&(_, b)| b > 0).count();
                // a tie keeps the earlier choice: fewer heading rows, no rows below
                // the table, then the lower start
                if (t == 0 || later >= 2) && best.is_none_or(|(v, ..)| j > v) {
                    best = Some((j, h, m, t, firsts[i].0, in_rows));
                }
                i += j;
            }
        }
    }
    let (votes, heading_rows, missing_rows, trailing_rows, first, in_rows) = best?;
    let share = votes as f32 / in_rows.max(1) as f32;
    (votes >= MIN_AGREEING && share >= MIN_SHARE).then_some(Anchor {
        heading_rows,
        missing_rows,
        trailing_rows,
        first_move: first as u32,
        agreeing: votes,
        read: in_rows,
    })
}

/// Numbers `grid` as `anchor` says: its heading rows dropped, the rows the ruling lost
/// above put back (with no room above, the rows found keep their printed numbers), and
/// the rows below the table dropped.
pub fn apply(anchor: &Anchor, grid: &mut Grid, page: &Page) {
    let a = anchor;
    if a.missing_rows > 0 && !grid.extend_up(a.missing_rows, page) {
        grid.renumber(0, a.first_move + a.missing_rows as u32);
    } else {
        grid.renumber(a.heading_rows, a.first_move);
    }
    grid.drop_trailing_rows(a.trailing_rows);
}

/// Reads the printed numbers of `grid` and returns what they agree on (None when the
/// table prints none, or too few readings agree).
///
/// # Errors
/// When the model fails.
pub fn anchor(
    page: &Page,
    grid: &Grid,
    model: &mut dyn CellModel,
) -> Result<Option<Anchor>, ModelError> {
    let wanted: Vec<(usize, usize, crate::grid::CellBox)> = grid
        .cells
        .iter()
        .filter_map(|c| {
            let rows = if c.block == 0 {
                ROWS_FIRST_BLOCK
            } else {
                ROWS_OTHER_BLOCKS
            };
            c.number
                .filter(|_| c.row < rows)
                .map(|b| (c.block, c.row, b))
        })
        .collect();
    if wanted.len() < MIN_AGREEING {
        return Ok(None);
    }
    let crops: Vec<GrayImage> = wanted.iter().map(|&(_, _, b)| crop_box(page, b)).collect();
    let scores = model.read_once(&crops)?;
    let alphabet = model.alphabet();
    let reads: Vec<(usize, usize, u32)> = wanted
        .iter()
        .zip(&scores)
        .filter_map(|(&(b, r, _), s)| digits(s, alphabet).map(|v| (b, r, v)))
        .collect();
    Ok(vote(&reads, grid.rows_per_block))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores over the alphabet `<blank> g 1 5`, one row of probabilities per time step.
    fn cell(rows: &[[f32; 4]]) -> (CellScores, Alphabet) {
        let alphabet = Alphabet::new(vec![' ', 'g', '1', '5'], 0);
        let logp = rows.iter().flat_map(|r| r.iter().map(|p| p.ln())).collect();
        (CellScores::new(rows.len(), 4, logp), alphabet)
    }

    #[test]
    fn a_printed_five_read_as_g_is_still_a_five() {
        // `51`: the 5 mostly a `g` to the reader, but the likeliest digit by far
        let (s, a) = cell(&[
            [0.9, 0.03, 0.03, 0.04],
            [0.1, 0.7, 0.02, 0.18],
            [0.8, 0.05, 0.1, 0.05],
            [0.1, 0.02, 0.85, 0.03],
            [0.95, 0.01, 0.02, 0.02],
        ]);
        assert_eq!(digits(&s, &a), Some(51));
        // a `g` with no digit in it is passed over
        let (s, a) = cell(&[[0.1, 0.8, 0.05, 0.05], [0.9, 0.02, 0.05, 0.03]]);
        assert_eq!(digits(&s, &a), None);
        let (s, a) = cell(&[[0.1, 0.8, 0.05, 0.05], [0.1, 0.02, 0.85, 0.03]]);
        assert_eq!(digits(&s, &a), Some(1));
    }

    #[test]
    fn a_heading_row_above_move_one_is_found() {
        // rows 1.. of block 0 read 1, 2, 3, 5 (one misread); block 1 reads 31, 32
        let reads = [
            (0, 1, 1),
            (0, 2, 2),
            (0, 3, 3),
            (0, 4, 5),
            (1, 1, 31),
            (1, 2, 32),
        ];
        let a = vote(&reads, 31).expect("anchored");
        assert_eq!((a.heading_rows, a.first_move, a.agreeing), (1, 1, 5));
    }

    #[test]
    fn rows_the_ruling_lost_above_the_first_row_are_found() {
        // the ruling found 29 rows a block from the rows printed 2 and 32: the row
        // under a dark heading band was lost in both blocks
        let reads = [
            (0, 0, 2),
            (0, 1, 3),
            (0, 2, 4),
            (0, 3, 5),
            (1, 0, 32),
            (1, 1, 33),
        ];
        let a = vote(&reads, 29).expect("anchored");
        assert_eq!(
            (a.heading_rows, a.missing_rows, a.first_move, a.agreeing),
            (0, 1, 1, 6)
        );
    }

    #[test]
    fn a_plain_table_keeps_its_numbers() {
        let reads = [(0, 0, 1), (0, 1, 2), (0, 2, 3), (1, 0, 26)];
        let a = vote(&reads, 25).expect("anchored");
        assert_eq!((a.heading_rows, a.first_move), (0, 1));
    }

    #[test]
    fn a_continuation_sheet_starts_where_its_print_says() {
        let reads = [(0, 0, 51), (0, 1, 52), (0, 2, 53), (1, 0, 76), (1, 1, 77)];
        let a = vote(&reads, 25).expect("anchored");
        assert_eq!((a.heading_rows, a.first_move), (0, 51));
    }

    #[test]
    fn heading_words_read_as_digits_do_not_outvote_the_numbers() {
        // a two-line heading (`№` read as `N6`, a second heading row as `xc4`) above
        // rows printed 1, 2, 3 (the 1 unread); block 1 reads its heading and 31
        let reads = [
            (0, 0, 6),
            (0, 3, 2),
            (0, 4, 3),
            (0, 5, 4),
            (1, 0, 6),
            (1, 1, 4),
            (1, 2, 31),
        ];
        let a = vote(&reads, 32).expect("anchored");
        assert_eq!((a.heading_rows, a.first_move, a.agreeing), (2, 1, 4));
    }

    #[test]
    fn rows_ruled_below_the_table_are_no_move_rows() {
        // 32 rows found a block, printed 1.. and 31..: the last two of each block lie
        // below the table (ruled down to a frame around it and the result box)
        let reads = [
            (0, 0, 1),
            (0, 1, 2),
            (0, 2, 3),
            (1, 0, 31),
            (1, 1, 32),
            (1, 3, 34),
        ];
        let a = vote(&reads, 32).expect("anchored");
        assert_eq!((a.heading_rows, a.first_move, a.trailing_rows), (0, 1, 2));
        // a table whose blocks run on as found keeps every row
        let reads = [(0, 0, 1), (0, 1, 2), (0, 2, 3), (1, 0, 33), (1, 1, 34)];
        assert_eq!(vote(&reads, 32).expect("anchored").trailing_rows, 0);
        // one reading is too few
        let reads = [(0, 0, 1), (0, 1, 2), (0, 2, 3), (1, 0, 31)];
        assert_eq!(vote(&reads, 32).expect("anchored").trailing_rows, 0);
    }

    #[test]
    fn disagreeing_readings_decide_nothing() {
        assert_eq!(
            vote(&[(0, 0, 1), (0, 1, 7), (0, 2, 19), (0, 3, 4)], 30),
            None
        );
        assert_eq!(
            vote(&[(0, 0, 1), (0, 1, 2)], 30),
            None,
            "two readings are too few"
        );
    }
}
