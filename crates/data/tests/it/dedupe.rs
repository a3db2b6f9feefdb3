//! iolab-data's dedupe_percentage, repeat and spread modes, seeds, fio's reused buffer and
//! refill_buffers.

use crate::common::*;
use iolab_data::measure::measure_bytes;
use iolab_data::{DataConfig, DataGen, DedupeMode};
use iolab_job::OptionValue;

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
