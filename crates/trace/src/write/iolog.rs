//! fio iolog version 3 writer, replayable by fio's `read_iolog` (fio `iolog.c`, HOWTO "Trace
//! file format v3"): `fio version 3 iolog`, then `TS FILE add` and `TS FILE open` the first
//! time a file appears, `TS FILE read|write|trim|sync OFFSET LENGTH` per request and
//! `TS FILE close` at the end. TS is microseconds since the first request, as fio's own
//! `log_io_u()` writes it. fio scans LENGTH with `%u`, so a request of 4 GiB or more is an
//! error here rather than a silently truncated replay.

use super::{io_err, TraceWriter};
use crate::{TraceError, TraceErrorKind, TraceRecord};
use iolab_core::IoDir;
use std::io::Write;

pub struct IologWriter<W: Write> {
    out: W,
    name: String,
    /// Names for `req.file` indices; indices beyond it are named `iolab.N`.
    files: Vec<String>,
    opened: Vec<bool>,
    record: u64,
    last_us: u64,
    header: bool,
}

impl<W: Write> IologWriter<W> {
    /// `name` is the output's name for error messages; `files` names `req.file` indices.
    pub fn new(out: W, name: &str, files: Vec<String>) -> Self {
        IologWriter {
            out,
            name: name.to_string(),
            files,
            opened: Vec::new(),
            record: 0,
            last_us: 0,
            header: false,
        }
    }

    /// The names given to `req.file` indices so far.
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// Names can be added while writing, before a new index is first written.
    pub fn files_mut(&mut self) -> &mut Vec<String> {
        &mut self.files
    }

    fn file_name(&self, i: u32) -> String {
        self.files.get(i as usize).cloned().unwrap_or_else(|| format!("iolab.{i}"))
    }

    fn io(&self, e: std::io::Error) -> TraceError {
        io_err(&self.name, self.record, e)
    }
}

impl<W: Write> TraceWriter for IologWriter<W> {
    fn write(&mut self, rec: &TraceRecord) -> Result<(), TraceError> {
        self.record += 1;
        if !self.header {
            writeln!(self.out, "fio version 3 iolog").map_err(|e| self.io(e))?;
            self.header = true;
        }
        let us = rec.req.issue_at.map_or(0, |t| t.0 / 1_000);
        self.last_us = self.last_us.max(us);
        let f = rec.req.file as usize;
        if self.opened.len() <= f {
            self.opened.resize(f + 1, false);
        }
        let name = self.file_name(rec.req.file);
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(TraceError::new(
                &self.name,
                self.record,
                0,
                TraceErrorKind::Unrepresentable {
                    what: format!("file name `{name}` (empty or with whitespace)"),
                    format: "a fio iolog",
                },
            ));
        }
        if !self.opened[f] {
            write!(self.out, "{us} {name} add\n{us} {name} open\n").map_err(|e| self.io(e))?;
            self.opened[f] = true;
        }
        if rec.req.len > u32::MAX as u64 {
            return Err(TraceError::new(
                &self.name,
                self.record,
                0,
                TraceErrorKind::Unrepresentable {
                    what: format!("a {}-byte request (fio reads the length as u32)", rec.req.len),
                    format: "a fio iolog",
                },
            ));
        }
        let (off, len) =
            if rec.req.dir == IoDir::Sync { (0, 0) } else { (rec.req.offset, rec.req.len) };
        writeln!(self.out, "{us} {name} {} {off} {len}", rec.req.dir.as_str())
            .map_err(|e| self.io(e))
    }

    fn finish(&mut self) -> Result<(), TraceError> {
        if !self.header {
            writeln!(self.out, "fio version 3 iolog").map_err(|e| self.io(e))?;
            self.header = true;
        }
        for f in 0..self.opened.len() {
            if self.opened[f] {
                let name = self.file_name(f as u32);
                writeln!(self.out, "{} {name} close", self.last_us).map_err(|e| self.io(e))?;
                self.opened[f] = false;
            }
        }
        self.out.flush().map_err(|e| self.io(e))
    }
}
