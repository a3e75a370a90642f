//! Per-cell CTC scores -> the most plausible legal game: CTC scoring of written
//! forms, a beam search over positions, confidences and review flags.
