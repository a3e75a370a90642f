//! The shapes a read game takes: one or two copies (White's and Black's sheets), each
//! of one or more sheets in order (a continuation sheet from move 51, 61 ...), and what
//! was learnt from them. Imports no other file of `pipeline`.

use image::GrayImage;

use crate::decode::{DasSheet, DecodedSheet};
use crate::grid::Grid;
use crate::model::CellScores;
use crate::page::Page;
use crate::report::SheetReport;

/// One copy of a game as read: its sheets' pages and numbered grids in order, the
/// cells of all its sheets as one table (the first sheet's grid with every sheet's
/// cells), and the model's scores of the table's first cells.
pub struct CopyRead {
    pub pages: Vec<Page>,
    pub grids: Vec<Grid>,
    pub table: Grid,
    pub scores: Vec<CellScores>,
}

impl CopyRead {
    /// The copy's table: its sheets' cells in order, on the first sheet's grid.
    pub(super) fn joined(grids: &[Grid]) -> Grid {
        let mut table = grids[0].clone();
        if grids.len() > 1 {
            table.cells = grids.iter().flat_map(|g| g.cells.iter().cloned()).collect();
        }
        table
    }

    /// The sheet cell `cell` of the table is on (an index into `pages`).
    pub fn sheet_of(&self, cell: usize) -> Option<usize> {
        let mut end = 0;
        self.grids.iter().position(|g| {
            end += g.cells.len();
            cell < end
        })
    }

    /// Cell `i` of the table: its page and picture.
    pub(super) fn crop(&self, mut i: usize) -> Option<(&Page, GrayImage)> {
        for (page, grid) in self.pages.iter().zip(&self.grids) {
            match grid.cells.get(i) {
                Some(cell) => return Some((page, crate::grid::crop(page, cell))),
                None => i -= grid.cells.len(),
            }
        }
        None
    }

    /// Each sheet's page with its grid.
    pub(super) fn sheets(&self) -> Vec<(&Page, &Grid)> {
        self.pages.iter().zip(&self.grids).collect()
    }
}

/// Everything learnt from one game: its copies, the decoded chess game (empty for a
/// Das game), the Das record (for a Das game) and the report.
pub struct GameRead {
    pub copies: Vec<CopyRead>,
    pub decoded: DecodedSheet,
    pub das: Option<DasSheet>,
    pub report: SheetReport,
}

impl GameRead {
    /// The first copy's first page.
    pub fn page(&self) -> &Page {
        &self.copies[0].pages[0]
    }

    /// The first copy's first grid.
    pub fn grid(&self) -> &Grid {
        &self.copies[0].grids[0]
    }
}
