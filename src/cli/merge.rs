//! `scoresheet merge DIR... -o OUT`: the output folders of `read --shard K/N` -> one
//! folder with every report and PGN, and what a single run writes over a whole batch:
//! the summary line, the round PGN (`--pgn-out`), the review page (`--review`) and
//! the review budget over all shards (`--review-budget`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use scoresheet::{PgnTags, SheetReport, flag_least_sure, to_pgn, write_atomic};

use super::read::{RoundKey, round_key, write_round_file};
use super::review::reports_in;
use super::{EXIT_SOME_FAILED, EXIT_USAGE, diag};

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// Output folders of `scoresheet read -o` (one per shard).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// The folder to write every report and PGN into (not one of the shards').
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,
    /// Also write every game into one PGN file, in round and board order.
    #[arg(long, value_name = "FILE")]
    pub pgn_out: Option<PathBuf>,
    /// Also write OUT/review.html over all the shards' sheets.
    #[arg(long)]
    pub review: bool,
    /// Flag the least sure P % of all the shards' moves for review, and no others
    /// (a budget given to each shard's `read` covers that shard only).
    #[arg(long, value_name = "P")]
    pub review_budget: Option<f32>,
}

pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    if args
        .review_budget
        .is_some_and(|p| !(0.0..=100.0).contains(&p))
    {
        diag("--review-budget: give a share of the moves in % (0 to 100)");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if let Some(d) = args.dirs.iter().find(|d| same(d, &args.out)) {
        diag(format!(
            "{}: the merged folder must not be one of the shards' folders",
            d.display()
        ));
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create output folder {}", args.out.display()))?;

    let (found, mut failed) = collect_shards(&args.dirs);
    let (stems, mut reports, kept_failed) = keep_corrected(found, &args.out);
    failed += kept_failed;
    if let Some(percent) = args.review_budget {
        apply_budget(&mut reports, percent);
    }
    let mut round: Vec<(RoundKey, String)> = Vec::new();
    let (mut plies, mut flagged) = (0, 0);
    for (stem, report) in stems.iter().zip(&reports) {
        let pgn = to_pgn(report, &PgnTags::default(), &report.producer.tool);
        plies += report.summary.plies;
        flagged += report.summary.flagged;
        let written =
            write_atomic(&args.out.join(format!("{stem}.pgn")), pgn.as_bytes()).and_then(|()| {
                write_atomic(
                    &args.out.join(format!("{stem}.json")),
                    report.to_json().as_bytes(),
                )
            });
        if let Err(e) = written {
            diag(e.to_string());
            failed += 1;
        }
        if args.pgn_out.is_some() {
            round.push((round_key(report), pgn));
        }
    }
    if let Some(file) = &args.pgn_out
        && !write_round_file(
            file,
            round.iter().map(|(k, pgn)| (k, pgn.as_str())).collect(),
        )
    {
        failed += 1;
    }
    if args.review && !reports.is_empty() {
        match super::review::write_review(&args.out, None) {
            Ok((path, left_out)) => {
                diag(format!("review page: {}", path.display()));
                failed += left_out;
            }
            Err(e) => {
                diag(format!("{e:#}"));
                failed += 1;
            }
        }
    }
    diag(format!(
        "merged {} report{} from {} folder{} ({failed} problem{}), {plies} moves, {flagged} flagged for review",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        args.dirs.len(),
        if args.dirs.len() == 1 { "" } else { "s" },
        if failed == 1 { "" } else { "s" },
    ));
    Ok(if failed > 0 {
        ExitCode::from(EXIT_SOME_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// The reports of the shards' folders by stem, with the folder each came from (a stem
/// in two shards keeps the first), and how many problems were found.
fn collect_shards(dirs: &[PathBuf]) -> (BTreeMap<String, (PathBuf, SheetReport)>, usize) {
    let mut failed = 0;
    let mut found: BTreeMap<String, (PathBuf, SheetReport)> = BTreeMap::new();
    for dir in dirs {
        let reports = match reports_in(dir) {
            Ok(r) => r,
            Err(e) => {
                diag(format!("{e:#}"));
                failed += 1;
                continue;
            }
        };
        if reports.is_empty() {
            diag(format!(
                "{}: warning: no reports (<stem>.json)",
                dir.display()
            ));
        }
        for (name, report) in reports {
            let stem = name.trim_end_matches(".json").to_string();
            if let Some((first, _)) = found.get(&stem) {
                diag(format!(
                    "{stem}: in two shards ({} and {}); kept the first",
                    first.display(),
                    dir.display()
                ));
                failed += 1;
                continue;
            }
            found.insert(stem, (dir.clone(), report));
        }
    }
    (found, failed)
}

/// The reports to write into `out`, by stem: a report already there that holds more
/// human corrections than the shard's is never overwritten, and one that cannot be
/// read is left alone (counted as a problem).
fn keep_corrected(
    found: BTreeMap<String, (PathBuf, SheetReport)>,
    out: &Path,
) -> (Vec<String>, Vec<SheetReport>, usize) {
    let mut failed = 0;
    let mut stems = Vec::new();
    let mut reports = Vec::new();
    for (stem, (dir, report)) in found {
        let existing = out.join(format!("{stem}.json"));
        if existing.exists() {
            match SheetReport::load(&existing) {
                Ok(old) if human(&old) > human(&report) => {
                    diag(format!(
                        "{}: holds human corrections that {} lacks; kept",
                        existing.display(),
                        dir.join(format!("{stem}.json")).display()
                    ));
                    stems.push(stem);
                    reports.push(old);
                    continue;
                }
                Ok(_) => {}
                Err(e) => {
                    diag(format!("{e}; not overwritten"));
                    failed += 1;
                    continue;
                }
            }
        }
        stems.push(stem);
        reports.push(report);
    }
    (stems, reports, failed)
}

/// Flags the least sure `percent` of the merged batch's moves, ranked in the order one
/// run ranks equal confidences (by source), and records the budget in each report.
fn apply_budget(reports: &mut [SheetReport], percent: f32) {
    let mut order: Vec<usize> = (0..reports.len()).collect();
    order.sort_by(|&a, &b| reports[a].source.cmp(&reports[b].source));
    let mut ranked: Vec<SheetReport> = order
        .iter()
        .map(|&i| std::mem::take(&mut reports[i]))
        .collect();
    let threshold = flag_least_sure(&mut ranked, percent);
    for (report, &i) in ranked.into_iter().zip(&order) {
        reports[i] = report;
        if let Some(s) = reports[i].producer.settings.as_mut() {
            s.review_budget = Some(percent);
            s.review_below = Some(threshold.unwrap_or(1.0));
        }
    }
}

/// How many human corrections (moves and headers) a report carries.
fn human(r: &SheetReport) -> usize {
    r.corrections.len() + r.header_corrections.len()
}
