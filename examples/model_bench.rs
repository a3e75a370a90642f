//! The shipped cell reader through ONNX Runtime -> milliseconds per batch of 120
//! cells (one sheet's worth), as `scoresheet read` sends them.
//!
//! ```text
//! cargo run --release --example model_bench -- [--threads N] [--runs K]
//! ```
//! The cells are the saved fixture crops (`tests/fixtures/cells`), repeated to 120,
//! each read once: the second look at unsure cells (`model::SecondLook`) depends on
//! the page, and `read_bench --stages` measures it on real pages.

use std::path::PathBuf;
use std::time::Instant;

use scoresheet::model::{CellModel, OrtModel, RuntimeParams};

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut threads, mut runs) = (2usize, 30usize);
    while let Some(a) = args.next() {
        let v: usize = args
            .next()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{a} needs a number"));
        match a.as_str() {
            "--threads" => threads = v,
            "--runs" => runs = v.max(3),
            _ => panic!("unknown option {a}"),
        }
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cells");
    let mut crops: Vec<image::GrayImage> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/cells")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "png"))
        .map(|p| image::open(&p).expect("fixture png").to_luma8())
        .collect();
    assert!(!crops.is_empty(), "no fixture cells");
    let batch: Vec<image::GrayImage> = crops.iter().cycle().take(120).cloned().collect();
    crops.clear();
    let params = RuntimeParams {
        threads,
        second_look: false,
        ..RuntimeParams::default()
    };
    let mut model = OrtModel::embedded(&params).expect("shipped model");
    for _ in 0..3 {
        model.read(&batch).expect("warm-up run");
    }
    let mut ms: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            model.read(&batch).expect("run");
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    println!(
        "cellreader, 120 cells read once, {threads} thread(s), {runs} runs: median {:.1} ms, best {:.1} ms, worst {:.1} ms (preprocessing included)",
        ms[ms.len() / 2],
        ms[0],
        ms[ms.len() - 1]
    );
}
