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

/// fio's buffer options as `iolab data gen` takes them; with the `clap` feature, also its
/// flags (one type: no flag-by-flag conversion in the binary).
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "clap", derive(clap::Args), group(skip))]
pub struct GenSpec {
    /// Bytes to write (fio units: 1g = 1 GiB).
    #[cfg_attr(feature = "clap", arg(long, value_parser = size_arg("size", 0)))]
    pub size: u64,
    /// buffer_compress_percentage: percent of each chunk that compresses away.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0))]
    pub compress: u32,
    /// buffer_compress_chunk (0: one chunk per block).
    #[cfg_attr(feature = "clap", arg(long, default_value = "512", value_parser = chunk_arg))]
    pub chunk: (u64, String),
    /// compress_content: zeros, text or pattern (default: pattern if --pattern, else zeros).
    #[cfg_attr(feature = "clap", arg(long))]
    pub content: Option<String>,
    /// dedupe_percentage: percent of blocks that duplicate another.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0))]
    pub dedupe: u32,
    /// dedupe_mode: repeat (fio default: duplicates next to their twin) or working_set.
    #[cfg_attr(feature = "clap", arg(long, default_value = "repeat"))]
    pub dedupe_mode: String,
    /// dedupe_working_set_percentage (working_set mode).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 5))]
    pub dedupe_working_set: u32,
    /// dedupe_spread=1: duplicates spread over the whole file instead of adjacent.
    #[cfg_attr(feature = "clap", arg(long))]
    pub dedupe_spread: bool,
    /// buffer_pattern, in fio's forms: 0xdeadbeef, "string", 123, 'file', combined.
    #[cfg_attr(feature = "clap", arg(long))]
    pub pattern: Option<String>,
    /// zero_buffers: all zeros.
    #[cfg_attr(feature = "clap", arg(long))]
    pub zeros: bool,
    /// Write what fio writes with no buffer options: one random buffer reused with small
    /// scrambles (instead of refill_buffers=1).
    #[cfg_attr(feature = "clap", arg(long))]
    pub fio_default: bool,
    /// Block size of each write (the dedupe and chunking unit).
    #[cfg_attr(feature = "clap", arg(long, default_value = "4k", value_parser = size_arg("bs", 1)))]
    pub bs: u64,
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1))]
    pub seed: u64,
}

/// A `--what` size flag in fio units (kb_base=1024), at least `min` bytes.
#[cfg(feature = "clap")]
pub fn size_arg(what: &'static str, min: u64) -> impl Fn(&str) -> Result<u64, String> + Clone {
    move |s| {
        let v = iolab_core::units::parse_size(s, iolab_core::units::KbBase::K1024)
            .map_err(|e| format!("--{what}: {e}"))?;
        if v < min {
            return Err(format!("--{what} must be at least {min} byte"));
        }
        Ok(v)
    }
}

/// `--chunk`: the size in bytes and the text as written (for the job option).
#[cfg(feature = "clap")]
fn chunk_arg(s: &str) -> Result<(u64, String), String> {
    Ok((size_arg("chunk", 0)(s)?, s.to_string()))
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
