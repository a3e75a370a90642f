//! Golden game texts (issue 2) -> legal games: the seeds' sample game in its three
//! written forms, through the library and through `scoresheet convert`.

use std::io::Write;
use std::process::{Command, Stdio};

use scoresheet::notation::{Notation, read_pgn, replay, replay_auto, split_game};
use shakmaty::{Chess, Move, Position, san::San};

const FULL: &str = "1.e4 e5 2. Кf3 Кf6 3. d4 exd4 4. e5 Кe4 5. Фxd4 d5 6. exd6 e.p. Кxd6 7. Сg5 Кc6 8. Фe3+ Сe7 9. Кbd2 0-0 10. 0-0-0 Лe8 11. Kрb1 (=)";
const SHORT: &str = "1. e4 e5 2. Кf3 Кf6 3. d4 ed4 4. e5 Кe4 5. Фd4 d5 6. ed6 Кd6 7. Сg5 Кc6 8. Фe3 Сe7 9 Кbd2 0-0 10. 0-0-0 Лe8 11. Kрb1 (=)";
const LONG: &str = "1. e2e4 e7e5 2.Кg1f3 Кg8f6 3. d2d4 e5xd4 4. e4e5 Кf6e4 5. Фd1xd4 d7d5 6. e5xd6 e.p. Кe4xd6 7. Сc1g5 Кb8c6 8. Фd4d3 Сf8e7 9. Кb1d2 0-0 10. 0-0-0 Лf8e8 11. Kрс1b1 (=)";

/// The game in English SAN, as the issue spells it (8. Qe3+ in the first two texts).
const SAN: &str =
    "e4 e5 Nf3 Nf6 d4 exd4 e5 Ne4 Qxd4 d5 exd6 Nxd6 Bg5 Nc6 Qe3 Be7 Nbd2 O-O O-O-O Re8 Kb1";

fn san_moves(text: &str) -> Vec<Move> {
    let mut pos = Chess::default();
    text.split_whitespace()
        .map(|s| {
            let m = s.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            m
        })
        .collect()
}

#[test]
fn sample_game_parses_in_all_three_written_forms() {
    let want = san_moves(SAN);
    for (name, text) in [("full", FULL), ("short", SHORT)] {
        let (n, moves) = replay_auto(&split_game(text)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(n, Notation::Ru, "{name}");
        assert_eq!(moves, want, "{name}");
    }
    // The long form really plays 8. Qd3 (`Фd4d3`): the same game except that ply.
    let (n, long) = replay_auto(&split_game(LONG)).unwrap();
    assert_eq!(n, Notation::Ru);
    assert_eq!(long.len(), want.len());
    let differ: Vec<usize> = (0..want.len()).filter(|&i| long[i] != want[i]).collect();
    assert_eq!(differ, [14]);
    assert_eq!(long[14].to().to_string(), "d3");
}

#[test]
fn sample_game_is_not_english() {
    assert!(replay(&split_game(FULL), Notation::En).is_err());
}

fn convert(stdin: &str, args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_scoresheet"))
        .arg("convert")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A usage error exits before reading: a broken pipe is fine then.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn convert_writes_pgn_that_reparses() {
    for text in [FULL, SHORT, LONG] {
        let (code, pgn, err) = convert(text, &[]);
        assert_eq!(code, 0, "{err}");
        assert!(pgn.starts_with("[Event \"?\"]"), "{pgn}");
        assert!(pgn.contains("[Result \"*\"]"));
        let games = read_pgn(&pgn);
        assert_eq!(games.len(), 1);
        let (_, want) = replay_auto(&split_game(text)).unwrap();
        assert_eq!(games[0].as_ref().unwrap().moves, want);
    }
    let (code, pgn, _) = convert(SHORT, &["--notation", "ru", "-"]);
    assert_eq!(code, 0);
    assert!(
        pgn.contains("8. Qe3+ Be7 9. Nbd2 O-O 10. O-O-O Re8 11. Kb1 *"),
        "{pgn}"
    );
}

#[test]
fn convert_names_the_bad_move() {
    let bad = FULL.replace("8. Фe3+", "8. Фe9+");
    let (code, pgn, err) = convert(&bad, &["--notation", "ru"]);
    assert_eq!(code, 1);
    assert!(pgn.is_empty());
    assert!(
        err.starts_with("scoresheet: <stdin>: move 8. `Фe9+`"),
        "{err}"
    );
    assert!(err.contains("unreadable"), "{err}");

    let illegal = FULL.replace("8. Фe3+", "8. Фe8+");
    let (code, _, err) = convert(&illegal, &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("move 8. `Фe8+`") && err.contains("illegal"),
        "{err}"
    );

    let (code, _, err) = convert(FULL, &["--notation", "xx"]);
    assert_eq!(code, 2, "{err}");
}
