//! The report's small vocabularies: a move's state and where a header value or the
//! result came from. Their JSON spellings are the report contract's strings.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What became of a move's cell (a report move's `state`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveState {
    /// Read, and sure enough to need no one.
    #[default]
    Ok,
    /// Flagged for a human.
    Review,
    /// Set by a human.
    Locked,
    /// The cell adds no move to the game (a slip, a repeated move).
    Skipped,
    /// A move the player did not write down, put in by the decoder (no cell).
    Assumed,
}

/// Where a header value or the result came from (`game.from`, `result_from`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Source {
    /// The game as read ends in mate or stalemate.
    #[serde(rename = "mate")]
    Mate,
    /// Written on the sheet (after the last move, or marked on the form).
    #[serde(rename = "sheet")]
    Sheet,
    /// The tournament's pairing table.
    #[serde(rename = "pairings")]
    Pairings,
    /// The players file (FIDE TRF).
    #[serde(rename = "players")]
    Players,
    /// The sheet map's row for the file.
    #[serde(rename = "sheet map")]
    SheetMap,
    /// The file's name (`r3b12`, `3-12`).
    #[serde(rename = "file name")]
    FileName,
    /// A human's header correction.
    #[serde(rename = "human")]
    Human,
}

impl Source {
    /// The contract's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Mate => "mate",
            Source::Sheet => "sheet",
            Source::Pairings => "pairings",
            Source::Players => "players",
            Source::SheetMap => "sheet map",
            Source::FileName => "file name",
            Source::Human => "human",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_spellings_are_the_contracts_strings() {
        for s in [
            Source::Mate,
            Source::Sheet,
            Source::Pairings,
            Source::Players,
            Source::SheetMap,
            Source::FileName,
            Source::Human,
        ] {
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.as_str()));
            assert_eq!(serde_json::from_str::<Source>(&json).unwrap(), s);
        }
        let states = [
            (MoveState::Ok, "ok"),
            (MoveState::Review, "review"),
            (MoveState::Locked, "locked"),
            (MoveState::Skipped, "skipped"),
            (MoveState::Assumed, "assumed"),
        ];
        for (state, text) in states {
            assert_eq!(
                serde_json::to_string(&state).unwrap(),
                format!("\"{text}\"")
            );
        }
    }
}
