//! A closer look at a cell whose writing is small for it: the cell's ink, its rulings
//! painted over, cut out with a margin so that it fills the reader's input as a move
//! does. A lone `=` written for a draw after the last move is a few pixels high in a
//! cell cut for a move; scaled to the reader's 48-pixel input it is a speck that the
//! reader takes for an empty cell. Cut this way it reads as `=`.

use image::{GrayImage, Luma};
use imageproc::region_labelling::{Connectivity, connected_components};

use crate::raster::percentile;
use crate::ruling::RULE_EDGE;

/// Ink is at least this much darker than the paper (gray levels), and at least
/// [`INK_SHARE`] of the way from the paper to the darkest pixel.
const MIN_CONTRAST: f32 = 35.0;
const INK_SHARE: f32 = 0.45;
/// A pixel row (column) that is dark over more than this share of the cell's width
/// (height) is a ruling, not writing; columns only near the cell's left and right
/// edges (within [`EDGE_SHARE`] of its width: a tall stroke is not a ruling).
const RULED_ROW: f32 = 0.5;
const RULED_COLUMN: f32 = 0.6;
const EDGE_SHARE: f32 = 0.1;
/// Ink blobs smaller than this (pixels) are specks of the paper; and writing is at
/// least [`MIN_INK_WIDTH`] of the cell's height wide and holds [`MIN_INK_PIXELS`] times
/// its height in pixels: below the small `=` players write, above a 3-pixel dash that,
/// zoomed, read as `=`.
const MIN_BLOB: usize = 3;
const MIN_INK_WIDTH: f32 = 0.12;
const MIN_INK_PIXELS: f32 = 0.3;
/// The close-up's height: the ink's height over this share (a move's letters fill
/// about half of a cell's height), and at least its width over [`MAX_ASPECT`].
const INK_HEIGHT_SHARE: f32 = 0.45;
const MAX_ASPECT: f32 = 2.5;
/// No close-up when it would be more than this share of the cell's own height: the
/// writing already fills the cell; and none under [`MIN_HEIGHT`] pixels.
const MAX_ZOOM_SHARE: f32 = 0.75;
const MIN_HEIGHT: f32 = 12.0;

/// The cell's writing cut out closer (see the module), or `None` when the cell holds
/// no ink apart from its rulings and whatever touches its edges or rulings (a
/// neighbour's strokes), or when its writing is not small for it.
pub fn closeup(cell: &GrayImage) -> Option<GrayImage> {
    let (w, h) = (cell.width() as usize, cell.height() as usize);
    if w < 8 || h < 8 {
        return None;
    }
    let paper = f32::from(percentile(cell, 0.5));
    let px = cell.as_raw();
    let limit = |darkest: f32| paper - MIN_CONTRAST.max(INK_SHARE * (paper - darkest));
    // Rulings: rows and columns dark over most of the cell (they are the darkest
    // pixels, the writing's own limit is found without them).
    let darkest = f32::from(percentile(cell, 0.0));
    if paper - darkest < MIN_CONTRAST {
        return None;
    }
    let cleared = rulings(cell, limit(darkest));
    let paper_px = Luma([paper.round() as u8]);
    let mut clean = cell.clone();
    for (p, _) in clean.pixels_mut().zip(&cleared).filter(|(_, c)| **c) {
        *p = paper_px;
    }
    // The writing: what is dark against the paper beside the rulings.
    let darkest = px
        .iter()
        .zip(&cleared)
        .filter(|(_, c)| !**c)
        .map(|(&v, _)| f32::from(v))
        .fold(paper, f32::min);
    if paper - darkest < MIN_CONTRAST {
        return None;
    }
    let (x0, y0, x1, y1, pixels) = writing(cell, &cleared, limit(darkest))?;
    let hf = h as f32;
    if x0 > x1
        || ((x1 - x0 + 1) as f32) < MIN_INK_WIDTH * hf
        || (pixels as f32) < MIN_INK_PIXELS * hf
    {
        return None;
    }
    let (iw, ih) = ((x1 - x0 + 1) as f32, (y1 - y0 + 1) as f32);
    let out_h = (ih / INK_HEIGHT_SHARE).max(iw / MAX_ASPECT).max(MIN_HEIGHT);
    if out_h > MAX_ZOOM_SHARE * hf {
        return None;
    }
    let out_w = (2.0 * out_h).max(iw + out_h / 2.0);
    let (cx, cy) = ((x0 + x1) as f32 / 2.0, (y0 + y1) as f32 / 2.0);
    let (left, top) = (
        (cx - out_w / 2.0).round() as i64,
        (cy - out_h / 2.0).round() as i64,
    );
    let (ow, oh) = (out_w.round() as u32, out_h.round() as u32);
    Some(GrayImage::from_fn(ow, oh, |x, y| {
        let (sx, sy) = (left + i64::from(x), top + i64::from(y));
        if (0..w as i64).contains(&sx) && (0..h as i64).contains(&sy) {
            *clean.get_pixel(sx as u32, sy as u32)
        } else {
            paper_px
        }
    }))
}

/// The pixels of `cell` (row by row) on its rulings, with [`RULE_EDGE`] either side:
/// rows darker than `ruling` over [`RULED_ROW`] of the width, columns near the cell's
/// left and right edges darker over [`RULED_COLUMN`] of the height.
fn rulings(cell: &GrayImage, ruling: f32) -> Vec<bool> {
    let (w, h) = (cell.width() as usize, cell.height() as usize);
    let px = cell.as_raw();
    let dark_at = |x: usize, y: usize| f32::from(px[y * w + x]) < ruling;
    let ruled_rows =
        (0..h).filter(|&y| (0..w).filter(|&x| dark_at(x, y)).count() as f32 > RULED_ROW * w as f32);
    let edge = (EDGE_SHARE * w as f32).ceil() as usize;
    let ruled_cols = (0..w)
        .filter(|&x| x < edge || x + edge >= w)
        .filter(|&x| (0..h).filter(|&y| dark_at(x, y)).count() as f32 > RULED_COLUMN * h as f32);
    let mut cleared = vec![false; w * h];
    for y in ruled_rows.collect::<Vec<_>>() {
        for yy in y.saturating_sub(RULE_EDGE)..(y + RULE_EDGE + 1).min(h) {
            cleared[yy * w..(yy + 1) * w]
                .iter_mut()
                .for_each(|c| *c = true);
        }
    }
    for x in ruled_cols.collect::<Vec<_>>() {
        for xx in x.saturating_sub(RULE_EDGE)..(x + RULE_EDGE + 1).min(w) {
            (0..h).for_each(|y| cleared[y * w + xx] = true);
        }
    }
    cleared
}

/// The writing of `cell`: its pixels darker than `ink_limit` off the `cleared` rulings,
/// in blobs of [`MIN_BLOB`] pixels or more that touch neither the cell's edges nor a
/// ruling (a neighbour's strokes). Their box `(x0, y0, x1, y1)` (inclusive; `x0 > x1`
/// when no blob is kept) and pixel count; `None` when no pixel is dark.
fn writing(
    cell: &GrayImage,
    cleared: &[bool],
    ink_limit: f32,
) -> Option<(usize, usize, usize, usize, usize)> {
    let (w, h) = (cell.width() as usize, cell.height() as usize);
    let px = cell.as_raw();
    // The ink's blobs, but for specks and what touches the cell's edges.
    let mask = GrayImage::from_raw(
        w as u32,
        h as u32,
        px.iter()
            .zip(cleared)
            .map(|(&v, &c)| {
                if !c && f32::from(v) < ink_limit {
                    255
                } else {
                    0
                }
            })
            .collect(),
    )?;
    let labels = connected_components(&mask, Connectivity::Eight, Luma([0u8]));
    let count = labels.pixels().map(|p| p[0]).max().unwrap_or(0) as usize;
    if count == 0 {
        return None;
    }
    // Per blob: pixels, its box (x0, y0, x1, y1), and whether it reaches a ruling (a
    // stroke crossing from the neighbouring cell).
    let mut blobs = vec![(0usize, usize::MAX, usize::MAX, 0usize, 0usize, false); count + 1];
    let near_ruling = |x: usize, y: usize| {
        (y.saturating_sub(1)..(y + 2).min(h))
            .any(|yy| (x.saturating_sub(1)..(x + 2).min(w)).any(|xx| cleared[yy * w + xx]))
    };
    for (x, y, l) in labels.enumerate_pixels().filter(|(_, _, l)| l[0] > 0) {
        let b = &mut blobs[l[0] as usize];
        let (x, y) = (x as usize, y as usize);
        b.0 += 1;
        b.1 = b.1.min(x);
        b.2 = b.2.min(y);
        b.3 = b.3.max(x);
        b.4 = b.4.max(y);
        b.5 |= near_ruling(x, y);
    }
    let ink = blobs
        .iter()
        .skip(1)
        .filter(|b| b.0 >= MIN_BLOB && !b.5 && b.1 > 0 && b.2 > 0 && b.3 + 1 < w && b.4 + 1 < h);
    Some(ink.fold((usize::MAX, usize::MAX, 0, 0, 0), |a, b| {
        (
            a.0.min(b.1),
            a.1.min(b.2),
            a.2.max(b.3),
            a.3.max(b.4),
            a.4 + b.0,
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 240x50 cell: rulings along its top and right edges, and `strokes` (boxes).
    fn cell_with(strokes: &[(u32, u32, u32, u32)]) -> GrayImage {
        cell_inked(strokes, 60)
    }

    fn cell_inked(strokes: &[(u32, u32, u32, u32)], ink: u8) -> GrayImage {
        let mut img = GrayImage::from_pixel(240, 50, Luma([225]));
        for x in 0..240 {
            img.put_pixel(x, 1, Luma([40]));
        }
        for y in 0..50 {
            img.put_pixel(237, y, Luma([40]));
        }
        for &(x0, y0, x1, y1) in strokes {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    img.put_pixel(x, y, Luma([ink]));
                }
            }
        }
        img
    }

    #[test]
    fn a_small_sign_is_cut_out_closer_without_the_rulings() {
        let img = cell_with(&[(60, 20, 70, 20), (60, 24, 70, 24)]);
        let c = closeup(&img).expect("a close-up");
        // The sign's 5 rows are 0.45 of the close-up's height, with no ruling in it.
        assert!(
            (10..=13).contains(&c.height()),
            "{}x{}",
            c.width(),
            c.height()
        );
        assert!(c.width() >= 2 * c.height() - 1);
        let dark = c.pixels().filter(|p| p[0] < 100).count();
        assert_eq!(dark, 22, "only the sign's two strokes of 11 pixels");
        // Its strokes are in the middle rows.
        let rows: Vec<u32> = (0..c.height())
            .filter(|&y| (0..c.width()).any(|x| c.get_pixel(x, y)[0] < 100))
            .collect();
        assert_eq!(rows.len(), 2, "{rows:?}");
        let (top, bottom) = (rows[0], c.height() - 1 - rows[1]);
        assert!(top.abs_diff(bottom) <= 1, "{rows:?} of {}", c.height());
    }

    #[test]
    fn faint_writing_is_found_beside_dark_rulings() {
        // Pencil 55 levels under the paper; the rulings 185.
        let img = cell_inked(&[(60, 20, 70, 20), (60, 24, 70, 24)], 170);
        let c = closeup(&img).expect("a close-up");
        let faint = c.pixels().filter(|p| p[0] < 200).count();
        assert_eq!(faint, 22);
    }

    #[test]
    fn no_closeup_for_rulings_alone_specks_or_writing_that_fills_the_cell() {
        assert!(closeup(&cell_with(&[])).is_none(), "rulings only");
        assert!(
            closeup(&cell_with(&[(100, 25, 100, 25)])).is_none(),
            "a speck"
        );
        // A move written across the cell's height.
        assert!(closeup(&cell_with(&[(40, 8, 44, 42), (50, 8, 90, 12)])).is_none());
        // A neighbour's stroke reaching in from the left edge, and one crossing the
        // top ruling.
        assert!(closeup(&cell_with(&[(0, 30, 6, 31)])).is_none());
        assert!(closeup(&cell_with(&[(100, 4, 103, 12)])).is_none());
    }
}
