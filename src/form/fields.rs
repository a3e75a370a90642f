//! A page, its move table's box and the printed-text reader -> where the form's header
//! fields are (event, date, round, board, white, black, result) and the printed result
//! options with the one marked, on any form.
//!
//! The page outside the table is read line by line ([`PrintedReader`]). A word of a
//! line is a label when, lower-cased, its diacritics folded and its punctuation
//! dropped, it is within a small edit distance of a label of [`LABELS`] (en, de, pl,
//! ru, fr, es and the usual abbreviations). The recogniser has no Cyrillic: Russian
//! print comes out as Latin look-alikes, and [`LABELS`] holds the spellings measured on
//! the generator's Russian forms (`Typ` for `Тур`, `Aocka` for `Доска` ...). A label
//! on a line with a signature word, or a `White`/`Black` heading just over the table,
//! names no field. Where the value is: right of the label on its line, up to the next
//! label or a printed rule; below the label when nothing fits beside it or the label
//! sits in the top corner of a tall box.
//!
//! Printed result options are words reading `1-0`, `1:0`, `0-1`, `0:1`, `½-½`, `1/2`
//! ...: a win for each side in one row or column, the draw between them (read, or the
//! box there, which a stacked `½` often reads as anything; with one win read alone, the
//! two boxes beside it in the printed order). The option marked is the one with
//! clearly more ink round and over it than every other, in windows of the same size,
//! or else the one whose longest slanted stroke (a tick's arm, a cross's bar) is far
//! longer than every other's: a clear winner or none (a blank form, two marks), never
//! a guess.

use image::GrayImage;

use crate::model::ocr::{PrintedReader, TextLine};
use crate::model::{ModelError, Table};

/// A header field of the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldKind {
    Event,
    Date,
    Round,
    Board,
    White,
    Black,
    Result,
}

impl FieldKind {
    /// The spelling of [`crate::report::FieldRead::field`].
    pub fn as_str(self) -> &'static str {
        match self {
            FieldKind::Event => "event",
            FieldKind::Date => "date",
            FieldKind::Round => "round",
            FieldKind::Board => "board",
            FieldKind::White => "white",
            FieldKind::Black => "black",
            FieldKind::Result => "result",
        }
    }
}

/// A field found on the form: its label as read, the label's box and the box where its
/// value is written (x, y, w, h on the page).
#[derive(Clone, Debug, PartialEq)]
pub struct FieldSpot {
    pub kind: FieldKind,
    pub label: String,
    pub label_box: [u32; 4],
    pub value_box: [u32; 4],
}

/// The printed result options (PGN result, box), left to right or top down, and the
/// one marked: its index and how sure (0..1), or `None` with a note saying why.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultOptions {
    pub options: Vec<(String, [u32; 4])>,
    pub marked: Option<(usize, f32)>,
    pub note: Option<String>,
}

/// What the form prints outside the move table: the fields found, the result options,
/// and every line read (text, box, confidence).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FormText {
    pub fields: Vec<FieldSpot>,
    pub result_options: Option<ResultOptions>,
    pub lines: Vec<(String, [u32; 4], f32)>,
    /// The form's own print among the lines: the fields' labels and the signature
    /// lines' captions. No value, whichever value box takes it in.
    pub print: Vec<[u32; 4]>,
}

/// The labels of each field, folded (lower case, no diacritics, no punctuation). The
/// Russian ones are what the recogniser reads on Russian print (measured on the
/// generator's `rcf-*` forms): `Турнир` TyPHup / TypHMp, `Тур` Typ, `Доска` Aocka,
/// `Дата` Aata / Aara, `Белые` FeΛble / benble / FeAne, `Чёрные` YëpHbie / YëpHble,
/// `Результат` Pe3y∧bTaT / Pe3ynbTaT (`Λ`, `∧` fold to `a`); `Стол` printed in five
/// fonts (`examples/ocr_lines.rs`): CTOn / CTon / CTOπ / CTOI / CTOT / CTor, all within
/// one slip of `cton`; `Соревнование` CopeBHOBaHve, `Белыми` beIbIMH, `Чёрными` TëpHbIMH,
/// `Итог` ITor.
pub const LABELS: &[(FieldKind, &[&str])] = &[
    (
        FieldKind::Event,
        &[
            "event",
            "tournament",
            "turnier",
            "turniej",
            "tournoi",
            "torneo",
            "competition",
            "veranstaltung",
            "wettkampf",
            "zawody",
            "typhup",
            "typhmp",
            "copebhobahue",
        ],
    ),
    (
        FieldKind::Date,
        &[
            "date",
            "datum",
            "spieldatum",
            "data",
            "fecha",
            "aata",
            "aara",
        ],
    ),
    (
        FieldKind::Round,
        &[
            "round", "rd", "rnd", "runde", "runda", "ronde", "ronda", "typ",
        ],
    ),
    (
        FieldKind::Board,
        &[
            "board",
            "bd",
            "br",
            "brett",
            "tisch",
            "szach",
            "szachownica",
            "stol",
            "stolu",
            "table",
            "mesa",
            "aocka",
            "cton",
        ],
    ),
    (
        FieldKind::White,
        &[
            "white", "weiss", "biale", "biate", "bialymi", "blancs", "blancas", "feable", "benble",
            "feane", "beibimh",
        ],
    ),
    (
        FieldKind::Black,
        &[
            "black", "schwarz", "czarne", "czarnymi", "noirs", "negras", "yephbie", "yephble",
            "yephbimh",
        ],
    ),
    (
        FieldKind::Result,
        &[
            "result",
            "ergebnis",
            "wynik",
            "resultat",
            "resultado",
            "pe3yabtat",
            "pe3ynbtat",
            "itor",
        ],
    ),
];

/// Words a form prints after a field's label, folded: a number sign (`Round No.`,
/// `Runde Nr.`, `Тур №` read `Typ Ne` or `Typ Ng`) or a word that says which (`Date played`, `White
/// player`, `Data gry`, `Дата игры` read `urpbl`). Print, part of the label: no value.
const AFTER_LABEL: &[&str] = &[
    "no", "nr", "ne", "ng", "nº", "number", "nummer", "numer", "played", "player", "name", "gry",
    "urpbl", "wrpbl",
];

/// Number signs read glued to the label before them (`Brett-Nr.`, `Тур №` read `TypNe`).
const GLUED_NUMBER_SIGNS: &[&str] = &["nr", "no", "ne", "ng"];

/// Words a form prints before a field's label (`Spieler Weiß`, `Grający białymi`,
/// `Nazwa turnieju`, `Название` read `Ha3BaHée`), folded; not a number sign, which may
/// end the label before it (`Runde Nr. Brett`).
const BEFORE_LABEL: &[&str] = &["spieler", "grajacy", "nazwa", "ha3bahue"];

/// Whether `word` is one of `words`, with the slips a label of its length is allowed
/// ([`match_label`]).
fn is_one_of(words: &[&str], word: &str) -> bool {
    let w = fold(word);
    words
        .iter()
        .any(|q| edit_distance(&w, q) <= slips(q.chars().count()))
}

/// Edits a printed word of `n` letters may be read with and still be taken as that
/// word: none up to three letters, one up to five, two up to eight, three beyond.
fn slips(n: usize) -> usize {
    match n {
        0..=3 => 0,
        4..=5 => 1,
        6..=8 => 2,
        _ => 3,
    }
}

/// Words that make a line a signature line (`White signature`, `Podpis białych`,
/// `Подпись` read as TloAnuCb): its labels name no field.
const SIGNATURE_WORDS: &[&str] = &[
    "signature",
    "sign",
    "unterschrift",
    "podpis",
    "firma",
    "tloanucb",
    "noanucb",
];

/// A signature word, read with up to two slips in the longer ones.
fn is_signature_word(word: &str) -> bool {
    let w = fold(word);
    SIGNATURE_WORDS.iter().any(|s| {
        let allowed = if s.len() >= 7 {
            2
        } else {
            usize::from(s.len() >= 5)
        };
        edit_distance(&w, s) <= allowed
    })
}

/// `text` up to the form's own print read with it: a signature word (`Signature`,
/// `Unterschrift` ...) glued to a name where the writing runs up to the signature
/// line's caption. The whole text when it holds none.
pub fn before_print(text: &str) -> &str {
    let lower: String = text.to_lowercase();
    let cut = SIGNATURE_WORDS
        .iter()
        .filter(|w| w.len() >= 5)
        .filter_map(|w| lower.find(w))
        .min();
    match cut {
        // `to_lowercase` keeps byte offsets only for these scripts' letters where
        // lengths agree; check before slicing.
        Some(i) if text.is_char_boundary(i) && lower.len() == text.len() => &text[..i],
        _ => text,
    }
}

/// Whether a reading is the form's print rather than writing: two field labels in
/// it (`Nr. Weiß Schwarz`, a table's heading read where a blank name was looked for),
/// or one beside the heading's `Nr` / `№`. A label is in it as a whole (five letters
/// or more, also glued: `BiaeCzarne`) or as a word of four letters or more within a
/// label's slips (`Beale czame` on a photograph); no generated name or event reads so.
pub fn reads_labels(text: &str) -> bool {
    let t = fold(text);
    let mut kinds: Vec<FieldKind> = LABELS
        .iter()
        .filter(|(_, spellings)| spellings.iter().any(|l| l.len() >= 5 && t.contains(l)))
        .map(|(k, _)| *k)
        .collect();
    let mut heading = false;
    for w in text.split_whitespace() {
        let f = fold(w);
        heading |= f == "nr" || w.contains('№');
        // `rn` is read as `m` (`came` for `czarne`).
        let unjoined = w.replace('m', "rn");
        if f.chars().count() >= 4
            && let Some((k, _)) = match_label(w).or_else(|| match_label(&unjoined))
            && !kinds.contains(&k)
        {
            kinds.push(k);
        }
    }
    kinds.len() >= 2 || (heading && !kinds.is_empty())
}

/// Lower case, diacritics folded, Cyrillic look-alikes as the Latin letters they are
/// read as, punctuation dropped.
pub fn fold(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().flat_map(char::to_lowercase) {
        let f: &str = match c {
            'ą' | 'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' | 'λ' | '∧' | 'а' => "a",
            'ć' | 'ç' | 'č' | 'с' => "c",
            'ę' | 'é' | 'è' | 'ê' | 'ë' | 'ě' | 'е' | 'ё' => "e",
            'í' | 'ì' | 'î' | 'ï' => "i",
            'ł' => "l",
            // The reader's `π` is a Russian `л` or `п` (`Pe3yπbTaT`, `Croπ`).
            'π' => "n",
            'ń' | 'ñ' => "n",
            'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'о' => "o",
            'ś' | 'š' => "s",
            'ú' | 'ù' | 'û' | 'ü' => "u",
            'ź' | 'ż' | 'ž' => "z",
            'ß' | 'β' => "ss",
            'р' => "p",
            'у' => "y",
            'х' => "x",
            'к' => "k",
            '№' => "no",
            c if c.is_alphanumeric() => {
                out.push(c);
                continue;
            }
            _ => continue,
        };
        out.push_str(f);
    }
    out
}

pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Russian labels read with two slips in a short word, taken only as read (a
/// slip more would make them common words): `Стол` read `Croπ`, `Cror`, `Craπ` in
/// the generator's print faces (`rcf-lines-fide`).
const EXACT_LABELS: &[(FieldKind, &[&str])] = &[(FieldKind::Board, &["cron", "cror", "cran"])];

/// The field a word names, and how far it is from the nearest label (edits): exact
/// for labels of up to three letters, one edit up to five, two up to eight, three
/// beyond (`Результат` read `Peaynbrar` in one print face).
pub fn match_label(word: &str) -> Option<(FieldKind, usize)> {
    let w = fold(word);
    if w.is_empty() || w.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    match_folded(&w).or_else(|| {
        let stem = GLUED_NUMBER_SIGNS
            .iter()
            .find_map(|n| w.strip_suffix(n))
            .filter(|s| s.chars().count() >= 2)?;
        match_folded(stem)
    })
}

/// [`match_label`] of a folded word.
fn match_folded(w: &str) -> Option<(FieldKind, usize)> {
    if let Some((kind, _)) = EXACT_LABELS.iter().find(|(_, ls)| ls.contains(&w)) {
        return Some((*kind, 0));
    }
    let mut best: Option<(FieldKind, usize)> = None;
    for (kind, labels) in LABELS {
        for l in *labels {
            let allowed = slips(l.chars().count());
            let d = edit_distance(w, l);
            if d <= allowed && best.is_none_or(|b| d < b.1) {
                best = Some((*kind, d));
            }
        }
    }
    best
}

/// The longest run of `true` in `flags`, gaps of up to `gap` `false`s inside it
/// bridged (and counted in its length).
pub(super) fn longest_run(flags: impl Iterator<Item = bool>, gap: usize) -> usize {
    let (mut best, mut start, mut last) = (0, None, 0);
    for (i, f) in flags.enumerate() {
        if !f {
            continue;
        }
        let s = match start {
            Some(s) if i - last <= gap + 1 => s,
            _ => i,
        };
        start = Some(s);
        last = i;
        best = best.max(i - s + 1);
    }
    best
}

/// Pixels of paper a printed rule's unbroken run may skip (noise, a blurred drift);
/// the gaps between written letters are wider.
pub(super) const RULE_GAP: usize = 1;

/// Words after a colour that make it a printed result option (`White won`, `Weiß
/// gewinnt`), folded.
const WIN_WORDS: &[&str] = &[
    "won", "wins", "win", "gewinnt", "gewann", "wygrywa", "wygral",
];

/// Fewest letters of a label cut off the word read glued to it.
const GLUED_LABEL: usize = 8;

/// A word of a line: its text, the page columns it spans, and whether a colon ends it.
#[derive(Clone, Debug)]
struct LineWord {
    text: String,
    x0: u32,
    x1: u32,
    colon: bool,
    /// The word's first and one-past-last characters in the line.
    span: (usize, usize),
}

/// Cuts a line into words at spaces, colons and slashes between words, placing each by
/// the columns the recogniser put its characters in.
fn words(line: &TextLine) -> Vec<LineWord> {
    let chars = &line.chars;
    let [bx, _, bw, _] = line.bbox;
    let n = chars.len();
    if n == 0 {
        return Vec::new();
    }
    let pitch = bw as f32 / n as f32;
    let left = |i: usize| -> u32 {
        if i == 0 {
            bx
        } else {
            (chars[i - 1].1 + chars[i].1) / 2
        }
    };
    let right = |i: usize| -> u32 {
        if i + 1 >= n {
            (chars[i].1 + (pitch * 0.6) as u32).min(bx + bw)
        } else {
            (chars[i].1 + chars[i + 1].1) / 2
        }
    };
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for i in 0..=n {
        let c = chars.get(i).map(|c| c.0);
        // A colon ends a label (`Event:`), not a result (`1:0`) or a time.
        let after_letter = i > 0 && chars[i - 1].0.is_alphabetic();
        let colon = matches!(c, Some(':' | '：'));
        let ends = matches!(c, None | Some(' ')) || (colon && after_letter);
        if ends {
            if let Some(s) = start.take() {
                let text =
                    |a: usize, b: usize| -> String { chars[a..b].iter().map(|c| c.0).collect() };
                // A label read glued to the number written by it (`Bd.11`, `5Bd.`), or
                // to a value that begins with a digit or `½` after it (`Ergebnis1/2-1/2`,
                // `Datum12.03.2021`): two words, where the whole is none.
                let number = |t: &str| t.chars().all(|c| c.is_ascii_digit());
                let digit = |c: char| c.is_ascii_digit() || c == '½';
                let value = |t: &str| t.starts_with(digit) && !t.chars().any(char::is_alphabetic);
                // Also where the whole is a long label's slip that the label alone
                // reads closer than (`Pe3ynbTaT1-0`: three edits, `Pe3ynbTaT` none).
                let whole = match_label(&text(s, i)).map(|(_, d)| d);
                let glued = (s + 1..i).find(|&k| {
                    let (a, b) = (text(s, k), text(k, i));
                    digit(chars[k - 1].0) != digit(chars[k].0)
                        && ((whole.is_none() && number(&a) && match_label(&b).is_some())
                            || (value(&b)
                                && match_label(&a)
                                    .is_some_and(|(_, d)| whole.is_none_or(|w| d < w))))
                });
                // A long label read glued to a word written after it
                // (`Результат` and `ничья` read `Pe3y^bTaTHll4bA`): cut where the
                // label reads closest. Not the players' labels: a name may begin
                // with one (`Schwarzkopf`).
                let glued = glued.or_else(|| {
                    match_label(&text(s, i)).is_none().then_some(())?;
                    (s + 1..i)
                        .filter(|&k| {
                            text(k, i).chars().filter(|c| c.is_alphanumeric()).count() >= 2
                        })
                        .filter(|&k| fold(&text(s, k)).chars().count() >= GLUED_LABEL)
                        .filter_map(|k| {
                            let (kind, d) = match_label(&text(s, k))?;
                            (!matches!(kind, FieldKind::White | FieldKind::Black)).then_some((d, k))
                        })
                        .min()
                        .map(|(_, k)| k)
                });
                let mut cuts: Vec<(usize, usize)> = match glued {
                    Some(k) => vec![(s, k), (k, i)],
                    None => vec![(s, i)],
                };
                // A label and its other language's read as one word (`Runde/Round`,
                // `Typ/Rd.`): the words on each side of a slash, where the whole is no
                // label and a side is (not `Pe3y/bra`, `Результат` read with a slash).
                if let [(a, b)] = cuts[..]
                    && whole.is_none()
                {
                    let mut sides = Vec::new();
                    let mut from = a;
                    for k in (a..b).filter(|&k| chars[k].0 == '/') {
                        sides.push((from, k));
                        from = k + 1;
                    }
                    sides.push((from, b));
                    sides.retain(|(x, y)| x < y);
                    if sides.len() > 1
                        && sides
                            .iter()
                            .any(|&(x, y)| match_label(&text(x, y)).is_some())
                    {
                        cuts = sides;
                    }
                }
                for (a, b) in cuts {
                    out.push(LineWord {
                        text: text(a, b),
                        x0: left(a),
                        x1: right(b - 1),
                        colon: b == i && colon,
                        span: (a, b),
                    });
                }
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    out
}

/// A label found: the field, the word as read, its box, its edit distance, whether a
/// colon follows, and the line it is on.
#[derive(Clone, Debug)]
struct Label {
    kind: FieldKind,
    text: String,
    bbox: [u32; 4],
    distance: usize,
}

/// How much taller than the labels' median line a line is writing, not print: a
/// form prints its labels in one small size, and a hand writes larger.
const TALL_LABEL: f32 = 1.4;

/// The line height over which a label was read on writing's line: [`TALL_LABEL`]
/// times the median label line's; with fewer than three labels there is no median
/// to go by.
fn tall_line(found: &[Label]) -> Option<f32> {
    let mut heights: Vec<u32> = found.iter().map(|l| l.bbox[3]).collect();
    heights.sort_unstable();
    (heights.len() >= 3).then(|| TALL_LABEL * heights[heights.len() / 2] as f32)
}

fn overlap(a0: u32, a1: u32, b0: u32, b1: u32) -> u32 {
    a1.min(b1).saturating_sub(a0.max(b0))
}

/// Whether two lines (top, height) share a row: they overlap over half the lower one.
fn same_row((ay, ah): (u32, u32), (by, bh): (u32, u32)) -> bool {
    2 * overlap(ay, ay + ah, by, by + bh) >= ah.min(bh)
}

/// Dark pixels of a gray page: under the paper's level by a margin.
struct Ink<'a> {
    page: &'a GrayImage,
    cut: u8,
    /// A paler level for the thin printed lines of a photographed form.
    faint: u8,
}

impl<'a> Ink<'a> {
    fn new(page: &'a GrayImage) -> Self {
        let mut hist = [0u64; 256];
        // Every 4th pixel is enough for the paper's level.
        for p in page.pixels().step_by(4) {
            hist[p.0[0] as usize] += 1;
        }
        let total: u64 = hist.iter().sum();
        let mut acc = 0;
        let mut paper = 255u8;
        for (v, n) in hist.iter().enumerate().rev() {
            acc += n;
            if acc * 2 >= total {
                paper = v as u8;
                break;
            }
        }
        Ink {
            page,
            cut: paper.saturating_sub(70),
            faint: paper.saturating_sub(40),
        }
    }
    fn dark(&self, x: u32, y: u32) -> bool {
        x < self.page.width() && y < self.page.height() && self.page.get_pixel(x, y).0[0] < self.cut
    }
    /// Inked at the paler level of thin print (`faint`).
    fn pale(&self, x: u32, y: u32) -> bool {
        x < self.page.width()
            && y < self.page.height()
            && self.page.get_pixel(x, y).0[0] < self.faint
    }
    /// Which pixels of x0..x1 x y0..y1 (within the page, not empty) are dark, row by
    /// row: under the page's cut and under the window's own paper (its median level)
    /// by the same margin, so that a photograph's shadow is no ink.
    fn local_dark(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> Vec<bool> {
        let cw = (x1 - x0) as usize;
        let level: Vec<u8> = (0..cw * (y1 - y0) as usize)
            .map(|i| {
                let (x, y) = (x0 + (i % cw) as i64, y0 + (i / cw) as i64);
                self.page.get_pixel(x as u32, y as u32).0[0]
            })
            .collect();
        let mut sorted = level.clone();
        let mid = sorted.len() / 2;
        let paper = *sorted.select_nth_unstable(mid).1;
        let cut = self.cut.min(paper.saturating_sub(70));
        level.iter().map(|&v| v < cut).collect()
    }
    /// The longest straight stroke in x0..x1 x y0..y1 slanted 20 to 70 degrees from
    /// the row either way, in pixels: the arm of a tick or a cross's bar. Print's
    /// strokes at a slant are a glyph's height at most (the slash of `½`), and a
    /// printed rule runs along the row or down the column. Dark is measured against
    /// the window's own paper (a photograph's shadow is no ink); a stroke may be a
    /// pixel off the straight line and miss two samples running.
    fn slant_stroke(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> f32 {
        let (w, h) = (self.page.width() as i64, self.page.height() as i64);
        let (x0, y0, x1, y1) = (x0.max(0), y0.max(0), x1.min(w), y1.min(h));
        if x1 - x0 < 3 || y1 - y0 < 3 {
            return 0.0;
        }
        let (cw, ch) = ((x1 - x0) as usize, (y1 - y0) as usize);
        let mask = self.local_dark(x0, y0, x1, y1);
        let dark = |x: i64, y: i64| {
            (0..cw as i64).contains(&x)
                && (0..ch as i64).contains(&y)
                && mask[y as usize * cw + x as usize]
        };
        let near = |x: f32, y: f32| {
            let (xi, yi) = (x.round() as i64, y.round() as i64);
            dark(xi, yi) || dark(xi, yi - 1) || dark(xi, yi + 1)
        };
        let mut best = 0.0f32;
        for deg in (20..=70).step_by(5) {
            let t = (deg as f32).to_radians();
            for down in [true, false] {
                let (dx, dy) = (t.cos(), if down { t.sin() } else { -t.sin() });
                // Starts along the left side and the top (down) or bottom (up) side.
                let y_edge = if down { 0.0 } else { ch as f32 - 1.0 };
                let starts = (0..ch)
                    .map(|y| (0.0, y as f32))
                    .chain((1..cw).map(|x| (x as f32, y_edge)));
                for (sx, sy) in starts {
                    let (mut x, mut y) = (sx, sy);
                    let (mut run, mut gap, mut from) = (false, 0, (0.0f32, 0.0f32));
                    let mut last = (0.0f32, 0.0f32);
                    while x < cw as f32 && y >= 0.0 && y < ch as f32 {
                        if near(x, y) {
                            if !run {
                                run = true;
                                from = (x, y);
                            }
                            last = (x, y);
                            gap = 0;
                        } else if run {
                            gap += 1;
                            if gap > 2 {
                                run = false;
                                best = best.max((last.0 - from.0).hypot(last.1 - from.1));
                            }
                        }
                        x += dx;
                        y += dy;
                    }
                    if run {
                        best = best.max((last.0 - from.0).hypot(last.1 - from.1));
                    }
                }
            }
        }
        best
    }
    /// Dark pixels in x0..x1 x y0..y1 that are not on a printed rule: runs of at
    /// least `run_x` pixels along a row or `run_y` down a column are taken out (a box
    /// printed round an option, the frame of the result box, the dark beyond a
    /// photographed page's edge), so that what is left is the print's glyphs and the
    /// pen's marks. Runs are followed past the window, so a rule that only crosses it
    /// is still a rule; dark is measured against the paper around the window too, so
    /// a photograph's shadow is no ink.
    fn count_off_rules(
        &self,
        x0: i64,
        y0: i64,
        x1: i64,
        y1: i64,
        run_x: usize,
        run_y: usize,
    ) -> u32 {
        let (w, h) = (self.page.width() as i64, self.page.height() as i64);
        let (x0, y0, x1, y1) = (x0.max(0), y0.max(0), x1.min(w), y1.min(h));
        if x1 <= x0 || y1 <= y0 {
            return 0;
        }
        let (ex0, ey0) = ((x0 - run_x as i64).max(0), (y0 - run_y as i64).max(0));
        let (ex1, ey1) = ((x1 + run_x as i64).min(w), (y1 + run_y as i64).min(h));
        let (cw, ch) = ((ex1 - ex0) as usize, (ey1 - ey0) as usize);
        let dark = self.local_dark(ex0, ey0, ex1, ey1);
        let mut rule = vec![false; cw * ch];
        for y in 0..ch {
            let mut x = 0;
            while x < cw {
                let start = x;
                while x < cw && dark[y * cw + x] {
                    x += 1;
                }
                if x - start >= run_x {
                    (start..x).for_each(|i| rule[y * cw + i] = true);
                }
                x += 1;
            }
        }
        for x in 0..cw {
            let mut y = 0;
            while y < ch {
                let start = y;
                while y < ch && dark[y * cw + x] {
                    y += 1;
                }
                if y - start >= run_y {
                    (start..y).for_each(|i| rule[i * cw + x] = true);
                }
                y += 1;
            }
        }
        let (ix0, iy0) = ((x0 - ex0) as usize, (y0 - ey0) as usize);
        let (ix1, iy1) = ((x1 - ex0) as usize, (y1 - ey0) as usize);
        (iy0..iy1)
            .flat_map(|y| (ix0..ix1).map(move |x| y * cw + x))
            .filter(|&i| dark[i] && !rule[i])
            .count() as u32
    }
    /// Share of dark pixels in column `x`, rows y0..y1.
    fn col_share(&self, x: u32, y0: u32, y1: u32) -> f32 {
        let n = (y0..y1).filter(|&y| self.dark(x, y)).count();
        n as f32 / (y1.saturating_sub(y0)).max(1) as f32
    }
    /// Share of rows y0..y1 where column `x` is a box's side: dark, or inked at the
    /// pale level of thin print with paper (not pale) four columns to one side (a
    /// light grey rule between printed cells; a photograph's shadow is pale on both
    /// sides).
    fn side_share(&self, x: u32, y0: u32, y1: u32) -> f32 {
        let n = (y0..y1)
            .filter(|&y| {
                self.dark(x, y)
                    || (self.pale(x, y)
                        && (!self.pale(x.saturating_sub(4), y) || !self.pale(x + 4, y)))
            })
            .count();
        n as f32 / (y1.saturating_sub(y0)).max(1) as f32
    }
    /// Share of dark pixels in row `y`, columns x0..x1.
    fn row_share(&self, y: u32, x0: u32, x1: u32) -> f32 {
        let n = (x0..x1).filter(|&x| self.dark(x, y)).count();
        n as f32 / (x1.saturating_sub(x0)).max(1) as f32
    }
    /// The first printed vertical rule right of `x` (a column dark over the band and
    /// half a band above and below it: a box's side, not a stroke of writing).
    fn rule_right(&self, x: u32, y0: u32, y1: u32, limit: u32) -> Option<u32> {
        let h = y1 - y0;
        let (a, b) = (
            y0.saturating_sub(h / 2),
            (y1 + h / 2).min(self.page.height()),
        );
        (x..limit.min(self.page.width())).find(|&c| self.col_share(c, a, b) > 0.85)
    }
    /// The first printed horizontal rule below `y` under columns x0..x1: a row dark
    /// over most of the columns in one unbroken run at the pale level of print, gaps
    /// of [`RULE_GAP`] bridged (bold letters written in a box darken rows as much,
    /// but leave paper between them).
    fn rule_below(&self, y: u32, x0: u32, x1: u32, limit: u32) -> Option<u32> {
        let span = 0.8 * x1.saturating_sub(x0) as f32;
        (y..limit.min(self.page.height())).find(|&r| {
            self.row_share(r, x0, x1) > 0.8
                && longest_run((x0..x1).map(|x| self.pale(x, r)), RULE_GAP) as f32 > span
        })
    }
    /// The first line to write on below `y` under columns x0..x1: as
    /// [`Ink::rule_below`], for the thin, faint and slightly slanted lines of a
    /// photographed form (paler ink counts, and a row's dark pixels may lie a row
    /// above or below it).
    fn line_below(&self, y: u32, x0: u32, x1: u32, limit: u32) -> Option<u32> {
        (y..limit.min(self.page.height())).find(|&r| self.line_at(r, x0, x1))
    }
    /// Whether row `r` is such a line under columns x0..x1 ([`Ink::line_below`]).
    fn line_at(&self, r: u32, x0: u32, x1: u32) -> bool {
        let n = (x0..x1)
            .filter(|&x| (r.saturating_sub(1)..=r + 1).any(|rr| self.pale(x, rr)))
            .count();
        n as f32 > 0.8 * x1.saturating_sub(x0).max(1) as f32
    }
    /// The nearest printed side of a box crossing rows y0..y1, from column `from`
    /// towards `to` (either way): a column dark over nine tenths of the band that
    /// also meets the box's top (`top`: the rule's row, or the rows a label in the
    /// box's corner stands on) and its bottom rule. A written `1` can be as tall as
    /// the band; it does not run on into the print round it.
    fn side(
        &self,
        from: u32,
        to: u32,
        (y0, y1): (u32, u32),
        top: Result<u32, (u32, u32)>,
        bottom: Option<u32>,
    ) -> Option<u32> {
        // Inked (at the pale level of thin print) on every row from `a` to `b`: a
        // side runs into the rule it meets, where a stroke of writing in the box stops
        // short of it (the rule itself is dark under any column).
        // (Two columns either way and one row missed: a photographed side still leans.)
        let meets = |x: u32, a: u32, b: u32| {
            (a.min(b)..=a.max(b))
                .filter(|&r| !(x.saturating_sub(2)..=x + 2).any(|c| self.pale(c, r)))
                .count()
                <= 1
        };
        let dark = |x: u32| {
            self.side_share(x, y0, y1) > 0.9
                && match top {
                    Ok(r) => meets(x, r, y0),
                    // The middle of the label's rows: its box as read may reach past
                    // the box's top.
                    Err((a, b)) => self.col_share(x, a + (b - a) / 4, b - (b - a) / 4) > 0.9,
                }
                && bottom.is_none_or(|r| meets(x, y1, r))
        };
        if to >= from {
            (from..to.min(self.page.width())).find(|&x| dark(x))
        } else {
            (to..from).rev().find(|&x| dark(x))
        }
    }
    /// The columns a printed rule on row `y` (or the rows next to it) runs over
    /// through column `x`, gaps of a few pixels bridged: where a line to write on
    /// starts and ends.
    fn run(&self, y: u32, x: u32) -> Option<(u32, u32)> {
        let w = self.page.width();
        let start = (x.saturating_sub(2)..(x + 3).min(w))
            .find(|&c| (y.saturating_sub(1)..=y + 1).any(|r| self.pale(c, r)))?;
        // The line is followed as it drifts a row up or down (a photographed page is
        // never quite straight).
        let walk = |step: i64| {
            let (mut c, mut last, mut gap, mut row) = (start as i64, start, 0, y);
            while c >= 0 && c < w as i64 && gap <= 6 {
                let x = c as u32;
                match [row, row.saturating_sub(1), row + 1]
                    .into_iter()
                    .find(|&r| self.pale(x, r))
                {
                    Some(r) => {
                        row = r;
                        last = x;
                        gap = 0;
                    }
                    None => gap += 1,
                }
                c += step;
            }
            last
        };
        Some((walk(-1), walk(1)))
    }
}

/// Reads the page outside the table and finds the fields and the result options.
/// `table` is the move table; without one the whole page is read.
/// A runtime failure gives an empty [`FormText`] (nothing found, nothing invented).
pub fn find_fields(page: &GrayImage, table: Option<&Table>, ocr: &mut PrintedReader) -> FormText {
    read_form(page, table, ocr).unwrap_or_default()
}

/// The regions read: above and below the table (from its columns' lowest top and
/// highest foot), the page's width; the whole page without a table.
pub fn regions(page: &GrayImage, table: Option<&Table>) -> Vec<[u32; 4]> {
    let (w, h) = page.dimensions();
    match table {
        None => vec![[0, 0, w, h]],
        Some(t) => {
            let [tx, ty, tw, th] = t.bbox;
            let (ty, tx) = (ty.min(h), tx.min(w));
            let bottom = (ty + th).min(h);
            let right = (tx + tw).min(w);
            // A slanted table (its columns' tops or feet more than half a row apart):
            // the page is read from half a row inside its highest foot (lowest top),
            // so that a label level with that end's rule is read whole; the table's
            // own lines are dropped after.
            let [top_in, bottom_in] = t.inner;
            let top_in = if top_in > ty + t.row / 2 {
                (top_in + t.row / 2).min(bottom)
            } else {
                ty
            };
            let bottom_in = if bottom_in + t.row / 2 < bottom {
                bottom_in.saturating_sub(t.row / 2).max(ty)
            } else {
                bottom
            };
            // Beside the table only where a column of fields fits (a strip of labels).
            let side = w / 8;
            [
                [0, 0, w, top_in],
                [0, bottom_in, w, h - bottom_in],
                [0, ty, tx, bottom - ty],
                [right, ty, w - right, bottom - ty],
            ]
            .into_iter()
            .enumerate()
            .filter(|(i, r)| if *i < 2 { r[3] >= 16 } else { r[2] >= side })
            .map(|(_, r)| r)
            .collect()
        }
    }
}

/// As [`find_fields`], with the runtime's errors.
///
/// # Errors
/// When the runtime fails.
pub fn read_form(
    page: &GrayImage,
    table: Option<&Table>,
    ocr: &mut PrintedReader,
) -> Result<FormText, ModelError> {
    let mut lines = Vec::new();
    for r in regions(page, table) {
        lines.extend(ocr.read_region(page, r)?);
    }
    if let Some(t) = table {
        off_cells(&mut lines, t);
    }
    let bbox = table.map(|t| t.bbox);
    let atop = labels_atop_writing(page, bbox, &lines, ocr)?;
    lines.extend(atop);
    Ok(form_from_lines(page, bbox, &lines))
}

/// Drops the lines read with their centre in one of the table's cells: a slanted
/// table's foot (or top) is inside the regions read, and its moves are no header.
fn off_cells(lines: &mut Vec<TextLine>, table: &Table) {
    lines.retain(|l| {
        let [x, y, w, h] = l.bbox;
        let (cx, cy) = (x + w / 2, y + h / 2);
        !table
            .cells
            .iter()
            .any(|&[bx, by, bw, bh]| (bx..bx + bw).contains(&cx) && (by..by + bh).contains(&cy))
    });
}

/// Height, in label heights, from which a line read is writing: the detector may have
/// taken a label printed in a box's corner into the writing that reaches up to it.
const MERGED_HEIGHT: u32 = 2;

/// Width, in label heights, of the strip read for such a label.
const CORNER_STRIP: u32 = 8;

/// The labels the detector merged into the writing below them (`Date` in a box's
/// corner, the date written up to it): each tall line's top-left strip, one label high,
/// is read again, and a label of a field not found yet that begins it is a line of its
/// own.
fn labels_atop_writing(
    page: &GrayImage,
    table: Option<[u32; 4]>,
    lines: &[TextLine],
    ocr: &mut PrintedReader,
) -> Result<Vec<TextLine>, ModelError> {
    let (labels, _) = find_labels(lines, table);
    let ink = Ink::new(page);
    let mut heights: Vec<u32> = labels.iter().map(|l| l.bbox[3]).collect();
    heights.sort_unstable();
    let Some(&lh) = heights.get(heights.len() / 2) else {
        return Ok(Vec::new());
    };
    let strips: Vec<[u32; 4]> = lines
        .iter()
        .filter(|l| l.bbox[3] >= MERGED_HEIGHT * lh)
        .filter(|l| words(l).iter().all(|w| match_label(&w.text).is_none()))
        .map(|l| {
            let [x, y, w, h] = l.bbox;
            let (x0, x1) = (x.saturating_sub(lh / 2), x + w.min(CORNER_STRIP * lh));
            // The strip starts a little above the first row of ink (the label's top,
            // a rule's row aside), so that the print is whole and the writing's tops
            // are few.
            let top = (y..y + h)
                .find(|&r| {
                    let n = (x0..x1).filter(|&c| ink.dark(c, r)).count() as u32;
                    n >= 2 && 2 * n < x1 - x0
                })
                .unwrap_or(y);
            [x0, top.saturating_sub(lh / 3), x1 - x0, lh]
        })
        .collect();
    if strips.is_empty() {
        return Ok(Vec::new());
    }
    let mut kinds: Vec<FieldKind> = labels.iter().map(|l| l.kind).collect();
    let mut out: Vec<TextLine> = Vec::new();
    for line in ocr.read_boxes(page, &strips)? {
        // The strip begins with the label; the tops of the writing read after it.
        let Some(w) = words(&line)
            .into_iter()
            .find(|w| w.text.chars().filter(|c| c.is_alphanumeric()).count() >= 2)
        else {
            continue;
        };
        let Some((kind, _)) = match_label(&w.text) else {
            continue;
        };
        if kinds.contains(&kind) {
            continue;
        }
        kinds.push(kind);
        let [_, y, _, h] = line.bbox;
        let chars =
            line.chars[w.span.0..(w.span.1 + usize::from(w.colon)).min(line.chars.len())].to_vec();
        out.push(TextLine {
            text: chars.iter().map(|c| c.0).collect(),
            bbox: [w.x0, y, w.x1.saturating_sub(w.x0).max(1), h],
            confidence: line.confidence,
            chars,
        });
    }
    Ok(out)
}

/// The fields and result options in lines already read.
pub fn form_from_lines(page: &GrayImage, table: Option<[u32; 4]>, lines: &[TextLine]) -> FormText {
    let ink = Ink::new(page);
    let (labels, headings) = find_labels(lines, table);
    let fields = place_values(page, &ink, &labels, &headings, lines, table);
    let result_options = result_options(&ink, lines, &labels);
    let captions = lines.iter().flat_map(|line| {
        let [_, y, _, h] = line.bbox;
        words(line)
            .into_iter()
            .filter(|w| is_signature_word(&w.text))
            .map(move |w| [w.x0, y, w.x1.saturating_sub(w.x0).max(1), h])
    });
    let print = labels.iter().map(|l| l.bbox).chain(captions).collect();
    FormText {
        fields,
        result_options,
        lines: lines
            .iter()
            .map(|l| (l.text.clone(), l.bbox, l.confidence))
            .collect(),
        print,
    }
}

/// The labels read, one per field, and the rows (top, height) of the move table's
/// column headings (`White`, `Black` over the table), which are no label.
fn find_labels(lines: &[TextLine], table: Option<[u32; 4]>) -> (Vec<Label>, Vec<(u32, u32)>) {
    // Each line's words, with the label each reads as.
    type Read = Vec<(LineWord, Option<(FieldKind, usize)>)>;
    let read: Vec<(&TextLine, Read)> = lines
        .iter()
        .map(|l| {
            let ws = words(l).into_iter().map(|w| {
                let m = match_label(&w.text);
                (w, m)
            });
            (l, ws.collect())
        })
        .collect();
    // The rows (line tops and heights) that read a `White` or a `Black`: a column
    // heading reads both colours on one row, a field label its own colour alone.
    let colours: Vec<(FieldKind, u32, u32)> = read
        .iter()
        .flat_map(|(l, ws)| {
            ws.iter().filter_map(move |(_, m)| match m {
                Some((k @ (FieldKind::White | FieldKind::Black), _)) => {
                    Some((*k, l.bbox[1], l.bbox[3]))
                }
                _ => None,
            })
        })
        .collect();
    // A colour and a win word, apart or read as one word (`WHITEWON`).
    let colour_won = |word: &str| {
        let f = fold(word);
        WIN_WORDS.iter().any(|win| {
            f.strip_suffix(win).is_some_and(|c| {
                matches!(
                    match_label(c),
                    Some((FieldKind::White | FieldKind::Black, _))
                )
            })
        })
    };
    let options_rows: Vec<(u32, u32)> = read
        .iter()
        .filter(|(_, ws)| {
            ws.iter().any(|(w, _)| colour_won(&w.text))
                || ws.windows(2).any(|p| {
                    matches!(p[0].1, Some((FieldKind::White | FieldKind::Black, _)))
                        && WIN_WORDS.contains(&fold(&p[1].0.text).as_str())
                })
        })
        .map(|(l, _)| (l.bbox[1], l.bbox[3]))
        .collect();
    let mut found = Vec::new();
    let mut headings = Vec::new();
    for (line, ws) in &read {
        if ws.iter().any(|(w, _)| is_signature_word(&w.text)) {
            continue;
        }
        // `RESULT:  WHITE WON  DRAW  BLACK WON`: the result options printed in words
        // on the row; their print is no name and no written result.
        let [_, y, _, h] = line.bbox;
        if options_rows.iter().any(|&o| same_row(o, (y, h))) {
            continue;
        }
        // Words already joined to a label before them (`Board` in `Доска / Board`)
        // are that label's, not one of their own.
        let mut joined_to = 0;
        for (at, (w, m)) in ws.iter().enumerate() {
            if at < joined_to {
                continue;
            }
            // `(white)` under a signature line names the signer, not a field.
            if w.text.starts_with('(') {
                continue;
            }
            let Some((kind, mut distance)) = *m else {
                continue;
            };
            // A column heading just over the table (`White`, `Black`) names no field:
            // the other colour read on its row too, or the row right at the table's top.
            let partnered = || {
                colours
                    .iter()
                    .any(|&(k, cy, ch)| k != kind && same_row((cy, ch), (y, h)))
            };
            if let Some([tx, ty, tw, _]) = table
                && matches!(kind, FieldKind::White | FieldKind::Black)
                && !w.colon
                && overlap(w.x0, w.x1, tx, tx + tw) > 0
                && y + h + 3 * h >= ty
                && y < ty + h
                && (partnered() || y + 2 * h >= ty)
            {
                headings.push((y, h));
                continue;
            }
            // The words printed with it (`No.` after, `Spieler` before) are the label's.
            let mut text = w.text.clone();
            let (mut x1, mut colon) = (w.x1, w.colon);
            // So is the same field's label in another language after a slash (`Runde /
            // Round`, `Тур / Round`).
            let after = &ws[at + 1..];
            let same = |m: &Option<(FieldKind, usize)>| m.is_some_and(|(k, _)| k == kind);
            for (j, (q, m)) in after.iter().enumerate() {
                let slash =
                    fold(&q.text).is_empty() && after.get(j + 1).is_some_and(|n| same(&n.1));
                let joins = slash || same(m) || (m.is_none() && is_one_of(AFTER_LABEL, &q.text));
                if colon || !joins {
                    break;
                }
                text = format!("{text} {}", q.text);
                (x1, colon) = (q.x1, q.colon);
                joined_to = at + j + 2;
                // The label reads as well as its best-read word.
                if let Some((_, d)) = m {
                    distance = distance.min(*d);
                }
            }
            let x0 = match at.checked_sub(1).map(|b| &ws[b]) {
                Some((q, None)) if !q.colon && is_one_of(BEFORE_LABEL, &q.text) => {
                    text = format!("{} {text}", q.text);
                    q.x0
                }
                _ => w.x0,
            };
            found.push(Label {
                kind,
                text: text + if colon { ":" } else { "" },
                bbox: [x0, y, x1.saturating_sub(x0).max(1), h],
                distance,
            });
        }
    }
    // One label per field: one read at about the labels' height before one on a
    // taller line (writing: `Открытый турнир` written under the printed `Турнир`),
    // then the closest match, then the one with a colon, then topmost.
    let limit = tall_line(&found);
    found.sort_by_key(|l| {
        (
            l.kind,
            limit.is_some_and(|t| l.bbox[3] as f32 > t),
            l.distance,
            !l.text.ends_with(':'),
            l.bbox[1],
        )
    });
    let mut out: Vec<Label> = Vec::new();
    for l in found {
        if out.iter().all(|o| o.kind != l.kind) {
            out.push(l);
        }
    }
    (out, headings)
}

/// Where each label's value is written.
fn place_values(
    page: &GrayImage,
    ink: &Ink,
    labels: &[Label],
    headings: &[(u32, u32)],
    lines: &[TextLine],
    table: Option<[u32; 4]>,
) -> Vec<FieldSpot> {
    let (pw, ph) = page.dimensions();
    let margin = pw / 40;
    // Words that are no label, no signature line's caption and not on the table's
    // heading row (its `No.` or `#` over the move numbers is print): the writing (and
    // other print).
    let writing: Vec<[u32; 4]> = lines
        .iter()
        .filter(|line| {
            let [_, y, _, h] = line.bbox;
            !headings.iter().any(|&r| same_row(r, (y, h)))
        })
        .flat_map(|line| {
            let [_, y, _, h] = line.bbox;
            words(line)
                .into_iter()
                .filter(|w| match_label(&w.text).is_none() && !is_signature_word(&w.text))
                // A label's own words (`No.` after `Round`) are print.
                .filter(move |w| {
                    !labels.iter().any(|l| {
                        let [lx, ly, lw, lh] = l.bbox;
                        ly == y && lh == h && overlap(w.x0, w.x1, lx, lx + lw) > 0
                    })
                })
                .map(move |w| [w.x0, y, w.x1.saturating_sub(w.x0).max(1), h])
        })
        .collect();
    // Where each label's row ends: the next label on its row, right of it, or the
    // rule (a box's side) before that.
    let row_end = |l: &Label| -> u32 {
        let [lx, ly, lw, lh] = l.bbox;
        let (lx1, ly1) = (lx + lw, ly + lh);
        let next = labels
            .iter()
            .filter(|o| {
                o.bbox[0] > lx1 && overlap(o.bbox[1], o.bbox[1] + o.bbox[3], ly, ly1) * 2 > lh
            })
            .map(|o| o.bbox[0])
            .min();
        let limit = next.unwrap_or(pw - margin);
        let rule = ink.rule_right(lx1 + lh / 2, ly, ly1, limit);
        rule.unwrap_or(limit).min(limit)
    };
    let ends: Vec<u32> = labels.iter().map(row_end).collect();
    // Each word of writing with the label it stands beside: the nearest one left of
    // it whose row it shares, as far as that row runs (a word past a box's side is
    // in the next box, written below that box's label).
    let writing: Vec<([u32; 4], Option<[u32; 4]>)> = writing
        .into_iter()
        .map(|w| {
            let owner = labels
                .iter()
                .zip(&ends)
                .filter(|&(o, &end)| {
                    o.bbox[0] <= w[0]
                        && w[0] < end
                        && overlap(o.bbox[1], o.bbox[1] + o.bbox[3], w[1], w[1] + w[3]) * 2
                            > o.bbox[3]
                })
                .map(|(o, _)| o)
                .max_by_key(|o| o.bbox[0])
                .map(|o| o.bbox);
            (w, owner)
        })
        .collect();
    labels
        .iter()
        .zip(ends)
        .map(|(l, right_end)| {
            let [lx, ly, lw, lh] = l.bbox;
            let lx1 = lx + lw;
            let ly1 = ly + lh;
            let room = right_end.saturating_sub(lx1);
            // Rows between this label's line and the labels' rows above and below.
            let above = labels
                .iter()
                .filter(|o| {
                    o.bbox[1] + o.bbox[3] <= ly
                        && overlap(o.bbox[0], o.bbox[0] + o.bbox[2] + 4 * lh, lx, lx1 + 4 * lh) > 0
                })
                .map(|o| o.bbox[1] + o.bbox[3])
                .max()
                .unwrap_or(0);
            let below = labels
                .iter()
                .filter(|o| {
                    o.bbox[1] >= ly1
                        && overlap(o.bbox[0], o.bbox[0] + o.bbox[2] + 4 * lh, lx, lx1 + 4 * lh) > 0
                })
                .map(|o| o.bbox[1])
                .chain(headings.iter().map(|&(hy, _)| hy).filter(|&hy| hy >= ly1))
                .min()
                .unwrap_or(ph);
            // A label in a tall box's top corner, or with no room beside it: the value
            // is below it.
            let box_bottom =
                ink.rule_below(ly1 + 2, lx, lx1.max(lx + lh), (ly1 + 6 * lh).min(below));
            // A rule under the label's own print: the label stands above a box (an
            // underline to write on starts right of a label, not under it).
            let colon = l.text.ends_with(':');
            let under = ink.rule_below(ly1.saturating_sub(lh / 3), lx, lx1, ly1 + lh);
            // Without a colon, a rule under the label's print (a box's top or the line
            // to write on) puts the value below it.
            // An underline starting right of the label, at its foot: the line to write on.
            // Not as far as the table's rule when the label is just over it.
            let reach = match table {
                Some([_, ty, _, _]) if ty > ly1 => (ly1 + lh * 3 / 2).min(ty.saturating_sub(3)),
                _ => ly1 + lh * 3 / 2,
            };
            // A line that starts left of the label is a frame's rule, not this label's
            // line to write on. Bold writing on the line darkens the rows just over it
            // as much (its glyphs' feet): of the rows found within half a label's
            // height that start right of the label, the line is the one that runs
            // furthest.
            let (ux0, ux1) = (lx1 + lh / 2, (lx1 + 3 * lh).min(pw));
            // The line's run (first and last column).
            let underline = ink
                .line_below(ly + lh / 2, ux0, ux1, reach)
                .and_then(|first| {
                    (first..=(first + lh / 2).min(reach))
                        .filter(|&r| ink.line_at(r, ux0, ux1))
                        .filter_map(|r| ink.run(r, lx1 + lh).map(|run| (run, r)))
                        .filter(|&((s, _), _)| s + lh / 2 >= lx1)
                        .max_by_key(|&((s, e), r)| (e - s, std::cmp::Reverse(r)))
                        .map(|(run, _)| run)
                });
            let line_right = underline.is_some();
            let geometric_below = room < 2 * lh
                || (!colon && !line_right && (box_bottom.is_some() || under.is_some()));
            let below_box = {
                let y0 = under.map_or(ly1, |u| u + 2);
                let bottom = ink.rule_below(y0 + lh / 2, lx, lx1, (y0 + 4 * lh).min(below));
                let y1 = bottom
                    .unwrap_or((y0 + 2 * lh).min(below))
                    .min(below)
                    .max(y0 + lh);
                let x1 = right_end.max(lx + 6 * lh).min(pw);
                // The box the value is written in: its sides nearest the label's
                // middle (a label centred over its cell, or in its corner); else the
                // line written on, as long as it runs.
                let (y1, cx) = (y1.min(ph), lx + lw / 2);
                let band = (y0 + 2, y1.saturating_sub(2).max(y0 + 3));
                let top = under.ok_or((ly, ly1));
                // Sides are searched from just inside the label's ends (the box read
                // round a label in a corner may take in the side): a box is about as
                // wide as its label at least, and a tall written `1` under the
                // label's middle is no side.
                let (inl, inr) = (
                    lx + (lw / 4).min(lh / 2),
                    lx1.saturating_sub((lw / 4).min(lh / 2)),
                );
                let left = ink.side(inl, lx.saturating_sub(12 * lh), band, top, bottom);
                let right = ink.side(inr, x1 + 2 * lh, band, top, bottom);
                let (x0, x1) = match (left, right, bottom) {
                    (None, None, Some(r)) => match ink.run(r, cx) {
                        Some((s, e)) if e - s >= 2 * lh => {
                            (s.saturating_sub(lh / 2), (e + lh / 2).min(pw))
                        }
                        _ => (lx, x1),
                    },
                    _ => (
                        left.map_or(lx, |x| x + 3),
                        right.map_or(x1, |x| x.saturating_sub(2)),
                    ),
                };
                [x0, y0, x1.saturating_sub(x0).max(1), y1 - y0]
            };
            // The rows a value beside the label may take: between the middles of the
            // gaps to the labels above and below, under any print above.
            let (right_box, right_rows) = {
                let x0 = lx1 + lh / 4;
                let mid_above = if above > 0 {
                    (above + ly) / 2
                } else {
                    ly.saturating_sub(lh)
                };
                // Not into a line read above the label's row (a title, a row of print
                // or writing over it): its foot is the top.
                let print_above = lines
                    .iter()
                    .map(|line| line.bbox)
                    .filter(|&[bx, by, bw, bh]| {
                        by + bh <= ly && overlap(bx, bx + bw, x0, right_end) > 0
                    })
                    .map(|[_, by, _, bh]| by + bh)
                    .max()
                    .unwrap_or(0);
                let y0 = ly
                    .saturating_sub(lh * 3 / 4)
                    .max(mid_above)
                    .max(print_above);
                let mid_below = if below < ph {
                    (ly1 + below) / 2
                } else {
                    ly1 + lh / 2
                };
                let y1 = (ly1 + lh / 2).min(mid_below).min(ph);
                // A line to write on ends where the writing should (a signature line
                // or other print may follow on the same row).
                let x1 = match underline {
                    Some((_, e)) => right_end.min(e + lh / 2),
                    None => right_end,
                };
                let rows = (mid_above.max(print_above), mid_below.min(ph));
                ([x0, y0, x1.saturating_sub(x0).max(1), y1 - y0], rows)
            };
            // Writing seen in one place and not the other decides; a blank form
            // keeps the form's geometry. Writing beside another label, on its row,
            // is that label's value.
            let holds = |b: [u32; 4]| {
                writing
                    .iter()
                    .filter(|(_, owner)| owner.is_none_or(|o| o == l.bbox))
                    .filter(|(w, _)| {
                        let (cx, cy) = centre(*w);
                        cx >= b[0] as f32
                            && cx <= (b[0] + b[2]) as f32
                            && cy >= b[1] as f32
                            && cy <= (b[1] + b[3]) as f32
                    })
                    .count()
            };
            let beside = match (holds(right_box) > 0, holds(below_box) > 0) {
                (true, false) => true,
                (false, true) => false,
                _ => !geometric_below,
            };
            let value_box = if beside {
                // The lines of writing the box holds are taken whole, as far as the
                // rows it may take: a hand writes taller than the form prints (digits'
                // tops cut off read as other digits). The writing of the rows above
                // and below it, where it reaches into the box, is no part of it.
                let [bx, by, bw, bh] = right_box;
                let inside = |w: [u32; 4]| {
                    let (cx, cy) = centre(w);
                    cx >= bx as f32
                        && cx <= (bx + bw) as f32
                        && cy >= by as f32
                        && cy <= (by + bh) as f32
                };
                let held = writing
                    .iter()
                    .filter(|(_, owner)| owner.is_none_or(|o| o == l.bbox))
                    .map(|(w, _)| *w)
                    .filter(|w| inside(*w))
                    .fold(None, |rows: Option<(u32, u32)>, w| {
                        let (t, f) = rows.unwrap_or((w[1], w[1] + w[3]));
                        Some((t.min(w[1]), f.max(w[1] + w[3])))
                    });
                let (mut top, mut foot) = match held {
                    Some((t, f)) => (
                        t.min(by).max(right_rows.0),
                        f.max(by + bh).min(right_rows.1),
                    ),
                    None => (by, by + bh),
                };
                for (w, owner) in &writing {
                    let mine = owner.is_none_or(|o| o == l.bbox) && inside(*w);
                    if mine || overlap(w[0], w[0] + w[2], bx, bx + bw) == 0 {
                        continue;
                    }
                    let (_, cy) = centre(*w);
                    if cy < ly as f32 {
                        top = top.max(w[1] + w[3]);
                    } else if cy > ly1 as f32 {
                        foot = foot.min(w[1]);
                    }
                }
                if let Some((t, f)) = held {
                    top = top.min(t.max(right_rows.0));
                    foot = foot.max(f.min(right_rows.1));
                }
                let foot = foot.max(top + 1);
                [bx, top, bw, foot - top]
            } else {
                below_box
            };
            FieldSpot {
                kind: l.kind,
                label: l.text.clone(),
                label_box: l.bbox,
                value_box: off_table(value_box, l.bbox, table, ink),
            }
        })
        .collect()
}

/// How far (a share of the table's width: 1/this) a photographed table's outer rule
/// under a value box may stand from its bounding box's edge.
const TABLE_LEAN: u32 = 30;

/// A value box cut back to the side of the move table its label is on: the moves
/// are no header value. The cut follows the table's outer rule under the box where
/// it is found (a photographed table's rule leans, and its box's corner stands lower
/// or higher than the rule under the box).
fn off_table(b: [u32; 4], label: [u32; 4], table: Option<[u32; 4]>, ink: &Ink) -> [u32; 4] {
    let Some([tx, ty, tw, th]) = table else {
        return b;
    };
    let [x, y, w, h] = b;
    // A box touching the table's outer rule is beside it, not over it.
    if overlap(x, x + w, tx, tx + tw) <= w / 4 || overlap(y, y + h, ty, ty + th) == 0 {
        return b;
    }
    let mid = label[1] + label[3] / 2;
    let lean = tw / TABLE_LEAN;
    // Per stretch of the box's width, the rows of the rule within `rows`; the box
    // keeps clear of all of them.
    let rule_rows = |rows: std::ops::RangeInclusive<u32>| {
        let step = (w / 4).max(1);
        let found: Vec<u32> = (0..4)
            .filter_map(|i| {
                let (x0, x1) = (x + i * step, x + (i + 1) * step);
                let r: Vec<u32> = rows.clone().filter(|&r| ink.line_at(r, x0, x1)).collect();
                Some((*r.first()?, *r.last()?))
            })
            .flat_map(|(a, b)| [a, b])
            .collect();
        Some((*found.iter().min()?, *found.iter().max()?))
    };
    let (y0, y1) = if mid >= ty + th {
        let foot = rule_rows((ty + th).saturating_sub(lean)..=ty + th + 2)
            .map_or(ty + th, |(_, last)| last);
        ((foot + 3).max(y), y + h)
    } else if mid < ty {
        let top = rule_rows(ty.saturating_sub(2)..=ty + lean).map_or(ty, |(first, _)| first);
        (y, (top.saturating_sub(3)).min(y + h))
    } else {
        (y, y + h)
    };
    if y1 <= y0 + 4 {
        return b;
    }
    [x, y0, w, y1 - y0]
}

/// The PGN result a printed word names, if any.
pub fn printed_option(word: &str) -> Option<&'static str> {
    // A colon printed small reads as a full stop (`1.0`, `0.1`); a longer word with a
    // full stop is a date or a number.
    let bare = word.trim_matches(|c| matches!(c, '(' | ')' | '[' | ']' | ' '));
    match bare {
        "1.0" => return Some("1-0"),
        "0.1" => return Some("0-1"),
        _ => {}
    }
    // A draw printed `½:½` reads with its halves as `12`, `V2` or `Y2` (`12:12`), its
    // colon sometimes lost (`1212`).
    if matches!(bare, "1212" | "½½") {
        return Some("1/2-1/2");
    }
    if let Some((a, b)) = bare.split_once([':', '-', '–'])
        && [a, b]
            .iter()
            .all(|h| matches!(*h, "½" | "1/2" | "12" | "V2" | "Y2" | "/2"))
    {
        return Some("1/2-1/2");
    }
    let w: String = word
        .chars()
        .map(|c| match c {
            '–' | '—' | '−' | ':' => '-',
            c => c,
        })
        .filter(|c| !matches!(c, '(' | ')' | '[' | ']' | ' ' | '.'))
        .collect();
    match w.as_str() {
        "1-0" => Some("1-0"),
        "0-1" => Some("0-1"),
        "½-½" | "1/2-1/2" | "1/2" | "½" | "=" | "½-1/2" | "1/2-½" => Some("1/2-1/2"),
        // A stacked `½` printed small reads with stray digits round it (`1½-1½2`).
        w if w.contains('½') && w.chars().count() <= 8 => Some("1/2-1/2"),
        _ => None,
    }
}

/// Whether a reading is a row of printed result options rather than a written result:
/// two different results in it (`1:0½:½0:1`, `1:0 0:1`); a written result is one.
pub fn reads_options(text: &str) -> bool {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let t = t.replace(['-', '.', '–'], ":");
    let win = t.contains("1:0");
    let loss = t.contains("0:1");
    let draw = t.contains('½');
    usize::from(win) + usize::from(loss) + usize::from(draw) >= 2
}

/// `1-0` / `1:0` and `0-1` / `0:1` inside a line's text, not part of a longer number
/// (a date `21-03-2020` holds `1-0`), with their boxes from the characters' columns.
fn wins_inside(line: &TextLine) -> Vec<(&'static str, [u32; 4])> {
    let c: Vec<char> = line.chars.iter().map(|c| c.0).collect();
    let n = c.len();
    let [bx, y, bw, h] = line.bbox;
    let pitch = (bw as f32 / n.max(1) as f32) as u32;
    let sep = |x: char| matches!(x, '-' | ':' | '–' | '—');
    let mut out = Vec::new();
    for i in 0..n.saturating_sub(2) {
        let result = match (c[i], c[i + 2]) {
            ('1', '0') => "1-0",
            ('0', '1') => "0-1",
            _ => continue,
        };
        // A digit before it is part of a longer number, except the `2` of a draw's `½`
        // read glued to it (`V2:1½20:1`, `1:0Y2`).
        let draw_tail = i >= 2 && c[i - 1] == '2' && matches!(c[i - 2], '½' | 'V' | 'Y' | '/');
        // A separator before it continues a number only after a digit (a label's
        // colon read glued to the options, `:1:0½:½`, does not).
        let joined = i >= 2 && sep(c[i - 1]) && c[i - 2].is_ascii_digit();
        if !sep(c[i + 1])
            || (i > 0 && ((c[i - 1].is_ascii_digit() && !draw_tail) || joined))
            || (i + 3 < n && (c[i + 3].is_ascii_digit() || sep(c[i + 3])))
        {
            continue;
        }
        let x0 = line.chars[i].1.saturating_sub(pitch / 2).max(bx);
        let x1 = (line.chars[i + 2].1 + pitch / 2).min(bx + bw);
        out.push((result, [x0, y, x1.saturating_sub(x0).max(1), h]));
    }
    out
}

/// Where a draw's word ends: at its last `½` when only a cross or tick read glued
/// after it follows (`½:½X` beside a crossed `0:1`), so that the window that weighs
/// the draw's mark does not take the neighbour's; else the word's end.
fn draw_end(line: &TextLine, w: &LineWord) -> u32 {
    let chars = &line.chars[w.span.0..w.span.1];
    match chars.iter().rposition(|c| c.0 == '½') {
        Some(k)
            if k + 1 < chars.len()
                && chars[k + 1..]
                    .iter()
                    .all(|c| matches!(c.0, 'X' | 'x' | '×' | 'V' | 'v' | '✓' | '✗')) =>
        {
            (chars[k].1 + chars[k + 1].1) / 2
        }
        _ => w.x1,
    }
}

/// A printed option found: its result and box.
#[derive(Clone, Debug)]
struct Opt {
    result: &'static str,
    bbox: [u32; 4],
}

fn centre(b: [u32; 4]) -> (f32, f32) {
    (
        b[0] as f32 + b[2] as f32 / 2.0,
        b[1] as f32 + b[3] as f32 / 2.0,
    )
}

/// The printed result options and the one marked.
fn result_options(ink: &Ink, lines: &[TextLine], labels: &[Label]) -> Option<ResultOptions> {
    let mut opts: Vec<Opt> = Vec::new();
    for line in lines {
        let ws = words(line);
        if ws.is_empty() {
            continue;
        }
        for w in ws {
            if let Some(r) = printed_option(&w.text) {
                let [_, y, _, h] = line.bbox;
                let x1 = if r == "1/2-1/2" {
                    draw_end(line, &w)
                } else {
                    w.x1
                };
                opts.push(Opt {
                    result: r,
                    bbox: [w.x0, y, x1.saturating_sub(w.x0).max(1), h],
                });
            }
        }
        // Options printed close together come out as one word (`1:0Y2:½2`): the wins
        // are found inside it.
        for (result, at) in wins_inside(line) {
            if !opts.iter().any(|o| {
                o.result == result
                    && overlap(o.bbox[0], o.bbox[0] + o.bbox[2], at[0], at[0] + at[2]) > 0
                    && overlap(o.bbox[1], o.bbox[1] + o.bbox[3], at[1], at[1] + at[3]) > 0
            }) {
                opts.push(Opt { result, bbox: at });
            }
        }
    }
    // A win for each side near each other, in a row or a column.
    let wins: Vec<&Opt> = opts.iter().filter(|o| o.result == "1-0").collect();
    let losses: Vec<&Opt> = opts.iter().filter(|o| o.result == "0-1").collect();
    let draws: Vec<&Opt> = opts.iter().filter(|o| o.result == "1/2-1/2").collect();
    let near = |a: [u32; 4], b: [u32; 4], reach: f32| {
        let ((ax, ay), (bx, by)) = (centre(a), centre(b));
        let h = a[3].max(b[3]) as f32;
        let row = (ay - by).abs() < h * 0.6 && (bx - ax).abs() < h * reach;
        let col = (ax - bx).abs() < h * 1.5 && (by - ay).abs() < h * reach * 2.0 / 3.0;
        (row || col).then(|| (ax - bx).hypot(ay - by))
    };
    let mut best: Option<(f32, [u32; 4], [u32; 4])> = None;
    for a in &wins {
        for b in &losses {
            if let Some(d) = near(a.bbox, b.bbox, 12.0)
                && best.is_none_or(|b| d < b.0)
            {
                best = Some((d, a.bbox, b.bbox));
            }
        }
    }
    // One win read beside the draw: the other win's print is spoilt (a cross, a tick
    // across it); it stands mirrored across the draw, on a box of print there if any.
    let mirror = |a: [u32; 4], d: [u32; 4]| {
        let ((ax, ay), (dx, dy)) = (centre(a), centre(d));
        let (cx, cy) = (2.0 * dx - ax, 2.0 * dy - ay);
        let h = a[3] as f32;
        lines
            .iter()
            .map(|l| l.bbox)
            .find(|b| {
                let (x, y) = centre(*b);
                (x - cx).abs() < h
                    && (y - cy).abs() < h * 0.6
                    && b[2] as f32 <= (4.0 * h).min(2.0 * a[2] as f32)
            })
            .unwrap_or([
                (cx - a[2] as f32 / 2.0).max(0.0) as u32,
                (cy - a[3] as f32 / 2.0).max(0.0) as u32,
                a[2],
                a[3],
            ])
    };
    if best.is_none() {
        for d in &draws {
            for w in &wins {
                if let Some(dist) = near(w.bbox, d.bbox, 6.0) {
                    best = Some((dist, w.bbox, mirror(w.bbox, d.bbox)));
                }
            }
            for l in &losses {
                if let Some(dist) = near(l.bbox, d.bbox, 6.0) {
                    best = Some((dist, mirror(l.bbox, d.bbox), l.bbox));
                }
            }
        }
    }
    // One win read and nothing else: the draw's print read as anything (a stacked
    // `½` reads as signs of other scripts) and the other win spoilt by its mark. The
    // two boxes of print next to the win, where the printed order `1-0 ½-½ 0-1` puts
    // them and evenly spaced, are taken as the draw and the other win.
    if best.is_none() {
        let label_boxes: Vec<[u32; 4]> = labels.iter().map(|l| l.bbox).collect();
        for o in wins.iter().chain(losses.iter()) {
            if let Some(b) = beside_in_order(o, lines, &label_boxes) {
                best = Some(if o.result == "1-0" {
                    (0.0, o.bbox, b)
                } else {
                    (0.0, b, o.bbox)
                });
                break;
            }
        }
    }
    let (_, win_box, loss_box) = best?;
    let win = Opt {
        result: "1-0",
        bbox: win_box,
    };
    let loss = Opt {
        result: "0-1",
        bbox: loss_box,
    };
    let (wx, wy) = centre(win.bbox);
    let (lx, ly) = centre(loss.bbox);
    let (mx, my) = ((wx + lx) / 2.0, (wy + ly) / 2.0);
    let h = win.bbox[3].max(loss.bbox[3]) as f32;
    // The draw: read as one near the middle, else any box of print there (a stacked
    // `½` reads as anything), else the middle itself when the two wins are far enough
    // apart for a third option between them.
    let near_mid = |b: [u32; 4]| {
        let (x, y) = centre(b);
        (x - mx).abs() < h * 1.2 && (y - my).abs() < h * 0.8
    };
    let draw_read = opts
        .iter()
        .find(|o| o.result == "1/2-1/2" && near_mid(o.bbox))
        .map(|o| o.bbox);
    let draw_box = draw_read.or_else(|| {
        lines
            .iter()
            .map(|l| l.bbox)
            .find(|b| near_mid(*b) && b[2] as f32 <= 4.0 * h)
    });
    let gap = (wx - lx).abs().max((wy - ly).abs());
    // Room for a third option: in a row, the wins' width where that is less than the
    // line's height (a tick or circle through the print makes the line tall).
    let size = if (wx - lx).abs() >= (wy - ly).abs() {
        h.min(win.bbox[2].max(loss.bbox[2]) as f32)
    } else {
        h
    };
    let draw_box = draw_box.or_else(|| {
        (gap > 2.5 * size).then(|| {
            let w = win.bbox[2].max(loss.bbox[2]);
            let hh = win.bbox[3].max(loss.bbox[3]);
            [
                (mx - w as f32 / 2.0).max(0.0) as u32,
                (my - hh as f32 / 2.0).max(0.0) as u32,
                w,
                hh,
            ]
        })
    });
    let mut options: Vec<(String, [u32; 4])> = vec![(win.result.to_string(), win.bbox)];
    if let Some(b) = draw_box {
        options.push(("1/2-1/2".to_string(), b));
    }
    options.push((loss.result.to_string(), loss.bbox));
    options.sort_by(|a, b| {
        let (ax, ay) = centre(a.1);
        let (bx, by) = centre(b.1);
        (ay + ax).total_cmp(&(by + bx))
    });
    let others: Vec<[u32; 4]> = lines.iter().map(|l| l.bbox).collect();
    let (marked, note) = marked_option(ink, &options, &others);
    Some(ResultOptions {
        options,
        marked,
        note,
    })
}

/// The two boxes of print beside a win `o` read alone, in the order the form prints
/// `1-0 ½-½ 0-1`: right of (or below) a `1-0`, left of (or above) a `0-1`; each the
/// win's height give or take, no wider than three of its widths, none a label's, the
/// gap to the first under three of the win's heights and the two steps between
/// centres within a third of each other. Returns the other win's box (the draw's is
/// then found between the two as any draw's is).
fn beside_in_order(o: &Opt, lines: &[TextLine], labels: &[[u32; 4]]) -> Option<[u32; 4]> {
    let forward = o.result == "1-0";
    let h = o.bbox[3] as f32;
    let (ox, oy) = centre(o.bbox);
    let clear = |b: &[u32; 4]| {
        let touches = |a: &[u32; 4]| {
            overlap(a[0], a[0] + a[2], b[0], b[0] + b[2]) > 0
                && overlap(a[1], a[1] + a[3], b[1], b[1] + b[3]) > 0
        };
        !touches(&o.bbox) && !labels.iter().any(touches)
    };
    let sized = |b: &[u32; 4]| {
        (b[3] as f32) > 0.6 * h && (b[3] as f32) < 2.0 * h && b[2] <= 3 * o.bbox[2].max(1)
    };
    for row in [true, false] {
        // Boxes along the row (or column), ahead of the win, by their distance.
        let mut ahead: Vec<([u32; 4], f32)> = lines
            .iter()
            .map(|l| l.bbox)
            .filter(|b| clear(b) && sized(b))
            .filter_map(|b| {
                let (x, y) = centre(b);
                let (along, across) = if row {
                    (x - ox, y - oy)
                } else {
                    (y - oy, x - ox)
                };
                let along = if forward { along } else { -along };
                let in_line = if row {
                    across.abs() < 0.6 * h
                } else {
                    across.abs() < 1.5 * h
                };
                (in_line && along > 0.0).then_some((b, along))
            })
            .collect();
        ahead.sort_by(|a, b| a.1.total_cmp(&b.1));
        let [(first, d1), (second, d2), ..] = ahead[..] else {
            continue;
        };
        let gap = if row {
            if forward {
                first[0] as f32 - (o.bbox[0] + o.bbox[2]) as f32
            } else {
                o.bbox[0] as f32 - (first[0] + first[2]) as f32
            }
        } else if forward {
            first[1] as f32 - (o.bbox[1] + o.bbox[3]) as f32
        } else {
            o.bbox[1] as f32 - (first[1] + first[3]) as f32
        };
        let step = d2 - d1;
        if gap < 3.0 * h && step > 0.0 && (step / d1 - 1.0).abs() < 1.0 / 3.0 {
            return Some(second);
        }
    }
    None
}

/// How many times the next option's longest slanted stroke a tick's or a cross's
/// must be (print's own strokes differ by up to 1.5 times between options).
const STROKE_RATIO: f32 = 1.8;
/// The shortest slanted stroke taken for a mark, as a share of the shortest option
/// box's height (print's own reach about 0.6 to 1.0 of it).
const STROKE_MIN: f32 = 0.75;

/// The option marked by a tick or a cross, known by its window's longest slanted
/// stroke (`strokes`, one per option) alone: [`STROKE_RATIO`] times every other
/// option's and [`STROKE_MIN`] of `scale` (the shortest option box's height) at
/// least. Sure in proportion to how far past the next it reaches, never as sure as a
/// mark the ink shows too.
fn slanted_mark(strokes: &[f32], scale: f32) -> Option<(usize, f32)> {
    let mut order: Vec<usize> = (0..strokes.len()).collect();
    order.sort_by(|&a, &b| strokes[b].total_cmp(&strokes[a]));
    let (&first, &second) = (order.first()?, order.get(1)?);
    let (top, next) = (strokes[first], strokes[second]);
    (top >= STROKE_MIN * scale && top >= STROKE_RATIO * next && top > 0.0)
        .then(|| (first, (1.0 - 0.5 * next / top).clamp(0.5, 0.9)))
}

/// Ink a mark adds, at least, as a share of a window's print (a short tick).
const MARK_MIN_SHARE: f32 = 0.25;
/// How many times the next option's added ink the marked one must add.
const MARK_RATIO: f32 = 2.5;
/// How many times the least inked option's print a draw's own print may hold: a
/// stacked `½-½` prints up to two and a half times a win's ink, and a tick or a cross
/// within its box adds little past it (docs/measurements.md).
const DRAW_PRINT: f32 = 2.6;

/// The rows of a row of options' print: from the first to the last row inked (two
/// dark pixels or more, a printed rule's row left out) in the boxes of all the
/// options but the most inked, a pixel of slack each way; `None` where that is no
/// narrower than the boxes.
fn print_band(ink: &Ink, options: &[(String, [u32; 4])]) -> Option<(u32, u32)> {
    let rows = |b: [u32; 4]| -> Vec<(u32, u32)> {
        (b[1]..b[1] + b[3])
            .map(|y| {
                (
                    y,
                    (b[0]..b[0] + b[2]).filter(|&x| ink.dark(x, y)).count() as u32,
                )
            })
            .collect()
    };
    let per: Vec<Vec<(u32, u32)>> = options.iter().map(|o| rows(o.1)).collect();
    let total = |r: &Vec<(u32, u32)>| r.iter().map(|x| x.1).sum::<u32>();
    let heaviest = (0..per.len()).max_by_key(|&i| total(&per[i]))?;
    let (mut y0, mut y1) = (u32::MAX, 0);
    for (i, (r, o)) in per.iter().zip(options).enumerate() {
        if i == heaviest {
            continue;
        }
        for &(y, n) in r {
            if n >= 2 && (n as f32) < 0.8 * o.1[2] as f32 {
                y0 = y0.min(y);
                y1 = y1.max(y + 1);
            }
        }
    }
    let top = options.iter().map(|o| o.1[1]).min()?;
    let bottom = options.iter().map(|o| o.1[1] + o.1[3]).max()?;
    let (y0, y1) = (y0.saturating_sub(1).max(top), (y1 + 1).min(bottom));
    (y0 < y1 && (y0 > top || y1 < bottom)).then_some((y0, y1))
}

/// The option marked: each option's window (the same size for all, centred on the
/// option, reaching past the print by most of a line's height each way) holds the
/// print plus any mark; the least inked window is taken for the print alone. A mark
/// is the window with clearly more ink than the print and than every other window.
fn marked_option(
    ink: &Ink,
    options: &[(String, [u32; 4])],
    lines: &[[u32; 4]],
) -> (Option<(usize, f32)>, Option<String>) {
    if options.len() < 2 {
        return (None, Some("fewer than two result options found".into()));
    }
    let w = options.iter().map(|o| o.1[2]).max().unwrap_or(1) as f32;
    let h = options.iter().map(|o| o.1[3]).max().unwrap_or(1) as f32;
    // Halfway to the nearest other option at most, so windows do not share ink.
    let spacing = options
        .windows(2)
        .map(|p| {
            let (a, b) = (centre(p[0].1), centre(p[1].1));
            (a.0 - b.0).abs().max((a.1 - b.1).abs())
        })
        .fold(f32::MAX, f32::min);
    let row = {
        let (a, b) = (centre(options[0].1), centre(options[options.len() - 1].1));
        (a.0 - b.0).abs() >= (a.1 - b.1).abs()
    };
    let (half_w, half_h) = if row {
        ((w / 2.0 + 0.8 * h).min(spacing / 2.0), h / 2.0 + 0.8 * h)
    } else {
        (w / 2.0 + 0.8 * h, (h / 2.0 + 0.8 * h).min(spacing / 2.0))
    };
    // In a row, the windows stop at the text lines read above and below the options
    // (a name written on the line above is no mark).
    let (mut top, mut bottom) = (f32::MIN, f32::MAX);
    if row {
        let oy0 = options.iter().map(|o| o.1[1]).min().unwrap_or(0);
        let oy1 = options.iter().map(|o| o.1[1] + o.1[3]).max().unwrap_or(0);
        let xs0 = options
            .iter()
            .map(|o| centre(o.1).0)
            .fold(f32::MAX, f32::min)
            - half_w;
        let xs1 = options
            .iter()
            .map(|o| centre(o.1).0)
            .fold(f32::MIN, f32::max)
            + half_w;
        for b in lines {
            let (b0, b1) = (b[1], b[1] + b[3]);
            let across = (b[0] as f32) < xs1 && ((b[0] + b[2]) as f32) > xs0;
            if !across || overlap(b0, b1, oy0, oy1) > 0 {
                continue;
            }
            if b1 <= oy0 {
                top = top.max(b1 as f32);
            } else if b0 >= oy1 {
                bottom = bottom.min(b0 as f32);
            }
        }
    }
    let (run_x, run_y) = ((1.2 * h) as usize, (0.8 * h) as usize);
    // In a row, the wins' print is in the rows the cleaner options ink (all but the
    // most inked): a tick or cross that made the read line tall reaches past them.
    let band = row.then(|| print_band(ink, options)).flatten();
    // (all the window's ink, the ink over the option's own print box)
    let amounts: Vec<(u32, u32)> = options
        .iter()
        .map(|o| {
            let (cx, cy) = centre(o.1);
            let all = ink.count_off_rules(
                (cx - half_w) as i64,
                (cy - half_h).max(top) as i64,
                (cx + half_w) as i64,
                (cy + half_h).min(bottom) as i64,
                run_x,
                run_y,
            );
            // (A draw keeps its read box: a stacked `½` prints past the wins' rows.)
            let [x, y, w, bh] = match band {
                Some((b0, b1)) if o.0 != "1/2-1/2" => [o.1[0], b0, o.1[2], b1 - b0],
                _ => o.1,
            };
            let over = ink.count_off_rules(
                x as i64,
                y as i64,
                (x + w) as i64,
                (y + bh) as i64,
                run_x,
                run_y,
            );
            (all, over.min(all))
        })
        .collect();
    // Each option's window, where its longest slanted stroke is looked for when the
    // ink names no option.
    let windows: Vec<[i64; 4]> = options
        .iter()
        .map(|o| {
            let (cx, cy) = centre(o.1);
            [
                (cx - half_w) as i64,
                (cy - half_h).max(top) as i64,
                (cx + half_w) as i64,
                (cy + half_h).min(bottom) as i64,
            ]
        })
        .collect();
    // Past the print: the ring round the print box (over the least inked ring), plus
    // what the print box holds past half again the least inked print (a cross doubles
    // a win's), `DRAW_PRINT` times it for the draw.
    let ring_min = amounts.iter().map(|a| a.0 - a.1).min().unwrap_or(0);
    let over_min = amounts.iter().map(|a| a.1).min().unwrap_or(0);
    let print = over_min;
    let added: Vec<f32> = amounts
        .iter()
        .zip(options)
        .map(|(&(all, over), o)| {
            let ring = (all - over - ring_min) as f32;
            let heavy = if o.0 == "1/2-1/2" { DRAW_PRINT } else { 1.5 };
            ring + (over as f32 - heavy * over_min as f32).max(0.0)
        })
        .collect();
    let mut order: Vec<usize> = (0..added.len()).collect();
    order.sort_by(|&a, &b| added[b].total_cmp(&added[a]));
    let (top, next) = (added[order[0]], added[order[1]]);
    let floor = (MARK_MIN_SHARE * print as f32).max(0.07 * h * h);
    let amounts = added
        .iter()
        .map(|a| format!("{a:.0}"))
        .collect::<Vec<_>>()
        .join("/");
    let ink_says = if top < floor {
        Some(format!(
            "no option marked (ink past the print {amounts}, a mark needs {floor:.0})"
        ))
    } else if next * MARK_RATIO > top {
        Some(format!(
            "two options hold about as much ink past the print ({amounts}): marked twice or not at all"
        ))
    } else {
        None
    };
    if let Some(why) = ink_says {
        // A tick or a cross drawn within the print adds little ink past it (least
        // past a draw's heavier print) but leaves a long slanted stroke.
        let scale = options.iter().map(|o| o.1[3]).min().unwrap_or(0) as f32;
        let strokes: Vec<f32> = windows
            .iter()
            .map(|&[x0, y0, x1, y1]| ink.slant_stroke(x0, y0, x1, y1))
            .collect();
        return match slanted_mark(&strokes, scale) {
            Some(m) => (Some(m), None),
            None => (None, Some(why)),
        };
    }
    // Sure in proportion to how far past both bars the mark is.
    let sure = (1.0 - (next / top).max(floor / top) * 0.5).clamp(0.5, 1.0);
    (Some((order[0], sure)), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page with the options `1-0 ½-½ 0-1` printed in 50x20 boxes: each win's print
    /// 240 dark pixels, the draw's `draw_blocks` blocks of 120, and `mark` pixels
    /// (x0, y0, x1, y1) painted on top.
    fn options_page(
        draw_blocks: u32,
        mark: &[(u32, u32, u32, u32)],
    ) -> (GrayImage, Vec<(String, [u32; 4])>) {
        let mut page = GrayImage::from_pixel(400, 100, image::Luma([230]));
        let mut fill = |x0: u32, y0: u32, x1: u32, y1: u32| {
            for y in y0..y1 {
                for x in x0..x1 {
                    page.put_pixel(x, y, image::Luma([20]));
                }
            }
        };
        // Blocks 10 wide and 12 tall with gaps: no run along a row or down a column
        // as long as a rule's.
        let print = |fill: &mut dyn FnMut(u32, u32, u32, u32), x: u32, blocks: u32| {
            for b in 0..blocks {
                fill(x + 2 + b * 12, 44, x + 12 + b * 12, 56);
            }
        };
        print(&mut fill, 40, 2);
        print(&mut fill, 160, draw_blocks);
        print(&mut fill, 280, 2);
        for &(x0, y0, x1, y1) in mark {
            fill(x0, y0, x1, y1);
        }
        let options = [("1-0", 40), ("1/2-1/2", 160), ("0-1", 280)]
            .map(|(r, x)| (r.to_string(), [x, 40, 50, 20]))
            .to_vec();
        (page, options)
    }

    #[test]
    fn writing_on_the_line_above_the_options_is_no_mark() {
        // A name's letters (blocks with gaps, no rule's runs) written above the loss,
        // inside its window but on a text line of their own, read at y 22..38.
        let (mut page, options) = options_page(2, &[]);
        for k in 0..4 {
            for y in 27..35 {
                for x in 282 + k * 12..292 + k * 12 {
                    page.put_pixel(x, y, image::Luma([20]));
                }
            }
        }
        let (marked, _) = marked_option(&Ink::new(&page), &options, &[]);
        assert_eq!(
            marked.map(|m| m.0),
            Some(2),
            "unclipped, the name is taken for a mark"
        );
        let name = [270, 22, 80, 16];
        let (marked, note) = marked_option(&Ink::new(&page), &options, &[name]);
        assert_eq!(marked, None, "{note:?}");
    }

    #[test]
    fn the_print_band_is_the_rows_the_cleaner_options_ink() {
        // Boxes read 60 tall (a tick made the line tall); the print is on rows 44..56.
        let (mut page, options) = options_page(2, &[]);
        for i in 0..40 {
            page.put_pixel(60 + i, 75 - i, image::Luma([20]));
            page.put_pixel(61 + i, 75 - i, image::Luma([20]));
        }
        let tall: Vec<_> = options
            .into_iter()
            .map(|(r, b)| (r, [b[0], 20, b[2], 60]))
            .collect();
        assert_eq!(print_band(&Ink::new(&page), &tall), Some((43, 57)));
    }

    #[test]
    fn longest_runs_bridge_short_gaps() {
        let flags = |s: &str| s.chars().map(|c| c == '#').collect::<Vec<_>>().into_iter();
        assert_eq!(longest_run(flags("##..##....#"), 2), 6);
        assert_eq!(longest_run(flags("##...##"), 2), 2);
        assert_eq!(longest_run(flags("...."), 2), 0);
    }

    #[test]
    fn a_boxs_bottom_is_found_under_bold_writing() {
        // Bold letters under a label's columns, 9 pixels wide with 2 of paper
        // between them, dark over 82% of rows 20..30; the box's rule on row 40.
        let mut page = GrayImage::from_pixel(200, 60, image::Luma([235]));
        for y in 20..30 {
            for x in (0..200).filter(|x| x % 11 < 9) {
                page.put_pixel(x, y, image::Luma([30]));
            }
        }
        for x in 0..200 {
            page.put_pixel(x, 40, image::Luma([30]));
        }
        let ink = Ink::new(&page);
        assert_eq!(ink.rule_below(10, 20, 120, 60), Some(40));
    }

    #[test]
    fn a_tick_within_a_heavy_draws_print_is_a_mark_and_the_print_alone_is_none() {
        // The draw prints 4 blocks (2x a win, as a stacked `½-½` does): no mark.
        let (page, options) = options_page(4, &[]);
        let (marked, note) = marked_option(&Ink::new(&page), &options, &[]);
        assert_eq!(marked, None, "{note:?}");
        // A tick over it: most of its ink within the print's box, a short arm past it.
        let tick = [
            (161, 40, 184, 42),
            (186, 40, 209, 42),
            (161, 57, 184, 60),
            (186, 57, 209, 60),
            (204, 30, 207, 40),
        ];
        let (page, options) = options_page(4, &tick);
        let (marked, note) = marked_option(&Ink::new(&page), &options, &[]);
        assert_eq!(marked.map(|m| m.0), Some(1), "{note:?}");
    }

    /// A straight pen stroke a pixel thick from (x0, y0) to (x1, y1) on `page`.
    fn stroke(page: &mut GrayImage, (x0, y0): (f32, f32), (x1, y1): (f32, f32)) {
        let n = (x1 - x0).hypot(y1 - y0).ceil() as u32;
        for k in 0..=n {
            let t = k as f32 / n as f32;
            let (x, y) = (x0 + t * (x1 - x0), y0 + t * (y1 - y0));
            page.put_pixel(x.round() as u32, y.round() as u32, image::Luma([20]));
        }
    }

    #[test]
    fn a_cross_within_a_heavy_draws_print_is_a_mark_by_its_strokes() {
        // The draw prints 4 blocks (2x a win): a fine cross drawn within its box adds
        // less ink than the draw's print allowance takes in (the ink alone sees no
        // mark), but its bars are far longer than any stroke of the print.
        let (mut page, options) = options_page(4, &[]);
        stroke(&mut page, (162.0, 41.0), (207.0, 58.0));
        stroke(&mut page, (162.0, 58.0), (207.0, 41.0));
        let ink = Ink::new(&page);
        let bar = ink.slant_stroke(140, 20, 230, 80);
        assert!(bar > 40.0, "{bar}");
        // (Two blocks 2 pixels apart: the gap is bridged, the run is the print's width.)
        let print = ink.slant_stroke(20, 20, 110, 80);
        assert!(print < bar / STROKE_RATIO, "{print} {bar}");
        let (marked, note) = marked_option(&ink, &options, &[]);
        assert_eq!(marked.map(|m| m.0), Some(1), "{note:?}");
        assert!(marked.is_some_and(|m| m.1 <= 0.9), "{marked:?}");
    }

    #[test]
    fn a_slanted_mark_must_be_long_and_far_longer_than_the_next() {
        assert_eq!(
            slanted_mark(&[20.0, 60.0, 22.0], 32.0).map(|m| m.0),
            Some(1)
        );
        // Print's own strokes differ by up to half again: no mark.
        assert_eq!(slanted_mark(&[31.0, 14.0, 21.0], 39.0), None);
        // Long enough against the next but short beside the print's height.
        assert_eq!(slanted_mark(&[4.0, 12.0, 3.0], 32.0), None);
        assert_eq!(slanted_mark(&[0.0, 0.0, 0.0], 32.0), None);
    }

    #[test]
    fn one_win_read_takes_the_two_boxes_beside_it_in_the_printed_order() {
        let page = GrayImage::from_pixel(1000, 2000, image::Luma([235]));
        let at = |text: &str, x: u32, w: u32| line(text, [x, 1600, w, 40]);
        // `0-1` read; the draw read as other scripts' signs, the crossed win as `X`;
        // the label further left.
        let lines = [
            at("Wynik:", 64, 88),
            at("X", 157, 80),
            at("12-月", 255, 76),
            at("0-1", 343, 57),
        ];
        let form = form_from_lines(&page, None, &lines);
        let found: Vec<(String, [u32; 4])> =
            form.result_options.map(|o| o.options).unwrap_or_default();
        let results: Vec<&str> = found.iter().map(|o| o.0.as_str()).collect();
        assert_eq!(results, ["1-0", "1/2-1/2", "0-1"], "{found:?}");
        assert_eq!(found[0].1[0], 157, "{found:?}");
        // A `1-0` read with the label and one word after it: no row of three.
        let lines = [
            at("Result:", 64, 88),
            at("1-0", 170, 50),
            at("Smith", 240, 90),
        ];
        let form = form_from_lines(&page, None, &lines);
        assert!(form.result_options.is_none(), "{:?}", form.result_options);
    }

    #[test]
    fn labels_match_in_every_language_and_measured_look_alikes() {
        for (word, kind) in [
            ("Event:", FieldKind::Event),
            ("Turniej", FieldKind::Event),
            ("TyPHup:", FieldKind::Event),
            ("Typ:", FieldKind::Round),
            ("Rd.", FieldKind::Round),
            ("Aocka:", FieldKind::Board),
            ("Br.", FieldKind::Board),
            ("CTOπ", FieldKind::Board),
            ("CTon:", FieldKind::Board),
            ("Croπ", FieldKind::Board),
            ("Cror", FieldKind::Board),
            ("Craπ", FieldKind::Board),
            ("Szachownica", FieldKind::Board),
            ("Aata:", FieldKind::Date),
            ("Weiβ:", FieldKind::White),
            ("Biate:", FieldKind::White),
            ("FeΛble:", FieldKind::White),
            ("YëpHbie:", FieldKind::Black),
            ("Pe3y∧bTaT:", FieldKind::Result),
            ("Peaynbrar", FieldKind::Result),
            ("Résultat", FieldKind::Result),
            ("Ergebnis", FieldKind::Result),
        ] {
            assert_eq!(match_label(word).map(|m| m.0), Some(kind), "{word}");
        }
        for word in [
            "Buffalo", "1901", "Marshall", "OFFICIAL", "Nr", "Rook", "Crow", "Iron",
        ] {
            assert_eq!(match_label(word), None, "{word}");
        }
    }

    #[test]
    fn a_colour_label_alone_on_its_line_above_the_table_names_a_field() {
        let table = Some([80, 365, 1080, 1100]);
        // The last labelled line over the table (`Чёрные`), then the table's heading
        // row with both colours, as the text reader read them.
        let lines = [
            line("YëpHle", [87, 301, 90, 31]),
            line("Ne", [111, 371, 30, 30]),
            line("Eeble", [240, 372, 74, 29]),
            line("YëpHble", [459, 374, 89, 29]),
        ];
        let (labels, _) = find_labels(&lines, table);
        let black: Vec<&Label> = labels
            .iter()
            .filter(|l| l.kind == FieldKind::Black)
            .collect();
        assert_eq!(black.len(), 1, "{labels:?}");
        assert_eq!(black[0].bbox[1], 301, "{labels:?}");
        assert!(
            !labels.iter().any(|l| l.kind == FieldKind::White),
            "{labels:?}"
        );
    }

    #[test]
    fn a_label_word_written_in_a_value_is_not_the_label() {
        // A Russian form's header row as the text reader read it: the printed
        // `Турнир` misread (`TyPHnp`) and the event written under it, `Открытый
        // турнир`, whose `турнир` reads as the label exactly, on a taller line.
        let lines = [
            line("benble", [766, 107, 65, 24]),
            line("Aocka", [436, 106, 66, 29]),
            line("Aata", [565, 107, 54, 27]),
            line("TyPHnp", [187, 108, 73, 27]),
            line("Typ", [373, 106, 42, 31]),
            line("OTkpbITbIù TypHup", [92, 146, 246, 45]),
        ];
        let (labels, _) = find_labels(&lines, Some([154, 250, 1013, 1301]));
        let event: Vec<&Label> = labels
            .iter()
            .filter(|l| l.kind == FieldKind::Event)
            .collect();
        assert_eq!(event.len(), 1, "{labels:?}");
        assert_eq!(event[0].bbox[1], 108, "{labels:?}");
        // With no labels' height to go by, the closest reading is the label still.
        let two = [
            line("TyPHnp", [187, 108, 73, 27]),
            line("OTkpbITbIù TypHup", [92, 146, 246, 45]),
        ];
        let (labels, _) = find_labels(&two, None);
        let event = labels.iter().find(|l| l.kind == FieldKind::Event);
        assert_eq!(event.map(|l| l.bbox[1]), Some(146), "{labels:?}");
    }

    #[test]
    fn result_options_printed_in_words_are_no_labels() {
        // Under the table: the printed options, then a label for a name.
        let lines = [
            line("CIRCLE CORRECT RESULT:", [20, 1700, 400, 30]),
            line("WHITE WON", [500, 1702, 200, 30]),
            line("DRAW", [800, 1702, 100, 30]),
            line("BLACK WON", [1000, 1704, 200, 30]),
            line("Black: Smith", [20, 1750, 400, 30]),
        ];
        // The same row of a photographed sheet: `WHITE WON` read as one word, `BLACK
        // WON` cut off at the page's foot.
        let glued = [
            line("CIRCLE CORRECT RESULT:", [50, 1725, 405, 41]),
            line("WHITEWON", [554, 1724, 203, 44]),
            line("DRAW", [884, 1729, 113, 46]),
            line("RIACV IAIAA", [1105, 1745, 213, 28]),
        ];
        let (labels, _) = find_labels(&glued, Some([112, 0, 1334, 1720]));
        assert!(labels.is_empty(), "{labels:?}");
        let (labels, _) = find_labels(&lines, Some([20, 100, 1300, 1550]));
        let colours: Vec<(FieldKind, u32)> = labels
            .iter()
            .filter(|l| matches!(l.kind, FieldKind::White | FieldKind::Black))
            .map(|l| (l.kind, l.bbox[1]))
            .collect();
        assert_eq!(colours, vec![(FieldKind::Black, 1750)], "{labels:?}");
        assert!(
            !labels.iter().any(|l| l.kind == FieldKind::Result),
            "{labels:?}"
        );
    }

    #[test]
    fn a_signature_caption_read_with_a_name_is_cut_off() {
        assert_eq!(
            before_print("Eichhorn, BärbelSignature"),
            "Eichhorn, Bärbel"
        );
        assert_eq!(before_print("Tom Templeton signature"), "Tom Templeton ");
        assert_eq!(before_print("Podpis"), "");
        assert_eq!(before_print("Golab"), "Golab");
        assert!(reads_labels("Nr.WeißSchwarz"));
        assert!(!reads_labels("Blackburne, J."));
        // A photographed heading `Nr Białe Czarne`, as the text reader read it.
        assert!(reads_labels("Nr Bele czame"));
        assert!(reads_labels("I Nr  Biate  czame"));
        assert!(reads_labels("Nr BiaeCzarne1"));
        assert!(!reads_labels("Beale, Thomas"));
        assert!(!reads_labels("Czarnecki, Adam"));
        assert!(reads_labels("N  Bale 1 came"), "`rn` read as `m`");
    }

    #[test]
    fn printed_options_read() {
        assert_eq!(printed_option("1:0"), Some("1-0"));
        assert_eq!(printed_option("(0-1)"), Some("0-1"));
        assert_eq!(printed_option("½-½"), Some("1/2-1/2"));
        assert_eq!(printed_option("1/2"), Some("1/2-1/2"));
        assert_eq!(printed_option("10"), None);
        assert_eq!(printed_option("0.1"), Some("0-1"));
        assert_eq!(printed_option("1.0"), Some("1-0"));
        assert_eq!(printed_option("12:12"), Some("1/2-1/2"));
        assert_eq!(printed_option("V2-12"), Some("1/2-1/2"));
        assert_eq!(printed_option("10.01"), None);
        assert_eq!(printed_option("12:30"), None);
        assert!(reads_options(":1:0½:½ 0:1"));
        assert!(reads_options("1.0 0.1"));
        assert!(!reads_options("½-½"));
        assert!(!reads_options("1 - 0"));
        assert!(!reads_options("1/2-1/2"));
        assert!(!reads_options("0,5-0,5"));
    }

    fn options_of(text: &str, bbox: [u32; 4]) -> Vec<(String, [u32; 4])> {
        let page = GrayImage::from_pixel(1000, 2000, image::Luma([235]));
        form_from_lines(&page, None, &[line(text, bbox)])
            .result_options
            .map(|o| o.options)
            .unwrap_or_default()
    }

    #[test]
    fn a_win_after_a_glued_colon_is_an_option_and_a_dates_part_is_not() {
        let found = options_of(":1:0½:½", [131, 75, 174, 33]);
        assert!(found.iter().any(|(r, _)| r == "1-0"), "{found:?}");
        let found = options_of("21-1-0", [0, 0, 120, 30]);
        assert!(!found.iter().any(|(r, _)| r == "1-0"), "{found:?}");
    }

    #[test]
    fn a_loss_glued_after_a_draw_is_an_option_and_a_time_is_not() {
        let found = options_of("Result: 1:0 V2:1½20:1", [170, 1680, 320, 40]);
        let results: Vec<&str> = found.iter().map(|o| o.0.as_str()).collect();
        assert!(
            results.contains(&"1-0") && results.contains(&"0-1"),
            "{found:?}"
        );
        let time = wins_inside(&line("ends 20:1", [100, 100, 180, 30]));
        assert!(time.is_empty(), "{time:?}");
    }

    #[test]
    fn a_draw_read_with_a_cross_after_it_ends_at_its_half() {
        // 16 characters over 320 pixels: the `X` is the last, at 310.
        let found = options_of("Result: 1:0 ½:½X", [100, 1660, 320, 50]);
        let draw = found.iter().find(|o| o.0 == "1/2-1/2").expect("the draw");
        assert!(draw.1[0] + draw.1[2] <= 400, "{found:?}");
    }

    #[test]
    fn a_tick_that_makes_the_line_tall_leaves_room_for_the_draw() {
        // The draw ticked reads as `u`; the line is as tall as the tick.
        let found = options_of("Result 1:0  u  0:1", [100, 1600, 360, 70]);
        let results: Vec<&str> = found.iter().map(|o| o.0.as_str()).collect();
        assert_eq!(results, ["1-0", "1/2-1/2", "0-1"], "{found:?}");
    }

    /// The field of `kind` found on `form`.
    fn spot(form: &FormText, kind: FieldKind) -> &FieldSpot {
        form.fields
            .iter()
            .find(|f| f.kind == kind)
            .unwrap_or_else(|| panic!("{kind:?} found: {form:?}"))
    }

    /// Paints columns `xs` x rows `ys` of `page` at level `v` (as `values.rs`'s tests
    /// do: `fields` may not import `values`, which imports it).
    fn paint(
        page: &mut GrayImage,
        xs: impl Iterator<Item = u32> + Clone,
        ys: std::ops::Range<u32>,
        v: u8,
    ) {
        for y in ys {
            for x in xs.clone() {
                page.put_pixel(x, y, image::Luma([v]));
            }
        }
    }

    #[test]
    fn a_value_box_below_a_leaning_table_starts_under_the_rule_it_stands_on() {
        // The table's box ends at row 400 (its left end's rule); under the value
        // box, right, the rule leans up to rows 385..388.
        let mut page = GrayImage::from_pixel(1000, 600, image::Luma([235]));
        paint(&mut page, 100..500, 397..400, 20);
        paint(&mut page, 500..900, 385..388, 20);
        let ink = Ink::new(&page);
        let table = Some([100, 100, 800, 300]);
        let label = [520, 410, 60, 20];
        let b = off_table([600, 380, 300, 60], label, table, &ink);
        assert_eq!(b, [600, 391, 300, 49], "the writing's top is kept");
        // Without a rule under the box (or none found), the table's box decides.
        let blank = GrayImage::from_pixel(1000, 600, image::Luma([235]));
        let b = off_table([600, 380, 300, 60], label, table, &Ink::new(&blank));
        assert_eq!(b, [600, 403, 300, 37]);
        // And above the table, its top rule where it leans down under the box.
        let mut page = GrayImage::from_pixel(1000, 600, image::Luma([235]));
        paint(&mut page, 100..500, 100..103, 20);
        paint(&mut page, 500..900, 112..115, 20);
        let b = off_table(
            [600, 60, 300, 70],
            [520, 70, 60, 20],
            table,
            &Ink::new(&page),
        );
        assert_eq!(b, [600, 60, 300, 48]);
    }

    #[test]
    fn a_slanted_tables_foot_leaves_the_labels_beside_its_higher_end_read() {
        let page = GrayImage::new(1300, 1800);
        // Two blocks of cells, 40 high; the right block's foot 60 pixels lower (a
        // phone photo's perspective), its box's foot at 1470.
        let mut cells = Vec::new();
        for (x, foot) in [(160u32, 1410u32), (720, 1470)] {
            for row in 0..30 {
                cells.push([x, foot - 40 * (30 - row), 500, 40]);
            }
        }
        let slanted = Table {
            bbox: [160, 210, 1060, 1260],
            inner: [270, 1410],
            row: 40,
            cells,
        };
        let below = regions(&page, Some(&slanted))[1];
        // From half a row inside the higher foot: a label at y 1400 beside it is read.
        assert_eq!(below[1], 1390, "{below:?}");
        // The lines of the right block's last rows are the table's and dropped;
        // the label and the writing beside the left block's foot are kept.
        let mut lines = vec![
            line("Turniej", [80, 1400, 90, 30]),
            line("Liga Juniorów", [200, 1415, 300, 50]),
            line("Sf3", [760, 1435, 60, 30]),
        ];
        off_cells(&mut lines, &slanted);
        let kept: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(kept, ["Turniej", "Liga Juniorów"]);
        // A level table is read from its box's foot, as before.
        let level = Table {
            inner: [210, 1460],
            ..slanted
        };
        assert_eq!(regions(&page, Some(&level))[1][1], 1470);
    }

    fn line(text: &str, bbox: [u32; 4]) -> TextLine {
        let n = text.chars().count() as u32;
        TextLine {
            text: text.into(),
            bbox,
            confidence: 1.0,
            chars: text
                .chars()
                .enumerate()
                .map(|(i, c)| (c, bbox[0] + (2 * i as u32 + 1) * bbox[2] / (2 * n)))
                .collect(),
        }
    }

    #[test]
    fn a_value_written_taller_than_the_label_is_taken_whole() {
        // `Date:` printed 20 high; the date written beside it 48 high, its top 18
        // pixels over the label's (a box 3/4 of a label over it would cut the
        // digits' tops off).
        let page = GrayImage::from_pixel(1240, 400, image::Luma([235]));
        let lines = [
            line("Date:", [600, 200, 60, 20]),
            line("27.09.2014", [690, 182, 220, 48]),
        ];
        let form = form_from_lines(&page, None, &lines);
        let date = spot(&form, FieldKind::Date);
        let [_, y, _, h] = date.value_box;
        assert!(y <= 182 && y + h >= 230, "{date:?}");
        // The event written over it, its line's foot in the date's rows: the date's
        // box starts under it.
        let over = [
            line("Event:", [600, 150, 70, 20]),
            line("Open Championship", [700, 140, 400, 65]),
            line("Date:", [600, 200, 60, 20]),
            line("27.09.2014", [690, 192, 220, 40]),
        ];
        let form = form_from_lines(&page, None, &over);
        let [_, y, _, h] = spot(&form, FieldKind::Date).value_box;
        assert_eq!(y, 192, "{h}");
        assert!(y + h >= 230, "{h}");
        // Nothing written: the box is the label's row, as before.
        let form = form_from_lines(&page, None, &lines[..1]);
        let [_, y, _, h] = spot(&form, FieldKind::Date).value_box;
        assert_eq!((y, y + h), (185, 230));
    }

    #[test]
    fn words_printed_with_a_label_are_the_labels_and_no_value() {
        // `Round No.` with its number written beside it; `Date played:` with nothing
        // written; `Spieler Weiß` with the name after it.
        let page = GrayImage::from_pixel(1240, 400, image::Luma([235]));
        let lines = [
            line("Round No. 7", [50, 40, 200, 30]),
            line("Date played:", [600, 40, 150, 30]),
            line("Spieler Weiß Meier", [50, 120, 300, 30]),
        ];
        let form = form_from_lines(&page, None, &lines);
        let round = spot(&form, FieldKind::Round);
        assert_eq!(round.label, "Round No.");
        // The value box begins after `No.`, where the `7` is, not on `No.`.
        let no_end = 50 + 200 * 9 / 11;
        assert!(round.value_box[0] >= no_end - 2, "{round:?}");
        let date = spot(&form, FieldKind::Date);
        assert_eq!(date.label, "Date played:");
        // `played` is the label's: its box runs to the colon, the value's after it.
        assert!(
            date.label_box[0] + date.label_box[2] > 600 + 150 * 10 / 12,
            "{date:?}"
        );
        assert!(
            date.value_box[0] >= date.label_box[0] + date.label_box[2],
            "{date:?}"
        );
        let white = spot(&form, FieldKind::White);
        assert_eq!(white.label, "Spieler Weiß");
        assert_eq!(white.label_box[0], 50, "{white:?}");
        // `No.` and `played:` are print: the value reader never reads them.
        for b in [round.label_box, date.label_box] {
            assert!(form.print.contains(&b), "{b:?} in {:?}", form.print);
        }
    }

    #[test]
    fn a_label_with_its_english_after_a_slash_is_one_label() {
        let page = GrayImage::from_pixel(1240, 400, image::Luma([235]));
        let lines = [
            line("Runde/Round 7", [50, 40, 200, 30]),
            line("Weiß / White", [600, 40, 150, 30]),
            line("Pe3y/bra %", [50, 300, 120, 30]),
        ];
        let form = form_from_lines(&page, None, &lines);
        let round = spot(&form, FieldKind::Round);
        assert_eq!(round.label, "Runde Round");
        // The value begins after `Round`, at the `7`.
        assert!(round.value_box[0] >= 50 + 200 * 11 / 13 - 2, "{round:?}");
        let white = spot(&form, FieldKind::White);
        assert_eq!(white.label, "Weiß / White");
        assert!(white.value_box[0] >= 600 + 150 - 10, "{white:?}");
        // A label read with a slash for a letter stays one word, and a value after it
        // that reads as no letter (`½` read `%` too) is no part of it.
        assert_eq!(spot(&form, FieldKind::Result).label, "Pe3y/bra");
        // The first language misread (`Доска` read `Aocxa`) and the second read
        // exactly: one label still, from the first word on, not `Board` alone.
        let lines = [line("Aocxa/Board", [436, 109, 77, 24])];
        let form = form_from_lines(&page, None, &lines);
        let board = spot(&form, FieldKind::Board);
        assert_eq!(board.label, "Aocxa Board");
        assert_eq!(board.label_box[0], 436, "{board:?}");
    }

    #[test]
    fn labels_in_other_wordings_and_with_a_number_sign_glued_on() {
        for (word, kind) in [
            ("Competition", FieldKind::Event),
            ("Veranstaltung", FieldKind::Event),
            ("Zawody:", FieldKind::Event),
            ("Rnd", FieldKind::Round),
            ("Tisch", FieldKind::Board),
            ("stołu", FieldKind::Board),
            ("Spieldatum", FieldKind::Date),
            // `Brett-Nr.`, and `Тур №` read as one word
            ("Brett-Nr.", FieldKind::Board),
            ("TypNe", FieldKind::Round),
            ("Typ№", FieldKind::Round),
            ("białymi", FieldKind::White),
            ("czarnymi", FieldKind::Black),
        ] {
            assert_eq!(match_label(word).map(|m| m.0), Some(kind), "{word}");
        }
        // A number sign alone, or after a word that is no label, is none.
        for word in ["Nr.", "No", "Ng", "№", "BrunoNr", "Meierno"] {
            assert_eq!(match_label(word), None, "{word}");
        }
    }

    #[test]
    fn a_label_glued_to_its_value_is_cut_at_the_colon() {
        let page = GrayImage::from_pixel(1000, 400, image::Luma([235]));
        let lines = [
            line("Turniej: New York", [50, 40, 340, 30]),
            line("Runda:", [600, 40, 80, 30]),
        ];
        let form = form_from_lines(&page, None, &lines);
        let event = spot(&form, FieldKind::Event);
        assert!(event.label_box[0] + event.label_box[2] < 200, "{event:?}");
        let round = spot(&form, FieldKind::Round);
        // The event's value runs up to the round's label.
        assert!(event.value_box[0] + event.value_box[2] <= round.label_box[0]);
        assert!(round.value_box[0] >= round.label_box[0] + round.label_box[2]);
    }

    #[test]
    fn a_caption_and_writing_beside_another_label_do_not_move_a_value_box() {
        // `White` left blank; under it, `Signature` (a caption) and the name written
        // beside `Black` on the next row.
        let page = GrayImage::from_pixel(1300, 1800, image::Luma([235]));
        let lines = [
            line("White", [92, 1521, 63, 25]),
            line("Signature", [748, 1553, 74, 24]),
            line("Black", [93, 1580, 59, 27]),
            line("Lindqvist Liam", [198, 1551, 200, 47]),
        ];
        let form = form_from_lines(&page, None, &lines);
        let white = spot(&form, FieldKind::White);
        // On White's row, beside it (not below, over the caption and the name).
        let [x, y, _, _] = white.value_box;
        assert!(y < 1521 && x > 92 + 63, "{white:?}");
        // The labels and the caption are print, whichever box takes them in.
        assert!(
            form.print
                .iter()
                .any(|b| b[0].abs_diff(748) < 4 && b[1] == 1553),
            "{:?}",
            form.print
        );
        assert!(form.print.iter().any(|b| b[1] == 1580), "{:?}", form.print);
    }

    #[test]
    fn the_line_written_on_is_found_under_the_feet_of_bold_writing() {
        // `Date` and its line; a bold date written on the line, its digits' feet
        // dark over most columns a few rows above the line.
        let mut page = GrayImage::from_pixel(1240, 400, image::Luma([235]));
        paint(&mut page, 893..1130, 131..133, 40);
        for x0 in [899, 919, 939, 959] {
            // Each digit's strokes down its sides, and its foot.
            paint(&mut page, (x0..x0 + 4).chain(x0 + 14..x0 + 18), 95..125, 20);
            paint(&mut page, x0..x0 + 18, 122..125, 20);
        }
        let lines = [line("Date", [831, 100, 54, 29])];
        let form = form_from_lines(&page, None, &lines);
        let date = spot(&form, FieldKind::Date);
        // The box runs as far as the line does, not where the writing stops.
        let [x, _, w, _] = date.value_box;
        assert!(x > 831 + 54 && x + w > 1100, "{date:?}");
    }

    #[test]
    fn light_grey_rules_between_printed_cells_are_sides() {
        // Labels above a row of cells (a Russian form): the cells' rules dark, the
        // rules between the cells light grey, under the page's dark level.
        let mut page = GrayImage::from_pixel(1240, 600, image::Luma([213]));
        paint(&mut page, 90..700, 136..138, 40);
        paint(&mut page, 90..700, 188..190, 40);
        let sides = [90, 91, 354, 355, 428, 429, 503, 504, 698, 699];
        paint(&mut page, sides.into_iter(), 136..190, 155);
        let lines = [
            line("Event", [189, 108, 65, 16]),
            line("Round", [370, 109, 44, 16]),
            line("Board", [441, 109, 54, 15]),
            line("Date", [568, 110, 44, 15]),
        ];
        let form = form_from_lines(&page, None, &lines);
        for (kind, x0, x1) in [(FieldKind::Round, 354, 430), (FieldKind::Board, 428, 505)] {
            let f = spot(&form, kind);
            let [x, y, w, _] = f.value_box;
            assert!(x >= x0 && x + w <= x1 && y >= 136, "{f:?}");
        }
    }

    #[test]
    fn the_tables_heading_row_is_no_value_of_a_blank_label_above_it() {
        // `Blancs:` left blank, with room beside it; below it the table's heading row
        // (`N°  Blancs  Noirs`, as the text reader read an FFE form), then the table.
        let mut page = GrayImage::from_pixel(1254, 1764, image::Luma([235]));
        // The bottom rule of the labels' row of boxes.
        paint(&mut page, 60..1180, 262..264, 30);
        let table = Some([100, 335, 1060, 1200]);
        let lines = [
            line("Blancs:", [71, 207, 85, 35]),
            line("Noirs:", [619, 212, 73, 34]),
            line("N°", [108, 302, 37, 34]),
            line("Blancs", [240, 305, 75, 32]),
            line("Noirs", [471, 307, 64, 32]),
        ];
        let (labels, headings) = find_labels(&lines, table);
        assert!(labels.iter().all(|l| l.bbox[1] < 250), "{labels:?}");
        assert!(!headings.is_empty());
        let form = form_from_lines(&page, table, &lines);
        let white = spot(&form, FieldKind::White);
        // Beside the label, on its row: not below it, over the heading's `N°`.
        let [x, y, _, h] = white.value_box;
        let [lx, _, lw, _] = white.label_box;
        assert!(x > lx + lw && y + h <= 302, "{white:?}");
    }

    #[test]
    fn writing_past_a_boxs_side_is_not_the_value_of_the_label_left_of_it() {
        // Two boxes, labels in their corners: `Turnier` lower on its row than `Datum`,
        // the date written under `Datum` on `Turnier`'s rows, past the side between.
        let mut page = GrayImage::from_pixel(1240, 400, image::Luma([225]));
        paint(&mut page, 60..930, 78..80, 30);
        paint(&mut page, 60..930, 158..160, 30);
        paint(
            &mut page,
            [60, 61, 662, 663, 918, 919].into_iter(),
            78..160,
            30,
        );
        // The writing: cursive strokes joined along their middle, which reads as a
        // line to write on right of `Datum`.
        let strokes = (672..890).step_by(9).flat_map(|x| [x, x + 1]);
        paint(&mut page, strokes, 115..150, 40);
        paint(&mut page, 725..890, 130..132, 40);
        let lines = [
            line("Turnier", [110, 102, 59, 21]),
            line("Datum", [667, 91, 53, 18]),
            line("2. November 2022", [669, 112, 226, 41]),
        ];
        let form = form_from_lines(&page, None, &lines);
        let date = spot(&form, FieldKind::Date);
        // Below the label, round the writing: not beside it, above the writing.
        let [x, y, w, h] = date.value_box;
        assert!(x < 675 && x + w > 890 && y < 115 && y + h > 150, "{date:?}");
    }

    #[test]
    fn a_label_glued_to_a_number_is_cut_where_the_digits_meet_it() {
        let page = GrayImage::from_pixel(1200, 400, image::Luma([235]));
        // `Rd. 5` and `Bd. 11` read as one line, the space before `Bd.` lost.
        let lines = [line("Rd. 5Bd. 11", [500, 110, 270, 50])];
        let form = form_from_lines(&page, None, &lines);
        let kinds: Vec<FieldKind> = form.fields.iter().map(|f| f.kind).collect();
        assert!(kinds.contains(&FieldKind::Round), "{kinds:?}");
        let board = form.fields.iter().find(|f| f.kind == FieldKind::Board);
        let board = board.expect("`Bd.` found inside `5Bd.`");
        assert_eq!(board.label, "Bd.");
        // The round's value stops at the board's label.
        let round = spot(&form, FieldKind::Round);
        assert!(
            round.value_box[0] + round.value_box[2] <= board.label_box[0],
            "{form:?}"
        );
        let ws = words(&line("Bd.11", [0, 0, 50, 20]));
        let texts: Vec<&str> = ws.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Bd.", "11"]);
        // A value of digits and signs after the label (a result, a date).
        let ws = words(&line("Ergebnis1/2-1/2", [0, 0, 150, 20]));
        let texts: Vec<&str> = ws.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Ergebnis", "1/2-1/2"]);
        // The whole within a long label's slips (three edits), the label alone closer.
        let ws = words(&line("Pe3ynbTaT1-0", [0, 0, 150, 20]));
        let texts: Vec<&str> = ws.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Pe3ynbTaT", "1-0"]);
        // Not where no part is a label, or the whole is one, or letters follow.
        let ws = words(&line("e4e5 Runde2x", [0, 0, 120, 20]));
        let texts: Vec<&str> = ws.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["e4e5", "Runde2x"]);
    }

    #[test]
    fn a_long_label_glued_to_a_written_word_is_cut_off_it() {
        let texts = |t: &str| -> Vec<String> {
            words(&line(t, [0, 0, 300, 20]))
                .into_iter()
                .map(|w| w.text)
                .collect()
        };
        assert_eq!(texts("Pe3y^bTaTHll4bA"), ["Pe3y^bTaT", "Hll4bA"]);
        assert_eq!(texts("Ergebnisremis"), ["Ergebnis", "remis"]);
        // Not a name beginning with a player's label, nor a short label.
        assert_eq!(texts("Schwarzkopf"), ["Schwarzkopf"]);
        assert_eq!(texts("Rundenmeister"), ["Rundenmeister"]);
    }
}
