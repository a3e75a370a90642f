//! The beam and one cell's evidence -> the cell's candidates: moves read from the
//! cell, a replaced move (one candidate holding every legal move the cell does not
//! show), a skipped or duplicated cell, a move the player did not write followed by
//! the cell's own move, and a move a human locked.

use shakmaty::{Chess, Move, Position};

use super::DecodeParams;
use super::ctc::{ClassTable, MIN_SCORE};
use super::evidence::{Evidence, Workspace};
use super::plausible::plausibility;
use super::state::{Act, Cand, Hyp, MAX_MEMBERS, Member, Weights, keep_best};
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

/// Expands the beam at one cell: every entry's candidates, in a notation.
pub(super) struct Expansion<'a> {
    pub(super) table: &'a ClassTable,
    pub(super) params: &'a DecodeParams,
    pub(super) notation: Notation,
}

/// The cell being expanded, and where its candidates' sets go.
struct Cell<'c> {
    ev: &'c mut Evidence,
    ws: &'c mut Workspace,
    /// The candidate sets of replaced and assumed moves (a candidate holds an index).
    sets: &'c mut Vec<Vec<(Move, f32)>>,
    /// The cell's total mass ([`Evidence::any_text`]).
    any: f32,
    /// The game's last inked cell.
    last_ink: bool,
}

/// Buffers reused from entry to entry of one cell.
struct Scratch {
    index: MoveIndex,
    options: Vec<AllowedMove>,
    reads: Vec<Cand>,
    replaced: Vec<(Move, f32)>,
    plaus: Vec<f32>,
    priors: Vec<f32>,
    moves: Vec<Move>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            index: MoveIndex::new(),
            options: Vec::new(),
            reads: Vec::new(),
            replaced: Vec::new(),
            plaus: Vec::new(),
            priors: Vec::new(),
            moves: Vec::new(),
        }
    }
}

/// The beam entry being expanded, with the members of its pending move (none when
/// its position is known) and their weights.
struct Parent<'h> {
    h: &'h Hyp,
    /// Its index in the beam.
    index: u32,
    members: &'h [Member],
    weights: Weights,
    /// Log of all members' weight (0 with none).
    whole: f32,
    /// The mask of all members (0 with none).
    all_members: u64,
}

impl<'h> Parent<'h> {
    fn new(h: &'h Hyp, index: u32) -> Parent<'h> {
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
        let all_members: u64 = if members.is_empty() {
            0
        } else {
            u64::MAX >> (64 - members.len())
        };
        Parent {
            h,
            index,
            members,
            weights,
            whole,
            all_members,
        }
    }

    /// The position `o` is played from: the entry's, or that of the first member
    /// allowing it.
    fn position(&self, o: &AllowedMove) -> &'h Chess {
        if self.members.is_empty() {
            &self.h.pos
        } else {
            &self.members[o.first].pos
        }
    }

    /// Log-share of the members allowing `o` (0 with none).
    fn share(&self, o: &AllowedMove) -> f32 {
        if self.members.is_empty() {
            0.0
        } else {
            self.weights.log_mass(o.mask) - self.whole
        }
    }
}

impl Expansion<'_> {
    /// All candidates of one cell; the candidate sets of replaced and assumed moves go
    /// to `sets`.
    pub(super) fn cell(
        &self,
        beam: &[Hyp],
        ev: &mut Evidence,
        ws: &mut Workspace,
        lock: Option<&str>,
        last_ink: bool,
        sets: &mut Vec<Vec<(Move, f32)>>,
    ) -> Vec<Cand> {
        let p = self.params;
        let mut cands = Vec::with_capacity(beam.len() * 12);
        let top = beam.first().map_or(0.0, |h| h.score);
        let any = ev.any_text();
        let blank = ev.blank;
        let mut cell = Cell {
            ev,
            ws,
            sets,
            any,
            last_ink,
        };
        let mut scratch = Scratch::new();
        for (b, h) in beam.iter().enumerate() {
            // Far behind the best: its children would not make the beam. (A locked cell
            // still tries every entry: the human's move may be legal in few lines.)
            if lock.is_none() && h.score < top - p.search.expand_margin as f64 {
                continue;
            }
            let leading =
                b < p.escapes.insert_parents && h.score >= top - p.escapes.skip_penalty as f64;
            let parent = Parent::new(h, b as u32);
            if blank && lock.is_none() {
                // A blank cell holds no move: the row was shifted (or the game ends).
                let score = h.score - p.escapes.blank_penalty as f64;
                let mut c = Cand::new(score, parent.index, Act::Skip, 0.0);
                c.mask = parent.all_members;
                cands.push(c);
                continue;
            }
            self.options(h, &mut scratch.index, &mut scratch.options);
            match lock {
                Some(san) => self.locked(
                    &parent,
                    san,
                    leading,
                    &scratch.options,
                    &mut cell,
                    &mut cands,
                ),
                None => self.unlocked(&parent, leading, &mut scratch, &mut cell, &mut cands),
            }
        }
        cands
    }

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

    /// The candidate of an entry at a cell a human locked: the locked move where the
    /// entry allows it, else (for a leading entry) an unwritten move, then the locked
    /// move.
    fn locked(
        &self,
        parent: &Parent,
        san: &str,
        leading: bool,
        options: &[AllowedMove],
        cell: &mut Cell,
        cands: &mut Vec<Cand>,
    ) {
        for o in options {
            let pos = parent.position(o);
            if parse_move(pos, san, Notation::En).is_ok_and(|m| m == o.mv) {
                let evidence =
                    cell.ev
                        .move_score(pos, o.mv, &o.shape, self.notation, self.table, cell.ws);
                let score = parent.h.score + parent.share(o) as f64;
                let mut c = Cand::new(score, parent.index, Act::Locked(o.mv), evidence);
                c.mask = o.mask;
                cands.push(c);
                return;
            }
        }
        if leading {
            self.assume(parent, Some(san), cell, cands);
        }
    }

    /// The candidates of an entry at a cell no human locked: the moves read from the
    /// cell, the replaced move, the skip or duplicate, and (for a leading entry whose
    /// moves do not explain the cell) unwritten moves.
    fn unlocked(
        &self,
        parent: &Parent,
        leading: bool,
        s: &mut Scratch,
        cell: &mut Cell,
        cands: &mut Vec<Cand>,
    ) {
        let p = self.params;
        self.option_priors(parent, &s.options, &mut s.moves, &mut s.priors);
        let best = self.reads(parent, s, cell);
        keep_best(&mut s.reads, p.search.reads_per_parent);
        cands.append(&mut s.reads);
        if !s.replaced.is_empty() {
            cands.push(self.replacement(parent, &mut s.replaced, &s.plaus, cell));
        }
        cands.push(self.skip(parent, cell));
        // Only the leading lines look for an unwritten move: the beam is sorted best
        // first, and a missed move shows where the best lines stop fitting.
        if best < cell.any - p.escapes.insert_gate && leading {
            self.assume(parent, None, cell, cands);
        }
    }

    /// The prior of every option into `priors` (emptied first; left empty with no
    /// prior), a position's moves weighed together.
    fn option_priors(
        &self,
        parent: &Parent,
        options: &[AllowedMove],
        moves: &mut Vec<Move>,
        priors: &mut Vec<f32>,
    ) {
        priors.clear();
        let Some(prior) = &self.params.prior else {
            return;
        };
        if parent.members.is_empty() {
            moves.clear();
            moves.extend(options.iter().map(|o| o.mv));
            prior.log_priors(&parent.h.pos, moves, priors);
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
                prior.log_priors(&parent.members[j].pos, moves, priors);
                k = end;
            }
        }
    }

    /// Scores every option on the cell: the moves the cell may show go to `s.reads`,
    /// the others (of the first member) to `s.replaced` as replacements, with the
    /// plausibility of every first-member move in `s.plaus`. Returns the best reading.
    fn reads(&self, parent: &Parent, s: &mut Scratch, cell: &mut Cell) -> f32 {
        let p = self.params;
        let n = self.notation;
        let any = cell.any;
        // A replaced move is any legal move: the escape's probability is shared.
        let spread = (s.options.len().max(1) as f32).ln();
        s.reads.clear();
        s.replaced.clear();
        // Plausibility of every move a replacement may be (computed once: it both
        // weighs the replaced moves and normalises their weights).
        s.plaus.clear();
        let mut best = f32::NEG_INFINITY;
        for (k, o) in s.options.iter().enumerate() {
            let pos = parent.position(o);
            let plausible = if o.first == 0 {
                let w = plausibility(pos, &o.mv);
                s.plaus.push(w);
                w
            } else {
                0.0
            };
            let read = if cell.ev.rules_out(&o.mv, n) {
                MIN_SCORE
            } else {
                cell.ev
                    .move_score(pos, o.mv, &o.shape, n, self.table, cell.ws)
            };
            best = best.max(read);
            let prior = s.priors.get(k).copied().unwrap_or(0.0);
            let tempered = p.escapes.replace_temper * (read - any).max(-50.0);
            if read >= any - p.escapes.replace_penalty - spread + tempered {
                let score = parent.h.score + (read + prior + parent.share(o)) as f64;
                let mut c = Cand::new(score, parent.index, Act::Read(o.mv), read);
                c.mask = o.mask;
                c.shape = Some(o.shape);
                s.reads.push(c);
            } else if o.first == 0 {
                // (With a pending move, a replacement starts from its first candidate.)
                s.replaced.push((o.mv, tempered + prior + plausible));
            }
        }
        best
    }

    /// The replaced-move candidate: its set (pushed to `cell.sets`) holds the moves
    /// the cell does not show, the likeliest first.
    fn replacement(
        &self,
        parent: &Parent,
        replaced: &mut Vec<(Move, f32)>,
        plaus: &[f32],
        cell: &mut Cell,
    ) -> Cand {
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
        let score =
            parent.h.score + (cell.any - self.params.escapes.replace_penalty + weight) as f64;
        let set = cell.sets.len() as u32;
        cell.sets.push(replaced.clone());
        Cand::new(score, parent.index, Act::Replace { set }, 0.0)
    }

    /// The skip of the cell, or its duplicate of the entry's last move where that
    /// scores better.
    fn skip(&self, parent: &Parent, cell: &mut Cell) -> Cand {
        let p = &self.params.escapes;
        let h = parent.h;
        let skip_penalty = if cell.last_ink {
            p.skip_penalty.min(p.final_skip_penalty)
        } else {
            p.skip_penalty
        };
        let skip_score = (cell.any - skip_penalty) as f64;
        let mut skip = Cand::new(h.score + skip_score, parent.index, Act::Skip, 0.0);
        if let Some(last) = &h.last {
            let again = cell
                .ev
                .scores(self.notation, last, self.table, cell.ws)
                .plain;
            let dup = (again - p.duplicate_penalty) as f64;
            if dup > skip_score {
                skip = Cand::new(h.score + dup, parent.index, Act::Dup, again);
            }
        }
        skip.mask = parent.all_members;
        skip
    }

    /// Candidates "a move the player did not write, then this cell's move" from beam
    /// entry `h` (its pending move, if any, settled on its first candidate): one per
    /// move the cell may show (or the locked `san`), holding every unwritten move that
    /// allows it.
    fn assume(&self, parent: &Parent, lock: Option<&str>, cell: &mut Cell, cands: &mut Vec<Cand>) {
        let p = self.params;
        let n = self.notation;
        let h = parent.h;
        let (ev, ws, any) = (&mut *cell.ev, &mut *cell.ws, cell.any);
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
                set: cell.sets.len() as u32,
                then,
                locked: lock.is_some(),
            };
            cell.sets.push(set);
            assumed.push(Cand::new(score, parent.index, act, read));
        }
        keep_best(&mut assumed, p.escapes.escapes_per_parent);
        cands.append(&mut assumed);
    }
}
