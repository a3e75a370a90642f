//! `scoresheet learn`: reviewed output folders -> a reader fine-tuned on the cells a
//! human settled, checked on reviewed sheets kept apart, written with its manifest.
//! The job is the library's (`scoresheet::learn`); this file parses the flags, shows
//! progress and prints the outcome.

use std::path::PathBuf;
use std::process::ExitCode;

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use scoresheet::RuntimeParams;
use scoresheet::learn::{self, Event, LearnError, LearnOptions, ReplaySource};

use super::{EXIT_SOME_FAILED, diag};

#[derive(clap::Args, Debug)]
pub struct LearnArgs {
    /// Reviewed output folders (of `read`, corrected with `fix` or the desk).
    #[arg(required = true, value_name = "OUTDIR")]
    pub folders: Vec<PathBuf>,
    /// Where to write the new reader (`<name>.onnx` and its manifest `<name>.json`).
    #[arg(short, long, value_name = "MODELDIR")]
    pub out: PathBuf,
    /// The reader to start from (a manifest); default: the one built into the binary.
    #[arg(long, value_name = "BASE.json")]
    pub model: Option<PathBuf>,
    /// The new reader's name (default: the base's name with `-learned`).
    #[arg(long)]
    pub name: Option<String>,
    /// Share of the reviewed sheets kept apart to check the new reader (every
    /// round(1/F)-th, at least one).
    #[arg(long, default_value_t = 0.2, value_name = "F")]
    pub holdout_share: f32,
    /// Fine-tuning steps.
    #[arg(long, value_name = "N")]
    pub steps: Option<usize>,
    /// Cells per step.
    #[arg(long, value_name = "N")]
    pub batch: Option<usize>,
    /// Learning rate.
    #[arg(long, value_name = "LR")]
    pub lr: Option<f32>,
    /// Share of each batch drawn from cells the base reader was trained on (built
    /// into the binary), so that the new reader does not forget other hands; 0: none.
    #[arg(long, value_name = "X")]
    pub replay_share: Option<f32>,
    /// Replay these cells instead of the built-in ones: a pack's image (its labels in
    /// the `.tsv` beside it; see `src/learn/replay.rs`).
    #[arg(long, value_name = "PACK.png")]
    pub replay_cells: Option<PathBuf>,
    /// Convolutions, from the input, kept as they are (for measurements).
    #[arg(long, value_name = "N", hide = true)]
    pub frozen_convs: Option<usize>,
    /// Seed of the fine-tuning (the same inputs and seed give the same reader).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Threads (default: the number of cores).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// ONNX Runtime shared library to load.
    #[arg(long, value_name = "FILE")]
    pub ort_lib: Option<PathBuf>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

pub fn run(args: LearnArgs) -> anyhow::Result<ExitCode> {
    if !(args.holdout_share > 0.0 && args.holdout_share < 1.0) {
        anyhow::bail!("--holdout-share must be between 0 and 1");
    }
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let mut options = LearnOptions::new(args.folders.clone(), args.out.clone());
    // Field by field: the engine's parameters may hold more than these.
    let mut tune = options.tune.clone();
    tune.steps = args.steps.unwrap_or(tune.steps);
    tune.batch = args.batch.unwrap_or(tune.batch);
    tune.lr = args.lr.unwrap_or(tune.lr);
    tune.seed = args.seed.unwrap_or(tune.seed);
    tune.replay_share = args.replay_share.unwrap_or(tune.replay_share);
    tune.frozen_convs = args.frozen_convs.unwrap_or(tune.frozen_convs);
    if !(0.0..=1.0).contains(&tune.replay_share) {
        anyhow::bail!("--replay-share must be between 0 and 1");
    }
    tune.threads = threads;
    options.base = args.model.clone();
    options.name = args.name.clone();
    options.holdout_share = args.holdout_share;
    if let Some(png) = &args.replay_cells {
        options.replay = ReplaySource::Pack {
            png: png.clone(),
            labels: png.with_extension("tsv"),
        };
    }
    options.tune = tune;
    options.runtime = RuntimeParams {
        ort_lib: args.ort_lib.clone(),
        threads,
        ..RuntimeParams::default()
    };
    let mut bar: Option<(&'static str, ProgressBar)> = None;
    let quiet = args.quiet;
    let mut show = |stage: &'static str, done: usize, total: usize, msg: String| {
        if bar.as_ref().is_none_or(|(s, _)| *s != stage) {
            if let Some((_, b)) = bar.take() {
                b.finish_and_clear();
            }
            let b = stage_bar(stage, total, quiet);
            bar = Some((stage, b));
        }
        if let Some((_, b)) = &bar {
            b.set_length(total as u64);
            b.set_position(done as u64);
            b.set_message(msg);
        }
    };
    let mut skipped = 0;
    let result = learn::learn(&options, &mut |event| match event {
        Event::Collected { done, total } => {
            show("sheets", done, total, "collecting settled cells".into())
        }
        Event::Step { step, steps, loss } => {
            show("steps", step, steps, format!("learning, loss {loss:.3}"))
        }
        Event::Checked { done, total } => show(
            "reads",
            done,
            total,
            "checking on the held-out sheets".into(),
        ),
        Event::Skipped(line) => {
            skipped += 1;
            diag(line);
        }
    });
    if let Some((_, b)) = bar.take() {
        b.finish_and_clear();
    }
    match result {
        Ok(out) => {
            let l = &out.learned;
            diag(format!(
                "learned from {} cells of {} sheets; checked on {} held-out sheet(s)",
                l.cells,
                l.sheets,
                l.held_out.len()
            ));
            diag(format!(
                "  base {} {}: {}",
                l.base.name, l.base.version, l.old
            ));
            diag(format!("  new reader: {}", l.new));
            diag(format!(
                "  calibration {}: {}",
                l.calibration.decision, l.calibration.reason
            ));
            diag(format!(
                "wrote {} (read with --model {})",
                out.onnx.display(),
                out.manifest.display()
            ));
            Ok(if skipped > 0 {
                ExitCode::from(EXIT_SOME_FAILED)
            } else {
                ExitCode::SUCCESS
            })
        }
        Err(e @ LearnError::Worse { .. }) => {
            diag(e);
            Ok(ExitCode::from(EXIT_SOME_FAILED))
        }
        Err(e) => Err(e.into()),
    }
}

/// A progress bar for one stage on stderr (`sheets`, `steps`, `reads`); hidden with
/// `--quiet` or when stderr is not a terminal.
fn stage_bar(stage: &'static str, len: usize, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {prefix}  ETA {eta}  {msg}")
            .expect("valid template"),
    );
    bar.set_prefix(stage);
    bar
}
