//! Trace writers: fio iolog v3 ([`iolog`]), libCacheSim oracleGeneral ([`oracle`]) and
//! Alibaba-layout CSV ([`csv`]).

pub mod csv;
pub mod iolog;
pub mod oracle;

use crate::{TraceError, TraceErrorKind, TraceRecord};

/// A streaming trace writer. `finish` flushes and writes any trailer (iolog `close` lines).
pub trait TraceWriter {
    fn write(&mut self, rec: &TraceRecord) -> Result<(), TraceError>;
    fn finish(&mut self) -> Result<(), TraceError>;
}

pub(crate) fn io_err(name: &str, record: u64, e: std::io::Error) -> TraceError {
    TraceError::new(name, record, 0, TraceErrorKind::Io(e))
}
