//! CSV writer in the Alibaba block-trace layout (`device_id,opcode,offset,length,timestamp`,
//! bytes and microseconds; see [`crate::formats::alibaba`]): it keeps the device index and
//! byte-exact offsets, and iolab reads it back. It has only `R` and `W`, so a trim or sync
//! record is an error naming the record.

use super::{io_err, TraceWriter};
use crate::{TraceError, TraceErrorKind, TraceRecord};
use iolab_core::IoDir;
use std::io::Write;

pub struct CsvWriter<W: Write> {
    out: W,
    name: String,
    record: u64,
}

impl<W: Write> CsvWriter<W> {
    pub fn new(out: W, name: &str) -> Self {
        CsvWriter { out, name: name.to_string(), record: 0 }
    }
}

impl<W: Write> TraceWriter for CsvWriter<W> {
    fn write(&mut self, rec: &TraceRecord) -> Result<(), TraceError> {
        if self.record == 0 {
            writeln!(self.out, "device_id,opcode,offset,length,timestamp")
                .map_err(|e| io_err(&self.name, 0, e))?;
        }
        self.record += 1;
        let op = match rec.req.dir {
            IoDir::Read => 'R',
            IoDir::Write => 'W',
            d => {
                return Err(TraceError::new(
                    &self.name,
                    self.record,
                    0,
                    TraceErrorKind::Unrepresentable {
                        what: format!("a {d} request"),
                        format: "Alibaba-layout CSV (R/W only; use --to iolog)",
                    },
                ))
            }
        };
        writeln!(
            self.out,
            "{},{op},{},{},{}",
            rec.req.file,
            rec.req.offset,
            rec.req.len,
            rec.time_ns / 1_000
        )
        .map_err(|e| io_err(&self.name, self.record, e))
    }

    fn finish(&mut self) -> Result<(), TraceError> {
        self.out.flush().map_err(|e| io_err(&self.name, 0, e))
    }
}
