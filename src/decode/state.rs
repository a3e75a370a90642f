//! The search's state: partial games (beam entries, possibly holding a set of
//! candidates for one move the sheet does not show), their history nodes, the
//! candidates of one cell, and playing a candidate into a new beam entry.

use std::collections::HashSet;

use shakmaty::{Chess, Move, Position};

use super::EntryKind;
use super::ctc::FxBuild;
use crate::notation::MoveShape;

/// Candidate moves kept for one unknown move.
pub(crate) const MAX_MEMBERS: usize = 64;
/// Cells after which an unknown move still undecided is settled on its likeliest
/// candidate.
pub(crate) const MAX_PENDING_AGE: u32 = 24;
/// Recent decisions a beam entry remembers, for diversity.
pub(crate) const WINDOW: usize = 8;
const KEY_SKIP: u32 = u32::MAX;
const KEY_ESCAPE: u32 = u32::MAX - 1;

/// What a history node records.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Node {
    Root,
    /// An entry of the decoded sheet. `mv` is `None` for a skipped cell, and for a
    /// replaced or assumed move until a later [`Node::Resolve`] names it.
    Entry {
        kind: EntryKind,
        mv: Option<Move>,
        evidence: f32,
    },
    /// The unknown move of node `target` turned out to be `mv` (with this share of
    /// the candidates' weight).
    Resolve {
        target: u32,
        mv: Move,
        share: f32,
    },
}

/// A node of a decoded line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hist {
    /// Previous node (`u32::MAX` for the root).
    pub parent: u32,
    /// Cell index this node was made at (`u32::MAX` for the root).
    pub step: u32,
    pub node: Node,
    /// Score of the line (the candidate that made this node) at that cell.
    pub score: f64,
}

/// What a candidate does at a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Act {
    Read(Move),
    Locked(Move),
    Skip,
    Dup,
    /// The cell does not show the move played: one of the moves of set `set`.
    Replace {
        set: u32,
    },
    /// A move the player did not write (one of set `set`), then the cell's own move.
    Assume {
        set: u32,
        then: Move,
        locked: bool,
    },
}

impl Act {
    /// Replaced and assumed moves: counted against the escape share of the beam.
    pub fn escape(self) -> bool {
        matches!(
            self,
            Act::Replace { .. } | Act::Assume { locked: false, .. }
        )
    }

    /// The move the cell records, when known at this cell.
    pub fn cell_move(self) -> Option<Move> {
        match self {
            Act::Read(m) | Act::Locked(m) | Act::Assume { then: m, .. } => Some(m),
            Act::Skip | Act::Dup | Act::Replace { .. } => None,
        }
    }
}

/// A compact key of a candidate's decision, for diversity: the move read (or
/// locked), one key for every replaced move, one for skips.
pub(crate) fn act_key(act: Act) -> u32 {
    let mv = |m: Move| {
        let promo = m.promotion().map_or(0, |r| r as u32);
        (u32::from(m.from().expect("chess move")) << 10) | (u32::from(m.to()) << 4) | promo
    };
    match act {
        Act::Read(m) | Act::Locked(m) => mv(m),
        Act::Assume { then, .. } => mv(then) | 1 << 20,
        Act::Replace { .. } => KEY_ESCAPE,
        Act::Skip | Act::Dup => KEY_SKIP,
    }
}

/// One candidate of a cell.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cand {
    pub score: f64,
    /// Index of the parent in the beam.
    pub parent: u32,
    pub act: Act,
    /// Cell evidence of the move (relative nats).
    pub evidence: f32,
    /// Kept in the beam whatever its rank (diversity).
    pub protect: bool,
    /// For a parent with an unknown move: which of its candidates stay consistent
    /// (bit `j` = member `j`); 0 otherwise.
    pub mask: u64,
    /// Shape of the move the cell records, when the expansion knew it.
    pub shape: Option<MoveShape>,
}

impl Cand {
    pub fn new(score: f64, parent: u32, act: Act, evidence: f32) -> Cand {
        Cand {
            score,
            parent,
            act,
            evidence,
            protect: false,
            mask: 0,
            shape: None,
        }
    }
}

/// A candidate kept for the confidence computation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Recorded {
    pub score: f64,
    pub parent_hist: u32,
    pub act: Act,
}

/// One candidate for the unknown moves of a line: a move for each of them, the
/// position they lead to now (after the moves read since), and its log-weight.
#[derive(Clone, Debug)]
pub(crate) struct Member {
    pub mvs: Vec<Move>,
    pub pos: Chess,
    pub logw: f32,
}

/// Moves the sheet does not show, not yet pinned down by later cells.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    /// The history nodes of the unknown moves, oldest first.
    pub nodes: Vec<u32>,
    /// Candidates still consistent with the moves read since, likeliest first.
    pub members: Vec<Member>,
    /// Cells since the oldest unknown move.
    pub age: u32,
}

/// A partial game.
#[derive(Clone, Debug)]
pub(crate) struct Hyp {
    /// The position (of the first candidate when a move is pending).
    pub pos: Chess,
    pub score: f64,
    pub hist: u32,
    /// Shape of the last move read from a cell (to recognise a duplicate).
    pub last: Option<MoveShape>,
    /// Keys of the decisions at the last cells, latest first.
    pub recent: [u32; WINDOW],
    pub pending: Option<Box<Pending>>,
}

impl Hyp {
    pub fn root() -> Hyp {
        Hyp {
            pos: Chess::default(),
            score: 0.0,
            hist: 0,
            last: None,
            recent: [KEY_SKIP; WINDOW],
            pending: None,
        }
    }
}

/// Log of the summed weights of the members in `mask` (all when `mask` is 0).
pub(crate) fn mass(members: &[Member], mask: u64) -> f32 {
    Weights::of(members).log_mass(mask)
}

/// The members' weights, for many [`Weights::log_mass`] queries.
pub(crate) struct Weights {
    top: f32,
    linear: Vec<f32>,
}

impl Weights {
    pub fn of(members: &[Member]) -> Weights {
        let top = members
            .iter()
            .map(|m| m.logw)
            .fold(f32::NEG_INFINITY, f32::max);
        Weights {
            top,
            linear: members.iter().map(|m| (m.logw - top).exp()).collect(),
        }
    }

    /// Log of the summed weights of the members in `mask` (all when `mask` is 0).
    pub fn log_mass(&self, mask: u64) -> f32 {
        let sum: f32 = if mask == 0 {
            self.linear.iter().sum()
        } else {
            let mut bits = mask;
            let mut sum = 0.0;
            while bits != 0 {
                let j = bits.trailing_zeros() as usize;
                sum += self.linear.get(j).copied().unwrap_or(0.0);
                bits &= bits - 1;
            }
            sum
        };
        self.top + sum.ln()
    }
}

/// The history and new beam entries of one cell.
pub(crate) struct Builder<'a> {
    pub hist: &'a mut Vec<Hist>,
    pub seen: HashSet<Chess, FxBuild>,
    pub step: u32,
    /// Candidate sets of this cell's `Replace` and `Assume` candidates.
    pub sets: &'a [Vec<(Move, f32)>],
    /// Score of the candidate being played (its nodes record it).
    pub score: f64,
}

impl Builder<'_> {
    fn push(&mut self, parent: u32, node: Node) -> u32 {
        self.hist.push(Hist {
            parent,
            step: self.step,
            node,
            score: self.score,
        });
        self.hist.len() as u32 - 1
    }

    fn entry(&mut self, parent: u32, kind: EntryKind, mv: Option<Move>, evidence: f32) -> u32 {
        self.push(parent, Node::Entry { kind, mv, evidence })
    }

    /// Settles the pending moves on member `j`: a resolve node for each, and the
    /// member's position.
    fn resolve(&mut self, mut at: u32, pending: &Pending, j: usize) -> (u32, Chess) {
        let share = (pending.members[j].logw - mass(&pending.members, 0)).exp();
        let m = &pending.members[j];
        for (&target, &mv) in pending.nodes.iter().zip(&m.mvs) {
            at = self.push(at, Node::Resolve { target, mv, share });
        }
        (at, m.pos.clone())
    }

    /// Adds an unknown move of set `set` (then `then`, if any) to the candidates of a
    /// line: from a settled position, one candidate per move of the set; on top of
    /// pending candidates, each keeps its likeliest move of the set that is legal
    /// there (candidates allowing none are dropped).
    fn extend_pending(
        &self,
        base: &Chess,
        pending: Option<Box<Pending>>,
        set: u32,
        then: Option<Move>,
        node: u32,
    ) -> Option<Pending> {
        let set = &self.sets[set as usize];
        let play = |from: &Chess, mv: Move| -> Option<Chess> {
            if !from.is_legal(mv) {
                return None;
            }
            let mut pos = from.clone();
            pos.play_unchecked(mv);
            if let Some(t) = then {
                if !pos.is_legal(t) {
                    return None;
                }
                pos.play_unchecked(t);
            }
            Some(pos)
        };
        let (nodes, members) = match pending {
            None => {
                let members: Vec<Member> = set
                    .iter()
                    .filter_map(|&(mv, logw)| {
                        play(base, mv).map(|pos| Member {
                            mvs: vec![mv],
                            pos,
                            logw,
                        })
                    })
                    .collect();
                (vec![node], members)
            }
            Some(p) => {
                let mut nodes = p.nodes;
                nodes.push(node);
                let members: Vec<Member> = p
                    .members
                    .into_iter()
                    .filter_map(|m| {
                        set.iter().find_map(|&(mv, logw)| {
                            play(&m.pos, mv).map(|pos| {
                                let mut mvs = m.mvs.clone();
                                mvs.push(mv);
                                Member {
                                    mvs,
                                    pos,
                                    logw: m.logw + logw,
                                }
                            })
                        })
                    })
                    .collect();
                (nodes, members)
            }
        };
        (!members.is_empty()).then_some(Pending {
            nodes,
            members,
            age: 0,
        })
    }

    /// Plays candidate `c` from `parent`: the new beam entry, unless its position is
    /// already in the new beam.
    pub fn materialize(&mut self, c: &Cand, parent: &Hyp) -> Option<Hyp> {
        self.score = c.score;
        let mut h = parent.hist;
        let mut pending = parent.pending.clone();
        let mut last = parent.last;
        let mut base = parent.pos.clone();
        // A new unknown move settles the older ones on their likeliest candidate:
        // keeping both undecided would multiply the candidates.
        if matches!(c.act, Act::Replace { .. } | Act::Assume { .. })
            && let Some(p) = pending.take()
        {
            let (node, pos) = self.resolve(h, &p, 0);
            h = node;
            base = pos;
        }
        let pos: Chess = match c.act {
            Act::Read(m) | Act::Locked(m) => {
                let kind = if matches!(c.act, Act::Read(_)) {
                    EntryKind::Read
                } else {
                    EntryKind::Locked
                };
                let pos = match pending.as_mut() {
                    Some(p) => {
                        let mut kept = Vec::with_capacity(p.members.len());
                        for (j, mem) in p.members.iter().enumerate() {
                            if c.mask & (1u64 << j) != 0 {
                                if kept.is_empty() {
                                    last = Some(
                                        c.shape.unwrap_or_else(|| MoveShape::new(&mem.pos, m)),
                                    );
                                }
                                let mut q = mem.pos.clone();
                                q.play_unchecked(m);
                                kept.push(Member {
                                    mvs: mem.mvs.clone(),
                                    pos: q,
                                    logw: mem.logw,
                                });
                            }
                        }
                        p.members = kept;
                        p.age += 1;
                        p.members[0].pos.clone()
                    }
                    None => {
                        let mut pos = base.clone();
                        last = Some(c.shape.unwrap_or_else(|| MoveShape::new(&pos, m)));
                        pos.play_unchecked(m);
                        pos
                    }
                };
                if self.seen.contains(&pos) {
                    return None;
                }
                h = self.entry(h, kind, Some(m), c.evidence);
                pos
            }
            Act::Skip | Act::Dup => {
                if self.seen.contains(&base) {
                    return None;
                }
                let kind = if c.act == Act::Skip {
                    EntryKind::Skipped
                } else {
                    EntryKind::Duplicate
                };
                h = self.entry(h, kind, None, c.evidence);
                last = None;
                if let Some(p) = pending.as_mut() {
                    p.age += 1;
                }
                base
            }
            Act::Replace { set } => {
                let age = pending.as_ref().map_or(0, |p| p.age + 1);
                let node = self.entry(h, EntryKind::Replaced, None, c.evidence);
                let mut p = self.extend_pending(&base, pending.take(), set, None, node)?;
                p.age = age;
                let pos = p.members[0].pos.clone();
                if self.seen.contains(&pos) {
                    self.hist.pop();
                    return None;
                }
                h = node;
                last = None;
                pending = Some(Box::new(p));
                pos
            }
            Act::Assume { set, then, locked } => {
                let age = pending.as_ref().map_or(0, |p| p.age + 1);
                let assumed = self.entry(h, EntryKind::Assumed, None, 0.0);
                let Some(mut p) =
                    self.extend_pending(&base, pending.take(), set, Some(then), assumed)
                else {
                    self.hist.pop();
                    return None;
                };
                p.age = age;
                let pos = p.members[0].pos.clone();
                if self.seen.contains(&pos) {
                    self.hist.pop();
                    return None;
                }
                let kind = if locked {
                    EntryKind::Locked
                } else {
                    EntryKind::Read
                };
                h = self.entry(assumed, kind, Some(then), c.evidence);
                let mut q = base.clone();
                q.play_unchecked(p.members[0].mvs[p.members[0].mvs.len() - 1]);
                last = Some(MoveShape::new(&q, then));
                pending = Some(Box::new(p));
                pos
            }
        };
        // A pending move down to one candidate, or kept too long, is settled.
        let mut pos = pos;
        if let Some(p) = pending.take() {
            if p.members.len() == 1 || p.age >= MAX_PENDING_AGE {
                let (node, settled) = self.resolve(h, &p, 0);
                h = node;
                pos = settled;
            } else {
                pending = Some(p);
            }
        }
        self.seen.insert(pos.clone());
        let mut recent = [KEY_SKIP; WINDOW];
        recent[0] = act_key(c.act);
        recent[1..].copy_from_slice(&parent.recent[..WINDOW - 1]);
        Some(Hyp {
            pos,
            score: c.score,
            hist: h,
            last,
            recent,
            pending,
        })
    }
}

/// Keeps the `k` best candidates (in no particular order).
pub(crate) fn keep_best(cands: &mut Vec<Cand>, k: usize) {
    if cands.len() > k {
        cands.select_nth_unstable_by(k.saturating_sub(1), |a, b| b.score.total_cmp(&a.score));
        cands.truncate(k);
    }
}

/// Everything a search leaves for [`super::explain::explain`].
pub(crate) struct Trace {
    pub hist: Vec<Hist>,
    /// Per cell, the best candidates before pruning, best first.
    pub steps: Vec<Vec<Recorded>>,
    pub best_hist: u32,
    pub score: f64,
    pub lock_conflicts: Vec<usize>,
}
