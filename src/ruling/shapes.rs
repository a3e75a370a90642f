//! The shapes the ruling's files share: a table found (its lines, columns, blocks and
//! rows), its settings and why none was found. Imports no other file of `ruling` but
//! `lines` and `rows` (which import none of it).

use super::lines::Line;
use super::rows::RowLine;
use crate::raster::Mask;

/// Why no table was found (the grid turns it into its `GridError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableFailure {
    NoRuling,
    NoRows,
    Columns(String),
}

/// Settings of the analysis, in analysis-scale pixels where they are lengths.
#[derive(Clone, Debug)]
pub struct AnalysisParams {
    /// A pixel is ink or ruling when this much darker than its neighbourhood (grey levels).
    pub min_contrast: f32,
    /// Fewest rows a column must show to count as part of the move table.
    pub min_rows: usize,
    /// How far a vertical rule may stray sideways along its runs
    /// ([`super::lines::long_vertical_runs`]): 0 for a scan, 1 to look again at a page whose
    /// rules perspective has tilted.
    pub sideways: usize,
}

/// A column boundary: a vertical ruling line, or the image edge where the crop cut
/// the outer rule away.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Edge {
    Line(usize),
    ImageLeft,
    ImageRight,
}

/// The interval between two neighbouring boundaries, with its row lines.
#[derive(Clone, Debug)]
pub struct Column {
    pub left: Edge,
    pub right: Edge,
    /// Left and right x at the table's middle height.
    pub x0: f32,
    pub x1: f32,
    /// Row lines crossing the column, top to bottom: y at the left and right edge.
    pub rows: Vec<(f32, f32)>,
    /// Row lines at the column centre, with whether each was seen.
    pub centre: Vec<RowLine>,
    pub pitch: f32,
}

impl Column {
    pub fn width(&self) -> f32 {
        self.x1 - self.x0
    }
}

/// One block of the table: its columns (indices into [`Table::columns`]) and its rows.
#[derive(Clone, Debug)]
pub struct Block {
    pub number: Option<usize>,
    pub white: usize,
    pub black: usize,
    /// Where writing starts in the white column when the move numbers sit in an
    /// unruled (shaded) strip at its left.
    pub strip_x: Option<f32>,
    /// Row lines (R + 1 of them for R rows): for each, `(y_left, y_right)` at the
    /// white column's edges and at the black column's edges.
    pub white_rows: Vec<(f32, f32)>,
    pub black_rows: Vec<(f32, f32)>,
    /// Whether each row line was seen in some column (else interpolated everywhere).
    pub seen: Vec<bool>,
}

/// The move table found on a page.
#[derive(Clone, Debug)]
pub struct Table {
    pub width: usize,
    pub height: usize,
    pub hlines: Vec<Line>,
    pub vlines: Vec<Line>,
    pub columns: Vec<Column>,
    pub blocks: Vec<Block>,
    pub pitch: f32,
    /// Dark pixels of the analysis image (ink and rules).
    pub dark: Mask,
    /// Evidence that the page is upside down (number columns or strips to the right of
    /// their blocks): positive means upside down.
    pub upside_down_votes: f32,
}

impl Table {
    /// x of a boundary at height `y`.
    pub fn edge_x(&self, e: Edge, y: f32) -> f32 {
        match e {
            Edge::Line(i) => self.vlines[i].at(y),
            Edge::ImageLeft => 0.0,
            Edge::ImageRight => self.width as f32 - 1.0,
        }
    }

    pub fn rows(&self) -> usize {
        self.blocks
            .first()
            .map_or(0, |b| b.white_rows.len().saturating_sub(1))
    }
}
