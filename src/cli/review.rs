//! `scoresheet review OUTDIR`: the reports of a batch + their sheet images -> one
//! self-contained HTML review page (`OUTDIR/review.html`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};

use scoresheet::{PageParams, ReviewSheet, SheetReport, reload_pages, review_html, write_atomic};

use super::{EXIT_SOME_FAILED, diag};

#[derive(clap::Args, Debug)]
pub struct ReviewArgs {
    /// Output folder of `scoresheet read -o`.
    pub outdir: PathBuf,
    /// Where to write the page (default: OUTDIR/review.html).
    #[arg(short, long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub fn run(args: ReviewArgs) -> anyhow::Result<ExitCode> {
    let (path, failed) = write_review(&args.outdir, args.out.as_deref())?;
    diag(format!("review page: {}", path.display()));
    Ok(if failed > 0 {
        ExitCode::from(EXIT_SOME_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Reports (`*.json` that parse as reports) in a folder, sorted by name.
pub(super) fn reports_in(dir: &Path) -> anyhow::Result<Vec<(String, SheetReport)>> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    Ok(names
        .into_iter()
        .filter_map(|p| {
            let r = SheetReport::load(&p).ok()?;
            let name = p.file_name()?.to_string_lossy().into_owned();
            Some((name, r))
        })
        .collect())
}

/// Writes the review page for the reports in `outdir`; returns its path and the
/// number of sheets left out because their image could not be read again.
///
/// # Errors
/// When the folder holds no reports or the page cannot be written.
pub fn write_review(outdir: &Path, out: Option<&Path>) -> anyhow::Result<(PathBuf, usize)> {
    let reports = reports_in(outdir)?;
    if reports.is_empty() {
        bail!("{}: no reports (<stem>.json) to review", outdir.display());
    }
    let params = PageParams::default();
    let mut loaded = Vec::new();
    let mut failed = 0;
    for (name, report) in &reports {
        match reload_pages(report, &params) {
            Ok(pages) => loaded.push((name.clone(), report, pages)),
            Err(e) => {
                diag(format!("{name}: left out of the review page: {e}"));
                failed += 1;
            }
        }
    }
    let sheets: Vec<ReviewSheet> = loaded
        .iter()
        .map(|(name, report, pages)| ReviewSheet {
            report_name: name.clone(),
            report,
            pages: pages.iter().map(|p| &p.image).collect(),
        })
        .collect();
    let batch = outdir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "batch".into());
    let html = review_html(&batch, &sheets);
    let path = out.map_or_else(|| outdir.join("review.html"), Path::to_path_buf);
    write_atomic(&path, html.as_bytes())?;
    Ok((path, failed))
}
