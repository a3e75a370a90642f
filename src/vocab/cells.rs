//! The reader's output as every stage sees it: per-cell CTC log-probabilities
//! ([`CellScores`]) over the model's glyph classes ([`Alphabet`]).

use std::collections::HashMap;

/// CTC log-probabilities for one cell.
///
/// `logp` is row-major `[steps][classes]`, natural-log probabilities (each row
/// log-sum-exps to 0); class indices follow the model's [`Alphabet`], blank included.
#[derive(Clone, Debug, PartialEq)]
pub struct CellScores {
    pub steps: usize,
    pub classes: usize,
    pub logp: Vec<f32>,
}

impl CellScores {
    /// A certainly blank cell: every step is the blank class (the others at e^-30).
    pub fn blank(steps: usize, alphabet: &Alphabet) -> Self {
        let classes = alphabet.len();
        let mut logp = vec![-30.0; steps * classes];
        for t in 0..steps {
            logp[t * classes + alphabet.blank()] = 0.0;
        }
        CellScores::new(steps, classes, logp)
    }

    /// Wraps a row-major `[steps][classes]` matrix of log-probabilities.
    ///
    /// # Panics
    /// If `logp.len() != steps * classes`.
    pub fn new(steps: usize, classes: usize, logp: Vec<f32>) -> Self {
        assert_eq!(logp.len(), steps * classes, "CellScores shape mismatch");
        CellScores {
            steps,
            classes,
            logp,
        }
    }

    /// Log-probabilities of time step `t`, one per class.
    pub fn row(&self, t: usize) -> &[f32] {
        &self.logp[t * self.classes..(t + 1) * self.classes]
    }

    /// Log-probability of the most likely CTC path (the greedy reading's path).
    pub fn best_path_logp(&self) -> f32 {
        self.logp
            .chunks(self.classes)
            .map(|row| row.iter().copied().fold(f32::NEG_INFINITY, f32::max))
            .sum()
    }

    /// The mean of several readings' probabilities, step by step and class by class
    /// (an ensemble of views of one cell), as log-probabilities.
    ///
    /// # Panics
    /// If `readings` is empty or their shapes differ.
    pub fn mean(readings: &[&CellScores]) -> CellScores {
        let first = readings.first().expect("at least one reading");
        assert!(
            readings
                .iter()
                .all(|r| (r.steps, r.classes) == (first.steps, first.classes)),
            "CellScores shape mismatch"
        );
        let ln_n = (readings.len() as f32).ln();
        let logp = (0..first.logp.len())
            .map(|i| {
                let max = readings
                    .iter()
                    .map(|r| r.logp[i])
                    .fold(f32::NEG_INFINITY, f32::max);
                let sum: f32 = readings.iter().map(|r| (r.logp[i] - max).exp()).sum();
                max + sum.ln() - ln_n
            })
            .collect();
        CellScores::new(first.steps, first.classes, logp)
    }
}

/// The model's output classes: one glyph per class plus the CTC blank.
///
/// Glyphs are canonical (see [`crate::glyph`]): text is passed through
/// [`crate::glyph::canonical`] before it is looked up.
#[derive(Clone, Debug)]
pub struct Alphabet {
    symbols: Vec<char>,
    blank: usize,
    index: HashMap<char, usize>,
}

impl Alphabet {
    /// Builds an alphabet from its glyphs in class order; `blank` is the index of the
    /// blank class, whose entry in `symbols` is ignored.
    pub fn new(symbols: Vec<char>, blank: usize) -> Self {
        let index = symbols
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != blank)
            .map(|(i, &c)| (c, i))
            .collect();
        Alphabet {
            symbols,
            blank,
            index,
        }
    }

    /// Number of classes, blank included.
    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    /// Always false for a usable model (an alphabet holds at least the blank).
    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }

    /// Index of the CTC blank class.
    pub fn blank(&self) -> usize {
        self.blank
    }

    /// The glyph of class `i` (`None` for the blank or an index out of range).
    pub fn symbol(&self, i: usize) -> Option<char> {
        if i == self.blank {
            None
        } else {
            self.symbols.get(i).copied()
        }
    }

    /// Class index of a character after glyph canonicalisation.
    pub fn class_of(&self, c: char) -> Option<usize> {
        self.index.get(&crate::glyph::canonical(c)).copied()
    }

    /// Encodes text as class indices (spaces dropped, look-alikes canonicalised);
    /// `None` if some glyph is not in the alphabet.
    pub fn encode(&self, text: &str) -> Option<Vec<usize>> {
        text.chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| self.class_of(c))
            .collect()
    }

    /// Best-path (greedy) CTC decoding: argmax per step, repeats merged, blanks dropped.
    pub fn greedy(&self, scores: &CellScores) -> String {
        let mut out = String::new();
        let mut prev = usize::MAX;
        for t in 0..scores.steps {
            let row = scores.row(t);
            let best = row
                .iter()
                .enumerate()
                .fold(
                    (0, f32::NEG_INFINITY),
                    |acc, (i, &v)| if v > acc.1 { (i, v) } else { acc },
                )
                .0;
            if best != prev
                && best != self.blank
                && let Some(c) = self.symbol(best)
            {
                out.push(c);
            }
            prev = best;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_merges_repeats_and_drops_blanks() {
        let abc = Alphabet::new(vec!['_', 'e', '4'], 0);
        // steps: e e _ 4 4 -> "e4"
        let hot = |c: usize| {
            let mut r = vec![-10.0f32; 3];
            r[c] = 0.0;
            r
        };
        let logp = [1, 1, 0, 2, 2].iter().flat_map(|&c| hot(c)).collect();
        let scores = CellScores::new(5, 3, logp);
        assert_eq!(abc.greedy(&scores), "e4");
    }

    #[test]
    fn blank_scores_are_log_probabilities_that_read_as_nothing() {
        let abc = Alphabet::new(vec!['e', '_', '4'], 1);
        let scores = CellScores::blank(4, &abc);
        assert_eq!((scores.steps, scores.classes), (4, 3));
        for t in 0..4 {
            let total: f32 = scores.row(t).iter().map(|l| l.exp()).sum();
            assert!((total - 1.0).abs() < 1e-6, "row {t} sums to {total}");
            assert_eq!(scores.row(t)[1], 0.0);
        }
        assert_eq!(abc.greedy(&scores), "");
    }

    #[test]
    fn the_mean_of_readings_averages_probabilities_not_logs() {
        let ln = |p: [f32; 2]| p.iter().map(|v| v.ln()).collect::<Vec<_>>();
        let a = CellScores::new(1, 2, ln([0.9, 0.1]));
        let b = CellScores::new(1, 2, ln([0.1, 0.9]));
        let c = CellScores::new(1, 2, ln([0.5, 0.5]));
        let m = CellScores::mean(&[&a, &b, &c]);
        for (got, want) in m.row(0).iter().zip([0.5f32, 0.5]) {
            assert!((got.exp() - want).abs() < 1e-6, "{got}");
        }
        // A class one reading rules out keeps the others' mass; no -inf.
        let sure = CellScores::new(1, 2, vec![0.0, -1000.0]);
        let m = CellScores::mean(&[&sure, &b]);
        assert!((m.row(0)[0].exp() - 0.55).abs() < 1e-6);
        assert!((m.row(0)[1].exp() - 0.45).abs() < 1e-6);
        assert_eq!(CellScores::mean(&[&a]).logp, a.logp);
    }

    #[test]
    fn best_path_is_the_product_of_each_steps_best_class() {
        let ln = |p: [f32; 2]| p.iter().map(|v| v.ln()).collect::<Vec<_>>();
        let logp = [ln([0.8, 0.2]), ln([0.3, 0.7])].concat();
        let s = CellScores::new(2, 2, logp);
        assert!((s.best_path_logp().exp() - 0.56).abs() < 1e-6);
    }

    #[test]
    fn encode_canonicalises_look_alikes() {
        let abc = Alphabet::new(vec!['_', 'K', 'f', '3'], 0);
        assert_eq!(abc.encode("Кf3"), Some(vec![1, 2, 3]));
        assert_eq!(abc.encode("Qf3"), None);
    }
}
