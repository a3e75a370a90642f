//! Moves <-> written text: every way a legal move may be written on a sheet in each
//! supported notation, and parsing such text back to the move.
//!
//! - [`forms`] / [`written_forms`]: all written forms of a legal move; [`render`]: the
//!   natural display form with real letters.
//! - [`parse_move`]: any written form (mixed scripts, marks) back to the legal move.
//! - [`split_game`], [`replay`], [`replay_auto`]: a whole game text to moves.
//! - [`read_pgn`], [`write_pgn`]: PGN files in and out.
//! - [`Habits`], [`write_move`]: what a particular player writes, for synthetic data.
//! - [`das`]: the notation of Das, a 10×10 variant, read without its rules.

pub mod das;
mod forms;
mod game;
mod letters;
mod parse;
mod pgn;
/// Writing moves as players do: scaffolding for tests and generators.
#[cfg(any(test, feature = "internals"))]
mod sample;

pub use das::Variant;
pub use forms::{ANNOTATIONS, MoveShape, Shared, Style, for_each_body, forms, written_forms};
#[cfg(any(test, feature = "internals"))]
pub use forms::{Body, Check, Form, Mark, bodies, check_marks, render};
#[cfg(any(test, feature = "internals"))]
pub use game::{GameText, GameTextError, WrittenPly};
pub use game::{replay, replay_auto, split_game};
pub(crate) use letters::TAKEN;
#[cfg(any(test, feature = "internals"))]
pub use letters::piece_letter;
#[cfg(not(any(test, feature = "internals")))]
pub(crate) use letters::piece_letter;
pub use letters::{Script, transliterate};
pub use parse::{MoveTextError, Written, parse_move, read_written};
#[cfg(any(test, feature = "internals"))]
pub use pgn::{HELD_OUT_EVERY, PgnError, PgnGame, pgn_files, read_pgn_dir, read_pgn_dir_split};
pub use pgn::{escape_tag, read_pgn, wrap_movetext, write_other_tags, write_pgn, write_roster};
#[cfg(any(test, feature = "internals"))]
pub use sample::{Habits, Rng, write_move};

use std::fmt;
use std::str::FromStr;

/// A national move notation: the piece letters and habits of one sheet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Notation {
    /// English / FIDE: K Q R B N.
    En,
    /// Russian: Кр Ф Л С К, castling with zeros, `e.p.`, long form.
    Ru,
    /// Polish: K H W G S, `:` for captures.
    Pl,
    /// German: K D T L S.
    De,
}

impl Notation {
    /// All notations, in the order `auto` tries them.
    pub const ALL: [Notation; 4] = [Notation::En, Notation::Ru, Notation::Pl, Notation::De];

    /// The short code used on the command line and in reports (`en`, `ru`, `pl`, `de`).
    pub fn code(self) -> &'static str {
        match self {
            Notation::En => "en",
            Notation::Ru => "ru",
            Notation::Pl => "pl",
            Notation::De => "de",
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A notation code that is not one of `en`, `ru`, `pl`, `de`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown notation `{0}` (expected en, ru, pl or de)")]
pub struct UnknownNotation(pub String);

impl FromStr for Notation {
    type Err = UnknownNotation;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "en" | "english" | "fide" => Ok(Notation::En),
            "ru" | "russian" => Ok(Notation::Ru),
            "pl" | "polish" => Ok(Notation::Pl),
            "de" | "german" => Ok(Notation::De),
            _ => Err(UnknownNotation(s.to_string())),
        }
    }
}
