//! Helpers shared by the integration tests.

pub mod games;
pub mod hcs;
pub mod synth;
