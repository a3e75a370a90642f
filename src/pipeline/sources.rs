//! Where a report came from: the `source` names of pages, and the pages a report was
//! read from, loaded again (upright and deskewed as then) for re-reading and review.

use std::path::Path;

use crate::page::{self, Page, PageError, PageParams};
use crate::report::SheetReport;

/// The `source` string of a page in reports: the path, plus `#pageN` for the pages
/// after the first of a multi-page file.
pub fn source_name(path: &Path, index: usize) -> String {
    if index == 0 {
        path.display().to_string()
    } else {
        format!("{}#page{}", path.display(), index + 1)
    }
}

/// The image file (absolute where known) and page index of each sheet a report was
/// read from, copy by copy and each copy's sheets in order (see
/// [`SheetReport::read_pages`]), else the one source.
pub fn report_sources(report: &SheetReport) -> Vec<(std::path::PathBuf, usize)> {
    let pick = |source: &str, path: &str| {
        let s = if path.is_empty() { source } else { path };
        std::path::PathBuf::from(s.split('#').next().unwrap_or(s))
    };
    let parts = report.read_pages();
    if parts.is_empty() {
        vec![(pick(&report.source, &report.source_path), report.page.index)]
    } else {
        parts
            .iter()
            .map(|c| (pick(&c.source, &c.source_path), c.page.index))
            .collect()
    }
}

/// Loads again the pages a report was read from (see [`report_sources`]), upright
/// and deskewed as when it was read, so that its boxes fit.
///
/// # Errors
/// When an image cannot be read or lacks the page.
pub fn reload_pages(report: &SheetReport, params: &PageParams) -> Result<Vec<Page>, PageError> {
    report_sources(report)
        .into_iter()
        .map(|(path, index)| page::load_page(&path, index, params))
        .collect()
}

/// The pages a report was read from, loaded again as [`reload_pages`] does and put back
/// into the game's copies, each a list of its sheets in order.
///
/// # Errors
/// As [`reload_pages`].
pub fn reload_game(report: &SheetReport, params: &PageParams) -> Result<Vec<Vec<Page>>, PageError> {
    let mut pages = reload_pages(report, params)?.into_iter();
    Ok(report
        .copy_sheets()
        .into_iter()
        .map(|n| pages.by_ref().take(n).collect())
        .collect())
}
