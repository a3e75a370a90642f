//! Real games -> fake sheets for tests and benchmarks: a simulated player writes a
//! game's moves (with that player's habits and, at a stated rate, that player's own
//! mistakes), and a simulated reader turns each cell's ink into CTC log-probabilities
//! with look-alike confusions, lost marks and blank cells.
//!
//! Noise model of the reader ([`NoiseModel`]), per cell of `steps` frames:
//! - each glyph of the written text is, with probability `confusion`, read as a
//!   look-alike (g/9, e/c, 1/7, B/8, R/K, `Кр` read as `К`, ...): the look-alike wins
//!   its frames at 50-90%; in a share `soft` of those confusions the true glyph keeps
//!   20-80% of the remaining mass (the reader's second choice), in the others only the
//!   floor;
//! - each mark glyph (`x : - + # = .`) is lost with probability `drop_mark`;
//! - each kept glyph takes 1-3 frames at 55-97% probability, blanks take the gaps
//!   (85-99.5%), every class gets at least `floor` per frame.
//!
//! Mistakes of the player ([`Mistakes`]), each ply with probability `rate`, one of:
//! a wrong but plausible move (same piece or same destination), a skipped move, a
//! move written twice, a cell left blank with the moves shifted one cell on.

use shakmaty::{Chess, Move, Position, san::SanPlus};

use super::{DecodedSheet, EntryKind};
use crate::glyph::canonical_str;
use crate::notation::{Habits, Notation, Rng, write_move};
use crate::vocab::{Alphabet, CellScores};

/// The shipped model's glyphs in class order (index 0 is the CTC blank), for tests
/// and fakes; the real alphabet comes from the model manifest.
pub const MODEL_GLYPHS: &str = "abcdefghijlprx0123456789ABCDEFGHKLMNOPQRSTVWXФЛ:-=+#().!?";

/// [`MODEL_GLYPHS`] as an [`Alphabet`] with the blank at index 0.
pub fn model_alphabet() -> Alphabet {
    Alphabet::new(
        std::iter::once('_').chain(MODEL_GLYPHS.chars()).collect(),
        0,
    )
}

/// How the simulated reader errs.
#[derive(Clone, Debug, PartialEq)]
pub struct NoiseModel {
    /// Frames per cell.
    pub steps: usize,
    /// Probability that a glyph is read as a look-alike.
    pub confusion: f64,
    /// Share of confusions in which the true glyph keeps some probability.
    pub soft: f64,
    /// Probability that a mark glyph is lost.
    pub drop_mark: f64,
    /// Least probability of every class in every frame.
    pub floor: f64,
}

impl Default for NoiseModel {
    /// 10% of glyphs confused, four in five of them softly; 2% of marks lost.
    fn default() -> Self {
        NoiseModel {
            steps: 32,
            confusion: 0.10,
            soft: 0.8,
            drop_mark: 0.02,
            floor: 1e-4,
        }
    }
}

/// How often the simulated player errs.
#[derive(Clone, Debug, PartialEq)]
pub struct Mistakes {
    /// Probability per ply of one mistake.
    pub rate: f64,
    /// The kinds drawn from (uniformly).
    pub kinds: Vec<Mistake>,
}

impl Mistakes {
    /// No mistakes.
    pub fn none() -> Mistakes {
        Mistakes::at(0.0)
    }

    /// Mistakes of all four kinds at `rate` per ply.
    pub fn at(rate: f64) -> Mistakes {
        Mistakes {
            rate,
            kinds: Mistake::ALL.to_vec(),
        }
    }
}

/// A player's own recording error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mistake {
    /// The cell shows another plausible move than the one played.
    WrongMove,
    /// The move before this cell was not written.
    SkippedMove,
    /// This cell repeats the cell before it.
    Duplicate,
    /// This cell was left blank and the moves continue in the next one.
    ShiftedCell,
}

impl Mistake {
    pub const ALL: [Mistake; 4] = [
        Mistake::WrongMove,
        Mistake::SkippedMove,
        Mistake::Duplicate,
        Mistake::ShiftedCell,
    ];
}

/// The truth about one simulated cell.
#[derive(Clone, Debug, PartialEq)]
pub struct TrueCell {
    /// What the player wrote (display letters; empty for a blank cell).
    pub text: String,
    /// Index of the game ply this cell records.
    pub ply: Option<usize>,
    /// SAN of the move played at that ply.
    pub san: Option<String>,
    pub mistake: Option<Mistake>,
}

/// A simulated sheet and its truth.
#[derive(Clone, Debug)]
pub struct SimSheet {
    pub notation: Notation,
    pub habits: Habits,
    /// The game as played (the plies the sheet covers).
    pub moves: Vec<Move>,
    /// The reader's output, one per cell (trailing blank cells included).
    pub cells: Vec<CellScores>,
    pub truth: Vec<TrueCell>,
}

/// Writes games as sheets and reads them back as CTC scores.
pub struct Simulator {
    alphabet: Alphabet,
    pub noise: NoiseModel,
    pub mistakes: Mistakes,
}

const MARKS: &str = "x:-+#=.";

/// Look-alikes of a glyph, as a reader confuses them.
fn look_alikes(c: char) -> &'static str {
    match c {
        'g' => "9q",
        '9' => "g4",
        'e' => "c",
        'c' => "e(",
        '1' => "7l",
        '7' => "1",
        'l' => "1",
        'B' => "8R",
        '8' => "B3",
        'R' => "KB",
        'K' => "RH",
        'H' => "KN",
        'a' => "d",
        'd' => "a",
        'b' => "6h",
        '6' => "b",
        'h' => "b",
        '5' => "S6",
        'S' => "5",
        '0' => "O6",
        'O' => "0",
        '3' => "8",
        '4' => "9",
        'f' => "l",
        '2' => "7",
        'x' => "+",
        '+' => "x",
        'C' => "c",
        'Ф' => "9",
        'Л' => "N",
        'N' => "H",
        'Q' => "O",
        'D' => "0",
        'T' => "7",
        'L' => "1",
        'G' => "6",
        'W' => "N",
        ':' => ".",
        '-' => "=",
        '#' => "+",
        'p' => "r",
        _ => "",
    }
}

/// One glyph as the reader sees it: the class that wins its frames and, when it was
/// confused softly, the true class keeping some mass.
struct Seen {
    class: usize,
    confused: bool,
    soft_true: Option<usize>,
}

impl Simulator {
    pub fn new(alphabet: &Alphabet, noise: NoiseModel, mistakes: Mistakes) -> Simulator {
        Simulator {
            alphabet: alphabet.clone(),
            noise,
            mistakes,
        }
    }

    /// A confusable glyph for `c`, in the alphabet.
    fn confuse(&self, c: char, rng: &mut Rng) -> Option<usize> {
        let options: Vec<usize> = look_alikes(c)
            .chars()
            .filter_map(|l| self.alphabet.class_of(l))
            .collect();
        if options.is_empty() {
            let any: Vec<usize> = (0..self.alphabet.len())
                .filter(|&i| i != self.alphabet.blank())
                .collect();
            Some(*rng.pick(&any))
        } else {
            Some(*rng.pick(&options))
        }
    }

    /// The glyphs the reader sees for written `text`.
    fn see(&self, text: &str, rng: &mut Rng) -> Vec<Seen> {
        let glyphs: Vec<char> = canonical_str(text).chars().collect();
        let mut out = Vec::with_capacity(glyphs.len());
        let noise = &self.noise;
        for (i, &c) in glyphs.iter().enumerate() {
            let Some(class) = self.alphabet.class_of(c) else {
                continue;
            };
            if MARKS.contains(c) && rng.chance(noise.drop_mark) {
                continue;
            }
            // `Кр` read as `К`: the `р` vanishes.
            if c == 'p' && i > 0 && glyphs[i - 1] == 'K' && rng.chance(noise.confusion) {
                continue;
            }
            if rng.chance(noise.confusion) {
                let wrong = self.confuse(c, rng).unwrap_or(class);
                let soft_true = rng.chance(noise.soft).then_some(class);
                out.push(Seen {
                    class: wrong,
                    confused: true,
                    soft_true,
                });
            } else {
                out.push(Seen {
                    class,
                    confused: false,
                    soft_true: None,
                });
            }
        }
        out
    }

    /// The reader's CTC log-probabilities for a cell holding `text` (empty: blank).
    pub fn cell(&self, text: &str, rng: &mut Rng) -> CellScores {
        let seen = self.see(text, rng);
        let (steps, classes, blank) =
            (self.noise.steps, self.alphabet.len(), self.alphabet.blank());
        // Frame layout: (class or blank, soft true class) per frame.
        let mut frames_per: Vec<usize> = seen.iter().map(|_| 1 + rng.below(3)).collect();
        let mut gaps: Vec<usize> = (0..seen.len())
            .map(|i| {
                let repeat = i > 0 && seen[i - 1].class == seen[i].class;
                rng.below(3).max(usize::from(repeat))
            })
            .collect();
        let mut lead = rng.below(3);
        if lead + frames_per.iter().sum::<usize>() + gaps.iter().sum::<usize>() > steps {
            frames_per.iter_mut().for_each(|f| *f = 1);
            for (i, g) in gaps.iter_mut().enumerate() {
                *g = usize::from(i > 0 && seen[i - 1].class == seen[i].class);
            }
            lead = 0;
        }
        let mut layout: Vec<Option<&Seen>> = vec![None; lead];
        for (i, s) in seen.iter().enumerate() {
            layout.extend(std::iter::repeat_n(None, gaps[i]));
            layout.extend(std::iter::repeat_n(Some(s), frames_per[i]));
        }
        layout.truncate(steps);
        layout.resize(steps, None);

        let mut logp = Vec::with_capacity(steps * classes);
        for (t, frame) in layout.iter().enumerate() {
            let mut p = vec![self.noise.floor; classes];
            match frame {
                Some(s) => {
                    // A confused glyph is read less surely than a clean one.
                    let main = if s.confused {
                        0.5 + 0.4 * rng.unit()
                    } else {
                        0.55 + 0.42 * rng.unit()
                    };
                    p[s.class] += main;
                    let mut rest = 1.0 - main;
                    if let Some(t) = s.soft_true {
                        let share = (0.2 + 0.6 * rng.unit()) * rest;
                        p[t] += share;
                        rest -= share;
                    }
                    p[blank] += rest * 0.7;
                    let other = self.confuse_class(s.class, rng);
                    p[other] += rest * 0.3;
                }
                None => {
                    let main = 0.85 + 0.145 * rng.unit();
                    p[blank] += main;
                    // Ink of the neighbouring glyphs bleeds into the gap.
                    let near = layout[t.saturating_sub(1)..(t + 2).min(steps)]
                        .iter()
                        .flatten()
                        .next();
                    match near {
                        Some(s) => p[s.class] += 1.0 - main,
                        None => p[blank] += 1.0 - main,
                    }
                }
            }
            let z: f64 = p.iter().sum();
            logp.extend(p.iter().map(|v| (v / z).ln() as f32));
        }
        CellScores::new(steps, classes, logp)
    }

    fn confuse_class(&self, class: usize, rng: &mut Rng) -> usize {
        self.alphabet
            .symbol(class)
            .and_then(|c| self.confuse(c, rng))
            .unwrap_or(self.alphabet.blank())
    }

    /// Writes the first `plies` moves of a game as a player with `habits` would,
    /// mistakes included, then `trailing_blanks` blank cells, and reads every cell.
    pub fn sheet(
        &self,
        game: &[Move],
        plies: usize,
        habits: &Habits,
        trailing_blanks: usize,
        rng: &mut Rng,
    ) -> SimSheet {
        let moves: Vec<Move> = game.iter().copied().take(plies).collect();
        let mut truth: Vec<TrueCell> = Vec::new();
        let mut pos = Chess::default();
        let mut skipped_before = false;
        for (k, &m) in moves.iter().enumerate() {
            let san = SanPlus::from_move(pos.clone(), m).to_string();
            let mistake = (rng.chance(self.mistakes.rate) && !self.mistakes.kinds.is_empty())
                .then(|| *rng.pick(&self.mistakes.kinds));
            let own = |text: String, mistake: Option<Mistake>| TrueCell {
                text,
                ply: Some(k),
                san: Some(san.clone()),
                mistake,
            };
            let carried = skipped_before.then_some(Mistake::SkippedMove);
            skipped_before = false;
            match mistake {
                Some(Mistake::WrongMove) if pos.legal_moves().len() > 1 => {
                    let wrong = plausible_other(&pos, m, rng);
                    truth.push(own(
                        write_move(&pos, wrong, habits, rng),
                        Some(Mistake::WrongMove),
                    ));
                }
                Some(Mistake::SkippedMove) if k + 1 < moves.len() => skipped_before = true,
                Some(Mistake::Duplicate) => {
                    let text = write_move(&pos, m, habits, rng);
                    truth.push(own(text.clone(), carried));
                    truth.push(TrueCell {
                        text,
                        ply: None,
                        san: None,
                        mistake: Some(Mistake::Duplicate),
                    });
                }
                Some(Mistake::ShiftedCell) => {
                    truth.push(TrueCell {
                        text: String::new(),
                        ply: None,
                        san: None,
                        mistake: Some(Mistake::ShiftedCell),
                    });
                    truth.push(own(write_move(&pos, m, habits, rng), carried));
                }
                _ => truth.push(own(write_move(&pos, m, habits, rng), carried)),
            }
            pos.play_unchecked(m);
        }
        for _ in 0..trailing_blanks {
            truth.push(TrueCell {
                text: String::new(),
                ply: None,
                san: None,
                mistake: None,
            });
        }
        let cells = truth.iter().map(|c| self.cell(&c.text, rng)).collect();
        SimSheet {
            notation: habits.notation,
            habits: habits.clone(),
            moves,
            cells,
            truth,
        }
    }
}

/// Another legal move a player might write by mistake: the same piece kind or the same
/// destination when there is one, else any other move.
fn plausible_other(pos: &Chess, m: Move, rng: &mut Rng) -> Move {
    let others: Vec<Move> = pos.legal_moves().into_iter().filter(|o| *o != m).collect();
    let close: Vec<Move> = others
        .iter()
        .copied()
        .filter(|o| o.role() == m.role() || o.to() == m.to())
        .collect();
    if close.is_empty() {
        *rng.pick(&others)
    } else {
        *rng.pick(&close)
    }
}

/// How a decoded sheet compares with the truth.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SheetScore {
    /// Cells that record a ply as written (no wrong move, no duplicate, not blank).
    pub plies: usize,
    /// Of those, cells whose decoded move is the ply's move.
    pub plies_right: usize,
    /// Cells with a player's mistake (for a skipped move: the cell after it).
    pub spoiled: usize,
    /// Of those, flagged: the entry is up for review, or an assumed move precedes it.
    pub spoiled_flagged: usize,
    /// Entries flagged for review.
    pub flagged: usize,
}

impl SheetScore {
    /// Adds another sheet's counts.
    pub fn add(&mut self, other: &SheetScore) {
        self.plies += other.plies;
        self.plies_right += other.plies_right;
        self.spoiled += other.spoiled;
        self.spoiled_flagged += other.spoiled_flagged;
        self.flagged += other.flagged;
    }

    /// Share of correctly decoded plies.
    pub fn accuracy(&self) -> f64 {
        self.plies_right as f64 / self.plies.max(1) as f64
    }

    /// Share of spoiled cells flagged.
    pub fn flag_recall(&self) -> f64 {
        self.spoiled_flagged as f64 / self.spoiled.max(1) as f64
    }
}

/// Compares a decoded sheet with its simulated truth.
pub fn score(sheet: &SimSheet, decoded: &DecodedSheet) -> SheetScore {
    let mut s = SheetScore {
        flagged: decoded.entries.iter().filter(|e| e.review).count(),
        ..Default::default()
    };
    for (cell, t) in sheet.truth.iter().enumerate() {
        let idx = decoded.entries.iter().position(|e| e.cell == Some(cell));
        let entry = idx.map(|i| &decoded.entries[i]);
        let counts_as_ply = t.ply.is_some() && !matches!(t.mistake, Some(Mistake::WrongMove));
        if counts_as_ply {
            s.plies += 1;
            if entry.and_then(|e| e.san.as_ref()) == t.san.as_ref() {
                s.plies_right += 1;
            }
        }
        if let Some(mistake) = t.mistake {
            s.spoiled += 1;
            let flagged = entry.is_some_and(|e| e.review)
                || (mistake == Mistake::SkippedMove
                    && idx.is_some_and(|i| i > 0 && decoded.entries[i - 1].kind == EntryKind::Assumed))
                // A blank cell beyond the end of the decoded game is not a move either.
                || (mistake == Mistake::ShiftedCell && entry.is_none());
            if flagged {
                s.spoiled_flagged += 1;
            }
        }
    }
    s
}
