//! Reports + page images -> one self-contained HTML review page for a batch (no
//! server, no network): moves with their cell crops, states, alternatives, the board
//! before each move, the sheet with the cell outlined, keyboard navigation, and a
//! corrections file the user downloads and `scoresheet fix --apply` applies.

use image::GrayImage;
use image::codecs::jpeg::JpegEncoder;
use image::imageops::{self, FilterType};
use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{Chess, EnPassantMode, Position};

use super::{MoveReport, SheetReport};
use crate::notation::{Notation, written_forms};

const TEMPLATE: &str = include_str!("review.html");

/// Characters ignored when a typed move is matched against legal moves: capture,
/// check and annotation marks, separators.
pub const MATCH_MARKS: &[char] = &['x', ':', '-', '+', '#', '!', '?', '=', '.', '(', ')', 'X'];

/// One sheet on the review page.
pub struct ReviewSheet<'a> {
    /// File name of the report in the output folder (`<stem>.json`).
    pub report_name: String,
    pub report: &'a SheetReport,
    /// The upright pages the report's boxes refer to: one, or the two copies of a
    /// two-copy game in the order of `report.copies`.
    pub pages: Vec<&'a GrayImage>,
}

#[derive(Serialize)]
struct Page<'a> {
    batch: &'a str,
    glyphs: std::collections::BTreeMap<String, String>,
    marks: Vec<String>,
    sheets: Vec<SheetData>,
}

#[derive(Serialize)]
struct SheetData {
    report: String,
    source: String,
    notation: String,
    /// The pages (one, or both copies of a two-copy game).
    images: Vec<ImageData>,
    positions: Vec<PositionData>,
    moves: Vec<MoveData>,
    /// The game's header fields as the report has them (see [`super::HEADER_FIELDS`];
    /// `result` the report's own) and where each came from.
    game: std::collections::BTreeMap<String, String>,
    game_from: std::collections::BTreeMap<String, super::Source>,
    /// A disagreement on the result for a human to settle.
    result_review: Option<String>,
    /// Why the result is `*` (the report's `result_note`): nothing read, or writing
    /// after the last move that reads as neither a move nor a result.
    result_note: Option<String>,
    /// The header fields read on the sheets, each with its crop.
    fields: Vec<FieldView>,
    /// Header fields where the sheet and the value kept disagree.
    header_review: std::collections::BTreeMap<String, String>,
}

/// One header field as read, for the review page: what it says and its crop.
#[derive(Serialize)]
struct FieldView {
    field: String,
    value: Option<String>,
    confidence: f32,
    review: bool,
    note: Option<String>,
    crop: String,
}

/// The fields of `r` that say something or are doubtful, each with its value box cut
/// from its page (`pages`: the copies', or the sheets', in the report's order).
fn field_views(r: &super::SheetReport, pages: &[&GrayImage]) -> Vec<FieldView> {
    r.fields
        .iter()
        .filter(|f| f.value.is_some() || f.review)
        .map(|f| {
            let at = if r.copies.is_empty() { f.sheet } else { f.copy };
            let crop = match (pages.get(at), f.bbox) {
                (Some(page), Some([x, y, w, h])) if x < page.width() && y < page.height() => {
                    let w = w.min(page.width() - x).max(1);
                    let h = h.min(page.height() - y).max(1);
                    page_image(&imageops::crop_imm(*page, x, y, w, h).to_image(), 400).0
                }
                _ => String::new(),
            };
            FieldView {
                field: f.field.clone(),
                value: f.value.clone(),
                confidence: f.confidence,
                review: f.review,
                note: f.note.clone(),
                crop,
            }
        })
        .collect()
}

#[derive(Serialize)]
struct ImageData {
    /// `data:` URL of the (downscaled) page.
    url: String,
    /// Page size in report pixels.
    width: u32,
    height: u32,
    /// Embedded image pixels per report pixel.
    scale: f32,
    /// Where it came from.
    source: String,
}

#[derive(Serialize)]
struct PositionData {
    fen: String,
    legal: Vec<LegalData>,
}

#[derive(Serialize)]
struct LegalData {
    san: String,
    /// Match keys of the written forms in the sheet's notation: look-alikes
    /// canonicalised, [`MATCH_MARKS`] removed.
    keys: Vec<String>,
    /// Match keys of the English forms, tried when the sheet's notation finds nothing.
    en: Vec<String>,
}

#[derive(Serialize)]
struct MoveData {
    #[serde(flatten)]
    report: MoveReport,
    /// Index into `positions` of the position before this cell's move.
    pos: usize,
}

/// The key a typed or written move is matched by (see [`MATCH_MARKS`]).
pub fn match_key(text: &str) -> String {
    crate::glyph::canonical_str(text)
        .chars()
        .filter(|c| !MATCH_MARKS.contains(c))
        .collect()
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The page as a JPEG `data:` URL at most `max_width` wide, and its scale.
fn page_image(page: &GrayImage, max_width: u32) -> (String, f32) {
    let scale = (max_width as f32 / page.width().max(1) as f32).min(1.0);
    let small;
    let img = if scale < 1.0 {
        let h = ((page.height() as f32) * scale).round().max(1.0) as u32;
        small = imageops::resize(page, max_width, h, FilterType::Triangle);
        &small
    } else {
        page
    };
    let mut buf = Vec::new();
    let ok = JpegEncoder::new_with_quality(&mut buf, 72)
        .encode_image(img)
        .is_ok();
    let url = if ok {
        format!("data:image/jpeg;base64,{}", base64(&buf))
    } else {
        String::new()
    };
    (url, scale)
}

fn position_data(pos: &Chess, notation: Notation) -> PositionData {
    let legal = pos
        .legal_moves()
        .iter()
        .map(|m| {
            let san = San::from_move(pos, *m).to_string();
            let keys_of = |n: Notation| {
                let mut keys: Vec<String> = written_forms(pos, m, n)
                    .iter()
                    .map(|f| match_key(f))
                    .collect();
                keys.sort();
                keys.dedup();
                keys
            };
            let mut en = keys_of(Notation::En);
            en.push(match_key(&san));
            en.dedup();
            LegalData {
                san,
                keys: keys_of(notation),
                en,
            }
        })
        .collect();
    PositionData {
        fen: Fen::from_position(pos, EnPassantMode::Legal).to_string(),
        legal,
    }
}

fn sheet_data(sheet: &ReviewSheet) -> SheetData {
    let r = sheet.report;
    let notation: Notation = r.notation.parse().unwrap_or(Notation::En);
    let mut positions = Vec::new();
    let mut pos = Chess::default();
    positions.push(position_data(&pos, notation));
    let mut moves = Vec::with_capacity(r.moves.len());
    for m in &r.moves {
        moves.push(MoveData {
            report: m.clone(),
            pos: positions.len() - 1,
        });
        if let (Some(_), Some(san)) = (m.ply, m.san.as_deref()) {
            let played = san
                .parse::<San>()
                .ok()
                .and_then(|s| s.to_move(&pos).ok())
                .and_then(|mv| pos.clone().play(mv).ok());
            match played {
                Some(next) => {
                    pos = next;
                    positions.push(position_data(&pos, notation));
                }
                // A report that does not replay: stop giving positions.
                None => break,
            }
        }
    }
    let sources: Vec<String> = if !r.sheets.is_empty() {
        r.sheets.iter().map(|c| c.source.clone()).collect()
    } else if r.copies.is_empty() {
        vec![r.source.clone()]
    } else {
        r.copies.iter().map(|c| c.source.clone()).collect()
    };
    let images = sheet
        .pages
        .iter()
        .zip(sources)
        .map(|(page, source)| {
            let (url, scale) = page_image(page, 1400);
            ImageData {
                url,
                width: page.width(),
                height: page.height(),
                scale,
                source,
            }
        })
        .collect();
    SheetData {
        report: sheet.report_name.clone(),
        source: r.source.clone(),
        notation: r.notation.clone(),
        images,
        positions,
        moves,
        game: super::HEADER_FIELDS
            .iter()
            .filter_map(|f| {
                let v = if *f == "result" {
                    Some(r.result.clone()).filter(|v| v != "*")
                } else {
                    r.header_value(f)
                };
                v.map(|v| (f.to_string(), v))
            })
            .collect(),
        game_from: r.game.as_ref().map(|g| g.from.clone()).unwrap_or_default(),
        result_review: r.game.as_ref().and_then(|g| g.result_review.clone()),
        result_note: r.result_note.clone().filter(|_| r.result == "*"),
        fields: field_views(r, &sheet.pages),
        header_review: r
            .game
            .as_ref()
            .map(|g| g.review.clone())
            .unwrap_or_default(),
    }
}

/// Renders the review page for a batch named `batch` (the output folder's name).
pub fn review_html(batch: &str, sheets: &[ReviewSheet]) -> String {
    let glyphs = ('\u{0400}'..='\u{04FF}')
        .filter_map(|c| {
            let g = crate::glyph::canonical(c);
            (g != c).then(|| (c.to_string(), g.to_string()))
        })
        .collect();
    let data = Page {
        batch,
        glyphs,
        marks: MATCH_MARKS.iter().map(|c| c.to_string()).collect(),
        sheets: sheets.iter().map(sheet_data).collect(),
    };
    // Inside <script>, `</` must not appear: JSON allows `<\/` for `</`.
    let json = serde_json::to_string(&data)
        .expect("review data serialises")
        .replace("</", "<\\/");
    TEMPLATE.replace("/*DATA*/", &json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_known_values() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, want) in cases {
            assert_eq!(base64(input.as_bytes()), want, "input {input:?}");
        }
    }

    #[test]
    fn match_keys_ignore_marks_and_scripts() {
        assert_eq!(match_key("Кxf3+"), "Kf3");
        assert_eq!(match_key("Kf3"), "Kf3");
        assert_eq!(match_key("0-0"), "00");
        assert_eq!(match_key("e2-e4"), "e2e4");
    }

    #[test]
    fn page_embeds_data_safely_and_offers_legal_moves() {
        let report = SheetReport {
            source: "a.jpg".into(),
            notation: "ru".into(),
            status: crate::decode::GameStatus::Complete,
            result: "*".into(),
            result_note: Some("the cell after the last move (2. White) holds writing".into()),
            moves: vec![MoveReport {
                ply: Some(1),
                move_number: 1,
                side: "white".into(),
                san: Some("e4".into()),
                written: Some("e2-e4".into()),
                read: "</script>".into(),
                confidence: 0.5,
                review: true,
                state: crate::report::MoveState::Review,
                bbox: Some([0, 0, 10, 5]),
                alternatives: vec![],
                ..Default::default()
            }],
            ..Default::default()
        };
        let page = GrayImage::from_pixel(40, 20, image::Luma([200]));
        let html = review_html(
            "batch",
            &[ReviewSheet {
                report_name: "a.json".into(),
                report: &report,
                pages: vec![&page],
            }],
        );
        assert_eq!(
            html.matches("</script>").count(),
            2,
            "data must not close the script"
        );
        let start = html.find("application/json\">").unwrap() + "application/json\">".len();
        let end = start + html[start..].find("</script>").unwrap();
        let v: serde_json::Value = serde_json::from_str(&html[start..end]).unwrap();
        let legal = v["sheets"][0]["positions"][0]["legal"].as_array().unwrap();
        assert_eq!(legal.len(), 20);
        let nf3 = legal.iter().find(|l| l["san"] == "Nf3").unwrap();
        let keys = |field: &str| -> Vec<String> {
            nf3[field]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_str().unwrap().to_string())
                .collect()
        };
        assert!(
            keys("keys").contains(&"Kf3".to_string()),
            "Russian К for the knight"
        );
        assert!(keys("en").contains(&"Nf3".to_string()));
        // Two positions: before and after 1. e4.
        assert_eq!(v["sheets"][0]["positions"].as_array().unwrap().len(), 2);
        assert_eq!(v["glyphs"]["К"], "K");
        // Why the result stays `*`, for the reviewer.
        assert_eq!(
            v["sheets"][0]["result_note"],
            "the cell after the last move (2. White) holds writing"
        );
    }
}
