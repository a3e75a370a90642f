//! Reports + ground truth -> accuracy figures: per-cell move recognition against
//! labels of what was written, ply accuracy against the true game, games read
//! exactly, review flags, silent errors, and confidence calibration.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::report::SheetReport;

/// Labels of one sheet: (move number, side `white`/`black`) -> what the cell says.
pub type Labels = BTreeMap<(u32, String), String>;

/// What is known to be on one sheet.
#[derive(Clone, Debug, Default)]
pub struct Truth {
    /// Labels of what each filled cell says: (move number, side `white`/`black`) ->
    /// label (HCS `labels.tsv` format).
    pub labels: Labels,
    /// The true game in English SAN, when known.
    pub game: Option<Vec<String>>,
}

/// Errors reading truth files.
#[derive(Debug, thiserror::Error)]
pub enum TruthError {
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{path}:{line}: {reason}")]
    Format {
        path: String,
        line: usize,
        reason: String,
    },
}

/// Truth for one image from the files next to it: `<stem>.tsv` (labels, HCS format)
/// and `<stem>.pgn` (the true game), each optional.
///
/// # Errors
/// When a file is there but cannot be read, is malformed, or holds no game.
pub fn truth_beside(image: &Path) -> Result<Truth, TruthError> {
    let mut truth = Truth::default();
    let tsv = image.with_extension("tsv");
    if tsv.is_file() {
        truth.labels = read_labels(&tsv)?.into_values().flatten().collect();
    }
    let pgn = image.with_extension("pgn");
    if pgn.is_file() {
        let bad = |reason: String| TruthError::Read {
            path: pgn.display().to_string(),
            reason,
        };
        let text = std::fs::read_to_string(&pgn).map_err(|e| bad(e.to_string()))?;
        let game = crate::notation::read_pgn(&text)
            .into_iter()
            .next()
            .ok_or_else(|| bad("no game".into()))?
            .map_err(|e| bad(e.to_string()))?;
        let mut pos = shakmaty::Chess::default();
        let mut sans = Vec::with_capacity(game.moves.len());
        for m in game.moves {
            sans.push(shakmaty::san::San::from_move(&pos, m).to_string());
            shakmaty::Position::play_unchecked(&mut pos, m);
        }
        truth.game = Some(sans);
    }
    Ok(truth)
}

/// Reads a labels file in the HCS format (`page move side label`, tab-separated, one
/// header line) into per-page labels.
///
/// # Errors
/// When the file cannot be read or a line is malformed.
pub fn read_labels(path: &Path) -> Result<BTreeMap<String, Labels>, TruthError> {
    let text = std::fs::read_to_string(path).map_err(|e| TruthError::Read {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    let mut out: BTreeMap<String, Labels> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if i == 0 && line.starts_with("page") || line.trim().is_empty() {
            continue;
        }
        let bad = |reason: &str| TruthError::Format {
            path: path.display().to_string(),
            line: i + 1,
            reason: reason.to_string(),
        };
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 4 {
            return Err(bad("expected 4 tab-separated fields: page move side label"));
        }
        let n: u32 = f[1].parse().map_err(|_| bad("move is not a number"))?;
        if f[2] != "white" && f[2] != "black" {
            return Err(bad("side must be white or black"));
        }
        out.entry(f[0].to_string())
            .or_default()
            .insert((n, f[2].to_string()), f[3].to_string());
    }
    Ok(out)
}

pub use crate::vocab::normalise;

/// Normalised SAN for ply comparison (check marks dropped).
fn san_core(s: &str) -> &str {
    s.trim_end_matches(['+', '#'])
}

/// Figures for one sheet.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SheetEval {
    pub source: String,
    /// Labelled cells, and those whose reading matches the label.
    pub cells: usize,
    pub cells_right: usize,
    /// Labelled cells whose label is a legal move where the game as read stands, and
    /// those of them right (the others are the player's slips, or cells after the game
    /// as read went off).
    pub legal_cells: usize,
    pub legal_cells_right: usize,
    /// Of the legal-label cells, those where the game as read plays the label's move
    /// (whatever the report says the cell shows).
    pub legal_cells_played: usize,
    /// Labelled cells flagged for review, and wrong cells not flagged.
    pub cells_flagged: usize,
    pub cells_silent_errors: usize,
    /// Plies of the true game, and decoded plies equal to them.
    pub plies: usize,
    pub plies_right: usize,
    pub plies_flagged: usize,
    pub plies_silent_errors: usize,
    /// Every labelled cell (or every ply of the true game) right.
    pub exact: bool,
    /// Where the wrong cells come from (see [`ErrorSources`]).
    pub error_sources: ErrorSources,
    /// The same, for the wrong cells not flagged for review.
    pub silent_sources: ErrorSources,
    /// Every wrong labelled cell, in the order of play, with what the tool made of it.
    pub wrong_cells: Vec<WrongCell>,
    /// (confidence, right) for each judged decision, for calibration.
    #[serde(skip)]
    pub confidences: Vec<(f32, bool)>,
}

/// Where the wrong labelled cells of a sheet come from.
///
/// - `missing`: no move was read at that cell (the table was cut short, or the decoder
///   stopped or skipped it);
/// - `player`: the label names no legal move in the game as read up to that cell, and
///   the game as read has followed the labels so far (at every earlier cell whose label
///   named a legal move, that move was played): a recording error of the player (or of
///   the label); a legal-only decoder cannot output it;
/// - `off_game`: the same, after the game as read went another way than a legal label
///   (a misread ply, or the player's own legal slip, moved the game off);
/// - `decoder`: the reader alone read the label, the decoder chose another move;
/// - `reader`: the reader misread the cell (this includes a badly cut cell);
///   `reader_right_move` of them still have the label's move in the game as read (the
///   decoder put it right): only what the report says the cell shows (`written`, or
///   `read` where no form explains the cell) is wrong, not the game.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct ErrorSources {
    pub missing: usize,
    pub player: usize,
    pub off_game: usize,
    pub decoder: usize,
    pub reader: usize,
    pub reader_right_move: usize,
}

/// One wrong labelled cell: the label, what the report shows for the cell, and the
/// source the error is traced to (see [`ErrorSources`]).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WrongCell {
    pub move_number: u32,
    pub side: String,
    pub label: String,
    /// What the report says the cell shows (`written`, else `read`); None when no move
    /// was read at the cell.
    pub shown: Option<String>,
    /// The move the game as read plays there.
    pub san: Option<String>,
    /// The reader's own reading of the cell, without chess knowledge.
    pub read: Option<String>,
    pub confidence: Option<f32>,
    pub flagged: bool,
    /// `reader`, `reader-shown` (a reader error whose move the game as read has right),
    /// `decoder`, `player`, `off-game` or `not-read`.
    pub source: &'static str,
}

impl WrongCell {
    /// The TSV header of [`WrongCell::tsv_row`] (with the sheet first).
    pub const TSV_HEADER: &'static str =
        "sheet\tmove\tside\tlabel\tshown\tsan\tread\tconfidence\tflagged\tsource";

    /// One TSV row (tabs and newlines in texts replaced by spaces; empty where absent).
    pub fn tsv_row(&self, sheet: &str) -> String {
        let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        let opt = |s: &Option<String>| s.as_deref().map(clean).unwrap_or_default();
        [
            clean(sheet),
            self.move_number.to_string(),
            clean(&self.side),
            clean(&self.label),
            opt(&self.shown),
            opt(&self.san),
            opt(&self.read),
            self.confidence
                .map(|c| format!("{c:.3}"))
                .unwrap_or_default(),
            (if self.flagged { "yes" } else { "no" }).to_string(),
            self.source.to_string(),
        ]
        .join("\t")
    }
}

impl ErrorSources {
    /// The name of the one source counted in `self` (a single cell's sources).
    fn name(&self) -> &'static str {
        if self.missing > 0 {
            "not-read"
        } else if self.player > 0 {
            "player"
        } else if self.off_game > 0 {
            "off-game"
        } else if self.decoder > 0 {
            "decoder"
        } else if self.reader_right_move > 0 {
            "reader-shown"
        } else {
            "reader"
        }
    }

    fn add(&mut self, o: &ErrorSources) {
        self.missing += o.missing;
        self.player += o.player;
        self.off_game += o.off_game;
        self.decoder += o.decoder;
        self.reader += o.reader;
        self.reader_right_move += o.reader_right_move;
    }
}

/// The position before each decoded cell of a report and the move the report plays
/// there (if any), by (move number, side).
fn cells_as_read(
    report: &SheetReport,
) -> BTreeMap<(u32, &str), (shakmaty::Chess, Option<shakmaty::Move>)> {
    use shakmaty::Position;
    let mut pos = shakmaty::Chess::default();
    let mut out = BTreeMap::new();
    for m in &report.moves {
        let played = m.san.as_deref().and_then(|san| {
            san.parse::<shakmaty::san::San>()
                .ok()
                .and_then(|s| s.to_move(&pos).ok())
        });
        if m.bbox.is_some() {
            out.insert((m.move_number, m.side.as_str()), (pos.clone(), played));
        }
        if m.san.is_some() {
            match played {
                Some(mv) => pos.play_unchecked(mv),
                None => break,
            }
        }
    }
    out
}

/// What the reader says a cell holds: the written form that explained it, or the
/// unconstrained reading when no legal move did.
fn cell_reading(m: &crate::report::MoveReport) -> &str {
    m.written.as_deref().unwrap_or(&m.read)
}

/// Compares one report with the truth.
pub fn evaluate(report: &SheetReport, truth: &Truth) -> SheetEval {
    let mut e = SheetEval {
        source: report.source.clone(),
        ..Default::default()
    };
    let by_cell: BTreeMap<(u32, &str), &crate::report::MoveReport> = report
        .moves
        .iter()
        .filter(|m| m.bbox.is_some())
        .map(|m| ((m.move_number, m.side.as_str()), m))
        .collect();
    let use_cells_for_calibration = truth.game.is_none();
    let notation = report.notation.parse::<crate::notation::Notation>().ok();
    let as_read = cells_as_read(report);
    // In the order of play, so that a cell knows whether the game as read still
    // followed the labels before it.
    let mut labels: Vec<(&(u32, String), &String)> = truth.labels.iter().collect();
    labels.sort_by_key(|((n, side), _)| (*n, side != "white"));
    let mut off_game = false;
    for ((n, side), label) in labels {
        e.cells += 1;
        let m = by_cell.get(&(*n, side.as_str()));
        let right = m.is_some_and(|m| normalise(cell_reading(m)) == normalise(label));
        let cell = as_read.get(&(*n, side.as_str()));
        let parsed = notation
            .zip(cell)
            .map(|(nt, (pos, _))| crate::notation::parse_move(pos, label, nt));
        // (An under-disambiguated label, `Nd2` for `Nbd2`, names legal moves.)
        let legal = matches!(
            parsed,
            Some(Ok(_) | Err(crate::notation::MoveTextError::Ambiguous { .. }))
        );
        // Whether the game as read plays the label's move (where both are known).
        let plays_label = match (&parsed, cell) {
            (Some(Ok(want)), Some((_, played))) => Some(played.as_ref() == Some(want)),
            _ => None,
        };
        let was_off_game = off_game;
        off_game |= plays_label == Some(false);
        e.legal_cells += usize::from(legal);
        e.legal_cells_right += usize::from(legal && right);
        e.legal_cells_played += usize::from(plays_label.unwrap_or(legal && right));
        let flagged = m.is_none_or(|m| m.review);
        if !right {
            let mut src = ErrorSources::default();
            match m {
                None => src.missing += 1,
                Some(m) => {
                    if !legal && notation.is_some() {
                        if was_off_game {
                            src.off_game += 1;
                        } else {
                            src.player += 1;
                        }
                    } else if normalise(&m.read) == normalise(label) {
                        src.decoder += 1;
                    } else {
                        src.reader += 1;
                        src.reader_right_move += usize::from(plays_label == Some(true));
                    }
                }
            }
            e.error_sources.add(&src);
            if !flagged {
                e.silent_sources.add(&src);
            }
            e.wrong_cells.push(WrongCell {
                move_number: *n,
                side: side.clone(),
                label: label.clone(),
                shown: m.map(|m| cell_reading(m).to_string()),
                san: m.and_then(|m| m.san.clone()),
                read: m.map(|m| m.read.clone()),
                confidence: m.map(|m| m.confidence),
                flagged,
                source: src.name(),
            });
        }
        e.cells_right += usize::from(right);
        e.cells_flagged += usize::from(flagged);
        e.cells_silent_errors += usize::from(!right && !flagged);
        if use_cells_for_calibration {
            e.confidences.push((m.map_or(0.0, |m| m.confidence), right));
        }
    }
    if let Some(game) = &truth.game {
        let decoded: Vec<&crate::report::MoveReport> =
            report.moves.iter().filter(|m| m.ply.is_some()).collect();
        for (i, want) in game.iter().enumerate() {
            e.plies += 1;
            let got = decoded.get(i);
            let right = got
                .and_then(|m| m.san.as_deref())
                .is_some_and(|s| san_core(s) == san_core(want));
            let flagged = got.is_none_or(|m| m.review);
            e.plies_right += usize::from(right);
            e.plies_flagged += usize::from(flagged);
            e.plies_silent_errors += usize::from(!right && !flagged);
            e.confidences
                .push((got.map_or(0.0, |m| m.confidence), right));
        }
        e.exact = e.plies > 0 && e.plies_right == e.plies;
    } else {
        e.exact = e.cells > 0 && e.cells_right == e.cells;
    }
    e
}

mod summary;

pub use summary::{BUDGETS, Summary, summarize};

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::MoveReport;

    fn mv(
        n: u32,
        side: &str,
        ply: u32,
        san: &str,
        written: &str,
        review: bool,
        conf: f32,
    ) -> MoveReport {
        MoveReport {
            ply: Some(ply),
            move_number: n,
            side: side.into(),
            san: Some(san.into()),
            written: Some(written.into()),
            read: written.into(),
            confidence: conf,
            review,
            state: crate::report::MoveState::Ok,
            bbox: Some([0, 0, 1, 1]),
            alternatives: vec![],
            ..Default::default()
        }
    }

    #[test]
    fn normalise_ignores_decorations_scripts_and_castling_zeros() {
        let cases = [
            ("Nxf3+", "Nf3"),
            ("Кf3", "Kf3"),
            ("0-0", "OO"),
            ("O-O-O#", "OOO"),
            ("Кg8-f6", "Kg8f6"),
            ("exd6 e.p.", "ed6"),
            ("e8=Q", "e8Q"),
            ("e4e5(=)", "e4e5"),
        ];
        for (input, want) in cases {
            assert_eq!(normalise(input), want, "{input}");
        }
    }

    #[test]
    fn cells_and_plies_are_scored_and_silent_errors_counted() {
        let report = SheetReport {
            moves: vec![
                mv(1, "white", 1, "e4", "e4", false, 0.99),
                mv(1, "black", 2, "e5", "e5", false, 0.9),
                mv(2, "white", 3, "Nf3", "Nf3", true, 0.4),
            ],
            ..Default::default()
        };
        let mut truth = Truth::default();
        truth.labels.insert((1, "white".into()), "e4".into());
        truth.labels.insert((1, "black".into()), "c5".into());
        truth.labels.insert((2, "white".into()), "Nf3+".into());
        truth.game = Some(vec!["e4".into(), "c5".into(), "Nf3".into()]);
        let e = evaluate(&report, &truth);
        assert_eq!(
            (
                e.cells,
                e.cells_right,
                e.cells_flagged,
                e.cells_silent_errors
            ),
            (3, 2, 1, 1)
        );
        assert_eq!((e.plies, e.plies_right, e.plies_silent_errors), (3, 2, 1));
        assert!(!e.exact);
        // c5 was legal where the game stood and the reader did not see it: a reader error.
        assert_eq!(
            e.error_sources,
            ErrorSources {
                reader: 1,
                ..Default::default()
            }
        );
        let s = summarize(&[e], 0);
        assert!((s.cell_accuracy - 2.0 / 3.0).abs() < 1e-9);
        assert!((s.silent_errors - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(s.calibration.iter().map(|b| b.1).sum::<usize>(), 3);
    }

    #[test]
    fn wrong_cells_are_traced_to_player_decoder_or_reader() {
        let mut decoder_pick = mv(2, "white", 3, "Nc3", "Nc3", true, 0.5);
        decoder_pick.read = "Nf3".into();
        let report = SheetReport {
            notation: "en".into(),
            moves: vec![
                mv(1, "white", 1, "e4", "e4", false, 0.99),
                mv(1, "black", 2, "e5", "e5", false, 0.9),
                decoder_pick,
                mv(2, "black", 4, "Nc6", "Nc6", false, 0.9),
            ],
            ..Default::default()
        };
        let mut truth = Truth::default();
        truth.labels.insert((1, "white".into()), "e4".into());
        truth.labels.insert((1, "black".into()), "e6".into()); // legal, misread
        truth.labels.insert((2, "white".into()), "Nf3".into()); // read, not chosen
        truth.labels.insert((2, "black".into()), "Qe4".into()); // illegal as written
        truth.labels.insert((3, "white".into()), "d4".into()); // never read
        let e = evaluate(&report, &truth);
        // (Qe4 comes after the game as read went another way than e6: off-game.)
        assert_eq!(
            e.error_sources,
            ErrorSources {
                missing: 1,
                player: 0,
                off_game: 1,
                decoder: 1,
                reader: 1,
                reader_right_move: 0,
            }
        );
        // Only the decoder's pick was flagged; a cell never read counts as flagged.
        assert_eq!(
            e.silent_sources,
            ErrorSources {
                off_game: 1,
                reader: 1,
                ..Default::default()
            }
        );
        let sources: Vec<&str> = e.wrong_cells.iter().map(|w| w.source).collect();
        assert_eq!(sources, ["reader", "decoder", "off-game", "not-read"]);
        // e4, e6 and Nf3 are legal where they stand (only e4 right); Qe4 is not, and
        // d4's cell was never read.
        assert_eq!((e.legal_cells, e.legal_cells_right), (3, 1));
        let s = summarize(&[e], 0);
        assert!((s.legal_cell_accuracy - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(s.other_cell_accuracy, 0.0);
    }

    #[test]
    fn an_illegal_label_is_the_players_until_the_game_as_read_leaves_the_labels() {
        let report = SheetReport {
            notation: "en".into(),
            moves: vec![
                mv(1, "white", 1, "e4", "e4", false, 0.99),
                mv(1, "black", 2, "e5", "e5", false, 0.9),
                mv(2, "white", 3, "Nf3", "Nf3", false, 0.9),
                mv(2, "black", 4, "Nc6", "Nc6", false, 0.9),
                mv(3, "white", 5, "Bc4", "Bc4", false, 0.9),
            ],
            ..Default::default()
        };
        let mut truth = Truth::default();
        // Labels in any order: the cells are judged in the order of play.
        truth.labels.insert((3, "white".into()), "Qxf7".into()); // illegal, off the labels
        truth.labels.insert((2, "black".into()), "Nf6".into()); // legal, not played
        truth.labels.insert((2, "white".into()), "Nf6".into()); // illegal: White's slip
        truth.labels.insert((1, "black".into()), "e5".into());
        truth.labels.insert((1, "white".into()), "e4".into());
        let e = evaluate(&report, &truth);
        assert_eq!(
            e.error_sources,
            ErrorSources {
                player: 1,
                off_game: 1,
                reader: 1,
                ..Default::default()
            }
        );
        let sources: Vec<(u32, &str, &str)> = e
            .wrong_cells
            .iter()
            .map(|w| (w.move_number, w.side.as_str(), w.source))
            .collect();
        assert_eq!(
            sources,
            [
                (2, "white", "player"),
                (2, "black", "reader"),
                (3, "white", "off-game")
            ]
        );
    }

    #[test]
    fn a_misread_cell_whose_move_the_game_has_right_is_told_apart() {
        // 1... e5 is played and labelled, but its cell is shown as the reading `e3`
        // (no form explains it); 2. Nf3 is labelled, Nc3 played.
        let mut misshown = mv(1, "black", 2, "e5", "e5", true, 0.7);
        (misshown.written, misshown.read) = (None, "e3".into());
        let mut wrong = mv(2, "white", 3, "Nc3", "Nc3", true, 0.6);
        wrong.read = "Nd3".into();
        let report = SheetReport {
            notation: "en".into(),
            moves: vec![mv(1, "white", 1, "e4", "e4", false, 0.99), misshown, wrong],
            ..Default::default()
        };
        let mut truth = Truth::default();
        truth.labels.insert((1, "white".into()), "e4".into());
        truth.labels.insert((1, "black".into()), "e5".into());
        truth.labels.insert((2, "white".into()), "Nf3".into());
        let e = evaluate(&report, &truth);
        assert_eq!(
            e.error_sources,
            ErrorSources {
                reader: 2,
                reader_right_move: 1,
                ..Default::default()
            }
        );
        // All three labels are legal where they stand; e4 and e5 are played.
        assert_eq!(
            (e.legal_cells, e.legal_cells_right, e.legal_cells_played),
            (3, 1, 2)
        );
        // The wrong cells are listed in the order of play, each with its source.
        let listed: Vec<_> = e
            .wrong_cells
            .iter()
            .map(|w| {
                (
                    w.move_number,
                    w.side.as_str(),
                    w.label.as_str(),
                    w.shown.as_deref(),
                    w.san.as_deref(),
                    w.source,
                )
            })
            .collect();
        assert_eq!(
            listed,
            [
                (1, "black", "e5", Some("e3"), Some("e5"), "reader-shown"),
                (2, "white", "Nf3", Some("Nc3"), Some("Nc3"), "reader"),
            ]
        );
        assert_eq!(
            e.wrong_cells[1].tsv_row("a\tb.jpg"),
            "a b.jpg\t2\twhite\tNf3\tNc3\tNc3\tNd3\t0.600\tyes\treader"
        );
    }

    #[test]
    fn missing_cells_count_as_wrong_and_flagged() {
        let report = SheetReport::default();
        let mut truth = Truth::default();
        truth.labels.insert((1, "white".into()), "d4".into());
        let e = evaluate(&report, &truth);
        assert_eq!(
            (
                e.cells,
                e.cells_right,
                e.cells_flagged,
                e.cells_silent_errors
            ),
            (1, 0, 1, 0)
        );
        assert_eq!(
            e.wrong_cells,
            [WrongCell {
                move_number: 1,
                side: "white".into(),
                label: "d4".into(),
                flagged: true,
                source: "not-read",
                ..Default::default()
            }]
        );
    }
}
