//! Game text -> PGN (chess, replayed as a legal game in the given or detected notation)
//! or a Das record (checked by its notation, moves kept as written): `scoresheet convert`.

use crate::notation::das::{parse_das_game, write_das_record};
use crate::notation::{Notation, Variant, replay, replay_auto, split_game, write_pgn};

/// Converts one game's text. `notation` None detects it (chess only).
///
/// # Errors
/// The reason the text is not a game: an illegal or unreadable move, for instance.
pub fn convert_game(
    text: &str,
    notation: Option<Notation>,
    variant: Variant,
) -> Result<String, String> {
    if variant == Variant::Das {
        return parse_das_game(text)
            .map(|game| write_das_record(&game, &[]))
            .map_err(|e| e.to_string());
    }
    let game = split_game(text);
    let replayed = match notation {
        Some(n) => replay(&game, n).map(|moves| (n, moves)),
        None => replay_auto(&game),
    };
    let (_, moves) = replayed.map_err(|e| e.to_string())?;
    let result = game.result.as_deref().unwrap_or("*");
    let result = if result == "½-½" || result == "0.5-0.5" {
        "1/2-1/2"
    } else {
        result
    };
    Ok(write_pgn(&[], &moves, result))
}
