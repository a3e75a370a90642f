//! Image files -> read games: the stages chained, and nothing else. One read flow
//! (`read.rs`) takes a game of one or two copies, each of one or more sheets; reports
//! are built in `build.rs`, the game's end read in `ending.rs`, the header fields in `fields.rs`, cells cut for front
//! ends in `cells.rs`, sources of reports in `sources.rs`, re-reads in `reread.rs`.
//! The shared types live in `params.rs` and `game.rs`, which import no other file here.
//!
//! ```no_run
//! use scoresheet::{OrtModel, Pipeline, PipelineParams, RuntimeParams};
//! let mut model = OrtModel::embedded(&RuntimeParams::default())?;
//! let pipeline = Pipeline::new(PipelineParams::default());
//! for game in pipeline.read_file("sheet.jpg".as_ref(), &mut model, &Default::default()) {
//!     let game = game?;
//!     println!("{}", game.decoded.sans().join(" "));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod build;
mod cells;
mod ending;
mod fields;
mod game;
mod params;
mod read;
mod reread;
mod sources;

pub use cells::{CutCell, CutPage, cut_cells};
pub use game::{CopyRead, GameRead};
pub use params::{FieldVocab, PipelineParams, SheetError, SheetOptions};
pub use read::Pipeline;
pub use reread::{CorrectError, Reread, RereadError};
pub use sources::{reload_game, reload_pages};
