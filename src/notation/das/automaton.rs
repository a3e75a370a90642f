//! The Das move grammar -> a deterministic automaton over canonical glyphs: the
//! grammar written once as a small regular expression, compiled (Thompson NFA, then
//! subset construction) into the DFA the cell reader walks glyph by glyph.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use super::{CASTLE_LETTERS, CHECK_MARKS, EVAL_MARKS, PIECE_LETTERS, STATE_LETTERS};
#[cfg(any(test, feature = "internals"))]
use crate::glyph::canonical_str;

/// A regular expression over glyphs (no repetition: the language is finite).
enum Re {
    /// One glyph out of a set.
    Set(Vec<char>),
    Seq(Vec<Re>),
    Alt(Vec<Re>),
    Opt(Box<Re>),
}

fn set(chars: &str) -> Re {
    Re::Set(chars.chars().collect())
}

fn lit(s: &str) -> Re {
    Re::Seq(s.chars().map(|c| Re::Set(vec![c])).collect())
}

fn opt(r: Re) -> Re {
    Re::Opt(Box::new(r))
}

fn alt_of(strings: &[&str]) -> Re {
    Re::Alt(strings.iter().map(|s| lit(s)).collect())
}

/// The grammar of one written Das move, as in [`super::parse_das_move`]:
///
/// ```text
/// square  = file rank | [lr] (1 | 10)          file = a–j, rank = 1–10
/// mover   = letter | state piece               letter = piece | state
/// castle  = K [RSTF]
/// pawn    = file rank promo?                   promo = one or two pieces, not K
///         | file x file rank (promo | e.p.)?
/// piece   = mover (file | rank | square)? x? square result?   result = letter, not K
/// move    = (castle | pawn | piece) check? eval? draw?
/// ```
fn grammar() -> Re {
    let file = || set("abcdefghij");
    let rank = || Re::Alt(vec![set("123456789"), lit("10")]);
    let board = || Re::Seq(vec![file(), rank()]);
    let extra = || Re::Seq(vec![set("lr"), Re::Alt(vec![lit("1"), lit("10")])]);
    let square = || Re::Alt(vec![board(), extra()]);
    let letters = format!("{PIECE_LETTERS}{STATE_LETTERS}");
    let not_k = |s: &str| s.replace('K', "");
    let promo = || {
        Re::Seq(vec![
            set(&not_k(PIECE_LETTERS)),
            opt(set(&not_k(PIECE_LETTERS))),
        ])
    };
    let castle = Re::Seq(vec![lit("K"), set(CASTLE_LETTERS)]);
    let pawn = Re::Alt(vec![
        Re::Seq(vec![board(), opt(promo())]),
        Re::Seq(vec![
            file(),
            lit("x"),
            board(),
            opt(Re::Alt(vec![promo(), lit("e.p.")])),
        ]),
    ]);
    let mover = Re::Alt(vec![
        set(&letters),
        Re::Seq(vec![set(STATE_LETTERS), set(PIECE_LETTERS)]),
    ]);
    let piece = Re::Seq(vec![
        mover,
        opt(Re::Alt(vec![file(), rank(), square()])),
        opt(lit("x")),
        square(),
        opt(set(&not_k(&letters))),
    ]);
    Re::Seq(vec![
        Re::Alt(vec![castle, pawn, piece]),
        opt(alt_of(&CHECK_MARKS)),
        opt(alt_of(&EVAL_MARKS)),
        opt(lit("=")),
    ])
}

/// Thompson NFA: glyph edges and epsilon edges.
#[derive(Default)]
struct Nfa {
    edges: Vec<Vec<(char, usize)>>,
    eps: Vec<Vec<usize>>,
}

impl Nfa {
    fn state(&mut self) -> usize {
        self.edges.push(Vec::new());
        self.eps.push(Vec::new());
        self.edges.len() - 1
    }

    /// Adds `re` starting at `start`; returns its end state.
    fn add(&mut self, re: &Re, start: usize) -> usize {
        match re {
            Re::Set(chars) => {
                let end = self.state();
                self.edges[start].extend(chars.iter().map(|&c| (c, end)));
                end
            }
            Re::Seq(parts) => parts.iter().fold(start, |s, r| self.add(r, s)),
            Re::Alt(parts) => {
                let end = self.state();
                for r in parts {
                    let s = self.state();
                    self.eps[start].push(s);
                    let e = self.add(r, s);
                    self.eps[e].push(end);
                }
                end
            }
            Re::Opt(r) => {
                let s = self.state();
                self.eps[start].push(s);
                let end = self.add(r, s);
                self.eps[start].push(end);
                end
            }
        }
    }

    fn closure(&self, states: impl IntoIterator<Item = usize>) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        let mut stack: Vec<usize> = states.into_iter().collect();
        while let Some(s) = stack.pop() {
            if out.insert(s) {
                stack.extend(&self.eps[s]);
            }
        }
        out
    }
}

/// The Das move grammar as a DFA over canonical glyphs (see [`crate::glyph`]).
/// State 0 is the start; every state can still reach an accepting one.
pub struct DasAutomaton {
    /// Per state: (glyph, next state), sorted by glyph.
    edges: Vec<Vec<(char, u32)>>,
    accepting: Vec<bool>,
}

impl DasAutomaton {
    /// The start state.
    pub const START: u32 = 0;

    /// The automaton of the Das grammar, built once.
    pub fn get() -> &'static DasAutomaton {
        static CELL: OnceLock<DasAutomaton> = OnceLock::new();
        CELL.get_or_init(|| DasAutomaton::compile(&grammar()))
    }

    fn compile(re: &Re) -> DasAutomaton {
        let mut nfa = Nfa::default();
        let start = nfa.state();
        let accept = nfa.add(re, start);
        let mut ids: HashMap<BTreeSet<usize>, u32> = HashMap::new();
        let mut sets: Vec<BTreeSet<usize>> = Vec::new();
        let first = nfa.closure([start]);
        ids.insert(first.clone(), 0);
        sets.push(first);
        let mut edges: Vec<Vec<(char, u32)>> = Vec::new();
        let mut i = 0;
        while i < sets.len() {
            let mut by_char: std::collections::BTreeMap<char, Vec<usize>> = Default::default();
            for &s in &sets[i] {
                for &(c, to) in &nfa.edges[s] {
                    by_char.entry(c).or_default().push(to);
                }
            }
            let mut out = Vec::with_capacity(by_char.len());
            for (c, targets) in by_char {
                let next = nfa.closure(targets);
                let id = match ids.get(&next) {
                    Some(&id) => id,
                    None => {
                        let id = sets.len() as u32;
                        ids.insert(next.clone(), id);
                        sets.push(next);
                        id
                    }
                };
                out.push((c, id));
            }
            edges.push(out);
            i += 1;
        }
        let accepting = sets.iter().map(|s| s.contains(&accept)).collect();
        DasAutomaton { edges, accepting }
    }

    /// Number of states.
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    /// Always false (the start state exists).
    #[cfg(any(test, feature = "internals"))]
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// The glyphs allowed after `state`, each with the state it leads to.
    pub fn edges(&self, state: u32) -> &[(char, u32)] {
        &self.edges[state as usize]
    }

    /// The state after glyph `c`, if the grammar allows it.
    #[cfg(any(test, feature = "internals"))]
    pub fn next(&self, state: u32, c: char) -> Option<u32> {
        let edges = self.edges(state);
        edges
            .binary_search_by_key(&c, |e| e.0)
            .ok()
            .map(|i| edges[i].1)
    }

    /// Whether the glyphs read so far form a whole move.
    pub fn is_accepting(&self, state: u32) -> bool {
        self.accepting[state as usize]
    }

    /// Whether `text` (canonicalised, spaces dropped) is a valid Das move.
    #[cfg(any(test, feature = "internals"))]
    pub fn accepts(&self, text: &str) -> bool {
        canonical_str(text)
            .chars()
            .try_fold(Self::START, |s, c| self.next(s, c))
            .is_some_and(|s| self.is_accepting(s))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse_das_move, sample_das_move};
    use super::*;
    use crate::notation::Rng;

    /// Glyphs random strings are drawn from: the grammar's, plus a few it never uses.
    const GLYPHS: &str = "abcdefghijlrkx0123456789BRSQHKNACVEMDTPFGO+#!?=.-(";

    /// The parser (which names errors) and the automaton (which the reader walks) are
    /// two writings of one grammar: they must agree on every string.
    #[test]
    fn automaton_and_parser_agree() {
        let dfa = DasAutomaton::get();
        let glyphs: Vec<char> = GLYPHS.chars().collect();
        let mut rng = Rng::new(8);
        let mut valid = 0;
        for i in 0..200_000 {
            let s: String = if i % 2 == 0 {
                // Mutations of valid moves reach the tricky boundaries.
                let mut s: Vec<char> = sample_das_move(&mut rng).chars().collect();
                for _ in 0..1 + rng.below(2) {
                    let at = rng.below(s.len() + 1);
                    match rng.below(3) {
                        0 if at < s.len() => {
                            s.remove(at);
                        }
                        1 if at < s.len() => s[at] = *rng.pick(&glyphs),
                        _ => s.insert(at, *rng.pick(&glyphs)),
                    }
                }
                s.into_iter().collect()
            } else {
                (0..1 + rng.below(7)).map(|_| *rng.pick(&glyphs)).collect()
            };
            let parsed = parse_das_move(&s);
            valid += usize::from(parsed.is_ok());
            assert_eq!(
                parsed.is_ok(),
                dfa.accepts(&s),
                "`{s}`: parser says {parsed:?}"
            );
        }
        assert!(valid > 10_000, "only {valid} valid strings drawn");
    }

    #[test]
    fn every_state_reaches_acceptance() {
        let dfa = DasAutomaton::get();
        let mut live: Vec<bool> = dfa.accepting.clone();
        loop {
            let mut changed = false;
            for s in 0..dfa.len() {
                if !live[s] && dfa.edges[s].iter().any(|&(_, t)| live[t as usize]) {
                    live[s] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        assert!(
            live.iter().all(|&l| l),
            "dead states in {} states",
            dfa.len()
        );
        assert!(!dfa.is_accepting(DasAutomaton::START));
    }
}
