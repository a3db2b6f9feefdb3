//! iolab-model's simulator on the seed scenarios written up in examples/*.md: metadata caching,
//! short stroking, writeback, dm-cache hot sets, gated workers, ramp time.

use iolab_core::rand::SplitMix64;
use iolab_core::{IoDir, IoRequest, Nanos};
use iolab_model::sim::{self, IterSource, SimOptions, SimReport, WorkerSpec};
use iolab_model::tier::{spec, Hierarchy};

// ---------------------------------------------------------------------------------------
// Seed scenarios (examples/*.md explain the numbers).

fn hierarchy(tiers: &[&str], backing: &str) -> Hierarchy {
    let t = tiers.iter().enumerate().map(|(i, s)| spec::parse_tier(s, i).unwrap()).collect();
    Hierarchy::new(t, spec::parse_backing(backing).unwrap()).unwrap()
}

fn worker(name: &str, reqs: Vec<IoRequest>, iodepth: usize) -> WorkerSpec {
    WorkerSpec::new(name, Box::new(IterSource(reqs.into_iter())), iodepth)
}

fn simulate(h: &mut Hierarchy, workers: Vec<WorkerSpec>) -> SimReport {
    sim::run(h, workers, SimOptions::default())
}

/// `n` random reads of `bs` bytes, aligned, uniformly over `[base, base + span)`.
fn random_reads(n: usize, base: u64, span: u64, bs: u64, seed: u64) -> Vec<IoRequest> {
    let mut r = SplitMix64(seed);
    (0..n).map(|_| IoRequest::new(IoDir::Read, 0, base + r.below(span / bs) * bs, bs)).collect()
}

/// Every `bs` block of `[0, span)` once, in a seeded random order (fio randread with its
/// random map).
fn permuted_reads(span: u64, bs: u64, seed: u64) -> Vec<IoRequest> {
    let n = (span / bs) as usize;
    let mut idx: Vec<u64> = (0..n as u64).collect();
    let mut r = SplitMix64(seed);
    for i in (1..n).rev() {
        idx.swap(i, r.below(i as u64 + 1) as usize);
    }
    idx.into_iter().map(|b| IoRequest::new(IoDir::Read, 0, b * bs, bs)).collect()
}

/// (a) ZFS primarycache=metadata on a 128 KiB-record dataset: 32× read amplification.
#[test]
fn scenario_a_metadata_only_caching_reads_32x() {
    let reqs = permuted_reads(64 << 20, 4096, 7);
    let user_bytes: u64 = reqs.iter().map(|r| r.len).sum();
    let arc = "ram:1GiB:lru:block=128KiB";
    let mut meta = hierarchy(&[&format!("{arc}:metadata_only=true")], "hdd:7200");
    let rm = simulate(&mut meta, vec![worker("randread", reqs.clone(), 1)]);
    assert_eq!(rm.results[0].read.io_bytes, user_bytes);
    assert_eq!(rm.backing.bytes_read, 32 * user_bytes);
    let mut all = hierarchy(&[arc], "hdd:7200");
    let ra = simulate(&mut all, vec![worker("randread", reqs, 1)]);
    assert_eq!(ra.backing.bytes_read, user_bytes);
    // 31 of every 32 reads hit the cached record.
    assert!((ra.tiers[0].read_hit_ratio - 31.0 / 32.0).abs() < 1e-9);
    // Every read pays a disk access under metadata-only caching; with full caching 1 in 32.
    let (pm, pa) = (rm.results[0].read.clat.mean, ra.results[0].read.clat.mean);
    assert!(pm > 10.0 * pa, "mean clat {pm} vs {pa}");
}

/// Issue 17 part 4: the text states scenario (a)'s figures instead of leaving them to be
/// worked out: 32.0x read amplification on the disk, every read served by it, nothing dirty;
/// with full caching 1.0x, 31/32 of reads from the ARC, which is warm from the first sample.
#[test]
fn sim_text_derives_read_amplification_served_shares_and_warm_up() {
    let reqs = permuted_reads(64 << 20, 4096, 7);
    let arc = "ram:1GiB:lru:block=128KiB";
    let mut meta = hierarchy(&[&format!("{arc}:metadata_only=true")], "hdd:7200");
    let rm = simulate(&mut meta, vec![worker("randread", reqs.clone(), 1)]);
    let d = rm.derived(0.9);
    let names: Vec<&str> = d.read_amplification.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!((d.read_amplification[1].1 - 32.0).abs() < 1e-9, "{:?}", d.read_amplification);
    assert!((d.read_served[1].1 - 1.0).abs() < 1e-9, "{:?}", d.read_served);
    assert_eq!(d.warm_s[0].1, None, "metadata-only never hits on data reads");
    assert_eq!(d.dirty_bytes, 0);
    let text = rm.model_text();
    assert!(text.contains(&format!("{} 32.0x", names[1])), "{text}");
    assert!(text.contains(&format!("{} 100.0%", names[1])), "{text}");
    assert!(text.contains("dirty data left at the end: 0 B"), "{text}");
    let mut all = hierarchy(&[arc], "hdd:7200");
    let ra = simulate(&mut all, vec![worker("randread", reqs, 1)]);
    let d = ra.derived(0.9);
    assert!((d.read_amplification[1].1 - 1.0).abs() < 1e-9, "{:?}", d.read_amplification);
    assert!((d.read_served[0].1 - 31.0 / 32.0).abs() < 1e-9, "{:?}", d.read_served);
    assert!((d.read_served[1].1 - 1.0 / 32.0).abs() < 1e-9, "{:?}", d.read_served);
    // Each 128 KiB record misses once, then serves the other 31 reads: the interval hit
    // ratio climbs as the ARC fills; warm is the first sample at 90 % of the last one.
    let warm = d.warm_s[0].1.unwrap();
    let h: Vec<(f64, f64)> =
        ra.series.iter().map(|p| (p.t_ns as f64 / 1e9, p.read_hit_ratio[0])).collect();
    let last = h.last().unwrap().1;
    let k = h.iter().position(|&(t, _)| t == warm).unwrap();
    assert!(k > 0 && h[k].1 >= 0.9 * last && h[k - 1].1 < 0.9 * last, "{warm} s in {h:?}");
    assert!((2.0..4.0).contains(&warm), "warm at {warm} s: {h:?}");
    assert!(ra.model_text().contains(&format!("final hit ratio at t={warm:.3}s")));
    assert!(ra.model_text().contains("96.9%"), "{}", ra.model_text());
}

/// Mean QD1 latency (ms) of 8 KiB random reads over `span` bytes at the start of the disk.
fn qd1_random_read_ms(backing: &str, span: u64) -> f64 {
    let mut h = hierarchy(&[], backing);
    let r = simulate(&mut h, vec![worker("rr", random_reads(3000, 0, span, 8192, 42), 1)]);
    r.results[0].read.clat.mean / 1e6
}

/// (b) QD1 8 KiB random reads, 7.2K vs 10K drive, over 1 GB, 100 GB and 1000 GB spans.
#[test]
fn scenario_b_short_stroking_7200_vs_10k() {
    let spans = [1_000_000_000u64, 100_000_000_000, 1_000_000_000_000];
    let slow: Vec<f64> = spans.iter().map(|&s| qd1_random_read_ms("hdd:7200", s)).collect();
    let fast: Vec<f64> = spans.iter().map(|&s| qd1_random_read_ms("hdd:10k", s)).collect();
    eprintln!("7.2K {slow:?}\n10K {fast:?}");
    for (got, want) in slow.iter().zip([5.5, 7.5, 12.5]).chain(fast.iter().zip([4.0, 4.5, 7.0])) {
        assert!((got - want).abs() <= 0.1 * want, "{got:.2} ms vs ≈{want} ms");
    }
    // The gap widens with the span: rotation differs by a constant 1.2 ms, seeks by more and
    // more as the arm travels further.
    let gaps: Vec<f64> = slow.iter().zip(&fast).map(|(s, f)| s - f).collect();
    assert!(gaps[0] < gaps[1] && gaps[1] < gaps[2], "{gaps:?}");
}

/// (b) again with the presets expressed as device profiles (the form `iolab calibrate`
/// writes): the field's figures still come out.
#[test]
fn scenario_b_holds_with_hdd_presets_as_profiles() {
    let spans = [1_000_000_000u64, 100_000_000_000, 1_000_000_000_000];
    let ms = |b: &str| -> Vec<f64> { spans.iter().map(|&s| qd1_random_read_ms(b, s)).collect() };
    let (slow, fast) = (ms("profile:hdd-7200"), ms("profile:hdd-10k"));
    eprintln!("profile 7.2K {slow:?}\nprofile 10K {fast:?}");
    for (got, want) in slow.iter().zip([5.5, 7.5, 12.5]).chain(fast.iter().zip([4.0, 4.5, 7.0])) {
        assert!((got - want).abs() <= 0.1 * want, "{got:.2} ms vs ≈{want} ms");
    }
}

/// `total` bytes of sequential `bs` writes from `base`, then an fsync (fio `end_fsync=1`).
fn seq_writes(base: u64, total: u64, bs: u64) -> Vec<IoRequest> {
    let mut v: Vec<IoRequest> =
        (0..total / bs).map(|i| IoRequest::new(IoDir::Write, 0, base + i * bs, bs)).collect();
    v.push(IoRequest::new(IoDir::Sync, 0, 0, 0));
    v
}

/// (c) Two sequential writers on one HDD thrash the arm; a write-back cache that destages in
/// sorted batches gives most of the bandwidth back.
#[test]
fn scenario_c_two_sequential_writers_and_writeback() {
    let total = 512 << 20;
    let bs = 128 << 10;
    let far = 500u64 << 30; // second writer halfway in: a slower zone, a long seek away
    let alone = |base: u64| {
        let mut h = hierarchy(&[], "hdd:7200");
        simulate(&mut h, vec![worker("w", seq_writes(base, total, bs), 1)]).total_bw(true)
    };
    let (solo0, solo1) = (alone(0), alone(far));
    // Both streams written one after the other, no seeks between: the best two writers can do.
    let ideal = 2.0 / (1.0 / solo0 + 1.0 / solo1);
    let two = || {
        vec![worker("w0", seq_writes(0, total, bs), 1), worker("w1", seq_writes(far, total, bs), 1)]
    };
    let mut bare = hierarchy(&[], "hdd:7200");
    let thrash = simulate(&mut bare, two()).total_bw(true);
    let mut wb = hierarchy(&["ram:256MiB:lru:writeback:dirty_ratio=0.2"], "hdd:7200");
    let rep = simulate(&mut wb, two());
    let cached = rep.total_bw(true);
    eprintln!(
        "alone {:.1} / {:.1} MB/s (ideal pair {:.1}), two writers {:.1} MB/s, write-back {:.1} MB/s",
        solo0 / 1e6,
        solo1 / 1e6,
        ideal / 1e6,
        thrash / 1e6,
        cached / 1e6
    );
    // One writer streams at the zone's media rate: 150 MB/s outer, ~115 MB/s halfway in.
    assert!((solo0 / 1e6 - 150.0).abs() < 3.0 && (solo1 / 1e6 - 115.0).abs() < 5.0);
    // Two interleaved writers pay a seek and a rotation for every 128 KiB.
    assert!(thrash < 0.1 * ideal, "{thrash}");
    // Write-back destages sorted batches (~6 MiB per stream per pass): most of it comes back.
    assert!(cached > 0.7 * ideal, "{cached}");
    assert!(cached > 10.0 * thrash);
    assert_eq!(wb.dirty_blocks(0), 0, "end_fsync must leave nothing dirty");
}

/// (d) RAM : SSD : HDD at 1 : 4 : 20 with a hot set larger than RAM but within the SSD tier:
/// once warm, the dm-cache (smq) tier serves most of the reads that RAM misses.
#[test]
fn scenario_d_dm_cache_tiers_hot_set() {
    let span = 5u64 << 30; // 20 units of 256 MiB
    let hot = 768u64 << 20; // 3 units: more than RAM (1), within the SSD tier (4)
    let mut r = SplitMix64(9);
    let reqs: Vec<IoRequest> = (0..300_000)
        .map(|_| {
            let off = if r.below(10) < 9 {
                r.below(hot / 4096) * 4096
            } else {
                r.below(span / 4096) * 4096
            };
            IoRequest::new(IoDir::Read, 0, off, 4096)
        })
        .collect();
    let mut h =
        hierarchy(&["ram:256MiB:lru", "nvme:1GiB:smq:writethrough:block=64KiB"], "hdd:7200");
    let rep = simulate(&mut h, vec![worker("hot", reqs, 4)]);
    let (ram, ssd) = (&rep.tiers[0], &rep.tiers[1]);
    eprintln!(
        "ram hit {:.3}, ssd hit {:.3}, ssd fill {:.3}, promotions {}",
        ram.read_hit_ratio, ssd.read_hit_ratio, ssd.fill, ssd.stats.promotions
    );
    let last = rep.series.last().unwrap();
    eprintln!("last interval: hit {:?} fill {:?}", last.read_hit_ratio, last.fill);
    assert!(ssd.read_hit_ratio > 0.5);
    // Warm: in the last interval the SSD tier answers most RAM misses.
    assert!(last.read_hit_ratio[1] > 0.75, "{:?}", last.read_hit_ratio);
}

/// fio's stonewall / wait_for in the simulation: a gated worker issues nothing until the
/// workers it waits on have completed their last I/O, and its runtime counts from its start.
#[test]
fn gated_workers_start_when_their_predecessors_finish() {
    let mut h = hierarchy(&[], "hdd:7200");
    let a = worker("a", random_reads(200, 0, 1 << 30, 4096, 1), 4);
    let b = worker("b", random_reads(200, 0, 1 << 30, 4096, 2), 4);
    let mut c = worker("c", random_reads(200, 0, 1 << 30, 4096, 3), 4);
    c.after = vec![0, 1];
    let r = simulate(&mut h, vec![a, b, c]);
    let end = |i: usize| r.results[i].start_ns + r.results[i].runtime_ns;
    assert_eq!(r.results[0].start_ns, 0);
    assert_eq!(r.results[1].start_ns, 0);
    assert!(r.results[2].start_ns >= end(0).max(end(1)), "c started before a and b ended");
    // Alone on the drive, c runs faster per I/O than a and b did sharing it.
    let mean = |i: usize| r.results[i].read.clat.mean;
    assert!(mean(2) < mean(0).min(mean(1)), "{} vs {} {}", mean(2), mean(0), mean(1));
    assert_eq!(r.results.iter().map(|j| j.read.total_ios).sum::<u64>(), 600);

    // A per-worker runtime stops the gated worker relative to its own start.
    let mut h = hierarchy(&[], "hdd:7200");
    let a = worker("a", random_reads(100, 0, 1 << 30, 4096, 4), 1);
    let mut b = worker("b", random_reads(100_000, 0, 1 << 30, 4096, 5), 1);
    b.after = vec![0];
    b.runtime = Some(Nanos::from_millis(500));
    let r = simulate(&mut h, vec![a, b]);
    let rt = r.results[1].runtime_ns;
    assert!((480_000_000..=560_000_000).contains(&rt), "b ran {rt} ns");
    assert!(r.results[1].start_ns >= r.results[0].start_ns + r.results[0].runtime_ns);
}

/// fio's ramp_time in the simulation: the cache sees the ramp's I/O, the report does not, and
/// a time_based runtime counts after the ramp.
#[test]
fn ramp_time_warms_the_cache_but_is_not_reported() {
    let mut h = hierarchy(&["ram:64MiB:lru"], "hdd:7200");
    // 2,000 reads over a 4 MiB set that fits the RAM tier: the ramp takes the misses.
    let reqs: Vec<IoRequest> = random_reads(2_000, 0, 4 << 20, 4096, 9);
    let mut w = worker("w", reqs, 1);
    w.ramp = Some(Nanos::from_millis(1_000));
    let r = simulate(&mut h, vec![w]);
    let j = &r.results[0];
    let tier = &r.tiers[0].stats;
    assert_eq!(tier.read_hits + tier.read_misses, 2_000, "the cache saw every read");
    assert!(j.read.total_ios < 2_000 && j.read.total_ios > 1_000, "{}", j.read.total_ios);
    // Every miss costs a seek; after a 1 s ramp at ~100 misses/s the measured part is mostly
    // hits, so it has fewer misses per I/O than the whole run.
    let measured_ms = j.read.clat.mean / 1e6;
    let all_ms = r.runtime_ns as f64 / 1e6 / 2_000.0;
    assert!(measured_ms < all_ms, "measured {measured_ms} ms vs {all_ms} ms overall");
    assert!(j.start_ns >= 1_000_000_000, "measurement starts after the ramp: {}", j.start_ns);
}
