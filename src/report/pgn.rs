//! Sheet report -> PGN text: Seven Tag Roster, the decoded moves, and a comment on
//! every move flagged for review (and every skipped cell).

use super::{MoveState, SheetReport};
use crate::notation::escape_tag;

/// Tag values for the PGN header; unknown ones stay `?` as the PGN standard asks.
#[derive(Clone, Debug)]
pub struct PgnTags {
    pub event: String,
    pub site: String,
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
}

impl Default for PgnTags {
    fn default() -> Self {
        PgnTags {
            event: "?".into(),
            site: "?".into(),
            date: "????.??.??".into(),
            round: "?".into(),
            white: "?".into(),
            black: "?".into(),
        }
    }
}

/// Comment text that cannot end the comment early: braces become parentheses.
fn comment_text(s: &str) -> String {
    s.replace('{', "(").replace('}', ")")
}

/// A date as tables write it (`2026-10-03`, `2026/10/03`, `03.10.2026`) in PGN's
/// `YYYY.MM.DD`; a text of another shape is kept as it is.
fn pgn_date(text: &str) -> String {
    let parts: Vec<&str> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .collect();
    let [a, b, c] = parts[..] else {
        return text.to_string();
    };
    let (y, m, d) = match (a.len(), c.len()) {
        (4, 1..=2) => (a, b, c),
        (1..=2, 4) => (c, b, a),
        _ => return text.to_string(),
    };
    if b.len() > 2 {
        return text.to_string();
    }
    format!("{y}.{m:0>2}.{d:0>2}")
}

/// Renders the report as one PGN game (ends with a blank line). A Das report
/// (notation `das`) gets `[Variant "Das"]` and its moves as written.
pub fn to_pgn(report: &SheetReport, tags: &PgnTags, tool: &str) -> String {
    let mut out = tag_section(report, tags, tool);
    out.push('\n');
    crate::notation::wrap_movetext(&movetext(report), &mut out);
    out.push_str("\n\n");
    out
}

/// The game's tags, one a line: the Seven Tag Roster (from the game's headers, else
/// `tags`), the annotator and source, the headers that are known, the notation.
fn tag_section(report: &SheetReport, tags: &PgnTags, tool: &str) -> String {
    let mut out = String::new();
    let game = report.game.clone().unwrap_or_default();
    let or = |from_game: &Option<String>, given: &str| {
        from_game.clone().unwrap_or_else(|| given.to_string())
    };
    let round = if game.round.is_some() {
        game.round_tag()
    } else {
        tags.round.clone()
    };
    let header = [
        ("Event", or(&game.event, &tags.event)),
        ("Site", or(&game.site, &tags.site)),
        (
            "Date",
            game.date
                .as_deref()
                .map_or_else(|| tags.date.clone(), pgn_date),
        ),
        ("Round", round),
        ("White", or(&game.white, &tags.white)),
        ("Black", or(&game.black, &tags.black)),
        ("Result", report.result.clone()),
        ("Annotator", tool.to_string()),
        ("Source", report.source.clone()),
    ];
    for (k, v) in header {
        out.push_str(&format!("[{k} \"{}\"]\n", escape_tag(&v)));
    }
    let extra = [
        ("Board", game.board.map(|b| b.to_string())),
        ("WhiteElo", game.white_elo.clone()),
        ("BlackElo", game.black_elo.clone()),
        ("WhiteFideId", game.white_fide_id.clone()),
        ("BlackFideId", game.black_fide_id.clone()),
    ];
    for (k, v) in extra {
        if let Some(v) = v {
            out.push_str(&format!("[{k} \"{}\"]\n", escape_tag(&v)));
        }
    }
    if !report.notation.is_empty() {
        out.push_str(&format!(
            "[Notation \"{}\"]\n",
            escape_tag(&report.notation)
        ));
    }
    if report.notation == "das" {
        out.push_str("[Variant \"Das\"]\n");
    }
    out
}

/// The movetext's tokens: move numbers, moves, a comment on each move flagged for review
/// and on each cell that adds no move, and the result.
fn movetext(report: &SheetReport) -> Vec<String> {
    // A Das sheet has no SAN: its moves are written as the sheet says them.
    let das = report.notation == "das";
    let mut tokens: Vec<String> = Vec::new();
    let mut need_number = true;
    for m in &report.moves {
        let shown = if das { &m.written } else { &m.san };
        let (Some(ply), Some(san)) = (m.ply, shown.as_deref()) else {
            tokens.push(format!(
                "{{cell {} {} skipped: reads \"{}\"}}",
                m.move_number,
                m.side,
                comment_text(&m.read)
            ));
            need_number = true;
            continue;
        };
        let number = ply.div_ceil(2);
        if ply % 2 == 1 {
            tokens.push(format!("{number}."));
        } else if need_number {
            tokens.push(format!("{number}..."));
        }
        tokens.push(san.to_string());
        need_number = false;
        if m.review {
            tokens.push(format!("{{{}}}", comment_text(&review_note(m))));
            need_number = true;
        }
    }
    tokens.push(report.result.clone());
    tokens
}

/// What the comment on a move flagged for review says.
fn review_note(m: &super::MoveReport) -> String {
    let mut note = format!("review: confidence {:.2}", m.confidence);
    if m.state == MoveState::Assumed {
        note.push_str(", no cell: move assumed");
    } else if m.read != m.written.clone().unwrap_or_default() {
        note.push_str(&format!(", cell reads \"{}\"", comment_text(&m.read)));
    }
    if let Some(alt) = m.alternatives.first() {
        note.push_str(&format!(", or {} {:.2}", alt.san, alt.confidence));
    }
    note
}

#[cfg(test)]
mod tests {
    use super::super::{Alternative, MoveReport};
    use super::*;

    fn mv(ply: Option<u32>, san: Option<&str>, review: bool) -> MoveReport {
        MoveReport {
            ply,
            move_number: ply.map_or(2, |p| p.div_ceil(2)),
            side: if ply.unwrap_or(1) % 2 == 1 {
                "white"
            } else {
                "black"
            }
            .into(),
            san: san.map(str::to_string),
            written: san.map(str::to_string),
            read: "N}f3".into(),
            confidence: 0.4,
            review,
            state: if review {
                MoveState::Review
            } else {
                MoveState::Ok
            },
            bbox: None,
            alternatives: vec![Alternative {
                san: "Nc3".into(),
                confidence: 0.3,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn pgn_has_roster_numbers_and_safe_comments() {
        let report = SheetReport {
            source: "a \"b\".jpg".into(),
            notation: "en".into(),
            result: "*".into(),
            moves: vec![
                mv(Some(1), Some("e4"), false),
                mv(Some(2), Some("e5"), true),
                mv(None, None, true),
                mv(Some(3), Some("Nf3"), false),
                mv(Some(4), Some("Nc6"), false),
            ],
            ..Default::default()
        };
        let pgn = to_pgn(&report, &PgnTags::default(), "scoresheet 0.1.0");
        assert!(pgn.contains("[Source \"a \\\"b\\\".jpg\"]"), "{pgn}");
        assert!(pgn.contains("[Date \"????.??.??\"]"));
        let body = pgn.split("\n\n").nth(1).unwrap();
        assert!(
            body.starts_with("1. e4 e5 {review: confidence 0.40, cell reads \"N)f3\""),
            "{body}"
        );
        assert!(body.contains("} 2. Nf3 Nc6 *"), "{body}");
        // Every comment closes before the next opens.
        let mut depth = 0;
        for c in body.chars() {
            match c {
                '{' => {
                    assert_eq!(depth, 0);
                    depth += 1
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        assert_eq!(depth, 0);
    }

    #[test]
    fn das_record_has_variant_tag_and_moves_as_written() {
        let das = |ply: Option<u32>, text: Option<&str>, review: bool| MoveReport {
            san: None,
            written: text.map(str::to_string),
            read: text.unwrap_or("").to_string(),
            alternatives: vec![Alternative {
                san: "Kh9+}".into(),
                confidence: 0.3,
            }],
            ..mv(ply, None, review)
        };
        let report = SheetReport {
            notation: "das".into(),
            result: "*".into(),
            moves: vec![
                das(Some(1), Some("Rg10+!"), false),
                das(Some(2), Some("Kh9"), true),
                das(None, None, true),
                das(Some(3), Some("dxe6 e.p."), false),
            ],
            ..Default::default()
        };
        let pgn = to_pgn(&report, &PgnTags::default(), "t");
        assert!(
            pgn.contains("[Notation \"das\"]\n[Variant \"Das\"]\n"),
            "{pgn}"
        );
        let body = pgn.split("\n\n").nth(1).unwrap().replace('\n', " ");
        assert_eq!(
            body,
            "1. Rg10+! Kh9 {review: confidence 0.40, or Kh9+) 0.30} {cell 2 white skipped: \
             reads \"\"} 2. dxe6 e.p. *"
        );
        // The record reads back as the same Das moves.
        let game = crate::notation::das::parse_das_game(&pgn).unwrap();
        let moves: Vec<&str> = game.plies.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(moves, ["Rg10+!", "Kh9", "dxe6 e.p."]);
    }

    #[test]
    fn black_move_after_comment_gets_ellipsis_number() {
        let report = SheetReport {
            result: "*".into(),
            moves: vec![
                mv(Some(1), Some("d4"), true),
                mv(Some(2), Some("d5"), false),
            ],
            ..Default::default()
        };
        let pgn = to_pgn(&report, &PgnTags::default(), "t");
        assert!(pgn.contains("} 1... d5 *"), "{pgn}");
    }
}

#[cfg(test)]
mod header_tests {
    use super::*;
    use crate::report::GameInfo;

    #[test]
    fn the_game_fills_the_headers_and_dates_take_pgn_form() {
        assert_eq!(pgn_date("2026-10-03"), "2026.10.03");
        assert_eq!(pgn_date("3.10.2026"), "2026.10.03");
        assert_eq!(pgn_date("autumn"), "autumn");
        let mut report = SheetReport {
            result: "*".into(),
            ..SheetReport::default()
        };
        report.set_game(GameInfo {
            round: Some("3".into()),
            board: Some(12),
            white: Some("Müller, Anna".into()),
            black: Some("Kowalski, \"Jan\"".into()),
            white_elo: Some("2101".into()),
            date: Some("2026-10-03".into()),
            result: Some("0-1".into()),
            ..GameInfo::default()
        });
        let pgn = to_pgn(&report, &PgnTags::default(), "scoresheet");
        for tag in [
            "[Round \"3.12\"]",
            "[White \"Müller, Anna\"]",
            "[Black \"Kowalski, \\\"Jan\\\"\"]",
            "[Date \"2026.10.03\"]",
            "[Result \"0-1\"]",
            "[Board \"12\"]",
            "[WhiteElo \"2101\"]",
            "[Event \"?\"]",
        ] {
            assert!(pgn.contains(tag), "{tag} in {pgn}");
        }
        assert!(!pgn.contains("BlackElo"));
        assert!(pgn.trim_end().ends_with("0-1"), "{pgn}");
        // A mate on the sheet wins over the pairings, and the two are kept for review.
        let mut mated = SheetReport {
            result: "1-0".into(),
            ..SheetReport::default()
        };
        mated.set_game(GameInfo {
            result: Some("0-1".into()),
            ..GameInfo::default()
        });
        assert_eq!(mated.result, "1-0");
        let game = mated.game.unwrap();
        assert!(game.result_review.unwrap().contains("0-1"));
        assert_eq!(game.from["result"], crate::report::Source::Mate);
        // A result written on the sheet yields to the pairings, and a disagreement
        // names both; an agreeing one is simply confirmed.
        let written = |r: &str| SheetReport {
            result: r.into(),
            result_from: Some(crate::report::Source::Sheet),
            ..SheetReport::default()
        };
        let mut sheet = written("1-0");
        sheet.set_game(GameInfo {
            result: Some("1/2-1/2".into()),
            ..GameInfo::default()
        });
        assert_eq!(sheet.result, "1/2-1/2");
        assert_eq!(sheet.result_from, Some(crate::report::Source::Pairings));
        let review = sheet.game.unwrap().result_review.unwrap();
        assert!(
            review.contains("1-0") && review.contains("1/2-1/2"),
            "{review}"
        );
        let mut sheet = written("0-1");
        sheet.set_game(GameInfo {
            result: Some("0-1".into()),
            ..GameInfo::default()
        });
        assert_eq!(sheet.game.as_ref().unwrap().result_review, None);
        let mut alone = written("0-1");
        alone.set_game(GameInfo::default());
        assert_eq!(alone.result, "0-1");
        assert_eq!(
            alone.game.unwrap().from["result"],
            crate::report::Source::Sheet
        );
        let pgn = to_pgn(&written("0-1"), &PgnTags::default(), "scoresheet");
        assert!(
            pgn.contains("[Result \"0-1\"]") && pgn.trim_end().ends_with("0-1"),
            "{pgn}"
        );
    }
}
