//! The parts of [`JobEvidence`] a job specification determines: engine, `direct`,
//! `iodepth`, rates, whether the data repeats run to run (fio init.c `td_fill_rand_seeds`:
//! `randrepeat=1`, the default, or an explicit `randseed`), and the zero-run share of the
//! data the job writes, measured on buffers generated exactly as the engine generates them
//! (`iolab_data::DataGen` with the engine's data seed, `iolab_workload::seeds::data_seed`;
//! runs of zeros as `iolab_data::measure::zero_run_bytes` counts them).
//! What only the run knows (devices, filesystem, zero reads, CPU) is filled in by the caller.

use iolab_data::measure::zero_run_bytes;
use iolab_data::DataGen;
use iolab_job::Job;

use crate::{DataFacts, JobEvidence};

/// Bytes of generated write data measured for the zero-run share.
const SAMPLE_BYTES: u64 = 1 << 20;

/// Evidence from the job's options alone.
pub fn job_evidence(job: &Job) -> JobEvidence {
    JobEvidence {
        ioengine: job.ioengine.clone(),
        direct: job.direct,
        iodepth: job.iodepth,
        rate_bytes: [job.rate.read, job.rate.write],
        rate_iops: [job.rate_iops.read, job.rate_iops.write],
        data: DataFacts {
            zero_run_share: if job.rw.has_write() { zero_run_share(job) } else { None },
            repeats_run_to_run: job.randrepeat || job.randseed_set,
            repeat_block_share: if job.rw.has_write() { repeat_block_share(job) } else { None },
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Share of zero-run bytes in the first [`SAMPLE_BYTES`] the job would write (consecutive
/// blocks of the job's minimum write size from offset 0).
pub fn zero_run_share(job: &Job) -> Option<f64> {
    let (zero, total) = written_blocks(job, SAMPLE_BYTES, zero_run_bytes)?
        .into_iter()
        .fold((0u64, 0u64), |(z, t), (zb, len)| (z + zb, t + len));
    Some(zero as f64 / total.max(1) as f64)
}

/// Share of the blocks in the first [`SAMPLE_BYTES`] the job would write that equal an
/// earlier block byte for byte (what a block-level dedupe would store once).
pub fn repeat_block_share(job: &Job) -> Option<f64> {
    let mut seen = std::collections::HashSet::new();
    let blocks = written_blocks(job, SAMPLE_BYTES, |b| seen.insert(b.to_vec()))?;
    let dup = blocks.iter().filter(|(new, _)| !new).count();
    Some(dup as f64 / blocks.len().max(1) as f64)
}

/// What the job's options alone say about its data, as one-line warnings (`iolab parse`
/// prints them; `iolab run` gives the same through its advice): zero runs that a
/// compressing target would drop, and blocks that repeat within the run.
pub fn job_warnings(job: &Job) -> Vec<String> {
    let mut out = Vec::new();
    if !job.rw.has_write() {
        return out;
    }
    let min = crate::checks::zero_compress::MIN_ZERO_SHARE;
    if let Some(z) = zero_run_share(job).filter(|&z| z >= min) {
        out.push(format!(
            "job '{}': {:.0}% of the bytes it writes are zero runs: a compressing or \
             zero-detecting target stores only the rest (write incompressible data for a media \
             figure)",
            job.name,
            z * 100.0
        ));
    }
    if let Some(r) = repeat_block_share(job).filter(|&r| r >= min) {
        out.push(format!(
            "job '{}': {:.0}% of the blocks it writes repeat an earlier block byte for byte: a \
             deduplicating target stores them once",
            job.name,
            r * 100.0
        ));
    }
    out
}

/// The first `bytes` the job's first clone writes to its first file, block by block from
/// offset 0 in blocks of its minimum write size, regenerated with the engine's own data seed
/// (`iolab_workload::seeds::data_seed`, thread 1) so the advice measures the bytes the
/// engine writes. `f` sees each block; its results are returned with the block lengths.
pub fn written_blocks<T>(
    job: &Job,
    bytes: u64,
    mut f: impl FnMut(&[u8]) -> T,
) -> Option<Vec<(T, u64)>> {
    let cfg = job.data_config().ok()?;
    let bs = job.bs.write.min.clamp(512, bytes.max(512));
    let mut gen = DataGen::new(&cfg, iolab_workload::seeds::data_seed(job.randseed, 1));
    let mut buf = vec![0u8; bs as usize];
    let mut out = Vec::new();
    let mut off = 0;
    while off < bytes {
        gen.fill(&mut buf, 0, off, 0);
        out.push((f(&buf), bs));
        off += bs;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(args: &[&str]) -> Job {
        let opts = iolab_job::LoadOptions {
            cmdline: args.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        iolab_job::load(&opts).unwrap().jobs.remove(0)
    }

    #[test]
    fn zero_run_share_follows_fio_data_layout() {
        let base = ["--name=w", "--rw=write", "--bs=4k", "--size=1m"];
        let with = |extra: &str| {
            let mut v = base.to_vec();
            v.push(extra);
            zero_run_share(&job(&v)).unwrap()
        };
        // fio default data: random, no zero runs.
        assert!(zero_run_share(&job(&base)).unwrap() < 0.01);
        // 50 % compressible: each 512-byte chunk is half random, half zeros.
        let s = with("--buffer_compress_percentage=50");
        assert!((s - 0.5).abs() < 0.02, "{s}");
        assert!((with("--zero_buffers=1") - 1.0).abs() < 1e-9);
    }

    #[test]
    fn repeated_blocks_and_parse_warnings_follow_the_data_options() {
        let share = |a: &[&str]| repeat_block_share(&job(a)).unwrap();
        let base = ["--name=w", "--rw=write", "--bs=4k", "--size=1m"];
        let with = |x: &'static str| {
            let mut v = base.to_vec();
            v.push(x);
            v
        };
        // fio's default data: scrambled per block, no block repeats.
        assert_eq!(share(&base), 0.0);
        // Without the scramble every block after the first repeats it.
        assert_eq!(share(&with("--scramble_buffers=0")), 255.0 / 256.0);
        let d = share(&with("--dedupe_percentage=50"));
        assert!((0.35..0.65).contains(&d), "{d}");
        assert!(job_warnings(&job(&base)).is_empty());
        let w = job_warnings(&job(&with("--buffer_compress_percentage=50")));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("job 'w': 50% of the bytes it writes are zero runs"), "{w:?}");
        let w = job_warnings(&job(&with("--dedupe_percentage=50")));
        assert!(w[0].contains("repeat an earlier block byte for byte"), "{w:?}");
        assert!(job_warnings(&job(&["--name=r", "--rw=read", "--zero_buffers=1"])).is_empty());
    }

    #[test]
    fn options_carried_over() {
        let e = job_evidence(&job(&[
            "--name=r",
            "--rw=randread",
            "--ioengine=libaio",
            "--iodepth=16",
            "--direct=1",
            "--rate_iops=500",
            "--randrepeat=0",
        ]));
        assert_eq!((e.ioengine.as_str(), e.iodepth, e.direct), ("libaio", 16, true));
        assert_eq!(e.rate_iops, [500, 500]);
        assert!(!e.data.repeats_run_to_run);
        assert_eq!(e.data.zero_run_share, None);
        assert!(job_evidence(&job(&["--name=w", "--rw=write"])).data.repeats_run_to_run);
    }
}
