//! `--output-format=html`: the run as one offline HTML page (crate iolab-viz: tables, inline
//! SVG charts, advice), built from this run's json+ document and JSON Lines intervals (the
//! same reader `iolab report` uses on saved files), with the host it ran on
//! ([`crate::render::host_section`]) and the command's own sections (`iolab_predict`).

use iolab_stats::RunResult;

use super::jsonl::Jsonl;
use crate::render::{host_section, json_doc};
use crate::{Exporter, ReportError};

pub struct Html;

impl Exporter for Html {
    fn name(&self) -> &'static str {
        "html"
    }

    fn render(&self, run: &RunResult) -> Result<Vec<u8>, ReportError> {
        run_page(run, &[])
    }
}

/// The page of `run` with `more` sections after fio's keys and the host's.
pub fn run_page(
    run: &RunResult,
    more: &[(&str, serde_json::Value)],
) -> Result<Vec<u8>, ReportError> {
    let sections = [&[("iolab_host", host_section(run))][..], more].concat();
    let doc = json_doc(run, true, &sections, None);
    let lines = Jsonl.render(run)?;
    Ok(iolab_viz::html_of("run", &doc, &lines)?.into_bytes())
}
