//! `scoresheet fix`: a human's correction (or a corrections file from the review
//! page) -> the move locked in the report, the rest of the game re-read around it,
//! PGN and JSON rewritten atomically.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow, bail};
use serde::Deserialize;
use shakmaty::san::San;
use shakmaty::{Chess, Color, Move, Position, Role};

use scoresheet::model::RuntimeParams;
use scoresheet::notation::{MoveTextError, Notation, Written, parse_move, read_written};
use scoresheet::pipeline::{Pipeline, SheetOptions, cell_index, reload_pages};
use scoresheet::report::{Correction, PgnTags, SheetReport, to_pgn, write_atomic};

use super::batch::{load_model, settings_params};
use super::{EXIT_SOME_FAILED, diag};

#[derive(clap::Args, Debug)]
#[command(group = clap::ArgGroup::new("target").args(["ply", "cell", "apply"]).required(true))]
pub struct FixArgs {
    /// The report to correct (`OUTDIR/<stem>.json`); with --apply, the output folder.
    pub report: PathBuf,
    /// The move, in the sheet's notation or English (`Кf3`, `Sf3`, `Nf3`, `e2-e4`).
    #[arg(required_unless_present = "apply")]
    pub text: Option<String>,
    /// Half-move to correct (1 = White's first move), as numbered in the report.
    #[arg(long)]
    pub ply: Option<u32>,
    /// Sheet cell to correct: move number and side, e.g. `12b` or `7w`.
    #[arg(long)]
    pub cell: Option<String>,
    /// Apply a corrections file downloaded from the review page.
    #[arg(long, value_name = "FILE")]
    pub apply: Option<PathBuf>,
    /// Who is correcting (recorded in the report).
    #[arg(long)]
    pub by: Option<String>,
    /// Model manifest (default: the model built into the binary).
    #[arg(long, value_name = "MANIFEST")]
    pub model: Option<PathBuf>,
    /// ONNX Runtime shared library to load.
    #[arg(long, value_name = "FILE")]
    pub ort_lib: Option<PathBuf>,
}

/// The corrections file written by the review page.
#[derive(Deserialize)]
struct CorrectionsFile {
    format: String,
    corrections: Vec<FileCorrection>,
}

#[derive(Deserialize)]
struct FileCorrection {
    report: String,
    #[serde(rename = "move")]
    move_number: u32,
    side: String,
    san: String,
    #[serde(default)]
    input: String,
    #[serde(default)]
    by: Option<String>,
    #[serde(default)]
    at: Option<String>,
}

/// A correction asked for, before it is checked.
struct Request {
    move_number: u32,
    side: Color,
    text: String,
    by: String,
    at: String,
}

pub fn run(args: FixArgs) -> anyhow::Result<ExitCode> {
    let by = args
        .by
        .clone()
        .or_else(|| std::env::var("USER").ok())
        .unwrap_or_else(|| "cli".into());
    let runtime = RuntimeParams {
        ort_lib: args.ort_lib.clone(),
        threads: 2,
        ..RuntimeParams::default()
    };
    if let Some(file) = &args.apply {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let parsed: CorrectionsFile = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a corrections file", file.display()))?;
        if parsed.format != "scoresheet-corrections" {
            bail!("{}: not a scoresheet corrections file", file.display());
        }
        let mut per_report: BTreeMap<String, Vec<Request>> = BTreeMap::new();
        for c in parsed.corrections {
            per_report
                .entry(c.report.clone())
                .or_default()
                .push(Request {
                    move_number: c.move_number,
                    side: if c.side == "black" {
                        Color::Black
                    } else {
                        Color::White
                    },
                    text: if c.input.is_empty() {
                        c.san.clone()
                    } else {
                        c.input.clone()
                    },
                    by: c.by.unwrap_or_else(|| by.clone()),
                    at: c.at.unwrap_or_else(now_utc),
                });
        }
        let mut failed = 0;
        for (name, requests) in per_report {
            if name.contains('/') || name.contains('\\') {
                diag(format!(
                    "{name}: report names must be plain file names; skipped"
                ));
                failed += 1;
                continue;
            }
            let path = args.report.join(&name);
            match fix_report(&path, requests, &args, &runtime) {
                Ok(msg) => diag(msg),
                Err(e) => {
                    diag(format!("{e:#}"));
                    failed += 1;
                }
            }
        }
        return Ok(if failed > 0 {
            ExitCode::from(EXIT_SOME_FAILED)
        } else {
            ExitCode::SUCCESS
        });
    }

    let report = SheetReport::load(&args.report)?;
    let text = args
        .text
        .clone()
        .ok_or_else(|| anyhow!("give the corrected move"))?;
    let (move_number, side) = match (args.ply, &args.cell) {
        (Some(ply), _) => {
            let entry = report
                .moves
                .iter()
                .find(|m| m.ply == Some(ply))
                .ok_or_else(|| anyhow!("{}: the game has no ply {ply}", args.report.display()))?;
            if entry.bbox.is_none() {
                bail!(
                    "{}: ply {ply} is a move the player did not write (no cell); correct a cell with --cell",
                    args.report.display()
                );
            }
            (entry.move_number, side_of(&entry.side))
        }
        (None, Some(cell)) => parse_cell(cell)?,
        (None, None) => unreachable!("clap requires --ply, --cell or --apply"),
    };
    let request = Request {
        move_number,
        side,
        text,
        by,
        at: now_utc(),
    };
    match fix_report(&args.report, vec![request], &args, &runtime) {
        Ok(msg) => {
            diag(msg);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            diag(format!("{e:#}"));
            Ok(ExitCode::from(EXIT_SOME_FAILED))
        }
    }
}

fn side_of(s: &str) -> Color {
    if s == "black" {
        Color::Black
    } else {
        Color::White
    }
}

fn side_name(c: Color) -> &'static str {
    if c == Color::White { "white" } else { "black" }
}

/// `12b` / `12w` / `12black` -> (12, Black).
fn parse_cell(s: &str) -> anyhow::Result<(u32, Color)> {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    let rest = s[digits.len()..].to_ascii_lowercase();
    let n: u32 = digits
        .parse()
        .map_err(|_| anyhow!("--cell `{s}`: expected e.g. 12b or 7w"))?;
    let side = match rest.as_str() {
        "w" | "white" => Color::White,
        "b" | "black" => Color::Black,
        _ => bail!("--cell `{s}`: expected e.g. 12b or 7w"),
    };
    if n == 0 {
        bail!("--cell `{s}`: move numbers start at 1");
    }
    Ok((n, side))
}

/// The position before sheet cell (`move_number`, `side`) in the report's game, and
/// the half-move number the cell's move would have.
fn position_before(
    report: &SheetReport,
    move_number: u32,
    side: Color,
) -> anyhow::Result<(Chess, u32)> {
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
                .ok_or_else(|| anyhow!("report does not replay at `{san}`"))?;
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
fn why_illegal(pos: &Chess, text: &str, n: Notation) -> String {
    let glyphs = scoresheet::glyph::canonical_str(text);
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

/// Checks a correction against the report's game: the legal move it names.
fn check_request(
    report: &SheetReport,
    r: &Request,
    n: Notation,
) -> anyhow::Result<(Move, Chess, u32)> {
    let (pos, ply) = position_before(report, r.move_number, r.side)?;
    let where_ = format!(
        "ply {ply} ({}{} {})",
        r.move_number,
        if r.side == Color::White { "." } else { "..." },
        r.text
    );
    if pos.turn() != r.side {
        bail!(
            "{where_}: the decoded game has {} to move at that cell; correct the cell before it first",
            side_name(pos.turn())
        );
    }
    let parsed = parse_move(&pos, &r.text, n).or_else(|e| match e {
        MoveTextError::Unreadable(_) | MoveTextError::Illegal(_) if n != Notation::En => {
            parse_move(&pos, &r.text, Notation::En).map_err(|_| e)
        }
        e => Err(e),
    });
    match parsed {
        Ok(m) => Ok((m, pos, ply)),
        Err(MoveTextError::Illegal(_)) => {
            bail!("{where_}: illegal: {}", why_illegal(&pos, &r.text, n))
        }
        Err(e) => bail!("{where_}: {e}"),
    }
}

/// Applies corrections to one report: checks them all first (nothing changes if one
/// is wrong), re-reads the sheet with every correction locked, rewrites PGN + JSON.
fn fix_report(
    path: &Path,
    requests: Vec<Request>,
    args: &FixArgs,
    runtime: &RuntimeParams,
) -> anyhow::Result<String> {
    let mut report = SheetReport::load(path)?;
    let n: Notation = report.notation.parse().unwrap_or(Notation::En);
    let name = path.display();
    let mut corrections = report.corrections.clone();
    for r in &requests {
        let (m, pos, _) = check_request(&report, r, n).with_context(|| format!("{name}"))?;
        let san = San::from_move(&pos, m).to_string();
        let previous = report
            .moves
            .iter()
            .find(|e| {
                e.bbox.is_some() && e.move_number == r.move_number && side_of(&e.side) == r.side
            })
            .and_then(|e| e.san.clone());
        corrections.retain(|c| !(c.move_number == r.move_number && c.side == side_name(r.side)));
        corrections.push(Correction {
            move_number: r.move_number,
            side: side_name(r.side).to_string(),
            san,
            input: r.text.clone(),
            previous,
            by: r.by.clone(),
            at: r.at.clone(),
        });
    }
    corrections.sort_by_key(|c| cell_index(c.move_number, side_of(&c.side)));

    // Re-read as the sheet was read (beam, second look, one pass, prior, threshold).
    let settings = report.producer.settings.clone().unwrap_or_default();
    let runtime = RuntimeParams {
        second_look: !settings.one_look,
        ..runtime.clone()
    };
    let mut model = load_model(args.model.as_deref(), &runtime)?;
    let model_name = model.manifest().name.clone();
    let mut params = settings_params(&settings);
    params.decode.notation = Some(n);
    let pipeline = Pipeline::new(params);
    let pages = reload_pages(&report, &pipeline.params().page)
        .with_context(|| format!("{name}: cannot re-read the sheet"))?;
    let locked = corrections
        .iter()
        .map(|c| (cell_index(c.move_number, side_of(&c.side)), c.san.clone()))
        .collect();
    let options = SheetOptions {
        locked,
        header_rows: report.header_rows(),
    };
    let sheet = match <[_; 2]>::try_from(pages) {
        Ok(pair) => pipeline
            .read_pair(pair, &mut model, &options)
            .map(|p| (p.decoded, p.report)),
        Err(mut one) => pipeline
            .read_page(one.swap_remove(0), &mut model, &options)
            .map(|s| (s.decoded, s.report)),
    }
    .with_context(|| format!("{name}: cannot re-read the sheet"))?;
    let (decoded, new_report) = sheet;
    if !decoded.lock_conflicts.is_empty() {
        bail!(
            "{name}: the corrections cannot all hold in one legal game (cells {:?}); nothing changed",
            decoded.lock_conflicts
        );
    }
    let old_sans: Vec<Option<String>> = report.moves.iter().map(|m| m.san.clone()).collect();
    let mut new = new_report;
    new.source = report.source.clone();
    new.producer.tool = format!("scoresheet {}", env!("CARGO_PKG_VERSION"));
    new.producer.model = model_name;
    new.producer.settings = Some(settings);
    new.corrections = corrections;
    if let Some(game) = report.game.clone() {
        new.set_game(game);
    }
    let changed = new
        .moves
        .iter()
        .zip(old_sans.iter().chain(std::iter::repeat(&None)))
        .filter(|(m, old)| m.san != **old)
        .count();
    let pgn = to_pgn(&new, &PgnTags::default(), &new.producer.tool);
    let stem = path.with_extension("");
    write_atomic(&stem.with_extension("pgn"), pgn.as_bytes())?;
    write_atomic(path, new.to_json().as_bytes())?;
    report = new;
    Ok(format!(
        "{name}: {} correction{} locked, {changed} cell{} changed, {} flagged for review",
        report.corrections.len(),
        if report.corrections.len() == 1 {
            ""
        } else {
            "s"
        },
        if changed == 1 { "" } else { "s" },
        report.summary.flagged
    ))
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
        assert!(parse_cell("0w").is_err());
        assert!(parse_cell("b12").is_err());
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
