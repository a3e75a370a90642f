//! A page's grid -> its rows numbered with the game's moves: the one place the table's
//! rows are numbered. A first sheet's heading rows are dropped (by its printed numbers
//! or, without them, by the decoder), a continuation sheet is numbered from its printed
//! numbers or on from the sheet before it.

use super::numbers;
use super::scores::score_cells;
use crate::decode::{DecodeParams, DecodedSheet, Decoder, EntryKind};
use crate::grid::{CellBox, Grid};
use crate::model::{CellModel, CellScores, ModelError};
use crate::notation::Variant;
use crate::page::Page;

/// The most leading rows a ruled table may have that hold no moves (a heading row, or
/// rows of the form's header that a blurred page's ruling reached into).
const MAX_HEADER_ROWS: usize = 6;

/// What a leading row must cost the opening's decode (nats) to be dropped as holding
/// no moves: on generated sheets such rows cost 10 or more a row, and a hard hand's
/// real moves up to 5.
const HEADER_ROW_GAIN: f64 = 6.0;

/// Cells of the opening decoded to decide the heading rows, beyond the rows dropped.
const OPENING: usize = 16;

/// How rows are numbered: the decoder's settings (for the heading rows' decode), what
/// the sheet records, and the ink below which a cell skips the model.
pub struct RowParams<'a> {
    pub decode: &'a DecodeParams,
    pub variant: Variant,
    pub model_ink: f32,
}

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

/// Numbers the rows of a game's first sheet (or a sheet read on its own). A ruled table
/// may carry its column headings (`№ | Белые | Чёрные`) in a first row as tall as the
/// move rows, and on a blurred page the ruling found may reach up into the form's header
/// (the underlined name fields), a few rows that hold no moves. Where the form prints
/// move numbers, they decide (see [`numbers`]): rows above the one numbered 1 are
/// dropped, and a sheet whose numbers start later keeps them (`grid.first_move`, 51,
/// 61 ...). Otherwise the decoder decides: the opening cells are decoded as they are and
/// without the first 1 to [`MAX_HEADER_ROWS`] rows (up to the same cell), and the rows
/// are dropped when the game explains the cells it keeps better without them, by
/// [`HEADER_ROW_GAIN`] for each row dropped. Tables with numbers in an unruled strip
/// (HCS) are left alone. `kept`: the heading rows an earlier read dropped, kept so that
/// a re-read's cells are the cells a human saw.
///
/// Returns the opening cells' scores, by cell box, for the sheet's reading to reuse.
///
/// # Errors
/// When the model fails.
pub fn number_first_sheet(
    page: &Page,
    grid: &mut Grid,
    model: &mut dyn CellModel,
    how: &RowParams<'_>,
    kept: Option<usize>,
) -> Result<Vec<(CellBox, CellScores)>, ModelError> {
    if let Some(k) = kept {
        grid.drop_leading_rows(k);
        return Ok(Vec::new());
    }
    if how.variant != Variant::Das
        && let Some(a) = numbers::anchor(page, grid, model)?
    {
        numbers::apply(&a, grid, page);
        return Ok(Vec::new());
    }
    // A table that prints no number column at all (a blank one counts as one) may
    // still carry a heading row; one with numbers in an unruled strip (HCS) starts
    // with move 1.
    let no_numbers = grid.cells.iter().all(|c| c.number.is_none());
    if how.variant == Variant::Das
        || !(grid.ruled_numbers || no_numbers)
        || grid.rows_per_block < 10
    {
        return Ok(Vec::new());
    }
    let most = MAX_HEADER_ROWS.min(grid.rows_per_block - 10);
    let opening = (OPENING + 2 * most).min(grid.cells.len());
    let scores = score_cells(page, grid, opening, model, &[], how.model_ink)?;
    let best = heading_rows(&scores, most, model, how.decode);
    let known = grid.cells[..opening]
        .iter()
        .map(|c| c.bbox)
        .zip(scores)
        .collect();
    grid.drop_leading_rows(best);
    Ok(known)
}

/// How many of the first `most` rows hold no moves, by the opening's decode (see
/// [`number_first_sheet`]).
fn heading_rows(
    scores: &[CellScores],
    most: usize,
    model: &dyn CellModel,
    decode: &DecodeParams,
) -> usize {
    let mut params = decode.clone();
    params.search.beam_width = params.search.beam_width.min(16);
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
            let mut found = params.clone();
            found.reading.notation = Some(decoded.notation);
            decoder = Decoder::new(model.alphabet(), found);
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
    best.0
}

/// Numbers a later sheet of a game whose sheet before it ends before move `next`: by
/// its printed numbers, or on from `next` where it prints none. `kept`: the heading
/// rows an earlier read dropped.
///
/// Returns `Err(first_move)` when the sheet's printed numbers start elsewhere.
///
/// # Errors
/// When the model fails.
pub fn number_later_sheet(
    page: &Page,
    grid: &mut Grid,
    model: &mut dyn CellModel,
    kept: Option<usize>,
    next: u32,
) -> Result<Result<(), u32>, ModelError> {
    if let Some(k) = kept {
        grid.renumber(k, next);
        return Ok(Ok(()));
    }
    match numbers::anchor(page, grid, model)? {
        Some(a) if a.first_move != next => return Ok(Err(a.first_move)),
        Some(a) => numbers::apply(&a, grid, page),
        None => grid.renumber(0, next),
    }
    Ok(Ok(()))
}
