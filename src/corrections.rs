//! A report + a human's corrections (a sheet cell and the move typed for it) -> the
//! checked corrections: the legal move each names in the report's game, or why it
//! cannot be one (typed errors), merged with the report's earlier corrections; and the
//! cells a re-read locks. The command line (`fix`), the review page's corrections file
//! and any other front end apply corrections through here; `Pipeline::reread` then
//! re-reads the sheet around them.

use std::collections::BTreeMap;

use serde::Deserialize;
use shakmaty::san::San;
use shakmaty::{Chess, Color, Move, Position, Role};

use crate::decode::cell_index;
use crate::notation::{MoveTextError, Notation, Written, parse_move, read_written};
use crate::report::{Correction, SheetReport};

/// A correction asked for, before it is checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The sheet cell: move number and side.
    pub move_number: u32,
    pub side: Color,
    /// The move as the human typed it (sheet notation or English).
    pub text: String,
    /// Who asks, and when (RFC 3339, UTC).
    pub by: String,
    pub at: String,
}

/// Why a correction cannot be applied.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CorrectionError {
    #[error("report does not replay at `{0}`")]
    Replay(String),
    #[error(
        "{at}: the decoded game has {to_move} to move at that cell; correct the cell before it first"
    )]
    WrongSide { at: String, to_move: &'static str },
    #[error("{at}: illegal: {why}")]
    Illegal { at: String, why: String },
    #[error("{at}: {reason}")]
    Unreadable { at: String, reason: String },
    #[error("the game has no ply {0}")]
    NoPly(u32),
    #[error("ply {0} is a move the player did not write (no cell); correct a cell with --cell")]
    NoCell(u32),
    #[error("cell `{0}`: expected e.g. 12b or 7w")]
    BadCell(String),
    #[error("cell `{0}`: move numbers start at 1")]
    CellZero(String),
}

/// `black` -> Black, anything else White (as reports write sides).
pub fn side_of(s: &str) -> Color {
    if s == "black" {
        Color::Black
    } else {
        Color::White
    }
}

/// Black -> `black`, White -> `white`.
pub fn side_name(c: Color) -> &'static str {
    if c == Color::White { "white" } else { "black" }
}

/// `12b` / `12w` / `12black` -> (12, Black).
///
/// # Errors
/// Not a move number followed by a side, or move number 0.
pub fn parse_cell(s: &str) -> Result<(u32, Color), CorrectionError> {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    let rest = s[digits.len()..].to_ascii_lowercase();
    let n: u32 = digits
        .parse()
        .map_err(|_| CorrectionError::BadCell(s.to_string()))?;
    let side = match rest.as_str() {
        "w" | "white" => Color::White,
        "b" | "black" => Color::Black,
        _ => return Err(CorrectionError::BadCell(s.to_string())),
    };
    if n == 0 {
        return Err(CorrectionError::CellZero(s.to_string()));
    }
    Ok((n, side))
}

/// The sheet cell of the report's ply `ply`.
///
/// # Errors
/// No such ply, or a move the player did not write (it has no cell).
pub fn cell_of_ply(report: &SheetReport, ply: u32) -> Result<(u32, Color), CorrectionError> {
    let entry = report
        .moves
        .iter()
        .find(|m| m.ply == Some(ply))
        .ok_or(CorrectionError::NoPly(ply))?;
    if entry.bbox.is_none() {
        return Err(CorrectionError::NoCell(ply));
    }
    Ok((entry.move_number, side_of(&entry.side)))
}

/// The position before sheet cell (`move_number`, `side`) in the report's game, and
/// the half-move number the cell's move would have.
///
/// # Errors
/// The report's game does not replay.
pub fn position_before(
    report: &SheetReport,
    move_number: u32,
    side: Color,
) -> Result<(Chess, u32), CorrectionError> {
    let target = cell_index(move_number, side);
    let mut pos = Chess::default();
    let mut plies = 0;
    for m in &report.moves {
        if m.bbox.is_some() && cell_index(m.move_number, side_of(&m.side)) >= target {
            break;
        }
        if let (Some(_), Some(san)) = (m.ply, m.san.as_deref()) {
            let mv = san
                .parse::<San>()
                .ok()
                .and_then(|s| s.to_move(&pos).ok())
                .ok_or_else(|| CorrectionError::Replay(san.to_string()))?;
            pos.play_unchecked(mv);
            plies += 1;
        }
    }
    Ok((pos, plies + 1))
}

fn role_name(r: Role) -> &'static str {
    match r {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// Why written move `text` is not legal in `pos`, in words.
pub fn why_illegal(pos: &Chess, text: &str, n: Notation) -> String {
    let glyphs = crate::glyph::canonical_str(text);
    let Some(written) = read_written(&glyphs, n).or_else(|| read_written(&glyphs, Notation::En))
    else {
        return format!("`{text}` is not a move in {} notation", n.code());
    };
    let side = side_name(pos.turn());
    match written {
        Written::Castle(_) => format!("{side} cannot castle that way here"),
        Written::Move {
            role,
            to_file,
            to_rank,
            captured,
            ..
        } => {
            let mine = pos.board().by_piece(shakmaty::Piece {
                color: pos.turn(),
                role,
            });
            if mine.is_empty() {
                return format!("{side} has no {}", role_name(role));
            }
            let (Some(to_file), Some(rank)) = (to_file, to_rank) else {
                return match (to_file, captured) {
                    (Some(file), _) => format!(
                        "no {side} {} can capture on the {} file",
                        role_name(role),
                        file.char()
                    ),
                    (None, Some(taken)) => format!(
                        "no {side} {} can take a {}",
                        role_name(role),
                        role_name(taken)
                    ),
                    (None, None) => format!("`{text}` names no square"),
                };
            };
            let to = shakmaty::Square::from_coords(to_file, rank);
            if pos.us().contains(to) {
                return format!("{to} holds a {side} piece");
            }
            let occupied = pos.board().occupied();
            let reaches = mine.into_iter().any(|from| {
                if role == Role::Pawn {
                    let dir: i32 = if pos.turn() == Color::White { 8 } else { -8 };
                    let step = i32::from(to) - i32::from(from);
                    step == dir
                        || step == 2 * dir
                        || shakmaty::attacks::pawn_attacks(pos.turn(), from).contains(to)
                } else {
                    shakmaty::attacks::attacks(
                        from,
                        shakmaty::Piece {
                            color: pos.turn(),
                            role,
                        },
                        occupied,
                    )
                    .contains(to)
                }
            });
            if reaches && !pos.checkers().is_empty() {
                format!("{side} is in check and that move does not answer it")
            } else if reaches {
                "it would leave the king in check".to_string()
            } else {
                format!("no {side} {} can reach {to}", role_name(role))
            }
        }
    }
}

/// Checks a correction against the report's game: the legal move it names, the
/// position before it and its half-move number.
///
/// # Errors
/// The report does not replay, the other side is to move at that cell, or the text
/// is no legal move there (with the reason).
pub fn check(
    report: &SheetReport,
    r: &Request,
    n: Notation,
) -> Result<(Move, Chess, u32), CorrectionError> {
    let (pos, ply) = position_before(report, r.move_number, r.side)?;
    let m = check_at(&pos, ply, r, n)?;
    Ok((m, pos, ply))
}

/// Checks request `r` as half-move `ply` played in `pos`: the legal move it names.
fn check_at(pos: &Chess, ply: u32, r: &Request, n: Notation) -> Result<Move, CorrectionError> {
    let at = format!(
        "ply {ply} ({}{} {})",
        r.move_number,
        if r.side == Color::White { "." } else { "..." },
        r.text
    );
    if pos.turn() != r.side {
        return Err(CorrectionError::WrongSide {
            at,
            to_move: side_name(pos.turn()),
        });
    }
    let parsed = parse_move(pos, &r.text, n).or_else(|e| match e {
        MoveTextError::Unreadable(_) | MoveTextError::Illegal(_) if n != Notation::En => {
            parse_move(pos, &r.text, Notation::En).map_err(|_| e)
        }
        e => Err(e),
    });
    match parsed {
        Ok(m) => Ok(m),
        Err(MoveTextError::Illegal(_)) => Err(CorrectionError::Illegal {
            why: why_illegal(pos, &r.text, n),
            at,
        }),
        Err(e) => Err(CorrectionError::Unreadable {
            at,
            reason: e.to_string(),
        }),
    }
}

/// The report's corrections with `requests` checked and added (a new correction of a
/// cell replaces the old one), in sheet order, each request checked against the
/// report's game as it is (see [`merge_in_order`] for a set whose later moves hold
/// only after the earlier ones). Nothing is returned unless every request holds.
///
/// # Errors
/// The first request that does not hold (see [`check`]).
pub fn merge(
    report: &SheetReport,
    requests: &[Request],
) -> Result<Vec<Correction>, CorrectionError> {
    let n: Notation = report.notation.parse().unwrap_or(Notation::En);
    let mut corrections = report.corrections.clone();
    for r in requests {
        let (m, pos, _) = check(report, r, n)?;
        corrections.retain(|c| !(c.move_number == r.move_number && c.side == side_name(r.side)));
        corrections.push(correction_of(report, r, &pos, m));
    }
    Ok(sorted(corrections))
}

/// What [`merge_in_order`] made of a set of requests.
#[derive(Debug, PartialEq)]
pub enum Merged {
    /// Every request held against the report's game with the earlier ones played in
    /// place of its moves: the corrections (the report's and these), in sheet order.
    All(Vec<Correction>),
    /// The first `taken` requests held, but the game with them played no longer
    /// replays up to the next one (or that one is illegal there): the sheet must be
    /// re-read with `corrections` locked, and the rest checked against that game.
    Reread {
        corrections: Vec<Correction>,
        taken: usize,
    },
}

/// The position before cell (`move_number`, `side`) in the report's game with the
/// moves of `played` (cell index -> move) in place of the report's at their cells, and
/// the half-move number of that cell; `None` when a move of the report no longer
/// replays after a replaced one.
fn position_with(
    report: &SheetReport,
    move_number: u32,
    side: Color,
    played: &BTreeMap<usize, Move>,
) -> Result<Option<(Chess, u32)>, CorrectionError> {
    if played.is_empty() {
        return position_before(report, move_number, side).map(Some);
    }
    let target = cell_index(move_number, side);
    let mut pos = Chess::default();
    let mut plies = 0;
    for m in &report.moves {
        let cell = m
            .bbox
            .is_some()
            .then(|| cell_index(m.move_number, side_of(&m.side)));
        if cell.is_some_and(|c| c >= target) {
            break;
        }
        if let Some(mv) = cell.and_then(|c| played.get(&c)) {
            // Checked legal in this very position (the replay before it is the same).
            pos.play_unchecked(*mv);
            plies += 1;
            continue;
        }
        if let (Some(_), Some(san)) = (m.ply, m.san.as_deref()) {
            let Some(mv) = san.parse::<San>().ok().and_then(|s| s.to_move(&pos).ok()) else {
                return Ok(None);
            };
            pos.play_unchecked(mv);
            plies += 1;
        }
    }
    Ok(Some((pos, plies + 1)))
}

/// Checks `requests` in the order of the game (sheet order; a later request of one
/// cell replaces an earlier one), each against the report's game with the earlier
/// ones played in place of its moves, and merges them with the report's corrections.
/// Where the game with the earlier ones no longer replays up to a request, or the
/// request is illegal only there, the answer asks for a re-read first
/// ([`Merged::Reread`]), so that a set of corrections is refused only when one does
/// not hold in the game the earlier ones make.
///
/// # Errors
/// The first request that does not hold against the report's own game (see
/// [`check`]).
pub fn merge_in_order(
    report: &SheetReport,
    requests: &[Request],
) -> Result<Merged, CorrectionError> {
    let n: Notation = report.notation.parse().unwrap_or(Notation::En);
    let mut order: Vec<&Request> = requests.iter().collect();
    order.sort_by_key(|r| cell_index(r.move_number, r.side));
    let mut played: BTreeMap<usize, Move> = BTreeMap::new();
    let mut corrections = report.corrections.clone();
    for (taken, r) in order.iter().enumerate() {
        let again = Merged::Reread {
            corrections: sorted(corrections.clone()),
            taken,
        };
        let Some((pos, ply)) = position_with(report, r.move_number, r.side, &played)? else {
            return Ok(again);
        };
        let checked = check_at(&pos, ply, r, n);
        let m = match checked {
            Ok(m) => m,
            Err(_) if !played.is_empty() => return Ok(again),
            Err(e) => return Err(e),
        };
        played.insert(cell_index(r.move_number, r.side), m);
        corrections.retain(|c| !(c.move_number == r.move_number && c.side == side_name(r.side)));
        corrections.push(correction_of(report, r, &pos, m));
    }
    Ok(Merged::All(sorted(corrections)))
}

fn sorted(mut corrections: Vec<Correction>) -> Vec<Correction> {
    corrections.sort_by_key(|c| cell_index(c.move_number, side_of(&c.side)));
    corrections
}

/// The correction record of request `r`, checked as move `m` in `pos`.
fn correction_of(report: &SheetReport, r: &Request, pos: &Chess, m: Move) -> Correction {
    let previous = report
        .moves
        .iter()
        .find(|e| e.bbox.is_some() && e.move_number == r.move_number && side_of(&e.side) == r.side)
        .and_then(|e| e.san.clone());
    Correction {
        move_number: r.move_number,
        side: side_name(r.side).to_string(),
        san: San::from_move(pos, m).to_string(),
        input: r.text.clone(),
        previous,
        by: r.by.clone(),
        at: r.at.clone(),
    }
}

/// The cells a re-read locks: cell index -> English SAN.
pub fn locks(corrections: &[Correction]) -> BTreeMap<usize, String> {
    corrections
        .iter()
        .map(|c| (cell_index(c.move_number, side_of(&c.side)), c.san.clone()))
        .collect()
}

/// A header field a human corrects (see [`SheetReport::correct_header`]).
#[derive(Clone, Debug, PartialEq)]
pub struct HeaderRequest {
    pub field: String,
    pub value: String,
    pub by: String,
    pub at: String,
}

/// What a corrections file asks of one report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Requests {
    pub moves: Vec<Request>,
    pub headers: Vec<HeaderRequest>,
}

/// The report with the header corrections applied.
///
/// # Errors
/// The first that does not hold (nothing is applied then).
pub fn correct_headers(
    report: &SheetReport,
    headers: &[HeaderRequest],
) -> Result<SheetReport, String> {
    let mut new = report.clone();
    for h in headers {
        new.correct_header(&h.field, &h.value, &h.by, &h.at)?;
    }
    Ok(new)
}

/// The corrections file the review page writes (`scoresheet-corrections.json`).
#[derive(Clone, Debug, Deserialize)]
pub struct CorrectionsFile {
    pub format: String,
    pub corrections: Vec<FileCorrection>,
}

/// One correction of a corrections file: a move (`move`, `side`, `san`, `input`) or
/// a header field (`header`, `value`).
#[derive(Clone, Debug, Deserialize)]
pub struct FileCorrection {
    /// The report's file name (`<stem>.json`) in the output folder.
    pub report: String,
    #[serde(rename = "move", default)]
    pub move_number: u32,
    #[serde(default)]
    pub side: String,
    #[serde(default)]
    pub san: String,
    /// The header field corrected (see [`crate::report::HEADER_FIELDS`]).
    #[serde(default)]
    pub header: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub input: String,
    #[serde(default)]
    pub by: Option<String>,
    #[serde(default)]
    pub at: Option<String>,
}

impl CorrectionsFile {
    /// Parses a corrections file.
    ///
    /// # Errors
    /// Not JSON of that shape, or another format.
    pub fn parse(text: &str) -> Result<CorrectionsFile, String> {
        let file: CorrectionsFile =
            serde_json::from_str(text).map_err(|_| "not a corrections file".to_string())?;
        if file.format != "scoresheet-corrections" {
            return Err("not a scoresheet corrections file".into());
        }
        Ok(file)
    }

    /// The requests per report file name (moves as typed, the SAN where nothing was
    /// typed; header fields), `by` standing for a missing author and the current time
    /// for a missing time.
    pub fn requests(self, by: &str) -> BTreeMap<String, Requests> {
        let mut per_report: BTreeMap<String, Requests> = BTreeMap::new();
        for c in self.corrections {
            let entry = per_report.entry(c.report.clone()).or_default();
            let who = c.by.unwrap_or_else(|| by.to_string());
            let at = c.at.unwrap_or_else(now_utc);
            match c.header {
                Some(field) => entry.headers.push(HeaderRequest {
                    field,
                    value: c.value.unwrap_or_default(),
                    by: who,
                    at,
                }),
                None => entry.moves.push(Request {
                    move_number: c.move_number,
                    side: side_of(&c.side),
                    text: if c.input.is_empty() {
                        c.san.clone()
                    } else {
                        c.input.clone()
                    },
                    by: who,
                    at,
                }),
            }
        }
        per_report
    }
}

/// The current time as RFC 3339 UTC (`2026-11-30T08:00:00Z`).
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_parse() {
        assert_eq!(parse_cell("12b").unwrap(), (12, Color::Black));
        assert_eq!(parse_cell("7W").unwrap(), (7, Color::White));
        assert_eq!(
            parse_cell("0w"),
            Err(CorrectionError::CellZero("0w".into()))
        );
        assert_eq!(
            parse_cell("b12"),
            Err(CorrectionError::BadCell("b12".into()))
        );
    }

    #[test]
    fn time_is_rfc3339() {
        let t = now_utc();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'), "{t}");
    }

    #[test]
    fn illegal_moves_are_explained() {
        let pos = Chess::default();
        let cases = [
            ("Nf4", "no white knight can reach f4"),
            ("Qd3", "no white queen can reach d3"),
            ("Nd2", "d2 holds a white piece"),
        ];
        for (text, want) in cases {
            assert_eq!(why_illegal(&pos, text, Notation::En), want, "{text}");
        }
        // After 1. e4 d5 2. Bb5+ black must answer the check.
        let mut pos = Chess::default();
        for san in ["e4", "d5", "Bb5+"] {
            let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
        }
        assert_eq!(
            why_illegal(&pos, "Nf6", Notation::En),
            "black is in check and that move does not answer it"
        );
    }
}
