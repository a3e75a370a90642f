//! Real games -> decoding figures: simulated sheets (`scoresheet::decode::simulate`)
//! decoded at beam widths 8, 64 and the default (`DEFAULT_BEAM_WIDTH`, 1024); prints ms per 120-cell sheet (wall and CPU) and ply accuracy
//! under clean reading, 10% glyph confusion, and 10% confusion plus 3% player
//! mistakes, with the notation given and detected.
//!
//! Usage: `cargo run --release --example decode_bench -- [games_dir] [--sheets N] [--plies N]
//! [--widths 8,64,1024] [--fixed-only] [--skip X] [--replace X] [--duplicate X] [--insert X]
//! [--escapes N] [--share X] [--prior SCALE] [--held-out] [--one-pass]` (the last ones override
//! `DecodeParams` for tuning; `--prior` turns the shipped move prior on at that scale,
//! as `scoresheet read` does at 0.5; `--held-out` takes only games the prior never
//! counted: every 20th game of each file, `scoresheet::notation::HELD_OUT_EVERY`;
//! `--one-pass` decodes each sheet once, without writer adaptation).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use scoresheet::decode::simulate::{
    Mistake, Mistakes, NoiseModel, SheetScore, SimSheet, Simulator, model_alphabet, score,
};
use scoresheet::decode::{DecodeParams, Decoder, FeaturePrior, MovePrior};
use scoresheet::notation::{Habits, Notation, Rng, read_pgn_dir, read_pgn_dir_split};
use shakmaty::Move;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/games");
    let mut sheets = 100usize;
    let mut plies = 120usize;
    let mut widths = vec![8usize, 64, scoresheet::decode::DEFAULT_BEAM_WIDTH];
    let mut fixed_only = false;
    let mut kind: Option<usize> = None;
    let mut only: Option<Vec<usize>> = None;
    let mut base = DecodeParams::default();
    let mut held_out = false;
    let mut it = args.iter();
    let num = |v: Option<&String>, name: &str| -> f32 {
        v.and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{name} needs a number"))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--sheets" => sheets = num(it.next(), a) as usize,
            "--plies" => plies = num(it.next(), a) as usize,
            "--widths" => {
                widths = it
                    .next()
                    .expect("--widths 8,64")
                    .split(',')
                    .map(|w| w.parse().expect("width"))
                    .collect()
            }
            "--fixed-only" => fixed_only = true,
            "--one-pass" => base.adapt = None,
            "--kind" => kind = Some(num(it.next(), a) as usize),
            "--configs" => {
                only = Some(
                    it.next()
                        .expect("--configs 0,1,2")
                        .split(',')
                        .map(|c| c.parse().expect("config index"))
                        .collect(),
                )
            }
            "--skip" => base.escapes.skip_penalty = num(it.next(), a),
            "--floor" => base.reading.read_floor = num(it.next(), a),
            "--gate" => base.escapes.insert_gate = num(it.next(), a),
            "--keep" => base.search.diversity_keep = num(it.next(), a) as usize,
            "--reads" => base.search.reads_per_parent = num(it.next(), a) as usize,
            "--temper" => base.escapes.replace_temper = num(it.next(), a),
            "--window" => base.search.diversity_window = num(it.next(), a) as usize,
            "--margin" => base.search.diversity_margin = num(it.next(), a),
            "--replace" => base.escapes.replace_penalty = num(it.next(), a),
            "--duplicate" => base.escapes.duplicate_penalty = num(it.next(), a),
            "--insert" => base.escapes.insert_penalty = num(it.next(), a),
            "--escapes" => base.escapes.escapes_per_parent = num(it.next(), a) as usize,
            "--share" => base.escapes.escape_share = num(it.next(), a),
            "--prior" => {
                let mut prior = FeaturePrior::shipped().expect("models/prior.json loads");
                prior.scale = num(it.next(), a);
                base.prior = Some(Arc::new(prior) as Arc<dyn MovePrior>);
            }
            "--held-out" => held_out = true,
            other => dir = PathBuf::from(other),
        }
    }
    let games = if held_out {
        read_pgn_dir_split(&dir).map(|(_, held_out)| held_out)
    } else {
        read_pgn_dir(&dir)
    }
    .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    let long: Vec<Vec<Move>> = games
        .iter()
        .filter(|g| g.moves.len() >= 120)
        .map(|g| g.moves.clone())
        .collect();
    let step = (long.len() / sheets).max(1);
    let chosen: Vec<&Vec<Move>> = long.iter().step_by(step).take(sheets).collect();
    println!(
        "{} games with >= 120 plies; {} sheets of 120 cells (+2 blank), notations in turn",
        long.len(),
        chosen.len()
    );
    println!("{base:?}");

    let alphabet = model_alphabet();
    let configs = [
        (
            "clean",
            NoiseModel {
                confusion: 0.0,
                drop_mark: 0.0,
                ..NoiseModel::default()
            },
            0.0,
        ),
        ("10% confusion", NoiseModel::default(), 0.0),
        ("10% conf + 3% mistakes", NoiseModel::default(), 0.03),
    ];
    for (ci, (name, noise, rate)) in configs.into_iter().enumerate() {
        if only.as_ref().is_some_and(|o| !o.contains(&ci)) {
            continue;
        }
        let mut mistakes = Mistakes::at(rate);
        if let Some(k) = kind {
            mistakes.kinds = vec![Mistake::ALL[k]];
        }
        let sim = Simulator::new(&alphabet, noise, mistakes);
        let mut rng = Rng::new(2024);
        let sims: Vec<SimSheet> = chosen
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let habits = Habits::sample(Notation::ALL[i % 4], &mut rng);
                sim.sheet(g, plies, &habits, 2, &mut rng)
            })
            .collect();
        for &width in &widths {
            for auto in [false, true] {
                if auto && fixed_only {
                    continue;
                }
                run(name, width, auto, &base, &alphabet, &sims);
            }
        }
    }
}

/// CPU seconds this process has used (user + system), from `/proc/self/stat` on
/// Linux: on a busy machine wall time overstates the decoder's cost.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn run(
    name: &str,
    width: usize,
    auto: bool,
    base: &DecodeParams,
    alphabet: &scoresheet::model::Alphabet,
    sims: &[SimSheet],
) {
    let mut total = SheetScore::default();
    let mut ms = Vec::new();
    let mut notation_right = 0;
    let cpu0 = cpu_seconds();
    for s in sims {
        let mut params = base.clone();
        params.search.beam_width = width;
        params.reading.notation = (!auto).then_some(s.notation);
        let decoder = Decoder::new(alphabet, params);
        let t0 = Instant::now();
        let decoded = decoder.decode(&s.cells);
        ms.push(t0.elapsed().as_secs_f64() * 1e3);
        total.add(&score(s, &decoded));
        notation_right += usize::from(decoded.notation == s.notation);
    }
    let cpu_ms = cpu0
        .zip(cpu_seconds())
        .map(|(a, b)| (b - a) * 1e3 / sims.len() as f64);
    ms.sort_by(f64::total_cmp);
    let mean = ms.iter().sum::<f64>() / ms.len() as f64;
    println!(
        "{name:23} width {width:3} {:5}: {mean:6.1} ms/sheet wall (median {:6.1}, max {:6.1}), {} cpu; plies right {:6.2}% ({}/{}); spoiled flagged {}/{}; flagged {:4.1}%; notation right {}/{}",
        if auto { "auto" } else { "fixed" },
        ms[ms.len() / 2],
        ms[ms.len() - 1],
        cpu_ms.map_or("?".to_string(), |c| format!("{c:.1} ms")),
        100.0 * total.accuracy(),
        total.plies_right,
        total.plies,
        total.spoiled_flagged,
        total.spoiled,
        100.0 * total.flagged as f64 / total.plies.max(1) as f64,
        notation_right,
        sims.len(),
    );
}
