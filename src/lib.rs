//! `scoresheet` turns scanned handwritten chess scoresheets into legal PGN games.
//!
//! Pipeline: [`page`] (decode, deskew) -> [`grid`] (find the move table, cut cells)
//! -> [`model`] (per-cell CTC log-probabilities) -> [`decode`] (beam search over legal
//! positions, scoring each legal move's written forms in the sheet's [`notation`])
//! -> [`report`] (PGN, JSON, review page); [`pairings`] gives a sheet's game its
//! headers from the tournament's pairings.

pub mod corrections;
pub mod decode;
pub mod eval;
pub mod glyph;
pub mod grid;
pub mod model;
pub mod notation;
pub mod page;
pub mod pairings;
pub mod pipeline;
pub(crate) mod raster;
pub mod report;
pub(crate) mod ruling;
pub mod vocab;
