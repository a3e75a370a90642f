//! Cells' evidence -> the best legal game: the beam search over positions (read,
//! replace, skip, duplicate and assume steps), notation detection, and the trace of
//! candidates the confidences are computed from.

use std::collections::{HashMap, HashSet};

use shakmaty::Move;

use super::ctc::{ClassTable, FxBuild};
use super::evidence::{Evidence, Workspace};
use super::expand::Expansion;
use super::explain::explain;
use super::state::{Builder, Cand, Hist, Hyp, Node, Recorded, Trace, WINDOW, act_key};
use super::{DecodeParams, DecodedSheet, GameStatus};
use crate::notation::Notation;
use crate::vocab::{Alphabet, CellScores};

/// One beam search over a sheet's cells in a notation.
struct Search<'a> {
    table: &'a ClassTable,
    params: &'a DecodeParams,
    notation: Notation,
    width: usize,
}

impl Search<'_> {
    /// Marks the candidates the beam keeps whatever their rank, part 1: for every
    /// recent cell and every decision some beam entry took there, the best child of
    /// the best entry that took it, when within `diversity_margin` of the best
    /// candidate. Without this the beam fills with combinations of small late
    /// alternatives and loses an early fork that only a later cell settles.
    fn protect_forks(&self, cands: &mut [Cand], beam: &[Hyp]) {
        let mut best_child: Vec<Option<usize>> = vec![None; beam.len()];
        let mut top = f64::NEG_INFINITY;
        for (ci, c) in cands.iter().enumerate() {
            let slot = &mut best_child[c.parent as usize];
            if slot.is_none_or(|b| cands[b].score < c.score) {
                *slot = Some(ci);
            }
            top = top.max(c.score);
        }
        let mut parents: Vec<(f64, usize)> = best_child
            .iter()
            .flatten()
            .map(|&ci| (cands[ci].score, ci))
            .collect();
        parents.sort_by(|a, b| b.0.total_cmp(&a.0));
        let margin = self.params.search.diversity_margin as f64;
        let window = self.params.search.diversity_window.min(WINDOW);
        let mut covered: HashMap<(usize, u32), usize, FxBuild> = HashMap::default();
        let per_group = self.params.search.diversity_keep.max(1);
        for (score, ci) in parents {
            if score < top - margin {
                break;
            }
            let recent = beam[cands[ci].parent as usize].recent;
            for (d, key) in recent.iter().enumerate().take(window.saturating_sub(1)) {
                let n = covered.entry((d, *key)).or_default();
                if *n < per_group {
                    *n += 1;
                    cands[ci].protect = true;
                }
            }
        }
    }

    /// Part 2 (candidates sorted best first): the best candidate for each decision at
    /// this cell, within the margin.
    fn protect_moves(&self, cands: &mut [Cand]) {
        let Some(top) = cands.first().map(|c| c.score) else {
            return;
        };
        if self.params.search.diversity_window == 0 {
            return;
        }
        let margin = self.params.search.diversity_margin as f64;
        let mut covered: HashSet<u32, FxBuild> = HashSet::default();
        for c in cands.iter_mut() {
            if c.score < top - margin {
                break;
            }
            if covered.insert(act_key(c.act)) {
                c.protect = true;
            }
        }
    }

    /// The candidates the next beam is chosen from, best first: the protected ones
    /// ([`Search::protect_forks`]) and the best `4 * width` (at least 64) of the rest,
    /// then the best of each decision at this cell marked ([`Search::protect_moves`]).
    fn shortlist(&self, mut cands: Vec<Cand>, beam: &[Hyp], width: usize) -> Vec<Cand> {
        self.protect_forks(&mut cands, beam);
        let (mut cands, protected_tail): (Vec<Cand>, Vec<Cand>) =
            cands.into_iter().partition(|c| !c.protect);
        let keep = (4 * width).max(64).min(cands.len());
        if cands.len() > keep {
            cands.select_nth_unstable_by(keep - 1, |a, b| b.score.total_cmp(&a.score));
            cands.truncate(keep);
        }
        cands.extend(protected_tail);
        cands.sort_by(|a, b| b.score.total_cmp(&a.score));
        self.protect_moves(&mut cands);
        cands
    }

    fn run(&self, evidence: &mut [Evidence], ws: &mut Workspace, end: usize) -> Trace {
        let mut hist = vec![Hist {
            parent: u32::MAX,
            step: u32::MAX,
            node: Node::Root,
            score: 0.0,
        }];
        let mut beam = vec![Hyp::root()];
        let mut steps = Vec::with_capacity(end);
        let mut lock_conflicts = Vec::new();
        let width = self.width.max(1);
        let max_escapes =
            ((width as f32 * self.params.escapes.escape_share).ceil() as usize).max(1);
        let mut sets: Vec<Vec<(Move, f32)>> = Vec::new();
        let expansion = Expansion {
            table: self.table,
            params: self.params,
            notation: self.notation,
        };
        // The game's last inked cell (see `EscapeParams::final_skip_penalty`).
        let last_ink = evidence.iter().take(end).rposition(|e| !e.blank);

        for (i, ev) in evidence.iter_mut().enumerate().take(end) {
            ws.bind(i, ev);
            sets.clear();
            let lock = self.params.locked.get(&i).map(String::as_str);
            let last = Some(i) == last_ink;
            let mut cands = expansion.cell(&beam, ev, ws, lock, last, &mut sets);
            if cands.is_empty() && lock.is_some() {
                lock_conflicts.push(i);
                cands = expansion.cell(&beam, ev, ws, None, last, &mut sets);
            }
            let cands = self.shortlist(cands, &beam, width);
            let mut builder = Builder {
                hist: &mut hist,
                seen: HashSet::with_capacity_and_hasher(2 * width, FxBuild::default()),
                step: i as u32,
                sets: &sets,
                score: 0.0,
            };
            let next = next_beam(&cands, &beam, &mut builder, width, max_escapes);
            steps.push(
                cands
                    .iter()
                    .map(|c| Recorded {
                        score: c.score,
                        parent_hist: beam[c.parent as usize].hist,
                        act: c.act,
                    })
                    .collect(),
            );
            beam = next;
        }
        let best = beam
            .iter()
            .max_by(|a, b| a.score.total_cmp(&b.score))
            .expect("the beam never empties: skipping a cell is always possible");
        let mut best_hist = best.hist;
        if let Some(p) = &best.pending {
            // Settle moves still undecided at the end on their likeliest candidate.
            let share = (p.members[0].logw - super::state::mass(&p.members, 0)).exp();
            for (&target, &mv) in p.nodes.iter().zip(&p.members[0].mvs) {
                hist.push(Hist {
                    parent: best_hist,
                    step: end as u32,
                    node: Node::Resolve { target, mv, share },
                    score: best.score,
                });
                best_hist = hist.len() as u32 - 1;
            }
        }
        Trace {
            hist,
            steps,
            best_hist,
            score: best.score,
            lock_conflicts,
        }
    }
}

/// The next beam, best first, from the shortlisted candidates (best first): the
/// protected ones (up to half the beam), then the rest by score, with at most
/// `max_escapes` replaced or assumed moves.
fn next_beam(
    cands: &[Cand],
    beam: &[Hyp],
    builder: &mut Builder,
    width: usize,
    max_escapes: usize,
) -> Vec<Hyp> {
    let mut next: Vec<Hyp> = Vec::with_capacity(width);
    let mut taken = vec![false; cands.len()];
    let mut escapes = 0usize;
    for pass in [true, false] {
        let quota = if pass { width.div_ceil(2) } else { width };
        for (ci, c) in cands.iter().enumerate() {
            if next.len() >= quota {
                break;
            }
            if taken[ci] || (pass && !c.protect) || (c.act.escape() && escapes >= max_escapes) {
                continue;
            }
            taken[ci] = true;
            if let Some(hyp) = builder.materialize(c, &beam[c.parent as usize]) {
                escapes += usize::from(c.act.escape());
                next.push(hyp);
            }
        }
    }
    next.sort_by(|a, b| b.score.total_cmp(&a.score));
    next
}

/// Inked cells in a row after blank ones that show the game goes on: a player who
/// left a row empty and wrote on below it.
const RESUME_RUN: usize = 3;

/// Index of the first cell that ends the game: the first of two blank cells in a row
/// (or a blank last cell) that no run of [`RESUME_RUN`] inked cells follows; all
/// cells when there is none.
pub(crate) fn game_end(evidence: &[Evidence]) -> usize {
    let n = evidence.len();
    let ends = |i: usize| evidence[i].blank && evidence.get(i + 1).is_none_or(|e| e.blank);
    let resumes = |i: usize| {
        let mut run = 0;
        evidence[i..].iter().any(|e| {
            run = if e.blank { 0 } else { run + 1 };
            run >= RESUME_RUN
        })
    };
    (0..n).find(|&i| ends(i) && !resumes(i)).unwrap_or(n)
}

/// Decodes a sheet (see [`super::Decoder`]).
pub(crate) fn decode(
    alphabet: &Alphabet,
    params: &DecodeParams,
    cells: &[&[CellScores]],
) -> DecodedSheet {
    let mut evidence: Vec<Evidence> = cells
        .iter()
        .map(|c| Evidence::new(c, alphabet, params.reading.read_floor))
        .collect();
    let end = game_end(&evidence);
    let table = ClassTable::new(alphabet);
    let mut ws = Workspace::default();
    // The quick notation comparison looks for no unwritten moves: a notation that
    // does not fit would try one at nearly every cell, for nothing.
    let mut quick_params = params.clone();
    quick_params.escapes.insert_parents = 0;
    let mut search = |n: Notation, quick: bool, cells: usize, evidence: &mut [Evidence]| {
        let (params, width) = if quick {
            (&quick_params, params.reading.auto_beam_width)
        } else {
            (params, params.search.beam_width)
        };
        Search {
            table: &table,
            params,
            notation: n,
            width,
        }
        .run(evidence, &mut ws, cells)
    };

    let (notation, trace, notation_scores) = match params.reading.notation {
        Some(n) => {
            let trace = search(n, false, end, &mut evidence);
            let score = trace.score;
            (n, trace, vec![(n, score)])
        }
        None => detect_notation(params, end, &mut evidence, &mut search),
    };

    let mut sheet = explain(
        &trace,
        &mut evidence,
        &mut Workspace::default(),
        notation,
        params,
        alphabet,
        end,
    );
    sheet.notation_scores = notation_scores;
    if end < evidence.len() && evidence[end..].iter().any(|e| !e.blank) {
        sheet.status = GameStatus::Partial;
    }
    sheet
}

/// Detects the sheet's notation: each notation is searched over the first cells with
/// the quick pass, those within [`ReadingParams::auto_margin`] of the best are
/// decoded in full, and the one that explains the sheet best is kept. Returns it,
/// its trace, and every notation's score.
///
/// [`ReadingParams::auto_margin`]: super::ReadingParams::auto_margin
fn detect_notation(
    params: &DecodeParams,
    end: usize,
    evidence: &mut [Evidence],
    search: &mut impl FnMut(Notation, bool, usize, &mut [Evidence]) -> Trace,
) -> (Notation, Trace, Vec<(Notation, f64)>) {
    // The notation the form's headings suggest starts a little ahead.
    let head_start = |n: Notation| {
        if params.reading.form_notation == Some(n) {
            f64::from(params.reading.form_prior)
        } else {
            0.0
        }
    };
    let mut scores: Vec<(Notation, f64)> = Notation::ALL
        .iter()
        .map(|&n| {
            let first = search(n, true, end.min(params.reading.auto_cells), evidence);
            (n, first.score + head_start(n))
        })
        .collect();
    // Notations the opening cells leave in doubt are decoded in full over the
    // whole sheet, and the one that explains it best is kept: a narrow pass
    // can lose the right line of a hard hand where a wrong notation's line
    // holds on.
    let top = scores.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
    let mut close: Vec<usize> = (0..scores.len())
        .filter(|&i| scores[i].1 >= top - params.reading.auto_margin as f64)
        .collect();
    if close.len() == 1 || end <= params.reading.auto_cells {
        close.sort_by(|&a, &b| scores[b].1.total_cmp(&scores[a].1));
        close.truncate(1);
    }
    let mut best: Option<(usize, Trace)> = None;
    for i in close {
        let trace = search(scores[i].0, false, end, evidence);
        scores[i].1 = trace.score + head_start(scores[i].0);
        if best
            .as_ref()
            .is_none_or(|&(b, _)| scores[i].1 > scores[b].1)
        {
            best = Some((i, trace));
        }
    }
    let (i, trace) = best.expect("some notation scores best");
    (scores[i].0, trace, scores)
}
