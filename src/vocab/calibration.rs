//! Decoder confidence -> the probability that a move is right: a logistic map over
//! seven features of a decoded entry and its sheet, fitted with the reader it ships
//! with (`python -m training.calibrate`, on the HCS selection games' pages and on
//! synthetic sheets in the selection hands) and stored in the model manifest.
//!
//! The decoder's own confidence is the share of the beam that agrees on a move. It
//! says nothing of how well the cell shows that move: a beam that lost its
//! alternatives is sure of a move the reader never saw, and a cell read exactly as
//! written is right more often than its share says. The map weighs both.

use serde::{Deserialize, Serialize};

/// Added inside the logarithms so that confidences of exactly 0 or 1 stay finite.
pub const EPS: f32 = 1e-3;

/// Weights of the logistic map (see [`Calibration::apply`]) and the review threshold
/// chosen with them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Weight of `ln(confidence + EPS)`.
    pub log_confidence: f32,
    /// Weight of `ln(1 - confidence + EPS)`.
    pub log_doubt: f32,
    /// Weight of "a written form of the move explains the cell" (0 or 1).
    pub written: f32,
    /// Weight of "that written form is also the reader's own unconstrained reading"
    /// (0 or 1; decorations ignored, as `eval` compares).
    pub written_is_read: f32,
    /// Weight of the mean of `ln(1 - confidence + EPS)` over the sheet's cells (locked
    /// ones aside): how sure the decoder is of the sheet as a whole. A clean sheet's
    /// unsure move is likelier right than a messy sheet's.
    pub sheet_log_doubt: f32,
    /// Weight of `ln(cell_p + EPS)`, `cell_p` the reader's own probability that the
    /// cell says the move (the decoded entry's `cell_p`; 0 without a move). A
    /// manifest without it gives it no weight.
    #[serde(default)]
    pub cell_log_p: f32,
    /// Weight of `ln(1 - cell_p + EPS)`: how sure the reader alone is of the move.
    #[serde(default)]
    pub cell_log_doubt: f32,
    pub bias: f32,
    /// A move whose calibrated confidence is below this is flagged for review
    /// (chosen on the same data: the highest that flags no more than a tenth of it).
    pub review_below: f32,
}

impl Calibration {
    /// The calibrated confidence of an entry with decoder confidence `confidence`,
    /// whose move a written form explains (`shown`), that form being the cell's own
    /// reading (`same`: equal once decorations and castling zeros are set aside),
    /// which the reader alone gives probability `cell_p` (`None`: no move read from a
    /// cell), on a sheet whose mean `ln(1 - confidence + EPS)` is `sheet_doubt`.
    pub fn apply(
        &self,
        confidence: f32,
        shown: bool,
        same: bool,
        cell_p: Option<f32>,
        sheet_doubt: f32,
    ) -> f32 {
        let c = confidence.clamp(0.0, 1.0);
        let p = cell_p.unwrap_or(0.0).clamp(0.0, 1.0);
        let z = self.bias
            + self.cell_log_p * (p + EPS).ln()
            + self.cell_log_doubt * log_doubt(p)
            + self.log_confidence * (c + EPS).ln()
            + self.log_doubt * log_doubt(c)
            + self.written * f32::from(u8::from(shown))
            + self.written_is_read * f32::from(u8::from(shown && same))
            + self.sheet_log_doubt * sheet_doubt;
        1.0 / (1.0 + (-z).exp())
    }

    /// Why these weights cannot be used, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        let all = [
            self.log_confidence,
            self.log_doubt,
            self.written,
            self.written_is_read,
            self.sheet_log_doubt,
            self.cell_log_p,
            self.cell_log_doubt,
            self.bias,
        ];
        if all.iter().any(|w| !w.is_finite()) {
            return Err("calibration weights must be finite".into());
        }
        if !(0.0..=1.0).contains(&self.review_below) {
            return Err("calibration review_below must be in [0, 1]".into());
        }
        Ok(())
    }
}

#[cfg(test)]
impl Calibration {
    /// Weights like the shipped model's, for tests.
    pub(crate) fn sample() -> Calibration {
        Calibration {
            log_confidence: 0.1,
            log_doubt: -0.2,
            written: -0.3,
            written_is_read: 1.7,
            sheet_log_doubt: -0.66,
            cell_log_p: 0.0,
            cell_log_doubt: 0.0,
            bias: -1.3,
            review_below: 0.89,
        }
    }
}

/// `ln(1 - c + EPS)`: how far a confidence is from certainty.
pub fn log_doubt(confidence: f32) -> f32 {
    (1.0 - confidence.clamp(0.0, 1.0) + EPS).ln()
}

/// Whether written form `written` is what the cell reads (`read`, glyphs or letters),
/// decorations and castling zeros aside.
pub fn same_reading(written: &str, read: &str) -> bool {
    super::normalise(written) == super::normalise(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_read_as_written_is_trusted_more_than_its_share_says() {
        let c = Calibration::sample();
        let clean_sheet = log_doubt(0.99);
        let read_as_written = c.apply(1.0, true, true, None, clean_sheet);
        let other_reading = c.apply(1.0, true, false, None, clean_sheet);
        let not_shown = c.apply(1.0, false, false, None, clean_sheet);
        assert!(read_as_written > 0.95, "{read_as_written}");
        assert!(other_reading < read_as_written && not_shown < read_as_written);
        // A form that is not shown cannot be the reading.
        assert_eq!(
            c.apply(0.7, false, true, None, clean_sheet),
            c.apply(0.7, false, false, None, clean_sheet)
        );
        // The same doubt counts for less on a clean sheet than on a messy one.
        assert!(
            c.apply(0.6, true, true, None, clean_sheet)
                > c.apply(0.6, true, true, None, log_doubt(0.5))
        );
        // Monotone in the decoder's confidence, and a probability at the ends.
        let mut last = 0.0;
        for k in 0..=10 {
            let p = c.apply(k as f32 / 10.0, true, true, None, clean_sheet);
            assert!(p > last && p < 1.0, "{k}: {p}");
            last = p;
        }
        assert!(c.apply(0.0, false, false, None, 0.0).is_finite());
    }

    #[test]
    fn a_cell_the_reader_alone_doubts_lowers_the_confidence() {
        let c = Calibration {
            cell_log_p: 0.3,
            cell_log_doubt: -0.2,
            ..Calibration::sample()
        };
        let sheet = log_doubt(0.99);
        let sure = c.apply(0.9, true, true, Some(1.0), sheet);
        let doubted = c.apply(0.9, true, true, Some(0.1), sheet);
        assert!(doubted < sure, "{doubted} vs {sure}");
        // No move read from a cell counts as a probability of 0; the old weights
        // (no `cell_log_p`) ignore it.
        assert!(c.apply(0.9, true, true, None, sheet) < doubted);
        let old = Calibration::sample();
        assert_eq!(
            old.apply(0.9, true, true, Some(0.1), sheet),
            old.apply(0.9, true, true, Some(1.0), sheet)
        );
    }

    #[test]
    fn readings_compare_without_decorations() {
        assert!(same_reading("Bxf7+", "Bf7"));
        assert!(same_reading("0-0", "O-O"));
        assert!(same_reading("Кf3", "Kf3"));
        assert!(!same_reading("Nf3", "Nf5"));
    }

    #[test]
    fn bad_weights_are_refused() {
        assert!(Calibration::sample().check().is_ok());
        let mut c = Calibration::sample();
        c.bias = f32::NAN;
        assert!(c.check().is_err());
        let mut c = Calibration::sample();
        c.review_below = 1.5;
        assert!(c.check().is_err());
    }
}
