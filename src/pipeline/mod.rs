//! Image file -> read sheets: page, grid, cell model, decoder and report in one call
//! (the reports themselves are built in `build.rs`, cells cut for front ends in
//! `cells.rs`, sources of reports in `sources.rs`, re-reads in `reread.rs`).
//!
//! ```no_run
//! use scoresheet::{OrtModel, Pipeline, PipelineParams, RuntimeParams};
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

use crate::decode::{
    DasDecoder, DasParams, DasSheet, DecodeParams, DecodedSheet, Decoder, EntryKind,
};
use crate::grid::{self, CellBox, Grid, GridError, GridParams};
use crate::model::{CellModel, CellScores, ModelError};
use crate::notation::{Notation, Variant};
use crate::page::{self, Page, PageError, PageParams};
use crate::report::SheetReport;

/// Time steps of the scores given to a cell that skips the model when no cell of
/// the sheet went through it (any length reads as blank).
const BLANK_STEPS: usize = 8;

/// The most leading rows a ruled table may have that hold no moves (a heading row, or
/// rows of the form's header that a blurred page's ruling reached into).
mod build;
mod cells;
mod closeup;
mod heading;
mod numbers;
mod reread;
mod result;
mod result_box;
mod sources;

use build::{add_copies, add_sheets, no_game};
pub use build::{build_das_report, build_report};
pub use cells::{CutCell, CutPage, cut_cells};
pub use numbers::Anchor;
pub use reread::{CorrectError, Reread, RereadError};
pub use sources::{reload_pages, report_sources, source_name};

const MAX_HEADER_ROWS: usize = 6;

/// The last move's cell is looked at closer for a result
/// ([`Pipeline::result_in_last_move`]) when the reader gives that move's
/// spellings less than this share of the cell (reported as `cell_p`). One cell read
/// more on 1 of 78 selection-hand forms (seed 10, whose small `1-0` it finds), 2 of 177
/// HCS pages and 2 of 672 training-hand form pages (seeds 12, 38, 60-65), none of which
/// it changes (their closer readings are moves: `bx4`, `f74`, `Rd1+`, `Ka4`). A last
/// move the cell does not show at all (`Replaced`) is looked at closer too (since stop
/// 45: one training-hand form more right, a `club-1x60` `1-0`, nothing else changed).
/// At 0.05 three results more were read right (training-hand and selection sheets) but
/// one was invented on an HCS page that writes none (a misnumbered row's `x3` read
/// closer as `=`): kept at 0.01.
const LAST_MOVE_DOUBT: f32 = 0.01;

/// What a leading row must cost the opening's decode (nats) to be dropped as holding
/// no moves. On the train-font sheets (72 per notation, 24 of each blurred) a heading
/// row costs 17 nats or more and the form rows above a blurred table 10 to 19 a row;
/// every choice from 2 to 10 drops the same rows there. A hard hand's real moves can
/// cost 5 a row (a held-out Polish sheet lost its game at 2), hence 6.
const HEADER_ROW_GAIN: f64 = 6.0;

/// Whether the cells a decode read as moves show them: a third or more of them hold
/// their move as (or within a nat of) the likeliest reading. On generated forms the
/// rows kept below a heading show 70% to 100%; a page of marks no hand wrote, 0% to 7%.
fn shows_moves(decoded: &DecodedSheet) -> bool {
    let (read, clean) = decoded
        .entries
        .iter()
        .filter(|e| e.cell.is_some() && e.kind == EntryKind::Read)
        .fold((0, 0), |(n, k), e| {
            (n + 1, k + usize::from(e.evidence >= -1.0))
        });
    read > 0 && 3 * clean >= read
}

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
    /// Cells with less ink than this are not sent to the model: they score as blank.
    pub model_ink: f32,
    /// What the sheets record: chess (decoded as legal games) or Das (read cell by
    /// cell against its notation, without its rules).
    pub variant: Variant,
    /// How Das sheets are read.
    pub das: DasParams,
    /// The review threshold a user chose. None: the one calibrated with the model
    /// (its manifest's `calibration`), or [`DecodeParams::review_below`] for a model
    /// without calibration.
    pub review_below: Option<f32>,
}

impl Default for PipelineParams {
    /// The product's settings: the decoder weighs moves with the shipped move prior
    /// (`models/prior.json`, scale chosen on the HCS training games). Its effect on
    /// held-out data varies with the reader; with cellreader 1.3.0: +1.3 points of
    /// plies on Polish synthetic sheets, +0.2 on Russian, -0.2 of move recognition on
    /// the HCS validation games (see the README).
    fn default() -> Self {
        let decode = DecodeParams {
            prior: crate::decode::FeaturePrior::shipped()
                .map(|p| std::sync::Arc::new(p) as std::sync::Arc<dyn crate::decode::MovePrior>),
            ..DecodeParams::default()
        };
        PipelineParams {
            page: PageParams::default(),
            grid: GridParams::default(),
            decode,
            blank_ink: 0.004,
            trailing_cells: 2,
            model_ink: 0.0005,
            variant: Variant::Chess,
            das: DasParams::default(),
            review_below: None,
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
    #[error(
        "{path}: a continuation sheet (its printed numbers start at move {first_move}): \
         read it with the game's first sheet (name it <first>-2 beside it, or give \
         --continue FIRST THIS)"
    )]
    Continuation { path: String, first_move: u32 },
    #[error(
        "{path}: sheet {sheet} of its game starts at move {first_move}, but the sheet \
         before it ends at move {previous_end}"
    )]
    SheetOrder {
        path: String,
        sheet: usize,
        first_move: u32,
        previous_end: u32,
    },
    #[error("{path}: Das games over several sheets are not read yet")]
    DasSheets { path: String },
}

/// Per-sheet inputs beyond the image: human corrections to honour.
#[derive(Clone, Debug, Default)]
pub struct SheetOptions {
    /// Cell index (0 = 1. White, 1 = 1. Black, ...) -> English SAN fixed by a human.
    pub locked: BTreeMap<usize, String>,
    /// Per page (the two copies of a pair in order), the heading rows an earlier read
    /// dropped ([`crate::report::PageInfo::header_rows`]): kept, so that the cells of
    /// `locked` are the cells the human saw. Decided again where absent.
    pub header_rows: Vec<Option<usize>>,
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

/// A result read in the decoded game's last move's cell
/// ([`Pipeline::result_in_last_move`]): that cell, to end the game before it, and per
/// copy the closer reading of it where that was the one the result was read from.
type ResultInLastMove = (usize, Vec<Option<CellScores>>);

/// One copy of a game's cells as read, for the result written after its last move:
/// the cells (of all its sheets, in order), their scores, and the sheets they lie on.
struct ReadCopy<'a> {
    grid: &'a Grid,
    scores: &'a [CellScores],
    sheets: Vec<(&'a Page, &'a Grid)>,
}

impl<'a> ReadCopy<'a> {
    fn new(grid: &'a Grid, scores: &'a [CellScores], sheets: Vec<(&'a Page, &'a Grid)>) -> Self {
        Self {
            grid,
            scores,
            sheets,
        }
    }

    /// Cell `i`'s page and picture.
    fn crop(&self, mut i: usize) -> Option<(&'a Page, GrayImage)> {
        for &(page, grid) in &self.sheets {
            match grid.cells.get(i) {
                Some(cell) => return Some((page, grid::crop(page, cell))),
                None => i -= grid.cells.len(),
            }
        }
        None
    }
}

/// Everything learnt from the two copies of one game.
pub struct PairRead {
    pub pages: [Page; 2],
    pub grids: [Grid; 2],
    pub decoded: DecodedSheet,
    pub report: SheetReport,
}

/// Everything learnt from one game written over several sheets.
pub struct GameRead {
    pub pages: Vec<Page>,
    pub grids: Vec<Grid>,
    pub decoded: DecodedSheet,
    pub report: SheetReport,
}

/// The whole reading pipeline with fixed settings.
pub struct Pipeline {
    params: PipelineParams,
}

pub use crate::decode::cell_index;

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
        let mut grid = grid::find_grid(&page, &self.params.grid)?;
        let known = self.skip_header_row(&page, &mut grid, model, options, 0)?;
        let used = self.cells_to_read(&grid, options);
        let mut scores = self.score_cells(&page, &grid, used, model, &known)?;
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
        let form = self.form_notation(&page, &grid, model)?;
        let decoder = self.decoder(model, options, form);
        let mut decoded = decoder.decode(&scores);
        let copy = ReadCopy::new(&grid, &scores, vec![(&page, &grid)]);
        if let Some((cell, closer)) = self.result_in_last_move(&decoded, &[copy], model)? {
            if let Some(Some(closer)) = closer.into_iter().next() {
                scores[cell] = closer;
            }
            decoded = decoder.decode(&scores[..cell]);
        }
        let mut report = build_report(&page, &grid, &decoded);
        report.page.form_notation = form.map(|n| n.code().to_string());
        self.add_written_result(
            &mut report,
            &decoded,
            &[ReadCopy::new(&grid, &scores, vec![(&page, &grid)])],
            &[(&page, &grid)],
            model,
        )?;
        Ok(SheetRead {
            page,
            grid,
            scores,
            decoded,
            das: None,
            report,
        })
    }

    /// Reads both players' copies of one game (White's and Black's sheets) and decodes
    /// one game from both: each ply's evidence is the sum of its two cells. Cells
    /// where the copies show different legal moves are flagged (`disagree`).
    ///
    /// # Errors
    /// As [`Pipeline::read_page`], for either copy.
    pub fn read_pair(
        &self,
        pages: [Page; 2],
        model: &mut dyn CellModel,
        options: &SheetOptions,
    ) -> Result<PairRead, SheetError> {
        let [a, b] = pages;
        let mut grids = [
            grid::find_grid(&a, &self.params.grid)?,
            grid::find_grid(&b, &self.params.grid)?,
        ];
        let known = [
            self.skip_header_row(&a, &mut grids[0], model, options, 0)?,
            self.skip_header_row(&b, &mut grids[1], model, options, 1)?,
        ];
        let used = self
            .cells_to_read(&grids[0], options)
            .max(self.cells_to_read(&grids[1], options));
        let used = [
            used.min(grids[0].cells.len()),
            used.min(grids[1].cells.len()),
        ];
        let mut scores = [
            self.score_cells(&a, &grids[0], used[0], model, &known[0])?,
            self.score_cells(&b, &grids[1], used[1], model, &known[1])?,
        ];
        let cells = |scores: &[Vec<CellScores>; 2], end: usize| -> Vec<Vec<CellScores>> {
            (0..end)
                .map(|i| scores.iter().filter_map(|s| s.get(i).cloned()).collect())
                .collect()
        };
        // The two copies are usually the same form; where their headings name
        // different notations, neither is taken.
        let forms = [
            self.form_notation(&a, &grids[0], model)?,
            self.form_notation(&b, &grids[1], model)?,
        ];
        let form = match forms {
            [Some(x), Some(y)] if x != y => None,
            [x, y] => x.or(y),
        };
        let decoder = self.decoder(model, options, form);
        let mut decoded = decoder.decode_copies(&cells(&scores, used[0].max(used[1])));
        let copies = [
            ReadCopy::new(&grids[0], &scores[0], vec![(&a, &grids[0])]),
            ReadCopy::new(&grids[1], &scores[1], vec![(&b, &grids[1])]),
        ];
        if let Some((cell, closer)) = self.result_in_last_move(&decoded, &copies, model)? {
            for (copy, closer) in scores.iter_mut().zip(closer) {
                if let Some(closer) = closer {
                    copy[cell] = closer;
                }
            }
            decoded = decoder.decode_copies(&cells(&scores, cell));
        }
        let mut report = build_report(&a, &grids[0], &decoded);
        report.page.form_notation = form.map(|n| n.code().to_string());
        add_copies(
            &mut report,
            [&a, &b],
            &grids,
            &scores,
            &decoded,
            model.alphabet(),
        );
        self.add_written_result(
            &mut report,
            &decoded,
            &[
                ReadCopy::new(&grids[0], &scores[0], vec![(&a, &grids[0])]),
                ReadCopy::new(&grids[1], &scores[1], vec![(&b, &grids[1])]),
            ],
            &[(&a, &grids[0]), (&b, &grids[1])],
            model,
        )?;
        Ok(PairRead {
            pages: [a, b],
            grids,
            decoded,
            report,
        })
    }

    /// Reads one game written over several sheets, in order: a 50-move form holds 100
    /// plies, and a longer game goes on on a second (third ...) sheet, printed from 51,
    /// 61 ... Each sheet's rows are numbered as a single sheet's are (printed numbers,
    /// heading rows); a later sheet that prints no numbers goes on where the sheet
    /// before it ends. The cells of all sheets are decoded as one game; each move keeps
    /// its sheet (`sheet`, an index into the report's `sheets`) and its box there.
    ///
    /// # Errors
    /// As [`Pipeline::read_page`], for any sheet; a first sheet printed from a later
    /// move than 1 ([`SheetError::Continuation`]), a later sheet that does not start
    /// where the one before it ends ([`SheetError::SheetOrder`]), a Das game.
    pub fn read_sheets(
        &self,
        pages: Vec<Page>,
        model: &mut dyn CellModel,
        options: &SheetOptions,
    ) -> Result<GameRead, SheetError> {
        let name = |p: &Page| source_name(&p.source, p.index);
        if self.params.variant == Variant::Das {
            return Err(SheetError::DasSheets {
                path: pages.first().map(name).unwrap_or_default(),
            });
        }
        let mut grids: Vec<Grid> = Vec::with_capacity(pages.len());
        let mut known = Vec::with_capacity(pages.len());
        for (i, page) in pages.iter().enumerate() {
            let mut grid = grid::find_grid(page, &self.params.grid)?;
            if i == 0 {
                known.push(self.skip_header_row(page, &mut grid, model, options, 0)?);
                grids.push(grid);
                continue;
            }
            let prev = &grids[i - 1];
            let next = prev.first_move + (prev.cells.len() / 2) as u32;
            if let Some(&Some(k)) = options.header_rows.get(i) {
                grid.renumber(k, next);
            } else {
                let anchor =
                    numbers::anchor(page, &grid, model).map_err(|source| SheetError::Model {
                        path: name(page),
                        source,
                    })?;
                match anchor {
                    Some(a) if a.first_move != next => {
                        return Err(SheetError::SheetOrder {
                            path: name(page),
                            sheet: i + 1,
                            first_move: a.first_move,
                            previous_end: next - 1,
                        });
                    }
                    Some(a) => numbers::apply(&a, &mut grid, page),
                    None => grid.renumber(0, next),
                }
            }
            known.push(Vec::new());
            grids.push(grid);
        }
        let mut all = grids[0].clone();
        all.cells = grids.iter().flat_map(|g| g.cells.iter().cloned()).collect();
        let used = self.cells_to_read(&all, options);
        let mut scores = Vec::with_capacity(used);
        let mut offset = 0;
        for ((page, grid), known) in pages.iter().zip(&grids).zip(&known) {
            let n = used.saturating_sub(offset).min(grid.cells.len());
            if n > 0 {
                scores.extend(self.score_cells(page, grid, n, model, known)?);
            }
            offset += grid.cells.len();
        }
        // The first sheet's headings (a continuation sheet is the same form).
        let form = self.form_notation(&pages[0], &grids[0], model)?;
        let decoder = self.decoder(model, options, form);
        let mut decoded = decoder.decode(&scores);
        let copy = ReadCopy::new(&all, &scores, pages.iter().zip(&grids).collect());
        if let Some((cell, closer)) = self.result_in_last_move(&decoded, &[copy], model)? {
            if let Some(Some(closer)) = closer.into_iter().next() {
                scores[cell] = closer;
            }
            decoded = decoder.decode(&scores[..cell]);
        }
        let mut report = build_report(&pages[0], &all, &decoded);
        add_sheets(&mut report, &pages, &grids);
        report.page.form_notation = form.map(|n| n.code().to_string());
        // The result options are printed below the last sheet's table.
        let last: Vec<(&Page, &Grid)> = pages.iter().zip(&grids).next_back().into_iter().collect();
        let copy = ReadCopy::new(&all, &scores, pages.iter().zip(&grids).collect());
        self.add_written_result(&mut report, &decoded, &[copy], &last, model)?;
        Ok(GameRead {
            pages,
            grids,
            decoded,
            report,
        })
    }

    /// A ruled table may carry its column headings (`№ | Белые | Чёрные`) in a first
    /// row as tall as the move rows, and on a blurred page the ruling found may reach
    /// up into the form's header (the underlined name fields), a few rows that hold no
    /// moves. Where the form prints move numbers, they decide (see [`numbers`]): rows
    /// above the one numbered 1 are dropped, and a sheet whose numbers start later is a
    /// continuation sheet, an error for now. Otherwise the decoder decides: the opening
    /// cells are decoded as they are and without the first 1 to [`MAX_HEADER_ROWS`]
    /// rows (up to the same cell), and the rows are dropped when the game explains the
    /// cells it keeps better without them, by [`HEADER_ROW_GAIN`] for each row dropped.
    /// Tables with numbers in an unruled strip (HCS) are left alone. A re-read that
    /// knows the earlier decision (`options.header_rows`, page `which`) keeps it.
    ///
    /// Returns the opening cells' scores, by cell box, for the sheet's reading to reuse.
    fn skip_header_row(
        &self,
        page: &Page,
        grid: &mut Grid,
        model: &mut dyn CellModel,
        options: &SheetOptions,
        which: usize,
    ) -> Result<Vec<(CellBox, CellScores)>, SheetError> {
        let known = self.number_rows(page, grid, model, options, which)?;
        if grid.first_move != 1 {
            return Err(SheetError::Continuation {
                path: source_name(&page.source, page.index),
                first_move: grid.first_move,
            });
        }
        Ok(known)
    }

    /// Numbers the rows of `grid` as [`Pipeline::skip_header_row`] does, a sheet whose
    /// printed numbers start later included (`grid.first_move`, 51, 61 ...): what
    /// `scoresheet cells` cuts.
    ///
    /// # Errors
    /// When the model fails.
    pub fn number_rows(
        &self,
        page: &Page,
        grid: &mut Grid,
        model: &mut dyn CellModel,
        options: &SheetOptions,
        which: usize,
    ) -> Result<Vec<(CellBox, CellScores)>, SheetError> {
        const OPENING: usize = 16;
        if let Some(&Some(k)) = options.header_rows.get(which) {
            grid.drop_leading_rows(k);
            return Ok(Vec::new());
        }
        if self.params.variant != Variant::Das {
            let anchor =
                numbers::anchor(page, grid, model).map_err(|source| SheetError::Model {
                    path: source_name(&page.source, page.index),
                    source,
                })?;
            if let Some(a) = anchor {
                numbers::apply(&a, grid, page);
                return Ok(Vec::new());
            }
        }
        // A table that prints no number column at all (a blank one counts as one) may
        // still carry a heading row; one with numbers in an unruled strip (HCS) starts
        // with move 1.
        let no_numbers = grid.cells.iter().all(|c| c.number.is_none());
        if self.params.variant == Variant::Das
            || !(grid.ruled_numbers || no_numbers)
            || grid.rows_per_block < 10
        {
            return Ok(Vec::new());
        }
        let most = MAX_HEADER_ROWS.min(grid.rows_per_block - 10);
        let opening = (OPENING + 2 * most).min(grid.cells.len());
        let scores = self.score_cells(page, grid, opening, model, &[])?;
        let mut params = self.params.decode.clone();
        params.beam_width = params.beam_width.min(16);
        params.adapt = None;
        let mut decoder = Decoder::new(model.alphabet(), params.clone());
        // Every choice decodes the cells up to the same end, the rows it keeps: a row
        // of moves read well adds to the likelihood, a row of non-moves takes from
        // it, and a row of moves read badly takes a little.
        let end = (2 * most + OPENING).min(scores.len());
        let mut best = (0, f64::NEG_INFINITY);
        for k in 0..=most {
            if end < 2 * k + OPENING {
                break;
            }
            let decoded = decoder.decode(&scores[2 * k..end]);
            if k == 0 {
                // The notation the opening shows is kept for the other choices.
                decoder = Decoder::new(
                    model.alphabet(),
                    DecodeParams {
                        notation: Some(decoded.notation),
                        ..params.clone()
                    },
                );
            }
            let score = decoded.log_likelihood - HEADER_ROW_GAIN * k as f64;
            // Rows are dropped only for a table read as moves below them: where the
            // cells kept show no moves either (a hand the reader cannot follow, marks
            // that are no writing), every row dropped makes the rest cheaper and
            // nothing tells a heading from a move row.
            if k > 0 && !shows_moves(&decoded) {
                continue;
            }
            if score > best.1 {
                best = (k, score);
            }
        }
        let known = grid.cells[..opening]
            .iter()
            .map(|c| c.bbox)
            .zip(scores)
            .collect();
        grid.drop_leading_rows(best.0);
        Ok(known)
    }

    fn decoder(
        &self,
        model: &dyn CellModel,
        options: &SheetOptions,
        form: Option<Notation>,
    ) -> Decoder {
        let mut params = self.params.decode.clone();
        params.locked = options.locked.clone();
        params.form_notation = form;
        if params.calibration.is_none()
            && let Some(cal) = model.calibration()
        {
            params.review_below = cal.review_below;
            params.calibration = Some(cal.clone());
        }
        if let Some(p) = self.params.review_below {
            params.review_below = p;
        }
        Decoder::new(model.alphabet(), params)
    }

    /// The notation the printed headings of `grid`'s form suggest (see [`heading`]),
    /// when the notation is to be detected and the form's suggestion weighs.
    ///
    /// # Errors
    /// When the model fails.
    fn form_notation(
        &self,
        page: &Page,
        grid: &Grid,
        model: &mut dyn CellModel,
    ) -> Result<Option<Notation>, SheetError> {
        if self.params.decode.notation.is_some() || self.params.decode.form_prior <= 0.0 {
            return Ok(None);
        }
        heading::form_notation(page, grid, model, self.params.decode.read_floor).map_err(|source| {
            SheetError::Model {
                path: source_name(&page.source, page.index),
                source,
            }
        })
    }

    /// Model scores of the first `used` cells of a page; a cell whose box is in `known`
    /// (already read) takes those scores.
    fn score_cells(
        &self,
        page: &Page,
        grid: &Grid,
        used: usize,
        model: &mut dyn CellModel,
        known: &[(CellBox, CellScores)],
    ) -> Result<Vec<CellScores>, SheetError> {
        // Cells with almost no ink skip the model: they read as blank anyway
        // (30% of the cells sent on HCS pages).
        let cells = &grid.cells[..used];
        let mut out: Vec<Option<CellScores>> = cells
            .iter()
            .map(|c| {
                known
                    .iter()
                    .find(|(b, _)| *b == c.bbox)
                    .map(|(_, s)| s.clone())
            })
            .collect();
        let inked: Vec<usize> = (0..used)
            .filter(|&i| out[i].is_none() && cells[i].ink >= self.params.model_ink)
            .collect();
        let crops: Vec<GrayImage> = inked.iter().map(|&i| grid::crop(page, &cells[i])).collect();
        let read = model.read(&crops).map_err(|source| SheetError::Model {
            path: source_name(&page.source, page.index),
            source,
        })?;
        let steps = read
            .first()
            .or(known.first().map(|(_, s)| s))
            .map_or(BLANK_STEPS, |r| r.steps);
        for (i, r) in inked.into_iter().zip(read) {
            out[i] = Some(r);
        }
        Ok(out
            .into_iter()
            .map(|r| r.unwrap_or_else(|| CellScores::blank(steps, model.alphabet())))
            .collect())
    }

    /// Cell `cell` of `copy` read again cut out closer (`closeup`: small writing made to
    /// fill the reader's input), when its writing is small for the cell and the reader
    /// reads something there. Read once: the second look's shift by a row of the page is
    /// a large step in a close-up a dozen rows high. A speck still read as nothing is not
    /// given the benefit of the doubt a second time (two HCS pages read a smudge and a
    /// neighbour's descenders as `=` that way).
    ///
    /// # Errors
    /// When the model fails.
    fn closer_reading(
        &self,
        copy: &ReadCopy<'_>,
        cell: usize,
        model: &mut dyn CellModel,
    ) -> Result<Option<CellScores>, SheetError> {
        let Some((page, image)) = copy
            .crop(cell)
            .and_then(|(page, img)| closeup::closeup(&img).map(|c| (page, c)))
        else {
            return Ok(None);
        };
        let closer = model
            .read_once(std::slice::from_ref(&image))
            .map_err(|source| SheetError::Model {
                path: source_name(&page.source, page.index),
                source,
            })?;
        let alphabet = model.alphabet();
        Ok(closer
            .into_iter()
            .next()
            .filter(|s| !alphabet.greedy(s).is_empty()))
    }

    /// The decoded game's last move's cell when it reads better as a result (or a resign
    /// word) than as that move ([`result::result_in_last_move`]: the decoder, which only
    /// knows moves, may have made one of a `1-0`), or, where the cell hardly reads as
    /// that move (the reader's own share of its spellings below [`LAST_MOVE_DOUBT`], or
    /// a move the decoder put there that the cell does not show), when its writing,
    /// small for the cell, reads as a result looked at closer
    /// ([`Self::closer_reading`]: a small `1-0` the reader takes for `-O`). With both
    /// players' copies (`copies`, read as one game), each copy must show the same result,
    /// and the share is that of their summed evidence, as the move's is. Returns the
    /// cell, to end the game before it, and per copy the closer reading where that was
    /// the one to read its result from.
    ///
    /// # Errors
    /// When the model fails.
    fn result_in_last_move(
        &self,
        decoded: &DecodedSheet,
        copies: &[ReadCopy<'_>],
        model: &mut dyn CellModel,
    ) -> Result<Option<ResultInLastMove>, SheetError> {
        let floor = self.params.decode.read_floor;
        let plain: Vec<&[CellScores]> = copies.iter().map(|c| c.scores).collect();
        if let Some(cell) = result::result_in_last_move(decoded, &plain, model.alphabet(), floor) {
            return Ok(Some((cell, vec![None; copies.len()])));
        }
        // A move the cell does not show at all (`Replaced`: the reader gives its
        // spellings no share) is as doubtful as a move can be.
        let Some((cell, p)) = result::last_move_entry(decoded).and_then(|e| match e.kind {
            EntryKind::Replaced => e.cell.zip(Some(0.0)),
            _ => e.cell.zip(e.cell_p),
        }) else {
            return Ok(None);
        };
        if p >= LAST_MOVE_DOUBT {
            return Ok(None);
        }
        // Each copy's cell cut out closer (as read where it cannot be).
        let mut closer = Vec::with_capacity(copies.len());
        for copy in copies {
            closer.push(match copy.scores.get(cell) {
                Some(_) => self.closer_reading(copy, cell, model)?,
                None => None,
            });
        }
        if closer.iter().all(Option::is_none) {
            return Ok(None);
        }
        let cells: Vec<&CellScores> = copies
            .iter()
            .zip(&closer)
            .filter_map(|(copy, c)| c.as_ref().or_else(|| copy.scores.get(cell)))
            .collect();
        Ok(result::copies_show_result(&cells, model.alphabet(), floor).then_some((cell, closer)))
    }

    /// Without a mate, the result written after the last move (on either copy) or marked
    /// on the printed options below a table of `forms` (see [`result_box`]) is the
    /// sheet's; otherwise `result_note` says why the result stays `*`. Copies or places
    /// that give different results leave `*` and name them.
    ///
    /// # Errors
    /// When the model fails reading the printed options.
    fn add_written_result(
        &self,
        report: &mut SheetReport,
        decoded: &DecodedSheet,
        copies: &[ReadCopy<'_>],
        forms: &[(&Page, &Grid)],
        model: &mut dyn CellModel,
    ) -> Result<(), SheetError> {
        if report.result_from == "mate" {
            return Ok(());
        }
        let floor = self.params.decode.read_floor;
        let mut marked = Vec::new();
        if self.params.variant != Variant::Das {
            for (page, grid) in forms {
                let m = result_box::marked_result(&page.image, grid, model, floor).map_err(
                    |source| SheetError::Model {
                        path: source_name(&page.source, page.index),
                        source,
                    },
                )?;
                marked.extend(m);
            }
        }
        let mut found: Vec<result::WrittenResult> = Vec::new();
        for copy in copies {
            let Some(cell) = result::inked_after_game(
                decoded,
                copy.grid,
                copy.scores.len(),
                self.params.blank_ink,
            ) else {
                continue;
            };
            let alphabet = model.alphabet();
            let scores = &copy.scores[cell];
            if let Some(r) = result::result_in_cell(decoded, cell, scores, alphabet, floor) {
                found.push(r);
                continue;
            }
            // Ink the reader reads as nothing: small writing (a lone `=`), looked at
            // closer.
            if !alphabet.greedy(scores).is_empty() {
                continue;
            }
            let closer = self.closer_reading(copy, cell, model)?;
            let alphabet = model.alphabet();
            if let Some(r) =
                closer.and_then(|s| result::result_in_cell(decoded, cell, &s, alphabet, floor))
            {
                found.push(r);
            }
        }
        let alphabet = model.alphabet();
        // Each result the sheet gives, and where.
        let said: Vec<(&str, Option<usize>, &str)> = found
            .iter()
            .map(|r| {
                let how = if r.resigned {
                    "written after the last move as a resignation"
                } else {
                    "after the last move"
                };
                (r.result.as_str(), Some(r.cell), how)
            })
            .chain(
                marked
                    .iter()
                    .map(|m| (m.result.as_str(), None, "marked on the form")),
            )
            .collect();
        match said.as_slice() {
            [] => {
                // Writing after the game that is neither a move nor a result: most often
                // a word (`resigns`, `Mate`); a reader without the resign words' letters
                // does not spell them.
                let words_read = result::reads_words(alphabet);
                let words = copies.iter().find_map(|ReadCopy { grid, scores, .. }| {
                    let cell = result::inked_after_game(
                        decoded,
                        grid,
                        scores.len(),
                        self.params.blank_ink,
                    )?;
                    let c = grid.cells.get(cell)?;
                    let side = if c.side == shakmaty::Color::White {
                        "White"
                    } else {
                        "Black"
                    };
                    let what = if words_read {
                        "neither a move, a result nor a resign word"
                    } else {
                        "neither a move nor a result (a word such as `resigns`? this reader does \
                         not spell words)"
                    };
                    Some(format!(
                        "; the cell after the last move ({}. {side}) holds writing that reads as \
                         {what}: see the cell",
                        c.move_number
                    ))
                });
                report.result_note = Some(format!(
                    "no mate, no result (1-0, 0-1, 1:0, 0:1, =, ½-½) read after the last move, \
                     and none of the form's printed results marked{}",
                    words.unwrap_or_default()
                ))
            }
            [first, rest @ ..] if rest.iter().all(|r| r.0 == first.0) => {
                report.result = first.0.to_string();
                report.result_from = "sheet".into();
                report.result_cell = said.iter().find_map(|r| r.1);
                // A result written after the last move ends the game: it is complete
                // when nothing but the result is written after its last move.
                if let Some(cell) = report.result_cell
                    && copies.iter().all(|ReadCopy { grid, scores, .. }| {
                        result::alone_after_game(
                            decoded,
                            grid,
                            scores.len(),
                            cell,
                            self.params.blank_ink,
                        )
                    })
                {
                    report.status = "complete".into();
                }
                if report.result_cell.is_none() {
                    report.result_note =
                        Some("marked on the form's printed results (1-0, ½-½, 0-1)".into());
                }
            }
            _ => {
                let all: Vec<String> = said.iter().map(|r| format!("{} {}", r.0, r.2)).collect();
                report.result_note = Some(format!(
                    "the sheet gives different results: {}",
                    all.join(" and ")
                ));
            }
        }
        Ok(())
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
