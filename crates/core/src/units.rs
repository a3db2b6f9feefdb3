//! fio's value units: sizes with `kb_base`, times, percentages.
//!
//! OWNER: job-parser helper fills this in (see the brief). Kept in core because the trace,
//! data and model crates parse sizes too.
