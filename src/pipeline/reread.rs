//! A report + its checked corrections -> the report re-read: the sheet's pages loaded
//! again, every corrected cell locked, the rest of the game decoded around them, the
//! earlier report's source, corrections and game kept.

use super::params::{SheetError, SheetOptions};
use super::read::Pipeline;
use super::sources::reload_game;
use crate::corrections::{CorrectionError, Merged, Request, locks, merge_in_order};
use crate::model::CellModel;
use crate::page::PageError;
use crate::report::{Correction, SheetReport};

/// Why a report could not be re-read.
#[derive(Debug, thiserror::Error)]
pub enum RereadError {
    #[error("cannot re-read the sheet: {0}")]
    Pages(#[from] PageError),
    #[error("cannot re-read the sheet: {0}")]
    Sheet(#[from] SheetError),
    #[error("the corrections cannot all hold in one legal game (cells {0:?}); nothing changed")]
    Conflicts(Vec<usize>),
}

/// Why a set of corrections could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum CorrectError {
    #[error(transparent)]
    Check(#[from] CorrectionError),
    #[error(transparent)]
    Reread(#[from] RereadError),
    /// The decoder found no legal game with every correction locked: the first
    /// correction it could not keep (`13... O-O`).
    #[error("{0}: no legal game holds this correction with the ones before it; nothing changed")]
    Holds(String),
}

/// A re-read report, and how many cells now hold another move than before.
pub struct Reread {
    pub report: SheetReport,
    pub changed: usize,
}

impl Pipeline {
    /// Re-reads the sheet(s) of `report` with `corrections` locked (see
    /// [`crate::corrections::merge`]), keeping the heading rows the report's pages
    /// dropped, so that each correction stays on the cell the human saw.
    ///
    /// # Errors
    /// The pages cannot be loaded or read again, or no legal game holds every
    /// correction.
    pub fn reread(
        &self,
        report: &SheetReport,
        corrections: Vec<Correction>,
        model: &mut dyn CellModel,
    ) -> Result<Reread, RereadError> {
        let copies = reload_game(report, &self.params().page)?;
        let options = SheetOptions {
            locked: locks(&corrections),
            header_rows: report.header_rows(),
            ..Default::default()
        };
        let game = self.read_game(copies, model, &options)?;
        let (decoded, mut new) = (game.decoded, game.report);
        if !decoded.lock_conflicts.is_empty() {
            return Err(RereadError::Conflicts(decoded.lock_conflicts));
        }
        let old_sans: Vec<Option<String>> = report.moves.iter().map(|m| m.san.clone()).collect();
        new.source = report.source.clone();
        new.joined = report.joined.clone();
        new.corrections = corrections;
        if let Some(game) = report.game.clone() {
            new.set_game(game);
        }
        new.header_corrections = report.header_corrections.clone();
        new.apply_header_corrections();
        let changed = new
            .moves
            .iter()
            .zip(old_sans.iter().chain(std::iter::repeat(&None)))
            .filter(|(m, old)| m.san != **old)
            .count();
        Ok(Reread {
            report: new,
            changed,
        })
    }
}

impl Pipeline {
    /// Applies a human's move corrections to `report`: checked in the order of the
    /// game, each against the game with the earlier ones applied (re-read where the
    /// earlier ones change what follows; see [`merge_in_order`]), then the sheet
    /// re-read with all of them (and the report's earlier ones) locked. `changed`
    /// counts the cells that now hold another move than in `report`.
    ///
    /// # Errors
    /// The first correction that does not hold in the game the earlier ones make
    /// (nothing changes then), or the sheet cannot be re-read.
    pub fn correct(
        &self,
        report: &SheetReport,
        requests: &[Request],
        model: &mut dyn CellModel,
    ) -> Result<Reread, CorrectError> {
        let mut order = requests.to_vec();
        order.sort_by_key(|r| crate::decode::cell_index(r.move_number, r.side));
        let mut base: Option<SheetReport> = None;
        let mut rest: &[Request] = &order;
        loop {
            let game = base.as_ref().unwrap_or(report);
            let (corrections, taken) = match merge_in_order(game, rest)? {
                Merged::All(c) => (c, rest.len()),
                Merged::Reread { corrections, taken } => (corrections, taken),
            };
            let done = taken == rest.len();
            let named = |cells: &[usize]| {
                let first = cells.iter().min().copied().unwrap_or(0);
                corrections
                    .iter()
                    .find(|c| {
                        crate::decode::cell_index(
                            c.move_number,
                            crate::corrections::side_of(&c.side),
                        ) == first
                    })
                    .map(|c| {
                        let dots = if c.side == "white" { "." } else { "..." };
                        format!("{}{dots} {}", c.move_number, c.san)
                    })
                    .unwrap_or_else(|| format!("cell {first}"))
            };
            let reread = match self.reread(game, corrections.clone(), model) {
                Err(RereadError::Conflicts(cells)) => {
                    return Err(CorrectError::Holds(named(&cells)));
                }
                r => r?,
            };
            if done {
                let changed = reread
                    .report
                    .moves
                    .iter()
                    .zip(
                        report
                            .moves
                            .iter()
                            .map(|m| &m.san)
                            .chain(std::iter::repeat(&None)),
                    )
                    .filter(|(m, old)| m.san != **old)
                    .count();
                return Ok(Reread {
                    report: reread.report,
                    changed,
                });
            }
            rest = &rest[taken..];
            base = Some(reread.report);
        }
    }
}
