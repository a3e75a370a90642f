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

#[path = "common/browser.rs"]
mod browser;
use browser::browser_ready;

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
            assert_eq!(
                at(i)["san"].as_str().unwrap().trim_end_matches(['+', '#']),
                san
            );
        }
        applied += 1;
        break;
    }
    assert_eq!(applied, 1, "no dependent pair applied in full: {pairs:?}");
}

// ---------------------------------------------------------------------------------
// `scoresheet desk` over HTTP.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A desk started on an ephemeral port, killed when dropped.
struct Desk {
    child: Child,
    addr: SocketAddr,
    /// Its stderr lines, as they come (held, so that the desk's stderr stays open).
    _lines: mpsc::Receiver<String>,
    /// The lines before the address line.
    early: Vec<String>,
}

impl Desk {
    fn start(watch: &Path, out: &Path, extra: &[&str]) -> Desk {
        let mut child = bin()
            .arg("desk")
            .arg(watch)
            .arg("-o")
            .arg(out)
            .args(["--poll-ms", "150"])
            .args(if extra.contains(&"--listen") {
                &[][..]
            } else {
                &["--listen", "127.0.0.1:0"][..]
            })
            .args(extra)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("start the desk");
        let (tx, lines) = mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("desk: {line}");
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut early = Vec::new();
        loop {
            let Ok(line) = lines.recv_timeout(deadline.saturating_duration_since(Instant::now()))
            else {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the desk did not say where it listens: {early:?}");
            };
            if let Some(rest) = line.strip_prefix("scoresheet: desk on http://") {
                let addr = rest.split('/').next().unwrap().parse().unwrap();
                return Desk {
                    child,
                    addr,
                    _lines: lines,
                    early,
                };
            }
            early.push(line);
        }
    }

    fn get(&self, path: &str) -> (u16, String) {
        http(self.addr, "GET", path, &[], "")
    }

    fn post(&self, path: &str, body: &serde_json::Value) -> (u16, serde_json::Value) {
        let (status, text) = http(
            self.addr,
            "POST",
            path,
            &[("Content-Type", "application/json")],
            &body.to_string(),
        );
        (
            status,
            serde_json::from_str(&text).unwrap_or(serde_json::Value::Null),
        )
    }

    fn report(&self, stem: &str) -> serde_json::Value {
        let (status, text) = self.get(&format!("/api/games/{stem}"));
        assert_eq!(status, 200, "{text}");
        serde_json::from_str(&text).unwrap()
    }

    /// Kills it (SIGKILL) and waits for it.
    fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Desk {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request (the path sent as given, not normalised); status and body.
fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let (status, _, body) = http_full(addr, method, path, headers, body);
    (status, body)
}

fn http_full(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req += &format!("Host: {addr}\r\n");
    }
    for (k, v) in headers {
        req += &format!("{k}: {v}\r\n");
    }
    req += &format!("Content-Length: {}\r\n\r\n{body}", body.len());
    s.write_all(req.as_bytes()).expect("send");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("answer");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        unchunk(rest)
    } else {
        rest.to_string()
    };
    (status, head.to_string(), body)
}

fn unchunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || tail.len() < n {
            break;
        }
        out += &tail[..n];
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}

/// A sample read into `OUT` (`read -o`), an empty scanner's folder beside it.
fn read_folder(sample: &str) -> (tempfile::TempDir, PathBuf, PathBuf, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let watch = dir.path().join("watch");
    std::fs::create_dir(&watch).unwrap();
    let report = read_sample(&out, sample);
    (dir, watch, out, report)
}

/// A legal move at half-move `ply` other than the decoded one (English SAN).
fn other_move(report: &serde_json::Value, ply: u64) -> String {
    let (_, pos, decoded) = replay(report)
        .into_iter()
        .find(|(i, _, _)| report["moves"][*i]["ply"].as_u64() == Some(ply))
        .unwrap();
    let other = pos
        .legal_moves()
        .into_iter()
        .find(|m| *m != decoded)
        .unwrap();
    San::from_move(&pos, other).to_string()
}

fn at_ply(report: &serde_json::Value, ply: u64) -> serde_json::Value {
    report["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["ply"].as_u64() == Some(ply))
        .cloned()
        .unwrap()
}

#[test]
fn the_api_corrects_refuses_and_writes_before_it_answers() {
    let (_dir, watch, out, read) = read_folder("hcs_142_0.jpg");
    let json = out.join("hcs_142_0.json");
    let desk = Desk::start(&watch, &out, &[]);

    let (status, list) = desk.get("/api/games");
    assert_eq!(status, 200);
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list[0]["stem"], "hcs_142_0");
    assert_eq!(list[0]["plies"], read["summary"]["plies"]);
    let report = desk.report("hcs_142_0");
    assert_eq!(
        report["moves"], read["moves"],
        "the report is read's contract"
    );
    let v0 = report["version"].as_str().unwrap().to_string();

    // A move at ply 5: locked, the game re-read, on disk before the answer.
    let want = other_move(&report, 5);
    let (status, new) = desk.post(
        "/api/games/hcs_142_0/corrections",
        &serde_json::json!({"ply": 5, "move": want, "version": v0}),
    );
    assert_eq!(status, 200, "{new}");
    assert_eq!(at_ply(&new, 5)["state"], "locked");
    assert_eq!(
        at_ply(&new, 5)["san"]
            .as_str()
            .unwrap()
            .trim_end_matches(['+', '#']),
        want
    );
    let disk = load(&json);
    assert_eq!(disk["corrections"], new["corrections"]);
    assert_ne!(new["version"], v0);
    let v1 = new["version"].as_str().unwrap().to_string();
    assert!(
        std::fs::read_to_string(out.join("hcs_142_0.pgn"))
            .unwrap()
            .contains(&want)
    );

    // Refusals change nothing.
    let before = std::fs::read(&json).unwrap();
    let refused = [
        (serde_json::json!({"ply": 7, "move": "Ke5"}), 422, "illegal"),
        (
            serde_json::json!({"ply": 9999, "move": "e4"}),
            422,
            "no ply 9999",
        ),
        (serde_json::json!({"cell": "x9", "move": "e4"}), 422, "cell"),
        (serde_json::json!({"ply": 7}), 400, "move"),
        (
            serde_json::json!({"ply": 7, "move": "e4", "colour": 1}),
            400,
            "unknown field",
        ),
        (
            serde_json::json!({"header": "white", "value": "A", "version": v0}),
            409,
            "conflict",
        ),
        (
            serde_json::json!({"header": "board", "value": "five"}),
            422,
            "board",
        ),
    ];
    for (body, code, why) in refused {
        let (status, answer) = desk.post("/api/games/hcs_142_0/corrections", &body);
        assert_eq!(status, code, "{body} -> {answer}");
        assert!(answer["error"].as_str().unwrap().contains(why), "{answer}");
        assert_eq!(
            std::fs::read(&json).unwrap(),
            before,
            "{body} changed the report"
        );
    }
    let (status, _) = desk.post(
        "/api/games/nosuch/corrections",
        &serde_json::json!({"ply": 1, "move": "e4"}),
    );
    assert_eq!(status, 404);
    // Not JSON, too big.
    let (status, _) = http(
        desk.addr,
        "POST",
        "/api/games/hcs_142_0/corrections",
        &[("Content-Type", "text/plain")],
        "{\"ply\": 1, \"move\": \"e4\"}",
    );
    assert_eq!(status, 415);
    let big = format!(
        "{{\"header\": \"event\", \"value\": \"{}\"}}",
        "x".repeat(100_000)
    );
    let (status, _) = http(
        desk.addr,
        "POST",
        "/api/games/hcs_142_0/corrections",
        &[("Content-Type", "application/json")],
        &big,
    );
    assert_eq!(status, 413);
    assert_eq!(std::fs::read(&json).unwrap(), before);

    // A header, with the version of the last answer (If-Match works as well).
    let (status, new) = desk.post(
        "/api/games/hcs_142_0/corrections",
        &serde_json::json!({"header": "white", "value": "Nowak, Ewa", "version": v1}),
    );
    assert_eq!(status, 200, "{new}");
    assert_eq!(new["game"]["white"], "Nowak, Ewa");
    assert_eq!(load(&json)["game"]["white"], "Nowak, Ewa");
    assert_eq!(load(&json)["corrections"], new["corrections"]);

    // Path traversal, plain and percent-encoded: refused, nothing outside OUT served.
    for path in [
        "/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
        "/api/games/..%2F..%2F..%2Fetc%2Fpasswd",
        "/api/games/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/games/..%2f..%2fetc%2fpasswd",
        "/games/%2e%2e",
        "/api/games/.hidden",
        "/api/games/..",
        "/static/../../etc/passwd",
        "/api/games/hcs_142_0/../../../etc/passwd",
    ] {
        let (status, body) = desk.get(path);
        assert!((400..500).contains(&status), "{path}: {status}");
        assert!(!body.contains("root:"), "{path} served {body}");
    }
    // Another host name (DNS rebinding) is refused; no CORS headers on any answer.
    let (status, _) = http(
        desk.addr,
        "GET",
        "/api/games",
        &[("Host", "evil.example")],
        "",
    );
    assert_eq!(status, 403);
    let (_, head, _) = http_full(
        desk.addr,
        "GET",
        "/api/games",
        &[("Origin", "http://evil.example")],
        "",
    );
    assert!(
        !head.to_ascii_lowercase().contains("access-control"),
        "{head}"
    );
    // A page of another site may not post (a form, a fetch without CORS).
    let (status, _) = http(
        desk.addr,
        "POST",
        "/api/games/hcs_142_0/corrections",
        &[
            ("Content-Type", "application/json"),
            ("Origin", "http://evil.example"),
        ],
        "{\"header\": \"white\", \"value\": \"X\"}",
    );
    assert_eq!(status, 403);
    // The pages.
    let (status, page) = desk.get("/");
    assert_eq!(status, 200);
    assert!(page.contains("/api/games"));
    let (status, page) = desk.get("/games/hcs_142_0");
    assert_eq!(status, 200);
    assert!(page.contains("const DESK") && page.contains(&v1[..0]));
}

#[test]
fn off_loopback_every_request_needs_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let (watch, out) = (dir.path().join("watch"), dir.path().join("out"));
    std::fs::create_dir(&watch).unwrap();
    // No token given: one is made and printed.
    let desk = Desk::start(&watch, &out, &["--listen", "0.0.0.0:0"]);
    let token = desk
        .early
        .iter()
        .find_map(|l| l.strip_prefix("scoresheet: token: "))
        .expect("the token is printed")
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    assert!(token.len() >= 32);
    let addr = SocketAddr::from(([127, 0, 0, 1], desk.addr.port()));
    for path in ["/", "/api/games", "/api/queue", "/games/x"] {
        assert_eq!(http(addr, "GET", path, &[], "").0, 401, "{path}");
        let wrong = format!("Bearer {}", "0".repeat(token.len()));
        assert_eq!(
            http(addr, "GET", path, &[("Authorization", &wrong)], "").0,
            401
        );
    }
    let bearer = format!("Bearer {token}");
    assert_eq!(
        http(addr, "GET", "/api/games", &[("Authorization", &bearer)], "").0,
        200
    );
    let (status, _) = http(
        addr,
        "POST",
        "/api/games/x/corrections",
        &[("Content-Type", "application/json")],
        "{\"ply\": 1, \"move\": \"e4\"}",
    );
    assert_eq!(status, 401);
    // In the browser: `/?token=T` once, then a cookie.
    let (status, head, _) = http_full(addr, "GET", &format!("/?token={token}"), &[], "");
    assert_eq!(status, 303);
    assert!(
        head.contains(&format!("scoresheet_desk={token}")) && head.contains("HttpOnly"),
        "{head}"
    );
    let cookie = format!("scoresheet_desk={token}");
    assert_eq!(http(addr, "GET", "/", &[("Cookie", &cookie)], "").0, 200);
    drop(desk);
    // A token given on loopback is required too.
    let desk = Desk::start(
        &watch,
        &out,
        &["--listen", "127.0.0.1:0", "--token", "sesame-open-123"],
    );
    assert_eq!(desk.get("/api/games").0, 401);
    let ok = http(
        desk.addr,
        "GET",
        "/api/games",
        &[("Authorization", "Bearer sesame-open-123")],
        "",
    );
    assert_eq!(ok.0, 200);
}

/// Polls the queue until `file` is read or failed; its entry.
fn wait_queued(desk: &Desk, file: &str, secs: u64) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        let (_, q) = desk.get("/api/queue");
        let q: serde_json::Value = serde_json::from_str(&q).unwrap_or_default();
        if let Some(e) = q
            .as_array()
            .into_iter()
            .flatten()
            .find(|e| e["file"] == file)
            && (e["state"] == "read" || e["state"] == "failed")
        {
            return e.clone();
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("{file} not read within {secs} s");
}

#[test]
fn sheets_dropped_into_the_folder_are_read_and_bad_files_fail_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (watch, out) = (dir.path().join("watch"), dir.path().join("out"));
    std::fs::create_dir(&watch).unwrap();
    let round_file = dir.path().join("round.pgn");
    let round_arg = round_file.to_str().unwrap();
    let desk = Desk::start(&watch, &out, &["--pgn-out", round_arg]);
    assert_eq!(desk.get("/api/games").1.trim(), "[]");
    // Written under a hidden name, then renamed into place (as scanners do).
    let bytes = std::fs::read(root().join("samples/hcs_142_0.jpg")).unwrap();
    std::fs::write(watch.join(".r1b1.jpg.part"), &bytes).unwrap();
    std::fs::rename(watch.join(".r1b1.jpg.part"), watch.join("r1b1.jpg")).unwrap();
    std::fs::write(watch.join("broken.png"), b"not a png at all").unwrap();
    std::fs::write(watch.join("scan.pdf"), b"%PDF-1.4").unwrap();
    let e = wait_queued(&desk, "r1b1.jpg", 120);
    assert_eq!(e["state"], "read", "{e}");
    assert_eq!(e["stem"], "r1b1");
    let bad = wait_queued(&desk, "broken.png", 60);
    assert_eq!(bad["state"], "failed");
    assert!(
        bad["reason"].as_str().unwrap().contains("broken.png"),
        "{bad}"
    );
    // A PDF is read like the images: this one is broken, and fails naming itself.
    let pdf = wait_queued(&desk, "scan.pdf", 60);
    assert_eq!(pdf["state"], "failed");
    assert!(
        pdf["reason"].as_str().unwrap().contains("scan.pdf"),
        "{pdf}"
    );
    // A game over two sheets, the continuation landing first: joined as `read` joins
    // them, into one game named after the first sheet.
    for name in ["synth_de_3-2.jpg", "synth_de_3.jpg"] {
        std::fs::copy(root().join("samples").join(name), watch.join(name)).unwrap();
        std::thread::sleep(Duration::from_millis(50));
    }
    for name in ["synth_de_3.jpg", "synth_de_3-2.jpg"] {
        let e = wait_queued(&desk, name, 180);
        assert_eq!(e["stem"], "synth_de_3", "{e}");
    }
    let list: serde_json::Value = serde_json::from_str(&desk.get("/api/games").1).unwrap();
    let stems: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["stem"].clone())
        .collect();
    assert_eq!(stems, ["r1b1", "synth_de_3"]);
    assert_eq!(
        load(&out.join("synth_de_3.json"))["sheets"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert!(out.join("r1b1.json").is_file() && out.join("r1b1.pgn").is_file());
    // The round file holds both games.
    let round = std::fs::read_to_string(dir.path().join("round.pgn")).unwrap();
    assert_eq!(round.matches("[Event ").count(), 2, "{round}");
    // Restarted on its folder, the desk carries on: nothing read again.
    let before = std::fs::read(out.join("r1b1.json")).unwrap();
    drop(desk);
    let desk = Desk::start(&watch, &out, &["--pgn-out", round_arg]);
    let e = wait_queued(&desk, "r1b1.jpg", 30);
    assert_eq!(e["state"], "read");
    assert_eq!(std::fs::read(out.join("r1b1.json")).unwrap(), before);
}

/// A header field of a report's game ("" when unset).
fn header_of(report: &serde_json::Value, field: &str) -> String {
    report["game"][field].as_str().unwrap_or("").to_string()
}

#[test]
fn kill_9_during_a_session_loses_no_acknowledged_correction() {
    let (_dir, watch, out, read) = read_folder("hcs_142_0.jpg");
    let moves = [
        other_move(&read, 5),
        at_ply(&read, 5)["san"].as_str().unwrap().to_string(),
    ];
    let fields = ["event", "site", "white", "black"];
    // Three sessions, killed at different moments of their scripts.
    for (round, kill_after) in [(0u32, 300u64), (1, 1500), (2, 2700)] {
        let desk = Desk::start(&watch, &out, &[]);
        let addr = desk.addr;
        let pid = desk.child.id();
        // The clock starts at the first acknowledged correction.
        let (first, started) = mpsc::channel::<()>();
        let killer = std::thread::spawn(move || {
            let _ = started.recv();
            std::thread::sleep(Duration::from_millis(kill_after));
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        });
        // Last acknowledged value per header field and of the move at ply 5, and what
        // was in flight when the desk died.
        let mut acked: std::collections::HashMap<String, String> = Default::default();
        let mut in_flight: Option<(String, String)> = None;
        let mut answered = 0;
        for i in 0.. {
            let (key, body) = if i % 4 == 3 {
                let san = moves[(i / 4) % 2].clone();
                (
                    "ply5".to_string(),
                    serde_json::json!({"ply": 5, "move": san}),
                )
            } else {
                let field = fields[i % fields.len()];
                let value = format!("s{round}-{i}");
                (
                    field.to_string(),
                    serde_json::json!({"header": field, "value": value}),
                )
            };
            let sent = body
                .get("move")
                .or(body.get("value"))
                .unwrap()
                .as_str()
                .unwrap()
                .to_string();
            // A request the killed desk never answers panics in the client: status 0.
            let (status, _) = std::panic::catch_unwind(|| {
                http(
                    addr,
                    "POST",
                    "/api/games/hcs_142_0/corrections",
                    &[("Content-Type", "application/json")],
                    &body.to_string(),
                )
            })
            .unwrap_or_default();
            if status == 200 {
                if answered == 0 {
                    let _ = first.send(());
                }
                answered += 1;
                acked.insert(key, sent);
            } else {
                assert_eq!(status, 0, "only a dead desk fails here");
                in_flight = Some((key, sent));
                break;
            }
        }
        killer.join().unwrap();
        desk.kill9();
        assert!(
            !acked.is_empty(),
            "session {round}: nothing acknowledged before the kill"
        );
        // Nothing broken on disk.
        for e in std::fs::read_dir(&out).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "json")
                && !p.file_name().unwrap().to_string_lossy().starts_with('.')
            {
                load(&p);
            }
        }
        let desk = Desk::start(&watch, &out, &[]);
        let now = desk.report("hcs_142_0");
        for (key, value) in &acked {
            let got = if key == "ply5" {
                at_ply(&now, 5)["san"]
                    .as_str()
                    .unwrap()
                    .trim_end_matches(['+', '#'])
                    .to_string()
            } else {
                header_of(&now, key)
            };
            let maybe = in_flight.as_ref().filter(|(k, _)| k == key).map(|(_, v)| v);
            assert!(
                got == *value || Some(&got) == maybe,
                "session {round}: {key} is {got}, acknowledged {value} (in flight {maybe:?})"
            );
        }
        if acked.contains_key("ply5") {
            assert_eq!(at_ply(&now, 5)["state"], "locked");
        }
        // What a killed writer left is swept at start.
        let left: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        eprintln!("session {round}: {answered} acknowledged, in flight {in_flight:?}");
        desk.kill9();
    }
}

/// The value at quantile `q` of sorted durations, in milliseconds.
fn ms(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

#[test]
fn load_20_clients_100_requests_each_no_error_no_lost_correction() {
    // Bounded: 20 clients x 100 requests on loopback, reads and corrections mixed,
    // each client correcting its own game (a copy of one report): 4 header fields in
    // turn every 5th request, one move (a re-read of the sheet) at request 50.
    const CLIENTS: usize = 20;
    const REQUESTS: usize = 100;
    let (_dir, watch, out, read) = read_folder("hcs_142_0.jpg");
    let text = std::fs::read_to_string(out.join("hcs_142_0.json")).unwrap();
    for c in 0..CLIENTS {
        std::fs::write(out.join(format!("g{c:02}.json")), &text).unwrap();
    }
    let want_move = other_move(&read, 5);
    let desk = Desk::start(&watch, &out, &[]);
    let addr = desk.addr;
    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let want_move = want_move.clone();
            std::thread::spawn(move || {
                let fields = ["event", "site", "white", "black"];
                let mut times: Vec<(&'static str, Duration)> = Vec::new();
                let mut last: std::collections::HashMap<&str, String> = Default::default();
                let game = format!("g{c:02}");
                for r in 0..REQUESTS {
                    let t = Instant::now();
                    let (kind, (status, body)) = if r == 50 {
                        let body = serde_json::json!({"ply": 5, "move": want_move}).to_string();
                        (
                            "move",
                            http(
                                addr,
                                "POST",
                                &format!("/api/games/{game}/corrections"),
                                &[("Content-Type", "application/json")],
                                &body,
                            ),
                        )
                    } else if r % 5 == 4 {
                        let field = fields[(r / 5) % 4];
                        let value = format!("c{c}-r{r}");
                        let body = serde_json::json!({"header": field, "value": value}).to_string();
                        let answer = http(
                            addr,
                            "POST",
                            &format!("/api/games/{game}/corrections"),
                            &[("Content-Type", "application/json")],
                            &body,
                        );
                        if answer.0 == 200 {
                            last.insert(field, value);
                        }
                        ("header", answer)
                    } else if r % 2 == 0 {
                        ("read", http(addr, "GET", "/api/games", &[], ""))
                    } else {
                        let other = format!("g{:02}", (c + r) % CLIENTS);
                        (
                            "read",
                            http(addr, "GET", &format!("/api/games/{other}"), &[], ""),
                        )
                    };
                    assert_eq!(status, 200, "client {c} request {r}: {body}");
                    times.push((kind, t.elapsed()));
                }
                (times, last)
            })
        })
        .collect();
    let mut all: Vec<(&str, Duration)> = Vec::new();
    let mut lasts = Vec::new();
    for h in clients {
        let (times, last) = h.join().expect("a client failed");
        all.extend(times);
        lasts.push(last);
    }
    let wall = started.elapsed();
    assert!(wall < Duration::from_secs(600), "bounded in time: {wall:?}");
    // No lost correction: each game holds its client's last value of every field,
    // and its move.
    for (c, last) in lasts.iter().enumerate() {
        let r = load(&out.join(format!("g{c:02}.json")));
        for (field, value) in last {
            assert_eq!(header_of(&r, field), *value, "g{c:02} {field}");
        }
        assert_eq!(r["header_corrections"].as_array().unwrap().len(), 4);
        assert_eq!(at_ply(&r, 5)["state"], "locked", "g{c:02}");
        assert_eq!(r["corrections"][0]["san"], want_move.as_str());
    }
    let n = all.len();
    let mut figures = format!(
        "load: {CLIENTS} clients x {REQUESTS} requests = {n} in {:.1} s, {:.0} requests/s",
        wall.as_secs_f64(),
        n as f64 / wall.as_secs_f64()
    );
    for kind in ["all", "read", "header", "move"] {
        let mut t: Vec<Duration> = all
            .iter()
            .filter(|(k, _)| kind == "all" || *k == kind)
            .map(|(_, d)| *d)
            .collect();
        t.sort();
        figures += &format!(
            "\n  {kind:>6}: {:>4} requests, median {:.1} ms, p99 {:.1} ms",
            t.len(),
            ms(&t, 0.5),
            ms(&t, 0.99)
        );
    }
    println!("{figures}");
    eprintln!("{figures}");
}

#[test]
fn the_desk_in_a_real_browser_shows_a_dropped_sheet_and_keeps_a_keyboard_correction() {
    if !browser_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (watch, out) = (dir.path().join("watch"), dir.path().join("out"));
    std::fs::create_dir(&watch).unwrap();
    let desk = Desk::start(&watch, &out, &[]);
    let node = run(Command::new("node")
        .arg(root().join("tests/browser/desk.mjs"))
        .arg(format!("http://{}", desk.addr))
        .arg(root().join("samples/hcs_142_0.jpg"))
        .arg(&watch));
    let result: serde_json::Value = serde_json::from_slice(&node.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&node.stdout)));
    eprintln!("browser: {result}");
    assert!(node.status.success(), "{result}");
    assert_eq!(result["errors"].as_array().unwrap().len(), 0, "{result}");
    assert_eq!(result["before"], 0, "the round starts empty");
    assert!(
        result["queue"].as_str().unwrap().starts_with("read"),
        "{result}"
    );
    let plan = &result["plan"];
    let i = plan["index"].as_u64().unwrap() as usize;
    let typed = plan["move"].as_str().unwrap();
    let sans = |v: &serde_json::Value| -> Vec<String> {
        v["sans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                s.as_str()
                    .unwrap_or("")
                    .trim_end_matches(['+', '#'])
                    .to_string()
            })
            .collect()
    };
    let (before, after, reloaded) = (
        sans(plan),
        sans(&result["after"]),
        sans(&result["reloaded"]),
    );
    // The correction, locked; the moves after it re-read (they changed).
    assert_eq!(after[i], typed);
    assert_eq!(result["after"]["state"], "locked");
    assert!(
        result["after"]["message"]
            .as_str()
            .unwrap()
            .starts_with("saved"),
        "{result}"
    );
    assert_ne!(
        after[i + 1..],
        before[i + 1..],
        "the moves after it changed"
    );
    // Reloaded: kept.
    assert_eq!(reloaded, after);
    assert_eq!(result["reloaded"]["state"], "locked");
    let report = load(&out.join("hcs_142_0.json"));
    assert_eq!(report["corrections"][0]["san"], typed);
    assert_eq!(report["corrections"][0]["by"], "desk-page");
}

#[test]
fn a_client_that_never_finishes_its_headers_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let (watch, out) = (dir.path().join("watch"), dir.path().join("out"));
    std::fs::create_dir(&watch).unwrap();
    let desk = Desk::start(&watch, &out, &[]);
    let t = Instant::now();
    let mut slow: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = TcpStream::connect(desk.addr).unwrap();
            s.write_all(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                .unwrap();
            s
        })
        .collect();
    // The others are served meanwhile.
    assert_eq!(desk.get("/api/games").0, 200);
    for s in &mut slow {
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
    }
    let waited = t.elapsed();
    assert!(
        waited >= Duration::from_secs(5) && waited < Duration::from_secs(25),
        "dropped after {waited:?}"
    );
}
