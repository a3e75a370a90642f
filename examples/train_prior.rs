//! Shared game records -> `models/prior.json`: the decoder's learned move prior
//! (see `scoresheet::decode::prior`).
//!
//! ```text
//! cargo run --release --example train_prior -- ../shared/data/games models/prior.json
//! ```
//! Every 20th game of each PGN file is left out: those games are the validation
//! games of the synthetic sheets (`training/sheets.py`).

use std::path::PathBuf;

use scoresheet::decode::FeaturePrior;
use scoresheet::notation::{pgn_files, read_pgn};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "../shared/data/games".into()));
    let out = PathBuf::from(args.next().unwrap_or_else(|| "models/prior.json".into()));
    let files = pgn_files(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut games = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, g) in read_pgn(&text).into_iter().enumerate() {
            if i % 20 != 0
                && let Ok(g) = g
            {
                games.push(g.moves);
            }
        }
    }
    let plies: usize = games.iter().map(Vec::len).sum();
    let book_scale: f32 = std::env::var("BOOK_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1.0);
    let prior = FeaturePrior::train(
        games.iter().map(Vec::as_slice),
        &format!(
            "{} games, {plies} plies of {} (every 20th game of each file left out)",
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
