//! A human's corrections of a game's headers (names, round, board, result, ...) ->
//! the report's `game` object: checked, recorded in `header_corrections`, and applied
//! again after every re-read, so that a re-run never loses them.

use serde::{Deserialize, Serialize};

use super::{GameInfo, SheetReport, Source};

/// The header fields a human may correct (the `game` object's names).
pub const HEADER_FIELDS: [&str; 12] = [
    "event",
    "site",
    "date",
    "round",
    "board",
    "white",
    "black",
    "white_elo",
    "black_elo",
    "white_fide_id",
    "black_fide_id",
    "result",
];

/// A human's correction of one header field.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct HeaderCorrection {
    /// One of [`HEADER_FIELDS`].
    pub field: String,
    /// The value set (empty: the field cleared).
    pub value: String,
    /// The value before.
    pub previous: Option<String>,
    pub by: String,
    pub at: String,
}

/// A result as people write it -> PGN (`1-0`, `0-1`, `1/2-1/2`, `*`); forfeits
/// (`+:-`, `+/-`) count as wins. `None` for anything else.
pub fn normalise_result(text: &str) -> Option<String> {
    let t: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .replace(['–', '—', ':', '/'], "-")
        .replace('½', "0.5")
        .replace(',', ".");
    let r = match t.to_lowercase().as_str() {
        "1-0" | "+-" | "+--" | "1-0f" | "1-0ff" => "1-0",
        "0-1" | "-+" | "--+" | "0-1f" | "0-1ff" => "0-1",
        "0.5-0.5" | ".5-.5" | "1-2-1-2" | "=-=" | "=" | "remis" | "draw" => "1/2-1/2",
        "*" => "*",
        _ => return None,
    };
    Some(r.to_string())
}

/// `value` as field `field` holds it, or why it cannot.
fn checked(field: &str, value: &str) -> Result<String, String> {
    let v = value.trim();
    if v.is_empty() {
        return Ok(String::new());
    }
    match field {
        "result" => {
            normalise_result(v).ok_or_else(|| format!("result `{v}`: give 1-0, 0-1, 1/2-1/2 or *"))
        }
        "board" | "white_elo" | "black_elo" | "white_fide_id" | "black_fide_id" => v
            .parse::<u64>()
            .map(|n| n.to_string())
            .map_err(|_| format!("{field} `{v}`: not a number")),
        _ if HEADER_FIELDS.contains(&field) => Ok(v.to_string()),
        _ => Err(format!(
            "`{field}` is no header field (one of {})",
            HEADER_FIELDS.join(", ")
        )),
    }
}

impl SheetReport {
    /// Sets header `field` to `value` for a human (`by`, at `at`) and records it; a
    /// later correction of the same field replaces the earlier one.
    ///
    /// # Errors
    /// An unknown field, a board, rating or FIDE id that is not a number, or a result
    /// that is none of `1-0`, `0-1`, `1/2-1/2`, `*` (as pairing tables write them).
    pub fn correct_header(
        &mut self,
        field: &str,
        value: &str,
        by: &str,
        at: &str,
    ) -> Result<(), String> {
        let value = checked(field, value)?;
        let previous = self.header_value(field);
        self.header_corrections.retain(|c| c.field != field);
        self.header_corrections.push(HeaderCorrection {
            field: field.to_string(),
            value,
            previous,
            by: by.to_string(),
            at: at.to_string(),
        });
        self.apply_header_corrections();
        Ok(())
    }

    /// The current value of header `field`, if set.
    pub fn header_value(&self, field: &str) -> Option<String> {
        let game = self.game.as_ref()?;
        if field == "board" {
            return game.board.map(|b| b.to_string());
        }
        game.clone().field_mut(field).and_then(|s| s.take())
    }

    /// Applies the recorded header corrections (after a re-read or new pairings): a
    /// human's value wins over the pairings, the sheet and a mate.
    pub fn apply_header_corrections(&mut self) {
        if self.header_corrections.is_empty() {
            return;
        }
        let corrections = self.header_corrections.clone();
        let game = self.game.get_or_insert_with(GameInfo::default);
        for c in &corrections {
            let value = (!c.value.is_empty()).then(|| c.value.clone());
            if c.field == "board" {
                game.board = value.as_deref().and_then(|v| v.parse().ok());
            } else if let Some(s) = game.field_mut(&c.field) {
                *s = value;
            }
            game.from.insert(c.field.clone(), Source::Human);
            if c.field == "result" {
                game.result_review = None;
            }
        }
        if let Some(r) = corrections.iter().rev().find(|c| c.field == "result") {
            self.result = if r.value.is_empty() {
                "*".into()
            } else {
                r.value.clone()
            };
            self.result_from = Some(Source::Human);
            self.result_note = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_human_s_headers_are_checked_recorded_and_win_over_a_re_read() {
        let mut r = SheetReport {
            result: "1-0".into(),
            ..SheetReport::default()
        };
        r.set_game(GameInfo {
            white: Some("Muller".into()),
            result: Some("0-1".into()),
            ..GameInfo::default()
        });
        r.correct_header("white", " Müller, Anna ", "ann", "T")
            .unwrap();
        r.correct_header("board", "12", "ann", "T").unwrap();
        r.correct_header("result", "½-½", "ann", "T").unwrap();
        assert!(r.correct_header("board", "twelve", "ann", "T").is_err());
        assert!(r.correct_header("result", "won", "ann", "T").is_err());
        assert!(r.correct_header("colour", "x", "ann", "T").is_err());
        let game = r.game.clone().unwrap();
        assert_eq!(game.white.as_deref(), Some("Müller, Anna"));
        assert_eq!(game.board, Some(12));
        assert_eq!(r.result, "1/2-1/2");
        assert_eq!(game.result_review, None);
        assert_eq!(game.from["white"], Source::Human);
        assert_eq!(r.header_corrections[0].previous.as_deref(), Some("Muller"));
        // Corrected again: one record per field.
        r.correct_header("white", "Anna Müller", "bob", "T")
            .unwrap();
        assert_eq!(r.header_corrections.len(), 3);
        // A re-read sets the pairings' game again; the human's values come back.
        r.result = "1-0".into();
        r.set_game(GameInfo {
            white: Some("Muller".into()),
            result: Some("0-1".into()),
            ..GameInfo::default()
        });
        r.apply_header_corrections();
        assert_eq!(
            r.game.as_ref().unwrap().white.as_deref(),
            Some("Anna Müller")
        );
        assert_eq!(r.result, "1/2-1/2");
    }

    #[test]
    fn results_as_people_write_them() {
        for (text, want) in [
            ("1-0", Some("1-0")),
            ("0 : 1", Some("0-1")),
            ("½-½", Some("1/2-1/2")),
            ("1/2-1/2", Some("1/2-1/2")),
            ("+:-", Some("1-0")),
            ("-/+", Some("0-1")),
            ("*", Some("*")),
            ("", None),
        ] {
            assert_eq!(normalise_result(text).as_deref(), want, "{text}");
        }
    }
}
