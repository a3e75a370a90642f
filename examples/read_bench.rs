//! Folder of scans -> throughput figures: pages per second end to end (decode,
//! deskew, grid, model, legal decoding, report) and peak resident memory, as
//! `scoresheet read` runs them (one model per worker, sheets in parallel).
//!
//! ```text
//! cargo run --release --example read_bench -- [--jobs N] [--repeat K] [--beam W] FOLDER
//! ```
//! `--repeat 3` over the 177 HCS pages gives a 531-page batch.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;
use scoresheet::model::{OrtModel, RuntimeParams};
use scoresheet::pipeline::{Pipeline, PipelineParams, SheetOptions};

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut jobs, mut repeat, mut beam, mut folder) = (2usize, 1usize, 64usize, None);
    while let Some(a) = args.next() {
        let mut num = |name: &str| -> usize {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} takes a number"))
        };
        match a.as_str() {
            "--jobs" => jobs = num("--jobs"),
            "--repeat" => repeat = num("--repeat"),
            "--beam" => beam = num("--beam"),
            _ => folder = Some(PathBuf::from(a)),
        }
    }
    let folder = folder.unwrap_or_else(|| PathBuf::from("../shared/data/hcs/pages"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "jpg" || x == "png" || x == "tif")
        })
        .collect();
    files.sort();
    let batch: Vec<PathBuf> = (0..repeat).flat_map(|_| files.iter().cloned()).collect();

    let runtime = RuntimeParams {
        threads: 1,
        ..RuntimeParams::default()
    };
    let models: Vec<OrtModel> = (0..jobs)
        .map(|_| OrtModel::embedded(&runtime).expect("model"))
        .collect();
    let pool = Mutex::new(models);
    let mut params = PipelineParams::default();
    params.decode.beam_width = beam;
    let pipeline = Pipeline::new(params);
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .unwrap();

    let start = Instant::now();
    let (ok, plies): (usize, usize) = workers.install(|| {
        batch
            .par_iter()
            .map(|path| {
                let mut model = pool.lock().unwrap().pop().unwrap();
                let results = pipeline.read_file(path, &mut model, &SheetOptions::default());
                pool.lock().unwrap().push(model);
                results
                    .into_iter()
                    .filter_map(Result::ok)
                    .map(|s| (1, s.report.summary.plies))
                    .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    });
    let secs = start.elapsed().as_secs_f64();
    println!(
        "pages {} ({} read, {} failed), jobs {jobs}, beam {beam}: {:.2} s, {:.2} pages/s, {:.0} ms/page per worker, {} plies",
        batch.len(),
        ok,
        batch.len() - ok,
        secs,
        batch.len() as f64 / secs,
        1000.0 * secs * jobs as f64 / batch.len() as f64,
        plies
    );
    match peak_rss_mb() {
        Some(mb) => println!("peak resident memory: {mb:.0} MB"),
        None => println!("peak resident memory: unknown (no /proc/self/status)"),
    }
}
