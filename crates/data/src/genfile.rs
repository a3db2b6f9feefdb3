//! `iolab data gen`: a stream of a given compressibility, dedupe and pattern. The flags become
//! the fio job a user would write (`--compress 50` is `buffer_compress_percentage=50`), so the
//! same resolution, checks and warnings apply as to a job's writes (`iolab_job::gen_config`),
//! and the bytes come from the same [`DataGen`].

use crate::{DataConfig, DataError, DataGen};
use std::io::Write;

/// Why a generated stream was not written whole.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    #[error(transparent)]
    Data(#[from] DataError),
    #[error("{name}: stopped after {done} of {total} bytes; nothing written")]
    Stopped { name: String, done: u64, total: u64 },
    #[error("writing {name}: {source}")]
    Write { name: String, source: std::io::Error },
}

/// fio's buffer options as `iolab data gen` takes them.
#[derive(Clone, Debug, Default)]
pub struct GenSpec {
    /// Total bytes and the size of each block (the dedupe and chunking unit).
    pub size: u64,
    pub bs: u64,
    pub seed: u64,
    /// buffer_compress_percentage.
    pub compress: u32,
    /// buffer_compress_chunk, in bytes and as written.
    pub chunk: (u64, String),
    /// compress_content.
    pub content: Option<String>,
    /// dedupe_percentage, dedupe_mode, dedupe_working_set_percentage, dedupe_spread.
    pub dedupe: u32,
    pub dedupe_mode: String,
    pub dedupe_working_set: u32,
    pub dedupe_spread: bool,
    /// buffer_pattern.
    pub pattern: Option<String>,
    /// zero_buffers.
    pub zeros: bool,
    /// fio's default buffers (one random buffer reused with scrambles) instead of refill.
    pub fio_default: bool,
}

/// Write `total` bytes of `cfg`'s data (seed `seed`, blocks of `bs`) to `w`, named `name` in
/// errors; stops at the process-wide stop request.
pub fn write_data(
    w: &mut dyn Write,
    name: &str,
    cfg: &DataConfig,
    seed: u64,
    total: u64,
    bs: u64,
) -> Result<(), GenError> {
    let mut g = DataGen::new(cfg, seed);
    let bs = bs.max(1);
    // Batches of whole blocks, about 4 MiB, so each write(2) is large.
    let per_batch = (4u64 << 20).div_ceil(bs).max(1);
    let mut buf = vec![0u8; (per_batch * bs) as usize];
    let mut off = 0u64;
    while off < total {
        if iolab_core::stop::requested() {
            return Err(GenError::Stopped { name: name.to_string(), done: off, total });
        }
        let len = (per_batch * bs).min(total - off) as usize;
        for (i, blk) in buf[..len].chunks_mut(bs as usize).enumerate() {
            g.fill(blk, 0, off + i as u64 * bs, 0);
        }
        w.write_all(&buf[..len])
            .map_err(|source| GenError::Write { name: name.to_string(), source })?;
        off += len as u64;
    }
    Ok(())
}

/// The line `iolab data gen` prints when done: what was written, where, how fast.
pub fn summary(spec: &GenSpec, cfg: &DataConfig, path: &std::path::Path, secs: f64) -> String {
    let total = spec.size;
    format!(
        "wrote {} ({} B) to {} in {:.2} s ({:.0} MiB/s): bs {}, compress {}%, dedupe {}% ({:?}{}), seed {}",
        iolab_core::units::format_bytes_iec(total),
        total,
        path.display(),
        secs,
        total as f64 / (1 << 20) as f64 / secs.max(1e-9),
        spec.bs,
        cfg.compress_percentage,
        cfg.dedupe_percentage,
        cfg.dedupe_mode,
        if cfg.dedupe_spread { ", spread" } else { "" },
        spec.seed
    )
}
