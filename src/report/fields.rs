//! The sheet's header fields as read (`fields`) -> the game's headers: each field's
//! copies combined, doubtful ones flagged, and the value taken into `game` (from
//! `sheet`) where no pairing, players file, sheet map or human gives it; where one
//! does and the sheet says otherwise, both are kept in `game.review`. A result read
//! in the form's result field (or marked among its printed options) is the report's
//! result only where the game itself (a mate, a result written after the last move)
//! says nothing.

use super::{FieldRead, GameInfo, SheetReport, Source};

/// A field read with less confidence than this is flagged for review. Chosen on the
/// generator's tune form families (docs/measurements.md).
pub const FIELD_REVIEW_BELOW: f32 = 0.8;

/// A field read with less confidence than this is not taken into the game's headers
/// (it stays `?`; the field and its candidates are still in `fields`, flagged).
pub const FIELD_COPY_FLOOR: f32 = 0.5;

/// How `result_note` begins where places on the sheet give different results (the
/// result then stays `*`, and the result field does not fill it on a later pass).
pub const DIFFERENT_RESULTS: &str = "the sheet gives different results: ";

/// How sure a result field's reading must be to replace a result marked on the
/// printed options below the table. Chosen on the generator's tune form families
/// (docs/measurements.md).
pub const FIELD_OVER_MARK: f32 = 0.9;

/// The game header fields a sheet may give, in `fields`' names.
const SHEET_FIELDS: [&str; 6] = ["event", "date", "round", "board", "white", "black"];

/// Its words' letters and digits, lower case, the words in order: two spellings of
/// one value compare equal (`Müller, Anna` and `Anna Müller`).
fn key(v: &str) -> String {
    let mut words: Vec<String> = v
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words.sort();
    words.join(" ")
}

/// A field's value over its readings (every copy and sheet): the agreeing value,
/// surer for each reading that agrees (`1 - Π(1 - p)`), or the surest one when they
/// disagree (`true`).
fn combined(fields: &[FieldRead], name: &str) -> Option<(String, f32, bool)> {
    let reads: Vec<(&str, f32)> = fields
        .iter()
        .filter(|f| f.field == name)
        .filter_map(|f| f.value.as_deref().map(|v| (v, f.confidence)))
        .collect();
    let (best, p) = reads.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let agree = reads.iter().all(|(v, _)| key(v) == key(best));
    let p = if agree {
        1.0 - reads.iter().map(|(_, p)| 1.0 - p).product::<f32>()
    } else {
        p
    };
    Some((best.to_string(), p, !agree))
}

impl SheetReport {
    /// Flags the doubtful fields and takes the sheet's values into `game` and the
    /// result where nothing better gives them (see the module's doc). Run again after
    /// the pairings or a human change `game`: a value from the sheet never replaces
    /// another source's.
    pub fn apply_fields(&mut self) {
        if self.fields.is_empty() {
            return;
        }
        for f in &mut self.fields {
            // (A doubtful reading dropped from `value` keeps its confidence.)
            f.review =
                (f.value.is_some() || f.confidence > 0.0) && f.confidence < FIELD_REVIEW_BELOW;
        }
        let mut game = self.game.clone().unwrap_or_default();
        let had_game = self.game.is_some();
        let mut changed = false;
        for name in SHEET_FIELDS.iter().chain(&["result"]) {
            let Some((value, p, disagree)) = combined(&self.fields, name) else {
                continue;
            };
            if disagree {
                let values: Vec<String> = self
                    .fields
                    .iter()
                    .filter(|f| f.field == *name)
                    .filter_map(|f| f.value.clone())
                    .collect();
                for f in self.fields.iter_mut().filter(|f| f.field == *name) {
                    f.review = true;
                }
                game.review.insert(
                    name.to_string(),
                    format!("the sheets say {}", values.join(" / ")),
                );
                changed = true;
            }
            if *name == "result" {
                continue;
            }
            if p < FIELD_COPY_FLOOR {
                continue;
            }
            changed |= take(&mut game, name, &value);
        }
        if changed || had_game {
            self.game = Some(game);
        }
        self.apply_field_result();
    }

    /// The result field's value as the report's result where the game says nothing;
    /// noted where it disagrees with the result kept.
    fn apply_field_result(&mut self) {
        let Some((value, p, _)) = combined(&self.fields, "result") else {
            return;
        };
        // A result marked on the printed options below the table (no cell holds it):
        // a result field read surely enough replaces it (a written `1 - 0` can pass
        // for a row of options); a doubtful one does not (a result field's crop can
        // hold the printed options themselves).
        let over_mark = self.result_from == Some(Source::Sheet)
            && self.result_cell.is_none()
            && p >= FIELD_OVER_MARK;
        let disputed = self
            .result_note
            .as_deref()
            .is_some_and(|n| n.starts_with(DIFFERENT_RESULTS));
        if p >= FIELD_COPY_FLOOR
            && (self.result == "*" || over_mark)
            && !disputed
            && self.result_from != Some(Source::Mate)
        {
            if self.result == "*" {
                self.result_note = Some(format!("{value} read in the form's result field"));
            } else if self.result != value {
                self.result_note = Some(format!(
                    "{value} read in the form's result field, over {} marked on the form",
                    self.result
                ));
            }
            self.result = value.clone();
            self.result_from = Some(Source::Sheet);
            if let Some(g) = self.game.as_mut() {
                g.from.insert("result".into(), Source::Sheet);
            }
        } else if self.result != "*" && value != self.result {
            let note = format!("the form's result field says {value}");
            match &mut self.result_note {
                Some(n) if n.contains(&note) => {}
                Some(n) => *n = format!("{n}; {note}"),
                None => self.result_note = Some(note),
            }
        }
    }
}

/// Puts the sheet's `value` of `name` into `game` where no other source gives it;
/// where one does and the sheet says otherwise, both go into `game.review`. Whether
/// `game` changed.
fn take(game: &mut GameInfo, name: &str, value: &str) -> bool {
    let source = game.from.get(name).copied();
    let current = if name == "board" {
        game.board.map(|b| b.to_string())
    } else {
        game.clone().field_mut(name).and_then(|s| s.take())
    };
    match (source, current) {
        (Some(s), Some(cur)) if s != Source::Sheet => {
            if key(&cur) != key(value) {
                game.review.insert(
                    name.to_string(),
                    format!("the sheet says {value}; the {s} say {cur}"),
                );
                return true;
            }
            false
        }
        // A human cleared it: it stays clear.
        (Some(Source::Human), None) => false,
        _ => {
            if name == "board" {
                let Ok(b) = value.parse() else { return false };
                game.board = Some(b);
                game.from.insert(name.to_string(), Source::Sheet);
            } else {
                game.set(name, value.to_string(), Source::Sheet);
            }
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_made_by_an_edit_is_always_reviewed() {
        // The header reader caps such a date's confidence under this threshold.
        const { assert!(crate::form::values::REPAIRED_MAX < FIELD_REVIEW_BELOW) };
        let mut r = SheetReport {
            result: "*".into(),
            fields: vec![field(
                "date",
                "2016.01.02",
                crate::form::values::REPAIRED_MAX,
                0,
            )],
            ..SheetReport::default()
        };
        r.apply_fields();
        assert!(r.fields[0].review);
    }

    fn field(name: &str, value: &str, p: f32, copy: usize) -> FieldRead {
        FieldRead {
            field: name.into(),
            value: Some(value.into()),
            confidence: p,
            copy,
            ..FieldRead::default()
        }
    }

    #[test]
    fn sheet_values_fill_the_game_and_pairings_win() {
        let mut r = SheetReport {
            result: "*".into(),
            fields: vec![
                field("round", "3", 0.9, 0),
                field("board", "12", 0.95, 0),
                field("white", "Anna Müller", 0.7, 0),
                field("black", "Ivanov", 0.3, 0),
                field("result", "1-0", 0.9, 0),
            ],
            ..SheetReport::default()
        };
        r.apply_fields();
        let g = r.game.clone().expect("a game from the sheet");
        assert_eq!(g.round.as_deref(), Some("3"));
        assert_eq!(g.board, Some(12));
        assert_eq!(g.round_tag(), "3.12");
        assert_eq!(g.from["round"], Source::Sheet);
        assert_eq!(g.white.as_deref(), Some("Anna Müller"));
        assert!(g.black.is_none(), "below the floor: not taken");
        assert!(r.fields[2].review && r.fields[3].review && !r.fields[0].review);
        assert_eq!(r.result, "1-0");
        assert_eq!(r.result_from, Some(Source::Sheet));
        // The pairings give round 4 and the players: they win, the sheet's round is
        // kept for review, the sheet's board stays where the pairings give none.
        r.set_game(GameInfo {
            round: Some("4".into()),
            white: Some("Müller, Anna".into()),
            from: [("round", Source::Pairings), ("white", Source::Pairings)]
                .into_iter()
                .map(|(k, s)| (k.to_string(), s))
                .collect(),
            ..GameInfo::default()
        });
        let g = r.game.clone().expect("game");
        assert_eq!(g.round.as_deref(), Some("4"));
        assert_eq!(g.board, Some(12));
        assert_eq!(g.from["board"], Source::Sheet);
        assert!(
            g.review["round"].contains("the sheet says 3"),
            "{:?}",
            g.review
        );
        assert!(
            !g.review.contains_key("white"),
            "same name, other order: {:?}",
            g.review
        );
    }

    #[test]
    fn copies_that_disagree_are_flagged_and_agreeing_ones_surer() {
        let mut r = SheetReport {
            result: "*".into(),
            fields: vec![
                field("board", "12", 0.7, 0),
                field("board", "12", 0.7, 1),
                field("round", "3", 0.9, 0),
                field("round", "8", 0.6, 1),
            ],
            ..SheetReport::default()
        };
        r.apply_fields();
        let (_, p, disagree) = combined(&r.fields, "board").expect("board");
        assert!(!disagree && (p - 0.91).abs() < 1e-4);
        assert!(r.fields[2].review && r.fields[3].review);
        let g = r.game.expect("game");
        assert_eq!(g.round.as_deref(), Some("3"));
        assert!(g.review["round"].contains("3 / 8"));
    }

    #[test]
    fn a_mate_or_a_written_result_keeps_the_result() {
        let mut r = SheetReport {
            result: "0-1".into(),
            result_from: Some(Source::Mate),
            fields: vec![field("result", "1-0", 0.95, 0)],
            ..SheetReport::default()
        };
        r.apply_fields();
        assert_eq!(r.result, "0-1");
        assert!(
            r.result_note
                .as_deref()
                .unwrap_or("")
                .contains("result field says 1-0")
        );
        let blank = SheetReport {
            result: "*".into(),
            fields: vec![FieldRead {
                field: "white".into(),
                note: Some("nothing written".into()),
                ..FieldRead::default()
            }],
            ..SheetReport::default()
        };
        let mut b = blank.clone();
        b.apply_fields();
        assert_eq!(b.game, None, "a blank field makes no game");
        assert_eq!(b.result, "*");
    }

    #[test]
    fn only_a_sure_result_field_replaces_a_marked_option() {
        // Marked on the printed options below the table (no cell holds it).
        let marked = |field_says: &str, p: f32| SheetReport {
            result: "1-0".into(),
            result_from: Some(Source::Sheet),
            result_note: Some("marked on the form's printed results (1-0, ½-½, 0-1)".into()),
            fields: vec![field("result", field_says, p, 0)],
            ..SheetReport::default()
        };
        let mut doubtful = marked("0-1", FIELD_OVER_MARK - 0.05);
        doubtful.apply_fields();
        assert_eq!(doubtful.result, "1-0");
        let note = doubtful.result_note.clone().unwrap_or_default();
        assert!(note.contains("result field says 0-1"), "{note}");
        let mut sure = marked("0-1", FIELD_OVER_MARK);
        sure.apply_fields();
        assert_eq!(sure.result, "0-1");
        let note = sure.result_note.clone().unwrap_or_default();
        assert!(note.contains("over 1-0 marked"), "{note}");
        // Copies whose results disagree leave `*`: the field does not settle it, on
        // this pass or a later one.
        let mut copies = SheetReport {
            result: "*".into(),
            result_note: Some(format!(
                "{DIFFERENT_RESULTS}1-0 marked on the form and 0-1 marked on the form"
            )),
            fields: vec![field("result", "0-1", 0.95, 0)],
            ..SheetReport::default()
        };
        copies.apply_fields();
        assert_eq!(copies.result, "*");
        copies.apply_fields();
        assert_eq!(copies.result, "*");
    }
}
