//! Synthetic scoresheet forms with known cell geometry, for tests and benchmarks.
