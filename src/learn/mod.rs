//! Reviewed output folders -> a collection's own reader: the cells whose move a human
//! settled, cut again as `read` cut them and labelled with the written form that
//! explains them; the base reader fine-tuned on them ([`tune`]); the new reader
//! checked on reviewed sheets kept apart, against the base, and refused if it reads
//! them worse; its calibration refitted on the settled moves or the base's kept; the
//! reader and its manifest written.
//!
//! What counts as settled (see `docs/learn.md`): a cell a human corrected, or
//! confirmed (the review page and the desk record a confirmation as a correction to
//! the move already there: `san` equal to `previous`); and, on a *reviewed* sheet
//! (at least one correction or confirmation, and no move still flagged), every move
//! read from a cell. A flagged move nobody settled never counts.

mod calibrate;
mod ctc;
mod net;
mod onnx_proto;
mod ops;
pub mod replay;
pub mod tune;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::Digest;

use crate::eval::{Truth, evaluate};
use crate::model::{
    Alphabet, CellModel, CellScores, Manifest, ModelError, OrtModel, RuntimeParams,
};
use crate::notation::{Notation, Script, piece_letter};
use crate::pipeline::{Pipeline, PipelineParams, SheetOptions, reload_game, reload_pages};
use crate::report::{ReportError, SheetReport, write_atomic};
use crate::vocab::Calibration;

pub use calibrate::CalibrationChoice;
pub use tune::{Example, TuneError, TuneParams, fine_tune};

/// Wraps the new reader before it is checked (tests give it a worse one, to see the
/// check refuse it).
pub type ReaderHook = fn(Box<dyn CellModel>) -> Box<dyn CellModel>;

/// `learn`'s fine-tuning steps and frozen convolutions, with half of each batch
/// replayed from the shipped pack: on a forms collection unlike the base's training
/// data (docs/measurements.md, "`learn` with replay"), training from the 22nd
/// convolution for 150 steps gained more than the engine's own default (the last
/// convolution and the head, 50 steps); without replay, the same training read the
/// held-out sheets worse and was refused.
pub const LEARN_STEPS: usize = 150;
pub const LEARN_FROZEN_CONVS: usize = 21;

/// What to learn from, and how.
#[derive(Clone, Debug)]
pub struct LearnOptions {
    /// The reviewed output folders (`read -o`, after `fix` / the desk).
    pub folders: Vec<PathBuf>,
    /// Where the new reader (`<name>.onnx`, `<name>.json`) is written.
    pub out: PathBuf,
    /// The base reader's manifest; `None`: the reader built into the binary.
    pub base: Option<PathBuf>,
    /// The new reader's name (default: the base's, `-learned` added).
    pub name: Option<String>,
    /// About this share of the reviewed sheets is kept apart to check the new reader
    /// (every `round(1 / share)`-th, at least one).
    pub holdout_share: f32,
    /// Cells replayed in every batch (their share is `tune.replay_share`; the cells
    /// themselves are loaded here, not taken from `tune.replay`).
    pub replay: ReplaySource,
    pub tune: TuneParams,
    pub runtime: RuntimeParams,
    #[doc(hidden)]
    pub new_reader_hook: Option<ReaderHook>,
}

impl LearnOptions {
    pub fn new(folders: Vec<PathBuf>, out: PathBuf) -> Self {
        LearnOptions {
            folders,
            out,
            base: None,
            name: None,
            holdout_share: 0.2,
            replay: ReplaySource::default(),
            tune: TuneParams {
                steps: LEARN_STEPS,
                frozen_convs: LEARN_FROZEN_CONVS,
                ..TuneParams::default()
            },
            runtime: RuntimeParams {
                threads: 2,
                ..RuntimeParams::default()
            },
            new_reader_hook: None,
        }
    }
}

/// How far `learn` has got, for a progress display.
#[derive(Clone, Debug)]
pub enum Event {
    /// Sheets looked at for settled cells.
    Collected { done: usize, total: usize },
    /// A fine-tuning step done, and its loss.
    Step {
        step: usize,
        steps: usize,
        loss: f32,
    },
    /// Sheets read to check the new reader and refit its calibration.
    Checked { done: usize, total: usize },
    /// A sheet left out, one line naming it and why.
    Skipped(String),
}

/// A reader's figures on the held-out sheets, against the moves the reviewer settled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Figures {
    pub plies: usize,
    pub plies_right: usize,
    pub flagged: usize,
    pub silent_errors: usize,
}

impl Figures {
    /// Fewer plies right, or more errors left unflagged.
    pub fn worse_than(&self, base: &Figures) -> bool {
        self.plies_right < base.plies_right || self.silent_errors > base.silent_errors
    }

    fn add(&mut self, o: &Figures) {
        self.plies += o.plies;
        self.plies_right += o.plies_right;
        self.flagged += o.flagged;
        self.silent_errors += o.silent_errors;
    }
}

impl std::fmt::Display for Figures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pct = |k: usize| 100.0 * k as f64 / self.plies.max(1) as f64;
        write!(
            f,
            "plies right {}/{} ({:.1}%), flagged {} ({:.1}%), silent errors {} ({:.1}%)",
            self.plies_right,
            self.plies,
            pct(self.plies_right),
            self.flagged,
            pct(self.flagged),
            self.silent_errors,
            pct(self.silent_errors)
        )
    }
}

/// The base reader a learned one came from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BaseReader {
    pub name: String,
    pub version: String,
    /// SHA-256 of its ONNX file, hex.
    pub sha256: String,
}

/// The fine-tuning settings used.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TuneRecord {
    pub steps: usize,
    pub batch: usize,
    pub lr: f64,
    pub seed: u64,
    /// Cells of the base reader's training data replayed, and their share of a batch.
    #[serde(default)]
    pub replay_cells: usize,
    #[serde(default)]
    pub replay_share: f32,
}

/// The `learned` section of a learned reader's manifest: where it came from and how
/// it did on the sheets kept apart.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Learned {
    pub base: BaseReader,
    pub folders: Vec<String>,
    /// Sheets and cells learned from.
    pub sheets: usize,
    pub cells: usize,
    /// Reviewed sheets kept apart (folder/name) and their settled plies.
    pub held_out: Vec<String>,
    pub held_out_plies: usize,
    /// The held-out figures of the base reader and of the new one.
    pub old: Figures,
    pub new: Figures,
    pub tune: TuneRecord,
    pub calibration: CalibrationChoice,
}

/// A reader written by [`learn`].
#[derive(Clone, Debug)]
pub struct Outcome {
    pub manifest: PathBuf,
    pub onnx: PathBuf,
    pub learned: Learned,
}

/// Why `learn` wrote nothing. Each is one line.
#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    #[error("{0}: no reports (<stem>.json) to learn from")]
    NoReports(String),
    #[error("nothing to learn: no move in {0} was corrected or confirmed by a reviewer")]
    NothingToLearn(String),
    #[error(
        "{0}: no sheet is reviewed through (every flagged move corrected or confirmed), so none can be kept apart to check the new reader on"
    )]
    NoneReviewed(String),
    #[error(
        "{0}: one reviewed sheet only, kept apart to check the new reader on; nothing left to learn from (review another)"
    )]
    NothingLeft(String),
    #[error("cannot load the base reader: {0}")]
    Base(#[from] ModelError),
    #[error("fine-tuning failed: {0}")]
    Tune(#[from] TuneError),
    #[error("no held-out sheet could be read again ({0})")]
    NoCheck(String),
    #[error(
        "refused: the new reader reads the {sheets} held-out sheet(s) worse (base: {old}; new: {new}); nothing written"
    )]
    Worse {
        sheets: usize,
        old: Figures,
        new: Figures,
    },
    #[error("cannot write the reader: {0}")]
    Write(#[from] ReportError),
    #[error(
        "cannot replay the base reader's cells: {0} (learn with --replay-share 0 to do without)"
    )]
    Replay(String),
}

/// Where the cells replayed while learning come from (none: `tune.replay_share` 0).
#[derive(Clone, Debug, Default)]
pub enum ReplaySource {
    /// The pack built into the binary ([`replay::shipped`]).
    #[default]
    Shipped,
    /// A pack's image and labels file ([`replay::load`]).
    Pack { png: PathBuf, labels: PathBuf },
}

/// One sheet of the reviewed folders.
struct Sheet {
    /// `folder/name` for messages.
    label: String,
    report: SheetReport,
    reviewed: bool,
    /// Index into `report.moves` -> the cell's label.
    settled: Vec<(usize, String)>,
}

/// The cells of `report` whose move a human settled, each with the text that explains
/// it, and whether the sheet is reviewed through (see the module docs).
fn settled_cells(report: &SheetReport) -> (bool, Vec<(usize, String)>) {
    let corrected: BTreeMap<(u32, &str), &crate::report::Correction> = report
        .corrections
        .iter()
        .map(|c| ((c.move_number, c.side.as_str()), c))
        .collect();
    // A flagged cell that adds no move (a slip, ink after the game's end) is nothing
    // a reviewer can confirm; a flagged *move* is what keeps a sheet unreviewed.
    let reviewed =
        !report.corrections.is_empty() && !report.moves.iter().any(|m| m.review && m.san.is_some());
    let n: Notation = report.notation.parse().unwrap_or(Notation::En);
    let mut out = Vec::new();
    for (i, m) in report.moves.iter().enumerate() {
        let Some(san) = m.san.as_deref() else {
            continue;
        };
        if m.bbox.is_none() {
            continue;
        }
        let human = corrected.get(&(m.move_number, m.side.as_str()));
        if human.is_none() && (m.review || !reviewed) {
            continue;
        }
        let typed = human
            .map(|c| c.input.trim())
            .filter(|t| !t.is_empty() && *t != san);
        let label = match (&m.written, typed) {
            (Some(w), _) => w.clone(),
            (None, Some(t)) => t.to_string(),
            (None, None) => in_notation(san, n),
        };
        out.push((i, label));
    }
    (reviewed, out)
}

/// An English SAN in the sheet's notation, as a player would write it (check marks
/// dropped: players often leave them out).
fn in_notation(san: &str, n: Notation) -> String {
    use shakmaty::Role;
    san.chars()
        .filter(|c| !matches!(c, '+' | '#'))
        .map(|c| {
            let role = match c {
                'K' => Some(Role::King),
                'Q' => Some(Role::Queen),
                'R' => Some(Role::Rook),
                'B' => Some(Role::Bishop),
                'N' => Some(Role::Knight),
                _ => None,
            };
            role.map_or_else(
                || c.to_string(),
                |r| piece_letter(n, r, Script::Display).to_string(),
            )
        })
        .collect()
}

/// The reports of a folder (`*.json` that parse as reports), sorted by name.
fn reports_in(dir: &Path) -> Vec<(String, SheetReport)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let r = SheetReport::load(&p).ok()?;
            Some((p.file_name()?.to_string_lossy().into_owned(), r))
        })
        .collect()
}

/// The sheets held out: every `k`-th reviewed sheet (`k = round(1 / share)`, at least
/// 2), in folder and name order; the last one when that picks none.
fn held_out(reviewed: &[usize], share: f32) -> BTreeSet<usize> {
    let k = if share > 0.0 {
        ((1.0 / share).round() as usize).max(2)
    } else {
        usize::MAX
    };
    let mut out: BTreeSet<usize> = reviewed
        .iter()
        .enumerate()
        .filter(|(i, _)| (i + 1) % k == 0)
        .map(|(_, &s)| s)
        .collect();
    if out.is_empty()
        && let Some(&last) = reviewed.last()
    {
        out.insert(last);
    }
    out
}

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A reader with a calibration of our choosing (none: the decoder's own shares).
struct Calibrated<'a> {
    inner: &'a mut dyn CellModel,
    cal: Option<Calibration>,
}

impl CellModel for Calibrated<'_> {
    fn alphabet(&self) -> &Alphabet {
        self.inner.alphabet()
    }
    fn read(&mut self, cells: &[image::GrayImage]) -> Result<Vec<CellScores>, ModelError> {
        self.inner.read(cells)
    }
    fn read_once(&mut self, cells: &[image::GrayImage]) -> Result<Vec<CellScores>, ModelError> {
        self.inner.read_once(cells)
    }
    fn calibration(&self) -> Option<&Calibration> {
        self.cal.as_ref()
    }
}

/// Reads a reviewed sheet again from its images, with nothing locked, as `fix` reads
/// it (its notation and reading settings; the review threshold the reader's own).
fn read_again(report: &SheetReport, model: &mut dyn CellModel) -> Result<SheetReport, String> {
    let settings = report.producer.settings.clone().unwrap_or_default();
    let mut params = PipelineParams::for_settings(&settings);
    params.review_below = None;
    params.decode.reading.notation = report.notation.parse().ok();
    let copies = reload_game(report, &params.page).map_err(|e| e.to_string())?;
    let options = SheetOptions {
        locked: BTreeMap::new(),
        header_rows: report.header_rows(),
        ..Default::default()
    };
    Pipeline::new(params)
        .read_game(copies, model, &options)
        .map(|g| g.report)
        .map_err(|e| e.to_string())
}

/// The settled game of a reviewed sheet: its moves' SAN by ply.
fn settled_game(report: &SheetReport) -> Vec<String> {
    report
        .moves
        .iter()
        .filter(|m| m.ply.is_some())
        .filter_map(|m| m.san.clone())
        .collect()
}

fn figures(read: &SheetReport, truth: &[String]) -> Figures {
    let e = evaluate(
        read,
        &Truth {
            labels: Default::default(),
            game: Some(truth.to_vec()),
        },
    );
    Figures {
        plies: e.plies,
        plies_right: e.plies_right,
        flagged: e.plies_flagged,
        silent_errors: e.plies_silent_errors,
    }
}

/// Loads the base reader: its manifest and ONNX bytes.
fn load_base(base: Option<&Path>) -> Result<(Manifest, Vec<u8>), ModelError> {
    match base {
        Some(path) => {
            let manifest = Manifest::load(path)?;
            let onnx = path.parent().unwrap_or(Path::new(".")).join(&manifest.onnx);
            let bytes = std::fs::read(&onnx).map_err(|e| ModelError::Load {
                path: onnx.display().to_string(),
                reason: e.to_string(),
            })?;
            Ok((manifest, bytes))
        }
        None => {
            let (json, bytes) = crate::model::embedded_model().ok_or_else(|| ModelError::Load {
                path: "<embedded>".into(),
                reason: "this binary was built without a model in models/; pass --model".into(),
            })?;
            Ok((
                Manifest::from_json(json, "<embedded manifest>")?,
                bytes.to_vec(),
            ))
        }
    }
}

/// Learns a reader from the reviewed folders (see the module docs) and writes it to
/// `options.out`; `progress` hears of each stage and of each sheet left out.
///
/// # Errors
/// See [`LearnError`]: no reports, nothing settled, no reviewed sheet to check on,
/// the base reader or the fine-tuning failing, a new reader that reads the held-out
/// sheets worse (nothing is written then), or the files not written.
pub fn learn(
    options: &LearnOptions,
    progress: &mut dyn FnMut(Event),
) -> Result<Outcome, LearnError> {
    let folders: Vec<String> = options
        .folders
        .iter()
        .map(|f| f.display().to_string())
        .collect();
    let all = folders.join(", ");
    let mut sheets = Vec::new();
    for (dir, shown) in options.folders.iter().zip(&folders) {
        let reports = reports_in(dir);
        if reports.is_empty() {
            return Err(LearnError::NoReports(shown.clone()));
        }
        for (name, report) in reports {
            let (reviewed, settled) = settled_cells(&report);
            sheets.push(Sheet {
                label: Path::new(shown).join(&name).display().to_string(),
                report,
                reviewed,
                settled,
            });
        }
    }
    if sheets.iter().all(|s| s.settled.is_empty()) {
        return Err(LearnError::NothingToLearn(all));
    }
    let reviewed: Vec<usize> = (0..sheets.len()).filter(|&i| sheets[i].reviewed).collect();
    if reviewed.is_empty() {
        return Err(LearnError::NoneReviewed(all));
    }
    let held = held_out(&reviewed, options.holdout_share);
    let (manifest, base_bytes) = load_base(options.base.as_deref())?;
    let alphabet = manifest.alphabet();

    // The settled cells of the sheets not held out, cut again from their pages.
    let mut examples = Vec::new();
    let mut learned_sheets = Vec::new();
    let total = sheets.len();
    for (i, sheet) in sheets.iter().enumerate() {
        progress(Event::Collected { done: i, total });
        if held.contains(&i) || sheet.settled.is_empty() {
            continue;
        }
        let pages = match reload_pages(&sheet.report, &Default::default()) {
            Ok(p) => p,
            Err(e) => {
                progress(Event::Skipped(format!(
                    "{}: its image cannot be read again ({e}); left out",
                    sheet.label
                )));
                continue;
            }
        };
        let before = examples.len();
        for (at, label) in &sheet.settled {
            let m = &sheet.report.moves[*at];
            let (Some(b), Some(page)) = (m.bbox, pages.get(m.sheet.unwrap_or(0))) else {
                continue;
            };
            let Some(target) = alphabet.encode(label) else {
                continue;
            };
            let (w, h) = page.image.dimensions();
            if b[0] + b[2] > w || b[1] + b[3] > h || b[2] == 0 || b[3] == 0 {
                continue;
            }
            let crop = image::imageops::crop_imm(&page.image, b[0], b[1], b[2], b[3]).to_image();
            examples.push(Example {
                crop,
                target: target.into_iter().map(|c| c as u32).collect(),
            });
        }
        if examples.len() > before {
            learned_sheets.push(i);
        }
    }
    progress(Event::Collected { done: total, total });
    if examples.is_empty() {
        return Err(if held.len() == 1 && reviewed.len() == 1 {
            LearnError::NothingLeft(all)
        } else {
            LearnError::NothingToLearn(all)
        });
    }

    let mut params = options.tune.clone();
    params.replay = match &options.replay {
        _ if params.replay_share == 0.0 => Vec::new(),
        ReplaySource::Shipped => replay::shipped(&manifest).map_err(LearnError::Replay)?,
        ReplaySource::Pack { png, labels } => {
            replay::load(png, labels, &manifest).map_err(LearnError::Replay)?
        }
    };
    let params = &params;
    let new_bytes = fine_tune(
        &base_bytes,
        &manifest,
        &examples,
        params,
        &mut |step, steps, loss| progress(Event::Step { step, steps, loss }),
    )?;

    let runtime = &options.runtime;
    let mut base = OrtModel::from_parts(manifest.clone(), &base_bytes, "<base reader>", runtime)?;
    let new = OrtModel::from_parts(manifest.clone(), &new_bytes, "<new reader>", runtime)?;
    let mut new: Box<dyn CellModel> = Box::new(new);
    if let Some(hook) = options.new_reader_hook {
        new = hook(new);
    }

    // The held-out sheets with both readers, the new one without calibration (for
    // its refit); the reviewed sheets learned from, for the refit.
    let fit_sheets: Vec<usize> = learned_sheets
        .iter()
        .copied()
        .filter(|&i| sheets[i].reviewed)
        .collect();
    let steps_total = 3 * held.len() + fit_sheets.len();
    let mut done = 0;
    let mut old = Figures::default();
    let mut checked = Vec::new();
    let mut judge_on = Vec::new();
    for &i in &held {
        progress(Event::Checked {
            done,
            total: steps_total,
        });
        let sheet = &sheets[i];
        let truth = settled_game(&sheet.report);
        let base_read = read_again(&sheet.report, &mut base);
        done += 1;
        let raw = read_again(
            &sheet.report,
            &mut Calibrated {
                inner: new.as_mut(),
                cal: None,
            },
        );
        done += 1;
        match (base_read, raw) {
            (Ok(b), Ok(r)) => {
                old.add(&figures(&b, &truth));
                judge_on.extend(calibrate::samples(&r, &truth));
                checked.push(i);
            }
            (Err(e), _) | (_, Err(e)) => progress(Event::Skipped(format!(
                "{}: held out, but cannot be read again ({e}); left out of the check",
                sheet.label
            ))),
        }
    }
    if checked.is_empty() {
        return Err(LearnError::NoCheck(all));
    }
    let mut fit_on = Vec::new();
    for &i in &fit_sheets {
        progress(Event::Checked {
            done,
            total: steps_total,
        });
        let sheet = &sheets[i];
        let raw = read_again(
            &sheet.report,
            &mut Calibrated {
                inner: new.as_mut(),
                cal: None,
            },
        );
        done += 1;
        if let Ok(r) = raw {
            fit_on.extend(calibrate::samples(&r, &settled_game(&sheet.report)));
        }
    }
    let (cal, choice) = calibrate::choose(manifest.calibration.as_ref(), &fit_on, &judge_on);
    let mut fresh = Figures::default();
    for &i in &checked {
        progress(Event::Checked {
            done,
            total: steps_total,
        });
        let sheet = &sheets[i];
        let read = read_again(
            &sheet.report,
            &mut Calibrated {
                inner: new.as_mut(),
                cal: cal.clone(),
            },
        )
        .map_err(|e| LearnError::NoCheck(format!("{}: {e}", sheet.label)))?;
        done += 1;
        fresh.add(&figures(&read, &settled_game(&sheet.report)));
    }
    progress(Event::Checked {
        done: steps_total,
        total: steps_total,
    });
    if fresh.worse_than(&old) {
        return Err(LearnError::Worse {
            sheets: checked.len(),
            old,
            new: fresh,
        });
    }

    let sha = sha256_hex(&new_bytes);
    let name = options
        .name
        .clone()
        .unwrap_or_else(|| format!("{}-learned", manifest.name));
    let learned = Learned {
        base: BaseReader {
            name: manifest.name.clone(),
            version: manifest.version.clone(),
            sha256: sha256_hex(&base_bytes),
        },
        folders,
        sheets: learned_sheets.len(),
        cells: examples.len(),
        held_out: checked.iter().map(|&i| sheets[i].label.clone()).collect(),
        held_out_plies: old.plies,
        old,
        new: fresh,
        tune: TuneRecord {
            steps: params.steps,
            batch: params.batch,
            // As given (an f32 widened would print 9.99e-5 for 1e-4).
            lr: params
                .lr
                .to_string()
                .parse()
                .unwrap_or(f64::from(params.lr)),
            seed: params.seed,
            replay_cells: params.replay.len(),
            replay_share: if params.replay.is_empty() {
                0.0
            } else {
                params.replay_share
            },
        },
        calibration: choice,
    };
    let mut out_manifest = manifest.clone();
    out_manifest.name = name.clone();
    out_manifest.version = format!("{}+learned.{}", manifest.version, &sha[..8]);
    out_manifest.onnx = format!("{name}.onnx");
    out_manifest.calibration = cal;
    // The base's training figures are not this reader's; `learned` holds its own.
    out_manifest.metrics = serde_json::Value::Null;
    let mut json = serde_json::to_value(&out_manifest).expect("a manifest serialises");
    json["learned"] = serde_json::to_value(&learned).expect("figures serialise");
    std::fs::create_dir_all(&options.out).map_err(|e| ReportError::Write {
        path: options.out.display().to_string(),
        reason: e.to_string(),
    })?;
    let onnx = options.out.join(&out_manifest.onnx);
    let manifest_path = options.out.join(format!("{name}.json"));
    write_atomic(&onnx, &new_bytes)?;
    let text = serde_json::to_string_pretty(&json).expect("JSON") + "\n";
    write_atomic(&manifest_path, text.as_bytes())?;
    Ok(Outcome {
        manifest: manifest_path,
        onnx,
        learned,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fifth_reviewed_sheet_is_held_out_and_at_least_one() {
        let r: Vec<usize> = (10..22).collect();
        assert_eq!(
            held_out(&r, 0.2).into_iter().collect::<Vec<_>>(),
            vec![14, 19]
        );
        assert_eq!(
            held_out(&[3, 7], 0.2).into_iter().collect::<Vec<_>>(),
            vec![7]
        );
        assert_eq!(
            held_out(&[3, 7], 0.5).into_iter().collect::<Vec<_>>(),
            vec![7]
        );
    }

    #[test]
    fn moves_are_written_in_the_sheet_notation() {
        assert_eq!(in_notation("Nxf3+", Notation::Ru), "Кxf3");
        assert_eq!(in_notation("Kg1", Notation::Ru), "Крg1");
        assert_eq!(in_notation("e8=Q#", Notation::De), "e8=D");
        assert_eq!(in_notation("O-O", Notation::Pl), "O-O");
        assert_eq!(in_notation("Bb5", Notation::En), "Bb5");
    }

    #[test]
    fn figures_worse_means_fewer_right_or_more_silent_errors() {
        let base = Figures {
            plies: 100,
            plies_right: 90,
            flagged: 12,
            silent_errors: 2,
        };
        let same = base;
        assert!(!same.worse_than(&base));
        let fewer = Figures {
            plies_right: 89,
            ..base
        };
        assert!(fewer.worse_than(&base));
        let silent = Figures {
            plies_right: 95,
            silent_errors: 3,
            ..base
        };
        assert!(silent.worse_than(&base));
        let better = Figures {
            plies_right: 93,
            flagged: 8,
            silent_errors: 1,
            ..base
        };
        assert!(!better.worse_than(&base));
        assert!(better.to_string().contains("plies right 93/100 (93.0%)"));
    }
}
