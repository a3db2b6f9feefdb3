//! Opening a trace: transparent zstd and gzip (by magic bytes, not by name), then the format
//! from `--format`, the file extension, or the content (each format's sniffer). Only regular
//! files are opened (`iolab_core::input`: FIFOs, sockets and devices are refused at open).

use crate::reader::{ReaderConfig, TraceReader};
use crate::registry::{self, FormatInfo, FORMATS};
use crate::{TraceError, TraceErrorKind};
use std::io::{BufRead, BufReader};
use std::path::Path;

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const BUF: usize = 1 << 16;

/// Opens a trace file. `format` is a registry name or alias; `None` detects it.
pub fn open(
    path: &Path,
    format: Option<&str>,
    cfg: &ReaderConfig,
) -> Result<Box<dyn TraceReader>, TraceError> {
    let name = path.display().to_string();
    // A regular file only: a FIFO would block the open, /dev/zero would read forever.
    let file = iolab_core::input::open_input(path, "trace", Default::default()).map_err(|e| {
        let kind = match &e {
            iolab_core::input::InputError::Open { source, .. } => source.kind(),
            _ => std::io::ErrorKind::InvalidInput,
        };
        TraceError::whole(&name, std::io::Error::new(kind, e.reason()).into())
    })?;
    open_reader(Box::new(BufReader::with_capacity(BUF, file)), &name, format, cfg)
}

/// Wraps `inner` in a decompressor if it starts with a zstd or gzip frame.
pub fn decompress(mut inner: Box<dyn BufRead>, name: &str) -> Result<Box<dyn BufRead>, TraceError> {
    let head = inner.fill_buf().map_err(|e| TraceError::whole(name, e.into()))?;
    if head.starts_with(&ZSTD_MAGIC) {
        let d = zstd::stream::read::Decoder::with_buffer(inner)
            .map_err(|e| TraceError::whole(name, e.into()))?;
        Ok(Box::new(BufReader::with_capacity(BUF, d)))
    } else if head.starts_with(&GZIP_MAGIC) {
        Ok(Box::new(BufReader::with_capacity(BUF, flate2::bufread::MultiGzDecoder::new(inner))))
    } else {
        Ok(inner)
    }
}

/// The extension that names the format: the last one after dropping `.zst`/`.zstd`/`.gz`.
fn format_ext(name: &str) -> Option<String> {
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let mut parts: Vec<&str> = base.split('.').skip(1).collect();
    while matches!(parts.last(), Some(&"zst") | Some(&"zstd") | Some(&"gz")) {
        parts.pop();
    }
    parts.last().map(|s| s.to_string())
}

/// Picks the format for a stream whose decompressed start is `head`.
pub fn detect(name: &str, head: &[u8]) -> Result<&'static FormatInfo, TraceError> {
    let ext = format_ext(name);
    let by_ext: Vec<&'static FormatInfo> = FORMATS
        .iter()
        .filter(|f| ext.as_deref().is_some_and(|e| f.extensions.contains(&e)))
        .collect();
    if let Some(f) = by_ext.iter().find(|f| (f.sniff)(head)) {
        return Ok(f);
    }
    if let Some(f) = FORMATS.iter().find(|f| (f.sniff)(head)) {
        return Ok(f);
    }
    if let Some(f) = by_ext.first() {
        return Ok(f);
    }
    Err(TraceError::whole(name, TraceErrorKind::UnknownFormat { tried: registry::names() }))
}

/// Opens a trace from any buffered reader; `name` is used in error messages and for the
/// extension.
pub fn open_reader(
    inner: Box<dyn BufRead>,
    name: &str,
    format: Option<&str>,
    cfg: &ReaderConfig,
) -> Result<Box<dyn TraceReader>, TraceError> {
    let mut inner = decompress(inner, name)?;
    let info = match format {
        Some(f) => registry::find(f).ok_or_else(|| {
            TraceError::whole(
                name,
                TraceErrorKind::NoSuchFormat { name: f.to_string(), known: registry::names() },
            )
        })?,
        None => {
            let head = inner.fill_buf().map_err(|e| TraceError::whole(name, e.into()))?;
            detect(name, head)?
        }
    };
    Ok((info.open)(inner, name, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_ignores_compression_suffix() {
        assert_eq!(format_ext("a/b.oracleGeneral.bin.zst").as_deref(), Some("bin"));
        assert_eq!(format_ext("x.csv.gz").as_deref(), Some("csv"));
        assert_eq!(format_ext("noext"), None);
    }
}
