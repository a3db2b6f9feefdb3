//! Typed errors of the data crate: bad option values (with the option's name and text) and
//! I/O on a measured or pattern file (with its path).

use std::path::PathBuf;
use thiserror::Error;

/// Why a `buffer_pattern` (fio lib/pattern.c grammar) did not parse.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PatternErrorKind {
    #[error("empty pattern")]
    Empty,
    #[error("unterminated \"string\" (no closing double quote)")]
    UnterminatedString,
    #[error("empty \"\" string")]
    EmptyString,
    #[error("unterminated 'file' (no closing single quote)")]
    UnterminatedFile,
    #[error("cannot read pattern file `{path}`: {reason}")]
    FileUnreadable { path: String, reason: String },
    #[error("pattern file `{path}` is empty")]
    EmptyFile { path: String },
    #[error("expected a number, 0x hex bytes, \"string\" or 'file'")]
    Expected,
    #[error("decimal {value} outside the 32-bit range fio accepts")]
    DecimalRange { value: String },
    #[error("`%{0}` formats are not supported by buffer_pattern (fio: verify_pattern only)")]
    Format(String),
    #[error("pattern longer than fio's 128 MiB limit")]
    TooLong,
}

/// Why an option value was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OptionErrorKind {
    #[error("expected a percentage 0..=100")]
    Percent,
    #[error("expected one of: {0}")]
    OneOf(&'static str),
    #[error("expected a number")]
    NotNumber,
    #[error("{0}")]
    Conflict(&'static str),
}

#[derive(Debug, Error)]
pub enum DataError {
    #[error("buffer_pattern `{input}`: at byte {at}: {kind}")]
    Pattern { input: String, at: usize, kind: PatternErrorKind },
    #[error("option `{option}={value}`: {kind}")]
    Option { option: String, value: String, kind: OptionErrorKind },
    #[error("{path}: {op}: {source}")]
    Io { path: PathBuf, op: &'static str, source: std::io::Error },
}

impl DataError {
    pub fn option(option: &str, value: impl ToString, kind: OptionErrorKind) -> Self {
        DataError::Option { option: option.to_string(), value: value.to_string(), kind }
    }
}
