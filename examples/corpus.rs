//! Games (a folder of PGN files) -> training text corpus (TSV): one line per written
//! cell, `split<TAB>notation<TAB>text`, with real display letters (Кр Ф Л С К in
//! Russian, `exd6 e.p.` with its space), each game written by one simulated player in
//! one of the four notations (habits: `scoresheet::notation::Habits`). `val` holds a
//! fixed ~5% of the games, chosen by a hash of the game's index; the rest is `train`.
//!
//! Usage: `cargo run --release --example corpus -- <games_dir> <out.tsv> [--seed N]`

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use scoresheet::notation::{Habits, Notation, Rng, read_pgn_dir, write_move};
use shakmaty::{Chess, Position};

/// Share of games in the validation split, in percent.
const VAL_PERCENT: u64 = 5;

fn is_val(game_index: usize) -> bool {
    Rng::new(game_index as u64 ^ 0x05EE_D0F5_A11D).next_u64() % 100 < VAL_PERCENT
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut positional = Vec::new();
    let mut seed = 2u64;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--seed" {
            match it.next().and_then(|s| s.parse().ok()) {
                Some(s) => seed = s,
                None => return usage("--seed needs a number"),
            }
        } else {
            positional.push(PathBuf::from(a));
        }
    }
    let [games_dir, out_path] = positional.as_slice() else {
        return usage("expected <games_dir> <out.tsv>");
    };
    match run(games_dir, out_path, seed) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("corpus: {e}");
            ExitCode::from(1)
        }
    }
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("corpus: {msg}\nusage: corpus <games_dir> <out.tsv> [--seed N]");
    ExitCode::from(2)
}

fn run(games_dir: &Path, out_path: &Path, seed: u64) -> std::io::Result<()> {
    let games = read_pgn_dir(games_dir)?;
    let mut out = BufWriter::new(std::fs::File::create(out_path)?);
    let mut lines: BTreeMap<(&str, Notation), usize> = BTreeMap::new();
    for (i, game) in games.iter().enumerate() {
        let split = if is_val(i) { "val" } else { "train" };
        let mut rng =
            Rng::new(seed.wrapping_mul(0x1000_0000_01B3) ^ (i as u64).wrapping_mul(0x9E37_79B9));
        let n = Notation::ALL[rng.below(Notation::ALL.len())];
        let habits = Habits::sample(n, &mut rng);
        let mut pos = Chess::default();
        for &m in &game.moves {
            let text = write_move(&pos, m, &habits, &mut rng);
            writeln!(out, "{split}\t{}\t{text}", n.code())?;
            *lines.entry((split, n)).or_default() += 1;
            pos.play_unchecked(m);
        }
    }
    out.flush()?;
    let total: usize = lines.values().sum();
    eprintln!(
        "corpus: {} games, {total} lines -> {}",
        games.len(),
        out_path.display()
    );
    for ((split, n), count) in &lines {
        eprintln!("  {split:5} {n}: {count}");
    }
    Ok(())
}
