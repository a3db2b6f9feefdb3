//! iolab-viz: charts of iolab's (and fio's) JSON results. [`input`] reads result files
//! generically (serde_json values, so no other crate changes shape for it), [`chart`] draws one
//! chart with `plotters`, [`html`] writes the one-file offline report, [`plot`] the SVG/PNG files.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod chart;

/// Why a report or plot could not be made.
#[derive(Debug, thiserror::Error)]
pub enum VizError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {what}")]
    Input { path: String, what: String },
    #[error("drawing chart '{chart}': {what}")]
    Draw { chart: String, what: String },
}
