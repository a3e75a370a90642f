//! Per-cell CTC scores -> the most plausible legal game: CTC scoring of written
//! forms ([`CellScorer`]), a beam search over legal positions with escapes for cells
//! that no legal move explains, confidences and review flags ([`Decoder`]), and a fake
//! writer that turns real games into sheets of CTC scores for tests ([`simulate`]).
//! Das sheets (a 10×10 variant known by its notation only) are read cell by cell
//! against the notation's grammar instead ([`DasDecoder`]), with no legality.
//!
//! The decoder reads the cells in sheet order (1. White, 1. Black, 2. White, ...).
//! At every cell each beam entry may:
//! - *read* a legal move: score = CTC log-likelihood of the move's written forms in
//!   the sheet's notation, relative to the cell's best path (a clean read scores
//!   about the cell's total mass, [`CellScorer::total_mass`]);
//! - *replace* the cell by a move it does not show (a player's recording error or a
//!   misread): total mass minus `replace_penalty`; the move stays a *set* of
//!   candidates (every legal move the cell does not show, weighted by how nearly the
//!   cell shows it and by a small plausibility order) that later cells narrow down;
//! - *skip* the cell (a crossed-out cell; a blank cell inside the game, a shifted
//!   row): total mass minus `skip_penalty` (`blank_penalty` for a blank cell; the
//!   smaller `final_skip_penalty` for the game's last inked cell, which is as often a
//!   word or a scribble as a move), or skip it as a *duplicate* of the move before:
//!   that move's score minus `duplicate_penalty`;
//! - *assume* a move the player did not write before reading this cell's move, at
//!   `insert_penalty`; the unwritten move is a candidate set as well.
//!
//! The beam keeps, besides the best entries, the best few lines for every decision
//! taken at the last cells (`diversity_*`), so that an early fork that only a later
//! cell settles is not lost to combinations of small late alternatives.
//!
//! Output moves are legal by construction.

pub mod adapt;
mod beam;
mod ctc;
mod das;
mod evidence;
mod expand;
mod explain;
mod plausible;
mod posterior;
pub mod prior;
/// Simulated CTC output of written cells: scaffolding for tests and benches.
#[cfg(any(test, feature = "internals"))]
pub mod simulate;
mod state;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use shakmaty::{Chess, Color, Move};

use crate::notation::Notation;
use crate::vocab::{Alphabet, CellScores};

pub use crate::vocab::Calibration;
pub use adapt::Adaptation;
#[cfg(any(test, feature = "internals"))]
pub use ctc::MIN_SCORE;
pub use ctc::{CellScorer, Trie};
pub use das::{DasDecoder, DasParams, DasSheet};
#[cfg(any(test, feature = "internals"))]
pub use das::{DasEntry, DasReading};
pub use prior::FeaturePrior;

/// A prior over moves, added to the cell evidence (e.g. from an opening book or an
/// engine). Scores are natural-log weights; 0 is neutral.
pub trait MovePrior: Send + Sync {
    /// Log-weight of legal move `m` in `pos`.
    fn log_prior(&self, pos: &Chess, m: &Move) -> f32;

    /// Log-weights of legal moves of one position, appended to `out` in order (a
    /// prior may share work between them; by default each is asked alone).
    fn log_priors(&self, pos: &Chess, moves: &[Move], out: &mut Vec<f32>) {
        out.extend(moves.iter().map(|m| self.log_prior(pos, m)));
    }
}

/// The decoder's default beam width. Chosen on data outside validation (HCS training
/// pages, train-font Russian and Polish sheets): within 0.06 points of 4096 on HCS
/// training cells, and as good on Polish plies as any width past 256. With
/// [`SearchParams::expand_margin`] it decodes an HCS page in about 105 ms on one core.
pub const DEFAULT_BEAM_WIDTH: usize = 1024;

/// How the decoder searches, what its escapes cost, how it reads cells and notations,
/// and when it asks for review: one group per concern, each with its own defaults.
#[derive(Clone)]
pub struct DecodeParams {
    /// The beam search over legal positions: its width and what it prunes.
    pub search: SearchParams,
    /// The costs of the escapes for cells no legal move explains (skip, duplicate,
    /// replace, assume) and the beam room they may take.
    pub escapes: EscapeParams,
    /// How a cell's reading is weighed, and the sheet's notation (given or detected).
    pub reading: ReadingParams,
    /// What the entries report: confidence, review flags and the written form shown.
    pub review: ReviewParams,
    /// Optional move prior; `None` weighs all legal moves alike.
    pub prior: Option<Arc<dyn MovePrior>>,
    /// Writer adaptation (see [`adapt`]): the sheet is decoded a second time with the
    /// glyph confusions of its hand, learnt from the first decode, undone. `None`
    /// decodes once with the reader's probabilities as they are. The default: on,
    /// chosen on the HCS training pages and train-font Russian and Polish sheets,
    /// plain and blurred.
    pub adapt: Option<Adaptation>,
    /// Cells fixed by a human: cell index -> English SAN. The decoder plays exactly
    /// that move there and re-decodes everything around it.
    pub locked: BTreeMap<usize, String>,
}

impl Default for DecodeParams {
    fn default() -> Self {
        DecodeParams {
            search: SearchParams::default(),
            escapes: EscapeParams::default(),
            reading: ReadingParams::default(),
            review: ReviewParams::default(),
            // No move prior: the pipeline adds the shipped one (`models/prior.json`).
            prior: None,
            // On (see the field).
            adapt: Some(Adaptation::default()),
            // Nothing locked until a human fixes a cell.
            locked: BTreeMap::new(),
        }
    }
}

/// The beam search over legal positions.
#[derive(Clone, Debug)]
pub struct SearchParams {
    /// Partial games kept after each cell.
    pub beam_width: usize,
    /// Beam entries more than this many nats behind the best are not extended (except
    /// at a locked cell).
    pub expand_margin: f32,
    /// At most this many moves read from a cell per beam entry (the best ones): a
    /// cell rarely supports more than a few, the rest are noise-level floods.
    pub reads_per_parent: usize,
    /// The beam keeps, for each of this many recent cells (at most 8) and each move
    /// some line played there, the best such line ...
    pub diversity_window: usize,
    /// ... when it is within this many nats of the best line ...
    pub diversity_margin: f32,
    /// ... and up to this many such lines (each the best child of its beam entry).
    pub diversity_keep: usize,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            // See `DEFAULT_BEAM_WIDTH`.
            beam_width: DEFAULT_BEAM_WIDTH,
            // With the 1024 beam on HCS training pages and train-font sheets: every figure
            // of no margin in a third of the time; 6 lost 0.3 points.
            expand_margin: 10.0,
            // Tried again at the 1024 beam with the other escape and search settings: no
            // value moved HCS training cells right by more than 0.12 points.
            reads_per_parent: 6,
            // The whole window the beam tracks (`WINDOW`); tried again at the 1024 beam
            // with the other settings (within 0.12 points).
            diversity_window: 8,
            // Tried again at the 1024 beam with the other settings (within 0.12 points).
            diversity_margin: 15.0,
            // Tried again at the 1024 beam with the other settings (within 0.12 points).
            diversity_keep: 3,
        }
    }
}

/// The escapes: what a cell that no legal move explains may become, and at what cost
/// (nats, against the cell's total mass).
#[derive(Clone, Debug)]
pub struct EscapeParams {
    /// Cost of skipping a cell that is not blank.
    pub skip_penalty: f32,
    /// Cost of skipping the game's last inked cell, when it is less than `skip_penalty`:
    /// a cell after which no move follows is as often a word (`resigns`, `Mate`), a
    /// result or a scribble as a move, and a move put there that the cell does not
    /// show has no later cell to confirm it.
    pub final_skip_penalty: f32,
    /// Cost of skipping a blank cell inside the game (a shifted row).
    pub blank_penalty: f32,
    /// Cost of skipping a cell that repeats the move before it.
    pub duplicate_penalty: f32,
    /// Cost of playing a move the cell does not show.
    pub replace_penalty: f32,
    /// Weight of the cell evidence for a replaced move: a replaced move scores
    /// `replace_temper` times its reading on top of the replace cost, so that a move
    /// the cell nearly shows is the likelier replacement.
    pub replace_temper: f32,
    /// Cost of a move the player did not write at all.
    pub insert_penalty: f32,
    /// A beam entry considers an unwritten move before a cell only when no legal move
    /// explains the cell better than `-insert_gate` nats.
    pub insert_gate: f32,
    /// At most this many beam entries (the best ones) consider unwritten moves per cell.
    pub insert_parents: usize,
    /// At most this many "unwritten move, then this cell's move" candidates per beam
    /// entry and cell (one per move the cell may show, the best ones).
    pub escapes_per_parent: usize,
    /// Share of the beam that replaced or assumed moves may take (they come in
    /// dozens of equally likely variants and would crowd out real alternatives).
    pub escape_share: f32,
}

impl Default for EscapeParams {
    fn default() -> Self {
        EscapeParams {
            // Tried again at the 1024 beam with the other costs: no value moved HCS
            // training cells right by more than 0.12 points.
            skip_penalty: 10.0,
            // On the HCS pages outside validation and synthetic pages: drops moves put on
            // `resign`, `Mate` or scribbled cells, no right one (6 lost a mating move).
            final_skip_penalty: 8.0,
            // Set with the first decoder; not measured on its own since.
            blank_penalty: 2.0,
            // Set with the first decoder; not measured on its own since.
            duplicate_penalty: 3.5,
            // Tried again at the 1024 beam with the other costs (within 0.12 points).
            replace_penalty: 3.5,
            // Set with the first decoder; not measured on its own since.
            replace_temper: 0.3,
            // Tried again at the 1024 beam with the other costs (within 0.12 points).
            insert_penalty: 4.5,
            // Set with the first decoder; not measured on its own since.
            insert_gate: 2.0,
            // Set with the first decoder; not measured on its own since.
            insert_parents: 4,
            // Tried again at the 1024 beam with the other settings (within 0.12 points).
            escapes_per_parent: 4,
            // Tried again at the 1024 beam with the other settings (within 0.12 points).
            escape_share: 0.5,
        }
    }
}

/// How a cell's reading is weighed, and the sheet's notation.
#[derive(Clone, Debug)]
pub struct ReadingParams {
    /// A glyph's log-probability in a frame counts as at least this many nats below
    /// the frame's best (readers are overconfident: one misread glyph must not rule a
    /// move out).
    pub read_floor: f32,
    /// The sheet's notation; `None` detects it (the notation whose best game explains
    /// the sheet best).
    pub notation: Option<Notation>,
    /// The notation the form's printed headings suggest (`Weiß | Schwarz`: German),
    /// when `notation` is detected: it starts [`ReadingParams::form_prior`] nats ahead
    /// of the others. The pipeline fills it in from the page.
    pub form_notation: Option<Notation>,
    /// The head start of `form_notation`, in nats: less than one glyph read clearly
    /// against it costs (4 to 6 nats, see [`ReviewParams::written_floor`]), so that the
    /// handwriting decides wherever one cell tells the notations apart (a Russian form
    /// filled in English letters), and the form where nothing does (a German and a
    /// Polish sheet agree on `S` and `K`; pawn moves read alike in every notation).
    pub form_prior: f32,
    /// Beam width of the first pass that compares notations when `notation` is `None`
    /// (a pass that looks for no unwritten moves: a notation that does not fit the
    /// sheet would try one at nearly every cell) ...
    pub auto_beam_width: usize,
    /// ... over this many first cells.
    pub auto_cells: usize,
    /// Notations whose first-pass score is within this many nats of the best are
    /// each decoded in full, and the one that explains the whole sheet best is kept.
    pub auto_margin: f32,
}

impl Default for ReadingParams {
    fn default() -> Self {
        ReadingParams {
            // See `ctc::DEFAULT_FLOOR`.
            read_floor: ctc::DEFAULT_FLOOR,
            // Detected from the sheet.
            notation: None,
            // Filled in by the pipeline from the page.
            form_notation: None,
            // Less than one glyph read clearly against the form (4 to 6 nats).
            form_prior: 3.0,
            // Set with the first decoder; not measured on its own since.
            auto_beam_width: 8,
            // 24 rather than 40: faster, with notation and ply figures unchanged.
            auto_cells: 24,
            // Set with the first decoder; not measured on its own since.
            auto_margin: 10.0,
        }
    }
}

/// What the entries report: confidence, review flags and the written form shown.
#[derive(Clone, Debug)]
pub struct ReviewParams {
    /// A move whose confidence is below this is flagged for review.
    pub review_below: f32,
    /// Maps the beam's share of a move to the probability that the cell is read
    /// right (from the model manifest; the pipeline fills it in). `None`: entries
    /// report the beam's share.
    pub calibration: Option<Calibration>,
    /// A cell shows the legal move chosen there when one of the move's written forms
    /// comes within this many nats of the cell's best reading. Otherwise, when the
    /// cell reads as another move (a player's slip such as `Nf3` for Black's `Nf6`,
    /// or a misread glyph: each costs 4-6 nats), the entry gets no `written` form,
    /// only its `read`, and is flagged for review.
    pub written_floor: f32,
    /// Of a move's written forms, the one the cell shows is the best-scoring, less
    /// this many nats for a form with more or less disambiguation than SAN needs
    /// (`Rc8` for `Rac8`, `Ngf3` for `Nf3`): the reader often misses a small origin glyph
    /// players did write. Only the form shown changes (not the move, its confidence or
    /// flag, nor what writer adaptation learns).
    pub form_penalty: f32,
    /// The writer's style in the form shown: when most of a sheet's cells are best
    /// read in long form (`Лd1d5`, `e2-e4`), a long form is worth this weight times
    /// the log-odds of long to short forms on the sheet, in nats. Only the form shown
    /// changes, as with `form_penalty`.
    pub long_style: f32,
}

impl Default for ReviewParams {
    fn default() -> Self {
        ReviewParams {
            // Set with the first decoder; a calibrated model brings its own threshold.
            review_below: 0.8,
            // Filled in by the pipeline from the model manifest.
            calibration: None,
            // On the HCS training pages (3 to 6 tried: most cells right at 3.5).
            written_floor: 3.5,
            // On the HCS training pages (0 / 0.5 / 1 / 2 / 4 nats tried: 1 and 2 best).
            form_penalty: 1.0,
            // On train-font Russian and Polish sheets (0 / 0.5 / 1 / 2 tried: 1 best).
            long_style: 1.0,
        }
    }
}

impl fmt::Debug for DecodeParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeParams")
            .field("search", &self.search)
            .field("escapes", &self.escapes)
            .field("reading", &self.reading)
            .field("review", &self.review)
            .field("prior", &self.prior.as_ref().map(|_| "dyn MovePrior"))
            .field("adapt", &self.adapt)
            .field("locked", &self.locked)
            .finish()
    }
}

/// What the decoder made of one cell (or of a move with no cell).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// The cell shows the move.
    Read,
    /// The game had this move here but the cell does not show it (a recording error
    /// or a misread): flagged.
    Replaced,
    /// The cell adds no move (unreadable, crossed out, a shifted row): flagged.
    Skipped,
    /// The cell repeats the move before it and adds no move: flagged.
    Duplicate,
    /// A move the player did not write (no cell): flagged.
    Assumed,
    /// The move a human fixed for this cell.
    Locked,
}

/// A runner-up for an entry: another legal move the beam weighed for its cell (the
/// report writes it as a [`crate::report::Alternative`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RunnerUp {
    /// English SAN (long algebraic when the move comes from another line).
    pub san: String,
    pub confidence: f32,
}

/// One cell of the sheet, or one move with no cell, in sheet order.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Sheet cell index (0 = 1. White, 1 = 1. Black, ...); `None` for an assumed move.
    pub cell: Option<usize>,
    /// Index of the decoded move in the game (0 = White's first); `None` when the cell
    /// adds no move.
    pub ply: Option<usize>,
    pub kind: EntryKind,
    /// English SAN (with `+`/`#`) of the decoded legal move.
    pub san: Option<String>,
    /// The written form of that move (sheet notation, real letters) that best explains
    /// the cell, preferring the disambiguation SAN needs ([`ReviewParams::form_penalty`]);
    /// `None` when the cell does not show the move (no form comes within
    /// [`ReviewParams::written_floor`] of the cell's best reading).
    pub written: Option<String>,
    /// The written form that scores best on the cell with no preference among forms
    /// (see [`ReviewParams::form_penalty`]): what writer adaptation pairs with the
    /// reading. `None` with `written`.
    pub best_form: Option<String>,
    /// What the cell reads, unconstrained by legality, in English letters.
    pub read: String,
    /// Posterior probability of this entry's move (or of the skip) among the beam's
    /// alternatives for this cell, in [0, 1]; with [`ReviewParams::calibration`], that
    /// share mapped to the probability that the cell is read right.
    pub confidence: f32,
    /// The beam's share of this entry's move (or skip) as it came, before any
    /// calibration (1 for a locked move).
    pub share: f32,
    /// A human should look at this entry.
    pub review: bool,
    /// Cell evidence for the chosen move (relative nats; 0 = read cleanly).
    pub evidence: f32,
    /// The reader's own probability, with no chess knowledge, that the cell says this
    /// entry's move in one of its written forms: the forms' share of all the cell's
    /// readings (summed over copies), in [0, 1], to 3 decimals (as reported). `None`
    /// for an entry that reads no move from its cell (skipped, replaced, assumed).
    pub cell_p: Option<f32>,
    /// Other legal moves weighed here, best first.
    pub alternatives: Vec<RunnerUp>,
}

impl Entry {
    /// Move number and side of the entry's sheet cell.
    pub fn sheet_move(&self) -> Option<(u32, Color)> {
        self.cell.map(cell_move)
    }
}

/// Index of a sheet cell in move order (0 = 1. White).
pub fn cell_index(move_number: u32, side: Color) -> usize {
    (move_number.saturating_sub(1) as usize) * 2 + usize::from(side == Color::Black)
}

/// Move number and side (column) of sheet cell `cell`.
pub fn cell_move(cell: usize) -> (u32, Color) {
    let side = if cell.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    ((cell / 2 + 1) as u32, side)
}

/// Whether the decoder used every written cell (a report's `status`: `complete`,
/// `partial`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameStatus {
    #[default]
    Complete,
    /// Decoding stopped before the written moves ended (cells after the game's last
    /// move were skipped, or there is ink after the blank cells that end the game).
    Partial,
}

/// A decoded sheet.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedSheet {
    pub notation: Notation,
    pub status: GameStatus,
    /// The game, legal from the initial position.
    pub moves: Vec<Move>,
    /// One entry per cell up to the end of the game, plus one per assumed move.
    pub entries: Vec<Entry>,
    /// Cells up to the end of the game (the blank cells that end it excluded).
    pub cells_used: usize,
    /// Log-likelihood of the cells under the decoded game, escape penalties included.
    pub log_likelihood: f64,
    /// Score of the best game found in each notation tried (relative nats; over the
    /// first-pass cells only for notations not decoded in full).
    pub notation_scores: Vec<(Notation, f64)>,
    /// Locked cells whose move no line of the search could play (ignored).
    pub lock_conflicts: Vec<usize>,
}

impl DecodedSheet {
    /// The game in English SAN with check marks.
    pub fn sans(&self) -> Vec<String> {
        self.entries.iter().filter_map(|e| e.san.clone()).collect()
    }

    /// The entry of sheet cell `cell`.
    pub fn entry_for_cell(&self, cell: usize) -> Option<&Entry> {
        self.entries.iter().find(|e| e.cell == Some(cell))
    }
}

/// Decodes sheets with a fixed alphabet and parameters.
pub struct Decoder {
    alphabet: Alphabet,
    params: DecodeParams,
}

impl Decoder {
    pub fn new(alphabet: &Alphabet, params: DecodeParams) -> Decoder {
        Decoder {
            alphabet: alphabet.clone(),
            params,
        }
    }

    #[cfg(any(test, feature = "internals"))]
    pub fn params(&self) -> &DecodeParams {
        &self.params
    }

    /// Decodes one sheet: one [`CellScores`] per cell, in sheet order.
    pub fn decode(&self, cells: &[CellScores]) -> DecodedSheet {
        let copies: Vec<&[CellScores]> = cells.iter().map(std::slice::from_ref).collect();
        self.decode_adapted(&copies)
    }

    /// Decodes a sheet whose cells carry several readings of the same written move
    /// (e.g. White's and Black's copies of one game): each cell's evidence is the sum
    /// of its copies' log-likelihoods.
    pub fn decode_copies(&self, cells: &[Vec<CellScores>]) -> DecodedSheet {
        let copies: Vec<&[CellScores]> = cells.iter().map(Vec::as_slice).collect();
        self.decode_adapted(&copies)
    }

    /// Decodes, then (with [`DecodeParams::adapt`]) learns each copy's writer
    /// confusions from that decode and decodes again with them undone, in the
    /// notation found first.
    fn decode_adapted(&self, copies: &[&[CellScores]]) -> DecodedSheet {
        let first = beam::decode(&self.alphabet, &self.params, copies);
        let Some(settings) = &self.params.adapt else {
            return first;
        };
        let n_copies = copies.iter().map(|c| c.len()).max().unwrap_or(0);
        let confusions: Vec<adapt::Confusions> = (0..n_copies)
            .map(|k| {
                let cells: Vec<&CellScores> = copies.iter().filter_map(|c| c.get(k)).collect();
                adapt::Confusions::learn(&first, &cells, &self.alphabet, settings)
            })
            .collect();
        if confusions.iter().all(adapt::Confusions::is_empty) {
            return first;
        }
        let adapted: Vec<Vec<CellScores>> = copies
            .iter()
            .map(|c| {
                c.iter()
                    .zip(&confusions)
                    .map(|(s, conf)| conf.apply(s))
                    .collect()
            })
            .collect();
        let adapted_refs: Vec<&[CellScores]> = adapted.iter().map(Vec::as_slice).collect();
        let mut params = self.params.clone();
        params.reading.notation = Some(first.notation);
        let mut second = beam::decode(&self.alphabet, &params, &adapted_refs);
        second.notation_scores = first.notation_scores;
        second
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults the decoder was measured with (see each group's `Default`).
    #[test]
    fn default_params_are_the_measured_ones() {
        let p = DecodeParams::default();
        let s = &p.search;
        assert_eq!(
            (
                s.beam_width,
                s.reads_per_parent,
                s.diversity_window,
                s.diversity_keep
            ),
            (1024, 6, 8, 3)
        );
        assert_eq!((s.expand_margin, s.diversity_margin), (10.0, 15.0));
        let e = &p.escapes;
        assert_eq!(
            [
                e.skip_penalty,
                e.final_skip_penalty,
                e.blank_penalty,
                e.duplicate_penalty,
                e.replace_penalty,
                e.replace_temper,
                e.insert_penalty,
                e.insert_gate,
                e.escape_share
            ],
            [10.0, 8.0, 2.0, 3.5, 3.5, 0.3, 4.5, 2.0, 0.5]
        );
        assert_eq!((e.insert_parents, e.escapes_per_parent), (4, 4));
        let r = &p.reading;
        assert_eq!(
            (r.read_floor, r.form_prior, r.auto_margin),
            (6.0, 3.0, 10.0)
        );
        assert_eq!((r.notation, r.form_notation), (None, None));
        assert_eq!((r.auto_beam_width, r.auto_cells), (8, 24));
        let v = &p.review;
        assert_eq!(
            [
                v.review_below,
                v.written_floor,
                v.form_penalty,
                v.long_style
            ],
            [0.8, 3.5, 1.0, 1.0]
        );
        assert!(v.calibration.is_none() && p.prior.is_none() && p.locked.is_empty());
        assert_eq!(p.adapt, Some(Adaptation::default()));
    }
}
