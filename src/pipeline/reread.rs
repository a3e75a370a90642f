//! A report + its checked corrections -> the report re-read: the sheet's pages loaded
//! again, every corrected cell locked, the rest of the game decoded around them, the
//! earlier report's source, corrections and game kept.

use super::params::{SheetError, SheetOptions};
use super::read::Pipeline;
use super::sources::reload_game;
use crate::corrections::locks;
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
