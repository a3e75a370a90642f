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
/// off the rhythm are skipped. Each step may differ from the local pitch by 12%, and
/// the local pitch may drift by 20% along the run (perspective).
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
            let tol = if m == 1.0 { 0.12 } else { 0.08 };
            if err > tol {
                continue;
            }
            // A found line scores 1, an interpolated one costs 0.6, misfit costs a little.
            let score = best[i].0 + 1.0 - 0.6 * (m - 1.0) - 3.0 * err;
            if score > best[j].0 {
                let d1 = d / m;
                let drifted = (0.9 * local + 0.1 * d1).clamp(0.8 * pitch, 1.2 * pitch);
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

/// Cleans a run up: interpolated lines move onto a found line within a quarter pitch
/// (the run may have bridged over them to keep a slightly different rhythm, e.g.
/// header fields above the table); the run is cut at a step more than 15% longer
/// than its median step (a header or footer row taller than the move rows), keeping
/// the longest piece; an end line closer than 85% of the next step (the edge of a
/// header band rather than the rule) is replaced by one extrapolated from it.
pub fn tidy(run: &mut Vec<RowLine>, ys: &[f32], ids: &[usize]) {
    if run.len() < 4 {
        return;
    }
    let median_step = |run: &[RowLine]| {
        let mut steps: Vec<f32> = run.windows(2).map(|w| w[1].y - w[0].y).collect();
        steps.sort_by(f32::total_cmp);
        steps[steps.len() / 2]
    };
    let pitch = median_step(run);
    for line in run.iter_mut().filter(|l| l.found.is_none()) {
        let near = ys
            .iter()
            .enumerate()
            .min_by(|a, b| (a.1 - line.y).abs().total_cmp(&(b.1 - line.y).abs()));
        if let Some((i, &y)) = near.filter(|(_, y)| (*y - line.y).abs() <= 0.25 * pitch) {
            *line = RowLine {
                y,
                found: Some(ids[i]),
            };
        }
    }
    // Longest piece between over-long steps.
    let mut best = (0, 0);
    let mut start = 0;
    for i in 1..=run.len() {
        if i == run.len() || run[i].y - run[i - 1].y > 1.15 * pitch {
            if i - start > best.1 - best.0 {
                best = (start, i);
            }
            start = i;
        }
    }
    run.truncate(best.1);
    run.drain(..best.0);
    let n = run.len();
    if n < 4 {
        return;
    }
    let (g0, g1) = (run[1].y - run[0].y, run[2].y - run[1].y);
    if g0 < 0.85 * g1 {
        run[0] = RowLine {
            y: run[1].y - g1,
            found: None,
        };
    }
    let (g0, g1) = (run[n - 1].y - run[n - 2].y, run[n - 2].y - run[n - 3].y);
    if g0 < 0.85 * g1 {
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
    fn tidy_snaps_cuts_and_regularizes() {
        // A header row (30 tall) above rows of 20, an end line too close (band edge),
        // and an interpolated line 3 px off a found one.
        let ys = [0.0, 30.0, 50.0, 73.0, 90.0, 110.0, 126.0];
        let ids: Vec<usize> = (0..ys.len()).collect();
        let mut run: Vec<RowLine> = ys
            .iter()
            .enumerate()
            .map(|(i, &y)| RowLine { y, found: Some(i) })
            .collect();
        run[3] = RowLine {
            y: 70.0,
            found: None,
        };
        tidy(&mut run, &ys, &ids);
        let got: Vec<(f32, Option<usize>)> = run.iter().map(|r| (r.y, r.found)).collect();
        assert_eq!(
            got,
            vec![
                (30.0, Some(1)),
                (50.0, Some(2)),
                (73.0, Some(3)),
                (90.0, Some(4)),
                (110.0, Some(5)),
                (130.0, None)
            ]
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
