//! iolab-viz: charts of iolab's (and fio's) JSON results. [`input`] reads result files
//! generically (serde_json values, so no other crate changes shape for it), [`model`] turns
//! them into sections of tables and [`chart::Chart`]s, [`chart`] draws a chart with `plotters`,
//! [`html`] writes the one-file offline report and [`plot`] the SVG and PNG files. One section
//! builder per result kind: a run or sim (`run`, `sim`, `latency`), miss-ratio and fill curves
//! (`model`), trace statistics (`trace`), a comparison (`compare`), a device profile (`calib`), a run's prediction beside
//! its measurement (`predict`).
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod calib;
pub mod chart;
mod compare;
pub mod escape;
pub mod html;
pub mod input;
mod latency;
pub mod legend;
pub mod model;
pub mod plot;
mod predict;
mod run;
mod sim;
mod trace;

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

/// The page of `iolab compare --output-format=html`: `cmp` is the comparison's JSON
/// (iolab-report's `compare::render_json`), `runs` the compared results, read for their
/// intervals (overlaid time series) only; their own sections are left out.
pub fn compare_html(cmp: &[u8], runs: &[Input]) -> Result<String, VizError> {
    let doc = Input::parse("compare", &String::from_utf8_lossy(cmp))?;
    let runs: Vec<&Input> =
        runs.iter().filter(|i| matches!(i.kind(), Ok(input::Kind::Run))).collect();
    let names: Vec<&str> = runs.iter().map(|i| i.label.as_str()).collect();
    let mut section = compare::section(&doc.values[0], &names.join(" vs "), &runs, 0);
    for c in &mut section.charts {
        c.series.retain(|s| !s.points.is_empty());
    }
    section.charts.retain(|c| c.point_count() > 0);
    let title = format!("iolab compare: {}", names.join(" vs "));
    html::render(&model::Report { title, sections: vec![section] })
}
