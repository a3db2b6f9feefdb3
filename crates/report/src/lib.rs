//! iolab's exporters: a [`RunResult`](iolab_stats::RunResult) rendered as fio-like text, fio's
//! JSON and json+ (same field names and units, so fio's consumers read it), JSON Lines status
//! intervals, CSV, fio's bandwidth/IOPS/latency log files, and the offline HTML page (drawn by
//! iolab-viz). One file per exporter under
//! [`export`], one trait, one registry ([`exporter`]); every output file is written by
//! [`output`] (atomically, or through for devices and FIFOs).
//!
//! ```
//! use iolab_report::exporter;
//! use iolab_stats::RunResult;
//! let json = exporter("json").unwrap().render(&RunResult::default()).unwrap();
//! assert!(String::from_utf8(json).unwrap().contains("\"fio version\" : \"fio-3.33\""));
//! ```
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod compare;
pub mod export;
pub mod fio_plat;
pub mod json;
pub mod num;
pub mod output;
pub mod render;

pub use num::progress_bar;
pub use output::write_atomic;
pub use render::{exporter_versioned, render_document, Extras};

use std::path::PathBuf;

use iolab_stats::RunResult;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("unknown output format '{name}'; expected one of: {expected}")]
    UnknownFormat { name: String, expected: String },
    #[error("writing {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("output {path}: {why}")]
    BadOutput { path: String, why: String },
    /// A result that could not be written where asked, saved elsewhere
    /// ([`output::rescue`]): the failure, then where the result went.
    #[error("{cause}; {rescued}")]
    Unsaved { cause: Box<ReportError>, rescued: output::rescue::Rescued },
    /// A document could not be serialised as JSON.
    #[error("serialising JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The HTML page (built by `iolab_viz` through [`render::HtmlPage`]).
    #[error("html report: {0}")]
    Html(#[source] Box<dyn std::error::Error + Send + Sync>),
    #[error("html page: {0}")]
    Page(#[from] iolab_viz::VizError),
}

/// Renders a whole run into one document.
pub trait Exporter {
    /// The name used with `--output-format` (`normal`, `json`, `json+`, `jsonl`, `csv`).
    fn name(&self) -> &'static str;
    /// The document's bytes.
    fn render(&self, run: &RunResult) -> Result<Vec<u8>, ReportError>;
}

/// Constructor of one exporter.
pub type MakeExporter = fn() -> Box<dyn Exporter>;

/// The exporter registry: every `--output-format` name and its constructor.
pub const FORMATS: &[(&str, MakeExporter)] = &[
    ("normal", || Box::new(export::text::Text)),
    ("json", || Box::new(export::fio_json::FioJson { plus: false })),
    ("json+", || Box::new(export::fio_json::FioJson { plus: true })),
    ("jsonl", || Box::new(export::jsonl::Jsonl)),
    ("csv", || Box::new(export::csv::Csv)),
    ("terse", || Box::new(export::terse::Terse { version: 3 })),
    ("html", || Box::new(export::html::Html)),
];

/// Look an exporter up by its `--output-format` name.
pub fn exporter(name: &str) -> Result<Box<dyn Exporter>, ReportError> {
    FORMATS.iter().find(|(n, _)| *n == name).map(|(_, f)| f()).ok_or_else(|| {
        ReportError::UnknownFormat {
            name: name.escape_default().to_string(),
            expected: FORMATS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("out.json");
        write_atomic(&p, b"old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        let e = write_atomic(&d.path().join("missing/x"), b"x").unwrap_err();
        assert!(e.to_string().contains("missing/x: cannot create a file in "), "{e}");
    }

    #[test]
    fn unknown_format_lists_the_known_ones() {
        let e = exporter("tersely").err().unwrap();
        assert_eq!(
            e.to_string(),
            "unknown output format 'tersely'; expected one of: normal, json, json+, jsonl, csv, \
             terse, html"
        );
    }
}
