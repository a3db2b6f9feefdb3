//! How compressible and how dedupable data really is: compression ratios by lz4 (lz4_flex),
//! zstd level 3 and gzip level 6 (flate2), per block and as one stream; the share of
//! all-zero blocks and of bytes in zero runs ≥ 64 B; dedupe ratios at 4–64 KiB blocks by
//! xxh3-128 of every block. Works on a file or a block device, read-only, streaming in
//! 1 MiB segments; above `sample` bytes it reads evenly spaced segments and says so.
//!
//! "One stream" sees as far back as each codec's window: lz4 frames of 64 KiB blocks, gzip's
//! 32 KiB, zstd -3's 2 MiB (window log 21); duplicates further apart stay invisible to it,
//! as they are to a compressing filesystem, but not to block dedupe.
//!
//! Ratios are original ÷ stored. Per block, a block that does not shrink counts at its own
//! size, as every compressing store keeps such blocks raw. The ratio "excluding zero
//! blocks" and the zero-run share say whether "50 %" is 2:1 by real compression or by zeros.

use crate::error::DataError;
use serde::Serialize;
use std::collections::HashSet;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Block sizes the dedupe ratio is reported at.
pub const DEDUPE_BLOCKS: [usize; 5] = [4096, 8192, 16384, 32768, 65536];
/// Zero runs at least this long count as zero-suppressible.
pub const ZERO_RUN_MIN: usize = 64;
const SEGMENT: usize = 1 << 20;

#[derive(Clone, Debug)]
pub struct MeasureOptions {
    /// Block size for per-block compression and the zero-block share.
    pub block: usize,
    /// Read at most this many bytes (evenly spaced 1 MiB segments); `None`: everything.
    pub sample: Option<u64>,
}

impl Default for MeasureOptions {
    fn default() -> Self {
        MeasureOptions { block: 4096, sample: Some(64 << 20) }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct CodecResult {
    pub codec: &'static str,
    /// Per block: bytes ÷ stored bytes.
    pub block_ratio: f64,
    /// Per block, all-zero blocks left out.
    pub block_ratio_nonzero: f64,
    /// The measured bytes compressed as one stream (cross-block redundancy included).
    pub stream_ratio: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct DedupeResult {
    pub block: usize,
    pub blocks: u64,
    pub unique: u64,
    /// blocks ÷ unique.
    pub ratio: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Measurement {
    pub source: String,
    pub size: u64,
    pub measured: u64,
    pub sampled: bool,
    pub block: usize,
    pub codecs: Vec<CodecResult>,
    /// Share of `block`-sized blocks that are all zeros.
    pub zero_blocks: f64,
    /// Share of bytes inside zero runs of at least [`ZERO_RUN_MIN`] bytes.
    pub zero_run_bytes: f64,
    pub dedupe: Vec<DedupeResult>,
    pub verdict: String,
}

/// A `Write` that only counts.
#[derive(Default)]
struct Count(u64);
impl Write for Count {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Acc {
    block: usize,
    bytes: u64,
    blocks: u64,
    zero_blocks: u64,
    zero_run_bytes: u64,
    /// Stored bytes per codec (lz4, zstd, gzip), all blocks and non-zero blocks.
    stored: [u64; 3],
    stored_nz: [u64; 3],
    nz_bytes: u64,
    lz4_buf: Vec<u8>,
    zstd: zstd::bulk::Compressor<'static>,
    zstd_buf: Vec<u8>,
    deflate: flate2::Compress,
    deflate_buf: Vec<u8>,
    s_lz4: lz4_flex::frame::FrameEncoder<Count>,
    s_zstd: zstd::stream::write::Encoder<'static, Count>,
    s_gzip: flate2::write::GzEncoder<Count>,
    dedupe: Vec<(usize, u64, HashSet<u128>)>,
}

fn io<'a>(path: &'a str, op: &'static str) -> impl Fn(std::io::Error) -> DataError + 'a {
    move |source| DataError::Io { path: path.into(), op, source }
}

impl Acc {
    fn new(block: usize, src: &str) -> Result<Self, DataError> {
        let e = io(src, "starting compressors");
        Ok(Acc {
            block,
            bytes: 0,
            blocks: 0,
            zero_blocks: 0,
            zero_run_bytes: 0,
            stored: [0; 3],
            stored_nz: [0; 3],
            nz_bytes: 0,
            lz4_buf: vec![0; lz4_flex::block::get_maximum_output_size(block)],
            zstd: zstd::bulk::Compressor::new(3).map_err(&e)?,
            zstd_buf: vec![0; zstd::zstd_safe::compress_bound(block)],
            deflate: flate2::Compress::new(flate2::Compression::new(6), true),
            deflate_buf: vec![0; block + block / 8 + 64],
            s_lz4: lz4_flex::frame::FrameEncoder::new(Count::default()),
            s_zstd: zstd::stream::write::Encoder::new(Count::default(), 3).map_err(&e)?,
            s_gzip: flate2::write::GzEncoder::new(Count::default(), flate2::Compression::new(6)),
            dedupe: DEDUPE_BLOCKS.iter().map(|&b| (b, 0, HashSet::new())).collect(),
        })
    }

    /// Feed one segment (a multiple of 64 KiB except at the end of the input). gzip, the
    /// slowest codec by far, runs on a second thread beside lz4, zstd and the hashing.
    fn feed(&mut self, seg: &[u8], src: &str) -> Result<(), DataError> {
        let e = io(src, "compressing");
        let block = self.block;
        let zero: Vec<bool> = seg.chunks(block).map(|b| b.iter().all(|x| *x == 0)).collect();
        self.bytes += seg.len() as u64;
        self.zero_run_bytes += zero_run_bytes(seg);
        self.blocks += zero.len() as u64;
        self.zero_blocks += zero.iter().filter(|z| **z).count() as u64;
        self.nz_bytes += seg
            .chunks(block)
            .zip(&zero)
            .filter(|(_, z)| !**z)
            .map(|(b, _)| b.len() as u64)
            .sum::<u64>();
        let (deflate, dbuf, s_gzip) = (&mut self.deflate, &mut self.deflate_buf, &mut self.s_gzip);
        let zero_ref = &zero;
        let gzip = move || -> std::io::Result<(u64, u64)> {
            let (mut all, mut nz) = (0u64, 0u64);
            for (blk, z) in seg.chunks(block).zip(zero_ref) {
                deflate.reset();
                deflate
                    .compress(blk, dbuf, flate2::FlushCompress::Finish)
                    .map_err(std::io::Error::other)?;
                // A block that did not fit (or did not shrink) is stored as is.
                let done = deflate.total_in() as usize == blk.len();
                let s =
                    if done { (deflate.total_out() as usize).min(blk.len()) } else { blk.len() };
                all += s as u64;
                if !*z {
                    nz += s as u64;
                }
            }
            s_gzip.write_all(seg)?;
            Ok((all, nz))
        };
        let (lz4_buf, zstd, zbuf) = (&mut self.lz4_buf, &mut self.zstd, &mut self.zstd_buf);
        let (stored, stored_nz) = (&mut self.stored, &mut self.stored_nz);
        let (s_lz4, s_zstd, dedupe) = (&mut self.s_lz4, &mut self.s_zstd, &mut self.dedupe);
        let mut rest = move || -> std::io::Result<()> {
            for (blk, z) in seg.chunks(block).zip(zero_ref) {
                let lz =
                    lz4_flex::block::compress_into(blk, lz4_buf).map_err(std::io::Error::other)?;
                let zs = zstd.compress_to_buffer(blk, zbuf)?;
                for (i, c) in [lz, zs].into_iter().enumerate() {
                    let s = c.min(blk.len()) as u64;
                    stored[i] += s;
                    if !*z {
                        stored_nz[i] += s;
                    }
                }
            }
            s_lz4.write_all(seg)?;
            s_zstd.write_all(seg)?;
            for (bs, n, set) in dedupe.iter_mut() {
                for blk in seg.chunks(*bs) {
                    *n += 1;
                    set.insert(xxhash_rust::xxh3::xxh3_128(blk));
                }
            }
            Ok(())
        };
        let (gz, rest) = std::thread::scope(|sc| {
            let h = sc.spawn(gzip);
            let rest = rest();
            let gz =
                h.join().unwrap_or_else(|_| Err(std::io::Error::other("gzip thread panicked")));
            (gz, rest)
        });
        rest.map_err(&e)?;
        let (all, nz) = gz.map_err(&e)?;
        self.stored[2] += all;
        self.stored_nz[2] += nz;
        Ok(())
    }

    fn finish(self, source: String, size: u64, sampled: bool) -> Result<Measurement, DataError> {
        let (s_lz4, s_zstd, s_gzip) = {
            let e = io(&source, "compressing");
            let s_lz4 = self.s_lz4.finish().map_err(|x| e(std::io::Error::other(x)))?.0;
            let s_zstd = self.s_zstd.finish().map_err(&e)?.0;
            let s_gzip = self.s_gzip.finish().map_err(&e)?.0;
            (s_lz4, s_zstd, s_gzip)
        };
        let ratio = |a: u64, b: u64| if b == 0 { 1.0 } else { a as f64 / b as f64 };
        let codecs: Vec<CodecResult> = ["lz4", "zstd-3", "gzip-6"]
            .into_iter()
            .zip([s_lz4, s_zstd, s_gzip])
            .enumerate()
            .map(|(i, (codec, stream))| CodecResult {
                codec,
                block_ratio: ratio(self.bytes, self.stored[i]),
                block_ratio_nonzero: ratio(self.nz_bytes, self.stored_nz[i]),
                stream_ratio: ratio(self.bytes, stream),
            })
            .collect();
        let dedupe = self
            .dedupe
            .into_iter()
            .map(|(block, blocks, set)| DedupeResult {
                block,
                blocks,
                unique: set.len() as u64,
                ratio: ratio(blocks, set.len() as u64),
            })
            .collect();
        let frac = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let mut m = Measurement {
            source,
            size,
            measured: self.bytes,
            sampled,
            block: self.block,
            codecs,
            zero_blocks: frac(self.zero_blocks, self.blocks),
            zero_run_bytes: frac(self.zero_run_bytes, self.bytes),
            dedupe,
            verdict: String::new(),
        };
        m.verdict = verdict(&m);
        Ok(m)
    }
}

/// Bytes lying in runs of ≥ [`ZERO_RUN_MIN`] zero bytes (runs are cut at the slice end).
pub fn zero_run_bytes(b: &[u8]) -> u64 {
    let mut total = 0u64;
    let mut run = 0usize;
    // Word-wise where possible: a zero u64 extends the run by 8.
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        if u64::from_ne_bytes(w) == 0 {
            run += 8;
            continue;
        }
        for &x in c {
            if x == 0 {
                run += 1;
            } else {
                if run >= ZERO_RUN_MIN {
                    total += run as u64;
                }
                run = 0;
            }
        }
    }
    for &x in chunks.remainder() {
        if x == 0 {
            run += 1;
        } else {
            if run >= ZERO_RUN_MIN {
                total += run as u64;
            }
            run = 0;
        }
    }
    if run >= ZERO_RUN_MIN {
        total += run as u64;
    }
    total
}

/// One sentence: is the space saving real compression, zeros, or none.
fn verdict(m: &Measurement) -> String {
    let z = m.codecs.iter().find(|c| c.codec == "zstd-3").map_or(1.0, |c| c.block_ratio);
    let saved = 1.0 - 1.0 / z;
    // Below 5 % saved no store bothers: fio's scramble stamps alone save ~2 %.
    let mut s = if saved < 0.05 {
        format!("incompressible per {} B block (zstd {:.2}:1)", m.block, z)
    } else if m.zero_run_bytes >= 0.8 * saved {
        format!(
            "{:.0}% saved (zstd {:.2}:1) comes from zeros: {:.0}% of bytes are in zero runs \
             ≥ {ZERO_RUN_MIN} B; zero suppression alone gets it",
            saved * 100.0,
            z,
            m.zero_run_bytes * 100.0
        )
    } else {
        format!(
            "{:.0}% saved (zstd {:.2}:1) by real compression: only {:.0}% of bytes are zero runs",
            saved * 100.0,
            z,
            m.zero_run_bytes * 100.0
        )
    };
    if let Some(zs) = m.codecs.iter().find(|c| c.codec == "zstd-3") {
        if zs.stream_ratio > 1.5 * zs.block_ratio && zs.stream_ratio > 1.5 {
            s.push_str(&format!(
                "; as one stream it compresses {:.1}:1, so blocks repeat each other \
                 (cross-block redundancy)",
                zs.stream_ratio
            ));
        }
    }
    if m.sampled {
        s.push_str(&format!("; SAMPLED {} of {} bytes", m.measured, m.size));
    }
    s
}

/// Measure bytes in memory (no sampling).
pub fn measure_bytes(data: &[u8], block: usize) -> Result<Measurement, DataError> {
    let src = "<memory>";
    let mut acc = Acc::new(block.max(1), src)?;
    for seg in data.chunks(SEGMENT) {
        acc.feed(seg, src)?;
    }
    acc.finish(src.to_string(), data.len() as u64, false)
}

/// Measure a file or block device, read-only.
pub fn measure_path(path: &Path, opts: &MeasureOptions) -> Result<Measurement, DataError> {
    let src = path.display().to_string();
    // A regular file or block device: a FIFO, socket or /dev/zero is refused at open.
    let accept = iolab_core::input::Accept { block_devices: true };
    let mut f = iolab_core::input::open_input(path, "input", accept).map_err(|e| {
        let kind = match &e {
            iolab_core::input::InputError::Open { source, .. } => source.kind(),
            _ => std::io::ErrorKind::InvalidInput,
        };
        io(&src, "opening read-only")(std::io::Error::new(kind, e.reason()))
    })?;
    // Seeking to the end gives the size of block devices too (metadata says 0 for them).
    let size = f.seek(SeekFrom::End(0)).map_err(io(&src, "finding the size"))?;
    if size == 0 {
        let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "the input is empty");
        return Err(io(&src, "nothing to measure")(e));
    }
    let seg = SEGMENT as u64;
    let nseg = size.div_ceil(seg);
    let want = opts.sample.map_or(nseg, |s| s.div_ceil(seg).max(1)).min(nseg);
    let sampled = want < nseg;
    let mut acc = Acc::new(opts.block.max(1), &src)?;
    let mut buf = vec![0u8; SEGMENT];
    for i in 0..want {
        if iolab_core::stop::requested() {
            let e = std::io::Error::new(std::io::ErrorKind::Interrupted, "stopped by a signal");
            return Err(io(&src, "reading")(e));
        }
        // Evenly spaced segments when sampling, all of them otherwise.
        let idx = if sampled { i * nseg / want } else { i };
        let off = idx * seg;
        let len = seg.min(size - off) as usize;
        f.seek(SeekFrom::Start(off)).map_err(io(&src, "seeking"))?;
        f.read_exact(&mut buf[..len]).map_err(io(&src, "reading"))?;
        acc.feed(&buf[..len], &src)?;
    }
    acc.finish(src, size, sampled)
}

impl Measurement {
    /// The human table.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let mb = |b: u64| b as f64 / (1u64 << 20) as f64;
        s.push_str(&format!(
            "{}: {:.1} MiB{}\n",
            self.source,
            mb(self.size),
            if self.sampled {
                format!(" (sampled {:.1} MiB in 1 MiB segments)", mb(self.measured))
            } else {
                String::new()
            }
        ));
        s.push_str(&format!(
            "\n{:<8} {:>14} {:>18} {:>12}\n",
            "codec",
            format!("per {} B", self.block),
            "w/o zero blocks",
            "one stream"
        ));
        for c in &self.codecs {
            s.push_str(&format!(
                "{:<8} {:>13.3}: {:>17.3}: {:>11.3}:\n",
                c.codec, c.block_ratio, c.block_ratio_nonzero, c.stream_ratio
            ));
        }
        s.push_str(&format!(
            "\nall-zero {} B blocks: {:.2}%   bytes in zero runs >= {} B: {:.2}%\n",
            self.block,
            self.zero_blocks * 100.0,
            ZERO_RUN_MIN,
            self.zero_run_bytes * 100.0
        ));
        s.push_str(&format!(
            "\n{:<8} {:>10} {:>10} {:>8} {:>8}\n",
            "dedupe", "blocks", "unique", "ratio", "unique%"
        ));
        for d in &self.dedupe {
            s.push_str(&format!(
                "{:<8} {:>10} {:>10} {:>7.3}: {:>7.2}%\n",
                format!("{} KiB", d.block / 1024),
                d.blocks,
                d.unique,
                d.ratio,
                100.0 * d.unique as f64 / d.blocks.max(1) as f64
            ));
        }
        s.push_str(&format!("\n{}\n", self.verdict));
        s
    }
}
