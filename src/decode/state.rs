//! The search's state: partial games (beam entries, possibly holding a set of
//! candidates for one move the sheet does not show), their history nodes, the
//! candidates of one cell, and playing a candidate into a new beam entry.

use std::collections::HashSet;

use shakmaty::{Chess, Move, Position};

use super::EntryKind;
use super::ctc::FxBuild;
use crate::notation::MoveShape;

/// Candidate moves kept for one unknown move.
pub(crate) const MAX_MEMBERS: usize = 16;
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
    pub mask: u16,
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

/// One candidate for an unknown move: the move, the position it leads to now (after
/// the moves read since), and its log-weight.
#[derive(Clone, Debug)]
pub(crate) struct Member {
    pub mv: Move,
    pub pos: Chess,
    pub logw: f32,
}

/// A move the sheet does not show, not yet pinned down by later cells.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    /// The history node of the unknown move.
    pub node: u32,
    /// Candidates still consistent with the moves read since, likeliest first.
    pub members: Vec<Member>,
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
pub(crate) fn mass(members: &[Member], mask: u16) -> f32 {
    let chosen = members
        .iter()
        .enumerate()
        .filter(|(j, _)| mask == 0 || mask & (1 << j) != 0);
    let top = chosen
        .clone()
        .map(|(_, m)| m.logw)
        .fold(f32::NEG_INFINITY, f32::max);
    top + chosen.map(|(_, m)| (m.logw - top).exp()).sum::<f32>().ln()
}

/// The history and new beam entries of one cell.
pub(crate) struct Builder<'a> {
    pub hist: &'a mut Vec<Hist>,
    pub seen: HashSet<Chess, FxBuild>,
    pub step: u32,
    /// Candidate sets of this cell's `Replace` and `Assume` candidates.
    pub sets: &'a [Vec<(Move, f32)>],
}

impl Builder<'_> {
    fn push(&mut self, parent: u32, node: Node) -> u32 {
        self.hist.push(Hist {
            parent,
            step: self.step,
            node,
        });
        self.hist.len() as u32 - 1
    }

    fn entry(&mut self, parent: u32, kind: EntryKind, mv: Option<Move>, evidence: f32) -> u32 {
        self.push(parent, Node::Entry { kind, mv, evidence })
    }

    /// Settles a pending move on member `j`: the resolve node, and the member's position.
    fn resolve(&mut self, at: u32, pending: &Pending, j: usize) -> (u32, Chess) {
        let share = (pending.members[j].logw - mass(&pending.members, 0)).exp();
        let m = &pending.members[j];
        let node = self.push(
            at,
            Node::Resolve {
                target: pending.node,
                mv: m.mv,
                share,
            },
        );
        (node, m.pos.clone())
    }

    /// Starts a pending move of set `set` played from `base` (then `then`, if any).
    fn start_pending(&self, base: &Chess, set: u32, then: Option<Move>) -> Vec<Member> {
        self.sets[set as usize]
            .iter()
            .map(|&(mv, logw)| {
                let mut pos = base.clone();
                pos.play_unchecked(mv);
                if let Some(t) = then {
                    pos.play_unchecked(t);
                }
                Member { mv, pos, logw }
            })
            .collect()
    }

    /// Plays candidate `c` from `parent`: the new beam entry, unless its position is
    /// already in the new beam.
    pub fn materialize(&mut self, c: &Cand, parent: &Hyp) -> Option<Hyp> {
        let mut h = parent.hist;
        let mut pending = parent.pending.clone();
        let mut last = parent.last;
        // An escape from a line with a pending move first settles that move.
        let mut base = parent.pos.clone();
        if (c.act.escape() || matches!(c.act, Act::Assume { .. }))
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
                            if c.mask & (1 << j) != 0 {
                                if kept.is_empty() {
                                    last = Some(MoveShape::new(&mem.pos, m));
                                }
                                let mut q = mem.pos.clone();
                                q.play_unchecked(m);
                                kept.push(Member {
                                    mv: mem.mv,
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
                        last = Some(MoveShape::new(&pos, m));
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
                let members = self.start_pending(&base, set, None);
                let pos = members[0].pos.clone();
                if self.seen.contains(&pos) {
                    return None;
                }
                h = self.entry(h, EntryKind::Replaced, None, c.evidence);
                last = None;
                pending = Some(Box::new(Pending {
                    node: h,
                    members,
                    age: 0,
                }));
                pos
            }
            Act::Assume { set, then, locked } => {
                let members = self.start_pending(&base, set, Some(then));
                let pos = members[0].pos.clone();
                if self.seen.contains(&pos) {
                    return None;
                }
                let assumed = self.entry(h, EntryKind::Assumed, None, 0.0);
                let kind = if locked {
                    EntryKind::Locked
                } else {
                    EntryKind::Read
                };
                h = self.entry(assumed, kind, Some(then), c.evidence);
                let mut q = base.clone();
                q.play_unchecked(members[0].mv);
                last = Some(MoveShape::new(&q, then));
                pending = Some(Box::new(Pending {
                    node: assumed,
                    members,
                    age: 0,
                }));
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
