//! Integration tests for iolab-data: what a storage engineer would check on generated data
//! (ratios, unique-block shares, byte layout) and on verification (each failure kind).

#![allow(clippy::unwrap_used)]

use iolab_data::measure::{measure_bytes, measure_path, MeasureOptions};
use iolab_data::{
    check, stamp, CompressContent, DataConfig, DataGen, DedupeMode, FailureKind, VerifyCtx,
    VerifyKind, VerifyStats,
};
use iolab_job::{Job, OptionValue, Origin, ResolvedOption};

fn set(job: &mut Job, name: &str, v: OptionValue) {
    let raw = match &v {
        OptionValue::Str(s) => s.clone(),
        OptionValue::Int(i) => i.to_string(),
        OptionValue::Bool(b) => u8::from(*b).to_string(),
        OptionValue::Size(s) => s.to_string(),
        other => format!("{other:?}"),
    };
    job.options
        .insert(name.into(), ResolvedOption { value: v, raw, origin: Origin::Default, seq: 0 });
}

fn write_job() -> Job {
    let mut j = Job::with_defaults("w");
    j.rw = iolab_job::RwKind::Write;
    j
}

/// Sequential writes of `bs` over `total` bytes, as the engine would issue them.
fn stream(cfg: &DataConfig, seed: u64, total: usize, bs: usize) -> Vec<u8> {
    let mut g = DataGen::new(cfg, seed);
    let mut out = vec![0u8; total];
    for (i, blk) in out.chunks_mut(bs).enumerate() {
        g.fill(blk, 0, (i * bs) as u64, 0);
    }
    out
}

fn zstd_ratio(m: &iolab_data::measure::Measurement) -> f64 {
    m.codecs.iter().find(|c| c.codec == "zstd-3").unwrap().block_ratio
}

#[test]
fn compress_percentage_hits_target_zstd_ratio_with_pattern() {
    for chunk in [512u64, 4096] {
        for p in [0u64, 25, 50, 75, 90] {
            let mut job = write_job();
            if p == 0 {
                // fio: buffer_pattern without compression makes the whole buffer the pattern.
                set(&mut job, "refill_buffers", OptionValue::Bool(true));
            } else {
                set(&mut job, "buffer_compress_percentage", OptionValue::Int(p as i64));
                set(&mut job, "buffer_pattern", OptionValue::Str("0xdeadbeef".into()));
            }
            set(&mut job, "buffer_compress_chunk", OptionValue::Size(chunk));
            let cfg = job.data_config().unwrap();
            assert!(cfg.refill_buffers);
            let data = stream(&cfg, 11, 2 << 20, 4096);
            let m = measure_bytes(&data, 4096).unwrap();
            let want = 100.0 / (100.0 - p as f64);
            let got = zstd_ratio(&m);
            let stored = 1.0 / got - (100.0 - p as f64) / 100.0;
            eprintln!(
                "chunk={chunk} P={p}: zstd {got:.3} want {want:.3} excess stored {stored:.4} \
                 stream {:.3} zero-run {:.4}",
                m.codecs[1].stream_ratio, m.zero_run_bytes
            );
            // zstd spends 40–60 bytes per 4 KiB block on framing (frame, block and literal
            // headers, one match per chunk): ≈1.3 % of the block. That is < 6 % of the ratio
            // up to P=75 and ≈10 % at P=90, where the ideal stored size is only 410 bytes.
            assert!((0.0..0.016).contains(&stored), "P={p}: zstd {got:.3} want {want:.3}");
            if p <= 75 {
                assert!((got / want - 1.0).abs() < 0.06, "P={p}: zstd {got:.3}, want {want:.3}");
            }
            assert_eq!(m.zero_blocks, 0.0);
            assert!(m.zero_run_bytes < 0.001, "pattern set but zero runs {}", m.zero_run_bytes);
        }
    }
}

#[test]
fn compress_without_pattern_is_zero_runs_and_says_so() {
    let mut job = write_job();
    set(&mut job, "buffer_compress_percentage", OptionValue::Int(50));
    let cfg = job.data_config().unwrap();
    assert!(cfg.warnings().iter().any(|w| w.contains("zero suppression")));
    let data = stream(&cfg, 3, 4 << 20, 65536);
    // fio layout (measured with fio-3.33): each 512 B chunk is 256 random then 256 zero bytes.
    for chunk in data.chunks(512).take(64) {
        assert!(chunk[256..].iter().all(|b| *b == 0));
        assert!(chunk[..256].iter().filter(|b| **b == 0).count() < 8);
    }
    let m = measure_bytes(&data, 4096).unwrap();
    assert!((m.zero_run_bytes - 0.5).abs() < 0.01, "{}", m.zero_run_bytes);
    assert!(m.verdict.contains("comes from zeros"), "{}", m.verdict);
}

#[test]
fn compress_content_text_is_real_compression() {
    for p in [25i64, 50, 65] {
        let mut job = write_job();
        set(&mut job, "buffer_compress_percentage", OptionValue::Int(p));
        set(&mut job, "compress_content", OptionValue::Str("text".into()));
        let cfg = job.data_config().unwrap();
        assert_eq!(cfg.compress_content, CompressContent::Text);
        let m = measure_bytes(&stream(&cfg, 5, 2 << 20, 4096), 4096).unwrap();
        let got = zstd_ratio(&m);
        let want = 100.0 / (100.0 - p as f64);
        eprintln!("text P={p}: zstd {got:.3} want {want:.3}, zero runs {}", m.zero_run_bytes);
        assert!((got / want - 1.0).abs() < 0.05, "P={p}: zstd {got} want {want}");
        assert_eq!(m.zero_run_bytes, 0.0);
        assert!(m.verdict.contains("real compression"), "{}", m.verdict);
    }
}

/// Share of distinct `bs`-byte blocks (what `measure` reports, without the compressors).
fn unique_share(data: &[u8], bs: usize) -> f64 {
    let set: std::collections::HashSet<&[u8]> = data.chunks(bs).collect();
    set.len() as f64 / data.chunks(bs).count() as f64
}

fn dedupe_cfg(p: u32, mode: DedupeMode, spread: bool, size: u64) -> DataConfig {
    DataConfig {
        dedupe_percentage: p,
        dedupe_mode: mode,
        dedupe_spread: spread,
        refill_buffers: true,
        min_write_bs: 4096,
        region_size: Some(size),
        ..DataConfig::default()
    }
}

#[test]
fn dedupe_percentage_gives_unique_block_share() {
    let size = 16 << 20; // 4096 blocks of 4 KiB: ±0.025 is > 3 standard deviations
    for (mode, spread) in
        [(DedupeMode::Repeat, false), (DedupeMode::Repeat, true), (DedupeMode::WorkingSet, false)]
    {
        {
            for p in [0u32, 30, 50, 75] {
                let cfg = dedupe_cfg(p, mode, spread, size);
                let data = stream(&cfg, 21, size as usize, 4096);
                let unique = unique_share(&data, 4096);
                let want = 1.0 - f64::from(p) / 100.0;
                assert!(
                    (unique - want).abs() < 0.025,
                    "{mode:?} spread={spread} P={p}: unique {unique:.4} want {want}"
                );
            }
        }
    }
}

#[test]
fn repeat_duplicates_are_adjacent_spread_ones_are_not() {
    let size = 16 << 20;
    let adjacent = |cfg: &DataConfig| {
        let data = stream(cfg, 9, size as usize, 4096);
        let blocks: Vec<&[u8]> = data.chunks(4096).collect();
        let dups = blocks.windows(2).filter(|w| w[0] == w[1]).count();
        let m = measure_bytes(&data, 4096).unwrap();
        (dups, zstd_ratio(&m), m.codecs[1].stream_ratio)
    };
    let (adj_repeat, _, stream_repeat) = adjacent(&dedupe_cfg(50, DedupeMode::Repeat, false, size));
    let (adj_spread, _, stream_spread) = adjacent(&dedupe_cfg(50, DedupeMode::Repeat, true, size));
    // fio's repeat mode: every duplicate sits next to its twin (half the blocks).
    assert!((1900..2200).contains(&adj_repeat), "{adj_repeat}");
    assert!(adj_spread < 20, "{adj_spread}");
    // A 2 MiB-window stream compressor removes adjacent duplicates but not spread ones.
    assert!(stream_repeat > 1.8, "{stream_repeat}");
    assert!(stream_spread < 1.3, "{stream_spread}");
}

#[test]
fn same_seed_same_bytes_any_order() {
    let cfg = DataConfig {
        compress_percentage: 40,
        dedupe_percentage: 30,
        refill_buffers: true,
        region_size: Some(4 << 20),
        ..DataConfig::default()
    };
    let a = stream(&cfg, 77, 4 << 20, 4096);
    // Regenerate blocks out of order with a fresh generator: identical.
    let mut g = DataGen::new(&cfg, 77);
    let mut blk = vec![0u8; 4096];
    for i in (0..1024).rev().step_by(7) {
        g.fill(&mut blk, 0, i as u64 * 4096, 0);
        assert_eq!(&blk[..], &a[i * 4096..(i + 1) * 4096], "block {i}");
    }
    assert_ne!(a, stream(&cfg, 78, 4 << 20, 4096));
    let mut g2 = DataGen::new(&cfg, 77);
    g2.fill(&mut blk, 0, 0, 1);
    // Generation 1 differs from generation 0 for the first (always unique) block.
    assert_ne!(&blk[..], &a[..4096]);
}

#[test]
fn fio_default_reused_buffer_is_unique_per_block_but_stream_redundant() {
    let job = write_job();
    let cfg = job.data_config().unwrap();
    assert!(!cfg.refill_buffers && cfg.scramble_buffers);
    assert!(cfg.warnings().iter().any(|w| w.contains("~98% redundant")));
    let data = stream(&cfg, 1, 8 << 20, 4096);
    let m = measure_bytes(&data, 4096).unwrap();
    assert_eq!(m.dedupe[0].unique, m.dedupe[0].blocks, "4k blocks all distinct");
    let z = &m.codecs[1];
    assert!(z.block_ratio < 1.05, "{}", z.block_ratio);
    assert!(z.stream_ratio > 15.0, "stream ratio {}", z.stream_ratio);
    assert!(m.verdict.contains("cross-block"), "{}", m.verdict);
}

#[test]
fn refill_buffers_gives_unique_incompressible_data() {
    let mut job = write_job();
    set(&mut job, "refill_buffers", OptionValue::Bool(true));
    let cfg = job.data_config().unwrap();
    let m = measure_bytes(&stream(&cfg, 2, 8 << 20, 4096), 4096).unwrap();
    for c in &m.codecs {
        assert!(c.block_ratio < 1.001 && c.stream_ratio < 1.001, "{c:?}");
    }
    assert_eq!(m.dedupe[0].unique, m.dedupe[0].blocks);
    assert!(m.verdict.starts_with("incompressible"), "{}", m.verdict);
}

#[test]
fn from_job_follows_fio_fixups() {
    let mut job = write_job();
    set(&mut job, "buffer_compress_percentage", OptionValue::Int(100));
    let c = job.data_config().unwrap();
    assert!(c.zero_buffers && c.compress_percentage == 0, "init.c: 100% becomes zero_buffers");
    let mut buf = vec![1u8; 4096];
    DataGen::new(&c, 1).fill(&mut buf, 0, 0, 0);
    assert!(buf.iter().all(|b| *b == 0));

    let mut job = Job::with_defaults("rw");
    job.rw = iolab_job::RwKind::RandRw;
    set(&mut job, "buffer_pattern", OptionValue::Str("\"ab\"".into()));
    let c = job.data_config().unwrap();
    assert!(c.refill_buffers && !c.scramble_buffers, "pattern with reads forces refill");
    let mut buf = vec![0u8; 8];
    DataGen::new(&c, 1).fill(&mut buf, 0, 0, 0);
    assert_eq!(&buf, b"abababab");

    let mut job = write_job();
    set(&mut job, "verify", OptionValue::Str("crc32c-intel".into()));
    let c = job.data_config().unwrap();
    assert_eq!(c.verify, VerifyKind::Crc32c);
    assert!(c.refill_buffers, "init.c: verify forces refill_buffers");

    let mut job = write_job();
    set(&mut job, "dedupe_percentage", OptionValue::Int(30));
    set(&mut job, "dedupe_mode", OptionValue::Str("working_set".into()));
    let e = job.data_config().unwrap_err().to_string();
    assert!(e.contains("needs an explicit size"), "{e}");
}

#[test]
fn bad_option_values_name_the_option() {
    for (name, v, want) in [
        ("buffer_pattern", OptionValue::Str("0xzz".into()), "buffer_pattern `0xzz`"),
        ("buffer_compress_percentage", OptionValue::Int(101), "buffer_compress_percentage=101"),
        ("dedupe_mode", OptionValue::Str("sometimes".into()), "repeat, working_set"),
        ("verify", OptionValue::Str("crc7".into()), "option `verify=crc7`"),
        ("compress_content", OptionValue::Str("pattern".into()), "needs buffer_pattern"),
    ] {
        let mut job = write_job();
        set(&mut job, name, v);
        let e = job.data_config().unwrap_err().to_string();
        assert!(e.contains(want), "{name}: {e}");
        assert!(!e.contains('\n'));
    }
}

fn stamped(kind: VerifyKind, offset: u64, gen: u64, len: usize) -> (Vec<u8>, VerifyCtx) {
    let cfg = DataConfig { refill_buffers: true, ..DataConfig::default() };
    let mut buf = vec![0u8; len];
    DataGen::new(&cfg, 5).fill(&mut buf, 0, offset, gen);
    let mut ctx = VerifyCtx::new(kind, 0, offset, gen, 5);
    if kind == VerifyKind::Pattern {
        ctx.pattern = Some(vec![0xde, 0xad].into());
    }
    stamp(&mut buf, &ctx);
    (buf, ctx)
}

#[test]
fn verify_tells_corruption_misplaced_stale_torn_apart() {
    let kinds = [
        VerifyKind::Crc32c,
        VerifyKind::Xxhash,
        VerifyKind::Md5,
        VerifyKind::Sha256,
        VerifyKind::Pattern,
    ];
    for kind in kinds {
        let mut stats = VerifyStats::default();
        let (good, ctx) = stamped(kind, 65536, 3, 16384);
        let r = check(&good, &ctx);
        assert_eq!(r, Ok(()), "{kind:?}");
        stats.record(&r);

        let mut flipped = good.clone();
        flipped[9000] ^= 0x10;
        let f = check(&flipped, &ctx).unwrap_err();
        assert!(matches!(f.kind, FailureKind::Corruption { in_header: false, .. }), "{f}");
        if kind == VerifyKind::Pattern {
            assert_eq!(f.kind, FailureKind::Corruption { at: 9000, in_header: false });
        }
        stats.record(&Err(f));

        // The block written for offset 81920 read back at 65536: a misdirected write.
        let (other, _) = stamped(kind, 81920, 3, 16384);
        let f = check(&other, &ctx).unwrap_err();
        assert_eq!(f.kind, FailureKind::Misplaced { found_file: 0, found_offset: 81920 }, "{f}");
        assert!(f.to_string().contains("misplaced"), "{f}");
        stats.record(&Err(f));

        // Generation 2 still on the media where generation 3 was written: a lost write.
        let (old, _) = stamped(kind, 65536, 2, 16384);
        let f = check(&old, &ctx).unwrap_err();
        assert_eq!(f.kind, FailureKind::Stale { found_gen: 2 }, "{f}");
        stats.record(&Err(f));

        // First 8 KiB new, last 8 KiB old: torn at the 4 KiB interval boundary 8192.
        let mut torn = good.clone();
        torn[8192..].copy_from_slice(&old[8192..]);
        let f = check(&torn, &ctx).unwrap_err();
        assert_eq!(f.kind, FailureKind::Torn { at: 8192, gen_before: 3, gen_after: 2 }, "{f}");
        stats.record(&Err(f));

        let f = check(&vec![0u8; 16384], &ctx).unwrap_err();
        assert!(matches!(f.kind, FailureKind::BadHeader { zeros: true, .. }), "{f}");
        assert!(!f.to_string().contains('\n'));
        stats.record(&Err(f));

        assert_eq!(
            (
                stats.ok,
                stats.corruption,
                stats.misplaced,
                stats.stale,
                stats.torn,
                stats.bad_header
            ),
            (1, 1, 1, 1, 1, 1)
        );
    }
}

#[test]
fn verify_header_crc_and_foreign_seed() {
    let (good, ctx) = stamped(VerifyKind::Crc32c, 0, 1, 4096);
    let mut bad = good.clone();
    bad[20] ^= 1; // inside the header's offset field
    let f = check(&bad, &ctx).unwrap_err();
    assert_eq!(f.kind, FailureKind::Corruption { at: 0, in_header: true });
    let mut other = ctx.clone();
    other.seed = 6;
    let f = check(&good, &other).unwrap_err();
    assert!(matches!(f.kind, FailureKind::BadHeader { found_seed: Some(5), .. }), "{f}");
    // null pretends, as in fio.
    let n = VerifyCtx::new(VerifyKind::Null, 0, 0, 0, 0);
    assert_eq!(check(&[0u8; 4096], &n), Ok(()));
}

#[test]
fn measure_path_samples_large_inputs_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("d.bin");
    let cfg = DataConfig { compress_percentage: 50, refill_buffers: true, ..Default::default() };
    std::fs::write(&p, stream(&cfg, 4, 8 << 20, 4096)).unwrap();
    let full = measure_path(&p, &MeasureOptions { block: 4096, sample: None }).unwrap();
    assert!(!full.sampled && full.measured == 8 << 20);
    let s = measure_path(&p, &MeasureOptions { block: 4096, sample: Some(2 << 20) }).unwrap();
    assert!(s.sampled && s.measured == 2 << 20 && s.size == 8 << 20);
    assert!(s.verdict.contains("SAMPLED"), "{}", s.verdict);
    assert!((zstd_ratio(&s) - zstd_ratio(&full)).abs() < 0.05);
    let e = measure_path(&dir.path().join("missing"), &MeasureOptions::default()).unwrap_err();
    assert!(e.to_string().contains("missing: opening read-only"), "{e}");
}

/// The shared seed job (50 % compressible, pattern 0xdeadbeef, refilled), parsed by the
/// job reader: the data it asks for compresses 2:1 by real compression, not zeros.
#[test]
fn seed_compressible_job_file() {
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    let text = std::fs::read_to_string(shared.join("jobs/seed-compressible.fio")).unwrap();
    let mut env = iolab_job::Env::from_system();
    env.vars.insert("TESTDIR".into(), "/tmp".into());
    let parsed = iolab_job::parse_str_with("seed-compressible.fio", &text, &env).unwrap();
    let job = &parsed.jobs[0];
    let cfg = job.data_config().unwrap();
    assert_eq!((cfg.compress_percentage, cfg.min_write_bs), (50, 65536));
    assert_eq!(cfg.pattern, [0xde, 0xad, 0xbe, 0xef]);
    assert!(cfg.refill_buffers && cfg.compress_content == CompressContent::Pattern);
    let m = measure_bytes(&stream(&cfg, job.randseed, 4 << 20, 65536), 4096).unwrap();
    assert!((zstd_ratio(&m) - 2.0).abs() < 0.08, "{}", zstd_ratio(&m));
    assert!(m.zero_run_bytes < 0.001);
    assert_eq!(m.dedupe[4].unique, m.dedupe[4].blocks, "64 KiB writes all unique");
}
