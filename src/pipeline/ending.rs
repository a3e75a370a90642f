//! A decoded game and its copies' cells -> how the game ends on the sheet: a result
//! written in the last move's cell (the decoder, which only knows moves, may have made
//! one of a `1-0`), written after the last move, or marked among the form's printed
//! options, with the report's `result`, `result_from` and `result_note` set from them.

use crate::decode::{DecodedSheet, EntryKind, GameStatus};
use crate::form::{closeup, result, result_box};
use crate::model::{CellModel, CellScores};
use crate::notation::Variant;
use crate::report::{SheetReport, Source};

use super::game::CopyRead;
use super::params::{PipelineParams, SheetError};
use super::sources::source_name;

/// The last move's cell is looked at closer for a result ([`result_in_last_move`])
/// when the reader gives that move's spellings less than this share of the cell
/// (reported as `cell_p`). At 0.05 more results were read right but one was invented
/// on an HCS page that writes none; no threshold separates the two (see
/// `docs/measurements.md`, "LAST_MOVE_DOUBT").
const LAST_MOVE_DOUBT: f32 = 0.01;

/// Cell `cell` of `copy` read again cut out closer (`closeup`: small writing made to
/// fill the reader's input), when its writing is small for the cell and the reader
/// reads something there. Read once: the second look's shift by a row of the page is
/// a large step in a close-up a dozen rows high. A speck still read as nothing is not
/// given the benefit of the doubt a second time (two HCS pages read a smudge and a
/// neighbour's descenders as `=` that way).
///
/// # Errors
/// When the model fails.
pub(super) fn closer_reading(
    copy: &CopyRead,
    cell: usize,
    model: &mut dyn CellModel,
) -> Result<Option<CellScores>, SheetError> {
    let Some((page, image)) = copy
        .crop(cell)
        .and_then(|(page, img)| closeup::closeup(&img).map(|c| (page, c)))
    else {
        return Ok(None);
    };
    let closer = model
        .read_once(std::slice::from_ref(&image))
        .map_err(|source| SheetError::Model {
            path: source_name(&page.source, page.index),
            source,
        })?;
    let alphabet = model.alphabet();
    Ok(closer
        .into_iter()
        .next()
        .filter(|s| !alphabet.greedy(s).is_empty()))
}

/// The decoded game's last move's cell when it reads better as a result (or a resign
/// word) than as that move ([`result::result_in_last_move`]: the decoder, which only
/// knows moves, may have made one of a `1-0`), or, where the cell hardly reads as
/// that move (the reader's own share of its spellings below [`LAST_MOVE_DOUBT`], or
/// a move the decoder put there that the cell does not show), when its writing,
/// small for the cell, reads as a result looked at closer
/// ([`closer_reading`]: a small `1-0` the reader takes for `-O`). With both
/// players' copies (`copies`, read as one game), each copy must show the same result,
/// and the share is that of their summed evidence, as the move's is. Returns the
/// cell, to end the game before it, and per copy the closer reading where that was
/// the one to read its result from.
///
/// # Errors
/// When the model fails.
pub(super) fn result_in_last_move(
    params: &PipelineParams,
    decoded: &DecodedSheet,
    copies: &[CopyRead],
    model: &mut dyn CellModel,
) -> Result<Option<ResultInLastMove>, SheetError> {
    let floor = params.decode.reading.read_floor;
    let plain: Vec<&[CellScores]> = copies.iter().map(|c| c.scores.as_slice()).collect();
    if let Some(cell) = result::result_in_last_move(decoded, &plain, model.alphabet(), floor) {
        return Ok(Some((cell, vec![None; copies.len()])));
    }
    // A move the cell does not show at all (`Replaced`: the reader gives its
    // spellings no share) is as doubtful as a move can be.
    let Some((cell, p)) = result::last_move_entry(decoded).and_then(|e| match e.kind {
        EntryKind::Replaced => e.cell.zip(Some(0.0)),
        _ => e.cell.zip(e.cell_p),
    }) else {
        return Ok(None);
    };
    if p >= LAST_MOVE_DOUBT {
        return Ok(None);
    }
    // Each copy's cell cut out closer (as read where it cannot be).
    let mut closer = Vec::with_capacity(copies.len());
    for copy in copies {
        closer.push(match copy.scores.get(cell) {
            Some(_) => closer_reading(copy, cell, model)?,
            None => None,
        });
    }
    if closer.iter().all(Option::is_none) {
        return Ok(None);
    }
    let cells: Vec<&CellScores> = copies
        .iter()
        .zip(&closer)
        .filter_map(|(copy, c)| c.as_ref().or_else(|| copy.scores.get(cell)))
        .collect();
    Ok(result::copies_show_result(&cells, model.alphabet(), floor).then_some((cell, closer)))
}

/// A result the sheet gives: what, the cell it is written in (none: marked on the
/// form's printed options), and how it was given.
struct Said {
    result: String,
    cell: Option<usize>,
    how: &'static str,
}

/// Without a mate, the result written after the last move (on any copy) or marked on
/// the printed options below a copy's last table (see [`result_box`]) is the sheet's;
/// otherwise `result_note` says why the result stays `*`. Copies or places that give
/// different results leave `*` and name them.
///
/// # Errors
/// When the model fails reading the printed options.
pub(super) fn add_written_result(
    params: &PipelineParams,
    report: &mut SheetReport,
    decoded: &DecodedSheet,
    copies: &[CopyRead],
    model: &mut dyn CellModel,
) -> Result<(), SheetError> {
    if report.result_from == Some(Source::Mate) {
        return Ok(());
    }
    let marked = if params.variant == Variant::Das {
        Vec::new()
    } else {
        marked_results(params, copies, model)?
    };
    let written = written_results(params, decoded, copies, model)?;
    let said: Vec<Said> = written
        .into_iter()
        .map(|r| Said {
            how: if r.resigned {
                "written after the last move as a resignation"
            } else {
                "after the last move"
            },
            result: r.result,
            cell: Some(r.cell),
        })
        .chain(marked.into_iter().map(|m| Said {
            result: m.result,
            cell: None,
            how: "marked on the form",
        }))
        .collect();
    match said.as_slice() {
        [] => {
            let words = words_after_game(params, decoded, copies, model.alphabet());
            report.result_note = Some(format!(
                "no mate, no result (1-0, 0-1, 1:0, 0:1, =, ½-½) read after the last move, \
                 and none of the form's printed results marked{}",
                words.unwrap_or_default()
            ))
        }
        [first, rest @ ..] if rest.iter().all(|r| r.result == first.result) => {
            report.result = first.result.clone();
            report.result_from = Some(Source::Sheet);
            report.result_cell = said.iter().find_map(|r| r.cell);
            // A result written after the last move ends the game: it is complete
            // when nothing but the result is written after its last move.
            if let Some(cell) = report.result_cell
                && copies.iter().all(|c| {
                    let used = c.scores.len();
                    result::alone_after_game(decoded, &c.table, used, cell, params.blank_ink)
                })
            {
                report.status = GameStatus::Complete;
            }
            if report.result_cell.is_none() {
                report.result_note =
                    Some("marked on the form's printed results (1-0, ½-½, 0-1)".into());
            }
        }
        _ => {
            let all: Vec<String> = said
                .iter()
                .map(|r| format!("{} {}", r.result, r.how))
                .collect();
            report.result_note = Some(format!(
                "{}{}",
                crate::report::DIFFERENT_RESULTS,
                all.join(" and ")
            ));
        }
    }
    Ok(())
}

/// The results marked among the printed options below each copy's last table.
///
/// # Errors
/// When the model fails.
fn marked_results(
    params: &PipelineParams,
    copies: &[CopyRead],
    model: &mut dyn CellModel,
) -> Result<Vec<result_box::MarkedResult>, SheetError> {
    let mut marked = Vec::new();
    for copy in copies {
        let (Some(page), Some(grid)) = (copy.pages.last(), copy.grids.last()) else {
            continue;
        };
        let floor = params.decode.reading.read_floor;
        let m = result_box::marked_result(&page.image, grid, model, floor).map_err(|source| {
            SheetError::Model {
                path: source_name(&page.source, page.index),
                source,
            }
        })?;
        marked.extend(m);
    }
    Ok(marked)
}

/// The results written after the last move, on each copy: the first inked cell after
/// the game read as a result or a resign word, or, where the reader reads its ink as
/// nothing (small writing, a lone `=`), that cell looked at closer.
///
/// # Errors
/// When the model fails.
fn written_results(
    params: &PipelineParams,
    decoded: &DecodedSheet,
    copies: &[CopyRead],
    model: &mut dyn CellModel,
) -> Result<Vec<result::WrittenResult>, SheetError> {
    let floor = params.decode.reading.read_floor;
    let mut found = Vec::new();
    for copy in copies {
        let used = copy.scores.len();
        let Some(cell) = result::inked_after_game(decoded, &copy.table, used, params.blank_ink)
        else {
            continue;
        };
        let alphabet = model.alphabet();
        let scores = &copy.scores[cell];
        if let Some(r) = result::result_in_cell(decoded, cell, scores, alphabet, floor) {
            found.push(r);
            continue;
        }
        if !alphabet.greedy(scores).is_empty() {
            continue;
        }
        let closer = closer_reading(copy, cell, model)?;
        let alphabet = model.alphabet();
        if let Some(r) =
            closer.and_then(|s| result::result_in_cell(decoded, cell, &s, alphabet, floor))
        {
            found.push(r);
        }
    }
    Ok(found)
}

/// What the note on a sheet that gives no result says of writing after the game that is
/// neither a move nor a result: most often a word (`resigns`, `Mate`); a reader without
/// the resign words' letters does not spell them.
fn words_after_game(
    params: &PipelineParams,
    decoded: &DecodedSheet,
    copies: &[CopyRead],
    alphabet: &crate::model::Alphabet,
) -> Option<String> {
    let words_read = result::reads_words(alphabet);
    copies.iter().find_map(|copy| {
        let used = copy.scores.len();
        let cell = result::inked_after_game(decoded, &copy.table, used, params.blank_ink)?;
        let c = copy.table.cells.get(cell)?;
        let side = if c.side == shakmaty::Color::White {
            "White"
        } else {
            "Black"
        };
        let what = if words_read {
            "neither a move, a result nor a resign word"
        } else {
            "neither a move nor a result (a word such as `resigns`? this reader does not \
             spell words)"
        };
        Some(format!(
            "; the cell after the last move ({}. {side}) holds writing that reads as {what}: \
             see the cell",
            c.move_number
        ))
    })
}

/// A result read in the decoded game's last move's cell ([`result_in_last_move`]): that
/// cell, to end the game before it, and per copy the closer reading of it where that
/// was the one the result was read from.
pub(super) type ResultInLastMove = (usize, Vec<Option<CellScores>>);
