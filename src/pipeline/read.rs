//! A game's pages -> the game read: the one read flow, for a game of one or two copies
//! (White's and Black's sheets), each of one or more sheets, in every variant. Grid,
//! rows numbered, cells scored, decoded (chess) or read cell by cell (Das), the game's
//! end looked for, the report built.

use std::path::Path;

use crate::decode::{DasDecoder, Decoder};
use crate::form::{heading, rows};
use crate::grid::{self, CellBox, Grid};
use crate::model::{CellModel, CellScores, ModelError};
use crate::notation::{Notation, Variant};
use crate::page::{self, Page};

use super::build::{
    add_copies, add_das_copies, add_sheets, build_das_report, build_report, no_game,
};
use super::ending::{add_written_result, result_in_last_move};
use super::fields::{read_fields, sheet_header};
use super::game::{CopyRead, GameRead};
use super::params::{PipelineParams, SheetError, SheetOptions};
use super::sources::source_name;

/// The whole reading pipeline with fixed settings.
pub struct Pipeline {
    params: PipelineParams,
}

/// A model failure on `page`, as the sheet's error.
fn model_error(page: &Page) -> impl FnOnce(ModelError) -> SheetError + '_ {
    move |source| SheetError::Model {
        path: source_name(&page.source, page.index),
        source,
    }
}

impl Pipeline {
    pub fn new(params: PipelineParams) -> Self {
        Pipeline { params }
    }

    pub fn params(&self) -> &PipelineParams {
        &self.params
    }

    /// Reads every page of an image file, each as a game of its own: one result per
    /// page, or one error for the whole file when it cannot be decoded.
    pub fn read_file(
        &self,
        path: &Path,
        model: &mut dyn CellModel,
        options: &SheetOptions,
    ) -> Vec<Result<GameRead, SheetError>> {
        match page::load_pages(path, &self.params.page) {
            Ok(pages) => pages
                .into_iter()
                .map(|p| self.read_page(p, model, options))
                .collect(),
            Err(e) => vec![Err(e.into())],
        }
    }

    /// Reads one page as a game of one copy of one sheet.
    ///
    /// # Errors
    /// As [`Pipeline::read_game`].
    pub fn read_page(
        &self,
        page: Page,
        model: &mut dyn CellModel,
        options: &SheetOptions,
    ) -> Result<GameRead, SheetError> {
        self.read_game(vec![vec![page]], model, options)
    }

    /// Reads one game from its copies, each a list of its sheets in order: one copy of
    /// one sheet, both players' copies (each ply's evidence is the sum of its copies'
    /// cells; cells where the copies show different legal moves are flagged
    /// `disagree`), a game written over several sheets (a 50-move form holds 100 plies;
    /// a longer game goes on on a sheet printed from 51, 61 ..., whose rows are numbered
    /// by its print or on from the sheet before it), or both copies of such a game. The
    /// cells of each copy's sheets are read as one table; each move keeps the sheet its
    /// cell is on.
    ///
    /// # Errors
    /// No move table on a page, the model failed, a copy's first sheet printed from a
    /// later move than 1 ([`SheetError::Continuation`]), a later sheet that does not
    /// start where the one before it ends ([`SheetError::SheetOrder`]), a Das game over
    /// several sheets, no sheet at all.
    pub fn read_game(
        &self,
        copies: Vec<Vec<Page>>,
        model: &mut dyn CellModel,
        options: &SheetOptions,
    ) -> Result<GameRead, SheetError> {
        let copies: Vec<Vec<Page>> = copies.into_iter().filter(|c| !c.is_empty()).collect();
        if copies.is_empty() {
            return Err(SheetError::NoSheets);
        }
        if self.params.variant == Variant::Das
            && let Some(sheets) = copies.iter().find(|c| c.len() > 1)
        {
            return Err(SheetError::DasSheets {
                path: source_name(&sheets[0].source, sheets[0].index),
            });
        }
        let mut read = Vec::with_capacity(copies.len());
        let mut page_at = 0;
        for pages in copies {
            let (grids, known) = self.number_sheets(&pages, model, options, page_at)?;
            page_at += pages.len();
            read.push((pages, grids, known));
        }
        // Every copy reads as many cells as the copy with the most to read.
        let mut copies = Vec::with_capacity(read.len());
        let tables: Vec<Grid> = read.iter().map(|(_, g, _)| CopyRead::joined(g)).collect();
        let used = tables
            .iter()
            .map(|t| self.cells_to_read(t, options))
            .max()
            .unwrap_or(0);
        for ((pages, grids, known), table) in read.into_iter().zip(tables) {
            let scores = self.score_sheets(&pages, &grids, &known, used, model)?;
            copies.push(CopyRead {
                pages,
                grids,
                table,
                scores,
            });
        }
        if self.params.variant == Variant::Das {
            return Ok(self.read_das(copies, model, options));
        }
        self.read_chess(copies, model, options)
    }

    /// Numbers the rows of one copy's sheets (see [`rows`]); `page_at` is the index of
    /// the copy's first sheet among the game's pages (for `options.header_rows`).
    /// Returns each sheet's grid and the cells already read doing so.
    #[allow(clippy::type_complexity)]
    fn number_sheets(
        &self,
        pages: &[Page],
        model: &mut dyn CellModel,
        options: &SheetOptions,
        page_at: usize,
    ) -> Result<(Vec<Grid>, Vec<Vec<(CellBox, CellScores)>>), SheetError> {
        let how = rows::RowParams {
            decode: &self.params.decode,
            variant: self.params.variant,
            model_ink: self.params.model_ink,
        };
        let mut grids: Vec<Grid> = Vec::with_capacity(pages.len());
        let mut known = Vec::with_capacity(pages.len());
        for (i, page) in pages.iter().enumerate() {
            let mut grid = grid::find_grid(page, &self.params.grid)?;
            let kept = options.header_rows.get(page_at + i).copied().flatten();
            let Some(prev) = grids.last() else {
                known.push(
                    rows::number_first_sheet(page, &mut grid, model, &how, kept)
                        .map_err(model_error(page))?,
                );
                if grid.first_move != 1 {
                    // Its names in Cyrillic where the form's headings (or the notation
                    // asked for) are Russian, as on the first sheet.
                    let ru = Some(Notation::Ru);
                    let cyrillic = self.params.decode.reading.notation == ru
                        || self.form_notation(page, &grid, model).ok().flatten() == ru;
                    let header = sheet_header(&self.params, page, &grid, model, options, cyrillic);
                    return Err(SheetError::Continuation {
                        path: source_name(&page.source, page.index),
                        first_move: grid.first_move,
                        header: Box::new(header),
                    });
                }
                grids.push(grid);
                continue;
            };
            let next = prev.first_move + (prev.cells.len() / 2) as u32;
            rows::number_later_sheet(page, &mut grid, model, kept, next)
                .map_err(model_error(page))?
                .map_err(|first_move| SheetError::SheetOrder {
                    path: source_name(&page.source, page.index),
                    sheet: i + 1,
                    first_move,
                    previous_end: next - 1,
                })?;
            known.push(Vec::new());
            grids.push(grid);
        }
        Ok((grids, known))
    }

    /// The model's scores of the first `used` cells of a copy's table, sheet by sheet.
    fn score_sheets(
        &self,
        pages: &[Page],
        grids: &[Grid],
        known: &[Vec<(CellBox, CellScores)>],
        used: usize,
        model: &mut dyn CellModel,
    ) -> Result<Vec<CellScores>, SheetError> {
        let mut scores = Vec::with_capacity(used);
        let mut offset = 0;
        for ((page, grid), known) in pages.iter().zip(grids).zip(known) {
            let n = used.saturating_sub(offset).min(grid.cells.len());
            if n > 0 {
                let ink = self.params.model_ink;
                scores.extend(
                    crate::form::scores::score_cells(page, grid, n, model, known, ink)
                        .map_err(model_error(page))?,
                );
            }
            offset += grid.cells.len();
        }
        Ok(scores)
    }

    /// A Das game: each cell read against the Das notation, its copies' evidence summed.
    fn read_das(
        &self,
        copies: Vec<CopyRead>,
        model: &mut dyn CellModel,
        options: &SheetOptions,
    ) -> GameRead {
        let cells: Vec<&[CellScores]> = copies.iter().map(|c| c.scores.as_slice()).collect();
        let das = DasDecoder::new(model.alphabet(), self.params.das.clone())
            .read_copies(&cells, &options.locked);
        let decoded = no_game(das.cells_used);
        let first = &copies[0];
        let mut report = build_das_report(&first.pages[0], &first.table, &decoded, &das);
        if copies.len() > 1 {
            add_das_copies(&mut report, &copies, &das, model.alphabet());
        }
        GameRead {
            copies,
            decoded,
            das: Some(das),
            report,
        }
    }

    /// A chess game: decoded as a legal game from every copy's cells, its end looked
    /// for (a result in the last move's cell ends the game before it), the report built.
    fn read_chess(
        &self,
        mut copies: Vec<CopyRead>,
        model: &mut dyn CellModel,
        options: &SheetOptions,
    ) -> Result<GameRead, SheetError> {
        // The copies are usually the same form; where their headings name different
        // notations, none is taken. A continuation sheet is the same form as the first.
        let mut forms = Vec::with_capacity(copies.len());
        for c in &copies {
            forms.extend(self.form_notation(&c.pages[0], &c.grids[0], model)?);
        }
        let form = match forms.split_first() {
            Some((x, rest)) if rest.iter().all(|y| y == x) => Some(*x),
            _ => None,
        };
        let decoder = self.decoder(model, options, form);
        let end = copies.iter().map(|c| c.scores.len()).max().unwrap_or(0);
        let mut decoded = decoder.decode_copies(&cells_of(&copies, end));
        if let Some((cell, closer)) = result_in_last_move(&self.params, &decoded, &copies, model)? {
            for (copy, closer) in copies.iter_mut().zip(closer) {
                if let Some(closer) = closer {
                    copy.scores[cell] = closer;
                }
            }
            decoded = decoder.decode_copies(&cells_of(&copies, cell));
        }
        let first = &copies[0];
        let mut report = build_report(&first.pages[0], &first.table, &decoded);
        if first.pages.len() > 1 {
            add_sheets(&mut report, &first.pages, &first.grids);
        }
        report.page.form_notation = form.map(|n| n.code().to_string());
        if copies.len() > 1 {
            add_copies(&mut report, &copies, &decoded, model.alphabet());
        }
        add_written_result(&self.params, &mut report, &decoded, &copies, model)?;
        let cyrillic = form == Some(Notation::Ru) || decoded.notation == Notation::Ru;
        let plies = decoded.moves.len();
        report.fields = read_fields(&self.params, &copies, model, options, plies, cyrillic)?;
        report.apply_fields();
        Ok(GameRead {
            copies,
            decoded,
            das: None,
            report,
        })
    }

    fn decoder(
        &self,
        model: &dyn CellModel,
        options: &SheetOptions,
        form: Option<Notation>,
    ) -> Decoder {
        let mut params = self.params.decode.clone();
        params.locked = options.locked.clone();
        params.reading.form_notation = form;
        if params.review.calibration.is_none()
            && let Some(cal) = model.calibration()
        {
            params.review.review_below = cal.review_below;
            params.review.calibration = Some(cal.clone());
        }
        if let Some(p) = self.params.review_below {
            params.review.review_below = p;
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
        let reading = &self.params.decode.reading;
        if reading.notation.is_some() || reading.form_prior <= 0.0 {
            return Ok(None);
        }
        heading::form_notation(page, grid, model, reading.read_floor).map_err(model_error(page))
    }

    /// Number of leading cells of a table worth reading: up to the last inked (or
    /// locked) cell, plus a few blank ones so the decoder sees where the game ends.
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

/// The first `end` cells of the game, each with the scores of every copy that holds it.
fn cells_of(copies: &[CopyRead], end: usize) -> Vec<Vec<CellScores>> {
    (0..end)
        .map(|i| {
            copies
                .iter()
                .filter_map(|c| c.scores.get(i).cloned())
                .collect()
        })
        .collect()
}
