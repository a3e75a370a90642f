//! `scoresheet eval`: labelled scans -> accuracy figures (cell recognition, plies,
//! exact games, review flags, silent errors, calibration), for people deciding
//! whether to trust the tool on their own sheets.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use rayon::prelude::*;

use scoresheet::eval::{SheetEval, Truth, evaluate, read_labels, summarize};
use scoresheet::notation::read_pgn;
use scoresheet::pipeline::{Pipeline, PipelineParams, SheetOptions};

use super::batch::{ModelArgs, ModelPool, jobs_for, parse_notation, progress, workers};
use super::inputs::{self, Input};
use super::{EXIT_USAGE, diag};

#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// Labelled scans or folders. Truth comes from --labels, else from `<stem>.tsv`
    /// (labels of what each cell says) and/or `<stem>.pgn` (the true game) beside
    /// each image.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Labels of every sheet in the HCS format (`page move side label`).
    #[arg(long, value_name = "TSV")]
    pub labels: Option<PathBuf>,
    /// Only games of the model's validation split (`val`, from the manifest), only
    /// the others (`train`), or all.
    #[arg(long, default_value = "all")]
    pub split: String,
    /// Print the figures as JSON (with per-sheet figures).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// HCS game id of a stem: `053_1` -> `053`.
fn game_of(stem: &str) -> &str {
    stem.split('_').next().unwrap_or(stem)
}

/// Truth for one image from files next to it.
fn truth_beside(input: &Input) -> anyhow::Result<Truth> {
    let mut truth = Truth::default();
    let tsv = input.path.with_extension("tsv");
    if tsv.is_file() {
        truth.labels = read_labels(&tsv)?.into_values().flatten().collect();
    }
    let pgn = input.path.with_extension("pgn");
    if pgn.is_file() {
        let text = std::fs::read_to_string(&pgn)?;
        let game = read_pgn(&text)
            .into_iter()
            .next()
            .ok_or_else(|| anyhow::anyhow!("{}: no game", pgn.display()))?
            .map_err(|e| anyhow::anyhow!("{}: {e}", pgn.display()))?;
        let mut pos = shakmaty::Chess::default();
        let mut sans = Vec::with_capacity(game.moves.len());
        for m in game.moves {
            sans.push(shakmaty::san::San::from_move(&pos, m).to_string());
            shakmaty::Position::play_unchecked(&mut pos, m);
        }
        truth.game = Some(sans);
    }
    Ok(truth)
}

pub fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    let (mut inputs, missing) = inputs::collect(&args.paths);
    for e in &missing {
        diag(e);
    }
    let labels = match &args.labels {
        Some(p) => Some(read_labels(p)?),
        None => None,
    };
    let pool_probe = ModelPool::new(&args.model, 1)?;
    let split_games: Option<BTreeSet<String>> = match args.split.as_str() {
        "all" => None,
        "val" | "train" => {
            let games = pool_probe.with(|m| m.manifest().validation.get("hcs_games").cloned());
            let games: BTreeSet<String> = games
                .and_then(|v| serde_json::from_value::<Vec<String>>(v).ok())
                .unwrap_or_default()
                .into_iter()
                .collect();
            if games.is_empty() {
                bail!("the model's manifest names no validation games (validation.hcs_games)");
            }
            Some(games)
        }
        other => bail!("--split {other}: expected val, train or all"),
    };
    drop(pool_probe);
    if let Some(games) = &split_games {
        let want_val = args.split == "val";
        inputs.retain(|i| games.contains(game_of(&i.stem)) == want_val);
    }
    // Pair every input with its truth; inputs without any are left out.
    let mut work: Vec<(Input, Truth)> = Vec::new();
    for input in inputs {
        let truth = match &labels {
            Some(all) => Truth {
                labels: all.get(&input.stem).cloned().unwrap_or_default(),
                game: None,
            },
            None => truth_beside(&input)?,
        };
        if truth.labels.is_empty() && truth.game.is_none() {
            continue;
        }
        work.push((input, truth));
    }
    if work.is_empty() {
        diag("no labelled sheets to evaluate");
        return Ok(ExitCode::from(EXIT_USAGE));
    }

    let jobs = jobs_for(&args.model, work.len());
    let pool = ModelPool::new(&args.model, jobs)?;
    let mut params = PipelineParams::default();
    params.decode.notation = parse_notation(&args.model.notation)?;
    params.decode.beam_width = args.model.beam.max(1);
    let pipeline = Pipeline::new(params);
    let bar = progress(work.len(), args.model.quiet);
    let results: Vec<Result<SheetEval, String>> = workers(jobs)?.install(|| {
        work.par_iter()
            .map(|(input, truth)| {
                let r = pool.with(|m| pipeline.read_file(&input.path, m, &SheetOptions::default()));
                bar.inc(1);
                match r.into_iter().next() {
                    Some(Ok(sheet)) => Ok(evaluate(&sheet.report, truth)),
                    Some(Err(e)) => Err(e.to_string()),
                    None => Err(format!("{}: no page", input.path.display())),
                }
            })
            .collect()
    });
    bar.finish_and_clear();
    let mut sheets = Vec::new();
    let mut failed = missing.len();
    for r in results {
        match r {
            Ok(e) => sheets.push(e),
            Err(e) => {
                diag(e);
                failed += 1;
            }
        }
    }
    let summary = summarize(&sheets, failed);
    if args.json {
        let out = serde_json::json!({ "summary": summary, "sheets": sheets });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        let pct = |x: f64| format!("{:.1}%", 100.0 * x);
        println!(
            "sheets evaluated       {} ({} failed)",
            summary.sheets, summary.failed
        );
        if summary.cells > 0 {
            println!("labelled cells         {}", summary.cells);
            println!("move recognition       {}", pct(summary.cell_accuracy));
        }
        if summary.plies > 0 {
            println!("plies of true games    {}", summary.plies);
            println!("ply accuracy           {}", pct(summary.ply_accuracy));
        }
        println!("games read exactly     {}", pct(summary.exact_games));
        println!("flagged for review     {}", pct(summary.flagged));
        println!("silent errors          {}", pct(summary.silent_errors));
        println!("calibration error      {:.3}", summary.calibration_error);
    }
    Ok(ExitCode::SUCCESS)
}
