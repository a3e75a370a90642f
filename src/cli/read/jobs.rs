//! One job of `read` -> its outcome: the sheets read (a page, or a game from its
//! copies' sheets), an earlier report's human corrections kept, the report written (or
//! held back for the review budget and copies found by content), what it claims.

use std::path::Path;

use scoresheet::{
    CellModel, Correction, GameInfo, HeaderCorrection, Lookup, Pairings, PgnTags, Pipeline,
    Producer, SheetError, SheetOptions, SheetReport, flag_least_sure, load_page, load_pages,
    open_pages, to_pgn, write_atomic,
};

use super::super::inputs::{Input, Job};
use super::{RoundKey, round_key};

/// What became of one input file.
pub(super) struct Outcome {
    /// PGN of each page read (in page order).
    pub(super) pgn: Vec<String>,
    pub(super) plies: usize,
    pub(super) flagged: usize,
    pub(super) sheets: usize,
    pub(super) errors: Vec<String>,
    pub(super) notes: Vec<String>,
    /// Reports held back until the whole batch is read (a review budget), with
    /// their output stems.
    pub(super) held: Vec<(String, SheetReport)>,
    /// Round and board each report claims, with its source (pairings given).
    pub(super) claims: Vec<((u32, u32), String)>,
    /// Each game's PGN with its place in the round file (`--pgn-out`).
    pub(super) round_pgn: Vec<(RoundKey, String)>,
    /// The sheet read is a continuation sheet printed from this move (its error),
    /// and what its own header says (white, black, board ...).
    pub(super) continues: Option<(u32, GameInfo)>,
}

/// What an earlier report in the output folder holds that a re-run must keep: the
/// human corrections of moves and of headers, and (with move corrections) the heading
/// rows its pages dropped, so that the corrections stay on their cells.
#[derive(Default)]
struct Earlier {
    corrections: Vec<Correction>,
    header_rows: Vec<Option<usize>>,
    headers: Vec<HeaderCorrection>,
}

/// The earlier report of `stem` in the output folder, if any.
///
/// # Errors
/// When a report exists but cannot be read: it must not be overwritten.
fn earlier(out: Option<&Path>, stem: &str) -> anyhow::Result<Earlier> {
    let Some(json) = out.map(|dir| dir.join(format!("{stem}.json"))) else {
        return Ok(Earlier::default());
    };
    if !json.exists() {
        return Ok(Earlier::default());
    }
    let report = SheetReport::load(&json)?;
    let header_rows = if report.corrections.is_empty() {
        Vec::new()
    } else {
        report.header_rows()
    };
    Ok(Earlier {
        corrections: report.corrections,
        header_rows,
        headers: report.header_corrections,
    })
}

/// Stamps and counts one finished report, then writes (or collects) it, or holds it
/// back for the batch's review budget.
fn finish(o: &mut Outcome, mut report: SheetReport, earlier: Earlier, t: &Target) {
    let Earlier {
        corrections,
        headers,
        ..
    } = earlier;
    report.producer = t.batch.producer.clone();
    o.notes
        .extend(kept_note(&report.source, corrections.len(), "correction"));
    report.corrections = corrections;
    if let Some(p) = t.batch.pairings {
        let source = report.source.clone();
        match p.game_for(&[t.stem, &source]) {
            Lookup::Found(game) => {
                if let (Some(r), Some(b)) = (game.round.as_deref().and_then(|r| r.parse().ok()), game.board) {
                    o.claims.push(((r, b), source.clone()));
                }
                report.set_game(game);
            }
            // Held with pairings to place: placed (or warned of) with the batch.
            Lookup::Unnamed if t.batch.hold && !p.games.is_empty() => {}
            Lookup::Unnamed => o.notes.push(format!(
                "{source}: warning: neither the file name (r3b12, 3-12) nor the sheet map names its round and board; headers left unknown"
            )),
            Lookup::NoPairing { round, board, game } => {
                o.notes.push(format!(
                    "{source}: warning: round {round} board {board} is not in the pairings; players and result left unknown"
                ));
                o.claims.push(((round, board), source.clone()));
                report.set_game(game);
            }
        }
    }
    if !headers.is_empty() {
        o.notes.extend(kept_note(
            &report.source,
            headers.len(),
            "header correction",
        ));
        report.header_corrections = headers;
        report.apply_header_corrections();
    }
    o.sheets += 1;
    if t.batch.hold {
        o.held.push((t.stem.to_string(), report));
    } else {
        emit(o, &report, t.stem, t.batch.out, t.batch.round_file);
    }
}

/// `<source>: kept N human <what>s`, when there are some.
fn kept_note(source: &str, n: usize, what: &str) -> Option<String> {
    let s = if n == 1 { "" } else { "s" };
    (n > 0).then(|| format!("{source}: kept {n} human {what}{s}"))
}

/// Counts and writes (or collects) one report; with `round_file`, keeps its PGN for
/// the round file.
pub(super) fn emit(
    o: &mut Outcome,
    report: &SheetReport,
    stem: &str,
    out: Option<&Path>,
    round_file: bool,
) {
    let pgn = to_pgn(report, &PgnTags::default(), &report.producer.tool);
    o.plies += report.summary.plies;
    o.flagged += report.summary.flagged;
    if round_file {
        o.round_pgn.push((round_key(report), pgn.clone()));
    }
    match out {
        Some(dir) => {
            let written =
                write_atomic(&dir.join(format!("{stem}.pgn")), pgn.as_bytes()).and_then(|()| {
                    write_atomic(
                        &dir.join(format!("{stem}.json")),
                        report.to_json().as_bytes(),
                    )
                });
            if let Err(e) = written {
                o.errors.push(e.to_string());
            }
        }
        None => o.pgn.push(pgn),
    }
}

/// Flags the least sure `percent` % of the held reports' moves, records the threshold
/// that came to (so that `fix` re-reads a sheet with it), and writes them.
pub(super) fn release_held(
    outcomes: &mut [Outcome],
    percent: f32,
    out: Option<&Path>,
    round_file: bool,
) {
    let mut held: Vec<Vec<(String, SheetReport)>> = outcomes
        .iter_mut()
        .map(|o| std::mem::take(&mut o.held))
        .collect();
    let mut reports: Vec<SheetReport> = held
        .iter_mut()
        .flat_map(|h| h.iter_mut().map(|(_, r)| std::mem::take(r)))
        .collect();
    let threshold = flag_least_sure(&mut reports, percent);
    let mut reports = reports.into_iter();
    for (o, h) in outcomes.iter_mut().zip(held) {
        for (stem, _) in h {
            let mut report = reports.next().expect("one report per held stem");
            if let Some(s) = report.producer.settings.as_mut() {
                s.review_below = Some(threshold.unwrap_or(1.0));
            }
            emit(o, &report, &stem, out, round_file);
        }
    }
}

pub(super) fn new_outcome() -> Outcome {
    Outcome {
        pgn: Vec::new(),
        plies: 0,
        flagged: 0,
        sheets: 0,
        errors: Vec::new(),
        notes: Vec::new(),
        held: Vec::new(),
        claims: Vec::new(),
        round_pgn: Vec::new(),
        continues: None,
    }
}

fn read_one(
    input: &Input,
    pipeline: &Pipeline,
    model: &mut dyn CellModel,
    batch: &Batch,
) -> Outcome {
    let mut o = new_outcome();
    // Pages come one at a time (a long PDF is never all in memory); a PDF page
    // without an image fails alone and the file's other pages are read.
    let pages = match open_pages(&input.path, &pipeline.params().page) {
        Ok(p) => p,
        Err(e) => {
            o.errors.push(e.to_string());
            return o;
        }
    };
    let what = input.path.display().to_string();
    for page in pages {
        let page = match page {
            Ok(page) => page,
            Err(e) => {
                o.errors.push(e.to_string());
                continue;
            }
        };
        let stem = if page.index == 0 {
            input.stem.clone()
        } else {
            format!("{}_p{}", input.stem, page.index + 1)
        };
        let target = Target {
            stem: &stem,
            what: &what,
            batch,
        };
        read_corrected(&mut o, &target, |options| {
            pipeline
                .read_page(page, model, options)
                .map(|sheet| sheet.report)
        });
    }
    o
}

/// Where the batch's reports go: the output folder (none: PGN on stdout), the
/// producer they are stamped with, and whether they are held back until the whole
/// batch is read (a review budget).
pub(super) struct Batch<'a> {
    pub(super) out: Option<&'a Path>,
    pub(super) producer: &'a Producer,
    pub(super) hold: bool,
    /// The tournament's pairings, when given.
    pub(super) pairings: Option<&'a Pairings>,
    /// Each game's PGN is kept for the round file.
    pub(super) round_file: bool,
}

/// Where one report goes: its output stem and the name used in messages.
struct Target<'a> {
    stem: &'a str,
    what: &'a str,
    batch: &'a Batch<'a>,
}

/// Reads one report with the human corrections its earlier report holds (honoured
/// and carried over) and writes it; a report whose corrections cannot be read is
/// left alone.
fn read_corrected(
    o: &mut Outcome,
    t: &Target,
    read: impl FnOnce(&SheetOptions) -> Result<SheetReport, SheetError>,
) {
    let earlier = match earlier(t.batch.out, t.stem) {
        Ok(c) => c,
        Err(e) => {
            o.errors.push(format!("{}: {e:#}; not overwritten", t.what));
            return;
        }
    };
    let options = SheetOptions {
        locked: scoresheet::corrections::locks(&earlier.corrections),
        header_rows: earlier.header_rows.clone(),
        vocab: t.batch.pairings.map(super::vocab_of).unwrap_or_default(),
    };
    match read(&options) {
        Ok(report) => finish(o, report, earlier, t),
        Err(e) => {
            if let SheetError::Continuation {
                first_move, header, ..
            } = &e
            {
                o.continues = Some((*first_move, (**header).clone()));
            }
            o.errors.push(e.to_string())
        }
    }
}

/// Reads one game from several files (first page of each): its copies, each its
/// sheets in order, into one report.
fn read_game(
    copies: &[Vec<Input>],
    stem: &str,
    pipeline: &Pipeline,
    model: &mut dyn CellModel,
    batch: &Batch,
) -> Outcome {
    let mut o = new_outcome();
    let mut pages = Vec::with_capacity(copies.len());
    for sheets in copies {
        let mut copy = Vec::with_capacity(sheets.len());
        for input in sheets {
            // (A later page of a PDF or TIFF: a copy found by content among its pages.)
            let page = if input.page == 0 {
                load_pages(&input.path, &pipeline.params().page).map(|mut p| p.swap_remove(0))
            } else {
                load_page(&input.path, input.page, &pipeline.params().page)
            };
            match page {
                Ok(p) => copy.push(p),
                Err(e) => o.errors.push(e.to_string()),
            }
        }
        pages.push(copy);
    }
    if !o.errors.is_empty() {
        return o;
    }
    // A single copy is named by its first sheet's file, both copies by the game's stem.
    let what = match copies {
        [one] => one[0].path.display().to_string(),
        _ => stem.to_string(),
    };
    let target = Target {
        stem,
        what: &what,
        batch,
    };
    read_corrected(&mut o, &target, |options| {
        pipeline
            .read_game(pages, model, options)
            .map(|game| game.report)
    });
    o
}

/// Reads one job into the output folder `out` as `read -o` does (a report's human
/// corrections kept, pairings applied): its errors and notes, one line each. The desk
/// reads through here.
pub(in crate::cli) fn read_job(
    job: &Job,
    pipeline: &Pipeline,
    model: &mut dyn CellModel,
    out: &Path,
    producer: &Producer,
    pairings: Option<&Pairings>,
) -> (Vec<String>, Vec<String>) {
    let batch = Batch {
        out: Some(out),
        producer,
        hold: false,
        pairings,
        round_file: false,
    };
    let o = read_any(job, pipeline, model, &batch);
    (o.errors, o.notes)
}

/// Reads one job (a sheet, or a game from several files) into its outcome.
pub(super) fn read_any(
    job: &Job,
    pipeline: &Pipeline,
    model: &mut dyn CellModel,
    batch: &Batch,
) -> Outcome {
    // A fault in reading one sheet is that sheet's error: the batch goes on.
    let read = catch_quietly(|| match job {
        Job::One(input) => read_one(input, pipeline, model, batch),
        Job::Game(copies, stem) => read_game(copies, stem, pipeline, model, batch),
    });
    read.unwrap_or_else(|why| {
        let files: Vec<String> = job
            .inputs()
            .iter()
            .map(|i| i.path.display().to_string())
            .collect();
        let mut o = new_outcome();
        o.errors.push(format!(
            "{}: skipped: an internal error in the reader ({why}); please report it",
            files.join(", ")
        ));
        o
    })
}

thread_local! {
    /// This thread runs a sheet under [`catch_quietly`].
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Where the last quiet panic on this thread happened.
    static PANICKED_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f`; a panic becomes `Err` with its message and place, and Rust's own
/// message and backtrace are not printed (the caller reports it in one line). A
/// panic on any other thread, or outside this, prints as always.
pub(super) fn catch_quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(std::cell::Cell::get) {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()));
                PANICKED_AT.with(|p| *p.borrow_mut() = at);
            } else {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    out.map_err(|fault| {
        let why = fault
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| fault.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        match PANICKED_AT.with(|p| p.borrow_mut().take()) {
            Some(at) => format!("{why}, at {at}"),
            None => why,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::catch_quietly;

    #[test]
    fn a_panic_becomes_one_message_with_its_place() {
        assert_eq!(catch_quietly(|| 7), Ok(7));
        let n = 3;
        let err = catch_quietly(|| -> u8 { panic!("index {n} out of range") }).unwrap_err();
        assert!(err.starts_with("index 3 out of range, at "), "{err}");
        assert!(err.contains("jobs.rs:"), "{err}");
    }
}
