//! `--output-format=html`: the run as one offline HTML page (crate iolab-viz: tables, inline
//! SVG charts, advice), built from this run's json+ document and JSON Lines intervals (the
//! same reader `iolab report` uses on saved files), with the host it ran on (hostname, kernel
//! release from `/proc/sys/kernel/osrelease`, command line).

use iolab_stats::RunResult;

use super::fio_json::render_with;
use super::jsonl::Jsonl;
use crate::{Exporter, ReportError};

pub struct Html;

impl Exporter for Html {
    fn name(&self) -> &'static str {
        "html"
    }

    fn render(&self, run: &RunResult) -> Result<Vec<u8>, ReportError> {
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let host = serde_json::json!({
            "hostname": run.meta.hostname,
            "kernel": kernel.trim(),
            "command_line": run.meta.command_line.join(" "),
        });
        let doc = render_with(run, true, &[("iolab_host", &host)]);
        let lines = Jsonl.render(run)?;
        Ok(iolab_viz::html_of("run", &doc, &lines)?.into_bytes())
    }
}
