//! A batch of reports + a review budget (a share of the batch's moves) -> the review
//! flags: the least sure moves of the whole batch, and no others.
//!
//! A federation plans review by hours, not by thresholds: `read --review-budget 10`
//! has a human look at the tenth of the batch's moves the tool is least sure of,
//! wherever they are. Moves whose two copies disagree come first; then confidence
//! from low to high (the batch's order among equals). Moves a human locked are never
//! flagged and do not count.

use super::{MoveReport, MoveState, SheetReport};

/// Flags for review the least sure `percent` % of the moves of `reports` (rounded to
/// the nearest move) and unflags the rest; states `ok` / `review` follow the flag, the
/// summaries are recounted. Returns the threshold that flags the same moves on a
/// sheet read alone: the confidence of the least sure move left unflagged (`None`
/// when every move is flagged).
pub fn flag_least_sure(reports: &mut [SheetReport], percent: f32) -> Option<f32> {
    let mut ranked: Vec<(usize, usize)> = Vec::new();
    for (r, report) in reports.iter().enumerate() {
        for (i, m) in report.moves.iter().enumerate() {
            if m.state != MoveState::Locked {
                ranked.push((r, i));
            }
        }
    }
    let key = |&(r, i): &(usize, usize)| {
        let m: &MoveReport = &reports[r].moves[i];
        (!m.disagree, m.confidence)
    };
    ranked.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(a.cmp(b))
    });
    let k = ((percent.clamp(0.0, 100.0) / 100.0) * ranked.len() as f32).round() as usize;
    let threshold = ranked
        .get(k..)
        .unwrap_or_default()
        .iter()
        .map(|&(r, i)| reports[r].moves[i].confidence)
        .reduce(f32::min);
    for (n, &(r, i)) in ranked.iter().enumerate() {
        let m = &mut reports[r].moves[i];
        m.review = n < k;
        if matches!(m.state, MoveState::Ok | MoveState::Review) {
            m.state = if m.review {
                MoveState::Review
            } else {
                MoveState::Ok
            };
        }
    }
    for report in reports.iter_mut() {
        report.summarize();
    }
    threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(confidences: &[f32]) -> SheetReport {
        let mut r = SheetReport {
            moves: confidences
                .iter()
                .enumerate()
                .map(|(i, &c)| MoveReport {
                    ply: Some(i as u32 + 1),
                    confidence: c,
                    review: c < 0.5,
                    state: if c < 0.5 {
                        MoveState::Review
                    } else {
                        MoveState::Ok
                    },
                    ..MoveReport::default()
                })
                .collect(),
            ..SheetReport::default()
        };
        r.summarize();
        r
    }

    #[test]
    fn the_budget_flags_the_least_sure_moves_of_the_whole_batch() {
        let mut batch = vec![
            report(&[0.99, 0.2, 0.95, 0.97]),
            report(&[0.98, 0.9, 0.3, 0.999]),
        ];
        batch[1].moves[3].state = MoveState::Locked;
        batch[1].moves[0].disagree = true;
        // 7 moves count (the locked one aside); 40% of 7 rounds to 3: the disagreeing
        // move first, then 0.2 and 0.3.
        let t = flag_least_sure(&mut batch, 40.0);
        let flags: Vec<Vec<bool>> = batch
            .iter()
            .map(|r| r.moves.iter().map(|m| m.review).collect())
            .collect();
        assert_eq!(
            flags,
            [
                vec![false, true, false, false],
                vec![true, false, true, false]
            ]
        );
        assert_eq!(t, Some(0.9));
        assert_eq!(batch[0].moves[1].state, MoveState::Review);
        assert_eq!(batch[0].moves[0].state, MoveState::Ok);
        assert_eq!(batch[1].moves[3].state, MoveState::Locked);
        assert_eq!(batch[0].summary.flagged + batch[1].summary.flagged, 3);
        // Nothing, or everything.
        assert_eq!(flag_least_sure(&mut batch, 0.0), Some(0.2));
        assert!(batch.iter().all(|r| r.summary.flagged == 0));
        assert_eq!(flag_least_sure(&mut batch, 100.0), None);
        assert_eq!(batch[0].summary.flagged + batch[1].summary.flagged, 7);
    }
}
