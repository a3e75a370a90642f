//! A search trace -> the decoded sheet: the best line's entries with SAN, the written
//! form that explains each cell, what the cell reads, the posterior confidence among
//! the beam's alternatives, review flags and the game status.

use std::collections::HashMap;

use shakmaty::{Chess, Move, Position, san::SanPlus};

use super::evidence::{Evidence, Workspace};
use super::posterior::SheetPosterior;
use super::state::{Node, Trace};
use super::{DecodeParams, DecodedSheet, Entry, EntryKind, GameStatus, RunnerUp};
use crate::notation::{ANNOTATIONS, Notation, Style, forms, read_written};
use crate::vocab::Alphabet;
use crate::vocab::calibration::{self, Calibration};

/// Alternatives below this confidence are not listed.
const MIN_ALTERNATIVE: f32 = 0.005;
/// At most this many alternatives per entry.
const MAX_ALTERNATIVES: usize = 3;

/// SAN of `m` in `pos` when legal there, else its long algebraic form.
fn name(pos: &Chess, m: Move) -> String {
    if pos.is_legal(m) {
        SanPlus::from_move(pos.clone(), m).to_string()
    } else {
        m.to_string()
    }
}

/// The written form of `m` (display letters) that best explains the cell, if the cell
/// shows the move: the form comes within `params.review.written_floor` (per copy) of the
/// cell's best reading, or (within the escape penalties) the cell reads as no move at
/// all, so a misread form of this move is still the best account of it. Returns the
/// form shown (chosen with `params.review.form_penalty`, and `long_bonus` nats per copy in
/// favour of a form with the full origin square) and the best-scoring form with its
/// style.
#[allow(clippy::too_many_arguments)]
fn best_written(
    ev: &Evidence,
    ws: &mut Workspace,
    pos: &Chess,
    m: Move,
    n: Notation,
    alphabet: &Alphabet,
    params: &DecodeParams,
    long_bonus: f32,
) -> Option<(String, String, Style)> {
    // (Scores add up over the copies of a two-copy game.)
    let copies = ev.copies() as f32;
    let forms = forms(pos, m, n);
    // The form shown is chosen with the penalty; whether the cell shows the move at
    // all, with the best form's own score.
    let mut chosen: Option<(f32, &str)> = None;
    let mut best: Option<(f32, &str, Style)> = None;
    for f in &forms {
        let s = ev.text_score(&f.glyph, alphabet, ws);
        if best.is_none_or(|(b, _, _)| s >= b) {
            best = Some((s, &f.display, f.style));
        }
        let penalty = match f.style {
            Style::Over | Style::Under => params.review.form_penalty * copies,
            Style::Long => -long_bonus * copies,
            _ => 0.0,
        };
        if chosen.is_none_or(|(b, _)| s - penalty >= b) {
            chosen = Some((s - penalty, &f.display));
        }
    }
    if best.is_some_and(|(s, _, _)| s < -params.review.written_floor * copies) {
        // A form may be followed by an evaluation or draw-offer mark (rare: only
        // asked when the bare forms fall short).
        for f in &forms {
            for a in &ANNOTATIONS[1..] {
                let s = ev.text_score(&format!("{}{a}", f.glyph), alphabet, ws);
                if best.is_none_or(|(b, _, _)| s > b) {
                    best = Some((s, &f.display, f.style));
                    chosen = Some((s, &f.display));
                }
            }
        }
    }
    let (score, display, style) = best?;
    let shows = score >= -params.review.written_floor * copies
        || (score
            > -params
                .escapes
                .replace_penalty
                .max(params.escapes.skip_penalty)
                * copies
            && read_written(&ev.greedy, n).is_none());
    let shown = chosen.map_or(display, |(_, d)| d);
    shows.then(|| (shown.to_string(), display.to_string(), style))
}

/// How much more a form with the full origin square (`Лd1d5`, `e2e4`) is worth, in
/// nats, when the sheet's writer writes such forms: `weight` times the log-odds of
/// long to short, over the cells whose best form is one or the other; 0 unless long
/// forms are the majority. The reader often drops the small origin rank of a long
/// form (`Лd1d5` read as `Rdd5`); a writer who writes long forms writes them nearly
/// always.
fn long_style_bonus(styles: &[Style], weight: f32) -> f32 {
    let long = styles.iter().filter(|s| **s == Style::Long).count() as f32;
    let short = styles
        .iter()
        .filter(|s| matches!(s, Style::Short | Style::Over | Style::Under))
        .count() as f32;
    (weight * ((long + 1.0) / (short + 1.0)).ln()).max(0.0)
}

/// A human should look at an entry that is not a move read from its cell (a skip, a
/// replaced or an assumed move), at a move read from a cell that shows something
/// else (the player's slip or a misreading), and at an unsure one. Never at a move a
/// human fixed.
fn needs_review(kind: EntryKind, confidence: f32, shown: bool, below: f32) -> bool {
    match kind {
        EntryKind::Locked => false,
        EntryKind::Read => !shown || confidence < below,
        _ => true,
    }
}

/// Replaces the beam's shares by calibrated confidences (locked entries aside) and
/// flags again with them. The alternatives share what the chosen move leaves, in the
/// proportions of their posterior shares, and none is put above the chosen move: one
/// scale for the move and its alternatives.
fn calibrate(entries: &mut [Entry], same_reading: &[bool], cal: &Calibration, below: f32) {
    let doubts: Vec<f32> = entries
        .iter()
        .filter(|e| e.cell.is_some() && e.kind != EntryKind::Locked)
        .map(|e| calibration::log_doubt(e.confidence))
        .collect();
    let sheet = if doubts.is_empty() {
        0.0
    } else {
        doubts.iter().sum::<f32>() / doubts.len() as f32
    };
    for (e, &same) in entries.iter_mut().zip(same_reading) {
        if e.kind == EntryKind::Locked {
            continue;
        }
        let shown = e.written.is_some();
        e.confidence = cal.apply(e.confidence, shown, same, e.cell_p, sheet);
        e.review = needs_review(e.kind, e.confidence, shown, below);
        rescale_alternatives(&mut e.alternatives, e.share, e.confidence);
    }
}

/// Maps alternatives' posterior shares (beside the chosen move's `share`) onto the
/// scale of the chosen move's calibrated `confidence`: together they take what it
/// leaves, `1 - confidence`, in their own proportions, each at most `confidence`;
/// those that fall below [`MIN_ALTERNATIVE`] are dropped.
fn rescale_alternatives(alternatives: &mut Vec<RunnerUp>, share: f32, confidence: f32) {
    let rest = (1.0 - share).max(0.0);
    let room = (1.0 - confidence).max(0.0);
    for a in alternatives.iter_mut() {
        let scaled = if rest > 0.0 {
            a.confidence / rest * room
        } else {
            0.0
        };
        a.confidence = scaled.min(confidence).min(room);
    }
    alternatives.retain(|a| a.confidence >= MIN_ALTERNATIVE);
}

/// The reader's own probability that the cell says the entry's move
/// ([`Entry::cell_p`]); `None` for an entry that reads no move from its cell.
fn cell_p(kind: EntryKind, mv: Option<Move>, cell_evidence: f32, ev: &Evidence) -> Option<f32> {
    match (kind, mv) {
        (EntryKind::Read | EntryKind::Locked, Some(_)) => {
            // To 3 decimals, as the report gives it and the calibration was fitted.
            let p = (cell_evidence - ev.any_text()).exp().clamp(0.0, 1.0);
            Some((p * 1000.0).round() / 1000.0)
        }
        _ => None,
    }
}

/// Chooses the written form shown again for the cells that show their move
/// (`shown_at`: entry, cell, position, move), with `bonus` nats for long forms.
#[allow(clippy::too_many_arguments)]
fn show_in_writer_style(
    entries: &mut [Entry],
    shown_at: Vec<(usize, usize, Chess, Move)>,
    bonus: f32,
    evidence: &[Evidence],
    ws: &mut Workspace,
    n: Notation,
    alphabet: &Alphabet,
    params: &DecodeParams,
) {
    for (i, step, pos, m) in shown_at {
        let ev = &evidence[step];
        ws.bind(step, ev);
        if let Some((w, _, _)) = best_written(ev, ws, &pos, m, n, alphabet, params, bonus) {
            entries[i].written = Some(w);
        }
    }
}

/// The best line's history nodes, from the first cell on, and which move each of its
/// replaced or assumed entries turned out to be (by node, with its share).
fn best_line(trace: &Trace) -> (Vec<u32>, HashMap<u32, (Move, f32)>) {
    let mut path = Vec::new();
    let mut node = trace.best_hist;
    while node != 0 {
        path.push(node);
        node = trace.hist[node as usize].parent;
    }
    path.reverse();
    let resolved = path
        .iter()
        .filter_map(|&id| match trace.hist[id as usize].node {
            Node::Resolve { target, mv, share } => Some((target, (mv, share))),
            _ => None,
        })
        .collect();
    (path, resolved)
}

/// Partial when cells after the game's last move were skipped, else complete.
fn status_of(entries: &[Entry]) -> GameStatus {
    let last_move_cell = entries
        .iter()
        .filter(|e| e.ply.is_some())
        .filter_map(|e| e.cell)
        .max();
    let trailing_skips = entries
        .iter()
        .any(|e| e.ply.is_none() && e.cell.is_some_and(|c| last_move_cell.is_none_or(|l| c > l)));
    if trailing_skips {
        GameStatus::Partial
    } else {
        GameStatus::Complete
    }
}

/// The decoded sheet of a search: the best line's entries with their written forms,
/// confidences, runners-up and review flags.
pub(crate) fn explain(
    trace: &Trace,
    evidence: &mut [Evidence],
    ws: &mut Workspace,
    n: Notation,
    params: &DecodeParams,
    alphabet: &Alphabet,
    end: usize,
) -> DecodedSheet {
    let (path, resolved) = best_line(trace);

    let sheet_posterior = SheetPosterior::new(trace);
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    let mut entries = Vec::with_capacity(path.len());
    // Per entry: its written form is the cell's own reading (for calibration).
    let mut same_reading: Vec<bool> = Vec::with_capacity(path.len());
    // The style of each shown cell's best form, and where those cells are (entry,
    // cell, position, move), to choose the forms shown again in the writer's style.
    let mut styles = Vec::new();
    let mut shown_at = Vec::new();
    for &id in &path {
        let h = trace.hist[id as usize];
        let Node::Entry {
            kind,
            mv,
            evidence: cell_evidence,
        } = h.node
        else {
            continue;
        };
        let step = h.step as usize;
        let unknown = matches!(kind, EntryKind::Replaced | EntryKind::Assumed);
        let (mv, mut confidence, mut others) = if unknown {
            let (m, share) = resolved
                .get(&id)
                .copied()
                .expect("every unknown move on the best line is settled");
            (Some(m), share, Vec::new())
        } else {
            let (c, o) = sheet_posterior.at(step, mv, MIN_ALTERNATIVE, MAX_ALTERNATIVES);
            (mv, c, o)
        };
        let ev = &evidence[step];
        ws.bind(step, ev);
        let (written, best_form) = match (kind, mv) {
            (EntryKind::Read | EntryKind::Locked, Some(m)) => {
                match best_written(ev, ws, &pos, m, n, alphabet, params, 0.0) {
                    Some((w, b, style)) => {
                        styles.push(style);
                        shown_at.push((entries.len(), step, pos.clone(), m));
                        (Some(w), Some(b))
                    }
                    None => (None, None),
                }
            }
            _ => (None, None),
        };
        let read = if kind == EntryKind::Assumed {
            String::new()
        } else {
            ev.read(n)
        };
        if kind == EntryKind::Locked {
            // A human's move is certain: no other move keeps any probability.
            confidence = 1.0;
            others.clear();
        }
        let cell_p = cell_p(kind, mv, cell_evidence, ev);
        same_reading.push(
            best_form
                .as_deref()
                .is_some_and(|w| calibration::same_reading(w, &ev.greedy)),
        );
        let review = needs_review(
            kind,
            confidence,
            written.is_some(),
            params.review.review_below,
        );
        let alternatives = others
            .into_iter()
            .map(|(m, c)| RunnerUp {
                san: name(&pos, m),
                confidence: c,
            })
            .collect();
        let (san, ply) = match mv {
            Some(m) => {
                let san = SanPlus::from_move(pos.clone(), m).to_string();
                pos.play_unchecked(m);
                moves.push(m);
                (Some(san), Some(moves.len() - 1))
            }
            None => (None, None),
        };
        entries.push(Entry {
            cell: (kind != EntryKind::Assumed).then_some(step),
            ply,
            kind,
            san,
            written,
            best_form,
            read,
            confidence,
            share: confidence,
            review,
            evidence: cell_evidence,
            cell_p,
            alternatives,
        });
    }
    let bonus = long_style_bonus(&styles, params.review.long_style);
    if bonus > 0.0 {
        show_in_writer_style(
            &mut entries,
            shown_at,
            bonus,
            evidence,
            ws,
            n,
            alphabet,
            params,
        );
    }
    if let Some(cal) = &params.review.calibration {
        calibrate(&mut entries, &same_reading, cal, params.review.review_below);
    }

    let status = status_of(&entries);
    let best_path: f64 = evidence[..end].iter().map(Evidence::best_path).sum();
    DecodedSheet {
        notation: n,
        status,
        moves,
        entries,
        cells_used: end,
        log_likelihood: trace.score + best_path,
        notation_scores: Vec::new(),
        lock_conflicts: trace.lock_conflicts.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: EntryKind, confidence: f32, written: Option<&str>) -> Entry {
        Entry {
            cell: (kind != EntryKind::Assumed).then_some(0),
            ply: None,
            kind,
            san: None,
            written: written.map(str::to_string),
            best_form: written.map(str::to_string),
            read: "Nf3".into(),
            confidence,
            share: confidence,
            review: false,
            evidence: 0.0,
            cell_p: (kind == EntryKind::Read).then_some(0.9),
            alternatives: Vec::new(),
        }
    }

    #[test]
    fn calibration_maps_confidences_and_flags_again_but_never_a_locked_move() {
        let cal = Calibration {
            cell_log_p: 0.2,
            ..Calibration::sample()
        };
        let mut entries = vec![
            entry(EntryKind::Read, 1.0, Some("Nf3")),
            entry(EntryKind::Read, 0.95, Some("Nf3")),
            entry(EntryKind::Read, 1.0, None),
            entry(EntryKind::Locked, 1.0, Some("Nf3")),
            entry(EntryKind::Skipped, 0.5, None),
            entry(EntryKind::Assumed, 0.9, None),
        ];
        let same = [true, false, false, true, false, false];
        calibrate(&mut entries, &same, &cal, cal.review_below);
        // The sheet's doubt: cells only, the locked one aside.
        let sheet = [1.0, 0.95, 1.0, 0.5]
            .map(calibration::log_doubt)
            .iter()
            .sum::<f32>()
            / 4.0;
        let want = [
            cal.apply(1.0, true, true, Some(0.9), sheet),
            cal.apply(0.95, true, false, Some(0.9), sheet),
            cal.apply(1.0, false, false, Some(0.9), sheet),
            1.0,
            cal.apply(0.5, false, false, None, sheet),
            cal.apply(0.9, false, false, None, sheet),
        ];
        for (e, w) in entries.iter().zip(want) {
            assert!(
                (e.confidence - w).abs() < 1e-6,
                "{:?}: {} vs {w}",
                e.kind,
                e.confidence
            );
        }
        let review: Vec<bool> = entries.iter().map(|e| e.review).collect();
        // Read as written and sure: no flag; read otherwise: flagged under 0.89; no
        // written form, a skip or an assumed move: always; a locked move: never.
        assert!(entries[0].confidence >= 0.89);
        assert_eq!(review[..1], [false]);
        assert_eq!(review[1], entries[1].confidence < 0.89);
        assert_eq!(review[2..], [true, false, true, true]);
    }

    #[test]
    fn the_long_style_bonus_counts_long_against_short_forms_only() {
        use Style::*;
        // 9 long, 1 short (castling and terse captures aside): ln(10 / 2).
        let mut styles = vec![Long; 9];
        styles.extend([Short, Castle, Castle, Terse]);
        assert!((long_style_bonus(&styles, 1.0) - 5f32.ln()).abs() < 1e-6);
        assert!((long_style_bonus(&styles, 0.5) - 0.5 * 5f32.ln()).abs() < 1e-6);
        // A writer of short forms (over- and under-disambiguated ones count as short)
        // gets nothing, nor does a sheet with no forms.
        assert_eq!(long_style_bonus(&[Short, Over, Under, Long], 1.0), 0.0);
        assert_eq!(long_style_bonus(&[], 1.0), 0.0);
    }
}
