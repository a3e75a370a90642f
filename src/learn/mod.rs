//! Fine-tuning the cell reader on cells a reviewer settled, in Rust: the ONNX graph is
//! run with candle tensors, trained with the CTC loss, and written back as the same
//! ONNX file with new weights ([`tune::fine_tune`]).

mod ctc;
mod net;
mod onnx_proto;
mod ops;
pub mod tune;

/// The reader's manifest, which [`tune::fine_tune`] takes, for front ends that reach
/// only the job modules.
pub use crate::model::Manifest;
