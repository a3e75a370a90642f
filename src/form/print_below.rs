//! A page and its move table -> the lines of print in a band below the table, each cut
//! into words (left to right), its picture with the form's rules painted out, and the
//! ink over any stretch of it ([`Line::slot_ink`]).
//!
//! Lines are runs of inked rows; a line's words are parted by gaps between inked
//! columns, the rules of boxes printed round the words taken out first ([`Band`]) so
//! that a box neither joins its word to the next nor reads as a glyph.

use image::GrayImage;

use crate::grid::Grid;
use crate::ruling::RULE_EDGE;
use crate::ruling::lines::{Axis, long_stepped_runs};

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
    pub fn width(&self) -> u32 {
        self.x1 - self.x0
    }
    /// Narrower than a third of its line's height: no option (a circle's side cut off
    /// where it met a box's rule).
    pub fn too_narrow(&self) -> bool {
        3 * self.width() < self.y1 - self.y0
    }
    pub fn centre(&self) -> f32 {
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

/// The words of each line of print in the band below the table of `grid`, left to
/// right; lines top to bottom. Empty when the page has no room below the table.
pub fn words_below_grid(image: &GrayImage, grid: &Grid) -> Vec<Line> {
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
        let words = band.words(pitch);
        if !words.is_empty() {
            out.push(Line {
                image: band.picture(image, &below, paper as u8),
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
    /// The page column and row of its top left corner.
    x0: u32,
    y0: u32,
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
        Band {
            x0: xa,
            y0,
            w,
            h,
            ink,
            rule,
        }
    }

    /// The band's words, left to right: runs of inked columns (the rules taken out),
    /// those in one box joined, specks dropped; `pitch` the table's row pitch.
    fn words(&self, pitch: f32) -> Vec<Word> {
        let (y0, y1) = (self.y0, self.y0 + self.h as u32);
        let col_ink: Vec<u32> = (0..self.w)
            .map(|x| (0..self.h).filter(|&y| self.ink[y * self.w + x]).count() as u32)
            .collect();
        // Words part where the paper shows over a sixth of a row (or an eighth of the
        // line's height, on a form of narrow rows): print keeps its letters closer, and
        // a mark round one option leaves a gap to the next.
        let gap = (0.15 * pitch).max(0.12 * (y1 - y0) as f32).round().max(3.0) as usize;
        within_boxes(runs(&col_ink, 1, gap), &self.sides())
            .into_iter()
            .map(|(c0, c1)| Word {
                x0: self.x0 + c0 as u32,
                x1: self.x0 + c1 as u32,
                y0,
                y1,
                ink: col_ink[c0..c1].iter().sum(),
            })
            // (Specks: a box's corner left by taking out its rules.)
            .filter(|w| w.width() >= 3 && w.ink >= y1 - y0)
            .collect()
    }

    /// The band's picture cut from `image`, the table (where not `below`, page
    /// coordinates) and the rules with their blurred edges painted `paper`.
    fn picture(&self, image: &GrayImage, below: &dyn Fn(u32, u32) -> bool, paper: u8) -> GrayImage {
        let (xa, y0) = (self.x0, self.y0);
        let mut picture =
            image::imageops::crop_imm(image, xa, y0, self.w as u32, self.h as u32).to_image();
        // The table above the band's start is paper.
        for (x, y, px) in picture.enumerate_pixels_mut() {
            if !below(xa + x, y0 + y) {
                *px = image::Luma([paper]);
            }
        }
        // A rule's blurred edge, lighter than the cut, is painted out with it: left
        // in, a box's faint sides read as glyphs (`1-0` read `T1-0`).
        let near = |v: usize, n: usize| v.saturating_sub(RULE_EDGE)..(v + RULE_EDGE + 1).min(n);
        for (i, _) in self.rule.iter().enumerate().filter(|(_, r)| **r) {
            let (x, y) = (i % self.w, i / self.w);
            for yy in near(y, self.h) {
                for xx in near(x, self.w) {
                    picture.put_pixel(xx as u32, yy as u32, image::Luma([paper]));
                }
            }
        }
        picture
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
pub fn word_crop(line: &Line, word: &Word) -> GrayImage {
    let m = (word.y1 - word.y0) / 3;
    let x0 = (word.x0 - line.x0).saturating_sub(m);
    let x1 = (word.x1 - line.x0 + m).min(line.image.width());
    image::imageops::crop_imm(&line.image, x0, 0, x1 - x0, line.image.height()).to_image()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

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
    pub(crate) fn options_page(circled: bool) -> GrayImage {
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
}
