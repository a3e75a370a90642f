//! The form's printed column headings -> the notation they suggest: a form printed
//! `Weiß | Schwarz` is likelier filled in German, `Biały | Czarny` in Polish,
//! `Белые | Чёрные` in Russian, `White | Black` in English.
//!
//! The heading words above the first move row are cut over the first block's two
//! columns and read with the cell reader. Its alphabet is that of moves (`WHITE`
//! reads greedily as `WH1T6`, `Schwarz` as `SchWaf2`), so each language's words are
//! spelt in its glyphs ([`spelling`]) and scored against the crop's frames by the CTC
//! forward algorithm. A language is named only when its words explain both crops
//! clearly better than any other language's (French and Spanish forms included, which
//! name no notation of ours) and not far below the reader's own best reading.
//! The decoder then gives that notation a small head start
//! ([`crate::decode::ReadingParams::form_prior`]): the handwriting still decides when
//! the two disagree (a Russian form filled in English letters).
//!
//! The thresholds below were chosen on generated forms in the four languages, French
//! and Spanish among them: they name no language wrong (docs/measurements.md).

use image::GrayImage;
use shakmaty::Color;

use crate::decode::{CellScorer, Trie};
use crate::grid::{self, CellBox, Grid};
use crate::model::CellModel;
use crate::notation::Notation;
use crate::page::Page;
use crate::vocab::{Alphabet, CellScores};

/// Nats by which the language named must explain both columns' crops better than
/// any other language's words.
const MIN_MARGIN: f32 = 4.0;

/// Nats (per column) the language named may fall short of the reader's own best
/// reading of a crop: its words must be near what the reader sees, not just less far
/// than the others' (a move written above the table is no heading). At 12, Polish
/// headings (26 to 28 nats over two columns) went unnamed.
const MAX_SHORTFALL: f32 = 16.0;

/// A heading crop with less ink than this (share of dark pixels) is not read.
const MIN_INK: f32 = 0.01;

/// Grey level below which a pixel counts as dark (ink, or a heading's dark band).
const DARK: u8 = 110;

/// The printed heading words of each form language (White's column, Black's column),
/// and the notation players on such a form write in (`None`: a form language we have
/// no notation for, named so that its words are not taken for another's).
const LANGUAGES: [(&[&str], &[&str], Option<Notation>); 6] = [
    (&["White"], &["Black"], Some(Notation::En)),
    (&["Weiß"], &["Schwarz"], Some(Notation::De)),
    (
        &["Białe", "Biały"],
        &["Czarne", "Czarny"],
        Some(Notation::Pl),
    ),
    (&["Белые"], &["Чёрные", "Черные"], Some(Notation::Ru)),
    (&["Blancs"], &["Noirs"], None),
    (&["Blancas"], &["Negras"], None),
];

/// A printed word in the reader's glyphs: each letter as itself, its look-alike
/// (`glyph::canonical`) or its capital where the alphabet has it, else the glyph it
/// is read as (`I` as `1`, `t` as `f`, `ß` as `B`, `ы` as `bl`, `ч` as `4`); a letter
/// with no such glyph is left out.
fn spelling(word: &str, alphabet: &Alphabet) -> String {
    let mut out = String::new();
    for c in word.chars() {
        let canon = crate::glyph::canonical(c);
        // one capital only (`ß` has two: `SS`)
        let mut capitals = c.to_uppercase();
        let upper = match (capitals.next(), capitals.next()) {
            (Some(u), None) => u,
            _ => c,
        };
        if alphabet.class_of(canon).is_some() {
            out.push(canon);
        } else if alphabet.class_of(upper).is_some() && upper != 'I' {
            out.push(crate::glyph::canonical(upper));
        } else {
            out.push_str(match c {
                'I' => "1",
                't' => "f",
                'n' => "h",
                'y' | 'Y' => "j",
                'z' | 'Z' => "2",
                'u' | 'U' => "V",
                'ß' => "B",
                'ł' => "l",
                'Ł' => "L",
                'Б' => "B",
                'б' => "6",
                'ы' => "bl",
                'Ы' => "b1",
                'ч' | 'Ч' => "4",
                'ё' => "e",
                'Ё' => "E",
                _ => "",
            });
        }
    }
    out.retain(|c| alphabet.class_of(c).is_some());
    out
}

/// Each language's best score (nats relative to the reader's best path, the decoder's
/// CTC scorer with `floor` and nothing pruned: a printed word is never quite what the
/// alphabet spells) for one column's crop: its words as printed and in capitals.
fn column_scores(scores: &CellScores, alphabet: &Alphabet, white: bool, floor: f32) -> [f32; 6] {
    let scorer = CellScorer::new(scores, alphabet, floor).unpruned();
    let mut trie = Trie::default();
    trie.reset(&scorer);
    let mut out = [f32::NEG_INFINITY; 6];
    for (k, (w, b, _)) in LANGUAGES.iter().enumerate() {
        for word in if white { *w } else { *b } {
            for form in [word.to_string(), word.to_uppercase()] {
                let text = spelling(&form, alphabet);
                if !text.is_empty() {
                    out[k] = out[k].max(scorer.score_text(&mut trie, &text, alphabet));
                }
            }
        }
    }
    out
}

/// The notation the languages' scores over the columns read (summed) name, if one
/// language is near what the reader sees and clearly nearer than the others.
fn notation_of(total: [f32; 6], columns: usize) -> Option<Notation> {
    let mut order: Vec<usize> = (0..6).collect();
    order.sort_by(|&a, &b| total[b].total_cmp(&total[a]));
    let (best, next) = (total[order[0]], total[order[1]]);
    (columns > 0 && best - next >= MIN_MARGIN && best >= -MAX_SHORTFALL * columns as f32)
        .then_some(LANGUAGES[order[0]].2)
        .flatten()
}

/// Where the heading word of the first block's `side` column stands: the row above the
/// first move row (above the first of the heading rows dropped, the top one, which
/// names the columns), as wide as the column. `None` where that row is off the page.
fn heading_box(grid: &Grid, page: &Page, side: Color) -> Option<CellBox> {
    let up = grid.header_rows.max(1) as f32 * grid.row_pitch;
    let (pw, ph) = page.image.dimensions();
    let r = grid
        .cells
        .iter()
        .find(|c| c.block == 0 && c.row == 0 && c.side == side)?
        .ruled;
    let top = r.y as f32 - up - 0.15 * r.h as f32;
    let x = r.x.saturating_sub(r.w / 25);
    let (y, h) = (top.round() as u32, (r.h as f32 * 1.3).round() as u32);
    let w = (r.w + r.w / 12).min(pw.saturating_sub(x));
    (top >= 0.0 && w > 0 && y + h <= ph).then_some(CellBox { x, y, w, h })
}

/// A heading crop as the reader wants it: dark words on light paper, a dark band (a
/// heading printed white on grey: a run of mostly dark pixel rows a third of the crop
/// high or more, not a rule) turned over, the paper above or below it left as it is;
/// `None` when it holds no words.
fn prepared(mut crop: GrayImage) -> Option<GrayImage> {
    let (w, h) = crop.dimensions();
    let dark_row: Vec<bool> = (0..h)
        .map(|y| 2 * (0..w).filter(|&x| crop.get_pixel(x, y).0[0] < DARK).count() > w as usize)
        .collect();
    let mut y = 0;
    while y < h as usize {
        let run = dark_row[y..].iter().take_while(|&&d| d).count();
        if run > 0 && 3 * run >= h as usize {
            for row in y..y + run {
                for x in 0..w {
                    let p = crop.get_pixel_mut(x, row as u32);
                    p.0[0] = 255 - p.0[0];
                }
            }
        }
        y += run.max(1);
    }
    let n = (w as usize * h as usize).max(1) as f32;
    let dark = crop.pixels().filter(|p| p.0[0] < DARK).count() as f32 / n;
    (dark >= MIN_INK).then_some(crop)
}

/// The notation the form's printed headings suggest (see the module's text); `floor`
/// as the decoder floors a frame's glyphs.
///
/// # Errors
/// When the model fails.
pub fn form_notation(
    page: &Page,
    grid: &Grid,
    model: &mut dyn CellModel,
    floor: f32,
) -> Result<Option<Notation>, crate::model::ModelError> {
    let [Some(white), Some(black)] =
        [Color::White, Color::Black].map(|c| heading_box(grid, page, c))
    else {
        return Ok(None);
    };
    // (White's column?, the crop) for the crops that hold words
    let (is_white, crops): (Vec<bool>, Vec<GrayImage>) = [(true, white), (false, black)]
        .into_iter()
        .filter_map(|(w, b)| prepared(grid::crop_box(page, b)).map(|c| (w, c)))
        .unzip();
    if crops.is_empty() {
        return Ok(None);
    }
    let read = model.read(&crops)?;
    let mut total = [0.0f32; 6];
    for (&white, s) in is_white.iter().zip(&read) {
        for (t, c) in total
            .iter_mut()
            .zip(column_scores(s, model.alphabet(), white, floor))
        {
            *t += c;
        }
    }
    Ok(notation_of(total, read.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::MIN_SCORE;
    use crate::decode::simulate::{Mistakes, NoiseModel, Simulator, model_alphabet};
    use crate::notation::Rng;

    #[test]
    fn printed_words_are_spelt_in_the_readers_glyphs() {
        let a = model_alphabet();
        assert_eq!(spelling("WHITE", &a), "WH1TE");
        assert_eq!(spelling("Schwarz", &a), "SchWar2");
        assert_eq!(spelling("Weiß", &a), "WeiB");
        assert_eq!(spelling("Białe", &a), "Biale");
        assert_eq!(spelling("Белые", &a), "BeЛble");
        assert_eq!(spelling("Чёрные", &a), "4epHble");
    }

    #[test]
    fn a_words_score_is_the_decoders_where_the_decoder_can_score_it() {
        let a = model_alphabet();
        let sim = Simulator::new(&a, NoiseModel::default(), Mistakes::none());
        let cell = sim.cell("BLACK", &mut Rng::new(3));
        let floor = crate::decode::DecodeParams::default().reading.read_floor;
        let (pruned, unpruned) = (
            CellScorer::new(&cell, &a, floor),
            CellScorer::new(&cell, &a, floor).unpruned(),
        );
        let (mut trie, mut trie_all) = (Trie::default(), Trie::default());
        trie.reset(&pruned);
        trie_all.reset(&unpruned);
        let ours = unpruned.score_text(&mut trie_all, "BLACK", &a);
        let decoders = pruned.score_text(&mut trie, "BLACK", &a);
        assert!((ours - decoders).abs() < 1e-3, "{ours} vs {decoders}");
        // and what the cell does not say scores far lower, but is still scored (the
        // decoder prunes it)
        let other = unpruned.score_text(&mut trie_all, "SchWar2", &a);
        assert!(other < ours - 10.0, "{other} vs {ours}");
        assert!(other > MIN_SCORE, "{other}");
        assert_eq!(pruned.score_text(&mut trie, "SchWar2", &a), MIN_SCORE);
    }

    #[test]
    fn the_heading_names_a_notation_only_when_one_language_is_clearly_nearest() {
        let (en, de, pl, ru, fr, es) = (0, 1, 2, 3, 4, 5);
        let with = |best: usize, score: f32, rest: f32| {
            let mut t = [rest; 6];
            t[best] = score;
            t
        };
        assert_eq!(notation_of(with(en, -18.0, -45.0), 2), Some(Notation::En));
        assert_eq!(notation_of(with(de, -20.0, -40.0), 2), Some(Notation::De));
        assert_eq!(notation_of(with(pl, -26.0, -44.0), 2), Some(Notation::Pl));
        assert_eq!(notation_of(with(ru, -21.0, -38.0), 2), Some(Notation::Ru));
        // a French or Spanish form names none of our notations
        assert_eq!(notation_of(with(fr, -33.0, -44.0), 2), None);
        assert_eq!(notation_of(with(es, -30.0, -44.0), 2), None);
        // two languages nearly as near: none
        let mut close = with(de, -20.0, -45.0);
        close[pl] = -22.0;
        assert_eq!(notation_of(close, 2), None);
        // nearest, but far from what the reader sees (no heading words there)
        assert_eq!(notation_of(with(en, -40.0, -80.0), 2), None);
        assert_eq!(notation_of(with(en, -20.0, -60.0), 1), None);
        assert_eq!(notation_of([0.0; 6], 0), None);
    }
}
