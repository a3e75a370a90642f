//! `scoresheet eval`: labelled scans -> accuracy figures (cell recognition, plies,
//! exact games, review flags, silent errors, calibration), for people deciding
//! whether to trust the tool on their own sheets.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use rayon::prelude::*;

use scoresheet::eval::{
    SheetEval, Summary, Truth, WrongCell, evaluate, normalise, read_labels, summarize, truth_beside,
};
use scoresheet::{Pipeline, SheetOptions, load_pages, write_atomic};

use super::batch::{ModelArgs, ModelPool, jobs_for, progress, workers};
use super::inputs::{self, Input, Job};
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
    /// Measure the two-copy gain: only games with both players' sheets
    /// (`NNN_0`/`NNN_1`) are read, each copy alone and both copies combined, and
    /// both sets of figures are printed, judged on the cells where both players
    /// wrote the same move.
    #[arg(long)]
    pub pairs: bool,
    /// Also write every wrong labelled cell to this TSV (sheet, move, side, label,
    /// what the tool shows, its move, the reader's own reading, confidence, flagged,
    /// source), to look at the errors one by one; with --pairs, those of the copies
    /// read together.
    #[arg(long, value_name = "TSV")]
    pub errors: Option<PathBuf>,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// HCS game id of a stem: `053_1` -> `053`.
fn game_of(stem: &str) -> &str {
    stem.split('_').next().unwrap_or(stem)
}

pub fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    let (mut inputs, missing, skipped) = inputs::collect(&args.paths);
    for e in missing.iter().chain(&skipped) {
        diag(e);
    }
    let labels = match &args.labels {
        Some(p) => Some(read_labels(p)?),
        None => None,
    };
    let params = args.model.pipeline_params()?;
    if !matches!(args.split.as_str(), "all" | "val" | "train") {
        bail!("--split {}: expected val, train or all", args.split);
    }
    let pool_probe = ModelPool::new(&args.model, 1)?;
    let split_games: Option<BTreeSet<String>> = match args.split.as_str() {
        "all" => None,
        _ => {
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
            None => truth_beside(&input.path)?,
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
    let pipeline = Pipeline::new(params);
    if args.pairs {
        return eval_pairs(&args, work, missing.len(), &pipeline, &pool, jobs);
    }
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
    print_summary(&summary, &sheets, args.json)?;
    write_errors(args.errors.as_deref(), &sheets)?;
    Ok(ExitCode::SUCCESS)
}

/// `--errors`: the wrong cells of every sheet as one TSV, written atomically.
fn write_errors(path: Option<&std::path::Path>, sheets: &[SheetEval]) -> anyhow::Result<()> {
    let Some(path) = path else {
        return Ok(());
    };
    let mut out = String::from(WrongCell::TSV_HEADER);
    out.push('\n');
    for s in sheets {
        for w in &s.wrong_cells {
            out.push_str(&w.tsv_row(&s.source));
            out.push('\n');
        }
    }
    Ok(write_atomic(path, out.as_bytes())?)
}

/// Prints one set of figures, as text or JSON.
fn print_summary(summary: &Summary, sheets: &[SheetEval], json: bool) -> anyhow::Result<()> {
    if json {
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
            println!(
                "... label legal where the game as read stands: {} cells, {} right ({} with the label's move in the game); the others (slips, off-game) {}",
                summary.legal_cells,
                pct(summary.legal_cell_accuracy),
                pct(summary.legal_cells_played),
                pct(summary.other_cell_accuracy)
            );
            for (what, e) in [
                ("wrong cells", &summary.error_sources),
                ("... not flagged", &summary.silent_sources),
            ] {
                println!(
                    "{what}, by source reader {} (the game's move right: {}), decoder {}, player {}, off-game {}, not read {}",
                    e.reader, e.reader_right_move, e.decoder, e.player, e.off_game, e.missing
                );
            }
        }
        if summary.plies > 0 {
            println!("plies of true games    {}", summary.plies);
            println!("ply accuracy           {}", pct(summary.ply_accuracy));
        }
        println!("games read exactly     {}", pct(summary.exact_games));
        println!("flagged for review     {}", pct(summary.flagged));
        println!("silent errors          {}", pct(summary.silent_errors));
        println!("calibration error      {:.3}", summary.calibration_error);
        let row = |f: &dyn Fn(&(f64, f64, f64)) -> String| joined(&summary.thresholds, f);
        println!(
            "review below confidence {}",
            row(&|t| format!("{:>6.2}", t.0))
        );
        println!(
            "  would flag            {}",
            row(&|t| format!("{:>5.1}%", 100.0 * t.1))
        );
        println!(
            "  would leave wrong     {}",
            row(&|t| format!("{:>5.1}%", 100.0 * t.2))
        );
        let budget = |f: &dyn Fn(&(f64, f64)) -> String| joined(&summary.budgets, f);
        println!(
            "check lowest first      {}",
            budget(&|b| format!("{:>5.0}%", 100.0 * b.0))
        );
        println!(
            "  would leave wrong     {}",
            budget(&|b| format!("{:>5.2}%", 100.0 * b.1))
        );
    }
    Ok(())
}

/// The items, each formatted by `f`, separated by spaces (one row of a table).
fn joined<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    items.iter().map(f).collect::<Vec<_>>().join(" ")
}

/// `--pairs`: every game with both copies labelled is read three times (copy 0
/// alone, copy 1 alone, both combined) and judged on the cells where both players
/// wrote the same move (so a player's own slip on one copy does not count against
/// the combined reading); the figures are printed side by side.
fn eval_pairs(
    args: &EvalArgs,
    work: Vec<(Input, Truth)>,
    missing: usize,
    pipeline: &Pipeline,
    pool: &ModelPool,
    jobs: usize,
) -> anyhow::Result<ExitCode> {
    let truths: HashMap<PathBuf, Truth> = work
        .iter()
        .map(|(i, t)| (i.path.clone(), t.clone()))
        .collect();
    let pairs: Vec<[Input; 2]> =
        inputs::jobs(work.into_iter().map(|(i, _)| i).collect(), true, &[])
            .into_iter()
            .filter_map(|j| match j {
                Job::Game(copies, _) => {
                    let [a, b]: [Vec<Input>; 2] = copies.try_into().ok()?;
                    Some([a.into_iter().next()?, b.into_iter().next()?])
                }
                Job::One(_) => None,
            })
            .collect();
    if pairs.is_empty() {
        diag("no labelled games with both copies (NNN_0 / NNN_1) to evaluate");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let bar = progress(pairs.len(), args.model.quiet);
    type PairEval = ([SheetEval; 2], SheetEval);
    let results: Vec<Result<PairEval, String>> = workers(jobs)?.install(|| {
        pairs
            .par_iter()
            .map(|pair| {
                let r = pool.with(|m| -> Result<PairEval, String> {
                    let opts = SheetOptions::default();
                    let (t0, t1) = (&truths[&pair[0].path], &truths[&pair[1].path]);
                    let truth = Truth {
                        labels: t0
                            .labels
                            .iter()
                            .filter(|(k, v)| {
                                t1.labels
                                    .get(*k)
                                    .is_some_and(|w| normalise(w) == normalise(v))
                            })
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                        game: None,
                    };
                    let mut pages = Vec::new();
                    let mut alone = Vec::new();
                    for input in pair {
                        let mut p = load_pages(&input.path, &pipeline.params().page)
                            .map_err(|e| e.to_string())?;
                        let sheet = pipeline
                            .read_page(p.swap_remove(0), m, &opts)
                            .map_err(|e| e.to_string())?;
                        alone.push(evaluate(&sheet.report, &truth));
                        pages.push(
                            sheet
                                .copies
                                .into_iter()
                                .flat_map(|c| c.pages)
                                .take(1)
                                .collect(),
                        );
                    }
                    let both = pipeline
                        .read_game(pages, m, &opts)
                        .map_err(|e| e.to_string())?;
                    let both = evaluate(&both.report, &truth);
                    let alone: [SheetEval; 2] =
                        alone.try_into().map_err(|_| "two copies".to_string())?;
                    Ok((alone, both))
                });
                bar.inc(1);
                r
            })
            .collect()
    });
    bar.finish_and_clear();
    let (mut alone, mut both) = (Vec::new(), Vec::new());
    let mut failed = missing;
    for r in results {
        match r {
            Ok((a, b)) => {
                alone.extend(a);
                both.push(b);
            }
            Err(e) => {
                diag(e);
                failed += 1;
            }
        }
    }
    let (sa, sb) = (summarize(&alone, failed), summarize(&both, failed));
    write_errors(args.errors.as_deref(), &both)?;
    if args.json {
        let out = serde_json::json!({ "each_copy_alone": sa, "both_copies": sb });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("games with both copies {}", both.len());
        println!("== each copy alone, on the cells where both players wrote the same move");
        print_summary(&sa, &alone, false)?;
        println!("== both copies combined, on the same cells");
        print_summary(&sb, &both, false)?;
    }
    Ok(ExitCode::SUCCESS)
}
