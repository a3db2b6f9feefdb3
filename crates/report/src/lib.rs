//! iolab's exporters: a [`RunResult`](iolab_stats::RunResult) rendered as fio-like text, fio's
//! JSON and json+ (same field names and units, so fio's consumers read it), JSON Lines status
//! intervals, CSV, and fio's bandwidth/IOPS/latency log files. One file per exporter under
//! [`export`], one trait, one registry ([`exporter`]); results files are written atomically
//! ([`write_atomic`]).
//!
//! ```
//! use iolab_report::exporter;
//! use iolab_stats::RunResult;
//! let json = exporter("json").unwrap().render(&RunResult::default()).unwrap();
//! assert!(String::from_utf8(json).unwrap().contains("\"fio version\" : \"fio-3.33\""));
//! ```
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod export;
pub mod fio_plat;
pub mod json;
pub mod num;

use std::io::Write;
use std::path::{Path, PathBuf};

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
];

/// Look an exporter up by its `--output-format` name.
pub fn exporter(name: &str) -> Result<Box<dyn Exporter>, ReportError> {
    FORMATS.iter().find(|(n, _)| *n == name).map(|(_, f)| f()).ok_or_else(|| {
        ReportError::UnknownFormat {
            name: name.into(),
            expected: FORMATS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
        }
    })
}

/// Write `bytes` to `path` atomically: a temporary file in the same directory, fsync, rename
/// over `path`, then fsync the directory so the rename itself is durable. A reader sees the
/// old file or the new one, never a partial one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    let io = |source| ReportError::Io { path: path.to_path_buf(), source };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        // Directory fsync makes the rename durable; some filesystems refuse it, which does
        // not undo the (already atomic) rename.
        if let Ok(d) = std::fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
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
        assert!(e.to_string().starts_with("writing "), "{e}");
    }

    #[test]
    fn unknown_format_lists_the_known_ones() {
        let e = exporter("tersely").err().unwrap();
        assert_eq!(
            e.to_string(),
            "unknown output format 'tersely'; expected one of: normal, json, json+, jsonl, csv, \
             terse"
        );
    }
}
