//! Folder of scans -> throughput figures: pages per second end to end (decode,
//! deskew, grid, model, legal decoding, report) and peak resident memory, as
//! `scoresheet read` runs them (one model per worker, sheets in parallel).
//!
//! ```text
//! cargo run --release --example read_bench -- [--jobs N] [--repeat K] [--beam W] [--stages] [--one-look] [--one-pass] FOLDER
//! ```
//! `--one-look` reads every cell once (no second look at unsure cells, see
//! `model::SecondLook`), to measure what the second look costs; `--one-pass` decodes
//! every sheet once (no writer adaptation, see `decode::adapt`).
//! `--repeat 3` over the 177 HCS pages gives a 531-page batch. `--stages` instead
//! reads the folder once on one core and prints the time of each stage per page
//! (load + deskew, grid, crops, model, decode).

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
    let (mut jobs, mut repeat, mut beam, mut folder) =
        (2usize, 1usize, scoresheet::decode::DEFAULT_BEAM_WIDTH, None);
    let (mut stages, mut one_look, mut one_pass) = (false, false, false);
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
            "--stages" => stages = true,
            "--one-look" => one_look = true,
            "--one-pass" => one_pass = true,
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
    if stages {
        stage_times(&files, beam, one_look, one_pass);
        return;
    }
    let batch: Vec<PathBuf> = (0..repeat).flat_map(|_| files.iter().cloned()).collect();

    let runtime = RuntimeParams {
        threads: 1,
        second_look: !one_look,
        ..RuntimeParams::default()
    };
    let models: Vec<OrtModel> = (0..jobs)
        .map(|_| OrtModel::embedded(&runtime).expect("model"))
        .collect();
    let pool = Mutex::new(models);
    let mut params = PipelineParams::default();
    params.decode.search.beam_width = beam;
    if one_pass {
        params.decode.adapt = None;
    }
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

/// One core, stage by stage, as `Pipeline::read_page` runs them (no header-row check:
/// HCS tables have no ruled number column).
fn stage_times(files: &[PathBuf], beam: usize, one_look: bool, one_pass: bool) {
    use scoresheet::decode::Decoder;
    use scoresheet::grid;
    use scoresheet::model::{CellModel, CellScores};
    let runtime = RuntimeParams {
        threads: 1,
        second_look: !one_look,
        ..RuntimeParams::default()
    };
    let mut model = OrtModel::embedded(&runtime).expect("model");
    let mut params = PipelineParams::default();
    params.decode.search.beam_width = beam;
    if one_pass {
        params.decode.adapt = None;
    }
    if std::env::var("FIXED_EN").is_ok() {
        params.decode.reading.notation = Some(scoresheet::notation::Notation::En);
    }
    let decoder = Decoder::new(model.alphabet(), params.decode.clone());
    let mut ms = [0.0f64; 5];
    let (mut pages, mut cells, mut inked) = (0usize, 0usize, 0usize);
    let mut lap = Instant::now();
    let mut tick = |slot: usize, ms: &mut [f64; 5]| {
        ms[slot] += lap.elapsed().as_secs_f64() * 1e3;
        lap = Instant::now();
    };
    for path in files {
        let Ok(loaded) = scoresheet::page::load_pages(path, &params.page) else {
            continue;
        };
        tick(0, &mut ms);
        for page in loaded {
            let Ok(g) = grid::find_grid(&page, &params.grid) else {
                continue;
            };
            tick(1, &mut ms);
            let last = g.cells.iter().rposition(|c| c.ink >= params.blank_ink);
            let used = last.map_or(0, |i| (i + 1 + params.trailing_cells).min(g.cells.len()));
            let keep: Vec<usize> = (0..used)
                .filter(|&i| g.cells[i].ink >= params.model_ink)
                .collect();
            let crops: Vec<_> = keep
                .iter()
                .map(|&i| grid::crop(&page, &g.cells[i]))
                .collect();
            tick(2, &mut ms);
            let read = model.read(&crops).expect("model reads");
            tick(3, &mut ms);
            let steps = read.first().map_or(8, |r| r.steps);
            let mut scores: Vec<CellScores> = (0..used)
                .map(|_| CellScores::blank(steps, model.alphabet()))
                .collect();
            for (i, r) in keep.iter().zip(read) {
                scores[*i] = r;
            }
            let _ = decoder.decode(&scores);
            tick(4, &mut ms);
            pages += 1;
            cells += used;
            inked += keep.len();
        }
    }
    let per = |v: f64| v / pages.max(1) as f64;
    println!(
        "{pages} pages on one core, ms per page: load + deskew {:.1}, grid {:.1}, crops {:.1}, model {:.1} ({:.1} cells, {:.1} sent), decode {:.1}; total {:.1}",
        per(ms[0]),
        per(ms[1]),
        per(ms[2]),
        per(ms[3]),
        per(cells as f64),
        per(inked as f64),
        per(ms[4]),
        per(ms.iter().sum())
    );
}
