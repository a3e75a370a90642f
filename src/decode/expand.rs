//! The beam and one cell's evidence -> the cell's candidates: moves read from the
//! cell, a replaced move (one candidate holding every legal move the cell does not
//! show), a skipped or duplicated cell, a move the player did not write followed by
//! the cell's own move, and a move a human locked.

use std::collections::HashMap;

use shakmaty::{Chess, Move, Position};

use super::beam::Search;
use super::ctc::FxBuild;
use super::evidence::{Evidence, Workspace};
use super::plausible::plausibility;
use super::state::{Act, Cand, Hyp, MAX_MEMBERS, Weights, keep_best};
use crate::notation::{MoveShape, Notation, parse_move};

/// Candidates of an unknown move more than this many nats below the likeliest are
/// dropped.
const MEMBER_SPAN: f32 = 6.0;

/// A move some candidate position of a beam entry allows.
struct Option_ {
    mv: Move,
    shape: MoveShape,
    /// Index of the first member (of a pending move) allowing it; 0 otherwise.
    first: usize,
    /// Members allowing it (0 when nothing is pending).
    mask: u64,
}

/// A move the cell may show after an unwritten move: (the move, its reading, the
/// unwritten moves that allow it with their log-weights).
type Group = (Move, f32, Vec<(Move, f32)>);

/// A legal move packed into 32 bits: equal keys, equal moves (the captured piece
/// included: the same squares may capture different pieces in different positions).
fn move_key(m: Move) -> u32 {
    let kind = match m {
        Move::Normal { .. } => 0,
        Move::EnPassant { .. } => 1,
        Move::Castle { .. } => 2,
        Move::Put { .. } => 3,
    };
    u32::from(m.from().map_or(0, u8::from))
        | (u32::from(m.to()) << 6)
        | (m.promotion().map_or(0, |r| r as u32) << 12)
        | (kind << 15)
        | ((m.role() as u32) << 17)
        | (m.capture().map_or(0, |r| r as u32) << 20)
}

/// Log-sum-exp of log-weights.
fn lse(xs: impl Iterator<Item = f32> + Clone) -> f32 {
    let top = xs.clone().fold(f32::NEG_INFINITY, f32::max);
    if top == f32::NEG_INFINITY {
        return top;
    }
    top + xs.map(|x| (x - top).exp()).sum::<f32>().ln()
}

impl Search<'_> {
    fn prior(&self, pos: &Chess, m: &Move) -> f32 {
        self.params
            .prior
            .as_ref()
            .map_or(0.0, |p| p.log_prior(pos, m))
    }

    /// The moves of a beam entry: of its position, or of all candidate positions of
    /// its pending move.
    fn options(&self, h: &Hyp) -> Vec<Option_> {
        match &h.pending {
            None => {
                let moves = h.pos.legal_moves();
                let shapes = MoveShape::all(&h.pos, &moves);
                moves
                    .iter()
                    .zip(shapes)
                    .map(|(&mv, shape)| Option_ {
                        mv,
                        shape,
                        first: 0,
                        mask: 0,
                    })
                    .collect()
            }
            Some(p) => {
                let mut out: Vec<Option_> = Vec::new();
                let mut index: HashMap<u32, usize, FxBuild> = HashMap::default();
                for (j, member) in p.members.iter().enumerate() {
                    let moves = member.pos.legal_moves();
                    let shapes = MoveShape::all(&member.pos, &moves);
                    for (&mv, shape) in moves.iter().zip(shapes) {
                        let i = *index.entry(move_key(mv)).or_insert_with(|| {
                            out.push(Option_ {
                                mv,
                                shape,
                                first: j,
                                mask: 0,
                            });
                            out.len() - 1
                        });
                        out[i].mask |= 1u64 << j;
                    }
                }
                out
            }
        }
    }

    /// All candidates of one cell; the candidate sets of replaced and assumed moves go
    /// to `sets`.
    pub(crate) fn expand(
        &self,
        beam: &[Hyp],
        ev: &mut Evidence,
        ws: &mut Workspace,
        lock: Option<&str>,
        sets: &mut Vec<Vec<(Move, f32)>>,
    ) -> Vec<Cand> {
        let p = self.params;
        let n = self.notation;
        let mut cands = Vec::with_capacity(beam.len() * 12);
        let top = beam.first().map_or(0.0, |h| h.score);
        let any = ev.any_text();
        for (b, h) in beam.iter().enumerate() {
            let parent = b as u32;
            let leading = b < p.insert_parents && h.score >= top - p.skip_penalty as f64;
            let members = h
                .pending
                .as_ref()
                .map(|p| p.members.as_slice())
                .unwrap_or(&[]);
            let weights = Weights::of(members);
            let whole = if members.is_empty() {
                0.0
            } else {
                weights.log_mass(0)
            };
            let position = |o: &Option_| {
                if members.is_empty() {
                    &h.pos
                } else {
                    &members[o.first].pos
                }
            };
            let options = self.options(h);
            let all_members: u64 = if members.is_empty() {
                0
            } else {
                u64::MAX >> (64 - members.len())
            };

            if let Some(san) = lock {
                let mut found = false;
                for o in &options {
                    if parse_move(position(o), san, Notation::En).is_ok_and(|m| m == o.mv) {
                        let evidence =
                            ev.move_score(position(o), o.mv, &o.shape, n, self.table, ws);
                        let adj = if members.is_empty() {
                            0.0
                        } else {
                            weights.log_mass(o.mask) - whole
                        };
                        let mut c =
                            Cand::new(h.score + adj as f64, parent, Act::Locked(o.mv), evidence);
                        c.mask = o.mask;
                        cands.push(c);
                        found = true;
                        break;
                    }
                }
                if !found && leading {
                    self.assume(h, parent, ev, ws, Some(san), any, sets, &mut cands);
                }
                continue;
            }

            if ev.blank {
                // A blank cell holds no move: the row was shifted (or the game ends).
                let mut c = Cand::new(h.score - p.blank_penalty as f64, parent, Act::Skip, 0.0);
                c.mask = all_members;
                cands.push(c);
                continue;
            }

            // A replaced move is any legal move: the escape's probability is shared.
            let spread = (options.len().max(1) as f32).ln();
            let mut reads: Vec<Cand> = Vec::new();
            let mut replaced: Vec<(Move, f32)> = Vec::new();
            let mut best = f32::NEG_INFINITY;
            for o in &options {
                let pos = position(o);
                let read = ev.move_score(pos, o.mv, &o.shape, n, self.table, ws);
                best = best.max(read);
                let prior = self.prior(pos, &o.mv);
                let tempered = p.replace_temper * (read - any).max(-50.0);
                if read >= any - p.replace_penalty - spread + tempered {
                    let adj = if members.is_empty() {
                        0.0
                    } else {
                        weights.log_mass(o.mask) - whole
                    };
                    let mut c = Cand::new(
                        h.score + (read + prior + adj) as f64,
                        parent,
                        Act::Read(o.mv),
                        read,
                    );
                    c.mask = o.mask;
                    c.shape = Some(o.shape);
                    reads.push(c);
                } else if o.first == 0 {
                    // (With a pending move, a replacement starts from its first candidate.)
                    replaced.push((o.mv, tempered + prior + plausibility(pos, &o.mv)));
                }
            }
            keep_best(&mut reads, p.reads_per_parent);
            cands.append(&mut reads);

            if !replaced.is_empty() {
                // Spread the escape over the legal moves (plausibility-weighted).
                let norm = lse(options
                    .iter()
                    .filter(|o| o.first == 0)
                    .map(|o| plausibility(position(o), &o.mv)));
                replaced.iter_mut().for_each(|r| r.1 -= norm);
                let weight = lse(replaced.iter().map(|r| r.1));
                replaced.sort_by(|a, b| b.1.total_cmp(&a.1));
                replaced.truncate(MAX_MEMBERS);
                // Candidates far less likely than the best hardly matter and cost time.
                let cut = replaced[0].1 - MEMBER_SPAN;
                replaced.retain(|r| r.1 >= cut);
                let score = h.score + (any - p.replace_penalty + weight) as f64;
                cands.push(Cand::new(
                    score,
                    parent,
                    Act::Replace {
                        set: sets.len() as u32,
                    },
                    0.0,
                ));
                sets.push(replaced);
            }

            let skip_score = (any - p.skip_penalty) as f64;
            let mut skip = Cand::new(h.score + skip_score, parent, Act::Skip, 0.0);
            if let Some(last) = &h.last {
                let again = ev.scores(n, last, self.table, ws).plain;
                let dup = (again - p.duplicate_penalty) as f64;
                if dup > skip_score {
                    skip = Cand::new(h.score + dup, parent, Act::Dup, again);
                }
            }
            skip.mask = all_members;
            cands.push(skip);

            // Only the leading lines look for an unwritten move: the beam is sorted best
            // first, and a missed move shows where the best lines stop fitting.
            if best < any - p.insert_gate && leading {
                self.assume(h, parent, ev, ws, None, any, sets, &mut cands);
            }
        }
        cands
    }

    /// Candidates "a move the player did not write, then this cell's move" from beam
    /// entry `h` (its pending move, if any, settled on its first candidate): one per
    /// move the cell may show (or the locked `san`), holding every unwritten move that
    /// allows it.
    #[allow(clippy::too_many_arguments)]
    fn assume(
        &self,
        h: &Hyp,
        parent: u32,
        ev: &mut Evidence,
        ws: &mut Workspace,
        lock: Option<&str>,
        any: f32,
        sets: &mut Vec<Vec<(Move, f32)>>,
        cands: &mut Vec<Cand>,
    ) {
        let p = self.params;
        let n = self.notation;
        let first = h.pos.legal_moves();
        if first.is_empty() {
            return;
        }
        let norm = lse(first.iter().map(|m| plausibility(&h.pos, m)));
        // then-move -> (its reading, the unwritten moves allowing it)
        let mut groups: Vec<Group> = Vec::new();
        let mut index: HashMap<u32, usize, FxBuild> = HashMap::default();
        for &m1 in &first {
            let mut p1 = h.pos.clone();
            p1.play_unchecked(m1);
            let w1 = self.prior(&h.pos, &m1) + plausibility(&h.pos, &m1) - norm;
            if let Some(san) = lock {
                if let Ok(m2) = parse_move(&p1, san, Notation::En) {
                    let i = *index.entry(move_key(m2)).or_insert_with(|| {
                        groups.push((m2, 0.0, Vec::new()));
                        groups.len() - 1
                    });
                    groups[i].2.push((m1, w1));
                }
                continue;
            }
            let moves = p1.legal_moves();
            let shapes = MoveShape::all(&p1, &moves);
            for (m2, shape) in moves.iter().zip(&shapes) {
                let read = ev.move_score(&p1, *m2, shape, n, self.table, ws);
                if read > any - p.skip_penalty {
                    let read = read + self.prior(&p1, m2);
                    let i = *index.entry(move_key(*m2)).or_insert_with(|| {
                        groups.push((*m2, read, Vec::new()));
                        groups.len() - 1
                    });
                    groups[i].2.push((m1, w1));
                }
            }
        }
        let mut assumed: Vec<Cand> = Vec::new();
        for (then, read, mut set) in groups {
            let weight = lse(set.iter().map(|s| s.1));
            set.sort_by(|a, b| b.1.total_cmp(&a.1));
            set.truncate(MAX_MEMBERS);
            let cut = set[0].1 - MEMBER_SPAN;
            set.retain(|m| m.1 >= cut);
            let score = h.score + (read - p.insert_penalty + weight) as f64;
            let act = Act::Assume {
                set: sets.len() as u32,
                then,
                locked: lock.is_some(),
            };
            sets.push(set);
            assumed.push(Cand::new(score, parent, act, read));
        }
        keep_best(&mut assumed, p.escapes_per_parent);
        cands.append(&mut assumed);
    }
}
