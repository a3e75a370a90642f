//! Decoded sheet -> PGN text, the JSON report and the review page.
//!
//! [`SheetReport`] is the JSON contract of `DESIGN.md` (`<stem>.json`): others script
//! against its field names, so fields are only ever added, never renamed.

mod budget;
mod fields;
mod headers;
mod kinds;
mod pgn;
mod review;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::decode::GameStatus;
pub use kinds::{MoveState, Source};

pub use budget::flag_least_sure;
pub use fields::{DIFFERENT_RESULTS, FIELD_COPY_FLOOR, FIELD_REVIEW_BELOW};
pub use headers::{HEADER_FIELDS, HeaderCorrection, normalise_result};
pub use pgn::{PgnTags, to_pgn};
pub use review::{MATCH_MARKS, ReviewSheet, match_key, review_html};

/// One sheet's report, as written to `<stem>.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SheetReport {
    /// The input file, as given on the command line (plus `#pageN` for multi-page TIFF).
    pub source: String,
    /// Absolute path of the input file, so that `fix` and `review` find the image
    /// again from any working folder.
    #[serde(default)]
    pub source_path: String,
    /// Notation code of the sheet (`en`, `ru`, `pl`, `de`).
    pub notation: String,
    /// `complete`, or `partial` when decoding stopped before the written moves ended.
    #[serde(default)]
    pub status: GameStatus,
    /// One entry per filled cell, in sheet order, plus entries for moves the decoder
    /// assumed the player missed (those have no box).
    pub moves: Vec<MoveReport>,
    /// Game result (`1-0`, `0-1`, `1/2-1/2`), or `*` when nothing gives it.
    #[serde(default = "unknown_result")]
    pub result: String,
    /// Where `result` comes from: `mate` (the game as read ends in mate or
    /// stalemate), `sheet` (written after the last move, in `result_cell`) or
    /// `pairings`, or `human` (a header correction); empty with `*`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_from: Option<Source>,
    /// The sheet cell (index in move order, 0 = 1. White) the result was read in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_cell: Option<usize>,
    /// Why the result is `*`, or what else the sheet said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_note: Option<String>,
    /// Tool and model that produced this report.
    #[serde(default)]
    pub producer: Producer,
    /// Page geometry found.
    #[serde(default)]
    pub page: PageInfo,
    /// Counts for a quick look.
    #[serde(default)]
    pub summary: Summary,
    /// When the game was read from both players' sheets: the two copies (the first is
    /// `source`; boxes in `moves[].box` refer to it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copies: Vec<CopyInfo>,
    /// Set when the two `copies` were joined by what each read alone (their names do
    /// not pair them, `read --pairs`): how, and how sure the join is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joined: Option<Joined>,
    /// A game written over several sheets (a continuation sheet from move 51, 61
    /// ...): the sheets in order, the first being `source`; each move's `sheet` is an
    /// index into this.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sheets: Vec<CopyInfo>,
    /// Human corrections: never overwritten by a later run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub corrections: Vec<Correction>,
    /// The game the sheet records, from the tournament's pairings (`read
    /// --pairings`, `--players`, `--sheet-map`); absent without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<GameInfo>,
    /// Human corrections of the game's headers: never overwritten by a later run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub header_corrections: Vec<HeaderCorrection>,
    /// What the form says around the moves, field by field, as read from the sheets
    /// (labels found, values read); `game` takes a value from here only where no
    /// pairing or human gives one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldRead>,
}

/// One header field of a sheet as read from the form.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FieldRead {
    /// `event`, `date`, `round`, `board`, `white`, `black` or `result`.
    pub field: String,
    /// The value read (PGN spelling for `result`, `YYYY.MM.DD` with `??` for
    /// unread parts for `date`); `None` when the field was found but nothing
    /// readable is written in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// How sure the reading is, 0..1.
    #[serde(default)]
    pub confidence: f32,
    /// Which copy (index into `copies`, 0 without them) and which of its sheets.
    #[serde(default)]
    pub copy: usize,
    #[serde(default)]
    pub sheet: usize,
    /// Where the value is (x, y, w, h on the straightened page).
    #[serde(default, rename = "box", skip_serializing_if = "Option::is_none")]
    pub bbox: Option<[u32; 4]>,
    /// The printed label that named the field, as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// With a closed vocabulary (the pairings' names and rounds, the result
    /// spellings): the best candidates and their scores, best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<FieldCandidate>,
    /// Why `value` is missing or doubtful.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// True when a human should look: read with less than the fields' review
    /// threshold, or the copies disagree.
    #[serde(default, skip_serializing_if = "is_false")]
    pub review: bool,
}

/// One closed-vocabulary candidate for a field and its score (a probability, 0..1,
/// normalised over the candidates).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FieldCandidate {
    pub value: String,
    pub score: f32,
}

/// The game a sheet records: the PGN headers a federation publishes, and where each
/// came from (`from`: field -> `pairings`, `players`, `file name`, `sheet map`,
/// `mate`, `human`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct GameInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_elo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_elo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_fide_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_fide_id: Option<String>,
    /// The result the pairings (or the players file) give, in PGN form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Set when the pairings' result and the game as read disagree (a mate on the
    /// sheet against another result): both values, for a human to settle. The
    /// report's `result` keeps the mate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_review: Option<String>,
    #[serde(default)]
    pub from: BTreeMap<String, Source>,
    /// Fields where the sheet says something else than the value kept (the pairings'
    /// or a human's), or where the sheet's reading is doubtful: field -> both values,
    /// for a human to settle.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub review: BTreeMap<String, String>,
}

impl GameInfo {
    /// The text field of this name (`board`, a number, is not one of them).
    pub fn field_mut(&mut self, field: &str) -> Option<&mut Option<String>> {
        Some(match field {
            "event" => &mut self.event,
            "site" => &mut self.site,
            "date" => &mut self.date,
            "round" => &mut self.round,
            "white" => &mut self.white,
            "black" => &mut self.black,
            "white_elo" => &mut self.white_elo,
            "black_elo" => &mut self.black_elo,
            "white_fide_id" => &mut self.white_fide_id,
            "black_fide_id" => &mut self.black_fide_id,
            "result" => &mut self.result,
            _ => return None,
        })
    }

    /// Sets text field `field` to `value` and records where it came from.
    pub fn set(&mut self, field: &str, value: String, source: Source) {
        if let Some(slot) = self.field_mut(field) {
            *slot = Some(value);
            self.from.insert(field.to_string(), source);
        }
    }

    /// The PGN `Round` tag: `round.board` (`3.12`), the round alone, or `?`.
    pub fn round_tag(&self) -> String {
        match (&self.round, self.board) {
            (Some(r), Some(b)) => format!("{r}.{b}"),
            (Some(r), None) => r.clone(),
            _ => "?".into(),
        }
    }
}

fn unknown_result() -> String {
    "*".to_string()
}

/// What one cell says and which legal move the game had there.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct MoveReport {
    /// Half-move number of the decoded move (1 = White's first move); `null` for a
    /// cell that adds no move to the game (skipped as unreadable or a recording error).
    pub ply: Option<u32>,
    /// Move number of the sheet cell (or of the assumed move).
    #[serde(rename = "move")]
    pub move_number: u32,
    /// `white` or `black`: the cell's column.
    pub side: String,
    /// English SAN of the decoded legal move (`null` for a skipped cell).
    pub san: Option<String>,
    /// The written form of that move (sheet's notation) that best explains the cell;
    /// null when the cell shows something else (see `read`).
    pub written: Option<String>,
    /// What the cell says, unconstrained by legality, in English letters.
    pub read: String,
    /// Probability that `san` is right, in [0, 1].
    pub confidence: f32,
    /// True when a human should look at this cell.
    pub review: bool,
    /// The reader's own probability, before any chess knowledge, that the cell says
    /// this move in one of its written forms (absent when no move is read from the
    /// cell: skipped, replaced or assumed). A calibration feature, and a hint where
    /// the game, not the cell, chose the move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_p: Option<f32>,
    /// `ok`, `review`, `skipped` (cell explains no legal move), `assumed` (a move with
    /// no cell of its own), `locked` (set by a human).
    #[serde(default)]
    pub state: MoveState,
    /// Cell box on the (deskewed) page: `[x, y, w, h]` in pixels.
    #[serde(rename = "box")]
    pub bbox: Option<[u32; 4]>,
    /// Other legal moves the decoder weighed, best first.
    #[serde(default)]
    pub alternatives: Vec<Alternative>,
    /// Two-copy games: this cell on each copy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copies: Vec<CopyCell>,
    /// Two-copy games: the copies show different legal moves here (flagged).
    #[serde(default, skip_serializing_if = "is_false")]
    pub disagree: bool,
    /// Games over several sheets: the sheet this cell is on (an index into the
    /// report's `sheets`; `box` is in that sheet's page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sheet: Option<usize>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// How the two copies of a game were joined (see [`SheetReport::joined`]).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Joined {
    /// `content`: the games the sheets read alone agree.
    pub by: String,
    /// Plies of the two games read alone that agree ...
    pub agree: usize,
    /// ... of the plies of the shorter one.
    pub of: usize,
    /// False for a doubtful join (a warning named both files): worth a look.
    pub sure: bool,
}

/// One copy of a two-copy game.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CopyInfo {
    pub source: String,
    #[serde(default)]
    pub source_path: String,
    pub page: PageInfo,
    /// A copy written over several sheets: its sheets in order (the first is this
    /// copy's `source`); each of its cells' `sheet` is an index into this.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sheets: Vec<CopyInfo>,
}

/// A cell of a two-copy game on one copy.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CopyCell {
    /// Index into the report's `copies`.
    pub copy: usize,
    #[serde(rename = "box")]
    pub bbox: Option<[u32; 4]>,
    /// What this copy's cell says (unconstrained reading, English letters).
    pub read: String,
    /// A copy over several sheets: the sheet this cell is on (an index into the
    /// copy's `sheets`; `box` is in that sheet's page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sheet: Option<usize>,
}

/// A runner-up move for a ply.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Alternative {
    pub san: String,
    pub confidence: f32,
}

/// Which program wrote the report.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Producer {
    pub tool: String,
    pub model: String,
    /// How the sheet was read; `fix` re-reads it the same way. Absent in reports of
    /// versions before it (those are re-read with the defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<ReadSettings>,
}

/// The reading options a report was made with (the notation is the report's own).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ReadSettings {
    /// Beam width of the decoder.
    pub beam: usize,
    /// Each cell read once (no second look at unsure cells).
    #[serde(default)]
    pub one_look: bool,
    /// Each sheet decoded once (no second decode with its writer's glyph confusions
    /// undone).
    #[serde(default)]
    pub one_pass: bool,
    /// Weight of the move prior given by hand (0: none); absent: the prior's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior_scale: Option<f32>,
    /// Review threshold given by hand; absent: the model's calibrated one. With a
    /// review budget, the threshold that budget came to over the batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_below: Option<f32>,
    /// Review budget given by hand: the share of the batch's moves flagged, in %
    /// (the least sure ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_budget: Option<f32>,
}

impl Default for ReadSettings {
    fn default() -> Self {
        ReadSettings {
            beam: crate::decode::DEFAULT_BEAM_WIDTH,
            one_look: false,
            one_pass: false,
            prior_scale: None,
            review_below: None,
            review_budget: None,
        }
    }
}

/// Geometry of the page as found.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PageInfo {
    /// Page number inside the file (0 except for multi-page TIFF).
    #[serde(default)]
    pub index: usize,
    pub width: u32,
    pub height: u32,
    pub skew_deg: f32,
    pub rotated_180: bool,
    pub cells: usize,
    /// Leading rows of the move table read as column headings, not moves (`null` in
    /// reports written before this was recorded). A re-read with human corrections
    /// keeps this, so that the corrections stay on their cells.
    #[serde(default)]
    pub header_rows: Option<usize>,
    /// The notation the form's printed column headings suggest (`de` for `Weiß |
    /// Schwarz`), which the notation's detection weighed; absent when the headings
    /// name none (none read, a language without a notation of ours, a notation given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form_notation: Option<String>,
}

/// Counts over the moves.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub plies: usize,
    pub flagged: usize,
    pub skipped_cells: usize,
    pub mean_confidence: f32,
}

/// A human correction: the move set at a ply, who set it and what was there before.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Correction {
    /// Sheet cell the correction applies to.
    #[serde(rename = "move")]
    pub move_number: u32,
    pub side: String,
    /// The corrected move in English SAN (locked: no later run changes it).
    pub san: String,
    /// What the human typed.
    pub input: String,
    /// The move the tool had chosen before.
    pub previous: Option<String>,
    /// Who made it (user name or `review-page`) and when (RFC 3339, UTC).
    pub by: String,
    pub at: String,
}

impl SheetReport {
    /// Per page read (both copies of a two-copy game, in order, else the one page), the
    /// heading rows dropped from its move table, where recorded.
    pub fn header_rows(&self) -> Vec<Option<usize>> {
        let pages = self.read_pages();
        if pages.is_empty() {
            return vec![self.page.header_rows];
        }
        pages.iter().map(|c| c.page.header_rows).collect()
    }

    /// Every page the game was read from, copy by copy and each copy's sheets in order
    /// (one entry per sheet read); empty for a report of one page.
    pub fn read_pages(&self) -> Vec<&CopyInfo> {
        if !self.copies.is_empty() {
            self.copies
                .iter()
                .flat_map(|c| {
                    if c.sheets.is_empty() {
                        vec![c]
                    } else {
                        c.sheets.iter().collect()
                    }
                })
                .collect()
        } else {
            self.sheets.iter().collect()
        }
    }

    /// How many sheets each copy of the game was read from (one copy of one sheet for
    /// a report of one page).
    pub fn copy_sheets(&self) -> Vec<usize> {
        if !self.copies.is_empty() {
            self.copies.iter().map(|c| c.sheets.len().max(1)).collect()
        } else {
            vec![self.sheets.len().max(1)]
        }
    }

    /// Sets the game the sheet records, and the report's result from it: a mate in
    /// the game as read wins over the pairings' result, and a disagreement between the
    /// two is kept in `game.result_review` for a human; without a mate, the pairings'
    /// result stands. `result` and the movetext's termination marker then agree.
    pub fn set_game(&mut self, mut game: GameInfo) {
        let mate = self.result_from == Some(Source::Mate)
            || (self.result_from.is_none() && matches!(self.result.as_str(), "1-0" | "0-1"));
        // (A game set again, by `fix`, may say `mate` or `sheet` already.)
        let source = game
            .from
            .get("result")
            .filter(|s| !matches!(s, Source::Mate | Source::Sheet))
            .copied()
            .unwrap_or(Source::Pairings);
        let written = (self.result_from == Some(Source::Sheet)).then(|| self.result.clone());
        let where_ = if self.result_cell.is_some() {
            "after the last move"
        } else {
            "on the form"
        };
        game.result_review = None;
        match (&game.result, mate) {
            (Some(r), true) if *r != self.result => {
                game.result_review = Some(format!(
                    "the game as read ends in mate ({}); the {source} say {r}",
                    self.result
                ));
                game.from.insert("result".into(), Source::Mate);
            }
            (_, true) => {
                game.from.insert("result".into(), Source::Mate);
            }
            (Some(r), false) => {
                if let Some(w) = written.as_ref().filter(|w| *w != r) {
                    game.result_review =
                        Some(format!("the sheet says {w} {where_}; the {source} say {r}"));
                }
                self.result = r.clone();
                self.result_from = Some(source);
                game.from.insert("result".into(), source);
            }
            (None, false) => {
                if written.is_some() {
                    game.from.insert("result".into(), Source::Sheet);
                }
            }
        }
        self.game = Some(game);
        self.apply_fields();
    }

    /// Recomputes [`SheetReport::summary`] from the moves.
    pub fn summarize(&mut self) {
        let plies: Vec<&MoveReport> = self.moves.iter().filter(|m| m.ply.is_some()).collect();
        let mean = if plies.is_empty() {
            0.0
        } else {
            plies.iter().map(|m| m.confidence).sum::<f32>() / plies.len() as f32
        };
        self.summary = Summary {
            plies: plies.len(),
            flagged: self.moves.iter().filter(|m| m.review).count(),
            skipped_cells: self.moves.iter().filter(|m| m.ply.is_none()).count(),
            mean_confidence: (mean * 1000.0).round() / 1000.0,
        };
    }

    /// Pretty JSON text of the report.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serialises") + "\n"
    }

    /// Reads a report written earlier.
    ///
    /// # Errors
    /// When the file cannot be read or is not a report.
    pub fn load(path: &Path) -> Result<Self, ReportError> {
        let text = std::fs::read_to_string(path).map_err(|e| ReportError::Read {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        serde_json::from_str(&text).map_err(|e| ReportError::Read {
            path: path.display().to_string(),
            reason: e.to_string(),
        })
    }
}

/// Failures reading or writing reports.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot read report {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, flushed,
/// then renamed over `path`. A reader never sees a half-written file, and an existing
/// file survives any failure.
///
/// # Errors
/// When the folder is not writable or the rename fails.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    let err = |reason: String| ReportError::Write {
        path: path.display().to_string(),
        reason,
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| err("no file name".into()))?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(err(e.to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trips_with_contract_field_names() {
        let mut r = SheetReport {
            source: "scans/r1.jpg".into(),
            notation: "ru".into(),
            status: GameStatus::Complete,
            moves: vec![MoveReport {
                ply: Some(1),
                move_number: 1,
                side: "white".into(),
                san: Some("e4".into()),
                written: Some("e2-e4".into()),
                read: "e2-e4".into(),
                confidence: 0.98,
                review: false,
                state: MoveState::Ok,
                bbox: Some([10, 20, 100, 30]),
                alternatives: vec![Alternative {
                    san: "e3".into(),
                    confidence: 0.01,
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        r.summarize();
        let text = r.to_json();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let m = &v["moves"][0];
        for key in [
            "ply",
            "move",
            "side",
            "san",
            "written",
            "read",
            "confidence",
            "review",
            "box",
            "alternatives",
        ] {
            assert!(m.get(key).is_some(), "missing {key} in {text}");
        }
        assert_eq!(v["source"], "scans/r1.jpg");
        assert_eq!(m["box"][2], 100);
        let back: SheetReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn write_atomic_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn write_atomic_fails_cleanly_in_missing_folder() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("missing").join("a.json");
        let e = write_atomic(&p, b"x").unwrap_err().to_string();
        assert!(e.contains("a.json"), "{e}");
    }
}
