//! One cell's CTC log-probabilities -> scores of glyph strings: the CTC forward
//! algorithm over a trie of the strings asked so far (each prefix computed once per
//! cell, whatever beam entry asks), with the optional trailing marks (check, mate,
//! evaluation, draw offer) folded in through per-cell backward vectors.
//!
//! Scores are natural logs *relative to the cell's best path* (the sum over frames of
//! each frame's largest log-probability): a string the reader reads cleanly scores
//! near 0, and scores of different cells and notations are comparable.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::vocab::{Alphabet, CellScores};

/// Default of [`CellScorer::new`]'s `floor`.
pub const DEFAULT_FLOOR: f32 = 6.0;

/// A trie prefix is not extended when the probability that the cell's text starts
/// with it is this many nats below the cell's total probability mass: no move written
/// through it can matter next to the escape penalties.
pub(crate) const PRUNE_NATS: f32 = 12.0;

/// A glyph counts as present in a cell when some frame gives it at least this share
/// of that frame's best class (before the floor).
const PRESENT: f32 = 0.003;

/// Marks weaker than this (nats below no mark) are not scored for a cell.
const MARK_NATS: f32 = 8.0;

/// The lowest score reported (a string the cell cannot have produced).
pub const MIN_SCORE: f32 = -200.0;

/// Glyph -> class lookup for canonical glyph strings (the hot path: written bodies).
pub(crate) struct ClassTable {
    ascii: [u16; 128],
    other: Vec<(char, u16)>,
}

impl ClassTable {
    pub fn new(alphabet: &Alphabet) -> ClassTable {
        let mut table = ClassTable {
            ascii: [u16::MAX; 128],
            other: Vec::new(),
        };
        for i in 0..alphabet.len() {
            if let Some(c) = alphabet.symbol(i) {
                match table.ascii.get_mut(c as usize) {
                    Some(slot) => *slot = i as u16,
                    None => table.other.push((c, i as u16)),
                }
            }
        }
        table
    }

    /// Class indices of a canonical glyph string into `out`; false if a glyph is not
    /// in the alphabet.
    pub fn encode_into(&self, glyphs: &str, out: &mut Vec<u16>) -> bool {
        out.clear();
        for c in glyphs.chars() {
            let k = match self.ascii.get(c as usize) {
                Some(&k) => k,
                None => self
                    .other
                    .iter()
                    .find(|(o, _)| *o == c)
                    .map_or(u16::MAX, |(_, k)| *k),
            };
            if k == u16::MAX {
                return false;
            }
            out.push(k);
        }
        true
    }
}

/// Multiplicative hasher for small integer keys (the trie's child map).
#[derive(Default)]
pub(crate) struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(v as u64);
    }
    fn write_isize(&mut self, v: isize) {
        self.write_u64(v as u64);
    }
    fn write_u16(&mut self, v: u16) {
        self.write_u64(v as u64);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;

/// Summed probabilities (scaled, see [`CellScorer`]) of one body with each class of
/// trailing marks: `[plain, check, mate, mate_x]` where plain = no check mark (the
/// bare body, or an evaluation / draw-offer mark), check = `+`, mate = `#` or `++`,
/// mate_x = `X` (Polish); each may be followed by an evaluation mark.
pub(crate) type ClassProbs = [f64; 4];

/// Trailing marks of each [`ClassProbs`] class (glyphs), built once from
/// [`crate::notation::ANNOTATIONS`].
fn mark_strings() -> &'static [Vec<String>; 4] {
    static MARKS: std::sync::OnceLock<[Vec<String>; 4]> = std::sync::OnceLock::new();
    MARKS.get_or_init(build_mark_strings)
}

fn build_mark_strings() -> [Vec<String>; 4] {
    let ann = crate::notation::ANNOTATIONS;
    let with = |heads: &[&str]| -> Vec<String> {
        heads
            .iter()
            .flat_map(|h| ann.iter().map(move |a| format!("{h}{a}")))
            .filter(|s| !s.is_empty())
            .collect()
    };
    [with(&[""]), with(&["+"]), with(&["#", "++"]), with(&["X"])]
}

struct Node {
    class: u16,
    alive: bool,
}

/// The prefix trie of one cell's scored strings: the forward variables of every
/// prefix asked so far. A workspace: [`Trie::reset`] reuses its memory for the next
/// cell.
#[derive(Default)]
pub struct Trie {
    steps: usize,
    nodes: Vec<Node>,
    /// Per node `2 * (steps + 1)` values: `a_char[0..=T]` then `a_blank[0..=T]`;
    /// index `t` = after `t` frames.
    alpha: Vec<f32>,
    children: HashMap<(u32, u16), u32, FxBuild>,
}

impl Trie {
    /// Empties the trie and sets its root up for `scorer`'s cell.
    pub fn reset(&mut self, scorer: &CellScorer) {
        let t1 = scorer.steps + 1;
        self.steps = scorer.steps;
        self.nodes.clear();
        self.alpha.clear();
        self.children.clear();
        self.nodes.push(Node {
            class: u16::MAX,
            alive: true,
        });
        self.alpha.resize(2 * t1, 0.0);
        let blank = &mut self.alpha[t1..2 * t1];
        blank[0] = 1.0;
        for t in 0..scorer.steps {
            blank[t + 1] = blank[t] * scorer.y[scorer.blank * scorer.steps + t];
        }
    }

    /// Number of prefixes computed (for benchmarks).
    #[cfg(any(test, feature = "internals"))]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True before the first [`Trie::reset`].
    #[cfg(any(test, feature = "internals"))]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    fn alphas(&self, node: u32) -> (&[f32], &[f32]) {
        let t1 = self.steps + 1;
        let p = node as usize * 2 * t1;
        (&self.alpha[p..p + t1], &self.alpha[p + t1..p + 2 * t1])
    }

    /// The child of `parent` for glyph class `class`, computing it if needed.
    fn child(&mut self, scorer: &CellScorer, parent: u32, class: u16) -> u32 {
        if let Some(&c) = self.children.get(&(parent, class)) {
            return c;
        }
        let id = self.nodes.len() as u32;
        let (t1, steps) = (self.steps + 1, self.steps);
        let repeat = self.nodes[parent as usize].class == class;
        let start = self.alpha.len();
        self.alpha.resize(start + 2 * t1, 0.0);
        let (before, mine) = self.alpha.split_at_mut(start);
        let p = parent as usize * 2 * t1;
        let (p_char, p_blank) = (&before[p..p + t1], &before[p + t1..p + 2 * t1]);
        let (a_char, a_blank) = mine.split_at_mut(t1);
        let (c, b) = (class as usize, scorer.blank);
        let emit_c = &scorer.y[c * steps..(c + 1) * steps];
        let emit_b = &scorer.y[b * steps..(b + 1) * steps];
        // The recurrences run in registers (a store-to-load round trip per frame would
        // double their latency).
        let (mut ac, mut ab) = (0.0f32, 0.0f32);
        let (p_char, p_blank) = (&p_char[..steps], &p_blank[..steps]);
        for t in 0..steps {
            let from_parent = p_blank[t] + if repeat { 0.0 } else { p_char[t] };
            let next_ab = (ab + ac) * emit_b[t];
            ac = (ac + from_parent) * emit_c[t];
            ab = next_ab;
            a_char[t + 1] = ac;
            a_blank[t + 1] = ab;
        }
        let bound: f32 = a_char[1..]
            .iter()
            .zip(&scorer.rest[1..])
            .map(|(a, r)| a * r)
            .sum();
        let alive = bound > scorer.prune;
        self.nodes.push(Node { class, alive });
        self.children.insert((parent, class), id);
        id
    }

    /// The node of a class string (computing missing prefixes), or the first pruned
    /// prefix on the way: nothing below it can matter.
    fn node_of(&mut self, scorer: &CellScorer, classes: &[u16]) -> u32 {
        let mut node = 0u32;
        for &c in classes {
            node = self.child(scorer, node, c);
            if !self.nodes[node as usize].alive {
                break;
            }
        }
        node
    }

    /// Scaled probability that the cell spells exactly this class string.
    fn exact(&mut self, scorer: &CellScorer, classes: &[u16]) -> f64 {
        let node = self.node_of(scorer, classes);
        if !self.nodes[node as usize].alive {
            return 0.0;
        }
        let (a_char, a_blank) = self.alphas(node);
        (a_char[self.steps] + a_blank[self.steps]) as f64
    }
}

/// Scores glyph strings against one cell. See the module docs for the scale.
///
/// Internally probabilities are linear, each frame scaled by its best class
/// (`y[t][c] = exp(logp[t][c] - max_c logp[t][c])`); prefixes live in a [`Trie`].
pub struct CellScorer {
    steps: usize,
    classes: usize,
    blank: usize,
    /// `[classes][steps]` scaled emissions (a class's frames contiguous).
    y: Vec<f32>,
    /// Natural log of the best path: the sum of the frames' largest log-probabilities.
    best_path: f64,
    /// Log-probability of the empty string (a blank cell), unscaled.
    empty_logp: f64,
    /// `beta[class][u]`: probability that frames `u..T` spell some mark of the class.
    beta: [Vec<f32>; 4],
    /// `rest[u]`: product over frames `u..T` of the frame's total scaled mass (an
    /// upper bound on any continuation), capped.
    rest: Vec<f32>,
    /// Prefixes whose bound falls below this are pruned.
    prune: f32,
    /// Whether the marks of each class have any chance in this cell at all.
    marks_seen: [bool; 4],
    /// Per class: whether some frame gives it a real chance (before the floor).
    present: Vec<bool>,
}

impl CellScorer {
    /// Prepares scoring for one cell. A class's log-probability in a frame counts as
    /// at least `floor` nats below the frame's best class: a reader is never surer of
    /// a glyph than that, so one misread glyph costs at most about `floor`.
    pub fn new(scores: &CellScores, alphabet: &Alphabet, floor: f32) -> CellScorer {
        let (steps, classes, blank) = (scores.steps, scores.classes, alphabet.blank());
        let mut y = vec![0.0f32; steps * classes];
        let mut best_path = 0.0f64;
        let mut empty_logp = 0.0f64;
        // Per frame: emissions relative to the best class, floored; and the frame's true
        // total mass (before the floor).
        let mut mass = vec![0.0f32; steps];
        let mut present = vec![false; classes];
        let floor_lin = (-floor).exp();
        for t in 0..steps {
            let row = scores.row(t);
            let max = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
            best_path += max as f64;
            empty_logp += row.get(blank).copied().unwrap_or(f32::NEG_INFINITY) as f64;
            for (c, &v) in row.iter().enumerate() {
                let e = (v - max).exp();
                mass[t] += e;
                y[c * steps + t] = e.max(floor_lin);
                if e > PRESENT {
                    present[c] = true;
                }
            }
        }
        let mut rest = vec![1.0f32; steps + 1];
        for t in (0..steps).rev() {
            rest[t] = (rest[t + 1] * mass[t]).min(1e30);
        }
        let mut scorer = CellScorer {
            steps,
            classes,
            blank,
            y,
            best_path,
            empty_logp,
            beta: Default::default(),
            rest,
            prune: 0.0,
            marks_seen: [true; 4],
            present,
        };
        scorer.prune = scorer.rest[0] * (-PRUNE_NATS).exp();
        scorer.beta = scorer.mark_betas(alphabet);
        // A class of marks counts only where it comes within MARK_NATS of the frames
        // after a body staying blank (most cells carry no mark at all).
        let mut blank_tail = vec![1.0f32; steps + 1];
        for t in (0..steps).rev() {
            blank_tail[t] = blank_tail[t + 1] * scorer.y[blank * steps + t];
        }
        let seen = (-MARK_NATS).exp();
        for k in 0..4 {
            scorer.marks_seen[k] =
                (1..steps).any(|u| scorer.beta[k][u] > seen * blank_tail[u].max(f32::MIN_POSITIVE));
        }

        scorer
    }

    /// The same scorer with no prefix pruned, for strings far below the cell's best
    /// reading that must still be told apart (a printed word in the reader's glyphs).
    pub fn unpruned(mut self) -> CellScorer {
        self.prune = 0.0;
        self
    }

    /// Whether glyph class `class` has a real chance in some frame of the cell.
    pub fn present(&self, class: u16) -> bool {
        self.present.get(class as usize).copied().unwrap_or(false)
    }

    /// Natural log of the best path's probability (the score origin).
    pub fn best_path(&self) -> f64 {
        self.best_path
    }

    /// Log of the cell's total probability mass over all strings, relative to the best
    /// path (>= 0): the score of "whatever the cell says".
    pub fn total_mass(&self) -> f32 {
        self.rest[0].ln()
    }

    /// Natural log of the probability that the cell is empty.
    pub fn empty_logp(&self) -> f64 {
        self.empty_logp
    }

    /// Scaled probabilities of `body + mark` summed over the marks of each class
    /// (the plain class includes the bare body). `trie` must be reset for this cell.
    pub(crate) fn body_probs(&self, trie: &mut Trie, body: &[u16]) -> ClassProbs {
        let node = trie.node_of(self, body);
        if !trie.nodes[node as usize].alive {
            return [0.0; 4];
        }
        let (a_char, a_blank) = trie.alphas(node);
        let mut out = [0.0f64; 4];
        for (k, beta) in self.beta.iter().enumerate() {
            if self.marks_seen[k] {
                let mut sum = 0.0f32;
                for u in 1..self.steps {
                    sum += a_char[u] * beta[u];
                }
                out[k] = sum as f64;
            }
        }
        out[0] += (a_char[self.steps] + a_blank[self.steps]) as f64;
        out
    }

    /// Score (relative nats) of one string, marks included as written; look-alike
    /// letters are canonicalised. `trie` must be reset for this cell.
    pub fn score_text(&self, trie: &mut Trie, text: &str, alphabet: &Alphabet) -> f32 {
        match alphabet.encode(text) {
            Some(classes) => {
                let classes: Vec<u16> = classes.iter().map(|&c| c as u16).collect();
                to_score(trie.exact(self, &classes))
            }
            None => MIN_SCORE,
        }
    }

    /// `beta[class][u]` for the trailing marks, by running the forward algorithm on
    /// the time-reversed cell over the reversed mark strings.
    fn mark_betas(&self, alphabet: &Alphabet) -> [Vec<f32>; 4] {
        let reversed = CellScorer {
            steps: self.steps,
            classes: self.classes,
            blank: self.blank,
            y: (0..self.classes)
                .flat_map(|c| {
                    self.y[c * self.steps..(c + 1) * self.steps]
                        .iter()
                        .rev()
                        .copied()
                })
                .collect(),
            best_path: self.best_path,
            empty_logp: self.empty_logp,
            beta: Default::default(),
            rest: vec![1e30; self.steps + 1],
            prune: 0.0,
            marks_seen: [true; 4],
            present: vec![true; self.classes],
        };
        let mut trie = Trie::default();
        trie.reset(&reversed);
        let mut beta: [Vec<f32>; 4] = Default::default();
        for (k, marks) in mark_strings().iter().enumerate() {
            let mut sum = vec![0.0f32; self.steps + 1];
            for mark in marks {
                let Some(classes) = alphabet.encode(mark) else {
                    continue;
                };
                let rev: Vec<u16> = classes.iter().rev().map(|&c| c as u16).collect();
                let node = trie.node_of(&reversed, &rev);
                if !trie.nodes[node as usize].alive {
                    continue;
                }
                let (a_char, a_blank) = trie.alphas(node);
                // Frames u..T reversed are the first T-u reversed frames.
                for (u, s) in sum.iter_mut().enumerate() {
                    let r = self.steps - u;
                    *s += a_char[r] + a_blank[r];
                }
            }
            beta[k] = sum;
        }
        beta
    }
}

/// Scaled probability -> relative score in nats, clamped at [`MIN_SCORE`].
pub(crate) fn to_score(p: f64) -> f32 {
    if p > 0.0 {
        (p.ln() as f32).max(MIN_SCORE)
    } else {
        MIN_SCORE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: sum over all paths of length `T` that collapse to `target`.
    fn brute(scores: &CellScores, blank: usize, target: &[usize]) -> f64 {
        let (t_max, c_max) = (scores.steps, scores.classes);
        let mut total = 0.0f64;
        let mut path = vec![0usize; t_max];
        loop {
            let mut collapsed = Vec::new();
            let mut prev = usize::MAX;
            for &c in &path {
                if c != prev && c != blank {
                    collapsed.push(c);
                }
                prev = c;
            }
            if collapsed == target {
                total += path
                    .iter()
                    .enumerate()
                    .map(|(t, &c)| scores.row(t)[c] as f64)
                    .sum::<f64>()
                    .exp();
            }
            let mut i = 0;
            loop {
                if i == t_max {
                    return total;
                }
                path[i] += 1;
                if path[i] < c_max {
                    break;
                }
                path[i] = 0;
                i += 1;
            }
        }
    }

    fn random_cell(steps: usize, classes: usize, seed: u64) -> CellScores {
        let mut rng = crate::notation::Rng::new(seed);
        let mut logp = Vec::new();
        for _ in 0..steps {
            let raw: Vec<f64> = (0..classes).map(|_| rng.unit() * 3.0).collect();
            let z = raw.iter().map(|v| v.exp()).sum::<f64>().ln();
            logp.extend(raw.iter().map(|v| (v - z) as f32));
        }
        CellScores::new(steps, classes, logp)
    }

    #[test]
    fn forward_matches_brute_force_with_marks() {
        // Alphabet: blank, e, 4, +, !, #, X (and the rest of the mark glyphs absent).
        let abc = Alphabet::new(vec!['_', 'e', '4', '+', '!', '#', 'X'], 0);
        for seed in 0..4 {
            let cell = random_cell(5, 7, seed);
            let scorer = CellScorer::new(&cell, &abc, 60.0);
            let mut trie = Trie::default();
            trie.reset(&scorer);
            let body = [1u16, 2]; // "e4"
            let probs = scorer.body_probs(&mut trie, &body);
            let scale = scorer.best_path().exp();
            let sum = |heads: &[&[usize]]| -> f64 {
                let anns: [&[usize]; 3] = [&[], &[4], &[4, 4]];
                let mut total = 0.0;
                for h in heads {
                    for a in anns {
                        let s: Vec<usize> = [1, 2]
                            .iter()
                            .chain(h.iter())
                            .chain(a.iter())
                            .copied()
                            .collect();
                        total += brute(&cell, 0, &s);
                    }
                }
                total
            };
            let plain = sum(&[&[]]);
            let check = sum(&[&[3]]);
            let mate = sum(&[&[5], &[3, 3]]);
            let x = sum(&[&[6]]);
            for (got, want) in probs.iter().zip([plain, check, mate, x]) {
                let got = got * scale;
                assert!(
                    (got - want).abs() <= 1e-9 + 1e-4 * want,
                    "seed {seed}: {got} vs {want}"
                );
            }
            let exact = scorer.score_text(&mut trie, "e4", &abc) as f64 + scorer.best_path();
            assert!((exact - brute(&cell, 0, &[1, 2]).ln()).abs() < 1e-4);
        }
    }

    #[test]
    fn repeated_letters_need_a_blank_between() {
        let abc = Alphabet::new(vec!['_', '0', '-'], 0);
        let cell = random_cell(6, 3, 9);
        let scorer = CellScorer::new(&cell, &abc, 60.0);
        let mut trie = Trie::default();
        trie.reset(&scorer);
        let got = scorer.score_text(&mut trie, "00", &abc) as f64 + scorer.best_path();
        assert!((got - brute(&cell, 0, &[1, 1]).ln()).abs() < 1e-4);
    }
}
