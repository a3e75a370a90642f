//! Line positions across a column -> the regular sequence of row lines: pitch
//! estimation and a dynamic programme that keeps evenly spaced lines, bridges a few
//! missing ones and skips strays (handwriting underlines, double rules).

/// One row line of a column: its position at the column centre and whether it was
/// seen (`Some(index of the found line)`) or interpolated over a gap (`None`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowLine {
    pub y: f32,
    pub found: Option<usize>,
}

/// The dominant spacing among sorted positions: the gap between neighbours that the
/// most other gaps agree with (within 12%), refined to their median. `None` when no
/// three gaps agree.
pub fn dominant_pitch(ys: &[f32], min_pitch: f32) -> Option<f32> {
    let gaps: Vec<f32> = ys
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|&g| g >= min_pitch)
        .collect();
    let agree = |p: f32| gaps.iter().filter(|&&g| (g - p).abs() <= 0.12 * p).count();
    let best = gaps
        .iter()
        .copied()
        .max_by_key(|&p| (agree(p), (p * 16.0) as i64))?;
    if agree(best) < 3 {
        return None;
    }
    let mut close: Vec<f32> = gaps
        .iter()
        .copied()
        .filter(|&g| (g - best).abs() <= 0.12 * best)
        .collect();
    close.sort_by(f32::total_cmp);
    Some(close[close.len() / 2])
}

/// The longest evenly spaced run among `ys` (sorted ascending; `ids[i]` names the line
/// at `ys[i]`): consecutive kept lines are 1, 2 or 3 pitches apart (gaps of 2-3 are
/// filled with interpolated lines, each costing a found line's worth of score), lines
/// off the rhythm are skipped. The pitch may drift by 25% along the run (perspective).
/// Returns the lines in order, interpolated ones with `found: None`.
pub fn regular_run(ys: &[f32], ids: &[usize], pitch: f32) -> Vec<RowLine> {
    let n = ys.len();
    if n == 0 {
        return Vec::new();
    }
    // best[j]: (score, previous index, local pitch) of the best run ending at line j.
    let mut best: Vec<(f32, Option<usize>, f32)> = vec![(1.0, None, pitch); n];
    for j in 1..n {
        for i in (0..j).rev() {
            let d = ys[j] - ys[i];
            let local = best[i].2;
            if d > 3.4 * local {
                break;
            }
            let m = (d / local).round();
            if !(1.0..=3.0).contains(&m) {
                continue;
            }
            let err = (d / m - local).abs() / local;
            let tol = if m == 1.0 { 0.2 } else { 0.1 };
            if err > tol {
                continue;
            }
            // A found line scores 1, an interpolated one costs 0.6, misfit costs a little.
            let score = best[i].0 + 1.0 - 0.6 * (m - 1.0) - err;
            if score > best[j].0 {
                let d1 = d / m;
                let drifted = (0.8 * local + 0.2 * d1).clamp(0.75 * pitch, 1.25 * pitch);
                best[j] = (score, Some(i), drifted);
            }
        }
    }
    let (mut j, _) = best
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.0.total_cmp(&b.1.0))
        .map(|(j, b)| (j, b.0))
        .expect("non-empty");
    let mut kept = vec![j];
    while let Some(i) = best[j].1 {
        kept.push(i);
        j = i;
    }
    kept.reverse();
    let mut out = Vec::new();
    for (k, &i) in kept.iter().enumerate() {
        if k > 0 {
            let prev = kept[k - 1];
            let d = ys[i] - ys[prev];
            let m = (d / best[i].2).round().max(1.0) as usize;
            for s in 1..m {
                out.push(RowLine {
                    y: ys[prev] + d * s as f32 / m as f32,
                    found: None,
                });
            }
        }
        out.push(RowLine {
            y: ys[i],
            found: Some(ids[i]),
        });
    }
    out
}

/// Replaces an end line of a run that breaks the rhythm of its neighbours (its gap
/// differs from the next gap by more than 8%: typically the edge of a header band or
/// a footer box rather than the rule) by one extrapolated from them.
pub fn regularize_ends(run: &mut [RowLine]) {
    let n = run.len();
    if n < 4 {
        return;
    }
    let (g0, g1) = (run[1].y - run[0].y, run[2].y - run[1].y);
    if (g0 - g1).abs() > 0.08 * g1 {
        run[0] = RowLine {
            y: run[1].y - g1,
            found: None,
        };
    }
    let (g0, g1) = (run[n - 1].y - run[n - 2].y, run[n - 2].y - run[n - 3].y);
    if (g0 - g1).abs() > 0.08 * g1 {
        run[n - 1] = RowLine {
            y: run[n - 2].y + g1,
            found: None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pitch_of_ruled_rows_with_strays() {
        let ys = [10.0, 30.0, 50.0, 57.0, 70.0, 90.0, 131.0];
        assert_eq!(dominant_pitch(&ys, 4.0), Some(20.0));
        assert_eq!(dominant_pitch(&[0.0, 10.0, 35.0], 4.0), None);
    }

    #[test]
    fn regular_run_skips_a_stray_and_fills_a_gap() {
        // Rows every 20 px from 10 to 130, line at 90 missing, a stray at 57 and
        // unrelated lines far above and below.
        let ys = [-200.0, 10.0, 30.0, 50.0, 57.0, 70.0, 110.0, 130.0, 400.0];
        let ids: Vec<usize> = (0..ys.len()).collect();
        let run = regular_run(&ys, &ids, 20.0);
        let got: Vec<(f32, bool)> = run.iter().map(|r| (r.y, r.found.is_some())).collect();
        let want = [10.0, 30.0, 50.0, 70.0, 90.0, 110.0, 130.0];
        assert_eq!(got.len(), want.len(), "{got:?}");
        for ((y, found), w) in got.iter().zip(want) {
            assert!((y - w).abs() < 0.5, "{got:?}");
            assert_eq!(*found, w != 90.0);
        }
        assert_eq!(run[3].found, Some(5));
    }

    #[test]
    fn irregular_end_lines_are_replaced() {
        let mut run: Vec<RowLine> = [10.0, 22.0, 40.0, 60.0, 80.0, 100.0, 121.0]
            .iter()
            .enumerate()
            .map(|(i, &y)| RowLine { y, found: Some(i) })
            .collect();
        regularize_ends(&mut run);
        assert_eq!(
            run[0],
            RowLine {
                y: 4.0,
                found: None
            }
        );
        assert_eq!(
            run[6],
            RowLine {
                y: 121.0,
                found: Some(6)
            }
        );
    }

    #[test]
    fn regular_run_follows_a_slowly_growing_pitch() {
        let mut ys = vec![0.0f32];
        for i in 0..30 {
            let last = *ys.last().unwrap();
            ys.push(last + 20.0 + i as f32 * 0.15);
        }
        let ids: Vec<usize> = (0..ys.len()).collect();
        let run = regular_run(&ys, &ids, 21.0);
        assert_eq!(run.len(), 31);
        assert!(run.iter().all(|r| r.found.is_some()));
    }
}
