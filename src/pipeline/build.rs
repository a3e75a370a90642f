//! Decoded sheet -> its JSON report: moves with their boxes, confidences and
//! alternatives, the page's facts, both copies of a two-copy game, and Das sheets.

use std::path::Path;

use shakmaty::Color;

use super::game::CopyRead;
use super::sources::source_name;
use crate::decode::{DasSheet, DecodedSheet, EntryKind, GameStatus};
use crate::grid::Grid;
use crate::notation::Notation;
use crate::page::Page;
use crate::report::{
    Alternative, CopyCell, CopyInfo, MoveReport, MoveState, PageInfo, Producer, SheetReport, Source,
};

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn state_of(kind: EntryKind, review: bool) -> MoveState {
    match kind {
        EntryKind::Locked => MoveState::Locked,
        EntryKind::Skipped | EntryKind::Duplicate => MoveState::Skipped,
        EntryKind::Assumed => MoveState::Assumed,
        EntryKind::Replaced => MoveState::Review,
        EntryKind::Read if review => MoveState::Review,
        EntryKind::Read => MoveState::Ok,
    }
}

fn round3(x: f32) -> f32 {
    (x * 1000.0).round() / 1000.0
}

/// Turns a decoded sheet into its JSON report (without producer and corrections).
pub fn build_report(page: &Page, grid: &Grid, decoded: &DecodedSheet) -> SheetReport {
    let mut moves = Vec::with_capacity(decoded.entries.len());
    for e in &decoded.entries {
        let (move_number, side) = match e.cell {
            Some(c) => crate::decode::cell_move(c),
            // An assumed move sits before the next cell: name it by its own ply.
            None => {
                let ply = e.ply.unwrap_or(0);
                (
                    (ply / 2 + 1) as u32,
                    if ply % 2 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    },
                )
            }
        };
        let bbox = e
            .cell
            .and_then(|c| grid.cells.get(c))
            .map(|c| [c.bbox.x, c.bbox.y, c.bbox.w, c.bbox.h]);
        moves.push(MoveReport {
            ply: e.ply.map(|p| p as u32 + 1),
            move_number,
            side: side_name(side).to_string(),
            san: e.san.clone(),
            written: e.written.clone(),
            read: e.read.clone(),
            confidence: round3(e.confidence),
            review: e.review,
            cell_p: e.cell_p,
            state: state_of(e.kind, e.review),
            bbox,
            copies: Vec::new(),
            disagree: false,
            sheet: None,
            alternatives: e
                .alternatives
                .iter()
                .map(|a| Alternative {
                    san: a.san.clone(),
                    confidence: round3(a.confidence),
                })
                .collect(),
        });
    }
    let result = game_result(&decoded.moves);
    let mut report = SheetReport {
        source: source_name(&page.source, page.index),
        source_path: absolute(&page.source),
        notation: decoded.notation.code().to_string(),
        status: decoded.status,
        moves,
        result_from: (result != "*").then_some(Source::Mate),
        result,
        result_cell: None,
        result_note: None,
        producer: Producer::default(),
        page: page_info(page, grid),
        summary: Default::default(),
        copies: Vec::new(),
        joined: None,
        sheets: Vec::new(),
        corrections: Vec::new(),
        game: None,
        header_corrections: Vec::new(),
        fields: Vec::new(),
    };
    report.summarize();
    report
}

fn page_info(page: &Page, grid: &Grid) -> PageInfo {
    PageInfo {
        index: page.index,
        width: page.image.width(),
        height: page.image.height(),
        skew_deg: round3(page.skew_deg),
        rotated_180: page.rotated_180,
        cells: grid.cells.len(),
        header_rows: Some(grid.header_rows),
        form_notation: None,
    }
}

/// A page read, for a report's `copies` or `sheets`.
fn sheet_info(page: &Page, grid: &Grid) -> CopyInfo {
    CopyInfo {
        source: source_name(&page.source, page.index),
        source_path: absolute(&page.source),
        page: page_info(page, grid),
        sheets: Vec::new(),
    }
}

fn absolute(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// Adds the copies of a game read from several (both players' sheets) to its report:
/// each copy's first sheet (and its sheets, for a copy over several), per cell its box
/// and reading on each copy, and a `disagree` flag (with review) where one copy shows
/// the chosen move and another a different legal move.
pub(super) fn add_copies(
    report: &mut SheetReport,
    copies: &[CopyRead],
    decoded: &DecodedSheet,
    alphabet: &crate::model::Alphabet,
) {
    use shakmaty::Position;
    report.copies = copies
        .iter()
        .map(|c| {
            let mut info = sheet_info(&c.pages[0], &c.grids[0]);
            if c.pages.len() > 1 {
                info.sheets = c
                    .sheets()
                    .into_iter()
                    .map(|(p, g)| sheet_info(p, g))
                    .collect();
            }
            info
        })
        .collect();
    let n = decoded.notation;
    let mut pos = shakmaty::Chess::default();
    for (entry, m) in decoded.entries.iter().zip(report.moves.iter_mut()) {
        let before = pos.clone();
        if let Some(mv) = entry.ply.and_then(|ply| decoded.moves.get(ply)) {
            pos.play_unchecked(*mv);
        }
        let Some(cell) = entry.cell else { continue };
        let reads: Vec<Option<String>> = copies
            .iter()
            .map(|c| {
                c.scores
                    .get(cell)
                    .map(|s| crate::notation::transliterate(&alphabet.greedy(s), n))
            })
            .collect();
        m.copies = copy_cells(copies, cell, &reads);
        // Which legal move each copy's reading names, if any.
        let named: Vec<shakmaty::Move> = reads
            .iter()
            .filter_map(|r| {
                r.as_deref()
                    .filter(|t| !t.is_empty())
                    .and_then(|t| crate::notation::parse_move(&before, t, n).ok())
            })
            .collect();
        let chosen = entry.ply.and_then(|p| decoded.moves.get(p)).copied();
        let disagree = named.iter().any(|x| {
            named
                .iter()
                .any(|y| x != y && (Some(*x) == chosen || Some(*y) == chosen))
        });
        if disagree {
            m.disagree = true;
            m.review = true;
            if m.state == MoveState::Ok {
                m.state = MoveState::Review;
            }
        }
    }
    report.summarize();
}

/// Cell `cell` on each copy that holds it, with what each copy's cell reads.
fn copy_cells(copies: &[CopyRead], cell: usize, reads: &[Option<String>]) -> Vec<CopyCell> {
    copies
        .iter()
        .zip(reads)
        .enumerate()
        .filter_map(|(i, (c, read))| {
            let bbox = c
                .table
                .cells
                .get(cell)
                .map(|c| [c.bbox.x, c.bbox.y, c.bbox.w, c.bbox.h]);
            Some(CopyCell {
                copy: i,
                bbox,
                read: read.clone()?,
                sheet: (c.pages.len() > 1).then(|| c.sheet_of(cell)).flatten(),
            })
        })
        .collect()
}

/// Adds the copies of a Das game read from both players' sheets to its report: each
/// copy's sheet, and per cell its box and what each copy's cell reads.
pub(super) fn add_das_copies(
    report: &mut SheetReport,
    copies: &[CopyRead],
    das: &DasSheet,
    alphabet: &crate::model::Alphabet,
) {
    report.copies = copies
        .iter()
        .map(|c| sheet_info(&c.pages[0], &c.grids[0]))
        .collect();
    for (entry, m) in das.entries.iter().zip(report.moves.iter_mut()) {
        let reads: Vec<Option<String>> = copies
            .iter()
            .map(|c| c.scores.get(entry.cell).map(|s| alphabet.greedy(s)))
            .collect();
        m.copies = copy_cells(copies, entry.cell, &reads);
    }
}

/// Adds the sheets of a game written over several sheets to its report: `sheets` in
/// order, each move's `sheet` (the one its cell is on; boxes are in that sheet's page),
/// and `page` for the first sheet alone.
pub(super) fn add_sheets(report: &mut SheetReport, pages: &[Page], grids: &[Grid]) {
    report.sheets = pages
        .iter()
        .zip(grids)
        .map(|(p, g)| sheet_info(p, g))
        .collect();
    if let Some(first) = report.sheets.first() {
        report.page = first.page.clone();
    }
    let mut ends = Vec::with_capacity(grids.len());
    let mut total = 0;
    for g in grids {
        total += g.cells.len();
        ends.push(total);
    }
    for m in &mut report.moves {
        if m.bbox.is_none() {
            continue;
        }
        let cell = (m.move_number as usize - 1) * 2 + usize::from(m.side == "black");
        m.sheet = ends.iter().position(|&end| cell < end);
    }
}

/// The empty chess game of a sheet that records no chess game (a Das sheet).
pub(super) fn no_game(cells_used: usize) -> DecodedSheet {
    DecodedSheet {
        notation: Notation::En,
        status: GameStatus::Complete,
        moves: Vec::new(),
        entries: Vec::new(),
        cells_used,
        log_likelihood: 0.0,
        notation_scores: Vec::new(),
        lock_conflicts: Vec::new(),
    }
}

/// Turns a Das record into its JSON report: notation `das`, `san` null, `written` and
/// `read` the move as the cell most likely says it, alternatives as written.
pub fn build_das_report(
    page: &Page,
    grid: &Grid,
    decoded: &DecodedSheet,
    das: &DasSheet,
) -> SheetReport {
    let mut report = build_report(page, grid, decoded);
    report.notation = "das".to_string();
    report.moves = das
        .entries
        .iter()
        .map(|e| {
            let (move_number, side) = crate::decode::cell_move(e.cell);
            MoveReport {
                ply: e.ply.map(|p| p as u32 + 1),
                move_number,
                side: side_name(side).to_string(),
                san: None,
                written: e.text.clone(),
                read: e.text.clone().unwrap_or_default(),
                confidence: round3(e.confidence),
                review: e.review,
                state: state_of(e.kind, e.review),
                bbox: grid
                    .cells
                    .get(e.cell)
                    .map(|c| [c.bbox.x, c.bbox.y, c.bbox.w, c.bbox.h]),
                alternatives: e
                    .alternatives
                    .iter()
                    .map(|(text, confidence)| Alternative {
                        san: text.clone(),
                        confidence: round3(*confidence),
                    })
                    .collect(),
                ..Default::default()
            }
        })
        .collect();
    report.summarize();
    report
}

/// `1-0` / `0-1` when the game ends in mate, `1/2-1/2` on stalemate, else `*`.
fn game_result(moves: &[shakmaty::Move]) -> String {
    use shakmaty::{Chess, Position};
    let mut pos = Chess::default();
    for m in moves {
        match pos.clone().play(*m) {
            Ok(p) => pos = p,
            Err(_) => return "*".into(),
        }
    }
    pos.outcome().as_str().to_string()
}
