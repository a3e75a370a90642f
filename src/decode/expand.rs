//! The beam and one cell's evidence -> the cell's candidates: moves read from the
//! cell, a replaced move (one candidate holding every legal move the cell does not
//! show), a skipped or duplicated cell, a move the player did not write followed by
//! the cell's own move, and a move a human locked.

use shakmaty::{Move, Position};

use super::beam::Search;
use super::ctc::MIN_SCORE;
use super::evidence::{Evidence, Workspace};
use super::plausible::plausibility;
use super::state::{Act, Cand, Hyp, MAX_MEMBERS, Weights, keep_best};
use crate::notation::{MoveShape, Notation, Shared, parse_move};

/// Candidates of an unknown move more than this many nats below the likeliest are
/// dropped.
const MEMBER_SPAN: f32 = 6.0;

/// A move some candidate position of a beam entry allows.
struct AllowedMove {
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

/// Scratch index from moves to their position in a list: 4096 slots by origin and
/// destination, each the first list entry with that origin and destination (moves
/// sharing both, such as promotions, are told apart by a scan from there). Left empty
/// by [`MoveIndex::clear`].
struct MoveIndex {
    slots: Vec<u32>,
}

impl MoveIndex {
    fn new() -> MoveIndex {
        MoveIndex {
            slots: vec![u32::MAX; 64 * 64],
        }
    }

    fn slot(mv: Move) -> usize {
        usize::from(mv.from().map_or(0, u8::from)) * 64 + usize::from(mv.to())
    }

    /// Index of `mv` in `items` (whose moves `key` gives), appending `make()` when
    /// absent.
    fn find_or_push<T>(
        &mut self,
        items: &mut Vec<T>,
        mv: Move,
        key: impl Fn(&T) -> Move,
        make: impl FnOnce() -> T,
    ) -> usize {
        let slot = Self::slot(mv);
        let start = self.slots[slot];
        let found = if start == u32::MAX {
            self.slots[slot] = items.len() as u32;
            None
        } else {
            items[start as usize..]
                .iter()
                .position(|o| key(o) == mv)
                .map(|i| i + start as usize)
        };
        found.unwrap_or_else(|| {
            items.push(make());
            items.len() - 1
        })
    }

    /// Empties the slots of these moves (those of a list about to be dropped).
    fn clear(&mut self, moves: impl Iterator<Item = Move>) {
        for mv in moves {
            self.slots[Self::slot(mv)] = u32::MAX;
        }
    }
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
    /// The moves of a beam entry: of its position, or of all candidate positions of
    /// its pending move, into `out` (emptied first).
    fn options(&self, h: &Hyp, index: &mut MoveIndex, out: &mut Vec<AllowedMove>) {
        out.clear();
        match &h.pending {
            None => {
                let moves = h.pos.legal_moves();
                let shapes = MoveShape::all(&h.pos, &moves);
                out.extend(moves.iter().zip(shapes).map(|(&mv, shape)| AllowedMove {
                    mv,
                    shape,
                    first: 0,
                    mask: 0,
                }));
            }
            Some(p) => {
                // The same move from several candidate positions is one option.
                for (j, member) in p.members.iter().enumerate() {
                    let moves = member.pos.legal_moves();
                    // Later members mostly repeat earlier members' moves: a shape is
                    // worked out only for a move not seen yet.
                    // (The first member's moves are all new.)
                    let all = (j == 0).then(|| MoveShape::all(&member.pos, &moves));
                    let mut shared: Option<Shared> = None;
                    for (k, &mv) in moves.iter().enumerate() {
                        let i = index.find_or_push(
                            out,
                            mv,
                            |o| o.mv,
                            || AllowedMove {
                                mv,
                                shape: match &all {
                                    Some(shapes) => shapes[k],
                                    None => MoveShape::one(
                                        &member.pos,
                                        &moves,
                                        shared.get_or_insert_with(|| Shared::of(&moves)),
                                        k,
                                    ),
                                },
                                first: j,
                                mask: 0,
                            },
                        );
                        out[i].mask |= 1u64 << j;
                    }
                }
                index.clear(out.iter().map(|o| o.mv));
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
        last_ink: bool,
        sets: &mut Vec<Vec<(Move, f32)>>,
    ) -> Vec<Cand> {
        let p = self.params;
        let n = self.notation;
        let mut cands = Vec::with_capacity(beam.len() * 12);
        let top = beam.first().map_or(0.0, |h| h.score);
        let any = ev.any_text();
        let mut index = MoveIndex::new();
        // Buffers reused from entry to entry.
        let mut options: Vec<AllowedMove> = Vec::new();
        let mut reads: Vec<Cand> = Vec::new();
        let mut replaced: Vec<(Move, f32)> = Vec::new();
        let mut plaus: Vec<f32> = Vec::new();
        let mut priors: Vec<f32> = Vec::new();
        let mut moves: Vec<Move> = Vec::new();
        for (b, h) in beam.iter().enumerate() {
            let parent = b as u32;
            // Far behind the best: its children would not make the beam. (A locked cell
            // still tries every entry: the human's move may be legal in few lines.)
            if lock.is_none() && h.score < top - p.search.expand_margin as f64 {
                continue;
            }
            let leading =
                b < p.escapes.insert_parents && h.score >= top - p.escapes.skip_penalty as f64;
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
            let position = |o: &AllowedMove| {
                if members.is_empty() {
                    &h.pos
                } else {
                    &members[o.first].pos
                }
            };
            let all_members: u64 = if members.is_empty() {
                0
            } else {
                u64::MAX >> (64 - members.len())
            };
            if ev.blank && lock.is_none() {
                // A blank cell holds no move: the row was shifted (or the game ends).
                let mut c = Cand::new(
                    h.score - p.escapes.blank_penalty as f64,
                    parent,
                    Act::Skip,
                    0.0,
                );
                c.mask = all_members;
                cands.push(c);
                continue;
            }
            self.options(h, &mut index, &mut options);

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

            // A replaced move is any legal move: the escape's probability is shared.
            let spread = (options.len().max(1) as f32).ln();
            reads.clear();
            replaced.clear();
            let mut best = f32::NEG_INFINITY;
            // Plausibility of every move a replacement may be (computed once: it both
            // weighs the replaced moves and normalises their weights).
            plaus.clear();
            // The prior of every option (a position's moves weighed together).
            priors.clear();
            if let Some(prior) = &p.prior {
                if members.is_empty() {
                    moves.clear();
                    moves.extend(options.iter().map(|o| o.mv));
                    prior.log_priors(&h.pos, &moves, &mut priors);
                } else {
                    // Options come in runs of the member that first allows them.
                    let mut k = 0;
                    while k < options.len() {
                        let j = options[k].first;
                        let end = options[k..]
                            .iter()
                            .position(|o| o.first != j)
                            .map_or(options.len(), |e| k + e);
                        moves.clear();
                        moves.extend(options[k..end].iter().map(|o| o.mv));
                        prior.log_priors(&members[j].pos, &moves, &mut priors);
                        k = end;
                    }
                }
            }
            for (k, o) in options.iter().enumerate() {
                let pos = position(o);
                let plausible = if o.first == 0 {
                    let w = plausibility(pos, &o.mv);
                    plaus.push(w);
                    w
                } else {
                    0.0
                };
                let read = if ev.rules_out(&o.mv, n) {
                    MIN_SCORE
                } else {
                    ev.move_score(pos, o.mv, &o.shape, n, self.table, ws)
                };
                best = best.max(read);
                let prior = priors.get(k).copied().unwrap_or(0.0);
                let tempered = p.escapes.replace_temper * (read - any).max(-50.0);
                if read >= any - p.escapes.replace_penalty - spread + tempered {
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
                    replaced.push((o.mv, tempered + prior + plausible));
                }
            }
            keep_best(&mut reads, p.search.reads_per_parent);
            cands.append(&mut reads);

            if !replaced.is_empty() {
                // Spread the escape over the legal moves (plausibility-weighted).
                let norm = lse(plaus.iter().copied());
                replaced.iter_mut().for_each(|r| r.1 -= norm);
                let weight = lse(replaced.iter().map(|r| r.1));
                // Candidates far less likely than the best hardly matter and cost time.
                let cut = replaced
                    .iter()
                    .map(|r| r.1)
                    .fold(f32::NEG_INFINITY, f32::max)
                    - MEMBER_SPAN;
                replaced.retain(|r| r.1 >= cut);
                replaced.sort_by(|a, b| b.1.total_cmp(&a.1));
                replaced.truncate(MAX_MEMBERS);
                let score = h.score + (any - p.escapes.replace_penalty + weight) as f64;
                cands.push(Cand::new(
                    score,
                    parent,
                    Act::Replace {
                        set: sets.len() as u32,
                    },
                    0.0,
                ));
                sets.push(replaced.clone());
            }

            let skip_penalty = if last_ink {
                p.escapes.skip_penalty.min(p.escapes.final_skip_penalty)
            } else {
                p.escapes.skip_penalty
            };
            let skip_score = (any - skip_penalty) as f64;
            let mut skip = Cand::new(h.score + skip_score, parent, Act::Skip, 0.0);
            if let Some(last) = &h.last {
                let again = ev.scores(n, last, self.table, ws).plain;
                let dup = (again - p.escapes.duplicate_penalty) as f64;
                if dup > skip_score {
                    skip = Cand::new(h.score + dup, parent, Act::Dup, again);
                }
            }
            skip.mask = all_members;
            cands.push(skip);

            // Only the leading lines look for an unwritten move: the beam is sorted best
            // first, and a missed move shows where the best lines stop fitting.
            if best < any - p.escapes.insert_gate && leading {
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
        let mut priors: Vec<f32> = Vec::with_capacity(first.len());
        let mut then_priors: Vec<f32> = Vec::new();
        let mut passing: Vec<(Move, f32)> = Vec::new();
        let mut then_moves: Vec<Move> = Vec::new();
        match &p.prior {
            Some(prior) => prior.log_priors(&h.pos, &first, &mut priors),
            None => priors.resize(first.len(), 0.0),
        }
        // then-move -> (its reading, the unwritten moves allowing it)
        let mut groups: Vec<Group> = Vec::new();
        let mut index = MoveIndex::new();
        for (&m1, &prior1) in first.iter().zip(&priors) {
            let mut p1 = h.pos.clone();
            p1.play_unchecked(m1);
            let w1 = prior1 + plausibility(&h.pos, &m1) - norm;
            if let Some(san) = lock {
                if let Ok(m2) = parse_move(&p1, san, Notation::En) {
                    let i = index.find_or_push(&mut groups, m2, |g| g.0, || (m2, 0.0, Vec::new()));
                    groups[i].2.push((m1, w1));
                }
                continue;
            }
            let moves = p1.legal_moves();
            // (A move the cell cannot show scores far below the skip: no group.)
            if moves.iter().all(|m| ev.rules_out(m, n)) {
                continue;
            }
            let shapes = MoveShape::all(&p1, &moves);
            passing.clear();
            for (m2, shape) in moves.iter().zip(&shapes) {
                if ev.rules_out(m2, n) {
                    continue;
                }
                let read = ev.move_score(&p1, *m2, shape, n, self.table, ws);
                if read > any - p.escapes.skip_penalty {
                    passing.push((*m2, read));
                }
            }
            then_priors.clear();
            if let Some(prior) = &p.prior {
                then_moves.clear();
                then_moves.extend(passing.iter().map(|x| x.0));
                prior.log_priors(&p1, &then_moves, &mut then_priors);
            }
            for (k, &(m2, read)) in passing.iter().enumerate() {
                let read = read + then_priors.get(k).copied().unwrap_or(0.0);
                let i = index.find_or_push(&mut groups, m2, |g| g.0, || (m2, read, Vec::new()));
                groups[i].2.push((m1, w1));
            }
        }
        let mut assumed: Vec<Cand> = Vec::new();
        for (then, read, mut set) in groups {
            let weight = lse(set.iter().map(|s| s.1));
            let cut = set.iter().map(|s| s.1).fold(f32::NEG_INFINITY, f32::max) - MEMBER_SPAN;
            set.retain(|m| m.1 >= cut);
            set.sort_by(|a, b| b.1.total_cmp(&a.1));
            set.truncate(MAX_MEMBERS);
            let score = h.score + (read - p.escapes.insert_penalty + weight) as f64;
            let act = Act::Assume {
                set: sets.len() as u32,
                then,
                locked: lock.is_some(),
            };
            sets.push(set);
            assumed.push(Cand::new(score, parent, act, read));
        }
        keep_best(&mut assumed, p.escapes.escapes_per_parent);
        cands.append(&mut assumed);
    }
}
