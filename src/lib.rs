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
//! uses the items re-exported here and the job modules: [`corrections`] (a human's
//! corrections checked and merged), [`eval`] (reports against ground truth), [`learn`]
//! (fine-tuning the reader on settled cells) and the
//! reading itself behind [`Pipeline`] (with [`cut_cells`] for the cells alone and
//! [`convert_game`] for game texts). The stages below it import only downward:
//! `pipeline` -> `report`, `decode`, `model`, `grid`, `page`, `notation`, `pairings`;
//! `decode` -> `notation`, `vocab`; `model` -> `vocab`; `grid` -> `page`, `ruling`,
//! `raster`; `vocab`, `glyph` and `raster` import no stage.

#[cfg(feature = "internals")]
pub mod convert;
#[cfg(not(feature = "internals"))]
pub(crate) mod convert;
pub mod copies;
pub mod corrections;
#[cfg(feature = "internals")]
pub mod decode;
#[cfg(not(feature = "internals"))]
pub(crate) mod decode;
pub mod eval;
#[cfg(feature = "internals")]
pub mod form;
#[cfg(not(feature = "internals"))]
pub(crate) mod form;
#[cfg(feature = "internals")]
pub mod glyph;
#[cfg(not(feature = "internals"))]
pub(crate) mod glyph;
#[cfg(feature = "internals")]
pub mod grid;
#[cfg(not(feature = "internals"))]
pub(crate) mod grid;
pub mod learn;
#[cfg(feature = "internals")]
pub mod model;
#[cfg(not(feature = "internals"))]
pub(crate) mod model;
#[cfg(feature = "internals")]
pub mod notation;
#[cfg(not(feature = "internals"))]
pub(crate) mod notation;
#[cfg(feature = "internals")]
pub mod page;
#[cfg(not(feature = "internals"))]
pub(crate) mod page;
pub mod pairings;
#[cfg(feature = "internals")]
pub mod pipeline;
#[cfg(not(feature = "internals"))]
pub(crate) mod pipeline;
pub(crate) mod raster;
pub mod report;
pub(crate) mod ruling;
#[cfg(feature = "internals")]
pub mod vocab;
#[cfg(not(feature = "internals"))]
pub(crate) mod vocab;

pub use convert::convert_game;
pub use decode::DEFAULT_BEAM_WIDTH;
pub use grid::GridParams;
pub use model::{CellModel, HeaderReader, Located, OrtModel, RuntimeParams, Spot, Table};
pub use notation::{Notation, Variant};
pub use page::{PageParams, load_page, load_pages, open_pages};
pub use pairings::assign::{Assignment, assign};
pub use pairings::{Lookup, Pairings, Trf};
pub use pipeline::{
    CopyRead, CorrectError, CutCell, CutPage, FieldVocab, GameRead, Pipeline, PipelineParams,
    Reread, RereadError, SheetError, SheetOptions, cut_cells, reload_game, reload_pages,
};
pub use report::{
    Correction, FieldCandidate, FieldRead, GameInfo, HeaderCorrection, Joined, MoveState, PgnTags,
    Producer, ReadSettings, ReviewSheet, SheetReport, Source, flag_least_sure, review_html, to_pgn,
    write_atomic,
};
