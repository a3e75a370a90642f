//! Per-sheet figures -> the figures of a whole run: sums, shares, the calibration
//! error, what each confidence threshold or checking budget would leave wrong.

use serde::Serialize;

use super::{ErrorSources, SheetEval};

/// Figures for a whole evaluation run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub sheets: usize,
    pub failed: usize,
    pub cells: usize,
    /// Move recognition accuracy per labelled cell.
    pub cell_accuracy: f64,
    /// Labelled cells whose label is legal where the game as read stands, and the
    /// accuracy on them and on the others.
    pub legal_cells: usize,
    pub legal_cell_accuracy: f64,
    /// Share of those cells where the game as read plays the label's move.
    pub legal_cells_played: f64,
    pub other_cell_accuracy: f64,
    pub plies: usize,
    /// Ply accuracy against the true games.
    pub ply_accuracy: f64,
    /// Share of sheets read exactly.
    pub exact_games: f64,
    /// Share of judged decisions flagged for review.
    pub flagged: f64,
    /// Share of judged decisions wrong and not flagged.
    pub silent_errors: f64,
    /// Expected calibration error of the confidences (10 equal-width bins).
    pub calibration_error: f64,
    /// Per confidence bin: (lower edge, decisions, share right).
    pub calibration: Vec<(f64, usize, f64)>,
    /// Where the wrong labelled cells come from, summed over sheets.
    pub error_sources: ErrorSources,
    /// Where the wrong labelled cells not flagged for review come from.
    pub silent_sources: ErrorSources,
    /// For review thresholds on confidence alone: (threshold, share of judged
    /// decisions below it, share wrong at or above it), to choose `--review-below`.
    pub thresholds: Vec<(f64, f64, f64)>,
    /// For a checking budget: (share of judged decisions a human checks, lowest
    /// confidence first; share wrong among the others, of all judged decisions).
    pub budgets: Vec<(f64, f64)>,
}

/// Shares of the judged decisions checked by hand, lowest confidence first, for
/// [`Summary::budgets`].
pub const BUDGETS: [f64; 6] = [0.02, 0.05, 0.10, 0.15, 0.20, 0.25];

/// Share of `decisions` (confidence, right) left wrong when the `share` of them with
/// the lowest confidence is checked. Among equal confidences the right ones are
/// checked first, so that ties never flatter the tool.
fn left_wrong(decisions: &[(f32, bool)], share: f64) -> f64 {
    let mut sorted = decisions.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
    let checked = ((share * sorted.len() as f64).round() as usize).min(sorted.len());
    let wrong = sorted[checked..].iter().filter(|(_, right)| !right).count();
    ratio(wrong, sorted.len())
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// Aggregates sheet figures. Flags and silent errors are counted over plies where
/// true games are known, else over labelled cells.
pub fn summarize(sheets: &[SheetEval], failed: usize) -> Summary {
    let sum = |f: fn(&SheetEval) -> usize| sheets.iter().map(f).sum::<usize>();
    let (cells, plies) = (sum(|s| s.cells), sum(|s| s.plies));
    let (judged, flagged, silent) = if plies > 0 {
        (
            plies,
            sum(|s| s.plies_flagged),
            sum(|s| s.plies_silent_errors),
        )
    } else {
        (
            cells,
            sum(|s| s.cells_flagged),
            sum(|s| s.cells_silent_errors),
        )
    };
    let mut bins = vec![(0usize, 0usize, 0f64); 10];
    for s in sheets {
        for &(c, right) in &s.confidences {
            let b = ((c.clamp(0.0, 1.0) * 10.0) as usize).min(9);
            bins[b].0 += 1;
            bins[b].1 += usize::from(right);
            bins[b].2 += f64::from(c);
        }
    }
    let total: usize = bins.iter().map(|b| b.0).sum();
    let ece = bins
        .iter()
        .filter(|b| b.0 > 0)
        .map(|&(n, right, conf)| {
            (n as f64 / total as f64) * (right as f64 / n as f64 - conf / n as f64).abs()
        })
        .sum();
    let all: Vec<(f32, bool)> = sheets
        .iter()
        .flat_map(|s| s.confidences.iter().copied())
        .collect();
    let thresholds = [0.5f32, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99]
        .iter()
        .map(|&t| {
            let below = all.iter().filter(|(c, _)| *c < t).count();
            let silent = all.iter().filter(|(c, right)| *c >= t && !right).count();
            (
                f64::from(t),
                ratio(below, all.len()),
                ratio(silent, all.len()),
            )
        })
        .collect();
    let budgets = BUDGETS.iter().map(|&b| (b, left_wrong(&all, b))).collect();
    let (mut error_sources, mut silent_sources) =
        (ErrorSources::default(), ErrorSources::default());
    for s in sheets {
        error_sources.add(&s.error_sources);
        silent_sources.add(&s.silent_sources);
    }
    Summary {
        error_sources,
        silent_sources,
        thresholds,
        budgets,
        sheets: sheets.len(),
        failed,
        cells,
        cell_accuracy: ratio(sum(|s| s.cells_right), cells),
        legal_cells: sum(|s| s.legal_cells),
        legal_cell_accuracy: ratio(sum(|s| s.legal_cells_right), sum(|s| s.legal_cells)),
        legal_cells_played: ratio(sum(|s| s.legal_cells_played), sum(|s| s.legal_cells)),
        other_cell_accuracy: ratio(
            sum(|s| s.cells_right) - sum(|s| s.legal_cells_right),
            cells - sum(|s| s.legal_cells),
        ),
        plies,
        ply_accuracy: ratio(sum(|s| s.plies_right), plies),
        exact_games: ratio(sheets.iter().filter(|s| s.exact).count(), sheets.len()),
        flagged: ratio(flagged, judged),
        silent_errors: ratio(silent, judged),
        calibration_error: ece,
        calibration: bins
            .iter()
            .enumerate()
            .map(|(i, &(n, right, _))| (i as f64 / 10.0, n, ratio(right, n)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checking_budget_takes_the_least_sure_first_and_ties_never_flatter() {
        let d = [
            (0.2, false),
            (0.5, true),
            (0.5, false),
            (0.9, true),
            (0.95, false),
        ];
        assert_eq!(left_wrong(&d, 0.0), 0.6);
        assert_eq!(left_wrong(&d, 0.2), 0.4);
        // The tie at 0.5: the right one is checked first, the wrong one stays.
        assert_eq!(left_wrong(&d, 0.4), 0.4);
        assert_eq!(left_wrong(&d, 0.6), 0.2);
        assert_eq!(left_wrong(&d, 1.0), 0.0);
        assert_eq!(left_wrong(&[], 0.5), 0.0);
    }
}
