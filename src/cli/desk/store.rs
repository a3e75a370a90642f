//! The desk's reports on disk: an output folder of `read -o` -> the games it holds,
//! each report with its version (a hash of the file), a lock per game, corrections
//! applied through the library and written atomically before they are acknowledged,
//! and the round PGN rewritten after every change.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use scoresheet::corrections::{self, HeaderRequest, Request, now_utc};
use scoresheet::{
    CorrectError, Notation, OrtModel, PgnTags, Pipeline, PipelineParams, Producer, RereadError,
    SheetReport, to_pgn, write_atomic,
};

use super::super::read::round_key;

/// Why a request of the store failed; each maps to one HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The request is malformed (400).
    #[error("{0}")]
    Bad(String),
    /// No such game (404).
    #[error("no game `{0}`")]
    NoGame(String),
    /// The report changed since the client read it (409).
    #[error("conflict: the game changed since version {yours} (now {now}); reload it")]
    Conflict { yours: String, now: String },
    /// The correction does not hold (422): an illegal move, an unknown ply, ...
    #[error("{0}")]
    Refused(String),
    /// The desk could not do it (500): the sheet cannot be re-read, a write failed.
    #[error("{0}")]
    Failed(String),
}

/// The models the desk reads and re-reads with, one per user at a time.
pub struct Models {
    free: Mutex<Vec<OrtModel>>,
    returned: Condvar,
    pub name: String,
}

impl Models {
    pub fn new(models: Vec<OrtModel>) -> Models {
        let name = models
            .first()
            .map_or_else(String::new, |m| m.manifest().name.clone());
        Models {
            free: Mutex::new(models),
            returned: Condvar::new(),
            name,
        }
    }

    /// Runs `f` with a model of its own, waiting for one to be free.
    pub fn with<R>(&self, f: impl FnOnce(&mut OrtModel) -> R) -> R {
        let mut free = lock(&self.free);
        let mut model = loop {
            if let Some(m) = free.pop() {
                break m;
            }
            free = self
                .returned
                .wait(free)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        };
        drop(free);
        // The model goes back to the pool even when `f` panics (re-raised after).
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut model)));
        lock(&self.free).push(model);
        self.returned.notify_one();
        r.unwrap_or_else(|p| std::panic::resume_unwind(p))
    }
}

/// A mutex lock that survives a panicked holder (the data are files on disk).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A move or header correction as the API takes it.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorrectionBody {
    /// Half-move, as numbered in the report.
    pub ply: Option<u32>,
    /// Or the sheet cell: `12b`, `7w`.
    pub cell: Option<String>,
    /// The move (sheet notation or English).
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// Or a header field and its value.
    pub header: Option<String>,
    pub value: Option<String>,
    /// The report's version the client saw; another one now is a conflict.
    pub version: Option<String>,
    /// Who corrects (recorded).
    pub by: Option<String>,
}

/// The output folder and what guards it.
pub struct Store {
    pub out: PathBuf,
    pub pgn_out: Option<PathBuf>,
    pub models: Arc<Models>,
    pub producer: Producer,
    games: Mutex<HashMap<String, Arc<Mutex<()>>>>,
    round: Mutex<()>,
}

/// FNV-1a 64 of a report file's bytes, in hex: the report's version.
pub fn version_of(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A game's stem as a request may name it: letters, digits, `_`, `-`, `.`, not
/// starting with a dot, at most 200 bytes (nothing that leaves the folder).
pub fn valid_stem(stem: &str) -> bool {
    !stem.is_empty()
        && stem.len() <= 200
        && !stem.starts_with('.')
        && stem
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

impl Store {
    pub fn new(
        out: PathBuf,
        pgn_out: Option<PathBuf>,
        models: Arc<Models>,
        producer: Producer,
    ) -> Store {
        Store {
            out,
            pgn_out,
            models,
            producer,
            games: Mutex::new(HashMap::new()),
            round: Mutex::new(()),
        }
    }

    /// The lock of one game: held while its report is read, corrected or re-read.
    pub fn game_lock(&self, stem: &str) -> Arc<Mutex<()>> {
        lock(&self.games)
            .entry(stem.to_string())
            .or_default()
            .clone()
    }

    pub fn json_path(&self, stem: &str) -> PathBuf {
        self.out.join(format!("{stem}.json"))
    }

    /// The stems of the reports in the folder, sorted.
    pub fn stems(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.out) else {
            return Vec::new();
        };
        let mut stems: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let stem = name.strip_suffix(".json")?;
                valid_stem(stem).then(|| stem.to_string())
            })
            .collect();
        stems.sort();
        stems
    }

    /// A game's report and its version.
    ///
    /// # Errors
    /// No such game, or a file that is no report.
    pub fn load(&self, stem: &str) -> Result<(SheetReport, String), StoreError> {
        self.load_text(stem).map(|(r, v, _)| (r, v))
    }

    /// A game's report, its version and its file's text.
    ///
    /// # Errors
    /// No such game, or a file that is no report.
    pub fn load_text(&self, stem: &str) -> Result<(SheetReport, String, String), StoreError> {
        if !valid_stem(stem) {
            return Err(StoreError::NoGame(stem.to_string()));
        }
        let path = self.json_path(stem);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::NoGame(stem.to_string()));
            }
            Err(e) => return Err(StoreError::Failed(format!("{stem}: {e}"))),
        };
        let version = version_of(&bytes);
        let text = String::from_utf8(bytes)
            .map_err(|_| StoreError::Failed(format!("{stem}: not UTF-8")))?;
        let report = serde_json::from_str::<SheetReport>(&text)
            .map_err(|e| StoreError::Failed(format!("{stem}: {e}")))?;
        Ok((report, version, text))
    }

    /// Applies one correction to a game under its lock: checked (nothing changes if it
    /// does not hold), the game re-read around a move, PGN and JSON written atomically
    /// (JSON last), the round file rewritten. Returns the new report's file text and
    /// version.
    ///
    /// # Errors
    /// See [`StoreError`].
    pub fn correct(
        &self,
        stem: &str,
        body: CorrectionBody,
    ) -> Result<(String, String), StoreError> {
        let game = self.game_lock(stem);
        let _held = lock(&game);
        let (report, version) = self.load(stem)?;
        if let Some(yours) = &body.version
            && *yours != version
        {
            return Err(StoreError::Conflict {
                yours: yours.clone(),
                now: version,
            });
        }
        let by = body.by.clone().unwrap_or_else(|| "desk".into());
        let new = match (&body.header, body.ply, &body.cell) {
            (Some(field), None, None) => {
                if body.mv.is_some() {
                    return Err(StoreError::Bad(
                        "a header correction takes `value`, not `move`".into(),
                    ));
                }
                let request = HeaderRequest {
                    field: field.clone(),
                    value: body.value.clone().unwrap_or_default(),
                    by,
                    at: now_utc(),
                };
                corrections::correct_headers(&report, &[request]).map_err(StoreError::Refused)?
            }
            (None, Some(_), None) | (None, None, Some(_)) => {
                self.correct_move(&report, &body, by)?
            }
            _ => {
                return Err(StoreError::Bad(
                    "give one of `ply`, `cell` (with `move`) or `header` (with `value`)".into(),
                ));
            }
        };
        let (text, version) = self.write(stem, &new)?;
        drop(_held);
        self.write_round();
        Ok((text, version))
    }

    fn correct_move(
        &self,
        report: &SheetReport,
        body: &CorrectionBody,
        by: String,
    ) -> Result<SheetReport, StoreError> {
        let Some(text) = body.mv.clone().filter(|t| !t.trim().is_empty()) else {
            return Err(StoreError::Bad("give the corrected `move`".into()));
        };
        if body.value.is_some() {
            return Err(StoreError::Bad(
                "a move correction takes `move`, not `value`".into(),
            ));
        }
        let (move_number, side) = match (body.ply, &body.cell) {
            (Some(ply), _) => corrections::cell_of_ply(report, ply),
            (None, Some(cell)) => corrections::parse_cell(cell),
            (None, None) => unreachable!("checked by the caller"),
        }
        .map_err(|e| StoreError::Refused(e.to_string()))?;
        let request = Request {
            move_number,
            side,
            text,
            by,
            at: now_utc(),
        };
        let settings = report.producer.settings.clone().unwrap_or_default();
        let mut params = PipelineParams::for_settings(&settings);
        params.decode.reading.notation = Some(report.notation.parse().unwrap_or(Notation::En));
        let pipeline = Pipeline::new(params);
        let reread = self
            .models
            .with(|m| pipeline.correct(report, &[request], m))
            .map_err(|e| match e {
                CorrectError::Check(e) => StoreError::Refused(e.to_string()),
                e @ (CorrectError::Holds(_) | CorrectError::Reread(RereadError::Conflicts(_))) => {
                    StoreError::Refused(e.to_string())
                }
                CorrectError::Reread(e) => StoreError::Failed(e.to_string()),
            })?;
        let mut new = reread.report;
        new.producer = Producer {
            tool: self.producer.tool.clone(),
            model: self.models.name.clone(),
            settings: Some(settings),
        };
        Ok(new)
    }

    /// Writes a game's PGN, then its JSON (atomically each); returns the JSON text and
    /// its version.
    fn write(&self, stem: &str, report: &SheetReport) -> Result<(String, String), StoreError> {
        let pgn = to_pgn(report, &PgnTags::default(), &report.producer.tool);
        let json = report.to_json();
        write_atomic(&self.out.join(format!("{stem}.pgn")), pgn.as_bytes())
            .and_then(|()| write_atomic(&self.json_path(stem), json.as_bytes()))
            .map_err(|e| StoreError::Failed(e.to_string()))?;
        let version = version_of(json.as_bytes());
        Ok((json, version))
    }

    /// Rewrites the round file (`--pgn-out`) from every report, in round and board
    /// order; a failure is one line on stderr.
    pub fn write_round(&self) {
        let Some(file) = &self.pgn_out else {
            return;
        };
        let _held = lock(&self.round);
        let mut games: Vec<_> = self
            .stems()
            .iter()
            .filter_map(|stem| self.load(stem).ok())
            .map(|(r, _)| {
                (
                    round_key(&r),
                    to_pgn(&r, &PgnTags::default(), &r.producer.tool),
                )
            })
            .collect();
        games.sort_by(|a, b| a.0.cmp(&b.0));
        let text: Vec<&str> = games.iter().map(|g| g.1.as_str()).collect();
        if let Err(e) = write_atomic(file, text.join("\n").as_bytes()) {
            super::super::diag(e);
        }
    }

    /// Removes what a killed writer left: hidden `.NAME.PID.tmp` files of `write_atomic`.
    pub fn sweep(&self) {
        let Ok(entries) = std::fs::read_dir(&self.out) else {
            return;
        };
        for e in entries.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && name.ends_with(".tmp") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_name_no_path() {
        for ok in ["r3b12", "hcs_142_0", "synth_de_3", "a.b-c_1"] {
            assert!(valid_stem(ok), "{ok}");
        }
        for bad in [
            "", ".", "..", ".hidden", "../x", "a/b", "a\\b", "%2e%2e", "a b", "é", "x\0",
        ] {
            assert!(!valid_stem(bad), "{bad:?}");
        }
        assert!(!valid_stem(&"a".repeat(201)));
    }

    #[test]
    fn versions_follow_the_bytes() {
        assert_eq!(version_of(b"{}"), version_of(b"{}"));
        assert_ne!(version_of(b"{}"), version_of(b"{ }"));
        assert_eq!(version_of(b"").len(), 16);
    }
}
