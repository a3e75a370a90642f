//! Image file -> read sheets: page, grid, cell model, decoder and report in one call.
//!
//! ```no_run
//! use scoresheet::model::{CellModel, OrtModel, RuntimeParams};
//! use scoresheet::pipeline::{Pipeline, PipelineParams};
//! let mut model = OrtModel::embedded(&RuntimeParams::default())?;
//! let pipeline = Pipeline::new(PipelineParams::default());
//! for sheet in pipeline.read_file("sheet.jpg".as_ref(), &mut model, &Default::default()) {
//!     let sheet = sheet?;
//!     println!("{}", sheet.decoded.sans().join(" "));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use image::GrayImage;
use shakmaty::Color;

use crate::decode::{
    DasDecoder, DasParams, DasSheet, DecodeParams, DecodedSheet, Decoder, EntryKind, GameStatus,
};
use crate::grid::{self, Grid, GridError, GridParams};
use crate::model::{CellModel, CellScores, ModelError};
use crate::notation::{Notation, Variant};
use crate::page::{self, Page, PageError, PageParams};
use crate::report::{Alternative, MoveReport, PageInfo, Producer, SheetReport};

/// Settings of every stage.
#[derive(Clone, Debug)]
pub struct PipelineParams {
    pub page: PageParams,
    pub grid: GridParams,
    pub decode: DecodeParams,
    /// Cells after the last cell with at least this much ink (fraction of dark
    /// pixels, see [`grid::Cell::ink`]) are blank: they are not sent to the model.
    pub blank_ink: f32,
    /// Cells kept after the last inked one, so the decoder sees the game's end.
    pub trailing_cells: usize,
    /// What the sheets record: chess (decoded as legal games) or Das (read cell by
    /// cell against its notation, without its rules).
    pub variant: Variant,
    /// How Das sheets are read.
    pub das: DasParams,
}

impl Default for PipelineParams {
    fn default() -> Self {
        PipelineParams {
            page: PageParams::default(),
            grid: GridParams::default(),
            decode: DecodeParams::default(),
            blank_ink: 0.004,
            trailing_cells: 2,
            variant: Variant::Chess,
            das: DasParams::default(),
        }
    }
}

/// Why a sheet could not be read. One lowercase line naming the file.
#[derive(Debug, thiserror::Error)]
pub enum SheetError {
    #[error(transparent)]
    Page(#[from] PageError),
    #[error(transparent)]
    Grid(#[from] GridError),
    #[error("{path}: {source}")]
    Model { path: String, source: ModelError },
}

/// Per-sheet inputs beyond the image: human corrections to honour.
#[derive(Clone, Debug, Default)]
pub struct SheetOptions {
    /// Cell index (0 = 1. White, 1 = 1. Black, ...) -> English SAN fixed by a human.
    pub locked: BTreeMap<usize, String>,
}

/// Everything learnt from one page.
pub struct SheetRead {
    pub page: Page,
    pub grid: Grid,
    /// Model output for the cells sent to it (`cells_read` first cells of the grid).
    pub scores: Vec<CellScores>,
    /// The decoded chess game (empty for a Das sheet).
    pub decoded: DecodedSheet,
    /// The Das record, for a Das sheet.
    pub das: Option<DasSheet>,
    pub report: SheetReport,
}

/// The whole reading pipeline with fixed settings.
pub struct Pipeline {
    params: PipelineParams,
}

/// Index of a sheet cell in move order (0 = 1. White).
pub fn cell_index(move_number: u32, side: Color) -> usize {
    (move_number.saturating_sub(1) as usize) * 2 + usize::from(side == Color::Black)
}

/// The `source` string of a page in reports: the path, plus `#pageN` for the pages
/// after the first of a multi-page file.
pub fn source_name(path: &Path, index: usize) -> String {
    if index == 0 {
        path.display().to_string()
    } else {
        format!("{}#page{}", path.display(), index + 1)
    }
}

impl Pipeline {
    pub fn new(params: PipelineParams) -> Self {
        Pipeline { params }
    }

    pub fn params(&self) -> &PipelineParams {
        &self.params
    }

    /// Reads every page of an image file: one result per page, or one error for the
    /// whole file when it cannot be decoded.
    pub fn read_file(
        &self,
        path: &Path,
        model: &mut dyn CellModel,
        options: &SheetOptions,
    ) -> Vec<Result<SheetRead, SheetError>> {
        match page::load_pages(path, &self.params.page) {
            Ok(pages) => pages
                .into_iter()
                .map(|p| self.read_page(p, model, options))
                .collect(),
            Err(e) => vec![Err(e.into())],
        }
    }

    /// Reads one decoded page.
    ///
    /// # Errors
    /// No move table on the page, or the model failed.
    pub fn read_page(
        &self,
        page: Page,
        model: &mut dyn CellModel,
        options: &SheetOptions,
    ) -> Result<SheetRead, SheetError> {
        let grid = grid::find_grid(&page, &self.params.grid)?;
        let used = self.cells_to_read(&grid, options);
        let crops: Vec<GrayImage> = grid.cells[..used]
            .iter()
            .map(|c| grid::crop(&page, c))
            .collect();
        let scores = model.read(&crops).map_err(|source| SheetError::Model {
            path: source_name(&page.source, page.index),
            source,
        })?;
        if self.params.variant == Variant::Das {
            let das = DasDecoder::new(model.alphabet(), self.params.das.clone())
                .read_sheet(&scores, &options.locked);
            let decoded = no_game(das.cells_used);
            let report = build_das_report(&page, &grid, &decoded, &das);
            return Ok(SheetRead {
                page,
                grid,
                scores,
                decoded,
                das: Some(das),
                report,
            });
        }
        let mut params = self.params.decode.clone();
        params.locked = options.locked.clone();
        let decoded = Decoder::new(model.alphabet(), params).decode(&scores);
        let report = build_report(&page, &grid, &decoded);
        Ok(SheetRead {
            page,
            grid,
            scores,
            decoded,
            das: None,
            report,
        })
    }

    /// Number of leading grid cells worth reading: up to the last inked (or locked)
    /// cell, plus a few blank ones so the decoder sees where the game ends.
    fn cells_to_read(&self, grid: &Grid, options: &SheetOptions) -> usize {
        let last_ink = grid
            .cells
            .iter()
            .rposition(|c| c.ink >= self.params.blank_ink);
        let last_lock = options.locked.keys().next_back().copied();
        let last = match (last_ink, last_lock) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        match last {
            Some(i) => (i + 1 + self.params.trailing_cells).min(grid.cells.len()),
            None => grid.cells.len().min(self.params.trailing_cells),
        }
    }
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn state_name(kind: EntryKind, review: bool) -> &'static str {
    match kind {
        EntryKind::Locked => "locked",
        EntryKind::Skipped | EntryKind::Duplicate => "skipped",
        EntryKind::Assumed => "assumed",
        EntryKind::Replaced => "review",
        EntryKind::Read if review => "review",
        EntryKind::Read => "ok",
    }
}

fn round3(x: f32) -> f32 {
    (x * 1000.0).round() / 1000.0
}

/// Turns a decoded sheet into its JSON report (without producer and corrections).
pub fn build_report(page: &Page, grid: &Grid, decoded: &DecodedSheet) -> SheetReport {
    let mut moves = Vec::with_capacity(decoded.entries.len());
    for e in &decoded.entries {
        let (move_number, side) = match e.cell {
            Some(c) => crate::decode::cell_move(c),
            // An assumed move sits before the next cell: name it by its own ply.
            None => {
                let ply = e.ply.unwrap_or(0);
                (
                    (ply / 2 + 1) as u32,
                    if ply % 2 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    },
                )
            }
        };
        let bbox = e
            .cell
            .and_then(|c| grid.cells.get(c))
            .map(|c| [c.bbox.x, c.bbox.y, c.bbox.w, c.bbox.h]);
        moves.push(MoveReport {
            ply: e.ply.map(|p| p as u32 + 1),
            move_number,
            side: side_name(side).to_string(),
            san: e.san.clone(),
            written: e.written.clone(),
            read: e.read.clone(),
            confidence: round3(e.confidence),
            review: e.review,
            state: state_name(e.kind, e.review).to_string(),
            bbox,
            alternatives: e
                .alternatives
                .iter()
                .map(|a| Alternative {
                    san: a.san.clone(),
                    confidence: round3(a.confidence),
                })
                .collect(),
        });
    }
    let result = game_result(&decoded.moves);
    let mut report = SheetReport {
        source: source_name(&page.source, page.index),
        source_path: std::fs::canonicalize(&page.source)
            .unwrap_or_else(|_| page.source.clone())
            .display()
            .to_string(),
        notation: decoded.notation.code().to_string(),
        status: match decoded.status {
            GameStatus::Complete => "complete",
            GameStatus::Partial => "partial",
        }
        .to_string(),
        moves,
        result,
        producer: Producer::default(),
        page: PageInfo {
            index: page.index,
            width: page.image.width(),
            height: page.image.height(),
            skew_deg: round3(page.skew_deg),
            rotated_180: page.rotated_180,
            cells: grid.cells.len(),
        },
        summary: Default::default(),
        corrections: Vec::new(),
    };
    report.summarize();
    report
}

/// The empty chess game of a sheet that records no chess game (a Das sheet).
fn no_game(cells_used: usize) -> DecodedSheet {
    DecodedSheet {
        notation: Notation::En,
        status: GameStatus::Complete,
        moves: Vec::new(),
        entries: Vec::new(),
        cells_used,
        log_likelihood: 0.0,
        notation_scores: Vec::new(),
        lock_conflicts: Vec::new(),
    }
}

/// Turns a Das record into its JSON report: notation `das`, `san` null, `written` and
/// `read` the move as the cell most likely says it, alternatives as written.
pub fn build_das_report(
    page: &Page,
    grid: &Grid,
    decoded: &DecodedSheet,
    das: &DasSheet,
) -> SheetReport {
    let mut report = build_report(page, grid, decoded);
    report.notation = "das".to_string();
    report.moves = das
        .entries
        .iter()
        .map(|e| {
            let (move_number, side) = crate::decode::cell_move(e.cell);
            MoveReport {
                ply: e.ply.map(|p| p as u32 + 1),
                move_number,
                side: side_name(side).to_string(),
                san: None,
                written: e.text.clone(),
                read: e.text.clone().unwrap_or_default(),
                confidence: round3(e.confidence),
                review: e.review,
                state: state_name(e.kind, e.review).to_string(),
                bbox: grid
                    .cells
                    .get(e.cell)
                    .map(|c| [c.bbox.x, c.bbox.y, c.bbox.w, c.bbox.h]),
                alternatives: e
                    .alternatives
                    .iter()
                    .map(|(text, confidence)| Alternative {
                        san: text.clone(),
                        confidence: round3(*confidence),
                    })
                    .collect(),
            }
        })
        .collect();
    report.summarize();
    report
}

/// `1-0` / `0-1` when the game ends in mate, `1/2-1/2` on stalemate, else `*`.
fn game_result(moves: &[shakmaty::Move]) -> String {
    use shakmaty::{Chess, Position};
    let mut pos = Chess::default();
    for m in moves {
        match pos.clone().play(*m) {
            Ok(p) => pos = p,
            Err(_) => return "*".into(),
        }
    }
    pos.outcome().as_str().to_string()
}
