//! The result a player marks on the form's printed options below the move table:
//! `1-0  ½-½  0-1` printed (in boxes or not), one of them circled, ticked or crossed.
//!
//! The lines of print below the table are cut into words by the gaps between inked
//! columns, the boxes' rules taken out; each word of an option's size is read by the
//! cell reader and scored against the ways of writing a result
//! ([`super::result::printed_result`]). Three evenly spaced words of which one or two read
//! as distinct results are the options (see [`marked_in_line`]). The option marked is
//! the one with clearly more ink past the rows the print takes than every other (a
//! circle's arcs, a tick's arm, a cross's ends); a line with no such option gives no
//! result, so an unmarked form invents none.

use image::GrayImage;

use super::result::printed_result;
use crate::grid::Grid;
use crate::model::{CellModel, ModelError};
use crate::ruling::RULE_EDGE;
use crate::ruling::lines::{Axis, long_stepped_runs};
use crate::vocab::{Alphabet, CellScores};

/// How much more ink the marked option adds past the print than any other (ratio).
const MARK_RATIO: f32 = 2.0;

/// Fewest dark pixels a mark adds past the print (a short stroke of a fine pen).
const MIN_MARK: u32 = 40;

/// Rows past a line of print either way in which the rules of its boxes are looked for.
const RULE_MARGIN: u32 = 3;

/// Row heights (of the table) below its last row that are searched.
const BELOW_ROWS: f32 = 5.0;

/// A word of print below the table: its columns and rows on the page.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Word {
    pub x0: u32,
    pub x1: u32,
    pub y0: u32,
    pub y1: u32,
    /// Dark pixels in it.
    pub ink: u32,
}

impl Word {
    fn width(&self) -> u32 {
        self.x1 - self.x0
    }
    /// Narrower than a third of its line's height: no option (a circle's side cut off
    /// where it met a box's rule).
    fn too_narrow(&self) -> bool {
        3 * self.width() < self.y1 - self.y0
    }
    fn centre(&self) -> f32 {
        (self.x0 + self.x1) as f32 / 2.0
    }
}

/// A line of print below the table: its picture with the form's rules painted out
/// (paper), where it lies on the page, and its words.
#[derive(Clone, Debug)]
pub struct Line {
    pub image: GrayImage,
    pub x0: u32,
    pub words: Vec<Word>,
    /// Dark pixels of the line, rules taken out, row by row.
    ink: Vec<bool>,
}

impl Line {
    fn cols(&self, x0: f32, x1: f32) -> std::ops::Range<usize> {
        let n = self.image.width() as f32;
        let a = (x0 - self.x0 as f32).clamp(0.0, n) as usize;
        let b = (x1 - self.x0 as f32).clamp(0.0, n) as usize;
        a..b.max(a)
    }

    /// The ink over the page columns `x0..x1` (an option's slot), `print` the print of
    /// an unmarked option: what a player added, above or below the rows the print takes
    /// (widened by a fifth of its height: a circle's arcs, a tick's arm, a cross's
    /// ends), and all of it. Rules taken out.
    pub fn slot_ink(&self, x0: f32, x1: f32, print: &Word) -> SlotInk {
        let w = self.image.width() as usize;
        let h = self.image.height() as usize;
        let count = |y: usize, cols: std::ops::Range<usize>| {
            cols.filter(|&x| self.ink[y * w + x]).count() as u32
        };
        let pc = self.cols(print.x0 as f32, print.x1 as f32);
        let inked = |y: usize| count(y, pc.clone()) > 0;
        let cols = self.cols(x0, x1);
        let added = match ((0..h).find(|&y| inked(y)), (0..h).rfind(|&y| inked(y))) {
            (Some(top), Some(low)) => {
                let m = (low - top) / 5 + 1;
                let rows = top.saturating_sub(m)..(low + m).min(h);
                (0..h)
                    .filter(|y| !rows.contains(y))
                    .map(|y| count(y, cols.clone()))
                    .sum()
            }
            _ => 0,
        };
        SlotInk {
            added,
            all: (0..h).map(|y| count(y, cols.clone())).sum(),
        }
    }
}

/// The ink over one option's slot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SlotInk {
    /// Dark pixels a player added past the rows the print takes ([`Line::slot_ink`]).
    pub added: u32,
    /// All dark pixels, the print's too.
    pub all: u32,
}

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

/// The words of each line of print in the band below the table of `grid`, left to
/// right; lines top to bottom. Empty when the page has no room below the table.
fn words_below_grid(image: &GrayImage, grid: &Grid) -> Vec<Line> {
    let (Some(x0), Some(x1)) = (
        grid.cells.iter().map(|c| c.bbox.x).min(),
        grid.cells.iter().map(|c| c.bbox.x + c.bbox.w).max(),
    ) else {
        return Vec::new();
    };
    // The table's foot column by column: on a photographed page its rows tilt, and the
    // options printed close below the left block can start above the right block's
    // foot. Columns no cell covers (number strips) take the foot to their left.
    let mut foot: Vec<Option<u32>> = vec![None; (x1 - x0) as usize];
    for c in &grid.cells {
        let b = c.bbox.y + c.bbox.h;
        for f in &mut foot[(c.bbox.x - x0) as usize..(c.bbox.x + c.bbox.w - x0) as usize] {
            *f = Some(f.map_or(b, |v| v.max(b)));
        }
    }
    let mut last = foot.iter().flatten().next().copied().unwrap_or(0);
    let foot: Vec<u32> = foot
        .into_iter()
        .map(|f| {
            last = f.unwrap_or(last);
            last
        })
        .collect();
    let at = |x: u32| foot[(x.clamp(x0, x1 - 1) - x0) as usize];
    words_below(image, x0, x1, &at, grid.row_pitch)
}

/// [`words_below_grid`] for a table spanning columns `x0..x1`, its last row ending at
/// `bottom(x)` in page column `x`, rows `pitch` apart: the band searched starts a
/// quarter of a row below the table's foot in each column.
pub fn words_below(
    image: &GrayImage,
    x0: u32,
    x1: u32,
    bottom: &dyn Fn(u32) -> u32,
    pitch: f32,
) -> Vec<Line> {
    let pitch = pitch.max(8.0);
    let (w, h) = image.dimensions();
    let xa = (x0 as f32 - 0.5 * pitch).max(0.0) as u32;
    let xb = ((x1 as f32 + 0.5 * pitch) as u32).min(w);
    if xb <= xa + 8 {
        return Vec::new();
    }
    let foot: Vec<u32> = (xa..xb).map(bottom).collect();
    let start: Vec<u32> = foot
        .iter()
        .map(|&f| ((f as f32 + 0.25 * pitch) as u32).min(h))
        .collect();
    let deepest = foot.iter().copied().max().unwrap_or(0);
    let ya = start.iter().copied().min().unwrap_or(h);
    let yb = ((deepest as f32 + BELOW_ROWS * pitch) as u32).min(h);
    if yb <= ya + 8 {
        return Vec::new();
    }
    let below = |x: u32, y: u32| y >= start[(x - xa) as usize];
    let mut tones: Vec<u8> = (ya..yb)
        .step_by(3)
        .flat_map(|y| (xa..xb).step_by(3).map(move |x| (x, y)))
        .filter(|&(x, y)| below(x, y))
        .map(|(x, y)| image.get_pixel(x, y)[0])
        .collect();
    if tones.is_empty() {
        return Vec::new();
    }
    tones.sort_unstable();
    let paper = f32::from(tones[tones.len() * 3 / 4]);
    let cut = (0.6 * paper) as u8;
    let any_dark = |x: u32, y: u32| image.get_pixel(x, y)[0] < cut;
    let dark = |x: u32, y: u32| below(x, y) && any_dark(x, y);
    // Lines: runs of rows with ink, gaps of a few pixels bridged.
    let row_ink: Vec<u32> = (ya..yb)
        .map(|y| (xa..xb).filter(|&x| dark(x, y)).count() as u32)
        .collect();
    let bridge = (0.1 * pitch).ceil() as usize;
    let lines = runs(&row_ink, 2, bridge);
    let mut out = Vec::new();
    for (r0, r1) in lines {
        let (y0, y1) = (ya + r0 as u32, ya + r1 as u32);
        // Too thin for print (a signature line), or too tall (a hand's text, a box).
        if ((y1 - y0) as f32) < 0.3 * pitch || ((y1 - y0) as f32) > 3.0 * pitch {
            continue;
        }
        let band = Band::new(&any_dark, &below, xa..xb, y0..y1, h, pitch);
        let col_ink: Vec<u32> = (0..band.w)
            .map(|x| (0..band.h).filter(|&y| band.ink[y * band.w + x]).count() as u32)
            .collect();
        // Words part where the paper shows over a sixth of a row (or an eighth of the
        // line's height, on a form of narrow rows): print keeps its letters closer, and
        // a mark round one option leaves a gap to the next.
        let gap = (0.15 * pitch).max(0.12 * (y1 - y0) as f32).round().max(3.0) as usize;
        let words: Vec<Word> = within_boxes(runs(&col_ink, 1, gap), &band.sides())
            .into_iter()
            .map(|(c0, c1)| Word {
                x0: xa + c0 as u32,
                x1: xa + c1 as u32,
                y0,
                y1,
                ink: col_ink[c0..c1].iter().sum(),
            })
            // (Specks: a box's corner left by taking out its rules.)
            .filter(|w| w.width() >= 3 && w.ink >= y1 - y0)
            .collect();
        if !words.is_empty() {
            let mut picture = image::imageops::crop_imm(image, xa, y0, xb - xa, y1 - y0).to_image();
            // The table above the band's start is paper.
            for (x, y, px) in picture.enumerate_pixels_mut() {
                if !below(xa + x, y0 + y) {
                    *px = image::Luma([paper as u8]);
                }
            }
            // A rule's blurred edge, lighter than the cut, is painted out with it: left
            // in, a box's faint sides read as glyphs (`1-0` read `T1-0`).
            let near = |v: usize, n: usize| v.saturating_sub(RULE_EDGE)..(v + RULE_EDGE + 1).min(n);
            for (i, _) in band.rule.iter().enumerate().filter(|(_, r)| **r) {
                let (x, y) = (i % band.w, i / band.w);
                for yy in near(y, band.h) {
                    for xx in near(x, band.w) {
                        picture.put_pixel(xx as u32, yy as u32, image::Luma([paper as u8]));
                    }
                }
            }
            out.push(Line {
                image: picture,
                x0: xa,
                words,
                ink: band.ink,
            });
        }
    }
    out
}

/// A line of print below the table as a dark mask, the form's rules taken out: the
/// edges of boxes printed round the options (runs of dark along a row longer than one
/// and a half table rows or 1.2 times the line's height, and, between two such, runs
/// down a column over 70% of their distance). Print and a player's marks stay.
struct Band {
    w: usize,
    h: usize,
    ink: Vec<bool>,
    rule: Vec<bool>,
}

impl Band {
    /// The band of page rows `rows` and columns `cols` of a page `height` rows high, its
    /// dark pixels as `dark` (page coordinates) gives them; rules are looked for in all
    /// of them, ink kept only where `below` (below the table).
    fn new(
        dark: &dyn Fn(u32, u32) -> bool,
        below: &dyn Fn(u32, u32) -> bool,
        cols: std::ops::Range<u32>,
        rows: std::ops::Range<u32>,
        height: u32,
        pitch: f32,
    ) -> Band {
        let (xa, xb, y0, y1) = (cols.start, cols.end, rows.start, rows.end);
        let (w, h) = ((xb - xa) as usize, (y1 - y0) as usize);
        // Rules are looked for [`RULE_MARGIN`] rows past the band either way: on a page
        // turned a little, a box's top or bottom rule runs out of the band along its
        // length, and the piece left inside, too short to be a rule, would count as a
        // mark over the option.
        let ya = y0.saturating_sub(RULE_MARGIN);
        let yb = (y1 + RULE_MARGIN).min(height);
        let (top, ph) = ((y0 - ya) as usize, (yb - ya) as usize);
        let padded: Vec<bool> = (0..ph)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| dark(xa + x as u32, ya + y as u32))
            .collect();
        let long_row = ((1.5 * pitch).min(1.2 * h as f32) as usize).max(4);
        let mut padded_rule = vec![false; w * ph];
        let rule_rows =
            long_stepped_runs(&padded, w, ph, Axis::Horizontal, long_row, &mut padded_rule);
        if let (Some(&first), Some(&low)) = (rule_rows.first(), rule_rows.last())
            && low - first >= 3
        {
            let long_col = ((0.7 * (low - first) as f32) as usize).max(3);
            long_stepped_runs(&padded, w, ph, Axis::Vertical, long_col, &mut padded_rule);
        }
        let rows = top * w..(top + h) * w;
        let rule = padded_rule[rows.clone()].to_vec();
        let ink = padded[rows]
            .iter()
            .zip(&rule)
            .enumerate()
            .map(|(i, (d, r))| *d && !r && below(xa + (i % w) as u32, y0 + (i / w) as u32))
            .collect();
        Band { w, h, ink, rule }
    }

    /// The columns of the band that a box's side runs down (taken out as rule over
    /// half the band's height).
    fn sides(&self) -> Vec<usize> {
        (0..self.w)
            .filter(|&x| 2 * (0..self.h).filter(|&y| self.rule[y * self.w + x]).count() >= self.h)
            .collect()
    }
}

/// Words (column runs) that lie in one box joined: two neighbours with a box's side
/// left of the first's end and right of the second's start, and none between them (a
/// wide box leaves a gap between its option's print and a mark near its far side).
fn within_boxes(words: Vec<(usize, usize)>, sides: &[usize]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(words.len());
    for (c0, c1) in words {
        match out.last_mut() {
            Some(last)
                if sides.iter().any(|&x| x < last.1)
                    && sides.iter().any(|&x| x >= c0)
                    && !sides.iter().any(|&x| (last.1..c0).contains(&x)) =>
            {
                last.1 = c1
            }
            _ => out.push((c0, c1)),
        }
    }
    out
}

/// Runs of positions whose value is at least `min`, gaps up to `bridge` joined: half-open
/// ranges.
fn runs(values: &[u32], min: u32, bridge: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, &v) in values.iter().enumerate() {
        if v < min {
            continue;
        }
        match out.last_mut() {
            Some(last) if i <= last.1 + bridge => last.1 = i + 1,
            _ => out.push((i, i + 1)),
        }
    }
    out
}

/// The crop the reader is shown for a word of `line`: the word with a margin of a
/// third of the line's height either side, the line's rows, the form's rules painted
/// out.
fn word_crop(line: &Line, word: &Word) -> GrayImage {
    let m = (word.y1 - word.y0) / 3;
    let x0 = (word.x0 - line.x0).saturating_sub(m);
    let x1 = (word.x1 - line.x0 + m).min(line.image.width());
    image::imageops::crop_imm(&line.image, x0, 0, x1 - x0, line.image.height()).to_image()
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

    #[test]
    fn words_in_one_box_are_joined() {
        // Box sides at 5 and 55, 75 and 100: the print at 10..30 and a mark at 45..60
        // across the first box's side are one word; the next box's print is another.
        let words = vec![(10, 30), (45, 60), (80, 95)];
        assert_eq!(
            within_boxes(words.clone(), &[5, 55, 75, 100]),
            [(10, 60), (80, 95)]
        );
        // No boxes: words stay as they are.
        assert_eq!(within_boxes(words.clone(), &[]), words);
    }

    #[test]
    fn print_below_a_table_is_cut_into_lines_and_words() {
        // A table whose last row ends at y = 100, and below it at y = 130..150 three
        // words of 30 px, 40 px apart; a thin rule at y = 190 (no line of print).
        let mut img = GrayImage::from_pixel(400, 260, image::Luma([230]));
        for (x0, x1) in [(40, 70), (110, 140), (180, 210)] {
            for x in (x0..x1).step_by(3) {
                for y in 130..150 {
                    img.put_pixel(x, y, image::Luma([20]));
                }
            }
        }
        for x in 20..380 {
            img.put_pixel(x, 190, image::Luma([20]));
        }
        let lines = words_below(&img, 20, 380, &|_| 100, 40.0);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let spans: Vec<(u32, u32)> = lines[0].words.iter().map(|w| (w.x0, w.x1)).collect();
        assert_eq!(spans, [(40, 68), (110, 138), (180, 208)]);
    }

    /// Three printed options boxed below a table (boxes 70 x 38 px, "print" of upright
    /// strokes 18 px tall inside each), the middle one circled or not.
    fn options_page(circled: bool) -> GrayImage {
        let mut img = GrayImage::from_pixel(500, 200, image::Luma([230]));
        let dark = image::Luma([20]);
        for bx in [100u32, 190, 280] {
            for x in bx..bx + 70 {
                for y in [80, 81, 116, 117] {
                    img.put_pixel(x, y, dark);
                }
            }
            for y in 80..118 {
                for x in [bx, bx + 1, bx + 68, bx + 69] {
                    img.put_pixel(x, y, dark);
                }
            }
            for x in (bx + 12..bx + 40).step_by(4) {
                for y in 90..108 {
                    img.put_pixel(x, y, dark);
                    img.put_pixel(x + 1, y, dark);
                }
            }
        }
        if circled {
            for k in 0..720 {
                let t = k as f32 * std::f32::consts::PI / 360.0;
                for r in [0.0, 1.0] {
                    let x = 225.0 + (44.0 + r) * t.cos();
                    let y = 99.0 + (28.0 + r) * t.sin();
                    img.put_pixel(x as u32, y as u32, dark);
                }
            }
        }
        img
    }

    #[test]
    fn a_boxs_blurred_edge_is_painted_out_with_its_rule() {
        // The options' boxes with a one-pixel grey fringe either side of each rule,
        // lighter than the line's cut (a scan's blur): in the picture the reader is shown,
        // nothing is left of them (with the rules' own pixels alone painted out, the
        // fringes stayed, and a training-hand form's `1-0` read `T1-0`).
        let mut img = options_page(false);
        let fringe = image::Luma([150]);
        let mut edge = |x: u32, y: u32| {
            if img.get_pixel(x, y)[0] > 100 {
                img.put_pixel(x, y, fringe);
            }
        };
        for bx in [100u32, 190, 280] {
            for y in 79..119 {
                for x in [bx - 1, bx + 2, bx + 67, bx + 70] {
                    edge(x, y);
                }
            }
            for x in bx - 1..bx + 71 {
                for y in [79, 82, 115, 118] {
                    edge(x, y);
                }
            }
        }
        let lines = words_below(&img, 20, 480, &|_| 40, 30.0);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let line = &lines[0];
        let (lw, lh) = line.image.dimensions();
        for bx in [100u32, 190, 280] {
            for x in [
                bx - 1,
                bx,
                bx + 1,
                bx + 2,
                bx + 67,
                bx + 68,
                bx + 69,
                bx + 70,
            ] {
                let col = x - line.x0;
                assert!(col < lw);
                let darkest = (0..lh).map(|y| line.image.get_pixel(col, y)[0]).min();
                assert!(darkest >= Some(200), "column {x}: {darkest:?}");
            }
        }
    }

    /// Each word of `line` read as the option whose box (of [`options_page`]) holds its
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
        // own; left in, it counted as a mark above the unmarked `1-0` (a photographed
        // chesscom form, training hands seed 61, was given 1-0 that way).
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
        // the boxes' top halves were cut off and nothing read (a photographed chesscom
        // form, training hands seed 62, lost its circled 1-0 that way); searched column
        // by column, the options are found, and the right block's last row, above its
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
