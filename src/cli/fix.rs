//! `scoresheet fix`: a human's correction (or a corrections file from the review
//! page) -> the move locked in the report, the rest of the game re-read around it,
//! PGN and JSON rewritten atomically. The checks and the re-read are the library's
//! (`scoresheet::corrections`, `Pipeline::reread`); this file parses the flags, loads
//! the model and writes the files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow};

use scoresheet::corrections::{self, CorrectionsFile, HeaderRequest, Request, Requests, now_utc};
use scoresheet::{
    Notation, PgnTags, Pipeline, PipelineParams, RuntimeParams, SheetReport, to_pgn, write_atomic,
};

use super::batch::load_model;
use super::{EXIT_SOME_FAILED, diag};

#[derive(clap::Args, Debug)]
#[command(group = clap::ArgGroup::new("target").args(["ply", "cell", "apply", "header"]).required(true))]
pub struct FixArgs {
    /// The report to correct (`OUTDIR/<stem>.json`); with --apply, the output folder.
    pub report: PathBuf,
    /// The move, in the sheet's notation or English (`Кf3`, `Sf3`, `Nf3`, `e2-e4`).
    #[arg(required_unless_present_any = ["apply", "header"])]
    pub text: Option<String>,
    /// Correct a header of the game: FIELD (white, black, white_elo, black_elo,
    /// white_fide_id, black_fide_id, round, board, result, event, site, date) and its
    /// VALUE (empty: cleared). The moves are not re-read.
    #[arg(long, num_args = 2, value_names = ["FIELD", "VALUE"])]
    pub header: Vec<String>,
    /// Half-move to correct (1 = White's first move), as numbered in the report.
    #[arg(long)]
    pub ply: Option<u32>,
    /// Sheet cell to correct: move number and side, e.g. `12b` or `7w`.
    #[arg(long)]
    pub cell: Option<String>,
    /// Apply a corrections file downloaded from the review page.
    #[arg(long, value_name = "FILE")]
    pub apply: Option<PathBuf>,
    /// Who is correcting (recorded in the report).
    #[arg(long)]
    pub by: Option<String>,
    /// Model manifest (default: the model built into the binary).
    #[arg(long, value_name = "MANIFEST")]
    pub model: Option<PathBuf>,
    /// ONNX Runtime shared library to load.
    #[arg(long, value_name = "FILE")]
    pub ort_lib: Option<PathBuf>,
}

pub fn run(args: FixArgs) -> anyhow::Result<ExitCode> {
    let by = args
        .by
        .clone()
        .or_else(|| std::env::var("USER").ok())
        .unwrap_or_else(|| "cli".into());
    let runtime = RuntimeParams {
        ort_lib: args.ort_lib.clone(),
        threads: 2,
        ..RuntimeParams::default()
    };
    if let Some(file) = &args.apply {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let parsed =
            CorrectionsFile::parse(&text).map_err(|e| anyhow!("{}: {e}", file.display()))?;
        let mut failed = 0;
        for (name, requests) in parsed.requests(&by) {
            if name.contains('/') || name.contains('\\') {
                diag(format!(
                    "{name}: report names must be plain file names; skipped"
                ));
                failed += 1;
                continue;
            }
            let path = args.report.join(&name);
            match fix_report(&path, requests, &args, &runtime) {
                Ok(msg) => diag(msg),
                Err(e) => {
                    diag(format!("{e:#}"));
                    failed += 1;
                }
            }
        }
        return Ok(if failed > 0 {
            ExitCode::from(EXIT_SOME_FAILED)
        } else {
            ExitCode::SUCCESS
        });
    }

    let requests = if let [field, value] = args.header.as_slice() {
        Requests {
            moves: Vec::new(),
            headers: vec![HeaderRequest {
                field: field.clone(),
                value: value.clone(),
                by,
                at: now_utc(),
            }],
        }
    } else {
        let report = SheetReport::load(&args.report)?;
        let text = args
            .text
            .clone()
            .ok_or_else(|| anyhow!("give the corrected move"))?;
        let (move_number, side) = match (args.ply, &args.cell) {
            (Some(ply), _) => corrections::cell_of_ply(&report, ply)
                .map_err(|e| anyhow!("{}: {e}", args.report.display()))?,
            (None, Some(cell)) => corrections::parse_cell(cell).map_err(|e| anyhow!("--{e}"))?,
            (None, None) => unreachable!("clap requires --ply, --cell, --header or --apply"),
        };
        Requests {
            moves: vec![Request {
                move_number,
                side,
                text,
                by,
                at: now_utc(),
            }],
            headers: Vec::new(),
        }
    };
    match fix_report(&args.report, requests, &args, &runtime) {
        Ok(msg) => {
            diag(msg);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            diag(format!("{e:#}"));
            Ok(ExitCode::from(EXIT_SOME_FAILED))
        }
    }
}

/// Applies corrections to one report: checks them in the order of the game, each
/// against the game with the earlier ones applied (nothing changes if one is wrong),
/// re-reads the sheet with every move correction locked (headers alone need no
/// re-read), rewrites PGN + JSON.
fn fix_report(
    path: &Path,
    requests: Requests,
    args: &FixArgs,
    runtime: &RuntimeParams,
) -> anyhow::Result<String> {
    let report = SheetReport::load(path)?;
    let n: Notation = report.notation.parse().unwrap_or(Notation::En);
    let name = path.display();
    let report = corrections::correct_headers(&report, &requests.headers)
        .map_err(|e| anyhow!("{name}: {e}"))?;
    if requests.moves.is_empty() {
        write_report(path, &report)?;
        let k = requests.headers.len();
        return Ok(format!(
            "{name}: {k} header correction{} recorded",
            if k == 1 { "" } else { "s" }
        ));
    }
    // Re-read as the sheet was read (beam, second look, one pass, prior, threshold).
    let settings = report.producer.settings.clone().unwrap_or_default();
    let runtime = RuntimeParams {
        second_look: !settings.one_look,
        ..runtime.clone()
    };
    let mut model = load_model(args.model.as_deref(), &runtime)?;
    let model_name = model.manifest().name.clone();
    let mut params = PipelineParams::for_settings(&settings);
    params.decode.reading.notation = Some(n);
    let reread = Pipeline::new(params)
        .correct(&report, &requests.moves, &mut model)
        .with_context(|| format!("{name}"))?;
    let mut new = reread.report;
    new.producer.tool = format!("scoresheet {}", env!("CARGO_PKG_VERSION"));
    new.producer.model = model_name;
    new.producer.settings = Some(settings);
    write_report(path, &new)?;
    let changed = reread.changed;
    Ok(format!(
        "{name}: {} correction{} locked, {changed} cell{} changed, {} flagged for review",
        new.corrections.len(),
        if new.corrections.len() == 1 { "" } else { "s" },
        if changed == 1 { "" } else { "s" },
        new.summary.flagged
    ))
}

/// Writes a report's PGN and JSON atomically (`<stem>.pgn` beside `path`).
fn write_report(path: &Path, report: &SheetReport) -> anyhow::Result<()> {
    let pgn = to_pgn(report, &PgnTags::default(), &report.producer.tool);
    write_atomic(&path.with_extension("pgn"), pgn.as_bytes())?;
    write_atomic(path, report.to_json().as_bytes())?;
    Ok(())
}
