//! A reader's uncalibrated reports of settled sheets -> the calibration map refitted
//! for it: the same seven features and logistic map as the shipped one
//! (`crate::vocab::Calibration`, fitted by `training/calibrate.py`), fitted by Newton's
//! method; the review threshold is the base map's (without one, chosen by the
//! training rule: the highest, in steps of 0.01 from 0.5, that flags no more than a
//! tenth of the moves it was fitted on).

use serde::Serialize;

use crate::notation::{Notation, transliterate};
use crate::report::{MoveReport, MoveState, SheetReport};
use crate::vocab::Calibration;
use crate::vocab::calibration::{EPS, log_doubt};

/// The share of moves a threshold may flag (as `training/calibrate.py` chooses it).
pub const FLAG_SHARE: f64 = 0.10;
/// Fewer settled moves than this are too few to refit a map of eight weights.
pub const MIN_MOVES: usize = 200;
/// Fewer wrong moves than this on the held-out sheets cannot judge a refitted map: on
/// moves that are all right, a map that is surer of everything always fits better,
/// and its cost, wrong moves it no longer flags, is not there to see.
pub const MIN_WRONG_JUDGED: usize = 20;
/// Ridge weight of the fit (the bias not penalised), as in training.
const L2: f64 = 1e-3;

/// One decoded move of an uncalibrated report: its features, whether it is the
/// settled move, and whether it is flagged whatever its confidence.
#[derive(Clone, Debug)]
pub struct Sample {
    pub x: [f64; 7],
    pub right: bool,
    pub structural: bool,
}

/// The decoded moves of `report` (read with no calibration) against the settled game
/// `truth` (English SAN by ply).
pub fn samples(report: &SheetReport, truth: &[String]) -> Vec<Sample> {
    let n: Notation = report.notation.parse().unwrap_or(Notation::En);
    let doubts: Vec<f32> = report
        .moves
        .iter()
        .filter(|m| m.bbox.is_some() && m.state != MoveState::Locked)
        .map(|m| log_doubt(m.confidence))
        .collect();
    let sheet = if doubts.is_empty() {
        0.0
    } else {
        doubts.iter().sum::<f32>() / doubts.len() as f32
    };
    report
        .moves
        .iter()
        .filter(|m| m.ply.is_some())
        .zip(truth)
        .map(|(m, want)| Sample {
            x: features(m, n, sheet),
            right: m
                .san
                .as_deref()
                .is_some_and(|s| san_core(s) == san_core(want)),
            structural: m.state != MoveState::Locked && m.written.is_none(),
        })
        .collect()
}

fn san_core(s: &str) -> &str {
    s.trim_end_matches(['+', '#'])
}

fn features(m: &MoveReport, n: Notation, sheet: f32) -> [f64; 7] {
    let c = m.confidence.clamp(0.0, 1.0);
    let shown = m.written.is_some();
    // The written form (sheet letters) against the reading (English letters).
    let same = m.written.as_deref().is_some_and(|w| {
        let english = transliterate(&crate::glyph::canonical_str(w), n);
        crate::vocab::normalise(&english) == crate::vocab::normalise(&m.read)
    });
    let p = m.cell_p.unwrap_or(0.0).clamp(0.0, 1.0);
    [
        f64::from((c + EPS).ln()),
        f64::from(log_doubt(c)),
        f64::from(u8::from(shown)),
        f64::from(u8::from(shown && same)),
        f64::from(sheet),
        f64::from((p + EPS).ln()),
        f64::from(log_doubt(p)),
    ]
}

/// The probability a map gives a sample (none: the decoder's own confidence).
pub fn predict(cal: Option<&Calibration>, s: &Sample) -> f64 {
    match cal {
        None => (s.x[0].exp() - f64::from(EPS)).clamp(0.0, 1.0),
        Some(c) => {
            let w = weights(c);
            let z = f64::from(c.bias) + w.iter().zip(&s.x).map(|(a, b)| a * b).sum::<f64>();
            1.0 / (1.0 + (-z).exp())
        }
    }
}

fn weights(c: &Calibration) -> [f64; 7] {
    [
        c.log_confidence,
        c.log_doubt,
        c.written,
        c.written_is_read,
        c.sheet_log_doubt,
        c.cell_log_p,
        c.cell_log_doubt,
    ]
    .map(f64::from)
}

/// Mean cross-entropy of a map on samples.
pub fn log_loss(cal: Option<&Calibration>, samples: &[Sample]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let total: f64 = samples
        .iter()
        .map(|s| {
            let p = predict(cal, s).clamp(1e-9, 1.0 - 1e-9);
            if s.right { -p.ln() } else { -(1.0 - p).ln() }
        })
        .sum();
    total / samples.len() as f64
}

/// Calibration error over ten equal-width bins (as `scoresheet eval` reports it).
pub fn calibration_error(cal: Option<&Calibration>, samples: &[Sample]) -> f64 {
    let n = samples.len().max(1) as f64;
    let mut total = 0.0;
    for k in 0..10 {
        let (lo, hi) = (k as f64 / 10.0, (k + 1) as f64 / 10.0);
        let bin: Vec<(f64, bool)> = samples
            .iter()
            .map(|s| (predict(cal, s), s.right))
            .filter(|&(p, _)| p >= lo && (p < hi || (k == 9 && p <= 1.0)))
            .collect();
        if !bin.is_empty() {
            let m = bin.len() as f64;
            let acc = bin.iter().filter(|b| b.1).count() as f64 / m;
            let conf = bin.iter().map(|b| b.0).sum::<f64>() / m;
            total += m / n * (acc - conf).abs();
        }
    }
    total
}

/// Fits the map on samples: weights by Newton's method on the mean cross-entropy
/// plus a small ridge, the review threshold by the flag-share rule.
pub fn fit(samples: &[Sample]) -> Calibration {
    const K: usize = 8;
    let n = samples.len().max(1) as f64;
    let rows: Vec<[f64; K]> = samples
        .iter()
        .map(|s| {
            let mut r = [1.0; K];
            r[..7].copy_from_slice(&s.x);
            r
        })
        .collect();
    let mut theta = [0.0f64; K];
    for _ in 0..100 {
        let mut grad = [0.0f64; K];
        let mut hess = [[0.0f64; K]; K];
        for (r, s) in rows.iter().zip(samples) {
            let z: f64 = r.iter().zip(&theta).map(|(a, b)| a * b).sum();
            let p = 1.0 / (1.0 + (-z).exp());
            let y = f64::from(u8::from(s.right));
            for i in 0..K {
                grad[i] += r[i] * (p - y) / n;
                for j in 0..K {
                    hess[i][j] += r[i] * r[j] * p * (1.0 - p) / n;
                }
            }
        }
        for i in 0..7 {
            grad[i] += 2.0 * L2 * theta[i];
            hess[i][i] += 2.0 * L2;
        }
        for (i, row) in hess.iter_mut().enumerate() {
            row[i] += 1e-9;
        }
        let Some(step) = solve(hess, grad) else {
            break;
        };
        for i in 0..K {
            theta[i] -= step[i];
        }
        if step.iter().all(|s| s.abs() < 1e-10) {
            break;
        }
    }
    let r = |v: f64| ((v * 1e5).round() / 1e5) as f32;
    let mut cal = Calibration {
        log_confidence: r(theta[0]),
        log_doubt: r(theta[1]),
        written: r(theta[2]),
        written_is_read: r(theta[3]),
        sheet_log_doubt: r(theta[4]),
        cell_log_p: r(theta[5]),
        cell_log_doubt: r(theta[6]),
        bias: r(theta[7]),
        review_below: 0.5,
    };
    cal.review_below = threshold(&cal, samples);
    cal
}

/// The highest threshold (0.50 to 0.99 in steps of 0.01) that flags no more than
/// [`FLAG_SHARE`] of the samples (the structural flags counted whatever it is).
pub fn threshold(cal: &Calibration, samples: &[Sample]) -> f32 {
    let n = samples.len().max(1) as f64;
    let p: Vec<f64> = samples.iter().map(|s| predict(Some(cal), s)).collect();
    (0..50)
        .rev()
        .map(|k| 0.5 + 0.01 * f64::from(k))
        .find(|&t| {
            let flagged = samples
                .iter()
                .zip(&p)
                .filter(|(s, p)| s.structural || **p < t)
                .count();
            flagged as f64 / n <= FLAG_SHARE
        })
        .map_or(0.5, |t| ((t * 100.0).round() / 100.0) as f32)
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None` when `a`
/// is singular.
fn solve<const K: usize>(mut a: [[f64; K]; K], mut b: [f64; K]) -> Option<[f64; K]> {
    for col in 0..K {
        let pivot = (col..K).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-15 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..K {
            let f = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (x, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                *x -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; K];
    for row in (0..K).rev() {
        let s: f64 = (row + 1..K).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

/// What was decided about the calibration, for the report and the manifest.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct CalibrationChoice {
    /// `refitted` (the new map is in the manifest) or `kept` (the base reader's).
    pub decision: String,
    /// Why, in words.
    pub reason: String,
    /// Settled moves of the learning sheets the map was fitted on, and of the
    /// held-out sheets it was judged on.
    pub fitted_on: usize,
    pub judged_on: usize,
    /// Mean cross-entropy and calibration error on the held-out moves (new reader),
    /// with the base reader's map and with the refitted one.
    pub log_loss_old: f64,
    pub log_loss_new: f64,
    pub calibration_error_old: f64,
    pub calibration_error_new: f64,
}

/// Refits the map on `fit_on` and keeps it only when it has a lower cross-entropy
/// than `old` on `judge_on`; returns the map to ship and the decision.
pub fn choose(
    old: Option<&Calibration>,
    fit_on: &[Sample],
    judge_on: &[Sample],
) -> (Option<Calibration>, CalibrationChoice) {
    let both = fit_on.iter().any(|s| s.right) && fit_on.iter().any(|s| !s.right);
    // The map's output is a probability that the move is right, so the base's review
    // threshold keeps its meaning. The flag-share rule would choose it on the sheets
    // the new reader learned, which it reads more surely than any other: there it
    // picked 0.99 and flagged more moves on a collection's other sheets.
    let new = (fit_on.len() >= MIN_MOVES && both).then(|| {
        let mut cal = fit(fit_on);
        if let Some(o) = old {
            cal.review_below = o.review_below;
        }
        cal
    });
    let mut choice = CalibrationChoice {
        decision: "kept".into(),
        reason: String::new(),
        fitted_on: fit_on.len(),
        judged_on: judge_on.len(),
        log_loss_old: log_loss(old, judge_on),
        log_loss_new: f64::NAN,
        calibration_error_old: calibration_error(old, judge_on),
        calibration_error_new: f64::NAN,
    };
    let Some(new) = new.filter(|c| c.check().is_ok()) else {
        choice.reason = format!(
            "too few settled moves to refit ({} of at least {MIN_MOVES}, right and wrong ones both needed)",
            fit_on.len()
        );
        choice.log_loss_new = choice.log_loss_old;
        choice.calibration_error_new = choice.calibration_error_old;
        return (old.cloned(), choice);
    };
    choice.log_loss_new = log_loss(Some(&new), judge_on);
    choice.calibration_error_new = calibration_error(Some(&new), judge_on);
    let wrong = judge_on.iter().filter(|s| !s.right).count();
    if wrong < MIN_WRONG_JUDGED {
        choice.reason = format!(
            "the held-out sheets hold {wrong} wrong move(s), too few (at least {MIN_WRONG_JUDGED}) to judge a refitted map by"
        );
        return (old.cloned(), choice);
    }
    if choice.log_loss_new < choice.log_loss_old {
        choice.decision = "refitted".into();
        choice.reason = format!(
            "the refitted map fits the held-out moves better (cross-entropy {:.4} vs {:.4}); flags below {:.2}",
            choice.log_loss_new, choice.log_loss_old, new.review_below
        );
        (Some(new), choice)
    } else {
        choice.reason = format!(
            "the refitted map fits the held-out moves no better (cross-entropy {:.4} vs {:.4})",
            choice.log_loss_new, choice.log_loss_old
        );
        (old.cloned(), choice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(c: f64, shown: bool, right: bool) -> Sample {
        Sample {
            x: [
                (c + 1e-3).ln(),
                (1.0 - c + 1e-3).ln(),
                f64::from(u8::from(shown)),
                f64::from(u8::from(shown)),
                -1.0,
                (c + 1e-3).ln(),
                (1.0 - c + 1e-3).ln(),
            ],
            right,
            structural: !shown,
        }
    }

    /// Moves right with probability `c` at confidence `c`, but the shown ones more
    /// often: a map that weighs `shown` fits better than the raw confidence.
    fn data() -> Vec<Sample> {
        let mut out = Vec::new();
        for k in 1..20 {
            let c = f64::from(k) / 20.0;
            for i in 0..40 {
                let shown = i % 4 != 0;
                let p = if shown { (c + 0.3).min(0.98) } else { c * 0.5 };
                out.push(sample(c, shown, (f64::from(i) + 0.5) / 40.0 < p));
            }
        }
        out
    }

    #[test]
    fn the_fit_beats_the_raw_confidence_and_keeps_the_flag_share() {
        let d = data();
        let cal = fit(&d);
        assert!(cal.check().is_ok());
        assert!(log_loss(Some(&cal), &d) < log_loss(None, &d) - 0.02);
        assert!(cal.written > 0.5, "{cal:?}");
        let flagged = d
            .iter()
            .filter(|s| s.structural || predict(Some(&cal), s) < f64::from(cal.review_below))
            .count();
        // The structural flags alone are a quarter here: no threshold stays under a
        // tenth, so the lowest is taken.
        assert!(flagged as f64 / d.len() as f64 >= 0.25);
        assert_eq!(cal.review_below, 0.5);
    }

    #[test]
    fn a_worse_map_is_not_taken_and_too_few_moves_keep_the_old() {
        let d = data();
        let good = fit(&d);
        // Judged on data where the shown moves are the wrong ones, the refit loses.
        let flipped: Vec<Sample> = d
            .iter()
            .map(|s| Sample {
                right: if s.x[2] > 0.5 { !s.right } else { s.right },
                ..s.clone()
            })
            .collect();
        let (kept, choice) = choose(Some(&good), &flipped, &d);
        assert_eq!(choice.decision, "kept", "{choice:?}");
        assert_eq!(kept.as_ref(), Some(&good));
        // Judged on right moves only, a refit is not taken however well it fits them.
        let right: Vec<Sample> = d.iter().filter(|s| s.right).cloned().collect();
        let (kept, choice) = choose(Some(&good), &d, &right);
        assert_eq!(choice.decision, "kept", "{choice:?}");
        assert!(
            choice.reason.contains("0 wrong move(s)"),
            "{}",
            choice.reason
        );
        assert_eq!(kept.as_ref(), Some(&good));
        let (taken, choice) = choose(None, &d, &d);
        assert_eq!(choice.decision, "refitted", "{choice:?}");
        assert!(taken.is_some());
        // Refitted over a base map, the base's review threshold stays.
        let base = Calibration {
            review_below: 0.93,
            ..fit(&flipped)
        };
        let (taken, choice) = choose(Some(&base), &d, &d);
        assert_eq!(choice.decision, "refitted", "{choice:?}");
        assert_eq!(taken.map(|c| c.review_below), Some(0.93));
        let (kept, choice) = choose(Some(&good), &d[..50], &d);
        assert_eq!(choice.decision, "kept");
        assert!(choice.reason.contains("too few"), "{}", choice.reason);
        assert_eq!(kept.as_ref(), Some(&good));
    }
}
