//! Trace errors: one typed kind plus where it happened (source name, record number counted
//! from 1, byte offset of the record's first byte in the decompressed stream).

use std::fmt;

/// What went wrong with one record or with the trace as a whole.
#[derive(Debug, thiserror::Error)]
pub enum TraceErrorKind {
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("field `{field}`: expected {expected}, found `{found}`")]
    BadField { field: &'static str, expected: &'static str, found: String },
    #[error("missing field `{field}` (expected {expected} fields)")]
    MissingField { field: &'static str, expected: usize },
    #[error("truncated record: {got} of {want} bytes")]
    Truncated { got: usize, want: usize },
    #[error("unknown operation `{found}` (expected {expected})")]
    UnknownOp { found: String, expected: &'static str },
    #[error("line longer than {limit} bytes (not a text trace record; a decompression bomb?)")]
    LineTooLong { limit: usize },
    #[error("value out of range: {what}")]
    Overflow { what: &'static str },
    #[error("not a fio iolog: first line is `{found}` (expected `fio version 2 iolog` or `fio version 3 iolog`)")]
    IologHeader { found: String },
    #[error("unknown file `{name}` (no `add` action before its first I/O)")]
    UnknownFile { name: String },
    #[error("cannot tell the trace format (tried: {tried}); name it with --format")]
    UnknownFormat { tried: String },
    #[error("unknown trace format `{name}` (known: {known})")]
    NoSuchFormat { name: String, known: String },
    #[error("{what} cannot be written as {format}")]
    Unrepresentable { what: String, format: &'static str },
    #[error("refused: {what}; pass --lossy to convert anyway (--to=iolog or csv keep them)")]
    Lossy { what: String },
}

/// A trace error with its position. Displays as one line:
/// `trace.csv: record 17 (byte 612): field `op`: expected ...`.
#[derive(Debug)]
pub struct TraceError {
    pub source_name: String,
    /// 1-based record (line for text formats) number; 0 when the error is not about a record.
    pub record: u64,
    /// Byte offset of the record in the decompressed stream.
    pub offset: u64,
    pub kind: TraceErrorKind,
}

/// The [`TraceError::offset`] of an error found after a batch was decoded (the record is
/// known, its byte offset not): displayed without the byte.
pub const UNKNOWN_OFFSET: u64 = u64::MAX;

impl TraceError {
    pub fn new(source_name: &str, record: u64, offset: u64, kind: TraceErrorKind) -> Self {
        TraceError { source_name: source_name.to_string(), record, offset, kind }
    }

    /// An error about the trace as a whole (opening, format detection).
    pub fn whole(source_name: &str, kind: TraceErrorKind) -> Self {
        TraceError::new(source_name, 0, 0, kind)
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.record == 0 {
            write!(f, "{}: {}", self.source_name, self.kind)
        } else if self.offset == UNKNOWN_OFFSET {
            write!(f, "{}: record {}: {}", self.source_name, self.record, self.kind)
        } else {
            write!(
                f,
                "{}: record {} (byte {}): {}",
                self.source_name, self.record, self.offset, self.kind
            )
        }
    }
}

impl std::error::Error for TraceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            TraceErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}
