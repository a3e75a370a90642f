//! The vocabulary every stage speaks, importing no stage: the reader's output and its
//! classes ([`CellScores`], [`Alphabet`]), the calibration map from a decoder's
//! confidence to a probability ([`Calibration`]), and the comparable core of a
//! written move ([`normalise`]). The model produces the first two and carries the
//! third in its manifest; the decoder consumes all three; evaluation compares with the
//! last. Glyph classes themselves are [`crate::glyph`] (a leaf too).

pub mod calibration;
mod cells;

pub use calibration::Calibration;
pub use cells::{Alphabet, CellScores};

/// The comparable core of a written move: glyph classes (look-alikes folded),
/// decorations (`+ # ! ?`, the separators `x : -` between origin and destination,
/// the draw offer `(=)`, spaces, `=`) removed, castling zeros read as `O` (`O-O` is
/// `OO`, `O-O-O` is `OOO`).
pub fn normalise(text: &str) -> String {
    crate::glyph::canonical_str(text)
        .chars()
        .filter(|c| {
            !matches!(
                c,
                '+' | '#' | 'x' | ':' | '-' | '!' | '?' | '=' | 'X' | '(' | ')'
            )
        })
        .map(|c| if c == '0' { 'O' } else { c })
        .collect::<String>()
        .replace("e.p.", "")
        .replace("ep", "")
}
