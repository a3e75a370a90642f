//! Cells' CTC log-probabilities -> the Das moves they most likely show, by the Das
//! notation alone (no rules, no legality): the record of a Das sheet.
//!
//! Each cell is read by a best-first search over the grammar automaton
//! ([`DasAutomaton`]). A search node is a grammar prefix with its CTC forward variables;
//! its priority is the exact probability that the cell's text *starts with* that
//! prefix (emissions floored as in [`super::CellScorer`], then renormalised per frame,
//! so any continuation has total mass 1). A complete string can never score above its
//! prefixes, so the search stops, exactly, once no open prefix can beat the best
//! complete move by `margin` nats: the best move and every move within `margin` of it
//! are found, and the confidence is the best move's share of them (the blank reading
//! included). A budget of expansions bounds the work on a cell that reads as nothing;
//! a reading cut short by it is flagged.
//!
//! A sheet's record ends with its trailing blank cells; a blank cell with ink after it
//! stays in the record as a skipped cell flagged for review.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};

use super::EntryKind;
use crate::notation::das::{DasAutomaton, parse_das_move};
use crate::vocab::{Alphabet, CellScores};

/// How Das cells are read and when a human is asked to look.
#[derive(Clone, Debug, PartialEq)]
pub struct DasParams {
    /// A glyph's log-probability in a frame counts as at least this many nats below
    /// the frame's best: the cost of overruling the reader on one frame. Higher than
    /// the chess decoder's (6): here every string of the grammar competes, not a few
    /// legal moves, and with a low floor any blank frame could hide a mark or letter.
    pub read_floor: f32,
    /// Moves this many nats below the best are not searched for.
    pub margin: f32,
    /// Most prefixes expanded per cell.
    pub max_expansions: usize,
    /// A cell whose confidence is below this is flagged for review.
    pub review_below: f32,
    /// A cell whose best move scores more than this many nats below the reader's best
    /// path (the cell shows something the notation does not allow) is flagged.
    pub fit_gate: f32,
    /// Runner-up readings kept per cell.
    pub alternatives: usize,
}

impl Default for DasParams {
    fn default() -> Self {
        DasParams {
            read_floor: 9.0,
            margin: 5.0,
            max_expansions: 4000,
            review_below: 0.8,
            fit_gate: 4.0,
            alternatives: 3,
        }
    }
}

/// What one cell says.
#[derive(Clone, Debug, PartialEq)]
pub struct DasReading {
    /// The best valid Das move, canonical (`dxe6 e.p.`); `None` for a blank cell.
    pub text: Option<String>,
    /// Its share of the probability of every reading found (blank included), in [0, 1].
    pub confidence: f32,
    /// Its log-probability relative to the reader's best path (0: read cleanly; see
    /// [`super::CellScorer`] for the scale).
    pub fit: f32,
    /// Runner-up readings (`""` = blank) with their confidences, best first.
    pub alternatives: Vec<(String, f32)>,
    /// False when the expansion budget ran out before the search was exact.
    pub exact: bool,
    /// Prefixes expanded.
    pub expansions: usize,
}

/// One cell of a Das record.
#[derive(Clone, Debug, PartialEq)]
pub struct DasEntry {
    /// Sheet cell index (0 = 1. White, 1 = 1. Black, ...).
    pub cell: usize,
    /// Index of the move in the record (blank cells inside it do not count).
    pub ply: Option<usize>,
    /// `Read`, `Locked` (set by a human) or `Skipped` (blank cell inside the record).
    pub kind: EntryKind,
    /// The move as the cell most likely says it; `None` for a blank cell.
    pub text: Option<String>,
    pub confidence: f32,
    pub review: bool,
    pub fit: f32,
    pub alternatives: Vec<(String, f32)>,
}

/// A Das sheet read cell by cell.
#[derive(Clone, Debug, PartialEq)]
pub struct DasSheet {
    /// One entry per cell up to the last non-blank one.
    pub entries: Vec<DasEntry>,
    /// Cells up to the end of the record (the trailing blank cells excluded).
    pub cells_used: usize,
}

impl DasSheet {
    /// The moves of the record, as read.
    pub fn moves(&self) -> Vec<&str> {
        self.entries
            .iter()
            .filter_map(|e| e.text.as_deref())
            .collect()
    }
}

/// Reads Das cells with a fixed alphabet and parameters.
pub struct DasDecoder {
    alphabet: Alphabet,
    params: DasParams,
    /// Per automaton state: (glyph class, next state), for the glyphs the alphabet has.
    edges: Vec<Vec<(u16, u32)>>,
    accepting: Vec<bool>,
    /// Per automaton state: most glyphs a move may still add.
    remaining: Vec<usize>,
}

impl DasDecoder {
    /// The glyphs of a node's prefix.
    fn glyphs_of(&self, nodes: &[Node], mut id: u32) -> String {
        let mut glyphs = Vec::new();
        while id != 0 {
            let n = &nodes[id as usize];
            glyphs.extend(self.alphabet.symbol(n.class as usize));
            id = n.parent;
        }
        glyphs.into_iter().rev().collect()
    }
}

/// Per automaton state: the most glyphs a move may still add after it (the grammar's
/// language is finite, so its automaton has no cycles).
fn longest_tails(edges: &[Vec<(u16, u32)>]) -> Vec<usize> {
    fn visit(s: usize, edges: &[Vec<(u16, u32)>], memo: &mut [Option<usize>]) -> usize {
        if let Some(n) = memo[s] {
            return n;
        }
        let n = edges[s]
            .iter()
            .map(|&(_, next)| 1 + visit(next as usize, edges, memo))
            .max()
            .unwrap_or(0);
        memo[s] = Some(n);
        n
    }
    let mut memo = vec![None; edges.len()];
    (0..edges.len())
        .map(|s| visit(s, edges, &mut memo))
        .collect()
}

/// One copy's frames of a cell: emissions floored and normalised per frame
/// (class-major, `y[c * steps + t]`), the most frames `t..T` can give a text of at most
/// `k` glyphs (`tail[k * (steps + 1) + t]`), and the best path's negative log-probability.
struct CopyFrames {
    steps: usize,
    y: Vec<f64>,
    tail: Vec<f64>,
    best_path: f64,
}

impl CopyFrames {
    fn emit(&self, c: usize) -> &[f64] {
        &self.y[c * self.steps..(c + 1) * self.steps]
    }
}

/// A search node: a grammar prefix.
struct Node {
    parent: u32,
    class: u16,
    state: u32,
}

/// A heap entry: a prefix's probability bound.
struct Open(f64, u32);

impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Open {}
impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .total_cmp(&other.0)
            .then_with(|| other.1.cmp(&self.1))
    }
}

impl DasDecoder {
    pub fn new(alphabet: &Alphabet, params: DasParams) -> DasDecoder {
        let dfa = DasAutomaton::get();
        let edges: Vec<Vec<(u16, u32)>> = (0..dfa.len() as u32)
            .map(|s| {
                dfa.edges(s)
                    .iter()
                    .filter_map(|&(c, next)| Some((alphabet.class_of(c)? as u16, next)))
                    .collect()
            })
            .collect();
        let accepting = (0..dfa.len() as u32).map(|s| dfa.is_accepting(s)).collect();
        let remaining = longest_tails(&edges);
        DasDecoder {
            alphabet: alphabet.clone(),
            params,
            edges,
            accepting,
            remaining,
        }
    }

    #[cfg(any(test, feature = "internals"))]
    pub fn params(&self) -> &DasParams {
        &self.params
    }

    /// Reads one cell: the best valid Das move, or blank.
    #[cfg(any(test, feature = "internals"))]
    pub fn read_cell(&self, cell: &CellScores) -> DasReading {
        self.read_cell_copies(&[cell])
    }

    /// Per frame, a copy's emissions floored and normalised (see [`CopyFrames`]).
    fn frames(&self, cell: &CellScores) -> CopyFrames {
        let (steps, classes, blank) = (cell.steps, cell.classes, self.alphabet.blank());
        let t1 = steps + 1;
        // Class-major emissions `y[c * steps + t]`: floored relative to the frame's best
        // class, then scaled so that each frame sums to 1.
        let floor = f64::from(-self.params.read_floor).exp();
        let mut y = vec![0.0f64; classes * steps];
        let mut best_path = 0.0f64;
        for t in 0..steps {
            let row = cell.row(t);
            let max = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
            let mut sum = 0.0;
            for (c, &v) in row.iter().enumerate() {
                let e = f64::from(v - max).exp().max(floor);
                y[c * steps + t] = e;
                sum += e;
            }
            for c in 0..classes {
                y[c * steps + t] /= sum;
            }
            best_path -= sum.ln();
        }
        // `tail[k * t1 + t]`: the most that frames `t..T` can give a single text with at
        // most `k` distinct glyphs: per frame, the blank plus the `k` best glyphs.
        let max_k = self.remaining[DasAutomaton::START as usize] + 1;
        let mut tail = vec![1.0f64; (max_k + 1) * t1];
        let mut glyphs: Vec<f64> = Vec::with_capacity(classes);
        for t in (0..steps).rev() {
            glyphs.clear();
            glyphs.extend(
                (0..classes)
                    .filter(|&c| c != blank)
                    .map(|c| y[c * steps + t]),
            );
            glyphs.sort_unstable_by(|a, b| b.total_cmp(a));
            let mut sum = y[blank * steps + t];
            for k in 0..=max_k {
                tail[k * t1 + t] = (tail[k * t1 + t + 1] * sum).min(1.0);
                sum += glyphs.get(k).copied().unwrap_or(0.0);
            }
        }
        CopyFrames {
            steps,
            y,
            tail,
            best_path,
        }
    }

    /// Reads one cell written on several copies of a game (both players' sheets): the
    /// best valid Das move by the product of its probabilities on every copy, or blank.
    pub fn read_cell_copies(&self, cells: &[&CellScores]) -> DasReading {
        let blank = self.alphabet.blank();
        let copies: Vec<CopyFrames> = cells.iter().map(|c| self.frames(c)).collect();
        let best_path: f64 = copies.iter().map(|c| c.best_path).sum();
        // Each node's alpha: per copy, `a_char[0..=T]` then `a_blank[0..=T]` (index t =
        // after t frames), the copies one after another.
        let offsets: Vec<usize> = copies
            .iter()
            .scan(0, |at, c| {
                let o = *at;
                *at += 2 * (c.steps + 1);
                Some(o)
            })
            .collect();
        let stride: usize = copies.iter().map(|c| 2 * (c.steps + 1)).sum();

        let mut nodes = vec![Node {
            parent: u32::MAX,
            class: u16::MAX,
            state: DasAutomaton::START,
        }];
        let mut alpha = vec![0.0f64; stride];
        let mut p_empty = 1.0f64;
        for (c, &o) in copies.iter().zip(&offsets) {
            let (steps, t1) = (c.steps, c.steps + 1);
            let blank_y = c.emit(blank);
            alpha[o + t1] = 1.0;
            for t in 0..steps {
                alpha[o + t1 + t + 1] = alpha[o + t1 + t] * blank_y[t];
            }
            p_empty *= alpha[o + 2 * t1 - 1];
        }
        let mut found: Vec<(u32, f64)> = vec![(0, p_empty)];
        let mut best = p_empty;
        let keep = f64::from(-self.params.margin).exp();
        let mut open = BinaryHeap::from([Open(1.0, 0)]);
        let (mut expansions, mut exact) = (0usize, true);
        while let Some(Open(bound, id)) = open.pop() {
            if bound < best * keep {
                break;
            }
            if expansions == self.params.max_expansions {
                exact = false;
                break;
            }
            expansions += 1;
            let parent = &nodes[id as usize];
            let parent_class = parent.class;
            for &(class, next) in &self.edges[parent.state as usize] {
                let repeat = parent_class == class;
                let start = alpha.len();
                alpha.resize(start + stride, 0.0);
                let (before, mine) = alpha.split_at_mut(start);
                let parent_alpha = &before[id as usize * stride..(id as usize + 1) * stride];
                // `bound`: the most any one move through this prefix can score. Each
                // path is counted at the frame `t` where the prefix's last glyph starts;
                // the frames after it hold that glyph, the blank and the glyphs still
                // to come.
                let k = self.remaining[next as usize] + 1;
                let mut bound = 1.0f64;
                let mut p = 1.0f64;
                for (c, &o) in copies.iter().zip(&offsets) {
                    let (steps, t1) = (c.steps, c.steps + 1);
                    let (ys, blank_y) = (c.emit(class as usize), c.emit(blank));
                    let (p_char, p_blank) =
                        (&parent_alpha[o..o + t1], &parent_alpha[o + t1..o + 2 * t1]);
                    let (a_char, a_blank) = mine[o..o + 2 * t1].split_at_mut(t1);
                    let after = &c.tail[k * t1 + 1..(k + 1) * t1];
                    let mut copy_bound = 0.0f64;
                    for t in 0..steps {
                        let from_parent = p_blank[t] + if repeat { 0.0 } else { p_char[t] };
                        let e = from_parent * ys[t];
                        copy_bound += e * after[t];
                        a_char[t + 1] = a_char[t] * ys[t] + e;
                        a_blank[t + 1] = (a_blank[t] + a_char[t]) * blank_y[t];
                    }
                    bound *= copy_bound;
                    p *= a_char[steps] + a_blank[steps];
                }
                if bound < best * keep {
                    alpha.truncate(start);
                    continue;
                }
                let child = nodes.len() as u32;
                nodes.push(Node {
                    parent: id,
                    class,
                    state: next,
                });
                if self.accepting[next as usize] {
                    found.push((child, p));
                    best = best.max(p);
                }
                if !self.edges[next as usize].is_empty() {
                    open.push(Open(bound, child));
                }
            }
        }

        self.reading(&nodes, found, best_path, exact, expansions)
    }

    /// The reading of a cell from the search's accepted nodes (`found`: node and
    /// probability, node 0 for blank): the likeliest as the text, its share of all of
    /// them as the confidence, the next ones as alternatives.
    fn reading(
        &self,
        nodes: &[Node],
        mut found: Vec<(u32, f64)>,
        best_path: f64,
        exact: bool,
        expansions: usize,
    ) -> DasReading {
        found.sort_by(|a, b| b.1.total_cmp(&a.1));
        let total: f64 = found.iter().map(|f| f.1).sum();
        let share = |p: f64| if total > 0.0 { (p / total) as f32 } else { 0.0 };
        let shown = |id: u32| {
            let glyphs = self.glyphs_of(nodes, id);
            parse_das_move(&glyphs).map_or(glyphs, |m| m.to_string())
        };
        let (top, top_p) = found[0];
        DasReading {
            text: (top != 0).then(|| shown(top)),
            confidence: share(top_p),
            fit: (top_p.max(f64::MIN_POSITIVE).ln() - best_path) as f32,
            alternatives: found[1..]
                .iter()
                .take(self.params.alternatives)
                .map(|&(id, p)| (shown(id), share(p)))
                .collect(),
            exact,
            expansions,
        }
    }

    /// Whether a reading needs a human.
    fn needs_review(&self, r: &DasReading) -> bool {
        r.confidence < self.params.review_below || r.fit < -self.params.fit_gate || !r.exact
    }

    /// Reads a sheet: one [`CellScores`] per cell in sheet order. `locked` holds cells
    /// a human fixed (cell index -> move text); a locked text that is not a Das move
    /// is ignored.
    #[cfg(any(test, feature = "internals"))]
    pub fn read_sheet(&self, cells: &[CellScores], locked: &BTreeMap<usize, String>) -> DasSheet {
        self.read_copies(&[cells], locked)
    }

    /// Reads a game from several copies of its sheet (both players'): each cell from
    /// every copy that holds it (see [`DasDecoder::read_cell_copies`]); `locked` as
    /// [`DasDecoder::read_sheet`] takes it.
    pub fn read_copies(
        &self,
        copies: &[&[CellScores]],
        locked: &BTreeMap<usize, String>,
    ) -> DasSheet {
        let n = copies.iter().map(|c| c.len()).max().unwrap_or(0);
        let readings: Vec<(DasReading, bool)> = (0..n)
            .map(|i| match locked.get(&i).map(|t| parse_das_move(t)) {
                Some(Ok(m)) => (
                    DasReading {
                        text: Some(m.to_string()),
                        confidence: 1.0,
                        fit: 0.0,
                        alternatives: Vec::new(),
                        exact: true,
                        expansions: 0,
                    },
                    true,
                ),
                _ => {
                    // A copy whose cell reads as nothing (a move the player did not
                    // write down) does not outvote the copies that show one.
                    let cells: Vec<&CellScores> = copies.iter().filter_map(|c| c.get(i)).collect();
                    let shown: Vec<&CellScores> = cells
                        .iter()
                        .copied()
                        .filter(|c| !self.alphabet.greedy(c).is_empty())
                        .collect();
                    let cells = if shown.is_empty() { cells } else { shown };
                    (self.read_cell_copies(&cells), false)
                }
            })
            .collect();
        let cells_used = readings
            .iter()
            .rposition(|(r, _)| r.text.is_some())
            .map_or(0, |i| i + 1);
        let mut entries = Vec::with_capacity(cells_used);
        let mut plies = 0;
        for (cell, (r, is_locked)) in readings.into_iter().take(cells_used).enumerate() {
            let ply = r.text.is_some().then(|| {
                plies += 1;
                plies - 1
            });
            let (kind, review) = match (&r.text, is_locked) {
                (_, true) => (EntryKind::Locked, false),
                (None, _) => (EntryKind::Skipped, true),
                (Some(_), _) => (EntryKind::Read, self.needs_review(&r)),
            };
            entries.push(DasEntry {
                cell,
                ply,
                kind,
                text: r.text,
                confidence: r.confidence,
                review,
                fit: r.fit,
                alternatives: r.alternatives,
            });
        }
        DasSheet {
            entries,
            cells_used,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::CellScorer;
    use super::super::Trie;
    use super::super::simulate::{Mistakes, NoiseModel, Simulator, model_alphabet};
    use super::*;
    use crate::glyph::canonical_str;
    use crate::notation::Rng;
    use crate::notation::das::sample_das_move;

    fn setup() -> (Alphabet, Simulator, DasDecoder) {
        let abc = model_alphabet();
        let sim = Simulator::new(&abc, NoiseModel::default(), Mistakes::none());
        let dec = DasDecoder::new(&abc, DasParams::default());
        (abc, sim, dec)
    }

    #[test]
    fn clean_cells_read_back_exactly() {
        let (abc, _, dec) = setup();
        let clean = Simulator::new(
            &abc,
            NoiseModel {
                confusion: 0.0,
                drop_mark: 0.0,
                ..NoiseModel::default()
            },
            Mistakes::none(),
        );
        let mut rng = Rng::new(3);
        for text in [
            "f10EH",
            "dxe6 e.p.",
            "Rg10+!",
            "KT",
            "Nxe5P",
            "TAe5",
            "Hl1e2",
            "j10",
        ] {
            let r = dec.read_cell(&clean.cell(text, &mut rng));
            let want = parse_das_move(text).unwrap().to_string();
            assert_eq!(r.text.as_deref(), Some(want.as_str()), "{text}: {r:?}");
            assert!(r.exact && r.confidence > 0.5, "{text}: {r:?}");
        }
        let r = dec.read_cell(&clean.cell("", &mut rng));
        assert_eq!(r.text, None, "{r:?}");
    }

    /// The grammar overrules a reading that is not a Das move: `k5` cannot be, the
    /// cell's `k` frames are a weak `h` as well, so the move is `h5`.
    #[test]
    fn invalid_reading_becomes_the_nearest_valid_move() {
        let abc = model_alphabet();
        let dec = DasDecoder::new(&abc, DasParams::default());
        let (steps, classes) = (8, abc.len());
        let mut logp = vec![(1e-4f32).ln(); steps * classes];
        let mut set = |t: usize, probs: &[(char, f32)]| {
            let rest = 1.0 - probs.iter().map(|p| p.1).sum::<f32>();
            logp[t * classes] = rest.ln();
            for &(c, p) in probs {
                logp[t * classes + abc.class_of(c).unwrap()] = p.ln();
            }
        };
        // `N` `j` `1` `1` between blank frames: greedy reads `Nj11`; the second `1`
        // is a weak `0`.
        for t in 0..steps {
            set(t, &[]);
        }
        set(1, &[('N', 0.9)]);
        set(3, &[('j', 0.9)]);
        set(4, &[('1', 0.9)]);
        set(6, &[('1', 0.6), ('0', 0.3)]);
        let cell = CellScores::new(steps, classes, logp);
        assert_eq!(abc.greedy(&cell), "Nj11");
        let r = dec.read_cell(&cell);
        assert_eq!(r.text.as_deref(), Some("Nj10"), "{r:?}");
        assert!(r.exact);
    }

    /// The search is exact: its score of the best move is the CTC forward score, and no
    /// valid string one edit away from the truth scores higher.
    #[test]
    fn search_finds_the_best_scoring_valid_string() {
        let (abc, sim, dec) = setup();
        let glyphs: Vec<char> = "abcdefghijlrx0123456789BRSQHKNACVEMDTPF+#!?="
            .chars()
            .collect();
        let dfa = DasAutomaton::get();
        let mut rng = Rng::new(11);
        for _ in 0..60 {
            let truth = sample_das_move(&mut rng);
            let cell = sim.cell(&truth, &mut rng);
            let r = dec.read_cell(&cell);
            assert!(r.exact);
            let scorer = CellScorer::new(&cell, &abc, dec.params().read_floor);
            let mut trie = Trie::default();
            trie.reset(&scorer);
            let best = r.text.clone().unwrap_or_default();
            let best_score = scorer.score_text(&mut trie, &best, &abc);
            assert!(
                (best_score - r.fit).abs() < 1e-2,
                "{best}: {best_score} vs {}",
                r.fit
            );
            let t: Vec<char> = truth.chars().collect();
            let mut rivals = vec![truth.clone()];
            for i in 0..=t.len() {
                for &g in &glyphs {
                    let mut s = t.clone();
                    s.insert(i, g);
                    rivals.push(s.iter().collect());
                    if i < t.len() {
                        let mut s = t.clone();
                        s[i] = g;
                        rivals.push(s.iter().collect());
                    }
                }
                if i < t.len() {
                    let mut s = t.clone();
                    s.remove(i);
                    rivals.push(s.iter().collect());
                }
            }
            for s in rivals.iter().filter(|s| dfa.accepts(s)) {
                let score = scorer.score_text(&mut trie, s, &abc);
                assert!(
                    score <= best_score + 1e-3,
                    "truth {truth}: `{s}` scores {score} > best `{best}` {best_score}"
                );
            }
        }
    }

    /// Per-cell accuracy on the fake reader (10% of glyphs confused, 2% of marks lost):
    /// the grammar-constrained reading beats the reader's own best path, its
    /// confidence is calibrated, and review flags catch most of its errors.
    #[test]
    fn fake_reader_accuracy() {
        let (abc, sim, dec) = setup();
        let mut rng = Rng::new(2013);
        let n = 1500;
        let (mut right, mut greedy_right, mut wrong_flagged, mut flagged) = (0, 0, 0, 0);
        let (mut confidence, mut expansions) = (0.0, 0);
        for _ in 0..n {
            let truth = canonical_str(&sample_das_move(&mut rng));
            let cell = sim.cell(&truth, &mut rng);
            let r = dec.read_cell(&cell);
            expansions += r.expansions;
            confidence += f64::from(r.confidence);
            let review = dec.needs_review(&r);
            flagged += usize::from(review);
            if r.text.as_deref().map(canonical_str).unwrap_or_default() == truth {
                right += 1;
            } else {
                wrong_flagged += usize::from(review);
            }
            greedy_right += usize::from(abc.greedy(&cell) == truth);
        }
        let share = |k: usize| k as f64 / n as f64;
        let (acc, greedy, wrong) = (share(right), share(greedy_right), n - right);
        eprintln!(
            "das fake reader: {acc:.3} of cells right (greedy {greedy:.3}), mean confidence \
             {:.3}, {flagged} flagged, {wrong_flagged} of {wrong} wrong ones flagged, \
             {:.1} expansions per cell",
            confidence / n as f64,
            expansions as f64 / n as f64
        );
        assert!(acc > greedy + 0.05, "{acc} vs greedy {greedy}");
        assert!(acc > 0.78, "{acc}");
        assert!((confidence / n as f64 - acc).abs() < 0.08, "calibration");
        assert!(
            wrong_flagged * 10 >= wrong * 6,
            "{wrong_flagged} of {wrong}"
        );
    }

    #[test]
    fn sheet_ends_at_trailing_blanks_and_flags_inner_blanks() {
        let (_, sim, dec) = setup();
        let mut rng = Rng::new(5);
        let texts = ["e5", "Vf4", "", "Ve2", "Vd5++", "", ""];
        let cells: Vec<CellScores> = texts.iter().map(|t| sim.cell(t, &mut rng)).collect();
        let locked = BTreeMap::from([(3, "Ve2".to_string()), (1, "not a move".to_string())]);
        let sheet = dec.read_sheet(&cells, &locked);
        assert_eq!(sheet.cells_used, 5);
        assert_eq!(sheet.entries.len(), 5);
        let inner = &sheet.entries[2];
        assert_eq!(
            (inner.kind, inner.ply, inner.review),
            (EntryKind::Skipped, None, true)
        );
        assert_eq!(sheet.entries[3].kind, EntryKind::Locked);
        assert_eq!(sheet.entries[4].ply, Some(3));
        assert_eq!(sheet.entries[1].kind, EntryKind::Read);
        assert_eq!(sheet.moves().len(), 4);
    }
}
