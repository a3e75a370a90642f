//! A search trace -> each cell's posterior over its decisions (the move read there,
//! or none), seen from the whole sheet: every cell before and after it has its say.
//!
//! The beam keeps the lines it can, not all of them, so an exact forward-backward
//! over the sheet is out of reach. Each line the search weighed instead carries the
//! last word the search had on it: its score at the last cell where it was still a
//! candidate, taken relative to the best line's score at that same cell. For a line
//! that lives to the end that is its score for the whole sheet; for one dropped on
//! the way it assumes that the cells after it would have scored both lines alike (a
//! Viterbi stand-in for the backward pass). A decision's weight at a cell is its best
//! line's, and the weights are normalised over the decisions seen there. A move that a
//! later cell rules out (its line took an escape there and fell behind, or died) so
//! loses its mass; a move that the cells after it could not tell from the chosen one
//! keeps it.

use std::collections::HashMap;

use shakmaty::Move;

use super::ctc::FxBuild;
use super::state::{Node, Trace};

/// The last word on a line: the cell it was last a candidate at, and its score there
/// minus the best line's.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Word {
    step: u32,
    rel: f64,
}

impl Word {
    const NONE: Word = Word {
        step: 0,
        rel: f64::NEG_INFINITY,
    };

    /// Later cells know more; at the same cell the better line counts.
    fn later(self, other: Word) -> Word {
        if (other.step, other.rel) > (self.step, self.rel) && other.rel > f64::NEG_INFINITY {
            other
        } else {
            self
        }
    }
}

/// Per cell (up to the trace's end), the decisions weighed there with their log
/// weights relative to the chosen line (0 for the best line's own decision, which is
/// never below another), in no particular order.
pub(crate) struct SheetPosterior {
    cells: Vec<Vec<(Option<Move>, f64)>>,
}

impl SheetPosterior {
    pub(crate) fn new(trace: &Trace) -> SheetPosterior {
        let steps = trace.steps.len();
        let (reference, chosen) = best_line_at_cells(trace);
        let word = last_words(trace, &reference);

        let mut cells: Vec<HashMap<Option<Move>, Word, FxBuild>> =
            (0..steps).map(|_| HashMap::default()).collect();
        let mut add = |i: usize, d: Option<Move>, w: Word| {
            let slot = cells[i].entry(d).or_insert(Word::NONE);
            *slot = slot.later(w);
        };
        // Candidates of a cell, with the word they had there ...
        for (i, recorded) in trace.steps.iter().enumerate() {
            for r in recorded {
                add(
                    i,
                    r.act.cell_move(),
                    Word {
                        step: i as u32,
                        rel: r.score - reference[i],
                    },
                );
            }
        }
        // ... and the lines they became, with the word those had later.
        for (id, h) in trace.hist.iter().enumerate() {
            let i = h.step as usize;
            if i >= steps {
                continue;
            }
            if let Node::Entry { kind, mv, .. } = h.node
                && kind != super::EntryKind::Assumed
                && word[id].rel > f64::NEG_INFINITY
            {
                add(i, mv, word[id]);
            }
        }

        let cells = cells
            .into_iter()
            .zip(chosen)
            .map(|(map, chosen)| {
                let mut v: Vec<(Option<Move>, f64)> = map
                    .into_iter()
                    .map(|(d, w)| (d, w.rel.min(0.0)))
                    .filter(|(d, _)| Some(*d) != chosen)
                    .collect();
                if let Some(c) = chosen {
                    v.push((c, 0.0));
                }
                v
            })
            .collect();
        SheetPosterior { cells }
    }

    /// Probability of decision `chosen` at cell `i` and of the other moves weighed
    /// there (probabilities of at least `min`, best first, at most `max` of them).
    pub(crate) fn at(
        &self,
        i: usize,
        chosen: Option<Move>,
        min: f32,
        max: usize,
    ) -> (f32, Vec<(Move, f32)>) {
        let Some(cell) = self.cells.get(i).filter(|c| !c.is_empty()) else {
            return (1.0, Vec::new());
        };
        let top = cell.iter().map(|c| c.1).fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = cell.iter().map(|c| (c.1 - top).exp()).sum();
        let p = |w: f64| ((w - top).exp() / total) as f32;
        let confidence = cell.iter().find(|c| c.0 == chosen).map_or(0.0, |c| p(c.1));
        let mut others: Vec<(Move, f32)> = cell
            .iter()
            .filter(|c| c.0 != chosen)
            .filter_map(|c| c.0.map(|m| (m, p(c.1))))
            .filter(|(_, q)| *q >= min)
            .collect();
        others.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| a.0.to_string().cmp(&b.0.to_string()))
        });
        others.truncate(max);
        (confidence.clamp(0.0, 1.0), others)
    }
}

/// The best line's score at each cell (its nodes record it; the cell's best
/// candidate where they do not) and its decision there (none for an assumed move).
fn best_line_at_cells(trace: &Trace) -> (Vec<f64>, Vec<Option<Option<Move>>>) {
    let steps = trace.steps.len();
    let mut reference: Vec<Option<f64>> = vec![None; steps];
    let mut chosen: Vec<Option<Option<Move>>> = vec![None; steps];
    let mut node = trace.best_hist;
    while node != 0 {
        let h = &trace.hist[node as usize];
        if let Some(r) = reference.get_mut(h.step as usize) {
            r.get_or_insert(h.score);
        }
        if let Node::Entry { kind, mv, .. } = h.node
            && kind != super::EntryKind::Assumed
            && let Some(c) = chosen.get_mut(h.step as usize)
        {
            c.get_or_insert(mv);
        }
        node = h.parent;
    }
    let reference: Vec<f64> = reference
        .iter()
        .zip(&trace.steps)
        .map(|(r, rec)| r.or(rec.first().map(|c| c.score)).unwrap_or(0.0))
        .collect();
    (reference, chosen)
}

/// The last word on every history node: the latest candidate descending from it,
/// relative to the best line's score at that cell.
fn last_words(trace: &Trace, reference: &[f64]) -> Vec<Word> {
    let mut word = vec![Word::NONE; trace.hist.len()];
    for (j, recorded) in trace.steps.iter().enumerate() {
        for r in recorded {
            let w = Word {
                step: j as u32,
                rel: r.score - reference[j],
            };
            let slot = &mut word[r.parent_hist as usize];
            *slot = slot.later(w);
        }
    }
    for id in (1..trace.hist.len()).rev() {
        let parent = trace.hist[id].parent as usize;
        word[parent] = word[parent].later(word[id]);
    }
    word
}
