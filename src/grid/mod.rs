//! Page -> ordered cells: finds the move table from its ruling and numbers every
//! cell (move number, side, box on the page), blocks read left to right.
//!
//! The table is found without a template: long dark runs give the ruling lines
//! (followed as they bend); each interval between neighbouring vertical lines that is
//! crossed by an evenly spaced run of row lines is a table column; a narrow column
//! followed by two wide ones is a ruled number column, otherwise wide columns pair up
//! as White/Black with the numbers in a shaded strip at the left of White.
//!
//! ```no_run
//! use scoresheet::grid::{crop, find_grid, GridParams};
//! use scoresheet::page::{load_pages, PageParams};
//! let page = load_pages("sheet.jpg".as_ref(), &PageParams::default())?.remove(0);
//! let grid = find_grid(&page, &GridParams::default())?;
//! for cell in &grid.cells {
//!     let img = crop(&page, cell);
//!     println!("{} {:?} {}x{} ink {:.3}", cell.move_number, cell.side, img.width(), img.height(), cell.ink);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod overlay;
#[cfg(any(test, feature = "internals"))]
pub mod synth;

use image::GrayImage;
use shakmaty::Color;

use crate::page::Page;
use crate::raster;
use crate::ruling::shapes::{AnalysisParams, Table, TableFailure};
use crate::ruling::table;

/// Settings of the grid stage.
#[derive(Clone, Debug)]
pub struct GridParams {
    /// The page is analysed shrunk by an integer factor to about this width (pixels).
    pub work_width: u32,
    /// Fewest evenly spaced rows that make a move table.
    pub min_rows: usize,
    /// Grey levels a rule must be darker than its surroundings.
    pub min_contrast: f32,
    /// Margin added left and right of each cell, as a fraction of its width.
    pub margin_x: f32,
    /// Margin added above and below each cell, as a fraction of its height.
    pub margin_y: f32,
}

impl Default for GridParams {
    fn default() -> Self {
        GridParams {
            work_width: 1000,
            min_rows: crate::ruling::MIN_ROWS,
            min_contrast: crate::ruling::MIN_CONTRAST,
            margin_x: 0.04,
            margin_y: 0.15,
        }
    }
}

/// An axis-aligned box in [`Page::image`] pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CellBox {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

/// One move cell of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Printed move number (1-based, counting on across blocks).
    pub move_number: u32,
    /// Column: White or Black.
    pub side: Color,
    /// Box to crop: the ruled cell plus a margin, clipped to the page.
    pub bbox: CellBox,
    /// The ruled cell itself (the number strip excluded).
    pub ruled: CellBox,
    /// Fraction of dark pixels inside the ruled cell, away from its rules: about 0
    /// for a blank cell, typically 0.02-0.15 with writing.
    pub ink: f32,
    /// Block (0-based, left to right) and row within it (0-based, top down).
    pub block: usize,
    pub row: usize,
    /// White cells of a table with a number column or strip: the box where the row's
    /// move number is printed.
    pub number: Option<CellBox>,
}

/// The move table found on a page.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Blocks side by side (e.g. 2 for moves 1-30 | 31-60).
    pub blocks: usize,
    pub rows_per_block: usize,
    /// Cells in move order: 1 White, 1 Black, 2 White, ...
    pub cells: Vec<Cell>,
    /// Skew of the source page (from [`Page::skew_deg`]).
    pub skew_deg: f32,
    /// Whether the source page was upside down (from [`Page::rotated_180`]).
    pub rotated_180: bool,
    /// Mean row height in page pixels.
    pub row_pitch: f32,
    /// Whether the table has a ruled move-number column (else a strip or nothing). One
    /// block's is enough: on a blurred page another block's may go unseen.
    pub ruled_numbers: bool,
    /// Leading rows of every block dropped as column headings (see
    /// [`Grid::drop_leading_rows`]).
    pub header_rows: usize,
    /// Number of the first move row (1, or 51, 61 ... on a continuation sheet), read
    /// from the printed numbers (see [`Grid::renumber`]).
    pub first_move: u32,
}

/// Why no grid came out of a page. One lowercase line naming the page.
#[derive(Debug, thiserror::Error)]
pub enum GridError {
    #[error("{page}: no ruling found (too faint, or not a ruled sheet)")]
    NoRuling { page: String },
    #[error(
        "{page}: no move table found: no evenly spaced row lines (ruling too faint or missing)"
    )]
    NoRows { page: String },
    #[error("{page}: no move table found: {reason}")]
    Columns { page: String, reason: String },
}

/// Finds the move table of `page` and returns its cells in move order.
///
/// # Errors
/// [`GridError`] when the page shows no ruling, no evenly spaced rows, or columns
/// that do not group into White/Black blocks. A grid is never invented.
pub fn find_grid(page: &Page, params: &GridParams) -> Result<Grid, GridError> {
    let k = (page.image.width() / params.work_width.max(1)).max(1);
    let work = raster::downscale(&page.image, k);
    let ap = AnalysisParams {
        min_contrast: params.min_contrast,
        min_rows: params.min_rows,
        sideways: 0,
    };
    let name = page_name(page);
    let table = table::analyse_leaning(&work, &ap);
    let table = table.map_err(|f| match f {
        TableFailure::NoRuling => GridError::NoRuling { page: name.clone() },
        TableFailure::NoRows => GridError::NoRows { page: name.clone() },
        TableFailure::Columns(reason) => GridError::Columns {
            page: name.clone(),
            reason,
        },
    })?;
    Ok(cells_of(&table, &work, k, page, params))
}

fn page_name(page: &Page) -> String {
    if page.index == 0 {
        page.source.display().to_string()
    } else {
        // The name reports give the page (`pipeline::source_name`).
        format!("{}#page{}", page.source.display(), page.index + 1)
    }
}

impl Grid {
    /// Drops the first `k` rows of every block (a column-header row found to hold no
    /// moves) and numbers the cells again.
    pub fn drop_leading_rows(&mut self, k: usize) {
        self.renumber(k, self.first_move);
    }

    /// Adds `n` rows above the first row of every block, one row pitch apart (rows
    /// the ruling lost under a dark heading band, found from the printed numbers), and
    /// numbers every cell again from the new first row. False (nothing changed) when
    /// they would not fit on the page.
    pub fn extend_up(&mut self, n: usize, page: &Page) -> bool {
        let pitch = self.row_pitch.round() as i64;
        let first: Vec<&Cell> = self.cells.iter().filter(|c| c.row == 0).collect();
        if n == 0 || first.is_empty() || first.iter().any(|c| (c.ruled.y as i64) < n as i64 * pitch)
        {
            return false;
        }
        let up = |b: CellBox, k: usize| CellBox {
            y: (b.y as i64 - k as i64 * pitch).max(0) as u32,
            ..b
        };
        let mut added: Vec<Cell> = Vec::new();
        for c in &first {
            for k in 1..=n {
                let ruled = up(c.ruled, k);
                let (x0, y0) = (ruled.x as f32, ruled.y as f32);
                let ink = ink_fraction(
                    &page.image,
                    x0,
                    y0,
                    x0 + ruled.w as f32,
                    y0 + ruled.h as f32,
                );
                added.push(Cell {
                    bbox: up(c.bbox, k),
                    ruled,
                    number: c.number.map(|b| up(b, k)),
                    ink,
                    row: n - k,
                    ..(*c).clone()
                });
            }
        }
        for c in &mut self.cells {
            c.row += n;
        }
        self.cells.extend(added);
        self.rows_per_block += n;
        self.cells
            .sort_by_key(|c| (c.block, c.row, c.side == Color::Black));
        self.number_cells();
        true
    }

    /// Numbers every cell from its block and row, counting on across blocks from
    /// `first_move`.
    fn number_cells(&mut self) {
        let (rows, first) = (self.rows_per_block, self.first_move);
        for c in &mut self.cells {
            c.move_number = (c.block * rows + c.row) as u32 + first;
        }
    }

    /// Drops the last `k` rows of every block (rows ruled below the table) and numbers
    /// the rest on across blocks.
    pub fn drop_trailing_rows(&mut self, k: usize) {
        if k == 0 || k >= self.rows_per_block {
            return;
        }
        self.rows_per_block -= k;
        let rows = self.rows_per_block;
        self.cells.retain(|c| c.row < rows);
        self.number_cells();
    }

    /// Drops the first `k` rows of every block and numbers the rest from `first_move`
    /// (the number printed on the first row kept), counting on across blocks.
    pub fn renumber(&mut self, k: usize, first_move: u32) {
        if k >= self.rows_per_block || first_move == 0 {
            return;
        }
        self.cells.retain(|c| c.row >= k);
        for c in &mut self.cells {
            c.row -= k;
        }
        self.rows_per_block -= k;
        self.header_rows += k;
        self.first_move = first_move;
        self.number_cells();
    }
}

/// Builds the cells from the analysed table; `k` is the analysis downscale factor.
fn cells_of(t: &Table, work: &GrayImage, k: u32, page: &Page, params: &GridParams) -> Grid {
    let (pw, ph) = page.image.dimensions();
    let rows = t.rows();
    let kf = k as f32;
    let to_page = |v: f32| v * kf + (kf - 1.0) / 2.0;
    let mut cells = Vec::with_capacity(t.blocks.len() * rows * 2);
    for (b, block) in t.blocks.iter().enumerate() {
        for r in 0..rows {
            for side in [Color::White, Color::Black] {
                let (col, lines) = match side {
                    Color::White => (&t.columns[block.white], &block.white_rows),
                    Color::Black => (&t.columns[block.black], &block.black_rows),
                };
                let (top, bottom) = (lines[r], lines[r + 1]);
                let y0 = top.0.min(top.1);
                let y1 = bottom.0.max(bottom.1);
                let ymid = (y0 + y1) / 2.0;
                let mut x0 = t
                    .edge_x(col.left, ymid)
                    .min(t.edge_x(col.left, y0))
                    .min(t.edge_x(col.left, y1));
                let x1 = t
                    .edge_x(col.right, ymid)
                    .max(t.edge_x(col.right, y0))
                    .max(t.edge_x(col.right, y1));
                if let (Color::White, Some(sx)) = (side, block.strip_x) {
                    x0 = sx;
                }
                let ink = ink_fraction(work, x0, y0, x1, y1);
                let (px0, py0, px1, py1) = (to_page(x0), to_page(y0), to_page(x1), to_page(y1));
                let ruled = clip_box(px0, py0, px1, py1, pw, ph);
                let (mx, my) = ((px1 - px0) * params.margin_x, (py1 - py0) * params.margin_y);
                // No margin into a number strip: it holds print, not writing.
                let left_margin = if side == Color::White && block.strip_x.is_some() {
                    0.0
                } else {
                    mx
                };
                let bbox = clip_box(px0 - left_margin, py0 - my, px1 + mx, py1 + my, pw, ph);
                let move_number = (b * rows + r + 1) as u32;
                let number = match (side, block.number, block.strip_x) {
                    (Color::Black, ..) => None,
                    (Color::White, Some(n), _) => {
                        let c = &t.columns[n];
                        let nx0 = t.edge_x(c.left, ymid);
                        let nx1 = t.edge_x(c.right, ymid);
                        Some(clip_box(to_page(nx0), py0, to_page(nx1), py1, pw, ph))
                    }
                    (Color::White, None, Some(sx)) => {
                        let nx0 = t.edge_x(col.left, ymid);
                        Some(clip_box(to_page(nx0), py0, to_page(sx), py1, pw, ph))
                    }
                    (Color::White, None, None) => None,
                };
                cells.push(Cell {
                    move_number,
                    side,
                    bbox,
                    ruled,
                    ink,
                    block: b,
                    row: r,
                    number,
                });
            }
        }
    }
    let row_pitch = t.pitch * kf;
    Grid {
        blocks: t.blocks.len(),
        rows_per_block: rows,
        cells,
        skew_deg: page.skew_deg,
        rotated_180: page.rotated_180,
        row_pitch,
        ruled_numbers: t.blocks.iter().any(|b| b.number.is_some()),
        header_rows: 0,
        first_move: 1,
    }
}

fn clip_box(x0: f32, y0: f32, x1: f32, y1: f32, w: u32, h: u32) -> CellBox {
    let cx = |v: f32| (v.round().max(0.0) as u32).min(w);
    let cy = |v: f32| (v.round().max(0.0) as u32).min(h);
    let (x0, x1, y0, y1) = (cx(x0), cx(x1), cy(y0), cy(y1));
    CellBox {
        x: x0.min(w.saturating_sub(1)),
        y: y0.min(h.saturating_sub(1)),
        w: (x1 - x0.min(x1)).max(1),
        h: (y1 - y0.min(y1)).max(1),
    }
}

/// Fraction of ink pixels inside the box shrunk away from its rules: pixels darker
/// than the region's median (its paper) by at least 20 grey levels or 12%.
fn ink_fraction(gray: &GrayImage, x0: f32, y0: f32, x1: f32, y1: f32) -> f32 {
    let (w, h) = (x1 - x0, y1 - y0);
    let (sx, sy) = ((0.06 * w).max(3.0), (0.25 * h).max(3.0));
    let (gw, gh) = (gray.width() as f32, gray.height() as f32);
    let (a, b) = (
        (x0 + sx).clamp(0.0, gw) as u32,
        (y0 + sy).clamp(0.0, gh) as u32,
    );
    let (c, d) = (
        (x1 - sx).clamp(0.0, gw) as u32,
        (y1 - sy).clamp(0.0, gh) as u32,
    );
    if c <= a || d <= b {
        return 0.0;
    }
    let mut hist = [0u32; 256];
    for y in b..d {
        for x in a..c {
            hist[gray.get_pixel(x, y)[0] as usize] += 1;
        }
    }
    let n: u32 = hist.iter().sum();
    let mut acc = 0;
    let median = hist.iter().position(|&c| {
        acc += c;
        acc * 2 > n
    });
    let paper = median.unwrap_or(255) as f32;
    let limit = paper - 20f32.max(0.12 * paper);
    let ink: u32 = hist
        .iter()
        .enumerate()
        .filter(|&(v, _)| (v as f32) < limit)
        .map(|(_, &c)| c)
        .sum();
    ink as f32 / n.max(1) as f32
}

/// The cell's image: its [`Cell::bbox`] cut out of the page.
pub fn crop(page: &Page, cell: &Cell) -> GrayImage {
    crop_box(page, cell.bbox)
}

/// Any box of the page cut out (a cell's printed number, say).
pub fn crop_box(page: &Page, b: CellBox) -> GrayImage {
    image::imageops::crop_imm(&page.image, b.x, b.y, b.w, b.h).to_image()
}

/// A multi-line description of what the analysis saw (ruling lines, table columns,
/// blocks), for debugging.
#[doc(hidden)]
#[cfg(any(test, feature = "internals"))]
pub fn describe(page: &Page, params: &GridParams) -> String {
    use std::fmt::Write;
    let k = (page.image.width() / params.work_width.max(1)).max(1);
    let work = raster::downscale(&page.image, k);
    let ap = AnalysisParams {
        min_contrast: params.min_contrast,
        min_rows: params.min_rows,
        sideways: 0,
    };
    let mut s = format!(
        "work {}x{} k={k} skew {:.2}\n",
        work.width(),
        work.height(),
        page.skew_deg
    );
    match table::analyse(&work, &ap) {
        Err(e) => {
            let _ = writeln!(s, "failure {e:?}");
        }
        Ok(t) => {
            for (i, v) in t.vlines.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "vline {i}: x {:.1} span {:.0}..{:.0}",
                    v.mean(),
                    v.start,
                    v.end
                );
            }
            let _ = writeln!(s, "hlines {}", t.hlines.len());
            for c in &t.columns {
                let seen = c.centre.iter().filter(|r| r.found.is_some()).count();
                let _ = writeln!(
                    s,
                    "column {:?}..{:?} x {:.0}..{:.0} rows {} seen {} pitch {:.1} y {:.0}..{:.0}",
                    c.left,
                    c.right,
                    c.x0,
                    c.x1,
                    c.centre.len() - 1,
                    seen,
                    c.pitch,
                    c.centre[0].y,
                    c.centre.last().map_or(0.0, |r| r.y)
                );
                let ys: Vec<i32> = c.centre.iter().map(|r| r.y as i32).collect();
                let _ = writeln!(s, "   ys {ys:?}");
            }
            for b in &t.blocks {
                let _ = writeln!(
                    s,
                    "block n {:?} w {} b {} strip {:?} rows {}",
                    b.number,
                    b.white,
                    b.black,
                    b.strip_x,
                    b.white_rows.len() - 1
                );
            }
            let _ = writeln!(s, "votes {:.2}", t.upside_down_votes);
        }
    }
    s
}

#[cfg(test)]
mod tests;
