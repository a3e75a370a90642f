//! Helpers shared by the integration tests.

pub mod hcs;
pub mod synth;
