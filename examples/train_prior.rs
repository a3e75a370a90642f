//! Shared game records -> `models/prior.json`: the decoder's learned move prior
//! (see `scoresheet::decode::prior`).
//!
//! ```text
//! cargo run --release --example train_prior -- ../shared/data/games models/prior.json
//! ```
//! Every 20th game of each PGN file (`HELD_OUT_EVERY`) is left out: those games are the validation
//! games of the synthetic sheets (`training/sheets.py`).

use std::path::PathBuf;

use scoresheet::decode::FeaturePrior;
use scoresheet::notation::{HELD_OUT_EVERY, read_pgn_dir_split};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "../shared/data/games".into()));
    let out = PathBuf::from(args.next().unwrap_or_else(|| "models/prior.json".into()));
    let (counted, _) =
        read_pgn_dir_split(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let games: Vec<Vec<shakmaty::Move>> = counted.into_iter().map(|g| g.moves).collect();
    let plies: usize = games.iter().map(Vec::len).sum();
    let book_scale: f32 = std::env::var("BOOK_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1.0);
    let prior = FeaturePrior::train(
        games.iter().map(Vec::as_slice),
        &format!(
            "{} games, {plies} plies of {} (every {HELD_OUT_EVERY}th game of each file left out)",
            games.len(),
            dir.display()
        ),
    )
    .with_book(games.iter().map(Vec::as_slice), book_scale);
    std::fs::write(&out, prior.to_json()).unwrap();
    println!(
        "{}: {} games, {plies} plies; book of {} positions (scale {book_scale})",
        out.display(),
        games.len(),
        prior.book.len()
    );
    for (name, w) in prior.features.iter().zip(&prior.weights) {
        println!("{name:>20} {w:+.3}");
    }
}
