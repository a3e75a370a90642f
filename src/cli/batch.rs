//! Shared machinery of the batch commands (`read`, `eval`): model and runtime
//! options, one model per worker, the worker pool and the progress bar.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use scoresheet::{Notation, OrtModel, PipelineParams, ReadSettings, RuntimeParams};

/// Options every command that runs the model takes.
#[derive(clap::Args, Debug, Clone)]
pub struct ModelArgs {
    /// Model manifest (`models/<name>.json`); default: the model built into the binary.
    #[arg(long, value_name = "MANIFEST")]
    pub model: Option<PathBuf>,
    /// ONNX Runtime shared library to load (default: found automatically).
    #[arg(long, value_name = "FILE")]
    pub ort_lib: Option<PathBuf>,
    /// Sheets read at once (default: the number of cores).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Notation of the sheets: auto, en, ru, pl or de.
    #[arg(long, default_value = "auto")]
    pub notation: String,
    /// Beam width of the decoder (wider: slower, more robust).
    #[arg(long, default_value_t = scoresheet::DEFAULT_BEAM_WIDTH)]
    pub beam: usize,
    /// Weight of the learned move prior (move features and an opening book,
    /// `models/prior.json`; default its own scale 0.5); 0 turns it off.
    #[arg(long, value_name = "SCALE")]
    pub prior_scale: Option<f32>,
    /// Read each cell once: no second look at the cells the reader is unsure of
    /// (about 1.5x faster, a few tenths of a point fewer cells right).
    #[arg(long)]
    pub one_look: bool,
    /// Decode each sheet once: no second decode that undoes the glyph confusions of
    /// the sheet's hand, learnt from the first (a little faster; fewer moves right on
    /// hands the reader finds hard).
    #[arg(long)]
    pub one_pass: bool,
    /// A move whose confidence is below this is flagged for review (default: the
    /// threshold calibrated with the model, see `models/README.md`).
    #[arg(long, value_name = "P")]
    pub review_below: Option<f32>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

impl ModelArgs {
    /// Pipeline settings from these options.
    ///
    /// # Errors
    /// An unknown notation code.
    pub fn pipeline_params(&self) -> anyhow::Result<PipelineParams> {
        let mut params = PipelineParams::for_settings(&self.read_settings());
        params.decode.reading.notation = parse_notation(&self.notation)?;
        Ok(params)
    }

    /// The reading options a report records (and `fix` re-reads with).
    pub fn read_settings(&self) -> ReadSettings {
        ReadSettings {
            beam: self.beam.max(1),
            one_look: self.one_look,
            one_pass: self.one_pass,
            prior_scale: self.prior_scale,
            review_below: self.review_below.map(|p| p.clamp(0.0, 1.0)),
            review_budget: None,
        }
    }
}

/// Parses `auto|en|ru|pl|de`.
pub fn parse_notation(s: &str) -> anyhow::Result<Option<Notation>> {
    if s.eq_ignore_ascii_case("auto") {
        return Ok(None);
    }
    Ok(Some(s.parse::<Notation>()?))
}

/// Loads the model from a manifest file, or the one built into the binary.
pub fn load_model(manifest: Option<&Path>, params: &RuntimeParams) -> anyhow::Result<OrtModel> {
    Ok(match manifest {
        Some(p) => OrtModel::from_manifest_file(p, params)?,
        None => OrtModel::embedded(params)?,
    })
}

/// One model per worker (`CellModel::read` needs `&mut`), handed out on demand.
pub struct ModelPool(Mutex<Vec<OrtModel>>);

impl ModelPool {
    /// Loads `jobs` models, splitting the cores between them.
    pub fn new(args: &ModelArgs, jobs: usize) -> anyhow::Result<Self> {
        Self::load(
            args.model.as_deref(),
            args.ort_lib.clone(),
            jobs,
            !args.one_look,
        )
    }

    /// Loads `jobs` models of a manifest (None: the built-in one).
    pub fn load(
        manifest: Option<&Path>,
        ort_lib: Option<PathBuf>,
        jobs: usize,
        second_look: bool,
    ) -> anyhow::Result<Self> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let runtime = RuntimeParams {
            ort_lib,
            threads: (cores / jobs.max(1)).max(1),
            second_look,
            ..RuntimeParams::default()
        };
        let models = (0..jobs.max(1))
            .map(|_| load_model(manifest, &runtime))
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(ModelPool(Mutex::new(models)))
    }

    /// Name of the model (from its manifest).
    pub fn model_name(&self) -> String {
        let models = self.0.lock().expect("model pool");
        models
            .first()
            .map_or_else(String::new, |m| m.manifest().name.clone())
    }

    /// Runs `f` with a model of its own. The model goes back to the pool even when
    /// `f` panics (re-raised after), so one sheet's fault does not take a worker's
    /// model from the rest of the batch.
    pub fn with<R>(&self, f: impl FnOnce(&mut OrtModel) -> R) -> R {
        let lock = || {
            self.0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        let mut model = lock().pop().expect("one model per worker");
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut model)));
        lock().push(model);
        r.unwrap_or_else(|p| std::panic::resume_unwind(p))
    }
}

/// Number of workers for `n` inputs.
pub fn jobs_for(args: &ModelArgs, n: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    args.jobs.unwrap_or(cores).clamp(1, 64).min(n.max(1))
}

/// A thread pool of `jobs` workers.
pub fn workers(jobs: usize) -> anyhow::Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("cannot start worker threads")
}

/// The batch progress bar on stderr; hidden with `--quiet` or when stderr is not a
/// terminal.
pub fn progress(len: usize, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} sheets  {per_sec}  ETA {eta}  {msg}")
            .expect("valid template"),
    );
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_while_reading_gives_the_model_back() {
        let pool = ModelPool::load(None, None, 1, false).expect("the built-in model");
        let fault = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.with(|_| panic!("a fault in one sheet"))
        }));
        assert!(fault.is_err());
        // The one model is back: the next sheet gets it.
        let name = pool.with(|m| m.manifest().name.clone());
        assert!(!name.is_empty());
    }
}
