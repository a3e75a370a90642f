//! Real games the shipped move prior never counted (`../shared/data/games`, the
//! held-out share of `read_pgn_dir_split`): the simulated sheets of `tests/decode_sim.rs`
//! and `tests/notation_detect.rs` are written from them.

#![allow(dead_code)]

use std::path::PathBuf;

use scoresheet::notation::read_pgn_dir_split;
use shakmaty::Move;

/// `count` held-out games of at least `min_plies` plies, evenly spread over the held-out
/// share; `None`, with a message, when `../shared` is absent (a user's clone).
pub fn held_out_games(count: usize, min_plies: usize) -> Option<Vec<Vec<Move>>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/games");
    if !dir.is_dir() {
        eprintln!(
            "skipped: {} is absent (it ships with the project's shared data)",
            dir.display()
        );
        return None;
    }
    let (_, held_out) = read_pgn_dir_split(&dir).expect("readable games folder");
    let long: Vec<Vec<Move>> = held_out
        .into_iter()
        .map(|g| g.moves)
        .filter(|m| m.len() >= min_plies)
        .collect();
    let step = long.len() / count;
    assert!(
        step >= 1,
        "need {count} games of {min_plies} plies, found {}",
        long.len()
    );
    Some(long.into_iter().step_by(step).take(count).collect())
}
