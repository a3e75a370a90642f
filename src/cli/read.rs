//! `scoresheet read`: image files and folders -> PGN (stdout or `-o DIR`) and a JSON
//! report per sheet, sheets in parallel, one progress bar, a summary line.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use rayon::prelude::*;

use scoresheet::{
    FieldVocab, Pairings, Pipeline, Producer, SheetReport, Trf, Variant, write_atomic,
};

use super::batch::{ModelArgs, ModelPool, jobs_for, progress, workers};
use super::inputs::{self, Job};
use super::{EXIT_SOME_FAILED, EXIT_USAGE, diag};

mod boards;
mod copies;
mod jobs;

pub(super) use jobs::read_job;
use jobs::{Batch, Outcome, read_any, release_held};

/// The tournament's tables a batch's games take their headers from (`read`, `desk`).
#[derive(clap::Args, Debug)]
pub struct TableArgs {
    /// The tournament's pairings (CSV, .xlsx or .ods with a header row): PGN headers
    /// for every sheet whose file name (r3b12, 3-12) or the sheet map names its game;
    /// other games are placed on the board their header (board, round, names) fits.
    #[arg(long, value_name = "FILE")]
    pub pairings: Option<PathBuf>,
    /// The round of a pairing table that has no round column.
    #[arg(long, value_name = "N")]
    pub round: Option<u32>,
    /// FIDE Tournament Report File (TRF-16): ratings, FIDE ids and results by player.
    #[arg(long, value_name = "FILE.trf")]
    pub players: Option<PathBuf>,
    /// A table `file,round,board` naming the game of sheets whose names do not.
    #[arg(long, value_name = "FILE")]
    pub sheet_map: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct ReadArgs {
    /// Image files (png, jpeg, tiff) or folders (recursed).
    #[arg(required_unless_present_any = ["pair", "continued"])]
    pub paths: Vec<PathBuf>,
    /// Write DIR/<stem>.pgn and DIR/<stem>.json for every sheet (default: PGN on stdout).
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Read both players' copies of a game as one game when their names say so
    /// (`053_0`/`053_1`, `r1_w`/`r1_b`, `r1-white`/`r1-black`); output `<game>.pgn/json`.
    /// Sheets no name pairs are read alone, and two that read the same game are read
    /// again as its two copies (`<a>+<b>.pgn/json`; one stderr line names them).
    #[arg(long)]
    pub pairs: bool,
    /// Read these two files as the two copies of one game (repeatable).
    #[arg(long, num_args = 2, value_names = ["A", "B"], action = clap::ArgAction::Append)]
    pub pair: Vec<PathBuf>,
    /// B is the next sheet of the game whose sheet A is (a continuation sheet;
    /// repeatable: `--continue A B --continue B C`). Sheets named `<first>-2`,
    /// `<first>-3` beside their first sheet are joined without it.
    #[arg(long = "continue", num_args = 2, value_names = ["A", "B"], action = clap::ArgAction::Append)]
    pub continued: Vec<PathBuf>,
    /// Also write OUTDIR/review.html (needs -o).
    #[arg(long, requires = "out")]
    pub review: bool,
    /// Flag the least sure P % of the batch's moves for review, and no others
    /// (instead of a confidence threshold); the files are written once the whole
    /// batch is read.
    #[arg(long, value_name = "P", conflicts_with = "review_below")]
    pub review_budget: Option<f32>,
    #[command(flatten)]
    pub tables: TableArgs,
    /// Also write every game of the batch into one PGN file, in round and board order.
    #[arg(long, value_name = "FILE")]
    pub pgn_out: Option<PathBuf>,
    /// Read only shard K of N (`3/8`): a stable split by game name, so that each sheet
    /// is in exactly one shard whatever else the folder holds, and both copies and the
    /// continuation sheets of one game (`053_0`/`053_1`, `r3b12`/`r3b12-2`) are in the
    /// same one. Give each shard its own `-o` folder.
    #[arg(long, value_name = "K/N", value_parser = inputs::parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// What the sheets record: chess (legal games) or das (the 10×10 variant, read by
    /// its notation only, without its rules).
    #[arg(long, default_value = "chess")]
    pub variant: Variant,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// Where a game goes in the round file: by round and board, games that name none
/// last, then by source.
pub(super) type RoundKey = (u32, u32, String);

/// Writes the round file: every game's PGN in round and board order. Says how many
/// games it holds, or why it could not be written (then false).
pub(super) fn write_round_file(file: &Path, mut games: Vec<(&RoundKey, &str)>) -> bool {
    games.sort_by(|a, b| a.0.cmp(b.0));
    let text = games.iter().map(|g| g.1).collect::<Vec<_>>().join("\n");
    match write_atomic(file, text.as_bytes()) {
        Ok(()) => {
            diag(format!("{} games in {}", games.len(), file.display()));
            true
        }
        Err(e) => {
            diag(e.to_string());
            false
        }
    }
}

/// A report's place in the round file (see [`RoundKey`]).
pub(super) fn round_key(report: &SheetReport) -> RoundKey {
    let game = report.game.as_ref();
    let round = game
        .and_then(|g| g.round.as_deref())
        .and_then(|r| r.parse().ok())
        .unwrap_or(u32::MAX);
    let board = game.and_then(|g| g.board).unwrap_or(u32::MAX);
    (round, board, report.source.clone())
}

pub fn run(args: ReadArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    // Every flag is checked, and every table file read, before any model is loaded.
    let mut params = args.model.pipeline_params()?;
    params.variant = args.variant;
    let budget = args.review_budget;
    if budget.is_some_and(|p| !(0.0..=100.0).contains(&p)) {
        diag("--review-budget: give a share of the moves in % (0 to 100)");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let pairings = match load_pairings(&args.tables) {
        Ok(p) => p,
        Err(e) => {
            diag(format!("{e:#}"));
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let Some((todo, missing)) = plan_jobs(&args) else {
        return Ok(ExitCode::from(EXIT_USAGE));
    };
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create output folder {}", dir.display()))?;
    }
    let jobs = jobs_for(&args.model, todo.len());
    let pool = ModelPool::new(&args.model, jobs)?;
    let model_name = pool.model_name();
    let pipeline = Pipeline::new(params);
    let bar = progress(todo.len(), args.model.quiet);
    let threads = workers(jobs)?;
    // Games no name places wait for the whole batch to be placed by their fields.
    let place = pairings.as_ref().is_some_and(|p| !p.games.is_empty());
    let hold = budget.is_some() || args.pairs || place;
    let mut settings = args.model.read_settings();
    settings.review_budget = budget;
    let producer = Producer {
        tool: format!("scoresheet {}", env!("CARGO_PKG_VERSION")),
        model: model_name,
        settings: Some(settings),
    };
    let outcomes: Vec<Outcome> = threads.install(|| {
        todo.par_iter()
            .map(|job| {
                let out = args.out.as_deref();
                let target = Batch {
                    out,
                    producer: &producer,
                    // held for the review budget, to join copies by content, or to
                    // place games on boards by what they say
                    hold,
                    pairings: pairings.as_ref(),
                    round_file: args.pgn_out.is_some(),
                };
                let o = pool.with(|m| read_any(job, &pipeline, m, &target));
                // Under --pairs a continuation sheet's error waits: it may find its
                // first sheet by content (`copies::join_continuations`).
                let later = args.pairs && o.continues.is_some();
                for e in o.errors.iter().filter(|_| !later) {
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
    let mut outcomes = outcomes;
    if args.pairs {
        let batch = Batch {
            out: args.out.as_deref(),
            producer: &producer,
            hold: true,
            pairings: pairings.as_ref(),
            round_file: args.pgn_out.is_some(),
        };
        let read_pair = |job: &Job| pool.with(|m| read_any(job, &pipeline, m, &batch));
        copies::join_by_content(&todo, &mut outcomes, args.shard.is_some(), |jobs| {
            threads.install(|| jobs.par_iter().map(&read_pair).collect())
        });
        copies::join_continuations(&todo, &mut outcomes, |jobs| {
            threads.install(|| jobs.par_iter().map(&read_pair).collect())
        });
    }
    if let Some(p) = pairings.as_ref().filter(|_| place) {
        boards::place_by_fields(&mut outcomes, p);
    }
    if let Some(percent) = budget {
        release_held(
            &mut outcomes,
            percent,
            args.out.as_deref(),
            args.pgn_out.is_some(),
        );
    } else if hold {
        copies::emit_held(&mut outcomes, args.out.as_deref(), args.pgn_out.is_some());
    }
    finish_batch(&args, &outcomes, missing, started)
}

/// The batch's jobs from the paths given (sheets, games over several sheets, copies
/// paired by name, this shard's share), and how many paths are missing; each missing
/// path and skipped file is one line. None when nothing is found (said on stderr).
fn plan_jobs(args: &ReadArgs) -> Option<(Vec<Job>, usize)> {
    let explicit: Vec<(PathBuf, PathBuf)> = args
        .pair
        .chunks(2)
        .map(|c| (c[0].clone(), c[1].clone()))
        .collect();
    let continued: Vec<(PathBuf, PathBuf)> = args
        .continued
        .chunks(2)
        .map(|c| (c[0].clone(), c[1].clone()))
        .collect();
    let mut paths = args.paths.clone();
    paths.extend(args.pair.iter().cloned());
    paths.extend(args.continued.iter().cloned());
    let (inputs, missing, skipped) = inputs::collect(&paths);
    for e in missing.iter().chain(&skipped) {
        diag(e);
    }
    if inputs.is_empty() && missing.is_empty() {
        diag("no png, jpeg, tiff or pdf files found in the given paths");
        return None;
    }

    let (mut todo, inputs) = inputs::continuations(inputs, &continued);
    todo.extend(inputs.into_iter().map(Job::One));
    let mut todo = inputs::pair_copies(todo, args.pairs, &explicit);
    if let Some((k, n)) = args.shard {
        todo.retain(|job| inputs::shard_of(job, n) == k);
    }
    Some((todo, missing.len()))
}

/// What follows a batch's reading: warnings on two reports that claim one board, the
/// round file, the PGN on stdout (without `-o`), the review page, and the summary line
/// with the exit status.
fn finish_batch(
    args: &ReadArgs,
    outcomes: &[Outcome],
    missing: usize,
    started: Instant,
) -> anyhow::Result<ExitCode> {
    warn_double_claims(outcomes);
    let mut write_failed = 0;
    if let Some(file) = &args.pgn_out {
        let games = outcomes
            .iter()
            .flat_map(|o| &o.round_pgn)
            .map(|(k, pgn)| (k, pgn.as_str()))
            .collect();
        if !write_round_file(file, games) {
            write_failed = 1;
        }
    }

    if args.out.is_none() {
        let stdout = std::io::stdout();
        let mut lock = stdout.lock();
        for o in outcomes {
            for pgn in &o.pgn {
                lock.write_all(pgn.as_bytes())?;
            }
        }
        lock.flush()?;
    }
    let mut failed =
        outcomes.iter().filter(|o| !o.errors.is_empty()).count() + missing + write_failed;
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

/// Reads the pairing options (none given: `None`).
pub(super) fn load_pairings(args: &TableArgs) -> anyhow::Result<Option<Pairings>> {
    if args.pairings.is_none() && args.players.is_none() && args.sheet_map.is_none() {
        if args.round.is_some() {
            anyhow::bail!("--round needs --pairings");
        }
        return Ok(None);
    }
    let mut p = Pairings::default();
    if let Some(file) = &args.pairings {
        p.games = Pairings::load_table(file, args.round)?;
        if p.games.is_empty() {
            anyhow::bail!("{}: no games in the pairing table", file.display());
        }
    }
    if let Some(file) = &args.players {
        p.players = Some(Trf::load(file)?);
    }
    if let Some(file) = &args.sheet_map {
        p.map = Pairings::load_map(file)?;
    }
    Ok(Some(p))
}

/// Warns of two reports that claim one round and board (the two copies of one game
/// read apart: `--pairs` combines them).
fn warn_double_claims(outcomes: &[Outcome]) {
    let mut by_game: BTreeMap<(u32, u32), Vec<&str>> = BTreeMap::new();
    for o in outcomes {
        for (game, source) in &o.claims {
            by_game.entry(*game).or_default().push(source);
        }
    }
    for ((round, board), sources) in by_game {
        if sources.len() > 1 {
            diag(format!(
                "warning: {} sheets claim round {round} board {board}: {} (two copies of one game? --pairs reads them as one)",
                sources.len(),
                sources.join(", ")
            ));
        }
    }
}

/// What the header fields are scored against: every name and round the pairing
/// table holds (a batch may hold several rounds; the round read separates them).
fn vocab_of(pairings: &Pairings) -> FieldVocab {
    let mut names: Vec<String> = Vec::new();
    let mut rounds: Vec<String> = Vec::new();
    for p in &pairings.games {
        for n in [&p.white, &p.black] {
            if !n.trim().is_empty() && !names.contains(n) {
                names.push(n.clone());
            }
        }
        if let Some(r) = p.round.map(|r| r.to_string())
            && !rounds.contains(&r)
        {
            rounds.push(r);
        }
    }
    FieldVocab { names, rounds }
}
