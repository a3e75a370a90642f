//! A page, its move table and the cell reader -> the result a player marks on the
//! form's printed options below the table: `1-0  ½-½  0-1` printed (in boxes or not),
//! one of them circled, ticked or crossed.
//!
//! The lines of print below the table are cut into words by the gaps between inked
//! columns, the boxes' rules taken out ([`super::print_below`]); each word of an option's size is read by the
//! cell reader and scored against the ways of writing a result
//! ([`super::result::printed_result`]). Three evenly spaced words of which one or two read
//! as distinct results are the options (see [`marked_in_line`]). The option marked is
//! the one with clearly more ink past the rows the print takes than every other (a
//! circle's arcs, a tick's arm, a cross's ends); a line with no such option gives no
//! result, so an unmarked form invents none.

use image::GrayImage;

use super::print_below::{SlotInk, Word, word_crop, words_below_grid};
use super::result::printed_result;
use crate::grid::Grid;
use crate::model::{CellModel, ModelError};
use crate::vocab::{Alphabet, CellScores};

/// How much more ink the marked option adds past the print than any other (ratio).
const MARK_RATIO: f32 = 2.0;

/// Fewest dark pixels a mark adds past the print (a short stroke of a fine pen).
const MIN_MARK: u32 = 40;

/// The result marked on the form.
#[derive(Clone, Debug, PartialEq)]
pub struct MarkedResult {
    /// PGN form: `1-0`, `0-1`, `1/2-1/2`.
    pub result: String,
    /// How many times the ink the next option adds past the print the marked one adds.
    pub ink_ratio: f32,
}

/// The result marked on the printed options below the table of `grid` on `image`, if
/// any: the words of an option's size (up to six times their line's height; a signature
/// line or a sentence is not read) read in one batch, then [`marked_in_line`] line by
/// line, top down. `floor` as [`super::result::printed_result`] takes it.
///
/// # Errors
/// When the model fails.
pub fn marked_result(
    image: &GrayImage,
    grid: &Grid,
    model: &mut dyn CellModel,
    floor: f32,
) -> Result<Option<MarkedResult>, ModelError> {
    let lines = words_below_grid(image, grid);
    let fits = |w: &Word| !w.too_narrow() && w.width() <= 6 * (w.y1 - w.y0);
    let crops: Vec<GrayImage> = lines
        .iter()
        .flat_map(|l| {
            l.words
                .iter()
                .filter(|w| fits(w))
                .map(move |w| word_crop(l, w))
        })
        .collect();
    if crops.is_empty() {
        return Ok(None);
    }
    let mut read = model.read_once(&crops)?.into_iter();
    let alphabet = model.alphabet();
    Ok(lines.iter().find_map(|line| {
        let scores: Vec<Option<CellScores>> = line
            .words
            .iter()
            .map(|w| if fits(w) { read.next() } else { None })
            .collect();
        marked_in_line(&line.words, &scores, alphabet, floor, &|a, b, print| {
            line.slot_ink(a, b, print)
        })
    }))
}

/// Share of a word's reading a result must hold to name a printed option (print reads
/// cleanly; a stacked `½-½` read as `-+` holds 0.25 of it).
const OPTION_SHARE: f32 = 0.4;

/// The printed results in the order nearly every form prints them.
const PRINTED: [&str; 3] = ["1-0", "1/2-1/2", "0-1"];

/// The result marked in one line of words, given each word's reading (`None`: not
/// read, a word too wide or narrow to be an option).
///
/// The options are three words in a row, spaced evenly to 30% (by their left ends,
/// centres or right ends), none over four times as wide as another (a circle round a
/// narrow `1-0`); words between them may be passed over (a circle's far arc cut off as a
/// word of its own). Rows with more options read, then in the printed order, then
/// more evenly spaced are taken first. Each option is
/// known by its reading: where two read as distinct results, the third is the one
/// left; where one reads, the others are taken in the printed order `1-0 ½-½ 0-1` if
/// the one read stands where that order puts it. (Print in another font or a stacked
/// `½` can read as anything, and a mark across an option spoils its reading.)
///
/// `ink` gives each option's slot (its centre, half the spacing either way) with the
/// rows of the print of the option with the least ink (unmarked) as the print's. The
/// option marked is the one whose slot holds [`MARK_RATIO`] times the ink of any other
/// past those rows (a circle's arcs, a tick's arm: a mark reaches past the print, the
/// print does not), or, where none does, an option that does not read as its result
/// and holds [`MARK_RATIO`] times the ink of any other in all (a cross or scribble
/// across the print, within its rows: print alone reads, and no option's print holds
/// twice another's ink but a longer one, which reads).
pub fn marked_in_line(
    words: &[Word],
    scores: &[Option<CellScores>],
    alphabet: &Alphabet,
    floor: f32,
    ink: &dyn Fn(f32, f32, &Word) -> SlotInk,
) -> Option<MarkedResult> {
    let reads: Vec<Option<&'static str>> = scores
        .iter()
        .map(|s| {
            let (r, _) = s
                .as_ref()
                .and_then(|s| printed_result(s, alphabet, floor))
                .filter(|(_, share)| *share >= OPTION_SHARE)?;
            PRINTED.iter().find(|p| **p == r).copied()
        })
        .collect();
    // Words too narrow for an option are passed over, their ink still counted in the
    // slot they lie in.
    let keep: Vec<usize> = (0..words.len())
        .filter(|&i| !words[i].too_narrow())
        .collect();
    let words: Vec<Word> = keep.iter().map(|&i| words[i]).collect();
    let reads: Vec<Option<&str>> = keep.iter().map(|&i| reads[i]).collect();
    // The best row of three options: (how many read, in the printed order), how
    // unevenly spaced, the words, their results.
    type Row<'a> = ((usize, bool), f32, [usize; 3], [&'a str; 3]);
    let mut best: Option<Row> = None;
    let n = words.len();
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let at = [i, j, k];
                let Some((key, uneven, results)) =
                    option_row(at.map(|t| &words[t]), at.map(|t| reads[t]))
                else {
                    continue;
                };
                let better = best
                    .as_ref()
                    .is_none_or(|b| key > b.0 || (key == b.0 && uneven < b.1));
                if better {
                    best = Some((key, uneven, at, results));
                }
            }
        }
    }
    let (_, _, at, results) = best?;
    let half = (words[at[2]].centre() - words[at[0]].centre()) / 4.0;
    let print = *at.iter().map(|&t| &words[t]).min_by_key(|w| w.ink)?;
    let slots = at.map(|t| ink(words[t].centre() - half, words[t].centre() + half, &print));
    // The slot with the most of `amount`, and how many times the next one's it holds.
    let top = |amount: fn(&SlotInk) -> u32| {
        let mut order = [0, 1, 2];
        order.sort_by_key(|&s| std::cmp::Reverse(amount(&slots[s])));
        let (a, b) = (amount(&slots[order[0]]), amount(&slots[order[1]]));
        (order[0], a, b)
    };
    let (s, a, b) = top(|s| s.added);
    let ratio = a as f32 / b.max(MIN_MARK / 4) as f32;
    let past_print = (a >= MIN_MARK && ratio >= MARK_RATIO).then_some((s, ratio));
    let across_print = || {
        let (s, a, b) = top(|s| s.all);
        (reads[at[s]].is_none() && a >= b + MIN_MARK && a as f32 >= MARK_RATIO * b as f32)
            .then(|| (s, a as f32 / b.max(1) as f32))
    };
    let (s, ratio) = past_print.or_else(across_print)?;
    Some(MarkedResult {
        result: results[s].to_string(),
        ink_ratio: ratio,
    })
}

/// Whether three words (left to right) with these readings can be a row of printed
/// options: (how many read, whether in the printed order), how unevenly they are
/// spaced (the least of the three ways) and each one's result.
fn option_row<'a>(
    w: [&Word; 3],
    r: [Option<&'a str>; 3],
) -> Option<((usize, bool), f32, [&'a str; 3])> {
    let widths = w.iter().map(|w| w.width() as f32);
    let (lo, hi) = widths.fold((f32::MAX, 0.0f32), |(a, b), x| (a.min(x), b.max(x)));
    // Evenly spaced by their left ends, centres or right ends: a tick or circle
    // widens the option it marks to one side or both.
    let uneven = |at: &dyn Fn(&Word) -> f32| {
        let (s1, s2) = (at(w[1]) - at(w[0]), at(w[2]) - at(w[1]));
        if s1.min(s2) < lo {
            return f32::MAX;
        }
        (s1 - s2).abs() / ((s1 + s2) / 2.0)
    };
    let spacing = [
        uneven(&|w| w.x0 as f32),
        uneven(&|w| w.centre()),
        uneven(&|w| w.x1 as f32),
    ];
    let uneven = spacing.into_iter().fold(f32::MAX, f32::min);
    if hi > 4.0 * lo || uneven > 0.3 {
        return None;
    }
    let known: Vec<&str> = r.iter().flatten().copied().collect();
    if known.is_empty() || (1..known.len()).any(|k| known[..k].contains(&known[k])) {
        return None;
    }
    let in_order = r.iter().zip(PRINTED).all(|(a, p)| a.is_none_or(|a| a == p));
    let results = if known.len() >= 2 {
        let missing = PRINTED.iter().find(|p| !known.contains(p)).copied();
        let mut out = [""; 3];
        for (o, a) in out.iter_mut().zip(r) {
            *o = a.or(missing).unwrap_or("");
        }
        out
    } else if in_order {
        PRINTED
    } else {
        return None;
    };
    Some(((known.len(), in_order), uneven, results))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::form::print_below::tests::options_page;
    use crate::form::print_below::{Line, words_below};
    use crate::form::result::test_readings::{alphabet, clean as reading};

    /// The ink of the words whose centres lie in a slot as the ink past the print, on
    /// top of 150 px of print in all.
    fn by_word(words: &[Word]) -> impl Fn(f32, f32, &Word) -> SlotInk + '_ {
        move |a, b, _| {
            let added = words
                .iter()
                .filter(|w| (a..b).contains(&w.centre()))
                .map(|w| w.ink)
                .sum();
            SlotInk {
                added,
                all: 150 + added,
            }
        }
    }

    /// A word 70 px wide at `x0`; `ink` stands for the ink added past the print.
    fn word(x0: u32, ink: u32) -> Word {
        Word {
            x0,
            x1: x0 + 70,
            y0: 0,
            y1: 38,
            ink,
        }
    }

    /// The result `marked_in_line` finds in `words` read as `texts` (the words' `ink`
    /// standing for the ink added past the print).
    fn marked_of(words: &[Word], texts: &[Option<&str>]) -> Option<MarkedResult> {
        let a = alphabet();
        let scores: Vec<Option<CellScores>> =
            texts.iter().map(|t| t.map(|t| reading(t, &a))).collect();
        marked_in_line(words, &scores, &a, 6.0, &by_word(words))
    }

    #[test]
    fn the_option_with_the_most_ink_is_the_result() {
        let words = [word(20, 0), word(150, 5), word(240, 300), word(330, 8)];
        let texts = [None, Some("1-0"), Some("½-½"), Some("0-1")];
        let got = marked_of(&words, &texts).unwrap();
        assert_eq!(got.result, "1/2-1/2");
        assert!(got.ink_ratio > 20.0, "{got:?}");
        // The same options unmarked (a few pixels past the print): no result.
        let plain = [word(20, 0), word(150, 5), word(240, 12), word(330, 8)];
        assert_eq!(marked_of(&plain, &texts), None);
    }

    #[test]
    fn a_mark_that_spoils_an_options_reading_still_names_it() {
        let result =
            |words: &[Word], texts: &[Option<&str>]| marked_of(words, texts).map(|m| m.result);
        // `0-1` crossed out reads as nothing; it keeps the others' spacing.
        let words = [word(20, 0), word(150, 6), word(240, 9), word(330, 250)];
        let texts = [None, Some("1-0"), Some("½-½"), Some("e4")];
        assert_eq!(result(&words, &texts).as_deref(), Some("0-1"));
        // One option read where the printed order puts it: the others follow it.
        let marked = [word(20, 0), word(150, 280), word(240, 10), word(330, 6)];
        let one = [None, Some("e4"), Some("b"), Some("0-1")];
        assert_eq!(result(&marked, &one).as_deref(), Some("1-0"));
        // ... and not where it does not (a `1-0` read last is no printed row of options).
        let one = [None, Some("e4"), Some("b"), Some("1-0")];
        assert_eq!(result(&marked, &one), None);
        // A result read in no row of three evenly spaced words (the label and two options
        // 130 and 90 px apart): nothing.
        let one = [Some("1-0"), None, None, None];
        assert_eq!(result(&words, &one), None);
    }

    #[test]
    fn a_circles_far_arc_cut_off_as_a_word_is_passed_over() {
        // `1-0` circled, the circle's right arc a narrow word of its own (x 228..245)
        // between it and `½-½`: the options are the 1st, 3rd and 4th words.
        let arc = Word {
            x0: 228,
            x1: 245,
            y0: 0,
            y1: 38,
            ink: 80,
        };
        let words = [word(20, 0), word(150, 120), arc, word(260, 5), word(370, 6)];
        let texts = [None, Some("b"), Some("e"), Some("½-½"), Some("0-1")];
        assert_eq!(
            marked_of(&words, &texts).map(|m| m.result).as_deref(),
            Some("1-0")
        );
    }

    #[test]
    fn a_cross_across_an_options_print_names_it() {
        let a = alphabet();
        let words = [word(20, 0), word(150, 0), word(240, 0), word(330, 0)];
        // The cross lies within the rows of the print (3 px past them), but it spoils
        // the option's reading and the slot holds 420 px of ink against 160.
        let crossed = |all: u32| {
            move |x0: f32, x1: f32, _: &Word| {
                if (x0..x1).contains(&185.0) {
                    SlotInk { added: 3, all }
                } else {
                    SlotInk { added: 0, all: 160 }
                }
            }
        };
        let result = |texts: [Option<&str>; 4], all: u32| {
            let scores: Vec<Option<CellScores>> =
                texts.iter().map(|t| t.map(|t| reading(t, &a))).collect();
            marked_in_line(&words, &scores, &a, 6.0, &crossed(all)).map(|m| m.result)
        };
        let spoiled = [None, Some("e4"), Some("½-½"), Some("0-1")];
        assert_eq!(result(spoiled, 420).as_deref(), Some("1-0"));
        // Not twice the others' ink: no result.
        assert_eq!(result(spoiled, 300), None);
        // An option that reads as itself is print, however much ink (a longer one).
        assert_eq!(
            result([None, Some("1-0"), Some("½-½"), Some("0-1")], 420),
            None
        );
    }

    /// Each word of `line` read as the option whose box (of `options_page`) holds its
    /// centre.
    fn read_options(line: &Line, a: &Alphabet) -> Vec<Option<CellScores>> {
        line.words
            .iter()
            .map(|w| {
                let text = match w.centre() as u32 {
                    100..170 => "1-0",
                    190..260 => "½-½",
                    280..350 => "0-1",
                    _ => return None,
                };
                Some(reading(text, a))
            })
            .collect()
    }

    #[test]
    fn a_box_rule_running_out_of_the_line_is_still_a_rule() {
        // A photographed form: the first box's top rule steps up two rows halfway along
        // (the page turned a little), and the band below the table starts between its
        // two halves. The half inside the band, 30 px, is too short for a rule on its
        // own; left in, it would count as a mark above the unmarked `1-0`.
        let a = alphabet();
        let mut img = options_page(false);
        let paper = image::Luma([230]);
        let dark = image::Luma([20]);
        for x in 100..140 {
            for (from, to) in [(80, 78), (81, 79)] {
                img.put_pixel(x, from, paper);
                img.put_pixel(x, to, dark);
            }
        }
        // The search starts a quarter of a row below the table's foot: row 80.
        let lines = words_below(&img, 20, 480, &|_| 73, 30.0);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let line = &lines[0];
        assert_eq!(line.words[0].y0, 80);
        let scores = read_options(line, &a);
        assert_eq!(scores.iter().flatten().count(), 3, "{:?}", line.words);
        let got = marked_in_line(&line.words, &scores, &a, 6.0, &|x0, x1, p| {
            line.slot_ink(x0, x1, p)
        });
        assert_eq!(got, None);
    }

    #[test]
    fn options_close_below_a_tilted_tables_left_block_are_found() {
        // A photographed page: the table's right block (x 400-480) ends 60 px lower than
        // its left one, below the top of the options' boxes, which sit close under the
        // left block. Searched from a quarter of a row below the table's deepest foot,
        // the boxes' top halves were cut off and nothing read; searched column by column, the options are found, and the right block's last row, above its
        // own foot, is not taken for print.
        let a = alphabet();
        let mut img = options_page(true);
        let dark = image::Luma([20]);
        for x in 400..480 {
            img.put_pixel(x, 99, dark);
        }
        for x in (410..460).step_by(5) {
            for y in 70..95 {
                img.put_pixel(x, y, dark);
            }
        }
        let foot = |x: u32| if x < 400 { 40 } else { 100 };
        let lines = words_below(&img, 20, 480, &foot, 30.0);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let line = &lines[0];
        assert!(line.words.iter().all(|w| w.x1 <= 400), "{:?}", line.words);
        let scores = read_options(line, &a);
        assert_eq!(scores.iter().flatten().count(), 3, "{:?}", line.words);
        let got = marked_in_line(&line.words, &scores, &a, 6.0, &|x0, x1, p| {
            line.slot_ink(x0, x1, p)
        });
        assert_eq!(got.map(|m| m.result).as_deref(), Some("1/2-1/2"));
    }

    #[test]
    fn a_circle_round_a_printed_option_is_found_and_unmarked_boxes_give_none() {
        let a = alphabet();
        for circled in [true, false] {
            let img = options_page(circled);
            let lines = words_below(&img, 20, 480, &|_| 40, 30.0);
            assert_eq!(lines.len(), 1, "{lines:?}");
            let line = &lines[0];
            let scores = read_options(line, &a);
            assert_eq!(scores.iter().flatten().count(), 3, "{:?}", line.words);
            // The boxes' rules are taken out: an unmarked option is its print alone
            // (28 px), and the picture the reader is shown has paper where they ran.
            if !circled {
                assert!(
                    line.words.iter().all(|w| w.width() < 40),
                    "{:?}",
                    line.words
                );
            }
            assert!(line.image.get_pixel(100 - line.x0, 99 - line.words[0].y0)[0] > 200);
            let got = marked_in_line(&line.words, &scores, &a, 6.0, &|x0, x1, p| {
                line.slot_ink(x0, x1, p)
            });
            if circled {
                assert_eq!(got.map(|m| m.result).as_deref(), Some("1/2-1/2"));
            } else {
                assert_eq!(got, None);
            }
        }
    }
}
