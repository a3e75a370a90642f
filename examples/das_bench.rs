//! Random Das moves -> Das reading figures: fake sheets of 120 cells (each a random
//! valid move, read by `scoresheet::decode::simulate`'s noisy reader) decoded by
//! `DasDecoder`; prints ms per sheet and per-cell accuracy against the reader's own
//! best path, under clean reading and under 10% glyph confusion.
//!
//! Usage: `cargo run --release --example das_bench -- [--sheets N] [--floor X]
//! [--margin X]`.

use std::collections::BTreeMap;
use std::time::Instant;

use scoresheet::decode::simulate::{Mistakes, NoiseModel, Simulator, model_alphabet};
use scoresheet::decode::{DasDecoder, DasParams};
use scoresheet::glyph::canonical_str;
use scoresheet::notation::Rng;
use scoresheet::notation::das::sample_das_move;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut sheets = 50usize;
    let mut params = DasParams::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = || -> f32 {
            it.clone()
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{a} needs a number"))
        };
        match a.as_str() {
            "--sheets" => sheets = value() as usize,
            "--floor" => params.read_floor = value(),
            "--margin" => params.margin = value(),
            _ => panic!("unknown argument {a}"),
        }
        it.next();
    }
    let abc = model_alphabet();
    let decoder = DasDecoder::new(&abc, params);
    let noises = [
        (
            "clean",
            NoiseModel {
                confusion: 0.0,
                drop_mark: 0.0,
                ..NoiseModel::default()
            },
        ),
        ("10% confused", NoiseModel::default()),
    ];
    for (name, noise) in noises {
        let sim = Simulator::new(&abc, noise, Mistakes::none());
        let mut rng = Rng::new(2013);
        let (mut cells, mut right, mut greedy, mut flagged, mut wrong_flagged) = (0, 0, 0, 0, 0);
        let mut ms: Vec<f64> = Vec::new();
        for _ in 0..sheets {
            let truth: Vec<String> = (0..120)
                .map(|_| canonical_str(&sample_das_move(&mut rng)))
                .collect();
            let scores: Vec<_> = truth.iter().map(|t| sim.cell(t, &mut rng)).collect();
            let start = Instant::now();
            let sheet = decoder.read_sheet(&scores, &BTreeMap::new());
            ms.push(start.elapsed().as_secs_f64() * 1000.0);
            for (i, t) in truth.iter().enumerate() {
                cells += 1;
                greedy += usize::from(abc.greedy(&scores[i]) == *t);
                let Some(e) = sheet.entries.get(i) else {
                    continue;
                };
                flagged += usize::from(e.review);
                if e.text.as_deref().map(canonical_str).as_ref() == Some(t) {
                    right += 1;
                } else {
                    wrong_flagged += usize::from(e.review);
                }
            }
        }
        ms.sort_by(f64::total_cmp);
        let share = |k: usize| k as f64 / cells as f64;
        println!(
            "{name:>13}: {:.1}% cells right (reader's best path {:.1}%), {:.1}% flagged, \
             {wrong_flagged}/{} wrong ones flagged; ms per 120-cell sheet: median {:.2}, max {:.2}",
            100.0 * share(right),
            100.0 * share(greedy),
            100.0 * share(flagged),
            cells - right,
            ms[ms.len() / 2],
            ms[ms.len() - 1],
        );
    }
}
