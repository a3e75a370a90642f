// STAND-IN: replaced by the tune branch
//! The training engine's interface: a reader's ONNX graph and labelled cells -> the
//! same graph with fine-tuned weights. This stand-in keeps the interface only, so that
//! the job around it (`learn`) builds and runs; it returns the base reader unchanged.

use image::GrayImage;

use crate::model::Manifest;

/// One labelled cell: the crop as `read` cut it, and what it says as class indices
/// into the manifest's alphabet (no blanks; empty for a blank cell).
#[derive(Clone, Debug)]
pub struct Example {
    pub crop: GrayImage,
    pub target: Vec<u32>,
}

/// How to fine-tune.
#[derive(Clone, Debug)]
pub struct TuneParams {
    pub steps: usize,
    pub batch: usize,
    pub lr: f32,
    pub seed: u64,
    pub threads: usize,
}

impl Default for TuneParams {
    fn default() -> Self {
        TuneParams {
            steps: 400,
            batch: 64,
            lr: 1e-4,
            seed: 1,
            threads: 2,
        }
    }
}

/// Why fine-tuning failed.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    #[error("no cells to learn from")]
    NoExamples,
}

/// Fine-tunes the reader `base_onnx` (described by `manifest`) on `examples`, calling
/// `progress(step, steps, loss)` as it goes; returns the new ONNX bytes (same graph,
/// new weights).
///
/// # Errors
/// No examples.
pub fn fine_tune(
    base_onnx: &[u8],
    _manifest: &Manifest,
    examples: &[Example],
    params: &TuneParams,
    progress: &mut dyn FnMut(usize, usize, f32),
) -> Result<Vec<u8>, TuneError> {
    if examples.is_empty() {
        return Err(TuneError::NoExamples);
    }
    progress(params.steps, params.steps, 0.0);
    Ok(base_onnx.to_vec())
}
