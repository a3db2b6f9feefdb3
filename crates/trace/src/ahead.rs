//! Reading a trace ahead on a second thread: that thread opens the trace and decodes it into
//! batches, the caller's thread only consumes them. Batches go through two channels, full ones
//! one way and emptied ones back, so no batch is allocated after the first few. Reading (the
//! kernel's copy of the file) and decoding were a fifth of an object-level LRU replay on one
//! thread (perf), and a channel handoff per batch of thousands of records costs nothing
//! measurable. The reader is opened on the reading thread (a [`TraceReader`] is not `Send`);
//! the caller sees the same batches in the same order, and the same errors, as reading on its
//! own thread. Where no thread starts, [`read_ahead`] reads on the caller's thread.

use crate::{ReaderConfig, TraceError, TraceReader};
use std::path::Path;

/// Batches in flight between the reading thread and the consumer.
const IN_FLIGHT: usize = 3;

/// The trace to open: path, `--format` (`None` detects it) and reader configuration.
#[derive(Clone, Copy)]
pub struct TracePath<'a> {
    pub path: &'a Path,
    pub format: Option<&'a str>,
    pub cfg: &'a ReaderConfig,
}

/// What the reader reported when reading stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadEnd {
    /// [`TraceReader::format`].
    pub format: &'static str,
    /// [`TraceReader::records`]: records decoded, which is more than the consumer took when it
    /// stopped early (the reading thread is up to [`IN_FLIGHT`] batches ahead).
    pub records: u64,
    /// [`TraceReader::skipped`].
    pub skipped: u64,
}

impl ReadEnd {
    fn of(r: &dyn TraceReader) -> Self {
        ReadEnd { format: r.format(), records: r.records(), skipped: r.skipped() }
    }
}

/// Opens `src` and calls `fill(reader, batch)` on a second thread to append the next batch to
/// `batch` (handed over empty); `consume` gets each non-empty batch on this thread, in order,
/// and returns `false` to stop reading. An empty batch ends the trace. The first error, of
/// opening or of `fill`, is returned after the batches before it were consumed (unless
/// `consume` stopped first).
pub fn read_ahead<T, E, F, C>(src: TracePath<'_>, mut fill: F, mut consume: C) -> Result<ReadEnd, E>
where
    T: Send,
    E: Send + From<TraceError>,
    F: FnMut(&mut dyn TraceReader, &mut Vec<T>) -> Result<(), E> + Send,
    C: FnMut(&[T]) -> bool,
{
    if let Some(end) = threaded(src, &mut fill, &mut consume)? {
        return Ok(end);
    }
    let mut r = crate::open(src.path, src.format, src.cfg)?;
    let mut batch = Vec::new();
    loop {
        batch.clear();
        fill(r.as_mut(), &mut batch)?;
        if batch.is_empty() || !consume(&batch) {
            return Ok(ReadEnd::of(r.as_ref()));
        }
    }
}

/// [`read_ahead`] on two threads; `Ok(None)` when the reading thread did not start.
fn threaded<T, E, F, C>(
    src: TracePath<'_>,
    fill: &mut F,
    consume: &mut C,
) -> Result<Option<ReadEnd>, E>
where
    T: Send,
    E: Send + From<TraceError>,
    F: FnMut(&mut dyn TraceReader, &mut Vec<T>) -> Result<(), E> + Send,
    C: FnMut(&[T]) -> bool,
{
    use std::sync::mpsc::{channel, sync_channel};
    let (full_tx, full_rx) = sync_channel::<Vec<T>>(IN_FLIGHT);
    let (empty_tx, empty_rx) = channel::<Vec<T>>();
    for _ in 0..IN_FLIGHT {
        let _ = empty_tx.send(Vec::new());
    }
    std::thread::scope(|sc| {
        let reading = std::thread::Builder::new().name("trace-read".into());
        // Errors come back through the join, so the batches sent before one are consumed
        // first (the channel ends when the thread drops its sender); an error of opening is
        // the outer one.
        let started = reading.spawn_scoped(sc, move || -> Result<(ReadEnd, Option<E>), E> {
            let mut r = crate::open(src.path, src.format, src.cfg)?;
            let mut failed = None;
            while let Ok(mut batch) = empty_rx.recv() {
                batch.clear();
                if let Err(e) = fill(r.as_mut(), &mut batch) {
                    failed = Some(e);
                    break;
                }
                if batch.is_empty() || full_tx.send(batch).is_err() {
                    break;
                }
            }
            Ok((ReadEnd::of(r.as_ref()), failed))
        });
        let Ok(handle) = started else { return Ok(None) };
        let mut stopped = false;
        for batch in full_rx.iter() {
            if !consume(&batch) {
                stopped = true;
                break;
            }
            let _ = empty_tx.send(batch);
        }
        // Unblocks the reading thread wherever it waits (on a full channel or for an empty batch).
        drop((full_rx, empty_tx));
        match handle.join().unwrap_or_else(|p| std::panic::resume_unwind(p))? {
            // An error past where the consumer stopped is not its to see (reading on one thread stops before it).
            (_, Some(e)) if !stopped => Err(e),
            (end, _) => Ok(Some(end)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trace of `n` whole oracleGeneral records (object `i % 7`), then `tail` stray bytes.
    fn trace(name: &str, n: u64, tail: usize) -> std::path::PathBuf {
        let p = std::env::temp_dir()
            .join(format!("iolab-ahead-{}-{name}.oracleGeneral.bin", std::process::id()));
        let mut b = Vec::new();
        for i in 0..n {
            b.extend_from_slice(&(i as u32).to_le_bytes());
            b.extend_from_slice(&(i % 7).to_le_bytes());
            b.extend_from_slice(&1u32.to_le_bytes());
            b.extend_from_slice(&(-1i64).to_le_bytes());
        }
        b.resize(b.len() + tail, 0);
        std::fs::write(&p, b).unwrap();
        p
    }

    fn fill(r: &mut dyn TraceReader, out: &mut Vec<u64>) -> Result<(), TraceError> {
        let mut objs = [crate::ObjectRequest::default(); 100];
        let k = r.read_objects(&mut objs)?;
        out.extend(objs[..k].iter().map(|o| o.obj_id));
        Ok(())
    }

    /// Every record in order, batches before an error consumed, the error after them, and a
    /// consumer that stops sees no error past where it stopped.
    #[test]
    fn batches_in_order_then_the_error() {
        let cfg = ReaderConfig { oracle_id_unit_bytes: 1, ..ReaderConfig::default() };
        let whole = trace("whole", 1234, 0);
        let src = TracePath { path: &whole, format: None, cfg: &cfg };
        let mut got = Vec::new();
        let end = read_ahead(src, fill, |b| {
            got.extend_from_slice(b);
            true
        })
        .unwrap();
        assert_eq!(got, (0..1234).map(|i| i % 7).collect::<Vec<u64>>());
        assert_eq!(end, ReadEnd { format: "oracleGeneral", records: 1234, skipped: 0 });

        let p = trace("cut", 1234, 5);
        let src = TracePath { path: &p, format: None, cfg: &cfg };
        let mut n = 0;
        let e = read_ahead(src, fill, |b| {
            n += b.len();
            true
        })
        .unwrap_err();
        assert_eq!(
            (
                n,
                e.to_string()
                    .ends_with("record 1235 (byte 29616): truncated record: 5 of 24 bytes")
            ),
            (1200, true),
            "{e}"
        );
        let mut batches = 0;
        let end = read_ahead(src, fill, |_| {
            batches += 1;
            batches < 2
        })
        .unwrap();
        assert_eq!((batches, end.format), (2, "oracleGeneral"));

        let missing = p.with_extension("none");
        let src = TracePath { path: &missing, format: None, cfg: &cfg };
        let e = read_ahead(src, fill, |_| true).unwrap_err();
        assert!(e.to_string().contains("No such file"), "{e}");
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_file(&whole);
    }
}
