//! Cell images -> per-cell CTC log-probabilities: the [`CellModel`] trait, the model
//! manifest, and the ONNX Runtime implementation. Its output ([`CellScores`]) and
//! classes ([`Alphabet`]) are the shared vocabulary of [`crate::vocab`].
//!
//! The manifest (`models/<name>.json`, written by `training/`) is the single source of
//! the alphabet, the input geometry and the normalisation; nothing here repeats the
//! training code.

use image::GrayImage;

// Cyrillic read through the printed-text reader's Latin look-alikes (`form::values`).
#[cfg(feature = "internals")]
pub mod cyrillic;
#[cfg(not(feature = "internals"))]
pub(crate) mod cyrillic;
mod header;
mod manifest;
mod onnx;
// The printed-text reader: the form's labels and printed result options (`form::fields`).
#[cfg(feature = "internals")]
pub mod ocr;
#[cfg(not(feature = "internals"))]
#[allow(dead_code)]
pub(crate) mod ocr;

/// The reader's output and its classes: the shared vocabulary (see [`crate::vocab`]).
pub use crate::vocab::{Alphabet, CellScores};
pub use header::{HeaderReader, Located, Spot, Table};
#[cfg(any(test, feature = "internals"))]
pub use manifest::{InputSpec, OutputSpec};
pub use manifest::{Manifest, SecondLook};
#[cfg(not(any(test, feature = "internals")))]
pub(crate) use onnx::embedded_model;
pub use onnx::{OrtModel, RuntimeParams};
#[cfg(any(test, feature = "internals"))]
pub use onnx::{embedded_model, init_runtime};

/// Reads cell images into CTC log-probabilities.
///
/// Implementations: [`OrtModel`] (the shipped ONNX model) and, in tests, fakes that
/// turn a hand-written matrix into probabilities.
pub trait CellModel {
    /// The classes of the returned scores.
    fn alphabet(&self) -> &Alphabet;

    /// Reads a batch of grayscale cell crops (ink dark on light paper, any size),
    /// one [`CellScores`] per cell, in order.
    ///
    /// # Errors
    /// When the runtime fails on the batch.
    fn read(&mut self, cells: &[GrayImage]) -> Result<Vec<CellScores>, ModelError>;

    /// As [`CellModel::read`], but each crop is read once: no second look at the ones
    /// the reader is unsure of. For crops that are not move cells (printed numbers,
    /// headings, the words under the table), whose readings only vote, and which the
    /// reader is unsure of nearly always. The same as `read` by default.
    ///
    /// # Errors
    /// When the runtime fails on the batch.
    fn read_once(&mut self, cells: &[GrayImage]) -> Result<Vec<CellScores>, ModelError> {
        self.read(cells)
    }

    /// How the decoder's confidences map to probabilities with this reader (from its
    /// manifest); none by default.
    fn calibration(&self) -> Option<&crate::vocab::Calibration> {
        None
    }

    /// The reader of the form's printed labels and written header lines that comes
    /// with this model, if any; without one no header field is read.
    fn header_reader(&mut self) -> Option<&mut dyn HeaderReader> {
        None
    }

    /// The reader of the header's handwritten rounds, boards, dates and results that
    /// comes with this model, if any (same classes as this one); without one this
    /// model reads them.
    fn value_reader(&mut self) -> Option<&mut dyn CellModel> {
        None
    }
}

/// Failures of the cell model: loading, manifest checks and inference.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("cannot read model manifest {path}: {reason}")]
    Manifest { path: String, reason: String },
    #[error("cannot load ONNX Runtime: {0}")]
    Runtime(String),
    #[error("cannot load model {path}: {reason}")]
    Load { path: String, reason: String },
    #[error("inference failed: {0}")]
    Inference(String),
}
