//! One sheet cell's evidence (one or more copies of CTC scores) -> scores of legal
//! moves: the CTC likelihood of every written body of the move in a notation, summed
//! with its allowed trailing marks, cached per (notation, move shape) so that each
//! written form is scored at most once per cell.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use shakmaty::{Chess, File, Move, Position, Rank, Role, Square};

use super::ctc::{
    CellScorer, ClassProbs, ClassTable, FxBuild, FxHasher, MIN_SCORE, Trie, to_score,
};
use super::prior::gives_check;
use crate::notation::{MoveShape, Notation, Script, TAKEN, for_each_body, transliterate};
use crate::vocab::{Alphabet, CellScores};

/// Differences below this (nats) between a move's scores with and without check
/// marks are ignored, so the check state is only worked out when the cell shows one.
const CHECK_EPS: f32 = 1e-3;

/// With several copies of a cell, what one copy that shows something else costs
/// (nats, below its total mass).
const COPY_PENALTY: f32 = 6.0;

/// A move's cell score (relative nats, summed over copies) for each check state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MoveScores {
    /// Forms without check marks.
    pub plain: f32,
    /// Plain forms plus forms with `+`.
    pub check: f32,
    /// All the above plus mate marks (`#`, `++`, and `X` in Polish).
    pub mate: f32,
}

/// Scratch memory for scoring: one prefix trie per copy, bound to one cell at a time.
#[derive(Default)]
pub(crate) struct Workspace {
    tries: Vec<Trie>,
    cell: Option<usize>,
    /// The glyph classes of the distinct written bodies of every move shape met so
    /// far (keyed like [`Evidence::scores`]' cache; the same for every cell): a range
    /// of `spans`, each span a range of `classes`.
    bodies: HashMap<u32, (u32, u32), FxBuild>,
    spans: Vec<(u32, u32)>,
    classes: Vec<u16>,
}

impl Workspace {
    /// Appends the glyph classes of the distinct written bodies of `shape` in
    /// notation `n` (those the alphabet can spell); returns their range of spans.
    fn encode_bodies(&mut self, shape: &MoveShape, n: Notation, table: &ClassTable) -> (u32, u32) {
        let first = self.spans.len() as u32;
        let mut seen: Vec<u64> = Vec::with_capacity(16);
        let mut classes: Vec<u16> = Vec::with_capacity(16);
        for_each_body(shape, n, Script::Glyph, &mut |text, _, _, _, _| {
            let mut h = FxHasher::default();
            text.hash(&mut h);
            let key = h.finish();
            if seen.contains(&key) {
                return;
            }
            seen.push(key);
            if !table.encode_into(text, &mut classes) {
                return;
            }
            let start = self.classes.len() as u32;
            self.classes.extend_from_slice(&classes);
            self.spans.push((start, self.classes.len() as u32));
        });
        (first, self.spans.len() as u32)
    }

    /// Makes the tries those of cell `cell` (whose evidence is `ev`), emptying them if
    /// they held another cell's prefixes.
    pub fn bind(&mut self, cell: usize, ev: &Evidence) {
        if self.cell == Some(cell) {
            return;
        }
        self.tries
            .resize_with(ev.copies.len().max(self.tries.len()), Trie::default);
        for (trie, scorer) in self.tries.iter_mut().zip(&ev.copies) {
            trie.reset(scorer);
        }
        self.cell = Some(cell);
    }
}

/// The evidence of one sheet cell.
pub(crate) struct Evidence {
    copies: Vec<CellScorer>,
    /// The empty string is the likeliest reading of every copy.
    pub blank: bool,
    /// Greedy reading of the first copy (glyphs).
    pub greedy: String,
    /// Keyed by the notation and [`MoveShape::key`].
    cache: HashMap<u32, MoveScores, FxBuild>,
    /// Squares (bit = square index) whose file or rank glyph shows somewhere in some
    /// copy: a move to any other square (castling aside) cannot be in the cell ...
    shown: u64,
    /// ... unless it is an English capture, which may be written by the piece it
    /// takes (`BxN`): bit = [`Role`] of the pieces whose letter shows, with `x`.
    taken: u8,
}

impl Evidence {
    /// Wraps the copies of one cell (at least one).
    pub fn new(copies: &[CellScores], alphabet: &Alphabet, floor: f32) -> Evidence {
        let scorers: Vec<CellScorer> = copies
            .iter()
            .map(|c| CellScorer::new(c, alphabet, floor))
            .collect();
        let blank = scorers.iter().all(|s| s.empty_logp() > 0.5f64.ln());
        let shows = |c: char| {
            alphabet
                .class_of(c)
                .is_some_and(|k| scorers.iter().any(|s| s.present(k as u16)))
        };
        let files: Vec<bool> = File::ALL.iter().map(|f| shows(f.char())).collect();
        let ranks: Vec<bool> = Rank::ALL.iter().map(|r| shows(r.char())).collect();
        let shown = Square::ALL
            .iter()
            .filter(|sq| files[sq.file() as usize] || ranks[sq.rank() as usize])
            .fold(0u64, |m, &sq| m | 1u64 << u32::from(sq));
        Evidence {
            shown,
            taken: if shows('x') {
                TAKEN
                    .iter()
                    .filter(|&&(c, _)| shows(c))
                    .fold(0u8, |m, &(_, r)| m | 1 << r as u8)
            } else {
                0
            },
            blank,
            greedy: copies
                .first()
                .map(|c| alphabet.greedy(c))
                .unwrap_or_default(),
            copies: scorers,
            cache: HashMap::default(),
        }
    }

    /// The cell's best-path log-likelihood summed over copies (the score origin).
    pub fn best_path(&self) -> f64 {
        self.copies.iter().map(CellScorer::best_path).sum()
    }

    /// Score (relative nats, summed over copies) of "the cell says something":
    /// what the escapes are measured from.
    pub fn any_text(&self) -> f32 {
        self.copies.iter().map(CellScorer::total_mass).sum()
    }

    /// What the cell reads, unconstrained, in English letters.
    pub fn read(&self, n: Notation) -> String {
        transliterate(&self.greedy, n)
    }

    /// The scores of every written form of a move with this shape (`ws` bound to this
    /// cell).
    pub fn scores(
        &mut self,
        n: Notation,
        shape: &MoveShape,
        table: &ClassTable,
        ws: &mut Workspace,
    ) -> MoveScores {
        let key = shape.key() | (n as u32) << 27;
        if let Some(s) = self.cache.get(&key) {
            return *s;
        }
        // Every written form names the destination square (castling and captures
        // written by the piece taken aside): when neither of its glyphs shows anywhere
        // in any copy, the cell cannot be this move (short of two misread glyphs,
        // which no escape is worse than).
        if shape.castle.is_none() && !self.may_show(shape.to, n, shape.captured) {
            let none = MoveScores {
                plain: MIN_SCORE,
                check: MIN_SCORE,
                mate: MIN_SCORE,
            };
            self.cache.insert(key, none);
            return none;
        }
        let copies = self.copies.len();
        let mut sums: Vec<ClassProbs> = vec![[0.0; 4]; copies];
        let (first, last) = match ws.bodies.get(&key) {
            Some(&range) => range,
            None => {
                let range = ws.encode_bodies(shape, n, table);
                ws.bodies.insert(key, range);
                range
            }
        };
        let scorers = &self.copies;
        for &(start, end) in &ws.spans[first as usize..last as usize] {
            let classes = &ws.classes[start as usize..end as usize];
            for ((scorer, trie), sum) in
                scorers.iter().zip(ws.tries.iter_mut()).zip(sums.iter_mut())
            {
                let p = scorer.body_probs(trie, classes);
                for k in 0..4 {
                    sum[k] += p[k];
                }
            }
        }
        let mut total = MoveScores {
            plain: 0.0,
            check: 0.0,
            mate: 0.0,
        };
        // With several copies, each copy may be garbled on its own: its evidence for a
        // move is at least "this copy says something else".
        let several = self.copies.len() > 1;
        for (sum, scorer) in sums.iter().zip(&self.copies) {
            let floor = if several {
                scorer.total_mass() - COPY_PENALTY
            } else {
                f32::NEG_INFINITY
            };
            let x = if n == Notation::Pl { sum[3] } else { 0.0 };
            total.plain += to_score(sum[0]).max(floor);
            total.check += to_score(sum[0] + sum[1]).max(floor);
            total.mate += to_score(sum[0] + sum[1] + sum[2] + x).max(floor);
        }
        self.cache.insert(key, total);
        total
    }

    /// Readings of the cell (one per copy of the sheet).
    pub fn copies(&self) -> usize {
        self.copies.len()
    }

    /// Whether a move to `to` taking `captured` may be in the cell at all in notation
    /// `n` (see [`Evidence::scores`]); castling is never ruled out.
    pub fn may_show(&self, to: Square, n: Notation, captured: Option<Role>) -> bool {
        self.shown & (1u64 << u32::from(to)) != 0
            || (n == Notation::En && captured.is_some_and(|r| self.taken & (1 << r as u8) != 0))
    }

    /// Whether legal move `m` certainly scores [`MIN_SCORE`] here in notation `n`: it
    /// goes to a square the cell does not show, is not castling, and is not a capture
    /// the cell may name by the piece taken.
    pub fn rules_out(&self, m: &Move, n: Notation) -> bool {
        !m.is_castle() && !self.may_show(m.to(), n, m.capture())
    }

    /// The cell score of legal move `m` (with shape `shape`) in `pos`: its check state
    /// decides which marks may follow, and is only worked out when it matters.
    pub fn move_score(
        &mut self,
        pos: &Chess,
        m: Move,
        shape: &MoveShape,
        n: Notation,
        table: &ClassTable,
        ws: &mut Workspace,
    ) -> f32 {
        let s = self.scores(n, shape, table, ws);
        if s.check - s.plain < CHECK_EPS && s.mate - s.plain < CHECK_EPS {
            return s.plain;
        }
        if !gives_check(pos, &m) {
            return s.plain;
        }
        if s.mate - s.check >= CHECK_EPS {
            let mut next = pos.clone();
            next.play_unchecked(m);
            if next.legal_moves().is_empty() {
                return s.mate;
            }
        }
        s.check
    }

    /// Score of one exact string, summed over copies (`ws` bound to this cell).
    pub fn text_score(&self, text: &str, alphabet: &Alphabet, ws: &mut Workspace) -> f32 {
        let total: f32 = self
            .copies
            .iter()
            .zip(&mut ws.tries)
            .map(|(s, trie)| s.score_text(trie, text, alphabet))
            .sum();
        total.max(MIN_SCORE * self.copies.len() as f32)
    }
}
