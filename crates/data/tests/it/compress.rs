//! iolab-data's buffer contents against fio's compression options (buffer_compress_percentage,
//! chunks, text content), and the measurement of files.

use crate::common::*;
use iolab_data::measure::{measure_bytes, measure_path, MeasureOptions};
use iolab_data::{CompressContent, DataConfig};
use iolab_job::OptionValue;

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
