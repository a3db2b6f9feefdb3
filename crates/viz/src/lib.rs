//! iolab-viz: charts of iolab's (and fio's) JSON results. [`input`] reads result files
//! generically (serde_json values, so no other crate changes shape for it), [`model`] turns
//! them into sections of tables and [`chart::Chart`]s, [`chart`] draws a chart with `plotters`,
//! [`html`] writes the one-file offline report and [`plot`] the SVG and PNG files.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod chart;
pub mod html;
pub mod input;
mod latency;
pub mod model;
pub mod plot;
mod run;
mod sim;

pub use input::Input;

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

/// The HTML report of `inputs`.
pub fn html(inputs: &[Input]) -> Result<String, VizError> {
    html::render(&model::build(inputs)?)
}

/// The HTML page of one result document given as bytes (`iolab run/sim
/// --output-format=html`): `doc` is its fio-layout JSON, `lines` optional JSON Lines
/// intervals of the same run.
pub fn html_of(label: &str, doc: &[u8], lines: &[u8]) -> Result<String, VizError> {
    let mut text = String::from_utf8_lossy(doc).into_owned();
    text.push('\n');
    text.push_str(&String::from_utf8_lossy(lines));
    html(&[Input::parse(label, &text)?])
}
