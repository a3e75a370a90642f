//! `scoresheet learn` end to end on the bundled samples: a tiny reviewed folder (a
//! few cells confirmed on one sheet, another reviewed through) learns and writes a
//! reader that `read --model` loads; a folder with nothing settled is refused with
//! one line; the held-out check refuses a reader that reads worse.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use scoresheet::CellModel;
use scoresheet::learn::{self, LearnError, LearnOptions};
use scoresheet::model::{Alphabet, CellScores, ModelError};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scoresheet() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_scoresheet"));
    c.current_dir(root());
    c
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("scoresheet runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn report(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("report")).expect("JSON")
}

/// Confirms moves of a report (corrections to the move already there) through a
/// corrections file and `fix --apply`, as the review page's Enter does.
fn confirm(out: &Path, name: &str, cells: &[(u64, String, String)]) {
    let corrections: Vec<serde_json::Value> = cells
        .iter()
        .map(|(n, side, san)| {
            serde_json::json!({"report": name, "move": n, "side": side, "san": san, "input": san})
        })
        .collect();
    let file = out.join("confirm.corrections");
    let body = serde_json::json!({"format": "scoresheet-corrections", "corrections": corrections});
    std::fs::write(&file, body.to_string()).unwrap();
    let o = run(scoresheet()
        .args(["fix", "--by", "test", "--apply"])
        .arg(&file)
        .arg(out));
    assert!(o.status.success(), "fix: {}", stderr(&o));
    std::fs::remove_file(&file).unwrap();
}

/// The moves of a report: (move number, side, SAN, flagged).
fn moves(r: &serde_json::Value) -> Vec<(u64, String, String, bool)> {
    r["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["san"].is_string() && m["box"].is_array())
        .map(|m| {
            (
                m["move"].as_u64().unwrap(),
                m["side"].as_str().unwrap().to_string(),
                m["san"].as_str().unwrap().to_string(),
                m["review"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

/// Two samples read into `dir/out`: `hcs_142_0` with its first three moves confirmed
/// (a few settled cells; kept for learning), `synth_ru_1` reviewed through (every
/// flagged move confirmed until none is left; held out, as the last reviewed sheet).
fn reviewed_folder(dir: &Path) -> PathBuf {
    let out = dir.join("out");
    let o = run(scoresheet()
        .args([
            "read",
            "samples/hcs_142_0.jpg",
            "samples/synth_ru_1.jpg",
            "-q",
            "-o",
        ])
        .arg(&out));
    assert!(o.status.success(), "read: {}", stderr(&o));
    let first: Vec<_> = moves(&report(&out.join("hcs_142_0.json")))
        .into_iter()
        .take(3)
        .map(|(n, s, san, _)| (n, s, san))
        .collect();
    confirm(&out, "hcs_142_0.json", &first);
    for _ in 0..4 {
        let flagged: Vec<_> = moves(&report(&out.join("synth_ru_1.json")))
            .into_iter()
            .filter(|m| m.3)
            .map(|(n, s, san, _)| (n, s, san))
            .collect();
        if flagged.is_empty() {
            break;
        }
        confirm(&out, "synth_ru_1.json", &flagged);
    }
    let r = report(&out.join("synth_ru_1.json"));
    assert!(
        moves(&r).iter().all(|m| !m.3) && !r["corrections"].as_array().unwrap().is_empty(),
        "synth_ru_1 reviewed through"
    );
    out
}

#[test]
fn a_reviewed_folder_learns_a_reader_that_read_loads() {
    let dir = tempfile::tempdir().unwrap();
    let out = reviewed_folder(dir.path());
    let models = dir.path().join("models");
    // One tiny step: the check compares the readers, whatever the engine makes of it.
    let o = run(scoresheet()
        .args([
            "learn", "-q", "--steps", "1", "--batch", "4", "--lr", "1e-7", "-o",
        ])
        .arg(&models)
        .arg(&out));
    assert!(o.status.success(), "learn: {}", stderr(&o));
    let manifest = models.join("cellreader-learned.json");
    let m = report(&manifest);
    let learned = &m["learned"];
    assert_eq!(learned["base"]["name"], "cellreader");
    assert_eq!(learned["base"]["sha256"].as_str().unwrap().len(), 64);
    // The three confirmed cells of hcs_142_0 (its other moves are not settled).
    assert_eq!(learned["sheets"], 1, "{learned}");
    assert_eq!(learned["cells"], 3, "{learned}");
    assert!(
        learned["held_out"][0]
            .as_str()
            .unwrap()
            .ends_with("synth_ru_1.json")
    );
    assert!(learned["old"]["plies"].as_u64().unwrap() > 50);
    assert!(["kept", "refitted"].contains(&learned["calibration"]["decision"].as_str().unwrap()));
    assert!(models.join("cellreader-learned.onnx").is_file());
    assert!(stderr(&o).contains("plies right"), "{}", stderr(&o));
    // Half of each batch replayed from the pack built into the binary.
    assert_eq!(learned["tune"]["replay_share"], 0.5, "{learned}");
    assert_eq!(learned["tune"]["replay_cells"], 2000, "{learned}");

    // A replay pack that is not there: one line, nothing written.
    let elsewhere = dir.path().join("elsewhere");
    let o = run(scoresheet()
        .args([
            "learn",
            "-q",
            "--steps",
            "1",
            "--replay-cells",
            "no-such-pack.png",
            "-o",
        ])
        .arg(&elsewhere)
        .arg(&out));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot replay the base reader's cells: no-such-pack.png"),
        "{err}"
    );
    assert!(!elsewhere.exists());

    let again = dir.path().join("again");
    let o = run(scoresheet()
        .args(["read", "samples/hcs_142_0.jpg", "-q", "--model"])
        .arg(&manifest)
        .arg("-o")
        .arg(&again));
    assert!(o.status.success(), "read --model: {}", stderr(&o));
    assert_eq!(
        report(&again.join("hcs_142_0.json"))["producer"]["model"],
        "cellreader-learned"
    );
}

#[test]
fn a_folder_with_nothing_settled_is_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run(scoresheet()
        .args(["read", "samples/hcs_142_0.jpg", "-q", "-o"])
        .arg(&out));
    assert!(o.status.success(), "read: {}", stderr(&o));
    let models = dir.path().join("models");
    let o = run(scoresheet()
        .args(["learn", "-q", "-o"])
        .arg(&models)
        .arg(&out));
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("nothing to learn: no move in")
            && err.contains("was corrected or confirmed by a reviewer"),
        "{err}"
    );
    assert!(!models.exists());

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = run(scoresheet()
        .args(["learn", "-q", "-o"])
        .arg(&models)
        .arg(&empty));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no reports"), "{}", stderr(&o));
}

/// The new reader with every other cell it reads blurred to no opinion (each glyph
/// equally likely at every step): a reader that reads the held-out sheet worse.
struct Blurred(Box<dyn CellModel>);

impl CellModel for Blurred {
    fn alphabet(&self) -> &Alphabet {
        self.0.alphabet()
    }
    fn read(&mut self, cells: &[image::GrayImage]) -> Result<Vec<CellScores>, ModelError> {
        let mut out = self.0.read(cells)?;
        for s in out.iter_mut().step_by(2) {
            let flat = -(s.classes as f32).ln();
            *s = CellScores::new(s.steps, s.classes, vec![flat; s.steps * s.classes]);
        }
        Ok(out)
    }
    fn calibration(&self) -> Option<&scoresheet::vocab::Calibration> {
        self.0.calibration()
    }
}

fn blurred(inner: Box<dyn CellModel>) -> Box<dyn CellModel> {
    Box::new(Blurred(inner))
}

#[test]
fn the_held_out_check_refuses_a_reader_that_reads_worse() {
    let dir = tempfile::tempdir().unwrap();
    let out = reviewed_folder(dir.path());
    let models = dir.path().join("models");
    let mut options = LearnOptions::new(vec![out], models.clone());
    options.tune.steps = 1;
    options.tune.batch = 4;
    options.tune.lr = 1e-7;
    options.new_reader_hook = Some(blurred);
    let err = learn::learn(&options, &mut |_| {}).unwrap_err();
    let LearnError::Worse { sheets, old, new } = &err else {
        panic!("expected a refusal, got {err}");
    };
    assert_eq!(*sheets, 1);
    assert!(new.plies_right < old.plies_right, "{old} vs {new}");
    let line = err.to_string();
    assert!(
        line.starts_with("refused: ") && line.contains(&old.to_string()),
        "{line}"
    );
    assert!(!models.join("cellreader-learned.json").exists());
    assert!(!models.join("cellreader-learned.onnx").exists());
}
