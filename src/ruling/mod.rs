//! A grayscale page (upright or not) -> the ruling of its move table: the lines, the
//! columns and their white/black blocks, the rows ([`table::analyse`]), and the
//! evidence that the page is upside down. Both `page` (orientation) and `grid`
//! (numbered cells) read it; it imports neither.

pub(crate) mod blocks;
pub(crate) mod lines;
pub(crate) mod rows;
pub(crate) mod shapes;
pub(crate) mod strip;
pub(crate) mod table;

use image::GrayImage;

/// Fewest ruled rows a move table has (the grid's default).
pub(crate) const MIN_ROWS: usize = 8;
/// Least contrast of a rule against the paper, in grey levels (the grid's default).
pub(crate) const MIN_CONTRAST: f32 = 10.0;
/// Pixels painted out on each side of a rule taken out of a picture: its blurred edge,
/// lighter than the ink, that left in reads as a stroke.
pub(crate) const RULE_EDGE: usize = 2;

/// Evidence that `gray` is upside down, from an upright reading of its table: move
/// numbers (a ruled number column or a shaded strip) at the right of their blocks
/// count for, at the left against; `None` when no table is found.
pub fn upside_down_votes(gray: &GrayImage) -> Option<f32> {
    let ap = shapes::AnalysisParams {
        min_contrast: MIN_CONTRAST,
        min_rows: MIN_ROWS,
        sideways: 0,
    };
    table::analyse_leaning(gray, &ap)
        .ok()
        .map(|t| t.upside_down_votes)
}
