//! Writer adaptation: a hand's own glyph confusions, learnt from the sheet itself.
//!
//! One writer's `4` may read as `1` all down the sheet, or their `S` as `B`. After a
//! first decode, every cell whose move a written form explains pairs the reader's
//! greedy reading with that form; aligning the two glyph by glyph counts, for each
//! glyph class the reader outputs, what this writer meant by it (each cell weighted
//! by the first decode's share of its move, uncalibrated). A confusion seen at least
//! [`Adaptation::min_count`] times on the sheet moves that share of the reader's
//! probability from the class read to the class meant, frame by frame, and the sheet
//! is decoded again in the notation found first. The counts are shrunk toward "the
//! reader is right" by [`Adaptation::prior`] pseudo-readings per class, so that one or
//! two odd cells change little.

use crate::vocab::{Alphabet, CellScores};

use super::{DecodedSheet, EntryKind};

/// Settings of the writer adaptation ([`super::DecodeParams::adapt`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adaptation {
    /// Pseudo-count of "the glyph read is the glyph meant" per class.
    pub prior: f32,
    /// A confusion counts only when seen this many times on the sheet (each cell
    /// counted by the first decode's share of its move, uncalibrated). Chosen on HCS
    /// training pages and train-font sheets, against three (`docs/measurements.md`).
    pub min_count: f32,
}

impl Default for Adaptation {
    fn default() -> Self {
        Adaptation {
            prior: 2.0,
            min_count: 2.0,
        }
    }
}

/// A sheet's confusions: for each class read, the classes meant with their shares.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Confusions {
    /// (class read, [(class meant, share)]) where the shares of the other classes sum
    /// to less than 1 (the rest stays with the class read).
    pub moves: Vec<(usize, Vec<(usize, f32)>)>,
}

impl Confusions {
    /// Nothing to adapt.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// Learns the confusions of one copy of a sheet from its first decode: `cells[i]`
    /// is the reading of sheet cell `i` in this copy.
    pub fn learn(
        sheet: &DecodedSheet,
        cells: &[&CellScores],
        alphabet: &Alphabet,
        settings: &Adaptation,
    ) -> Confusions {
        let n = alphabet.len();
        let mut counts = vec![0f32; n * n];
        let mut read_total = vec![0f32; n];
        for e in &sheet.entries {
            let (Some(cell), Some(written), EntryKind::Read) = (e.cell, &e.best_form, e.kind)
            else {
                continue;
            };
            let Some(scores) = cells.get(cell) else {
                continue;
            };
            let (Some(meant), Some(read)) = (
                alphabet.encode(written),
                alphabet.encode(&alphabet.greedy(scores)),
            ) else {
                continue;
            };
            for (r, m) in substitutions(&read, &meant) {
                counts[r * n + m] += e.share;
                read_total[r] += e.share;
            }
        }
        let mut moves = Vec::new();
        for r in 0..n {
            let total = read_total[r] + settings.prior;
            let to: Vec<(usize, f32)> = (0..n)
                .filter(|&m| m != r && counts[r * n + m] >= settings.min_count)
                .map(|m| (m, counts[r * n + m] / total))
                .collect();
            if !to.is_empty() {
                moves.push((r, to));
            }
        }
        Confusions { moves }
    }

    /// The reading of a cell with this writer's confusions undone: at every frame,
    /// each confused class hands the learnt shares of its probability to the classes
    /// meant.
    pub fn apply(&self, scores: &CellScores) -> CellScores {
        let mut logp = scores.logp.clone();
        let c = scores.classes;
        let mut p = vec![0.0f32; c];
        let mut before = vec![0.0f32; c];
        for row in logp.chunks_mut(c) {
            for (q, &l) in before.iter_mut().zip(row.iter()) {
                *q = l.exp();
            }
            p.copy_from_slice(&before);
            for (r, to) in &self.moves {
                let Some(&pr) = before.get(*r) else { continue };
                for &(m, share) in to {
                    if m < c {
                        p[*r] -= pr * share;
                        p[m] += pr * share;
                    }
                }
            }
            for (l, &q) in row.iter_mut().zip(&p) {
                *l = q.max(1e-30).ln();
            }
        }
        CellScores::new(scores.steps, c, logp)
    }
}

/// Pairs (glyph read, glyph meant) of an alignment of two glyph strings with the
/// fewest edits: matches and substitutions (insertions and deletions say nothing of
/// what a glyph meant).
fn substitutions(read: &[usize], meant: &[usize]) -> Vec<(usize, usize)> {
    let (a, b) = (read.len(), meant.len());
    let w = b + 1;
    let mut d = vec![0u32; (a + 1) * w];
    for i in 0..=a {
        d[i * w] = i as u32;
    }
    for (j, first_row) in d.iter_mut().take(w).enumerate() {
        *first_row = j as u32;
    }
    for i in 1..=a {
        for j in 1..=b {
            let sub = d[(i - 1) * w + j - 1] + u32::from(read[i - 1] != meant[j - 1]);
            d[i * w + j] = sub.min(d[(i - 1) * w + j] + 1).min(d[i * w + j - 1] + 1);
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (a, b);
    while i > 0 && j > 0 {
        let here = d[i * w + j];
        if here == d[(i - 1) * w + j - 1] + u32::from(read[i - 1] != meant[j - 1]) {
            out.push((read[i - 1], meant[j - 1]));
            i -= 1;
            j -= 1;
        } else if here == d[(i - 1) * w + j] + 1 {
            i -= 1;
        } else {
            j -= 1;
        }
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_pairs_substituted_and_matched_glyphs() {
        // "g1" read for "g4"; "Nd2" read for "Nbd2" (a glyph missed: no pair for it).
        assert_eq!(substitutions(&[1, 2], &[1, 3]), vec![(1, 1), (2, 3)]);
        assert_eq!(
            substitutions(&[5, 6, 7], &[5, 9, 6, 7]),
            vec![(5, 5), (6, 6), (7, 7)]
        );
        assert!(substitutions(&[], &[1]).is_empty());
    }

    #[test]
    fn a_confusion_moves_its_share_of_probability() {
        let conf = Confusions {
            moves: vec![(1, vec![(2, 0.5)])],
        };
        // One frame: class 1 at 0.9, class 2 at 0.05, blank (0) at 0.05.
        let s = CellScores::new(1, 3, vec![0.05f32.ln(), 0.9f32.ln(), 0.05f32.ln()]);
        let out = conf.apply(&s);
        let p: Vec<f32> = out.logp.iter().map(|l| l.exp()).collect();
        assert!(
            (p[1] - 0.45).abs() < 1e-5 && (p[2] - 0.5).abs() < 1e-5,
            "{p:?}"
        );
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}
