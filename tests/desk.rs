//! Issue 51, the tournament desk: corrections of one game that hold together (a set
//! checked in the order of the game, each against the game with the earlier ones
//! applied), and `scoresheet desk` end to end over HTTP on loopback: the API, its
//! refusals (illegal moves, conflicts, path traversal, a missing token), the watcher,
//! kill -9 losing no acknowledged correction, and a bounded load test.
//!
//! Temp dirs, the real model built into the binary, a minimal HTTP/1.1 client over
//! `std::net::TcpStream`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use shakmaty::san::San;
use shakmaty::{Chess, Move, Position};

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

fn load(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("report")).expect("json")
}

/// `read -q -o OUT sheet`; the report.
fn read_sample(out: &Path, sample: &str) -> serde_json::Value {
    let o = run(bin()
        .args(["read", "-q", "-o"])
        .arg(out)
        .arg(root().join("samples").join(sample)));
    assert_eq!(o.status.code(), Some(0));
    let stem = Path::new(sample).file_stem().unwrap().to_str().unwrap();
    load(&out.join(format!("{stem}.json")))
}

/// The report's game: for each move entry with a cell, its index in `moves`, the
/// position before it and its move.
fn replay(report: &serde_json::Value) -> Vec<(usize, Chess, Move)> {
    let mut pos = Chess::default();
    let mut out = Vec::new();
    for (i, m) in report["moves"].as_array().unwrap().iter().enumerate() {
        let (Some(_), Some(san)) = (m["ply"].as_u64(), m["san"].as_str()) else {
            continue;
        };
        let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        if !m["box"].is_null() {
            out.push((i, pos.clone(), mv));
        }
        pos.play_unchecked(mv);
    }
    out
}

/// Pairs of corrections (cell k: move A, cell k+2: move B) where B is illegal in the
/// decoded game and legal once A is played (and the reply between them is kept): the
/// piece A moves, moved on.
fn dependent_pairs(report: &serde_json::Value) -> Vec<(usize, String, usize, String)> {
    let game = replay(report);
    let moves = report["moves"].as_array().unwrap();
    let mut pairs = Vec::new();
    for w in game.windows(3) {
        let [(k, pos, decoded), (_, _, reply), (k2, pos2, _)] = w else {
            continue;
        };
        let cell = |i: usize| (moves[i]["move"].as_u64(), moves[i]["side"].clone());
        if cell(*k).0.map(|n| n + 1) != cell(*k2).0 || cell(*k).1 != cell(*k2).1 {
            continue;
        }
        let legal_before: Vec<String> = pos2
            .legal_moves()
            .iter()
            .map(|m| San::from_move(pos2, *m).to_string())
            .collect();
        for a in pos.legal_moves() {
            if a == *decoded || a.role() == shakmaty::Role::King || a.is_castle() {
                continue;
            }
            let mut p = pos.clone();
            p.play_unchecked(a);
            if !p.is_legal(*reply) {
                continue;
            }
            p.play_unchecked(*reply);
            let b = p.legal_moves().into_iter().find(|b| {
                b.from() == Some(a.to())
                    && !legal_before.contains(&San::from_move(&p, *b).to_string())
            });
            if let Some(b) = b {
                let a_san = San::from_move(pos, a).to_string();
                pairs.push((*k, a_san, *k2, San::from_move(&p, b).to_string()));
                break;
            }
        }
    }
    pairs
}

#[test]
fn corrections_whose_later_moves_hold_only_after_the_earlier_ones_apply_in_full() {
    // The desk's case: a reviewer sets 11... Be6, then 13... O-O, where the decoded
    // game had castled at move 11. Each correction is checked against the game with
    // the earlier ones applied, not against the game as decoded.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let report = read_sample(&out, "hcs_142_0.jpg");
    let moves = report["moves"].as_array().unwrap();
    let pairs = dependent_pairs(&report);
    assert!(!pairs.is_empty(), "no dependent pair in the sample");
    let json = out.join("hcs_142_0.json");
    let pristine = std::fs::read_to_string(&json).unwrap();
    let mut applied = 0;
    // The decoder may find no legal game with both (a reply that no longer fits):
    // try a few pairs spread over the game; one must apply in full.
    let step = (pairs.len() / 4).max(1);
    for (k, a, k2, b) in pairs.iter().step_by(step).take(4) {
        std::fs::write(&json, &pristine).unwrap();
        let entry = |i: usize, san: &str| {
            serde_json::json!({"report": "hcs_142_0.json", "move": moves[i]["move"],
                "side": moves[i]["side"], "san": san, "input": san, "by": "arbiter"})
        };
        // Later correction first in the file: the order of the game counts.
        let file = serde_json::json!({"format": "scoresheet-corrections", "version": 1,
            "corrections": [entry(*k2, b), entry(*k, a)]});
        let path = dir.path().join("corrections.json");
        std::fs::write(&path, file.to_string()).unwrap();
        let o = run(bin().args(["fix", "--apply"]).arg(&path).arg(&out));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("illegal"), "{err}");
        if o.status.code() != Some(0) {
            continue;
        }
        let fixed = load(&json);
        let sans: Vec<_> = fixed["corrections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["san"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(sans, [a.clone(), b.clone()]);
        let at = |i: usize| {
            fixed["moves"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["move"] == moves[i]["move"] && m["side"] == moves[i]["side"])
                .unwrap()
                .clone()
        };
        for (i, san) in [(*k, a), (*k2, b)] {
            assert_eq!(at(i)["state"], "locked");
            assert_eq!(at(i)["san"].as_str().unwrap().trim_end_matches(['+', '#']), san);
        }
        applied += 1;
        break;
    }
    assert_eq!(applied, 1, "no dependent pair applied in full: {pairs:?}");
}
