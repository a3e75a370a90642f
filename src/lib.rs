//! `scoresheet` turns scanned handwritten chess scoresheets into legal PGN games.
//!
//! Pipeline: [`page`] (decode, deskew) -> [`grid`] (find the move table, cut cells)
//! -> [`model`] (per-cell CTC log-probabilities) -> [`decode`] (beam search over legal
//! positions, scoring each legal move's written forms in the sheet's [`notation`])
//! -> [`report`] (PGN, JSON, review page); [`pairings`] gives a sheet's game its
//! headers from the tournament's pairings.

//!
//! ## The library entry
//!
//! A front end (the `scoresheet` command, a review tool, a federation's own scripts)
//! uses the items re-exported here and three job modules: [`corrections`] (a human's
//! corrections checked and merged), [`eval`] (reports against ground truth) and the
//! reading itself behind [`Pipeline`] (with [`cut_cells`] for the cells alone and
//! [`convert_game`] for game texts). The stages below it import only downward:
//! `pipeline` -> `report`, `decode`, `model`, `grid`, `page`, `notation`, `pairings`;
//! `decode` -> `notation`, `vocab`; `model` -> `vocab`; `grid` -> `page`, `ruling`,
//! `raster`; `vocab`, `glyph` and `raster` import no stage.

pub mod convert;
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

pub use convert::convert_game;
pub use decode::DEFAULT_BEAM_WIDTH;
pub use grid::GridParams;
pub use model::{CellModel, OrtModel, RuntimeParams};
pub use notation::{Notation, Variant};
pub use page::{PageParams, load_pages};
pub use pairings::{Lookup, Pairings, Trf};
pub use pipeline::{
    CorrectError, CutCell, CutPage, GameRead, PairRead, Pipeline, PipelineParams, Reread,
    RereadError, SheetError, SheetOptions, SheetRead, cut_cells, reload_pages,
};
pub use report::{
    Correction, HeaderCorrection, PgnTags, Producer, ReadSettings, ReviewSheet, SheetReport,
    flag_least_sure, review_html, to_pgn, write_atomic,
};
