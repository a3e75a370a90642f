//! `scoresheet read`: image files and folders -> PGN (stdout or `-o DIR`) and a JSON
//! report per sheet, sheets in parallel, one progress bar, a summary line.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use rayon::prelude::*;

use scoresheet::model::CellModel;
use scoresheet::notation::Variant;
use scoresheet::pipeline::{Pipeline, SheetError, SheetOptions, cell_index};
use scoresheet::report::{Correction, PgnTags, Producer, SheetReport, to_pgn, write_atomic};

use super::batch::{ModelArgs, ModelPool, jobs_for, progress, workers};
use super::inputs::{self, Input, Job};
use super::{EXIT_SOME_FAILED, EXIT_USAGE, diag};

#[derive(clap::Args, Debug)]
pub struct ReadArgs {
    /// Image files (png, jpeg, tiff) or folders (recursed).
    #[arg(required_unless_present = "pair")]
    pub paths: Vec<PathBuf>,
    /// Write DIR/<stem>.pgn and DIR/<stem>.json for every sheet (default: PGN on stdout).
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Read both players' copies of a game as one game when their names say so
    /// (`053_0`/`053_1`, `r1_w`/`r1_b`, `r1-white`/`r1-black`); output `<game>.pgn/json`.
    #[arg(long)]
    pub pairs: bool,
    /// Read these two files as the two copies of one game (repeatable).
    #[arg(long, num_args = 2, value_names = ["A", "B"], action = clap::ArgAction::Append)]
    pub pair: Vec<PathBuf>,
    /// Also write OUTDIR/review.html (needs -o).
    #[arg(long, requires = "out")]
    pub review: bool,
    /// What the sheets record: chess (legal games) or das (the 10×10 variant, read by
    /// its notation only, without its rules).
    #[arg(long, default_value = "chess")]
    pub variant: Variant,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// What became of one input file.
struct Outcome {
    /// PGN of each page read (in page order).
    pgn: Vec<String>,
    plies: usize,
    flagged: usize,
    sheets: usize,
    errors: Vec<String>,
    notes: Vec<String>,
}

pub fn run(args: ReadArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let explicit: Vec<(PathBuf, PathBuf)> = args
        .pair
        .chunks(2)
        .map(|c| (c[0].clone(), c[1].clone()))
        .collect();
    let mut paths = args.paths.clone();
    paths.extend(args.pair.iter().cloned());
    let (inputs, missing) = inputs::collect(&paths);
    for e in &missing {
        diag(e);
    }
    if inputs.is_empty() && missing.is_empty() {
        diag("no png, jpeg or tiff files found in the given paths");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create output folder {}", dir.display()))?;
    }

    let todo = inputs::jobs(inputs, args.pairs, &explicit);
    let jobs = jobs_for(&args.model, todo.len());
    let pool = ModelPool::new(&args.model, jobs)?;
    let model_name = pool.model_name();
    let mut params = args.model.pipeline_params()?;
    params.variant = args.variant;
    let pipeline = Pipeline::new(params);
    let bar = progress(todo.len(), args.model.quiet);
    let threads = workers(jobs)?;
    let producer = Producer {
        tool: format!("scoresheet {}", env!("CARGO_PKG_VERSION")),
        model: model_name,
        settings: Some(args.model.read_settings()),
    };
    let outcomes: Vec<Outcome> = threads.install(|| {
        todo.par_iter()
            .map(|job| {
                let out = args.out.as_deref();
                let o = pool.with(|m| match job {
                    Job::One(input) => read_one(input, &pipeline, m, out, &producer),
                    Job::Pair(inputs, stem) => {
                        read_pair(inputs, stem, &pipeline, m, out, &producer)
                    }
                });
                for e in &o.errors {
                    bar.suspend(|| diag(e));
                }
                for n in &o.notes {
                    bar.suspend(|| diag(n));
                }
                bar.inc(1);
                o
            })
            .collect()
    });
    bar.finish_and_clear();

    if args.out.is_none() {
        let stdout = std::io::stdout();
        let mut lock = stdout.lock();
        for o in &outcomes {
            for pgn in &o.pgn {
                lock.write_all(pgn.as_bytes())?;
            }
        }
        lock.flush()?;
    }
    let mut failed = outcomes.iter().filter(|o| !o.errors.is_empty()).count() + missing.len();
    if let (true, Some(dir)) = (args.review, &args.out) {
        match super::review::write_review(dir, None) {
            Ok((path, left_out)) => {
                diag(format!("review page: {}", path.display()));
                failed += left_out;
            }
            Err(e) => diag(format!("{e:#}")),
        }
    }
    let sheets: usize = outcomes.iter().map(|o| o.sheets).sum();
    let plies: usize = outcomes.iter().map(|o| o.plies).sum();
    let flagged: usize = outcomes.iter().map(|o| o.flagged).sum();
    let secs = started.elapsed().as_secs_f64();
    diag(format!(
        "read {sheets} sheet{} ({failed} file{} failed), {plies} moves, {flagged} flagged for review, {secs:.1} s",
        if sheets == 1 { "" } else { "s" },
        if failed == 1 { "" } else { "s" },
    ));
    Ok(if failed > 0 {
        ExitCode::from(EXIT_SOME_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// The corrections of an earlier report, if the output folder has one, and (when
/// there are some) the heading rows that report's pages dropped, so that the
/// corrections stay on their cells.
///
/// # Errors
/// When a report exists but cannot be read: it must not be overwritten.
fn earlier_corrections(json: &Path) -> anyhow::Result<(Vec<Correction>, Vec<Option<usize>>)> {
    if !json.exists() {
        return Ok((Vec::new(), Vec::new()));
    }
    let report = SheetReport::load(json)?;
    if report.corrections.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let header_rows = report.header_rows();
    Ok((report.corrections, header_rows))
}

fn locks_of(corrections: &[Correction]) -> BTreeMap<usize, String> {
    corrections
        .iter()
        .map(|c| {
            let side = if c.side == "black" {
                shakmaty::Color::Black
            } else {
                shakmaty::Color::White
            };
            (cell_index(c.move_number, side), c.san.clone())
        })
        .collect()
}

/// Corrections of an earlier report of `stem` in the output folder, if any.
fn corrections_for(
    out: Option<&Path>,
    stem: &str,
) -> anyhow::Result<(Vec<Correction>, Vec<Option<usize>>)> {
    match out {
        Some(dir) => earlier_corrections(&dir.join(format!("{stem}.json"))),
        None => Ok((Vec::new(), Vec::new())),
    }
}

/// Stamps, counts and writes (or collects) one finished report.
fn finish(o: &mut Outcome, mut report: SheetReport, corrections: Vec<Correction>, t: &Target) {
    let Target {
        stem,
        out,
        producer,
        ..
    } = *t;
    report.producer = producer.clone();
    if !corrections.is_empty() {
        o.notes.push(format!(
            "{}: kept {} human correction{}",
            report.source,
            corrections.len(),
            if corrections.len() == 1 { "" } else { "s" }
        ));
    }
    report.corrections = corrections;
    let pgn = to_pgn(&report, &PgnTags::default(), &producer.tool);
    o.plies += report.summary.plies;
    o.flagged += report.summary.flagged;
    o.sheets += 1;
    match out {
        Some(dir) => {
            let written =
                write_atomic(&dir.join(format!("{stem}.pgn")), pgn.as_bytes()).and_then(|()| {
                    write_atomic(
                        &dir.join(format!("{stem}.json")),
                        report.to_json().as_bytes(),
                    )
                });
            if let Err(e) = written {
                o.errors.push(e.to_string());
            }
        }
        None => o.pgn.push(pgn),
    }
}

fn new_outcome() -> Outcome {
    Outcome {
        pgn: Vec::new(),
        plies: 0,
        flagged: 0,
        sheets: 0,
        errors: Vec::new(),
        notes: Vec::new(),
    }
}

fn read_one(
    input: &Input,
    pipeline: &Pipeline,
    model: &mut dyn CellModel,
    out: Option<&Path>,
    producer: &Producer,
) -> Outcome {
    let mut o = new_outcome();
    let pages = match scoresheet::page::load_pages(&input.path, &pipeline.params().page) {
        Ok(p) => p,
        Err(e) => {
            o.errors.push(e.to_string());
            return o;
        }
    };
    let what = input.path.display().to_string();
    for page in pages {
        let stem = if page.index == 0 {
            input.stem.clone()
        } else {
            format!("{}_p{}", input.stem, page.index + 1)
        };
        let target = Target {
            stem: &stem,
            what: &what,
            out,
            producer,
        };
        read_corrected(&mut o, &target, |options| {
            pipeline
                .read_page(page, model, options)
                .map(|sheet| sheet.report)
        });
    }
    o
}

/// Where one report goes: its output stem, the name used in messages, and the
/// producer it is stamped with.
struct Target<'a> {
    stem: &'a str,
    what: &'a str,
    out: Option<&'a Path>,
    producer: &'a Producer,
}

/// Reads one report with the human corrections its earlier report holds (honoured
/// and carried over) and writes it; a report whose corrections cannot be read is
/// left alone.
fn read_corrected(
    o: &mut Outcome,
    t: &Target,
    read: impl FnOnce(&SheetOptions) -> Result<SheetReport, SheetError>,
) {
    let (corrections, header_rows) = match corrections_for(t.out, t.stem) {
        Ok(c) => c,
        Err(e) => {
            o.errors.push(format!("{}: {e:#}; not overwritten", t.what));
            return;
        }
    };
    let options = SheetOptions {
        locked: locks_of(&corrections),
        header_rows,
    };
    match read(&options) {
        Ok(report) => finish(o, report, corrections, t),
        Err(e) => o.errors.push(e.to_string()),
    }
}

/// Reads the two copies of one game (first page of each file) into one report.
fn read_pair(
    inputs: &[Input; 2],
    stem: &str,
    pipeline: &Pipeline,
    model: &mut dyn CellModel,
    out: Option<&Path>,
    producer: &Producer,
) -> Outcome {
    let mut o = new_outcome();
    let mut pages = Vec::with_capacity(2);
    for input in inputs {
        match scoresheet::page::load_pages(&input.path, &pipeline.params().page) {
            Ok(mut p) => pages.push(p.swap_remove(0)),
            Err(e) => o.errors.push(e.to_string()),
        }
    }
    let Ok(pages) = <[_; 2]>::try_from(pages) else {
        return o;
    };
    let target = Target {
        stem,
        what: stem,
        out,
        producer,
    };
    read_corrected(&mut o, &target, |options| {
        pipeline
            .read_pair(pages, model, options)
            .map(|pair| pair.report)
    });
    o
}
