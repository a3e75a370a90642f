//! A page, its grid and the model -> what the printed form and the marks around the
//! moves say: the rows' move numbers (`numbers`, `rows`: the one place rows are
//! numbered), the column headings' language (`heading`), a result written after the
//! last move (`result`) or marked among printed options (`result_box`, on the lines of
//! print below the table that `print_below` cuts into words), small writing
//! cut out closer (`closeup`), and the model's scores of the cells (`scores`).
//!
//! Imports only downward: `decode`, `glyph`, `grid`, `model`, `notation`, `page`,
//! `raster`, `ruling`, `vocab`; never `pipeline` or `report`.

pub(crate) mod closeup;
// The form's header fields and printed result options, read from any form (used by
// the pipeline's header reading; public to the crate's tests).
#[cfg(feature = "internals")]
pub mod fields;
#[cfg(not(feature = "internals"))]
#[allow(dead_code)]
pub(crate) mod fields;
pub(crate) mod heading;
pub(crate) mod numbers;
pub(crate) mod print_below;
pub(crate) mod result;
pub(crate) mod result_box;
pub(crate) mod rows;
pub(crate) mod scores;
pub(crate) mod values;
