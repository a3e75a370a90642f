//! Cyrillic read through a Latin text reader. The printed-text reader (`ocr`) has no
//! Cyrillic letter: handwritten Russian comes out as Latin look-alikes (`Воронцов`
//! reads `Bopouyob`, `Соловьёва` `Coroboeba`). Each look-alike stands for several
//! letters (`u` is `и`, `й`, `ц`, a cursive `н` or `м`), so the reading is taken back to
//! Cyrillic by a CTC prefix beam search over Russian letters, each letter's frame
//! probability the sum of its look-alikes', weighed by a letter model of Russian
//! spelling (`models/ru-letters.txt`, made by `training/letters.py` from the
//! Russian Hunspell dictionary of the npm package `dictionary-ru`; no name list).
//!
//! Two letters are drawn as two Latin strokes: `ы` (`bl`) and `ю` (`io`). The letter
//! model spells them `ь` + `ı` and `ı` + `о`, so the search emits the stroke `ı` as a
//! letter of its own and the text is put back together at the end.

use std::collections::HashMap;
use std::sync::OnceLock;

const QUANT: f32 = 4.0;
const CODE: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/";

/// Each letter and the Latin (and Greek) characters the reader writes for it, printed
/// or cursive, either case; the letter model decides between letters sharing one.
const LOOK_ALIKES: &[(char, &str)] = &[
    ('а', "aAα"),
    ('б', "6δbB"),
    ('в', "bB68β"),
    ('г', "rΓTtz「"),
    ('д', "gADdΔ∂9"),
    ('е', "eEëéè"),
    ('ж', "xX*K米"),
    ('з', "3zZ"),
    ('и', "uUNnüVv"),
    ('й', "uUüúùéèàčÑñêi"),
    ('к', "kKκR"),
    ('л', "nNΛ∧λAr"),
    ('м', "mMμu"),
    ('н', "HhuUrn"),
    ('о', "oO0σø"),
    ('п', "nNΠπ∏T∩"),
    ('р', "pPρ"),
    ('с', "cC"),
    ('т', "mMTtτ"),
    ('у', "yYγ"),
    ('ф', "φΦϕψ"),
    ('х', "xXχ"),
    ('ц', "uUyY"),
    ('ч', "rYy4"),
    ('ш', "wWω山"),
    ('щ', "wWω山l"),
    ('ъ', "b"),
    ('ь', "b6"),
    ('э', "39"),
    ('я', "aR9A8"),
    ('ı', "lI1|iıι!LF"),
];

/// Characters written as themselves: digits and the punctuation of names and events.
/// The letter model does not know them: each costs [`OTHER_LOGP`] and ends a word.
const OTHERS: &str = "0123456789,.-";
const OTHER_LOGP: f32 = -4.0;

/// The search's settings: the letter model's weight against the reader's, a bonus per
/// symbol (CTC favours short texts), the beam's width, and how far under a frame's
/// likeliest symbol a symbol is still tried.
#[derive(Clone, Copy, Debug)]
pub struct Search {
    pub lm_weight: f32,
    pub bonus: f32,
    pub beam: usize,
    pub prune: f32,
}

impl Default for Search {
    fn default() -> Self {
        Search {
            lm_weight: 0.5,
            bonus: 1.5,
            beam: 24,
            prune: 10.0,
        }
    }
}

/// A letter model: its symbols (the last, `^`, a word's edge) and, for each stored
/// context (up to four symbols for Russian, three for Latin), the log-probability of
/// each symbol next.
pub struct LetterModel {
    symbols: Vec<char>,
    /// The longest stored context.
    reach: usize,
    contexts: HashMap<Vec<u8>, Vec<f32>>,
}

const RU_LETTERS: &str = include_str!("../../models/ru-letters.txt");
const LATIN_LETTERS: &str = include_str!("../../models/latin-letters.txt");

impl LetterModel {
    /// Russian spelling, compiled into the binary.
    pub fn russian() -> &'static LetterModel {
        static MODEL: OnceLock<LetterModel> = OnceLock::new();
        MODEL.get_or_init(|| LetterModel::parse(RU_LETTERS))
    }

    /// English, German and Polish spelling (diacritics folded), compiled into the
    /// binary.
    pub fn latin() -> &'static LetterModel {
        static MODEL: OnceLock<LetterModel> = OnceLock::new();
        MODEL.get_or_init(|| LetterModel::parse(LATIN_LETTERS))
    }

    /// The file's form (`training/letters.py`): a `# symbols ...` line, then a context
    /// and its coded log-probabilities a line.
    fn parse(text: &str) -> LetterModel {
        let symbols: Vec<char> = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# symbols "))
            .unwrap_or_default()
            .chars()
            .collect();
        let code: Vec<char> = CODE.chars().collect();
        let mut contexts = HashMap::new();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let Some((ctx, q)) = line.split_once('\t') else {
                continue;
            };
            let key: Option<Vec<u8>> = ctx
                .chars()
                .map(|c| symbols.iter().position(|&s| s == c).map(|i| i as u8))
                .collect();
            let probs: Vec<f32> = q
                .chars()
                .map(|c| -(code.iter().position(|&k| k == c).unwrap_or(63) as f32) / QUANT)
                .collect();
            if let Some(key) = key
                && probs.len() == symbols.len()
            {
                contexts.insert(key, probs);
            }
        }
        let reach = contexts.keys().map(Vec::len).max().unwrap_or(0);
        LetterModel {
            symbols,
            reach,
            contexts,
        }
    }

    fn edge(&self) -> u8 {
        (self.symbols.len().max(1) - 1) as u8
    }

    fn index(&self, c: char) -> Option<u8> {
        self.symbols.iter().position(|&s| s == c).map(|i| i as u8)
    }

    /// Log-probability of symbol `next` after `history` (symbol indices, the word's
    /// start padded with `^`): the longest stored context's.
    fn logp(&self, history: &[u8], next: u8) -> f32 {
        let n = history.len().min(self.reach);
        for k in (0..=n).rev() {
            if let Some(p) = self.contexts.get(&history[history.len() - k..]) {
                return p[next as usize];
            }
        }
        -(self.symbols.len().max(1) as f32).ln()
    }

    /// How like the model's language `text` is spelt: the mean log-probability per
    /// symbol of its words (their ends included; a word with a character the model
    /// lacks is left out); minus infinity when no word is left.
    pub fn spelling(&self, text: &str) -> f32 {
        let (mut sum, mut n) = (0.0f32, 0usize);
        for word in text.split(|c: char| !c.is_alphabetic()) {
            let Some(ix) = self.spell(word) else {
                continue;
            };
            let mut h = vec![self.edge(); self.reach];
            for &i in ix.iter().chain([&self.edge()]) {
                sum += self.logp(&h, i);
                n += 1;
                h.push(i);
            }
        }
        if n == 0 {
            f32::NEG_INFINITY
        } else {
            sum / n as f32
        }
    }

    /// A word in the model's symbols (lower case; Russian `ё` as `е`, `ы` and `ю` in
    /// strokes; Latin diacritics folded), or `None` when it has another character.
    fn spell(&self, word: &str) -> Option<Vec<u8>> {
        if word.is_empty() {
            return None;
        }
        let mut out = Vec::new();
        for c in word.to_lowercase().chars() {
            let s: &str = match c {
                'ё' | 'ы' | 'ю' => strokes(c),
                'ł' => "l",
                'ß' => "ss",
                'ä' | 'á' | 'à' | 'â' | 'ą' => "a",
                'ö' | 'ó' | 'ò' | 'ô' => "o",
                'ü' | 'ú' | 'ù' | 'û' => "u",
                'é' | 'è' | 'ê' | 'ë' | 'ę' => "e",
                'ć' | 'ç' => "c",
                'ń' | 'ñ' => "n",
                'ś' => "s",
                'ź' | 'ż' => "z",
                'í' | 'ì' | 'î' => "i",
                _ => {
                    out.push(self.index(c)?);
                    continue;
                }
            };
            for c in s.chars() {
                out.push(self.index(c)?);
            }
        }
        Some(out)
    }
}

/// One symbol the search can write: a letter of the model (its index) or a character
/// outside it, and the reader's classes that draw it.
struct Token {
    text: char,
    letter: Option<u8>,
    classes: Vec<usize>,
}

fn tokens(lm: &LetterModel, class_of: &HashMap<char, usize>) -> Vec<Token> {
    let mut out: Vec<Token> = LOOK_ALIKES
        .iter()
        .map(|&(c, latin)| Token {
            text: c,
            letter: lm.index(c),
            classes: classes_of(latin, class_of),
        })
        .collect();
    out.extend(OTHERS.chars().chain([' ']).map(|c| Token {
        text: c,
        letter: None,
        classes: class_of.get(&c).copied().into_iter().collect(),
    }));
    out.retain(|t| !t.classes.is_empty());
    out
}

/// `ё` as `е`, `ы` and `ю` as the two strokes the reader draws them in (`ь` + `ı`,
/// `ı` + `о`); any other letter as itself.
fn strokes(c: char) -> &'static str {
    match c {
        'ё' => "е",
        'ы' => "ьı",
        'ю' => "ıо",
        _ => "",
    }
}

/// A text written in Russian as the reader's classes that draw it, symbol by symbol:
/// a letter (either case; `ё`, `ы`, `ю` in [`strokes`]) as its look-alikes' classes,
/// any other character the reader has as its own class; `None` where a character is
/// neither.
pub fn look_alike_labels(text: &str, class_of: &HashMap<char, usize>) -> Option<Vec<Vec<usize>>> {
    let mut out = Vec::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        let s = strokes(c);
        let letters: Vec<char> = if s.is_empty() {
            vec![c]
        } else {
            s.chars().collect()
        };
        for l in letters {
            match LOOK_ALIKES.iter().find(|(r, _)| *r == l) {
                Some((_, latin)) => out.push(classes_of(latin, class_of)),
                None if !l.is_alphabetic() => out.push(vec![*class_of.get(&l)?]),
                None => return None,
            }
        }
    }
    Some(out)
}

fn classes_of(latin: &str, class_of: &HashMap<char, usize>) -> Vec<usize> {
    latin
        .chars()
        .filter_map(|l| class_of.get(&l).copied())
        .collect()
}

/// `ln(e^a + e^b)` (the text reader's CTC sums, `ocr`, use it too).
pub(super) fn log_add(a: f32, b: f32) -> f32 {
    if a == f32::NEG_INFINITY {
        return b;
    }
    if b == f32::NEG_INFINITY {
        return a;
    }
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

/// A prefix of the search: its tokens, the CTC log-probabilities of its paths ending
/// in a blank and in its last token, and its letter model score.
#[derive(Clone)]
struct Prefix {
    tokens: Vec<u16>,
    blank: f32,
    last: f32,
    lm: f32,
}

/// A prefix's scores while a frame's extensions are summed (keyed by its tokens).
struct Sums {
    blank: f32,
    last: f32,
    lm: f32,
}

impl Sums {
    fn new(lm: f32) -> Sums {
        Sums {
            blank: f32::NEG_INFINITY,
            last: f32::NEG_INFINITY,
            lm,
        }
    }
}

impl Prefix {
    fn ctc(&self) -> f32 {
        log_add(self.blank, self.last)
    }
}

/// The letter model's history of a token sequence: the symbols since the last word's
/// edge, `^`-padded.
fn history(lm: &LetterModel, toks: &[Token], seq: &[u16]) -> Vec<u8> {
    let edge = lm.edge();
    let mut h = vec![edge; lm.reach];
    for &t in seq {
        match toks[t as usize].letter {
            Some(l) => h.push(l),
            None => h.extend(std::iter::repeat_n(edge, lm.reach)),
        }
    }
    h
}

/// The letter model's log-probability of `next` after the history `h` ([`history`]; a
/// word's end counted when `next` is no letter and a word is open).
fn lm_step(lm: &LetterModel, h: &[u8], next: &Token) -> f32 {
    let edge = lm.edge();
    let open = h.last().is_some_and(|&l| l != edge);
    match next.letter {
        Some(l) => lm.logp(h, l),
        None => {
            let end = if open { lm.logp(h, edge) } else { 0.0 };
            end + if next.text == ' ' { 0.0 } else { OTHER_LOGP }
        }
    }
}

/// A line read as Russian.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// Lower case; empty when nothing is read.
    pub text: String,
    /// How Russian the text is spelt ([`LetterModel::spelling`]).
    pub spelling: f32,
}

/// Reads a line's frames (`logp`: `steps` x `classes` log-probabilities, class 0 the
/// blank; `class_of`: the reader's class of each character) as Russian.
pub fn decode(
    logp: &[f32],
    steps: usize,
    classes: usize,
    class_of: &HashMap<char, usize>,
    search: Search,
) -> Reading {
    let lm = LetterModel::russian();
    let toks = tokens(lm, class_of);
    let mut beam = vec![Prefix {
        tokens: Vec::new(),
        blank: 0.0,
        last: f32::NEG_INFINITY,
        lm: 0.0,
    }];
    let total =
        |p: &Prefix| p.ctc() + search.lm_weight * p.lm + search.bonus * p.tokens.len() as f32;
    for t in 0..steps {
        let row = &logp[t * classes..(t + 1) * classes];
        let emit: Vec<f32> = toks
            .iter()
            .map(|k| {
                k.classes
                    .iter()
                    .fold(f32::NEG_INFINITY, |a, &c| log_add(a, row[c]))
            })
            .collect();
        let top = emit.iter().copied().fold(row[0], f32::max);
        let tried: Vec<u16> = (0..toks.len() as u16)
            .filter(|&k| emit[k as usize] >= top - search.prune)
            .collect();
        let mut next: HashMap<Vec<u16>, Sums> = HashMap::new();
        for p in &beam {
            let stay = next
                .entry(p.tokens.clone())
                .or_insert_with(|| Sums::new(p.lm));
            stay.blank = log_add(stay.blank, p.ctc() + row[0]);
            if let Some(&l) = p.tokens.last() {
                stay.last = log_add(stay.last, p.last + emit[l as usize]);
            }
            let h = history(lm, &toks, &p.tokens);
            for &k in &tried {
                let from = if p.tokens.last() == Some(&k) {
                    p.blank
                } else {
                    p.ctc()
                };
                if from == f32::NEG_INFINITY {
                    continue;
                }
                let mut seq = p.tokens.clone();
                seq.push(k);
                let step = lm_step(lm, &h, &toks[k as usize]);
                let e = next.entry(seq).or_insert_with(|| Sums::new(p.lm + step));
                e.last = log_add(e.last, from + emit[k as usize]);
            }
        }
        let mut all: Vec<Prefix> = next
            .into_iter()
            .map(|(tokens, s)| Prefix {
                tokens,
                blank: s.blank,
                last: s.last,
                lm: s.lm,
            })
            .collect();
        // Ties broken by the tokens, so the map's order never picks the text.
        all.sort_by(|a, b| {
            total(b)
                .total_cmp(&total(a))
                .then_with(|| a.tokens.cmp(&b.tokens))
        });
        all.truncate(search.beam);
        beam = all;
    }
    // The last word's end.
    let space = toks.iter().find(|k| k.text == ' ');
    let finals: Vec<(String, f32)> = beam
        .iter()
        .map(|p| {
            let end = space.map_or(0.0, |sp| lm_step(lm, &history(lm, &toks, &p.tokens), sp));
            let text: String = p.tokens.iter().map(|&k| toks[k as usize].text).collect();
            (join_strokes(&text), total(p) + search.lm_weight * end)
        })
        .collect();
    let Some(best) = finals.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
        return Reading {
            text: String::new(),
            spelling: f32::NEG_INFINITY,
        };
    };
    Reading {
        text: best.0.trim().to_string(),
        spelling: lm.spelling(&best.0),
    }
}

/// The strokes put back together: `ь`/`ъ` + `ı` is `ы`, `ı` + `о` is `ю`; a stroke left
/// alone is dropped.
fn join_strokes(text: &str) -> String {
    text.replace("ьı", "ы")
        .replace("ъı", "ы")
        .replace("ıо", "ю")
        .replace('ı', "")
}

/// `text` with its first letter in capitals, or every word's (`every_word`: a name,
/// `воронцов эдуард` -> `Воронцов Эдуард`).
pub fn capitalise(text: &str, every_word: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut start = true;
    for c in text.chars() {
        if start && c.is_alphabetic() {
            out.extend(c.to_uppercase());
            start = false;
        } else {
            out.push(c);
        }
        if every_word && c == ' ' {
            start = true;
        }
    }
    out
}

/// Whether a line on a Russian form is written in Latin letters, given its Latin
/// reading and its reading as Cyrillic: the Latin reading is spelt more like English,
/// German or Polish than the Cyrillic like Russian; or it holds a Latin letter that no
/// Cyrillic letter is read as (`s`, `J`, `G`) and the Cyrillic is spelt no more than
/// [`LATIN_MARGIN`] better.
pub fn written_in_latin(latin: &str, cyrillic: &Reading) -> bool {
    let gap = cyrillic.spelling - LetterModel::latin().spelling(latin);
    let latin_only =
        |c: char| c.is_ascii_alphabetic() && !LOOK_ALIKES.iter().any(|(_, l)| l.contains(c));
    gap < 0.0 || (gap < LATIN_MARGIN && latin.chars().any(latin_only))
}

/// See [`written_in_latin`] (nats per symbol).
const LATIN_MARGIN: f32 = 1.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letter_model_knows_russian_spelling() {
        let lm = LetterModel::russian();
        let ix = |c: char| lm.index(c).unwrap();
        let h: Vec<u8> = "^^^ивано".chars().map(ix).collect();
        // After `ивано`, `в` is far likelier than `щ`.
        assert!(lm.logp(&h, ix('в')) > lm.logp(&h, ix('щ')) + 3.0);
        assert!(lm.contexts.len() > 1000);
        // Each model spells its own language better than a look-alike reading.
        let (ru, latin) = (LetterModel::russian(), LetterModel::latin());
        assert!(ru.spelling("Воронцов Эдуард") > ru.spelling("Ворнцщв Эдрдуа") + 1.0);
        assert!(latin.spelling("Kasparov, Gary") > latin.spelling("Bopouyob 9dye") + 1.0);
        assert_eq!(latin.spelling("Воронцов"), f32::NEG_INFINITY);
    }

    #[test]
    fn strokes_join_into_letters() {
        assert_eq!(join_strokes("чернышьıв"), "чернышыв");
        assert_eq!(join_strokes("ıотина"), "ютина");
        assert_eq!(capitalise("юдин илья", true), "Юдин Илья");
        assert_eq!(capitalise("первенство школы", false), "Первенство школы");
    }

    /// Frames that draw `uBaHoB` (one class a frame, blanks between) decode as
    /// `иванов`: `u` could be `и`, `й`, `м`, `н` or `ц`, `B` `б` or `в`, `a` `а` or
    /// `я`; the letter model picks the spelling.
    #[test]
    fn latin_look_alikes_decode_as_russian() {
        let chars = ['B', 'o', 'p', 'H', 'a', ' ', 'b', 'u', 'n', 'y', 'm'];
        let mut class_of = HashMap::new();
        for (i, c) in chars.iter().enumerate() {
            class_of.insert(*c, i + 1);
        }
        let classes = chars.len() + 1;
        let line = "uBaHoB";
        let mut logp = Vec::new();
        for c in line.chars() {
            for k in [class_of[&c], 0] {
                let mut row = vec![(0.001f32).ln(); classes];
                row[k] = (0.99f32).ln();
                logp.extend(row);
            }
        }
        let steps = logp.len() / classes;
        let r = decode(&logp, steps, classes, &class_of, Search::default());
        assert_eq!(r.text, "иванов");
        assert!(r.spelling < 0.0);
    }
}
