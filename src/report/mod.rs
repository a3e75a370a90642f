//! Decoded sheet -> PGN text, the JSON report and the review page.
