//! The values written in a form's header fields -> what they say: the round and board
//! (digits), the date, the result written on a labelled line or marked among printed
//! options, the players' names and the event.
//!
//! A value box is first tested for ink against the paper around it (the printed line
//! it is written on taken out): a blank box gives no value, never a guess. Numbers,
//! dates and results are read by the cell reader (its alphabet holds the digits, `.`,
//! `/`, `-`, `:`, `½`, `=` and the resign words' letters): a number and a result are
//! scored with the CTC forward algorithm against a closed set (the pairings' rounds,
//! `1..=MAX_NUMBER`, the result spellings), as moves are. Names and the event need the
//! printed-text reader ([`HeaderReader`]): with the pairings' names each name is
//! scored against the written box, and the cell reader adds its score where its
//! alphabet spells every candidate; without them the line is read open. The text
//! reader's dictionary is Latin: a name or event on a Russian form is not read open
//! (the note says so), nothing is made up.
//!
//! Reading is in two steps because the text reader comes from the cell model
//! ([`CellModel::header_reader`]): [`look`] (text reader: the spots, the open lines,
//! the candidates' scores), then [`read`] (cell reader).

use image::GrayImage;

use super::result::RESIGN_WORDS;
use crate::decode::{CellScorer, Trie};
use crate::glyph::canonical_str;
use crate::model::cyrillic::{Reading, Search, capitalise, written_in_latin};
use crate::model::{CellModel, HeaderReader, Located, ModelError, Spot, Table};
use crate::vocab::{Alphabet, CellScores};

/// Numbers read without a closed set of rounds: `1..=MAX_NUMBER` (boards of a large
/// open, rounds).
const MAX_NUMBER: u32 = 300;

/// A round may be written as a round and a game in it (`2.1`: a match's or a knockout
/// round's first game, as PGN files give it): rounds up to this, games up to 9.
const MAX_DOTTED_ROUND: u32 = 20;

/// A date the two readers read differently keeps this share of the surer reading's
/// sureness: it goes to review.
const DATE_DISAGREE: f32 = 0.6;

/// A month chosen among its spellings' scores ([`month_candidates`]) is taken from
/// this probability: likelier than every other month together.
const MONTH_FLOOR: f32 = 0.5;

/// A date one edit of a reading makes ([`date_repairs`]) is taken from this
/// probability among the dates all such edits make.
const REPAIR_FLOOR: f32 = 0.5;

/// The most a value made from a reading rather than read is trusted (a date made by an
/// edit, unless the cell reader reads it too; a name or event taken back to Cyrillic
/// from the text reader's Latin look-alikes): under the report's review threshold
/// (`FIELD_REVIEW_BELOW`, 0.8), so a reviewer always sees it.
pub const REPAIRED_MAX: f32 = 0.79;

/// How far (nats) the best closed-set reading may fall short of the reader's own best
/// reading before its confidence is cut (a digit read as a letter costs a few nats).
const FIT_SLACK: f32 = 3.0;

/// Nats per Russian letter a month's word scored through its letters' Latin
/// look-alikes may fall short of the reader's own reading, besides [`FIT_SLACK`]: on
/// the tune forms a month written clearly fell short by up to 1.4 per letter beyond
/// it, a wrong month's short word (`мая` for `декабря`) by 4.3 (docs/measurements.md).
const LOOK_ALIKE_SLACK: f32 = 2.0;

/// Pixels of paper round a box of the form's print taken out of a value box (the
/// reader's box of a printed word may end a little short of its ink).
const PRINT_PAD: u32 = 3;

/// A pixel darker than the paper by this much (0..255) is ink.
const INK_DELTA: u8 = 70;

/// A value box with fewer ink pixels than this share of its area (and than
/// [`MIN_INK_PIXELS`]) holds nothing written. The area counts at most
/// [`INK_AREA_WIDTH`] box heights of its width: one thin digit written on a long line
/// is no less written than on a short one.
const MIN_INK_SHARE: f32 = 0.004;
const INK_AREA_WIDTH: u32 = 4;
const MIN_INK_PIXELS: usize = 40;
/// Fewest rows the ink of a written value spans.
const MIN_INK_HEIGHT: u32 = 6;

/// A row of a value box darker than this share is a printed rule (the line written
/// on), not ink, where its ink also runs unbroken over that share at half the ink's
/// darkness (a light grey line, blurred where it drifts a row), gaps of
/// [`super::fields::RULE_GAP`] bridged: bold digits written across a box darken half
/// its row with their bars and feet, but the gaps between them are paper. A column
/// darker than [`EDGE_SHARE`] below the box's top rule is a box's edge (a tall letter
/// may darken half a short box's column; a photographed frame's side starts at the
/// frame's top, inside a value box that reaches past the frame), and so are the
/// columns beside it darker than [`EDGE_BLUR_SHARE`] (its blur).
const RULE_SHARE: f32 = 0.5;
const EDGE_SHARE: f32 = 0.9;
const EDGE_BLUR_SHARE: f32 = 0.5;
/// Rows more than this many together are no printed rule but the bodies of large
/// digits in a narrow box (`19` over half a 70-pixel box's width on ten rows).
const RULE_THICK: usize = 6;
/// Rows from a rule's edge to the paper beside it.
const RULE_CLEAR: usize = 3;

/// The closed vocabularies the pairings give.
#[derive(Clone, Copy, Debug, Default)]
pub struct Vocab<'a> {
    pub names: &'a [String],
    pub rounds: &'a [String],
}

/// One field's value as read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValueRead {
    pub field: String,
    /// `None`: nothing (readable) written; `note` says why.
    pub value: Option<String>,
    pub confidence: f32,
    pub bbox: [u32; 4],
    pub label: Option<String>,
    /// Closed-set candidates and their probabilities, best first (at most
    /// [`CANDIDATES`]).
    pub candidates: Vec<(String, f32)>,
    pub note: Option<String>,
}

/// A reading less sure than this is no value (it stays in `candidates` and the
/// note): chosen on the generator's tune form families, where it keeps nearly every
/// right round and board and drops most wrong ones (docs/measurements.md).
pub const VALUE_FLOOR: f32 = 0.5;

/// A written result less sure than this is no value: its two readers' probabilities
/// are averaged, so a result under it is one they disagree on. On the tune families
/// every result written on its line read 0.99 or more, and every printed options row
/// misread as a written result 0.49 to 0.53 (docs/measurements.md).
pub const RESULT_FLOOR: f32 = 0.75;

/// Candidates kept per field.
pub const CANDIDATES: usize = 5;

/// What the text reader saw of one spot (step one).
#[derive(Clone, Debug)]
pub struct SpotText {
    pub spot: Spot,
    /// The value's ink, cut out close (None: the box is blank).
    pub crop: Option<GrayImage>,
    /// The text reader's open reading and its probability.
    pub line: Option<(String, f32)>,
    /// Per name of the vocabulary (in its order): the text reader's log-likelihood
    /// (None where it cannot spell the name).
    pub name_scores: Vec<Option<f32>>,
    /// Per result spelling the text reader spells: its score.
    pub result_scores: Vec<(&'static str, &'static str, f32)>,
    /// The text reader's score of its own reading of a result (`line`): what the
    /// spellings' scores are weighed against (minus infinity when it read nothing).
    pub result_own: f32,
    /// A round's or board's numbers (see [`number_set`]): the text reader's score.
    pub number_scores: Vec<(String, f32)>,
    /// The text reader's score of its own reading of a round or board (minus infinity
    /// when it read nothing).
    pub number_own: f32,
    /// A date whose reading lacks its month or makes no date: per date a changed
    /// reading makes (each month's spellings in the month's place,
    /// [`month_candidates`]; one edit, [`date_repairs`]; a Russian month's word,
    /// [`russian_month_candidates`]), the text reader's score of that text and the
    /// Russian letters it scores through their look-alikes.
    pub date_scores: Vec<(String, f32, usize)>,
    /// The text reader's score of its own reading, where `date_scores` are scored.
    pub date_own: f32,
    /// The box holds the printed result options, not a written result.
    pub printed: bool,
    /// On a form whose headings are Russian, a name's or the event's reading as
    /// Cyrillic.
    pub cyrillic: Option<Reading>,
}

impl SpotText {
    /// A spot with its crop and nothing read yet.
    fn new(spot: Spot, crop: Option<GrayImage>, printed: bool) -> SpotText {
        SpotText {
            spot,
            crop,
            line: None,
            name_scores: Vec::new(),
            result_scores: Vec::new(),
            result_own: f32::NEG_INFINITY,
            number_scores: Vec::new(),
            number_own: f32::NEG_INFINITY,
            date_scores: Vec::new(),
            date_own: f32::NEG_INFINITY,
            printed,
            cyrillic: None,
        }
    }
}

/// Step one of a page's header: the text reader finds the fields, and reads what
/// needs it.
pub struct Looked {
    pub spots: Vec<SpotText>,
    pub marked: Option<(String, f32, [u32; 4])>,
    /// Why no printed result option was taken (see [`Located::options_note`]).
    pub options_note: Option<String>,
    /// The form's labels or headings are Russian: names and the event are likely
    /// written in Cyrillic.
    pub cyrillic: bool,
}

/// Step one: the fields of `page` found by `reader`, each value box tested for ink,
/// and what the text reader must read (names, event, the result spellings the cell
/// reader cannot spell). `cyrillic`: the form's headings are Russian.
pub fn look(
    page: &GrayImage,
    table: Option<&Table>,
    reader: &mut dyn HeaderReader,
    vocab: Vocab,
    cyrillic: bool,
) -> Looked {
    let Located {
        spots,
        marked,
        options,
        options_note,
        print,
    } = reader.locate(page, table);
    let cyrillic = cyrillic
        || spots.iter().any(|s| {
            s.label
                .as_deref()
                .is_some_and(|l| l.chars().any(is_cyrillic))
        });
    let spots = spots
        .into_iter()
        .map(|spot| {
            // Where the form prints the result options, their print is no written
            // result: the option marked answers (`marked`).
            let printed =
                spot.field == "result" && options.iter().any(|o| overlaps(*o, spot.value_box));
            let crop = if printed {
                None
            } else {
                ink_crop(page, spot.value_box, &print)
            };
            let mut text = SpotText::new(spot, crop, printed);
            let Some(crop) = text.crop.as_ref() else {
                return text;
            };
            match text.spot.field.as_str() {
                "white" | "black" if !vocab.names.is_empty() => {
                    text.name_scores = vocab
                        .names
                        .iter()
                        .map(|n| reader.spells(n).then(|| reader.score(crop, n)))
                        .collect();
                }
                "white" | "black" | "event" => {
                    let both = if cyrillic {
                        reader.read_cyrillic(crop)
                    } else {
                        None
                    };
                    match both {
                        Some((line, r)) => {
                            text.line = Some(line);
                            text.cyrillic = Some(r);
                        }
                        None => text.line = Some(reader.read_line(crop)),
                    }
                }
                "date" => {
                    let line = reader.read_line(crop);
                    let changed = match parse_date(&line.0) {
                        Some(_) => month_candidates(&line.0),
                        None => date_repairs(&line.0),
                    };
                    // On a Russian form, a month in words read through its letters'
                    // look-alikes (`29 ceHTA6pa 2019`).
                    let russian = if cyrillic {
                        russian_month_candidates(&line.0)
                    } else {
                        Vec::new()
                    };
                    if !changed.is_empty() || !russian.is_empty() {
                        let mut words: Vec<&str> =
                            changed.iter().map(|(_, t)| t.as_str()).collect();
                        words.push(&line.0);
                        let mut scores = reader.score_all(crop, &words);
                        text.date_own = scores.pop().unwrap_or(f32::NEG_INFINITY);
                        text.date_scores = changed
                            .into_iter()
                            .zip(scores)
                            .map(|((d, _), p)| (d, p, 0))
                            .collect();
                        let spelt: Vec<&str> = russian.iter().map(|(_, t)| t.as_str()).collect();
                        let scores = reader.score_russian(crop, &spelt);
                        text.date_scores.extend(
                            russian
                                .into_iter()
                                .zip(scores)
                                .filter(|(_, p)| p.is_finite())
                                .map(|((d, t), p)| {
                                    let letters = t.chars().filter(|c| is_cyrillic(*c)).count();
                                    (d, p, letters)
                                }),
                        );
                    }
                    text.line = Some(line);
                }
                "round" | "board" => {
                    let set = number_set(&text.spot.field, vocab.rounds);
                    let words: Vec<&str> = set.iter().map(String::as_str).collect();
                    let (_, own, scores) = reader.read_and_score(crop, &words);
                    text.number_own = own;
                    text.number_scores = set.into_iter().zip(scores).collect();
                }
                "result" => {
                    // Every spelling the text reader spells, the cell reader's too: a
                    // softmax over only the others (the draws' `½`, the words) would
                    // give them all its mass whatever is written.
                    let spelt: Vec<(&'static str, &'static str)> = result_spellings()
                        .filter(|(s, _)| reader.spells(s))
                        .collect();
                    let words: Vec<&str> = spelt.iter().map(|(s, _)| *s).collect();
                    let (line, own, scores) = reader.read_and_score(crop, &words);
                    text.result_own = own;
                    text.line = Some(line);
                    text.result_scores = spelt
                        .into_iter()
                        .zip(scores)
                        .map(|((s, r), p)| (s, r, p))
                        .collect();
                    if cyrillic {
                        // A Russian word (`ничья`) is read through its letters'
                        // Latin look-alikes, as names on these forms are; either
                        // case reads alike, so the lower-case spelling alone.
                        let words: Vec<(&'static str, &'static str)> = RESULT_WORDS
                            .iter()
                            .filter(|(s, _)| {
                                !reader.spells(s)
                                    && s.chars().any(is_cyrillic)
                                    && *s == s.to_lowercase()
                            })
                            .copied()
                            .collect();
                        let spelt: Vec<&str> = words.iter().map(|(s, _)| *s).collect();
                        let scores = reader.score_russian(crop, &spelt);
                        text.result_scores.extend(
                            words
                                .into_iter()
                                .zip(scores)
                                .filter(|(_, p)| p.is_finite())
                                .map(|((s, r), p)| (s, r, p)),
                        );
                    }
                }
                _ => {}
            }
            text
        })
        .collect();
    Looked {
        spots,
        marked,
        options_note,
        cyrillic,
    }
}

/// Step two: every field of `looked` read (rounds, boards, dates and results by the
/// model's values reader where it has one, names by the cell reader), in the order the
/// form prints them; the marked result option last, as a `result` field.
///
/// # Errors
/// When the model fails.
pub fn read(
    looked: &Looked,
    model: &mut dyn CellModel,
    vocab: Vocab,
    floor: f32,
) -> Result<Vec<ValueRead>, ModelError> {
    // The header's numbers and results go to the values reader where the model has
    // one; the rest (and, without one, everything) to the cell reader.
    let number = |s: &SpotText| NUMBERS.contains(&s.spot.field.as_str());
    let crops = |pick: &dyn Fn(&SpotText) -> bool| -> Vec<GrayImage> {
        let spots = looked.spots.iter().filter(|s| pick(s));
        spots.filter_map(|s| s.crop.clone()).collect()
    };
    let mut by_values = match model.value_reader() {
        Some(r) => Some((
            r.read_once(&crops(&number))?.into_iter(),
            r.alphabet().clone(),
        )),
        None => None,
    };
    let split = by_values.is_some();
    let mut scores = model
        .read_once(&crops(&|s| !(split && number(s))))?
        .into_iter();
    let alphabet = model.alphabet().clone();
    let weight = if split { VALUES_WEIGHT } else { 0.5 };
    let mut out = Vec::with_capacity(looked.spots.len() + 1);
    for s in &looked.spots {
        let mut v = ValueRead {
            field: s.spot.field.clone(),
            bbox: s.spot.value_box,
            label: s.spot.label.clone(),
            ..ValueRead::default()
        };
        // The values reader's own probabilities, barely floored, for the numbers it
        // was trained on; the move readers' floor for the rest.
        let (reading, alphabet, floor) = match &mut by_values {
            Some((numbers, a)) if number(s) => {
                let own = v.field != "result";
                (numbers, &*a, if own { VALUES_READ_FLOOR } else { floor })
            }
            _ => (&mut scores, &alphabet, floor),
        };
        // (Only the inked spots were read: take the next reading for those alone.)
        let Some(cell) = s.crop.as_ref().and_then(|_| reading.next()) else {
            v.note = Some(if s.printed {
                match (&looked.marked, &looked.options_note) {
                    (None, Some(why)) => format!("the printed result options: {why}"),
                    _ => "the printed result options: the one marked is the result".into(),
                }
            } else {
                "nothing written".into()
            });
            out.push(v);
            continue;
        };
        let mut cell = Cell::new(&cell, alphabet, floor);
        match v.field.as_str() {
            "round" | "board" => {
                let set = number_set(&v.field, vocab.rounds);
                read_number(&mut v, &mut cell, &set, s, weight);
            }
            "date" => read_date(&mut v, &mut cell, s),
            "result" => match s.line.as_ref().map(|l| l.0.as_str()) {
                Some(text) if super::fields::reads_options(text) => {
                    v.note = Some(format!(
                        "reads the form's printed result options (`{text}`), nothing written"
                    ));
                }
                text => {
                    let own = text.map(|t| (t, s.result_own));
                    read_result(&mut v, &mut cell, &s.result_scores, own);
                }
            },
            "white" | "black" => read_name(&mut v, &mut cell, s, vocab.names, looked.cyrillic),
            "event" => read_open(&mut v, s, looked.cyrillic, false),
            _ => v.note = Some("not read".into()),
        }
        let take = if v.field == "result" {
            RESULT_FLOOR
        } else {
            VALUE_FLOOR
        };
        if let Some(value) = v.value.as_ref().filter(|_| v.confidence < take) {
            v.note = Some(format!(
                "too doubtful to take: reads `{value}` ({:.2})",
                v.confidence
            ));
            v.value = None;
        }
        out.push(v);
    }
    if let Some((result, p, bbox)) = &looked.marked {
        out.push(ValueRead {
            field: "result".into(),
            value: Some(result.clone()),
            confidence: round3(*p),
            bbox: *bbox,
            note: Some("marked among the printed options".into()),
            ..ValueRead::default()
        });
    }
    Ok(out)
}

/// The fields the values reader reads (the rest are names and words).
const NUMBERS: &[&str] = &["round", "board", "date", "result"];

/// The values reader's share of a round's or board's probability beside the text
/// reader's (the cell reader's is half): it was trained on handwritten numbers, the
/// text reader on print (choice: `docs/measurements.md`).
const VALUES_WEIGHT: f32 = 0.75;

/// The read floor (nats below a frame's best) of the values reader on rounds, boards
/// and dates: the move decoder's floor spreads a closed set's probability over its
/// hundreds of numbers.
const VALUES_READ_FLOOR: f32 = 12.0;

/// A value crop's reading by the cell reader, ready to score strings against.
struct Cell<'a> {
    scorer: CellScorer,
    trie: Trie,
    total: f32,
    alphabet: &'a Alphabet,
    greedy: String,
}

impl<'a> Cell<'a> {
    fn new(scores: &CellScores, alphabet: &'a Alphabet, floor: f32) -> Self {
        let scorer = CellScorer::new(scores, alphabet, floor);
        let mut trie = Trie::default();
        trie.reset(&scorer);
        let total = scorer.total_mass();
        Cell {
            scorer,
            trie,
            total,
            alphabet,
            greedy: alphabet.greedy(scores),
        }
    }

    /// Log share of the crop's mass that `text` holds (the reader's glyphs).
    fn log_share(&mut self, text: &str) -> f32 {
        let text = canonical_str(text);
        self.scorer.score_text(&mut self.trie, &text, self.alphabet) - self.total
    }

    /// Log share of the reader's own best reading (0 share when it reads nothing).
    fn own(&mut self) -> f32 {
        if self.greedy.is_empty() {
            return f32::NEG_INFINITY;
        }
        let g = self.greedy.clone();
        self.scorer.score_text(&mut self.trie, &g, self.alphabet) - self.total
    }
}

/// Whether two boxes share pixels.
fn overlaps(a: [u32; 4], b: [u32; 4]) -> bool {
    a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3]
}

fn round3(x: f32) -> f32 {
    (x * 1000.0).round() / 1000.0
}

/// The letters of `text` in the scripts names are written in (Latin with its
/// diacritics, Cyrillic).
fn name_letters(text: &str) -> usize {
    text.chars()
        .filter(|&c| {
            c.is_ascii_alphabetic()
                || (('\u{00C0}'..='\u{024F}').contains(&c) && c != '×' && c != '÷')
                || is_cyrillic(c)
        })
        .count()
}

fn is_cyrillic(c: char) -> bool {
    ('\u{0400}'..='\u{04FF}').contains(&c)
}

/// Whether the cell reader spells `text`.
fn spells(alphabet: &Alphabet, text: &str) -> bool {
    alphabet.encode(&canonical_str(text)).is_some()
}

/// Softmax of `(value, log score)` pairs, merged by value, best first.
fn softmax(scored: &[(String, f32)]) -> Vec<(String, f32)> {
    let max = scored.iter().map(|s| s.1).fold(f32::NEG_INFINITY, f32::max);
    if !max.is_finite() {
        return Vec::new();
    }
    let mut out: Vec<(String, f32)> = Vec::new();
    let mut sum = 0.0;
    for (v, s) in scored {
        let p = (s - max).exp();
        sum += p;
        match out.iter_mut().find(|(w, _)| w == v) {
            Some(e) => e.1 += p,
            None => out.push((v.clone(), p)),
        }
    }
    for e in &mut out {
        e.1 /= sum;
    }
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

/// Sets `v`'s value from closed-set probabilities: the best candidate, its
/// probability cut where it explains the crop clearly worse than the reader's own
/// reading (`fit`: best candidate's log share minus the own reading's).
fn take_best(v: &mut ValueRead, probs: Vec<(String, f32)>, fit: f32) {
    let Some((best, p)) = probs.first().cloned() else {
        v.note = Some("nothing the field may say reads here".into());
        return;
    };
    let cut = (fit + FIT_SLACK).min(0.0).exp();
    v.value = Some(best);
    v.confidence = round3(p * cut);
    if cut < 1.0 {
        v.note = Some("the writing reads as something else too".into());
    }
    v.candidates = probs
        .into_iter()
        .take(CANDIDATES)
        .map(|(c, p)| (c, round3(p)))
        .collect();
}

/// The numbers a round or board (`field`) may say: for a round the closed set `rounds`
/// (the pairings'), else `1..=MAX_NUMBER` and a round and a game in it (`2.1`); for a
/// board `1..=MAX_NUMBER`.
fn number_set(field: &str, rounds: &[String]) -> Vec<String> {
    let round = field == "round";
    if round && !rounds.is_empty() {
        return rounds.to_vec();
    }
    let mut set: Vec<String> = (1..=MAX_NUMBER).map(|n| n.to_string()).collect();
    if round {
        for r in 1..=MAX_DOTTED_ROUND {
            set.extend((1..=9).map(|g| format!("{r}.{g}")));
        }
    }
    set
}

/// A round or board: the numbers of [`number_set`], each also written with a
/// trailing dot, scored by the values reader (or the cell reader); where the text
/// reader scored them too (`s.number_scores`), the two readers' probabilities averaged,
/// `weight` on the first's, or the text reader's alone where the first reads no number
/// and it does. The fit is the better of the two readers' (the first's best number
/// against its own reading; the text reader's for the value taken): a number the text
/// reader reads as written is not doubted because the cell reader, made for moves,
/// reads a `9` as a `g`.
fn read_number(v: &mut ValueRead, cell: &mut Cell, set: &[String], s: &SpotText, weight: f32) {
    let mut scored = Vec::with_capacity(set.len() * 2);
    for n in set {
        scored.push((n.clone(), cell.log_share(n)));
        scored.push((n.clone(), cell.log_share(&format!("{n}."))));
    }
    let own = cell.own();
    let by_cell = softmax(&scored);
    let by_text = softmax(&s.number_scores);
    let cell_best = scored.iter().map(|x| x.1).fold(f32::NEG_INFINITY, f32::max);
    let cell_fit = cell_best - own.max(cell_best);
    let text_fit = |value: &str| {
        s.number_scores
            .iter()
            .find(|(n, _)| n == value)
            .map_or(f32::NEG_INFINITY, |(_, t)| *t - s.number_own.max(*t))
    };
    // As for a result: where no number explains the cell reader's own reading (a `9`,
    // which moves never hold, read as `g`) and the text reader's best number explains
    // its own, the text reader alone decides.
    let text_alone = by_text
        .first()
        .is_some_and(|(n, _)| text_decides(cell_fit, text_fit(n)));
    let probs = if by_text.is_empty() {
        by_cell
    } else if text_alone {
        by_text
    } else {
        average(&by_cell, &by_text, weight)
    };
    let Some(value) = probs.first().map(|p| p.0.clone()) else {
        take_best(v, probs, 0.0);
        return;
    };
    take_best(v, probs, cell_fit.max(text_fit(&value)));
}

/// Whether the text reader alone decides a closed-set value: the cell reader's best
/// candidate falls more than [`FIT_SLACK`] short of its own reading (a word or digit
/// it cannot spell) and the text reader's best one does not.
fn text_decides(cell_fit: f32, text_fit: f32) -> bool {
    cell_fit + FIT_SLACK < 0.0 && text_fit + FIT_SLACK >= 0.0
}

/// Two readers' probabilities per value, averaged with weight `wa` on `a`'s, best
/// first.
fn average(a: &[(String, f32)], b: &[(String, f32)], wa: f32) -> Vec<(String, f32)> {
    let mut merged: Vec<(String, f32)> = a.iter().map(|(r, p)| (r.clone(), p * wa)).collect();
    for (r, p) in b {
        match merged.iter_mut().find(|(w, _)| w == r) {
            Some(e) => e.1 += p * (1.0 - wa),
            None => merged.push((r.clone(), p * (1.0 - wa))),
        }
    }
    merged.sort_by(|x, y| y.1.total_cmp(&x.1));
    merged
}

/// Result spellings the cell reader or the text reader may read in a result field,
/// with their PGN result.
const RESULT_SPELLINGS: &[(&str, &str)] = &[
    ("1-0", "1-0"),
    ("1:0", "1-0"),
    ("1-O", "1-0"),
    ("10", "1-0"),
    ("+-", "1-0"),
    ("0-1", "0-1"),
    ("0:1", "0-1"),
    ("O-1", "0-1"),
    ("01", "0-1"),
    ("-+", "0-1"),
    ("1/2-1/2", "1/2-1/2"),
    ("1/2:1/2", "1/2-1/2"),
    ("1/2", "1/2-1/2"),
    ("½-½", "1/2-1/2"),
    ("½:½", "1/2-1/2"),
    ("½", "1/2-1/2"),
    ("=", "1/2-1/2"),
    ("0,5-0,5", "1/2-1/2"),
    ("0.5-0.5", "1/2-1/2"),
];

/// Words for a draw.
const RESULT_WORDS: &[(&str, &str)] = &[
    ("remis", "1/2-1/2"),
    ("Remis", "1/2-1/2"),
    ("draw", "1/2-1/2"),
    ("Draw", "1/2-1/2"),
    ("ничья", "1/2-1/2"),
    ("Ничья", "1/2-1/2"),
    ("nulle", "1/2-1/2"),
    ("Nulle", "1/2-1/2"),
    ("tablas", "1/2-1/2"),
    ("Tablas", "1/2-1/2"),
];

/// Every spelling of a result field with its PGN result; a resign word (the
/// `word` column of `src/resign_words.tsv`) as `resigned`.
fn result_spellings() -> impl Iterator<Item = (&'static str, &'static str)> {
    RESULT_SPELLINGS
        .iter()
        .chain(RESULT_WORDS)
        .copied()
        .chain(RESIGN_WORDS.iter().map(|w| (*w, "resigned")))
}

/// A result field: each reader scores the spellings it spells (the text reader's in
/// `text`, from [`look`], with `own` its own reading and that reading's score); each
/// reader's probabilities per result (softmax over its spellings), averaged where
/// both read some. Where the cell reader's own reading explains the crop far better
/// than any result it spells (a word it cannot spell: `Remis`, `ничья`) and the text
/// reader's spellings explain it about as well as its own reading of three characters
/// or more, the text reader alone decides: a stroke left on a blank line reads `=` or
/// `-` to it, never a word.
fn read_result(
    v: &mut ValueRead,
    cell: &mut Cell,
    text: &[(&str, &str, f32)],
    own: Option<(&str, f32)>,
) {
    let mut cell_scored = Vec::new();
    for (s, r) in result_spellings() {
        if spells(cell.alphabet, s) {
            cell_scored.push((r.to_string(), cell.log_share(s)));
        }
    }
    let best = cell_scored
        .iter()
        .map(|s| s.1)
        .fold(f32::NEG_INFINITY, f32::max);
    let cell_fit = best - cell.own().max(best);
    let text_best = text.iter().map(|t| t.2).fold(f32::NEG_INFINITY, f32::max);
    let text_fit = match own {
        Some((t, score)) if t.chars().count() >= 3 && score.is_finite() => {
            text_best - score.max(text_best)
        }
        _ => f32::NEG_INFINITY,
    };
    let by_cell = softmax(&cell_scored);
    let by_text = softmax(
        &text
            .iter()
            .map(|(_, r, s)| (r.to_string(), *s))
            .collect::<Vec<_>>(),
    );
    let text_alone = text_decides(cell_fit, text_fit);
    let probs = if by_text.is_empty() {
        by_cell
    } else if text_alone || by_cell.is_empty() {
        by_text
    } else {
        // Where only the text reader spells what is written (`½`, a word), it alone
        // is sure of it and the average still names it.
        average(&by_cell, &by_text, 0.5)
    };
    take_best(v, probs, if text_alone { text_fit } else { cell_fit });
}

/// A player's name: with the pairings' names, the candidates scored by the text reader
/// (and by the cell reader where it spells every candidate), a softmax over them;
/// without, the text reader's open reading.
fn read_name(v: &mut ValueRead, cell: &mut Cell, s: &SpotText, names: &[String], cyr: bool) {
    if names.is_empty() {
        read_open(v, s, cyr, true);
        return;
    }
    let mut logp: Vec<f32> = vec![0.0; names.len()];
    let mut any = false;
    let by_text: Vec<(String, f32)> = names
        .iter()
        .zip(&s.name_scores)
        .filter_map(|(n, sc)| sc.map(|sc| (n.clone(), sc)))
        .collect();
    if by_text.len() == names.len() {
        for (l, (_, sc)) in logp.iter_mut().zip(&by_text) {
            *l += sc;
        }
        any = true;
    }
    if names.iter().all(|n| spells(cell.alphabet, n)) {
        for (l, n) in logp.iter_mut().zip(names) {
            *l += cell.log_share(n);
        }
        any = true;
    }
    if !any {
        v.note = Some(if s.name_scores.is_empty() {
            "no text reader: names are not read".into()
        } else {
            "the readers cannot spell every name of the pairings".into()
        });
        return;
    }
    let scored: Vec<(String, f32)> = names.iter().cloned().zip(logp).collect();
    take_best(v, softmax(&scored), 0.0);
}

/// An open reading by the text reader (no closed set): its text and probability. On a
/// Russian form (`cyr`), the reading as Cyrillic unless the line is written in Latin
/// letters ([`written_in_latin`]); a name's words capitalised (`name`), an event's
/// first.
fn read_open(v: &mut ValueRead, s: &SpotText, cyr: bool, name: bool) {
    let line = s.line.as_ref();
    let latin = line.map(|(t, p)| (super::fields::before_print(t).trim(), *p));
    if let Some((text, _)) = latin
        && super::fields::reads_labels(text)
    {
        v.note = Some(format!(
            "reads the form's print (`{text}`), nothing written"
        ));
        return;
    }
    if cyr {
        let Some(r) = s.cyrillic.as_ref() else {
            v.note = Some("written in Cyrillic, which the text reader cannot read".into());
            return;
        };
        let read = latin.map_or("", |l| l.0);
        if !written_in_latin(read, r) {
            if r.text.is_empty() {
                v.note = Some("the text reader reads nothing here".into());
                return;
            }
            v.value = Some(capitalise(&r.text, name));
            // How sure the reader is of the strokes; the letters they are taken for
            // always want a look.
            v.confidence = round3(latin.map_or(0.0, |l| l.1).min(REPAIRED_MAX));
            v.note = Some(format!(
                "read in Cyrillic from the text reader's Latin look-alikes (`{read}`): check it"
            ));
            return;
        }
    }
    match latin {
        // A name or an event is written in letters: a reading with none is the line
        // written on or a stray mark (a slanted rule reads as `一`).
        Some((text, _)) if !text.is_empty() && name_letters(text) == 0 => {
            v.note = Some(format!(
                "reads no letter (`{text}`): the line written on or a stray mark"
            ));
        }
        Some((text, p)) if !text.is_empty() => {
            v.value = Some(text.to_string());
            v.confidence = round3(p);
        }
        Some(_) => v.note = Some("the text reader reads nothing here".into()),
        None => v.note = Some("no text reader: not read".into()),
    }
}

/// A date: the cell reader's reading (digits and separators) and the text reader's
/// (a month in words too), each in `YYYY.MM.DD` with `??` for parts not read. Each
/// reader's sureness is its mean per character (a whole date's probability falls
/// with its length however clearly it is written) times the share of parts read;
/// the two agreeing make it surer, disagreeing less sure, with both kept as
/// candidates.
fn read_date(v: &mut ValueRead, cell: &mut Cell, s: &SpotText) {
    let line = s.line.as_ref();
    // The changed readings' dates (see [`SpotText::date_scores`]), likeliest first.
    let scored: Vec<(String, f32)> = s
        .date_scores
        .iter()
        .map(|(d, p, _)| (d.clone(), *p))
        .collect();
    let changed = softmax(&scored);
    let own = cell.own();
    let chars = cell.greedy.chars().count().max(1) as f32;
    let by_cell = parse_date(&cell.greedy).map(|d| {
        let p = (own / chars).exp().min(1.0) * date_share(&d, &cell.greedy);
        (d, p)
    });
    let mut filled = false;
    let by_text = line.and_then(|(t, p)| {
        let d = parse_date(t)?;
        // A month that did not read, chosen among the months' spellings where one
        // is clearly likelier than the rest together.
        if let Some((month, pm)) = changed.first().filter(|(_, pm)| *pm >= MONTH_FLOOR) {
            filled = true;
            return Some((month.clone(), p * pm));
        }
        Some((d.clone(), p * date_share(&d, t)))
    });
    // A reading that makes no date: the date one edit of it makes, where one does
    // clearly and the edited text explains the writing about as well.
    let repaired = filled || by_text.is_none();
    let by_text = by_text.or_else(|| {
        let (_, p) = line?;
        let (d, pd) = changed.first()?.clone();
        // A Russian month's word scored through its letters' look-alikes falls
        // short of the reader's free Latin reading by up to a nat or two per letter
        // however clearly it is written: that much is no misfit.
        let (best, slack) = s
            .date_scores
            .iter()
            .filter(|(r, _, _)| *r == d)
            .map(|(_, p, letters)| (*p, FIT_SLACK + LOOK_ALIKE_SLACK * *letters as f32))
            .fold((f32::NEG_INFINITY, FIT_SLACK), |a, b| {
                if b.0 + b.1 > a.0 + a.1 { b } else { a }
            });
        let cut = (best - s.date_own.max(best) + slack).min(0.0).exp();
        (pd >= REPAIR_FLOOR).then(|| (d, p * pd * cut))
    });
    let cell_date = by_cell.as_ref().map(|d| d.0.clone());
    let (value, confidence, candidates) = match (by_cell, by_text) {
        (Some((a, pa)), Some((b, pb))) if a == b => {
            (a.clone(), 1.0 - (1.0 - pa) * (1.0 - pb), vec![(a, 1.0)])
        }
        (Some(a), Some(b)) => {
            let (best, other) = if a.1 >= b.1 { (a, b) } else { (b, a) };
            v.note = Some(format!(
                "the two readers disagree: `{}` or `{}`",
                best.0, other.0
            ));
            let total = best.1 + other.1;
            let cands = vec![
                (best.0.clone(), round3(best.1 / total.max(1e-6))),
                (other.0, round3(other.1 / total.max(1e-6))),
            ];
            (best.0, best.1 * DATE_DISAGREE, cands)
        }
        (Some((d, p)), None) | (None, Some((d, p))) => (d.clone(), p, vec![(d, 1.0)]),
        (None, None) => {
            v.note = Some(match line.map(|l| l.0.trim()).filter(|t| !t.is_empty()) {
                Some(t) => format!(
                    "no date reads here (`{}`; the text reader: `{t}`)",
                    cell.greedy
                ),
                None => format!("no date reads here (`{}`)", cell.greedy),
            });
            return;
        }
    };
    v.confidence = round3(confidence);
    // A date made by editing the text reader's reading, or its month chosen among the
    // months' spellings, the cell reader not reading the same, is always shown to a
    // reviewer, with the reading it was made from.
    if repaired && cell_date.as_deref() != Some(value.as_str()) {
        v.confidence = v.confidence.min(REPAIRED_MAX);
        if v.note.is_none()
            && let Some((t, _)) = line
        {
            v.note = Some(if filled {
                format!(
                    "the text reader reads `{}`: the month is the spelling that explains it best",
                    t.trim()
                )
            } else {
                format!(
                    "the text reader reads `{}`: one edit makes it this date",
                    t.trim()
                )
            });
        }
    }
    v.value = Some(value);
    v.candidates = candidates;
}

/// Share of a date's parts read (a part `??` counts none); a year written alone
/// (`1982` on an old sheet) is all there is to read.
fn date_share(date: &str, written: &str) -> f32 {
    let known = date.split('.').filter(|p| !p.contains('?')).count();
    let parts: Vec<&str> = written
        .split(|c: char| !c.is_alphanumeric())
        .filter(|p| !p.is_empty())
        .collect();
    // (Eight digits run together are a whole date misread, not a year.)
    if let [year] = parts[..]
        && year.chars().count() == 4
        && date.ends_with(".??.??")
        && !date.starts_with('?')
    {
        return 1.0;
    }
    known as f32 / 3.0
}

/// A written date in PGN's `YYYY.MM.DD`, parts out of range as `??` (`????` for the
/// year); `None` when it does not read as a date at all. Digits and separators
/// (`27/7/2020`, `02.02.2022`, `2022-02-02`, `27.7.20`), or a month in words (`2
/// февраля 2022`, `2 Feb 2022`, `2. Februar 2022`).
pub fn parse_date(text: &str) -> Option<String> {
    let owned = date_tokens(text);
    let parts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let (y, m, d) = match parts[..] {
        [a, b, c] if is_num(a) && is_num(c) => {
            let month = if is_num(b) {
                b.parse().ok()
            } else {
                month_word(b)
            };
            if a.len() == 4 {
                (Some(a), month, c.parse().ok())
            } else if c.len() == 4 || c.len() == 2 {
                (Some(c), month, a.parse().ok())
            } else {
                return None;
            }
        }
        // Month and year (`03.2018`, `May 2019`).
        [a, b] if is_num(b) && b.len() == 4 && (a.len() <= 2 || !is_num(a)) => {
            let month = if is_num(a) {
                a.parse().ok()
            } else {
                month_word(a)
            };
            let month = month.filter(|m| (1..=12).contains(m))?;
            (Some(b), Some(month), None)
        }
        // One separator missed: day and month run together before the year (`1904
        // 2020`), or month and day after it (`2021-0102`).
        [a, b] if is_num(a) && is_num(b) && a.len() == 4 && b.len() == 4 => {
            let year_like = |y: &str| y.starts_with("19") || y.starts_with("20");
            let valid = |d: &str, m: &str| {
                let (d, m): (u32, u32) = (d.parse().unwrap_or(0), m.parse().unwrap_or(0));
                (1..=31).contains(&d) && (1..=12).contains(&m)
            };
            if year_like(b) && valid(&a[..2], &a[2..]) {
                (Some(b), a[2..].parse().ok(), a[..2].parse().ok())
            } else if year_like(a) && valid(&b[2..], &b[..2]) {
                (Some(a), b[..2].parse().ok(), b[2..].parse().ok())
            } else {
                return None;
            }
        }
        // A year alone (a game's year on an old sheet).
        [a] if a.len() == 4 && is_num(a) => (Some(a), None, None),
        [a] if a.len() == 8 && is_num(a) => {
            if a.starts_with("19") || a.starts_with("20") {
                (Some(&a[..4]), a[4..6].parse().ok(), a[6..].parse().ok())
            } else {
                (Some(&a[4..]), a[2..4].parse().ok(), a[..2].parse().ok())
            }
        }
        _ => return None,
    };
    // A sheet is written before it is read: a later year is misread (`2022` read
    // `2088`), and a year of two digits past this one is last century's (`98`).
    let latest = this_year();
    let year = y.and_then(|y| {
        let n: u32 = y.parse().ok()?;
        match y.len() {
            4 if (1900..=latest).contains(&n) => Some(n),
            2 if 2000 + n <= latest => Some(2000 + n),
            2 => Some(1900 + n),
            _ => None,
        }
    });
    let month: Option<u32> = m.filter(|m| (1..=12).contains(m));
    let day: Option<u32> = d.filter(|d: &u32| (1..=31).contains(d));
    if year.is_none() && month.is_none() && day.is_none() {
        return None;
    }
    let two = |x: Option<u32>| x.map_or_else(|| "??".to_string(), |x| format!("{x:02}"));
    Some(format!(
        "{}.{}.{}",
        year.map_or_else(|| "????".to_string(), |y| y.to_string()),
        two(month),
        two(day)
    ))
}

/// The year now, by the system's clock (a clock before 2000 counts as 2000).
fn this_year() -> u32 {
    const SECONDS_PER_YEAR: u64 = 31_556_952;
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    (1970 + secs / SECONDS_PER_YEAR).max(2000) as u32
}

/// A digit's look-alike in the readers' output; the cell reader, made for moves, has
/// no `9` and reads it as the file `g`.
fn digit_of(c: char) -> Option<char> {
    match c {
        '0'..='9' => Some(c),
        'O' | 'o' | 'О' | 'о' => Some('0'),
        'l' | 'I' | 'i' | '|' => Some('1'),
        'g' => Some('9'),
        // Sub- and superscript digits (a small digit written low or high).
        '₀'..='₉' => char::from_u32(c as u32 - '₀' as u32 + '0' as u32),
        '⁰' => Some('0'),
        '¹' => Some('1'),
        '²' => Some('2'),
        '³' => Some('3'),
        '⁴'..='⁹' => char::from_u32(c as u32 - '⁴' as u32 + '4' as u32),
        _ => None,
    }
}

/// A written date's parts: split at what is neither letter nor digit, and where a
/// word (three letters or more, at least two of them no digit's look-alike: `Dec`,
/// `Oct`, `lipca`) touches digits (`18Dec2018`). Elsewhere look-alikes are digits
/// (`2O22`, `1g82`); a word keeps its letters (`Oct` is no `0ct`).
fn date_tokens(text: &str) -> Vec<String> {
    date_parts(text).into_iter().map(|(t, _)| t).collect()
}

/// [`date_tokens`] with the bytes of `text` each part was read from.
fn date_parts(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut chunks: Vec<(usize, &str)> = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s0)) => {
                chunks.push((s0, &text[s0..i]));
                start = None;
            }
            _ => {}
        }
    }
    for (base, raw) in chunks {
        let chars: Vec<(usize, char)> = raw.char_indices().collect();
        let at = |k: usize| base + chars.get(k).map_or(raw.len(), |c| c.0);
        let mut runs: Vec<(bool, usize, usize)> = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let alpha = chars[i].1.is_alphabetic();
            let mut j = i;
            while j < chars.len() && chars[j].1.is_alphabetic() == alpha {
                j += 1;
            }
            let word = alpha
                && j - i >= 3
                && chars[i..j]
                    .iter()
                    .filter(|c| digit_of(c.1).is_none())
                    .count()
                    >= 2;
            runs.push((word, i, j));
            i = j;
        }
        let mut number = String::new();
        let mut number_from = 0;
        for (word, i, j) in runs {
            if word {
                if !number.is_empty() {
                    out.push((std::mem::take(&mut number), number_from..at(i)));
                }
                out.push((chars[i..j].iter().map(|c| c.1).collect(), at(i)..at(j)));
            } else {
                if number.is_empty() {
                    number_from = at(i);
                }
                number.extend(chars[i..j].iter().map(|c| digit_of(c.1).unwrap_or(c.1)));
            }
        }
        if !number.is_empty() {
            out.push((number, number_from..at(chars.len())));
        }
    }
    out
}

/// The dates one edit of `text` makes (a digit or a separator put in, taken out or
/// put for another character): each date that is whole (day, month and year, or a
/// year written alone) with the edited text. The text reader drops a character now
/// and then (`989` for `1989`, `21.2016` for `2.1.2016`); scored against the crop,
/// the edit that explains the writing wins.
fn date_repairs(text: &str) -> Vec<(String, String)> {
    const PUT: &[char] = &[
        '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '.', '/', '-', ' ',
    ];
    let chars: Vec<char> = text.trim().chars().collect();
    if chars.is_empty() || chars.len() > 16 {
        return Vec::new();
    }
    let mut edits: Vec<String> = Vec::new();
    for i in 0..=chars.len() {
        for &c in PUT {
            let mut e = chars.clone();
            e.insert(i, c);
            edits.push(e.into_iter().collect());
        }
        if i < chars.len() {
            let mut e = chars.clone();
            e.remove(i);
            edits.push(e.iter().collect());
            for &c in PUT {
                if c != chars[i] {
                    let mut e = chars.clone();
                    e[i] = c;
                    edits.push(e.into_iter().collect());
                }
            }
        }
    }
    edits.sort();
    edits.dedup();
    edits
        .into_iter()
        .filter(|e| e.trim() == e)
        .filter_map(|e| {
            let d = parse_date(&e)?;
            let alone = date_tokens(&e).len() == 1 && d.ends_with(".??.??");
            (!d.contains('?') || alone).then_some((d, e))
        })
        .collect()
}

/// The ways a month is written in a date, besides its number (`7`, `07`): English,
/// German, Polish and Russian (genitive), full and cut short.
const MONTH_WORDS: [&[&str]; 12] = [
    &[
        "Jan",
        "January",
        "Januar",
        "Jänner",
        "stycznia",
        "января",
        "янв",
    ],
    &["Feb", "February", "Februar", "lutego", "февраля", "фев"],
    &["Mar", "March", "März", "marca", "марта", "мар"],
    &["Apr", "April", "kwietnia", "апреля", "апр"],
    &["May", "Mai", "maja", "мая"],
    &["Jun", "June", "Juni", "czerwca", "июня", "июн"],
    &["Jul", "July", "Juli", "lipca", "июля", "июл"],
    &["Aug", "August", "sierpnia", "августа", "авг"],
    &["Sep", "Sept", "September", "września", "сентября", "сен"],
    &[
        "Oct",
        "October",
        "Okt",
        "Oktober",
        "października",
        "октября",
        "окт",
    ],
    &["Nov", "November", "listopada", "ноября", "ноя"],
    &[
        "Dec",
        "December",
        "Dez",
        "Dezember",
        "grudnia",
        "декабря",
        "дек",
    ],
];

/// A date whose day and year read but not its month (`31 0ct 2015`, `17/z/2021`):
/// per month and spelling of it (its number, [`MONTH_WORDS`] as listed and in lower
/// case), the date with that month and the text with the spelling put where the
/// month was read, to score against the crop. None for any other date.
fn month_candidates(text: &str) -> Vec<(String, String)> {
    let Some(date) = parse_date(text) else {
        return Vec::new();
    };
    let (y, rest) = date.split_at(4);
    let (month, d) = (&rest[1..3], &rest[4..]);
    let parts = date_parts(text);
    let [_, (_, slot), _] = &parts[..] else {
        return Vec::new();
    };
    if y.contains('?') || d.contains('?') || month != "??" {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, words) in MONTH_WORDS.iter().enumerate() {
        let m = i as u32 + 1;
        let mut spellings = vec![m.to_string(), format!("{m:02}")];
        for w in *words {
            spellings.push((*w).to_string());
            spellings.push(w.to_lowercase());
            if w.chars().any(is_cyrillic) {
                spellings.push(w.chars().map(cursive_look_alike).collect());
            }
        }
        spellings.sort();
        spellings.dedup();
        for sp in spellings {
            out.push((
                format!("{y}.{m:02}.{d}"),
                format!("{}{sp}{}", &text[..slot.start], &text[slot.end..]),
            ));
        }
    }
    out
}

/// A date written with its month in Russian words, read by a Latin reader (`29
/// ceHTA6pa 2019`, `19 9HB aD8 2025`): a day of one or two digits first, a year of
/// four last, and between them something with two letters at least and no date of its
/// own. The month's letters may be read as digits where it meets them (`6 октября
/// 2013` read `60kT96p92013`, `28 сентября 2014` read `28ceHT96p92014`): a leading run
/// of digits that is no day gives its first one or two digits that are one, a
/// trailing run longer than a year its last four. Per month and Russian spelling of it
/// ([`MONTH_WORDS`]), the date and the text with the spelling put between the day and
/// the year as read, to score against the crop through the letters' look-alikes.
/// Nothing for any other reading.
fn russian_month_candidates(text: &str) -> Vec<(String, String)> {
    let t = text.trim();
    // Digits are ASCII: a run's length in characters is its length in bytes.
    let lead = t.chars().take_while(char::is_ascii_digit).count();
    let tail = t.chars().rev().take_while(char::is_ascii_digit).count();
    if lead == 0 || tail < 4 || parse_date(t).is_some_and(|d| !d[5..7].contains('?')) {
        return Vec::new();
    }
    let year_start = t.len() - 4;
    let year = &t[year_start..];
    let Some(y) = parse_date(year) else {
        return Vec::new();
    };
    let day_to = |end: usize| {
        let day = t[..end]
            .parse::<u32>()
            .ok()
            .filter(|d| (1..=31).contains(d))?;
        Some((end, day))
    };
    let days: Vec<(usize, u32)> = match day_to(lead).filter(|_| lead <= 2) {
        Some(d) => vec![d],
        None => (1..=lead.min(2)).filter_map(day_to).collect(),
    };
    let mut out = Vec::new();
    for (day_end, day) in days.into_iter().filter(|&(e, _)| e < year_start) {
        let middle = &t[day_end..year_start];
        if middle.chars().filter(|c| c.is_alphabetic()).count() < 2 {
            continue;
        }
        let (before, after) = (
            if middle.starts_with(' ') { " " } else { "" },
            if middle.ends_with(' ') { " " } else { "" },
        );
        for (i, words) in MONTH_WORDS.iter().enumerate() {
            for w in words.iter().filter(|w| w.chars().any(is_cyrillic)) {
                out.push((
                    format!("{}.{:02}.{day:02}", &y[..4], i + 1),
                    format!("{}{before}{w}{after}{year}", &t[..day_end]),
                ));
            }
        }
    }
    out
}

/// A lower-case Cyrillic letter written by hand -> the Latin letter the text reader
/// (Latin only) reads it as: cursive `т` is an `m`, `п` and `л` an `n`, `и` a `u`
/// (`марта` reads `uapma`, `апреля` `anpena`, `мая` `Maa`).
fn cursive_look_alike(c: char) -> String {
    match c {
        'а' | 'я' => "a",
        'б' => "6",
        'в' | 'ь' | 'ъ' => "b",
        'г' | 'ч' => "r",
        'д' => "g",
        'е' | 'ё' => "e",
        'ж' | 'х' => "x",
        'з' | 'э' => "3",
        'и' | 'й' | 'ц' => "u",
        'к' => "k",
        'л' | 'п' => "n",
        'м' | 'т' => "m",
        'н' => "H",
        'о' => "o",
        'р' => "p",
        'с' => "c",
        'у' => "y",
        'ф' => "qp",
        'ш' | 'щ' => "w",
        'ю' => "io",
        'ы' => "bl",
        c => return c.to_string(),
    }
    .to_string()
}

fn is_num(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

/// A month written in words (English, German, Polish, Russian; full, genitive or cut
/// to three letters).
fn month_word(word: &str) -> Option<u32> {
    const MONTHS: [&[&str]; 12] = [
        &["jan", "stycz", "январ", "янв"],
        &["feb", "lut", "феврал", "фев"],
        &["mar", "mär", "мар"],
        &["apr", "kwie", "апр"],
        &["may", "mai", "maj", "ма"],
        &["jun", "czerw", "июн"],
        &["jul", "lip", "июл"],
        &["aug", "sierp", "авг"],
        &["sep", "wrze", "сен"],
        &["oct", "okt", "paźdz", "pazdz", "окт"],
        &["nov", "lis", "ноя"],
        &["dec", "dez", "grud", "дек"],
    ];
    let w = word.to_lowercase();
    if w.chars().count() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|stems| stems.iter().any(|s| w.starts_with(s)))
        .map(|i| i as u32 + 1)
}

/// The ink written in `value_box` on `page`, cut out close (with a margin), the
/// printed rules (rows or columns mostly dark: the line written on, the box's
/// edges) and the form's own `print` (its labels' and captions' boxes, with
/// [`PRINT_PAD`] pixels round them) taken out; `None` when the box holds less ink than
/// a written value. Where nothing is that dark, fine strokes: pixels half as dark,
/// at the edge of a stroke (paper as much lighter within [`STROKE_REACH`] pixels; a
/// shadow's slope is no stroke), so that a small date in a fine pen is written.
pub fn ink_crop(page: &GrayImage, value_box: [u32; 4], print: &[[u32; 4]]) -> Option<GrayImage> {
    ink_crop_at(page, value_box, print, false).or_else(|| ink_crop_at(page, value_box, print, true))
}

/// How far (pixels) from a fine stroke's pixel the paper beside it is looked for.
const STROKE_REACH: u32 = 3;

/// [`ink_crop`] at the dark level, or with `fine` strokes too.
fn ink_crop_at(
    page: &GrayImage,
    value_box: [u32; 4],
    print: &[[u32; 4]],
    fine: bool,
) -> Option<GrayImage> {
    let [x, y, w, h] = value_box;
    let (pw, ph) = page.dimensions();
    let (x1, y1) = ((x + w).min(pw), (y + h).min(ph));
    if x >= x1 || y >= y1 {
        return None;
    }
    let (w, h) = (x1 - x, y1 - y);
    let mut values: Vec<u8> = Vec::with_capacity((w * h) as usize);
    for yy in y..y1 {
        for xx in x..x1 {
            values.push(page.get_pixel(xx, yy).0[0]);
        }
    }
    // The paper: most of a value box is paper.
    let mut sorted = values.clone();
    sorted.sort_unstable();
    let paper = sorted[sorted.len() * 3 / 4];
    for &[px, py, pw, ph] in print {
        let (px0, py0) = (
            px.saturating_sub(PRINT_PAD).max(x),
            py.saturating_sub(PRINT_PAD).max(y),
        );
        let (px1, py1) = ((px + pw + PRINT_PAD).min(x1), (py + ph + PRINT_PAD).min(y1));
        for yy in py0..py1 {
            for xx in px0..px1 {
                values[((yy - y) * w + (xx - x)) as usize] = paper;
            }
        }
    }
    let cut = paper.saturating_sub(INK_DELTA);
    let pale = paper.saturating_sub(INK_DELTA / 2);
    let at = |xx: u32, yy: u32| values[(yy * w + xx) as usize];
    // Paper as much lighter across or down within reach (a step left of or above
    // the box wraps past its width or height, and is no pixel).
    let lighter = |xx: u32, yy: u32, v: u8| {
        let paper_by = v.saturating_add(INK_DELTA / 2);
        (1..=STROKE_REACH).any(|d| {
            [
                (xx.wrapping_sub(d), yy),
                (xx + d, yy),
                (xx, yy.wrapping_sub(d)),
                (xx, yy + d),
            ]
            .into_iter()
            .any(|(a, b)| a < w && b < h && at(a, b) >= paper_by)
        })
    };
    let dark = |xx: u32, yy: u32| {
        let v = at(xx, yy);
        v < cut || (fine && v < pale && lighter(xx, yy, v))
    };
    let share = RULE_SHARE * w as f32;
    let row_dark: Vec<f32> = (0..h)
        .map(|yy| (0..w).filter(|&xx| dark(xx, yy)).count() as f32)
        .collect();
    let rule_row: Vec<bool> = (0..h)
        .map(|yy| {
            row_dark[yy as usize] > share
                && super::fields::longest_run(
                    (0..w).map(|xx| at(xx, yy) < pale),
                    super::fields::RULE_GAP,
                ) as f32
                    > share
        })
        .collect();
    let rule_row = rule_bands(rule_row, |yy| row_dark[yy] <= share);
    // A side runs down from the box's top rule: the rows below the lowest rule row
    // in the box's top third (all rows without one).
    let top = (0..h / 3)
        .rev()
        .find(|&yy| rule_row[yy as usize])
        .map_or(0, |yy| yy + 1);
    let col_share: Vec<f32> = (0..w)
        .map(|xx| (top..h).filter(|&yy| dark(xx, yy)).count() as f32 / (h - top) as f32)
        .collect();
    // Each run of columns over the blur's share is a side where one of them is over
    // the side's.
    let mut rule_col = vec![false; w as usize];
    let mut start = 0;
    while start < col_share.len() {
        let len = col_share[start..]
            .iter()
            .take_while(|&&c| c > EDGE_BLUR_SHARE)
            .count();
        let run = start..start + len;
        if col_share[run.clone()].iter().any(|&c| c > EDGE_SHARE) {
            rule_col[run].iter_mut().for_each(|f| *f = true);
        }
        start += len.max(1);
    }
    let ink = |xx: u32, yy: u32| !rule_row[yy as usize] && !rule_col[xx as usize] && dark(xx, yy);
    let mut count = 0usize;
    let (mut bx0, mut by0, mut bx1, mut by1) = (w, h, 0, 0);
    // Ink next to a rule row or column is the rule's own blur: not counted.
    let near_rule = |xx: u32, yy: u32| {
        (yy > 0 && rule_row[yy as usize - 1])
            || (yy + 1 < h && rule_row[yy as usize + 1])
            || (xx > 0 && rule_col[xx as usize - 1])
            || (xx + 1 < w && rule_col[xx as usize + 1])
    };
    for yy in 0..h {
        for xx in 0..w {
            if ink(xx, yy) && !near_rule(xx, yy) {
                count += 1;
                bx0 = bx0.min(xx);
                by0 = by0.min(yy);
                bx1 = bx1.max(xx + 1);
                by1 = by1.max(yy + 1);
            }
        }
    }
    // Ink a few pixels high is a printed line the rule test missed (grey or
    // drifting), never writing.
    if count < MIN_INK_PIXELS
        || (count as f32) < MIN_INK_SHARE * (w.min(INK_AREA_WIDTH * h) * h) as f32
        || by1 - by0 < MIN_INK_HEIGHT
    {
        return None;
    }
    let margin = 4;
    let (cx0, cy0) = (bx0.saturating_sub(margin), by0.saturating_sub(margin));
    let (cx1, cy1) = ((bx1 + margin).min(w), (by1 + margin).min(h));
    Some(GrayImage::from_fn(cx1 - cx0, cy1 - cy0, |i, j| {
        let (xx, yy) = (cx0 + i, cy0 + j);
        let v = at(xx, yy);
        let on_rule = rule_row[yy as usize] || rule_col[xx as usize];
        image::Luma([if on_rule { paper } else { v }])
    }))
}

/// The rows of `rows` (a rule's ink on each) that are printed rules: bands of at
/// most [`RULE_THICK`] rows with a `clear` row (no rule's worth of ink, or past the
/// box's edge) [`RULE_CLEAR`] rows above and below them. The bodies of large digits
/// in a narrow box are thicker, or have their ink beside the band.
fn rule_bands(mut rows: Vec<bool>, clear: impl Fn(usize) -> bool) -> Vec<bool> {
    let n = rows.len();
    let clear_at = |r: Option<usize>| r.is_none_or(|r| r >= n || clear(r));
    let mut i = 0;
    while i < n {
        let len = rows[i..].iter().take_while(|&&f| f).count();
        if len > 0 {
            let end = i + len - 1;
            let rule = len <= RULE_THICK
                && clear_at(i.checked_sub(RULE_CLEAR))
                && clear_at(Some(end + RULE_CLEAR));
            if !rule {
                rows[i..=end].iter_mut().for_each(|f| *f = false);
            }
        }
        i += len.max(1);
    }
    rows
}

/// The printed-text reader as the header fields' reader: its fields found by
/// [`super::fields::find_fields`], the marked printed result option with them.
impl HeaderReader for crate::model::ocr::PrintedReader {
    fn locate(&mut self, page: &GrayImage, table: Option<&Table>) -> Located {
        let form = super::fields::find_fields(page, table, self);
        let marked = form.result_options.as_ref().and_then(|o| {
            let (i, p) = o.marked?;
            let (result, bbox) = o.options.get(i)?;
            Some((result.clone(), p, *bbox))
        });
        let options = form
            .result_options
            .as_ref()
            .map(|o| o.options.iter().map(|(_, b)| *b).collect())
            .unwrap_or_default();
        let options_note = form.result_options.as_ref().and_then(|o| o.note.clone());
        Located {
            options,
            print: form.print,
            spots: form
                .fields
                .into_iter()
                .map(|f| Spot {
                    field: f.kind.as_str().to_string(),
                    label: Some(f.label),
                    value_box: f.value_box,
                })
                .collect(),
            marked,
            options_note,
        }
    }

    fn read_line(&mut self, crop: &GrayImage) -> (String, f32) {
        crate::model::ocr::PrintedReader::read_line(self, crop)
    }

    fn score(&mut self, crop: &GrayImage, text: &str) -> f32 {
        crate::model::ocr::PrintedReader::score(self, crop, text)
    }

    fn score_all(&mut self, crop: &GrayImage, texts: &[&str]) -> Vec<f32> {
        crate::model::ocr::PrintedReader::score_all(self, crop, texts)
    }

    fn read_and_score(
        &mut self,
        crop: &GrayImage,
        texts: &[&str],
    ) -> ((String, f32), f32, Vec<f32>) {
        crate::model::ocr::PrintedReader::read_and_score(self, crop, texts)
    }

    fn read_cyrillic(&mut self, crop: &GrayImage) -> Option<((String, f32), Reading)> {
        crate::model::ocr::PrintedReader::read_cyrillic(self, crop, Search::default())
    }

    fn score_russian(&mut self, crop: &GrayImage, words: &[&str]) -> Vec<f32> {
        crate::model::ocr::PrintedReader::score_russian(self, crop, words)
    }

    fn spells(&self, text: &str) -> bool {
        crate::model::ocr::PrintedReader::spells(self, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_the_usual_shapes() {
        assert_eq!(parse_date("27/7/2020").as_deref(), Some("2020.07.27"));
        assert_eq!(parse_date("02.02.2022").as_deref(), Some("2022.02.02"));
        assert_eq!(parse_date("2022-02-02").as_deref(), Some("2022.02.02"));
        assert_eq!(parse_date("27.7.20").as_deref(), Some("2020.07.27"));
        assert_eq!(parse_date("2 февраля 2022").as_deref(), Some("2022.02.02"));
        assert_eq!(parse_date("2. Februar 2022").as_deref(), Some("2022.02.02"));
        assert_eq!(parse_date("O2.O2.2O22").as_deref(), Some("2022.02.02"));
        assert_eq!(parse_date("27.13.2020").as_deref(), Some("2020.??.27"));
        assert_eq!(parse_date("1g82").as_deref(), Some("1982.??.??"));
        assert_eq!(parse_date("2 Aug 2022").as_deref(), Some("2022.08.02"));
        // Month words holding a digit's look-alike, and a date read without spaces.
        assert_eq!(parse_date("31 Oct 2015").as_deref(), Some("2015.10.31"));
        assert_eq!(parse_date("10 lipca 2018").as_deref(), Some("2018.07.10"));
        assert_eq!(parse_date("3 Nov. 2019").as_deref(), Some("2019.11.03"));
        assert_eq!(parse_date("18Dec2018").as_deref(), Some("2018.12.18"));
        assert_eq!(parse_date("1 kwietnia 2020").as_deref(), Some("2020.04.01"));
        // Month and year; one separator missed.
        assert_eq!(parse_date("03.2018").as_deref(), Some("2018.03.??"));
        assert_eq!(parse_date("May 2019").as_deref(), Some("2019.05.??"));
        assert_eq!(parse_date("1904 2020").as_deref(), Some("2020.04.19"));
        assert_eq!(parse_date("2021-0102").as_deref(), Some("2021.01.02"));
        assert_eq!(parse_date("17/₂/2021").as_deref(), Some("2021.02.17"));
        assert_eq!(parse_date("13.2018"), None);
        assert_eq!(parse_date("e4 2018"), None);
        assert_eq!(parse_date("4567 2020"), None);
        assert_eq!(parse_date("Nf3"), None);
        assert_eq!(parse_date(""), None);
        // No year after this one: a later year is misread, two digits past it are
        // last century's.
        assert_eq!(parse_date("29.4.2088").as_deref(), Some("????.04.29"));
        assert_eq!(parse_date("16.3.98").as_deref(), Some("1998.03.16"));
        let next = this_year() + 1;
        assert_eq!(
            parse_date(&format!("1.1.{next}")).as_deref(),
            Some("????.01.01")
        );
    }

    /// Whether candidates `c` hold the date `d` with the text `t`.
    fn has(c: &[(String, String)], d: &str, t: &str) -> bool {
        c.contains(&(d.to_string(), t.to_string()))
    }

    #[test]
    fn a_month_not_read_is_tried_in_each_months_spellings() {
        let c = month_candidates("31 0ct 2015");
        assert!(has(&c, "2015.10.31", "31 Oct 2015"));
        assert!(has(&c, "2015.10.31", "31 10 2015"));
        assert!(has(&c, "2015.11.31", "31 11 2015"));
        assert!(has(&c, "2015.03.31", "31 марта 2015"));
        assert!(
            has(&c, "2015.03.31", "31 mapma 2015"),
            "cursive look-alikes"
        );
        assert!(has(&c, "2015.07.31", "31 lipca 2015"));
        assert!(c.iter().all(|(d, _)| {
            let m: u32 = d[5..7].parse().unwrap_or(0);
            d.starts_with("2015.") && d.ends_with(".31") && (1..=12).contains(&m)
        }));
        let c = month_candidates("17/z/2021");
        assert!(has(&c, "2021.02.17", "17/2/2021"));
        assert!(has(&c, "2021.02.17", "17/02/2021"));
        assert!(month_candidates("31 Oct 2015").is_empty(), "the month read");
        assert!(month_candidates("0ct 2015").is_empty(), "no day");
        assert!(month_candidates("31 0ct").is_empty(), "no year");
        assert!(month_candidates("Nf3").is_empty());
    }

    #[test]
    fn a_russian_month_read_in_look_alikes_is_tried_in_each_months_words() {
        let c = russian_month_candidates("29 ceHTA6pa 2019");
        assert!(has(&c, "2019.09.29", "29 сентября 2019"));
        assert!(has(&c, "2019.01.29", "29 января 2019"));
        assert!(c.iter().all(|(d, t)| d.starts_with("2019.")
            && d.ends_with(".29")
            && t.chars().any(|ch| ('а'..='я').contains(&ch))));
        // The month read as several words, no space before the year.
        let c = russian_month_candidates("19 9HB aD8.2025");
        assert!(has(&c, "2025.01.19", "19 января2025"));
        assert!(
            russian_month_candidates("29.09.2019").is_empty(),
            "a whole date"
        );
        assert!(russian_month_candidates("29 2019").is_empty(), "no month");
        assert!(
            russian_month_candidates("ceHTA6pa 2019").is_empty(),
            "no day"
        );
        assert!(
            russian_month_candidates("29 ceHTA6pa").is_empty(),
            "no year"
        );
        assert!(russian_month_candidates("Typnup 2019").is_empty(), "no day");
        // The month's `о` read as a `0` after the day, its `я` as a `9` before the year.
        let c = russian_month_candidates("60kT96p92013");
        assert!(has(&c, "2013.10.06", "6октября2013"));
        assert!(c.iter().all(|(d, _)| d.ends_with(".06")), "60 is no day");
        let c = russian_month_candidates("28ceHT96p92014");
        assert!(has(&c, "2014.09.28", "28сентября2014"));
        assert!(c.iter().all(|(d, _)| d.starts_with("2014.")));
    }

    #[test]
    fn one_edit_of_a_reading_makes_a_whole_date() {
        let r = date_repairs("989");
        assert!(
            r.contains(&("1989.??.??".to_string(), "1989".to_string())),
            "{r:?}"
        );
        let r = date_repairs("21.2016");
        assert!(
            r.contains(&("2016.01.02".to_string(), "2.1.2016".to_string())),
            "{r:?}"
        );
        let r = date_repairs("9111/2016");
        assert!(
            r.contains(&("2016.11.09".to_string(), "9/11/2016".to_string())),
            "{r:?}"
        );
        // Only whole dates: no `??` but for a year written alone.
        for (d, t) in date_repairs("23 12.202") {
            assert_eq!(parse_date(&t).as_deref(), Some(d.as_str()));
            assert!(!d.contains('?'), "{d} from {t}");
        }
        assert!(date_repairs("").is_empty());
        assert!(
            date_repairs("Club Championship 2016").is_empty(),
            "too long to edit"
        );
        assert!(date_repairs("Smith").is_empty());
    }

    #[test]
    fn a_months_spellings_add_up() {
        let s = |d: &str, p: f32| (d.to_string(), p);
        let probs = softmax(&[
            s("2015.10.31", -1.0),
            s("2015.10.31", -1.0),
            s("2015.11.31", -1.0),
        ]);
        let (m, p) = probs.first().expect("scores");
        assert_eq!(m, "2015.10.31");
        assert!((p - 2.0 / 3.0).abs() < 1e-5, "{p}");
        let probs = softmax(&[
            s("2015.03.31", -50.0),
            s("2015.04.31", -2.0),
            s("2015.04.31", f32::NEG_INFINITY),
        ]);
        let (m, p) = probs.first().expect("scores");
        assert_eq!(m, "2015.04.31");
        assert!(*p > 0.99);
        assert!(softmax(&[]).is_empty());
    }

    #[test]
    fn date_parts_keep_where_they_were_read() {
        let t = "31 0ct 2015";
        let parts = date_parts(t);
        let spans: Vec<&str> = parts.iter().map(|(_, r)| &t[r.clone()]).collect();
        assert_eq!(spans, ["31", "0ct", "2015"]);
        let t = "18Dec2018";
        let parts = date_parts(t);
        let got: Vec<(&str, &str)> = parts
            .iter()
            .map(|(p, r)| (p.as_str(), &t[r.clone()]))
            .collect();
        assert_eq!(got, [("18", "18"), ("Dec", "Dec"), ("2018", "2018")]);
        let t = "2 февраля 2O22";
        let got: Vec<(String, &str)> = date_parts(t).into_iter().map(|(p, r)| (p, &t[r])).collect();
        assert_eq!(got[1].1, "февраля");
        assert_eq!(got[2], ("2022".to_string(), "2O22"));
    }

    #[test]
    fn a_blank_box_has_no_ink_and_a_written_one_has() {
        // A value box: paper, the line written on, then a stroke written above it.
        let mut page = GrayImage::from_pixel(200, 60, image::Luma([235]));
        for x in 0..200 {
            page.put_pixel(x, 50, image::Luma([60]));
            page.put_pixel(x, 51, image::Luma([120]));
        }
        assert!(
            ink_crop(&page, [0, 0, 200, 60], &[]).is_none(),
            "the rule alone"
        );
        for y in 10..45 {
            for x in 80..83 {
                page.put_pixel(x, y, image::Luma([30]));
            }
        }
        let crop = ink_crop(&page, [0, 0, 200, 60], &[]).expect("the stroke is ink");
        assert!(crop.width() < 20, "cut out close: {}", crop.width());
    }

    #[test]
    fn a_label_in_the_box_and_a_grey_line_are_no_value() {
        // A box reaching down over the next field's label (`Runda`): print, no value.
        let mut page = GrayImage::from_pixel(300, 60, image::Luma([235]));
        for y in 20..40 {
            for x in (20..90).step_by(4) {
                page.put_pixel(x, y, image::Luma([30]));
                page.put_pixel(x + 1, y, image::Luma([30]));
            }
        }
        assert!(
            ink_crop(&page, [0, 0, 300, 60], &[]).is_some(),
            "ink, unmasked"
        );
        assert!(
            ink_crop(&page, [0, 0, 300, 60], &[[20, 20, 70, 20]]).is_none(),
            "the label's print taken out"
        );
        // The line written on, grey and drifting a row: dark in no row over half
        // the box, a few pixels high.
        let mut page = GrayImage::from_pixel(300, 60, image::Luma([235]));
        for x in 10..290 {
            let y = if x < 150 { 40 } else { 41 };
            page.put_pixel(x, y, image::Luma([120]));
        }
        assert!(
            ink_crop(&page, [0, 0, 300, 60], &[]).is_none(),
            "a line, not writing"
        );
    }

    #[test]
    fn one_thin_digit_on_a_long_line_is_written() {
        // A `7` of 80 pixels over a 480 x 54 box: under 0.4% of the box, but
        // written.
        let mut page = GrayImage::from_pixel(480, 54, image::Luma([235]));
        paint(&mut page, 40..55, 12..15, 60);
        paint(&mut page, 50..52, 15..34, 60);
        assert!(
            ink_crop(&page, [0, 0, 480, 54], &[]).is_some(),
            "the 7 is written"
        );
        // A speck of six pixels is no writing.
        let mut page = GrayImage::from_pixel(480, 54, image::Luma([235]));
        paint(&mut page, 40..42, 12..15, 60);
        assert!(ink_crop(&page, [0, 0, 480, 54], &[]).is_none(), "a speck");
    }

    #[test]
    fn fine_pale_strokes_are_written_and_a_shadow_is_not() {
        // Small writing in a fine pen: strokes two pixels wide at 150 on paper at 216,
        // never as dark as the page's ink level.
        let mut page = GrayImage::from_pixel(300, 60, image::Luma([216]));
        for x0 in (60..200).step_by(12) {
            paint(&mut page, x0..x0 + 2, 22..36, 150);
            paint(&mut page, x0..x0 + 8, 34..36, 150);
        }
        assert!(
            ink_crop(&page, [0, 0, 300, 60], &[]).is_some(),
            "the fine strokes are written"
        );
        // A shadow in the box's lower right corner: darker by as much, smoothly.
        let page = GrayImage::from_fn(300, 60, |x, y| {
            let depth = if x < 150 || y < 25 {
                0
            } else {
                ((x - 150) / 2).min((y - 25) * 2)
            };
            image::Luma([(216 - depth) as u8])
        });
        assert!(
            ink_crop(&page, [0, 0, 300, 60], &[]).is_none(),
            "a shadow is no writing"
        );
    }

    #[test]
    fn a_photographed_frames_corner_is_no_value() {
        // A value box reaching past a frame: the frame's top rule ends at its corner,
        // and its side (blurred a column either way) runs down from there to the
        // box's foot, over less than nine tenths of the box's rows.
        let mut page = GrayImage::from_pixel(300, 60, image::Luma([235]));
        paint(&mut page, 0..202, 10..12, 40);
        paint(&mut page, 200..202, 10..60, 40);
        paint(&mut page, 199..200, 12..60, 150);
        paint(&mut page, 202..203, 12..60, 150);
        assert!(
            ink_crop(&page, [0, 0, 300, 60], &[]).is_none(),
            "the corner of a frame is print"
        );
        // A `1` written under the same rule, not down to the box's foot, is writing.
        paint(&mut page, 100..103, 16..52, 40);
        assert!(
            ink_crop(&page, [0, 0, 300, 60], &[]).is_some(),
            "the 1 is written"
        );
    }

    /// Paints columns `xs` x rows `ys` of `page` at level `v`.
    fn paint(page: &mut GrayImage, xs: std::ops::Range<u32>, ys: std::ops::Range<u32>, v: u8) {
        for y in ys {
            for x in xs.clone() {
                page.put_pixel(x, y, image::Luma([v]));
            }
        }
    }

    #[test]
    fn bold_digits_across_a_box_are_not_a_rule() {
        // Digits' top bars over most of a row (`27.09.2023` written large), each
        // with its stroke down: their row is dark over half the box, in runs.
        let mut page = GrayImage::from_pixel(200, 60, image::Luma([235]));
        for x0 in (10..190).step_by(20) {
            paint(&mut page, x0..x0 + 14, 20..23, 30);
            paint(&mut page, x0 + 12..x0 + 14, 20..40, 30);
        }
        let crop = ink_crop(&page, [0, 0, 200, 60], &[]).expect("written");
        assert_eq!(
            crop.height(),
            20 + 2 * 4,
            "the bars kept: the crop starts over them"
        );
        // A printed rule under the same writing is still taken out.
        paint(&mut page, 0..200, 45..46, 30);
        let crop = ink_crop(&page, [0, 0, 200, 60], &[]).expect("written");
        assert_eq!(crop.height(), 20 + 2 * 4, "the rule is no ink");
        // So is a grey one dark enough to be ink only in dashes.
        for x in 0..200 {
            let v = if x % 11 < 6 { 120 } else { 190 };
            page.put_pixel(x, 45, image::Luma([v]));
        }
        let crop = ink_crop(&page, [0, 0, 200, 60], &[]).expect("written");
        assert_eq!(crop.height(), 20 + 2 * 4, "the grey rule is no ink");
    }

    #[test]
    fn large_digits_in_a_narrow_box_are_not_rules() {
        // Two digits' bodies side by side over most of a narrow box's width on
        // twenty rows, a printed rule two rows thick under them.
        let mut page = GrayImage::from_pixel(70, 60, image::Luma([235]));
        paint(&mut page, 8..30, 10..30, 30);
        paint(&mut page, 34..62, 10..30, 30);
        paint(&mut page, 0..70, 40..42, 30);
        let crop = ink_crop(&page, [0, 0, 70, 60], &[]).expect("written");
        assert_eq!(
            crop.height(),
            20 + 2 * 4,
            "the digits kept, the rule taken out"
        );
        let bands = rule_bands(
            vec![false; 4]
                .into_iter()
                .chain([true; 7])
                .chain([false; 4])
                .collect(),
            |_| true,
        );
        assert!(bands.iter().all(|&r| !r), "seven rows are no rule");
        let bands = rule_bands(vec![true, false, false, false, true, false], |r| r != 1);
        assert_eq!(
            bands,
            [true, false, false, false, false, false],
            "ink three rows off one"
        );
    }

    #[test]
    fn a_name_read_without_a_letter_is_no_value() {
        let mut v = ValueRead::default();
        read_open(&mut v, &open_spot("white", "一", 0.9, None), false, true);
        assert_eq!(v.value, None, "{v:?}");
        assert!(
            v.note.as_deref().is_some_and(|n| n.contains("no letter")),
            "{v:?}"
        );
        let mut v = ValueRead::default();
        read_open(
            &mut v,
            &open_spot("white", "Łęcki, Z.", 0.9, None),
            false,
            true,
        );
        assert_eq!(v.value.as_deref(), Some("Łęcki, Z."));
    }

    #[test]
    fn a_number_the_cell_reader_cannot_read_is_the_text_readers() {
        let a = crate::form::result::test_readings::alphabet();
        let floor = crate::decode::DecodeParams::default().reading.read_floor;
        let spot = |own: f32| {
            let mut s = open_spot("round", "9", 0.9, None);
            // The text reader: `9` as sure as its own reading, `19` and `4` far less.
            s.number_scores = vec![("9".into(), -0.1), ("19".into(), -6.0), ("4".into(), -7.0)];
            s.number_own = own;
            s
        };
        let read = |scores: &CellScores, own: f32| {
            let mut v = ValueRead::default();
            let mut cell = Cell::new(scores, &a, floor);
            read_number(
                &mut v,
                &mut cell,
                &number_set("round", &[]),
                &spot(own),
                0.5,
            );
            v
        };
        // The cell reader reads `g` (no number explains it): the text reader decides.
        let scores = crate::form::result::test_readings::clean("g", &a);
        let v = read(&scores, -0.1);
        assert_eq!(v.value.as_deref(), Some("9"), "{v:?}");
        assert!(v.confidence > 0.9, "{v:?}");
        // Where the text reader's own reading is something else again, both are
        // averaged as before: the cell reader's spread keeps it doubtful.
        let v = read(&scores, 5.0);
        assert!(v.confidence < 0.5, "{v:?}");
        // A number the cell reader reads is still averaged with the text reader's.
        let scores = crate::form::result::test_readings::clean("4", &a);
        let v = read(&scores, -0.1);
        assert!(v.confidence < 0.6, "two readers disagree: {v:?}");
    }

    #[test]
    fn a_round_and_a_game_in_it_is_a_round() {
        // Digits and the full stop, as the values reader spells them.
        let a = Alphabet::new("_0123456789.".chars().collect(), 0);
        let floor = crate::decode::DecodeParams::default().reading.read_floor;
        let read = |written: &str, field: &str| {
            let scores = crate::form::result::test_readings::clean(written, &a);
            let mut v = ValueRead::default();
            let mut cell = Cell::new(&scores, &a, floor);
            let s = open_spot("round", written, 0.9, None);
            read_number(&mut v, &mut cell, &number_set(field, &[]), &s, 0.5);
            v
        };
        // `2.1` (round 2, its first game) is a round as written, and sure.
        let v = read("2.1", "round");
        assert_eq!(v.value.as_deref(), Some("2.1"), "{v:?}");
        assert!(v.confidence > 0.9, "{v:?}");
        // `21` is still round 21, and a board is never dotted.
        assert_eq!(read("21", "round").value.as_deref(), Some("21"));
        assert_ne!(read("2.1", "board").value.as_deref(), Some("2.1"));
    }

    #[test]
    fn a_russian_month_scored_through_look_alikes_is_no_misfit() {
        let a = Alphabet::new("_0123456789.".chars().collect(), 0);
        let floor = crate::decode::DecodeParams::default().reading.read_floor;
        // `10 сентября 2023` read `10 c e = Y = 6ρ = 2023` (no date): the text
        // reader's scores as measured on a tune sheet, its own reading 8 nats above
        // the month's word.
        let read = |scores: Vec<(String, f32, usize)>, own: f32| {
            let cell_scores = crate::form::result::test_readings::clean("12", &a);
            let mut cell = Cell::new(&cell_scores, &a, floor);
            let mut s = open_spot("date", "10 c e = Y = 6ρ = 2023", 0.8, None);
            s.date_scores = scores;
            s.date_own = own;
            let mut v = ValueRead::default();
            read_date(&mut v, &mut cell, &s);
            v
        };
        let v = read(
            vec![
                ("2023.09.10".into(), -13.9, 8),
                ("2023.12.10".into(), -25.9, 7),
            ],
            -5.7,
        );
        assert_eq!(v.value.as_deref(), Some("2023.09.10"), "{v:?}");
        assert!(v.confidence > VALUE_FLOOR, "{v:?}");
        assert!(v.confidence <= REPAIRED_MAX, "made, not read: {v:?}");
        // A short month's word 16 nats below (`мая`, 3 letters, for `декабря`
        // read `102m~ma.2013`) is a misfit.
        let v = read(
            vec![
                ("2023.05.10".into(), -20.0, 3),
                ("2023.11.10".into(), -24.5, 6),
            ],
            -4.0,
        );
        assert!(v.confidence < VALUE_FLOOR, "{v:?}");
        // And so is a date one edit of a Latin reading makes that far below.
        let v = read(
            vec![
                ("2023.09.10".into(), -13.9, 0),
                ("2023.12.10".into(), -25.9, 0),
            ],
            -5.7,
        );
        assert!(v.confidence < VALUE_FLOOR, "{v:?}");
    }

    #[test]
    fn a_year_alone_is_all_there_is_and_eight_digits_are_not_a_year() {
        assert_eq!(date_share("1982.??.??", "1982"), 1.0);
        // `7/2/2017` read `71212017`: the year is a third of what is written.
        let d = parse_date("71212017").unwrap();
        assert_eq!(d, "2017.??.??");
        assert!((date_share(&d, "71212017") - 1.0 / 3.0).abs() < 1e-6);
        assert!((date_share("2017.02.??", "2.2017") - 2.0 / 3.0).abs() < 1e-6);
    }

    #[test]
    fn softmax_merges_a_values_spellings() {
        let p = softmax(&[
            ("1-0".into(), -1.0),
            ("1-0".into(), -1.0),
            ("0-1".into(), -1.0),
        ]);
        assert_eq!(p[0].0, "1-0");
        assert!((p[0].1 - 2.0 / 3.0).abs() < 1e-5);
    }

    fn open_spot(field: &str, latin: &str, p: f32, cyrillic: Option<&str>) -> SpotText {
        let spot = Spot {
            field: field.into(),
            label: None,
            value_box: [0, 0, 10, 10],
        };
        let mut s = SpotText::new(spot, None, false);
        s.line = Some((latin.into(), p));
        s.cyrillic = cyrillic.map(|t| Reading {
            text: t.into(),
            spelling: crate::model::cyrillic::LetterModel::russian().spelling(t),
        });
        s
    }

    #[test]
    fn russian_forms_give_cyrillic_names_for_review() {
        let mut v = ValueRead::default();
        let s = open_spot("white", "IOpné berOB", 0.93, Some("юрий белов"));
        read_open(&mut v, &s, true, true);
        assert_eq!(v.value.as_deref(), Some("Юрий Белов"));
        assert!(
            v.confidence <= REPAIRED_MAX,
            "always reviewed: {}",
            v.confidence
        );
        assert!(v.note.as_deref().is_some_and(|n| n.contains("IOpné berOB")));
        // An event: only its first word capitalised.
        let mut v = ValueRead::default();
        let s = open_spot("event", "lepBeHCTBo ropoAa", 0.9, Some("первенство города"));
        read_open(&mut v, &s, true, false);
        assert_eq!(v.value.as_deref(), Some("Первенство города"));
        // The same readings on a form that is not Russian: the Latin reading.
        let mut v = ValueRead::default();
        read_open(&mut v, &s, false, false);
        assert_eq!(v.value.as_deref(), Some("lepBeHCTBo ropoAa"));
    }

    #[test]
    fn a_latin_name_on_a_russian_form_stays_latin() {
        let mut v = ValueRead::default();
        let s = open_spot("black", "Kasparov, Gary", 0.92, Some("карагон, сану"));
        read_open(&mut v, &s, true, true);
        assert_eq!(v.value.as_deref(), Some("Kasparov, Gary"));
        assert!((v.confidence - 0.92).abs() < 1e-3);
        // No Cyrillic reading to be had: nothing is made up.
        let mut v = ValueRead::default();
        let s = open_spot("black", "Bopouyob", 0.9, None);
        read_open(&mut v, &s, true, true);
        assert_eq!(v.value, None);
    }

    /// Reads every crop as `text`, cleanly; `values` is its values reader, if any.
    struct Reads {
        text: &'static str,
        alphabet: Alphabet,
        values: Option<Box<Reads>>,
    }

    impl Reads {
        fn new(text: &'static str, values: Option<&'static str>) -> Self {
            let alphabet = crate::form::result::test_readings::alphabet();
            Reads {
                text,
                alphabet,
                values: values.map(|t| Box::new(Reads::new(t, None))),
            }
        }
    }

    impl CellModel for Reads {
        fn alphabet(&self) -> &Alphabet {
            &self.alphabet
        }
        fn read(&mut self, cells: &[GrayImage]) -> Result<Vec<CellScores>, ModelError> {
            let a = &self.alphabet;
            Ok(cells
                .iter()
                .map(|_| crate::form::result::test_readings::clean(self.text, a))
                .collect())
        }
        fn value_reader(&mut self) -> Option<&mut dyn CellModel> {
            self.values.as_deref_mut().map(|m| m as &mut dyn CellModel)
        }
    }

    #[test]
    fn the_values_reader_reads_numbers_and_the_cell_reader_names() {
        let spot = |field: &str| {
            let spot = Spot {
                field: field.into(),
                label: None,
                value_box: [0, 0, 40, 20],
            };
            SpotText::new(spot, Some(GrayImage::new(40, 20)), false)
        };
        let looked = Looked {
            spots: vec![spot("round"), spot("white"), spot("board")],
            marked: None,
            options_note: None,
            cyrillic: false,
        };
        let names = ["Bach".to_string(), "Bede".to_string()];
        let vocab = Vocab {
            names: &names,
            rounds: &[],
        };
        let floor = crate::decode::DecodeParams::default().reading.read_floor;
        let value = |read: &[ValueRead], field: &str| {
            let v = read.iter().find(|v| v.field == field).unwrap();
            v.value.clone()
        };
        // With a values reader: the numbers are its readings, the name the cell reader's.
        let read = super::read(&looked, &mut Reads::new("Bach", Some("7")), vocab, floor).unwrap();
        assert_eq!(value(&read, "round").as_deref(), Some("7"), "{read:?}");
        assert_eq!(value(&read, "board").as_deref(), Some("7"), "{read:?}");
        assert_eq!(value(&read, "white").as_deref(), Some("Bach"), "{read:?}");
        // Without one the cell reader reads everything.
        let read = super::read(&looked, &mut Reads::new("3", None), vocab, floor).unwrap();
        assert_eq!(value(&read, "round").as_deref(), Some("3"), "{read:?}");
        assert_eq!(value(&read, "board").as_deref(), Some("3"), "{read:?}");
    }
}
