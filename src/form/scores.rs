//! A page's grid cells -> the model's scores for them: cells with almost no ink skip
//! the model and score as blank, cells already read keep their scores.

use image::GrayImage;

use crate::grid::{self, CellBox, Grid};
use crate::model::{CellModel, CellScores, ModelError};
use crate::page::Page;

/// Time steps of the scores given to a cell that skips the model when no cell of
/// the sheet went through it (any length reads as blank).
const BLANK_STEPS: usize = 8;

/// Model scores of the first `used` cells of `grid`; a cell whose box is in `known`
/// (already read) takes those scores, and a cell with less ink than `model_ink` scores
/// as blank without going through the model.
///
/// # Errors
/// When the model fails.
pub fn score_cells(
    page: &Page,
    grid: &Grid,
    used: usize,
    model: &mut dyn CellModel,
    known: &[(CellBox, CellScores)],
    model_ink: f32,
) -> Result<Vec<CellScores>, ModelError> {
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
        .filter(|&i| out[i].is_none() && cells[i].ink >= model_ink)
        .collect();
    let crops: Vec<GrayImage> = inked.iter().map(|&i| grid::crop(page, &cells[i])).collect();
    let read = model.read(&crops)?;
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
