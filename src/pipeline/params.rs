//! The pipeline's settings, a sheet's inputs beyond its image, and why a sheet could not
//! be read: the types every file of `pipeline` shares. Imports no other file of
//! `pipeline`.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::decode::{DasParams, DecodeParams, FeaturePrior, MovePrior};
use crate::grid::{GridError, GridParams};
use crate::model::ModelError;
use crate::notation::Variant;
use crate::page::{PageError, PageParams};
use crate::report::{GameInfo, ReadSettings};

/// Settings of every stage.
#[derive(Clone, Debug)]
pub struct PipelineParams {
    pub page: PageParams,
    pub grid: GridParams,
    pub decode: DecodeParams,
    /// Cells after the last cell with at least this much ink (fraction of dark
    /// pixels, see [`crate::grid::Cell::ink`]) are blank: they are not sent to the model.
    pub blank_ink: f32,
    /// Cells kept after the last inked one, so the decoder sees the game's end.
    pub trailing_cells: usize,
    /// Cells with less ink than this are not sent to the model: they score as blank.
    pub model_ink: f32,
    /// What the sheets record: chess (decoded as legal games) or Das (read cell by
    /// cell against its notation, without its rules).
    pub variant: Variant,
    /// How Das sheets are read.
    pub das: DasParams,
    /// The review threshold a user chose. None: the one calibrated with the model
    /// (its manifest's `calibration`), or [`crate::decode::ReviewParams::review_below`]
    /// for a model without calibration.
    pub review_below: Option<f32>,
}

impl Default for PipelineParams {
    /// The product's settings: the decoder weighs moves with the shipped move prior
    /// (`models/prior.json`, its scale chosen on the HCS training games).
    fn default() -> Self {
        let decode = DecodeParams {
            prior: FeaturePrior::shipped().map(|p| Arc::new(p) as Arc<dyn MovePrior>),
            ..DecodeParams::default()
        };
        PipelineParams {
            page: PageParams::default(),
            grid: GridParams::default(),
            decode,
            blank_ink: 0.004,
            trailing_cells: 2,
            model_ink: 0.0005,
            variant: Variant::Chess,
            das: DasParams::default(),
            review_below: None,
        }
    }
}

impl PipelineParams {
    /// The settings a report records (beam, second look aside, one pass, prior
    /// scale, review threshold), the notation left to detection.
    pub fn for_settings(s: &ReadSettings) -> PipelineParams {
        let mut params = PipelineParams::default();
        params.decode.search.beam_width = s.beam.max(1);
        params.review_below = s.review_below.map(|p| p.clamp(0.0, 1.0));
        if s.one_pass {
            params.decode.adapt = None;
        }
        if let Some(scale) = s.prior_scale {
            params.decode.prior = if scale > 0.0 {
                FeaturePrior::shipped().map(|mut p| {
                    p.scale = scale;
                    Arc::new(p) as Arc<dyn MovePrior>
                })
            } else {
                None
            };
        }
        params
    }
}

/// A continuation sheet's header as its error line gives it: `; its header says
/// White `A`, Black `B`, round 3, board 12`, or nothing where it says nothing.
fn header_said(h: &GameInfo) -> String {
    let mut said = Vec::new();
    for (name, value) in [
        ("White", &h.white),
        ("Black", &h.black),
        ("event", &h.event),
        ("date", &h.date),
    ] {
        if let Some(v) = value {
            said.push(format!("{name} `{v}`"));
        }
    }
    if let Some(r) = &h.round {
        said.push(format!("round {r}"));
    }
    if let Some(b) = h.board {
        said.push(format!("board {b}"));
    }
    if said.is_empty() {
        String::new()
    } else {
        format!("; its header says {}", said.join(", "))
    }
}

/// Why a sheet could not be read. One lowercase line naming the file.
#[derive(Debug, thiserror::Error)]
pub enum SheetError {
    #[error(transparent)]
    Page(#[from] PageError),
    #[error(transparent)]
    Grid(#[from] GridError),
    #[error("{path}: {source}")]
    Model { path: String, source: ModelError },
    #[error(
        "{path}: a continuation sheet (its printed numbers start at move {first_move}{}): \
         read it with the game's first sheet (name it <first>-2 beside it, or give \
         --continue FIRST THIS)",
        header_said(header)
    )]
    Continuation {
        path: String,
        first_move: u32,
        /// What its own header says (white, black, round ...), read to find the
        /// first sheet by.
        header: Box<GameInfo>,
    },
    #[error(
        "{path}: sheet {sheet} of its game starts at move {first_move}, but the sheet \
         before it ends at move {previous_end}"
    )]
    SheetOrder {
        path: String,
        sheet: usize,
        first_move: u32,
        previous_end: u32,
    },
    #[error("{path}: Das games over several sheets are not read yet")]
    DasSheets { path: String },
    #[error("no sheet given for the game")]
    NoSheets,
}

/// Per-game inputs beyond the images: human corrections to honour.
#[derive(Clone, Debug, Default)]
pub struct SheetOptions {
    /// Cell index (0 = 1. White, 1 = 1. Black, ...) -> English SAN fixed by a human.
    pub locked: BTreeMap<usize, String>,
    /// Per page read (copy by copy, each copy's sheets in order), the heading rows an
    /// earlier read dropped ([`crate::report::PageInfo::header_rows`]): kept, so that
    /// the cells of `locked` are the cells the human saw. Decided again where absent.
    pub header_rows: Vec<Option<usize>>,
    /// Closed vocabularies the header fields are scored against (the pairings'
    /// names and rounds); empty: the fields are read open.
    pub vocab: FieldVocab,
}

/// What a header field may say, where the tournament's tables tell.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldVocab {
    /// Players' names as the pairings spell them.
    pub names: Vec<String>,
    /// Rounds the pairings hold.
    pub rounds: Vec<String>,
}
