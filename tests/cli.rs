//! The `scoresheet` binary end to end: samples against their expected PGN, every
//! failure case of a batch, corrections that survive re-runs, illegal corrections.
//!
//! One test binary, temp dirs, the real model built into the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use shakmaty::san::San;
use shakmaty::{Chess, Position};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_scoresheet"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("run scoresheet");
    eprintln!(
        "--- {:?}\nstatus {:?}\nstderr:\n{}",
        cmd,
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// SAN moves of the first game of a PGN text (comments and numbers skipped).
fn pgn_moves(text: &str) -> Vec<String> {
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = Vec::new();
    let mut depth = 0;
    let mut token = String::new();
    for c in body.chars().chain(std::iter::once(' ')) {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            c if depth > 0 => {
                let _ = c;
            }
            c if c.is_whitespace() => {
                let t = std::mem::take(&mut token);
                let t = t.trim_start_matches(|ch: char| ch.is_ascii_digit() || ch == '.');
                if !t.is_empty() && !["*", "1-0", "0-1", "1/2-1/2"].contains(&t) {
                    out.push(t.to_string());
                }
            }
            c => token.push(c),
        }
    }
    out
}

/// The sample sheets and their expected games: `samples/<stem>.<ext>` with
/// `samples/<stem>.expected.pgn`.
fn samples() -> Vec<(PathBuf, Vec<String>)> {
    let dir = root().join("samples");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).expect("samples/ exists") {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".expected.pgn") {
            let text = std::fs::read_to_string(&p).unwrap();
            out.push((PathBuf::from(stem), pgn_moves(&text)));
        }
    }
    out.sort();
    out
}

#[test]
fn samples_read_close_to_their_expected_games() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(bin().args(["read", "samples", "-o"]).arg(dir.path()).current_dir(root()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let samples = samples();
    assert!(samples.len() >= 3, "expected at least 3 samples with expected PGN");
    for (stem, want) in samples {
        let pgn_path = dir.path().join(&stem).with_extension("pgn");
        let pgn = std::fs::read_to_string(&pgn_path).unwrap_or_else(|e| panic!("{}: {e}", pgn_path.display()));
        let got = pgn_moves(&pgn);
        // Every output game replays legally.
        let mut pos = Chess::default();
        for san in &got {
            let m = san
                .parse::<San>()
                .ok()
                .and_then(|s| s.to_move(&pos).ok())
                .unwrap_or_else(|| panic!("{}: `{san}` does not replay", stem.display()));
            pos.play_unchecked(m);
        }
        let same = want.iter().zip(&got).filter(|(a, b)| a.trim_end_matches(['+', '#']) == b.trim_end_matches(['+', '#'])).count();
        let share = same as f64 / want.len() as f64;
        eprintln!("{}: {same}/{} plies as expected ({:.1}%)", stem.display(), want.len(), 100.0 * share);
        // Tolerance: the samples are real handwriting; 90% of the expected plies
        // must come out in place (see samples/README.md).
        assert!(share >= 0.90, "{}: only {same} of {} plies as expected", stem.display(), want.len());
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join(&stem).with_extension("json")).unwrap()).unwrap();
        for key in ["source", "notation", "status", "moves"] {
            assert!(json.get(key).is_some(), "{}: JSON lacks `{key}`", stem.display());
        }
    }
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// A PNG whose header claims `w x h` pixels, with no image data.
fn png_header(w: u32, h: u32) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = b"IHDR".to_vec();
    chunk.extend(w.to_be_bytes());
    chunk.extend(h.to_be_bytes());
    chunk.extend([8, 0, 0, 0, 0]);
    out.extend(13u32.to_be_bytes());
    out.extend(&chunk);
    out.extend(crc32(&chunk).to_be_bytes());
    out
}

/// A real sheet from the samples to pair with bad files.
fn good_sheet() -> PathBuf {
    let mut sheets: Vec<PathBuf> = std::fs::read_dir(root().join("samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jpg" || x == "png"))
        .collect();
    sheets.sort();
    sheets.remove(0)
}

#[test]
fn each_bad_file_gets_one_line_and_the_batch_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let scans = dir.path().join("scans");
    std::fs::create_dir(&scans).unwrap();
    let good = good_sheet();
    std::fs::copy(&good, scans.join("good.jpg")).unwrap();
    std::fs::write(scans.join("notes.png"), b"this is not an image\n").unwrap();
    std::fs::write(scans.join("empty.jpg"), b"").unwrap();
    let jpeg = std::fs::read(&good).unwrap();
    std::fs::write(scans.join("truncated.jpg"), &jpeg[..jpeg.len() / 3]).unwrap();
    std::fs::write(scans.join("huge.png"), png_header(100_000, 100_000)).unwrap();
    let out_dir = dir.path().join("out");
    let out = run(bin().args(["read", "-q", "-o"]).arg(&out_dir).arg(&scans));
    assert_eq!(out.status.code(), Some(1), "some sheets failed: exit 1");
    let err = stderr(&out);
    for (name, why) in [
        ("notes.png", "not an image"),
        ("empty.jpg", "empty"),
        ("truncated.jpg", ""),
        ("huge.png", "too large"),
    ] {
        let line = err
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no diagnostic names {name}:\n{err}"));
        assert!(line.starts_with("scoresheet: "), "{line}");
        assert!(line.contains(why), "{name}: `{line}` should say `{why}`");
    }
    assert!(out_dir.join("good.pgn").is_file() && out_dir.join("good.json").is_file());
    for bad in ["notes", "empty", "truncated", "huge"] {
        assert!(!out_dir.join(format!("{bad}.pgn")).exists(), "{bad} must have no output");
    }
    let leftovers: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn unwritable_output_folder_is_a_setup_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let out = run(bin().args(["read", "-q", "-o"]).arg(file.join("out")).arg(good_sheet()));
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains("cannot create output folder"), "{err}");
}

#[test]
fn missing_path_and_usage_errors() {
    let out = run(bin().args(["read", "-q", "/no/such/sheet.jpg"]));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("/no/such/sheet.jpg: no such file"));
    let out = run(bin().args(["read", "--notation", "xx", "x.jpg"]));
    assert_eq!(out.status.code(), Some(2));
    let out = run(bin().args(["frobnicate"]));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn corrections_are_locked_survive_reruns_and_illegal_ones_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let sheet = good_sheet();
    let stem = sheet.file_stem().unwrap().to_string_lossy().into_owned();
    let out = run(bin().args(["read", "-q", "-o"]).arg(&out_dir).arg(&sheet));
    assert_eq!(out.status.code(), Some(0));
    let json = out_dir.join(format!("{stem}.json"));
    // Correct ply 6 (3... Black) to another legal move.
    let ply = 6;
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let m = report["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["ply"].as_u64() == Some(ply))
        .expect("the sample has a ply 6")
        .clone();
    let mut pos = Chess::default();
    for mv in report["moves"].as_array().unwrap() {
        if mv["ply"].as_u64().is_some_and(|p| p < ply) {
            let m = mv["san"].as_str().unwrap().parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
        }
    }
    let decoded = m["san"].as_str().unwrap().to_string();
    let other = pos
        .legal_moves()
        .iter()
        .map(|mv| San::from_move(&pos, *mv).to_string())
        .find(|s| *s != decoded.trim_end_matches(['+', '#']))
        .unwrap();

    // An illegal correction changes nothing: Black's king cannot be on e4 by move 3.
    let before = std::fs::read(&json).unwrap();
    let out = run(bin().arg("fix").arg(&json).args(["--ply", &ply.to_string(), "Ke4"]));
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains(&format!("ply {ply}")) && err.contains("no black king can reach e4"), "{err}");
    assert_eq!(std::fs::read(&json).unwrap(), before, "an illegal fix must not touch the report");

    // A legal correction is locked and recorded.
    let out = run(bin().arg("fix").arg(&json).args(["--ply", &ply.to_string(), &other, "--by", "arbiter"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let fixed: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let c = &fixed["corrections"][0];
    assert_eq!(c["san"].as_str().unwrap().trim_end_matches(['+', '#']), other);
    assert_eq!(c["by"], "arbiter");
    assert_eq!(c["previous"].as_str(), Some(decoded.as_str()));
    let at_ply = |v: &serde_json::Value| {
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|mv| mv["move"] == m["move"] && mv["side"] == m["side"] && mv["box"].is_array())
            .map(|mv| (mv["san"].as_str().unwrap_or("").to_string(), mv["state"].as_str().unwrap_or("").to_string()))
            .unwrap()
    };
    let (san, state) = at_ply(&fixed);
    assert_eq!(san.trim_end_matches(['+', '#']), other);
    assert_eq!(state, "locked");

    // A re-run of read over the same folder keeps the correction.
    let out = run(bin().args(["read", "-q", "-o"]).arg(&out_dir).arg(&sheet));
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("kept 1 human correction"), "{}", stderr(&out));
    let rerun: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(rerun["corrections"], fixed["corrections"]);
    assert_eq!(at_ply(&rerun).0.trim_end_matches(['+', '#']), other);
    let pgn = std::fs::read_to_string(out_dir.join(format!("{stem}.pgn"))).unwrap();
    assert!(pgn_moves(&pgn).iter().any(|s| s.trim_end_matches(['+', '#']) == other));
}

#[test]
fn convert_prints_pgn() {
    let mut child = bin()
        .args(["convert", "--notation", "ru"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all("1. e2-e4 e7-e5 2. Кg1-f3 Кb8-c6 3. Сf1-b5".as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(pgn_moves(&text), ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
}
