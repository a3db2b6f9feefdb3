//! Integration tests for iolab-model: policies against libCacheSim's reference miss ratios on
//! the bundled CloudPhysics trace, golden miss counts, block semantics, devices, tiers and the
//! seed scenarios written up in `examples/*.md`.
#![allow(clippy::unwrap_used)]

use iolab_model::policy::{self, next_access_times, Access};
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// oracleGeneral: 24-byte little-endian records `u32 time, u64 obj_id, u32 size, i64 next`.
struct OracleRec {
    obj_id: u64,
    next: i64,
}

fn oracle_trace() -> Vec<OracleRec> {
    let bytes = std::fs::read(shared().join("traces/cloudPhysicsIO.oracleGeneral.bin")).unwrap();
    assert_eq!(bytes.len() % 24, 0);
    bytes
        .chunks_exact(24)
        .map(|r| OracleRec {
            obj_id: u64::from_le_bytes(r[4..12].try_into().unwrap()),
            next: i64::from_le_bytes(r[16..24].try_into().unwrap()),
        })
        .collect()
}

fn misses(name: &str, cap: usize, trace: &[OracleRec], next: &[u64]) -> u64 {
    let mut c = policy::build(name, cap).unwrap();
    let mut m = 0;
    for (i, r) in trace.iter().enumerate() {
        let a = Access { key: r.obj_id, vtime: i as u64, next_access: next[i], write: false };
        if !c.get(&a).hit {
            m += 1;
        }
    }
    m
}

#[test]
fn lru_and_fifo_match_libcachesim_reference_miss_ratios() {
    let t = oracle_trace();
    assert_eq!(t.len(), 113_872);
    let next: Vec<u64> = next_access_times(&t.iter().map(|r| r.obj_id).collect::<Vec<_>>());
    let want = [("lru", [0.8327, 0.8038, 0.6328]), ("fifo", [0.8388, 0.8042, 0.6343])];
    for (name, ratios) in want {
        for (cap, r) in [1_000, 5_000, 20_000].into_iter().zip(ratios) {
            let mr = misses(name, cap, &t, &next) as f64 / t.len() as f64;
            eprintln!("{name} {cap}: {mr:.6}");
            assert!((mr - r).abs() < 0.00005, "{name} at {cap}: {mr:.5} vs libCacheSim {r}");
        }
    }
}

/// libCacheSim numbers requests from 1, so the stored `next_access_vtime` is our 0-based index
/// of the next request plus one.
#[test]
fn oracle_next_access_matches_the_pre_pass() {
    let t = oracle_trace();
    let next = next_access_times(&t.iter().map(|r| r.obj_id).collect::<Vec<_>>());
    let differ = t
        .iter()
        .zip(&next)
        .filter(|(r, &n)| if r.next < 0 { n != policy::NEVER } else { r.next as u64 != n + 1 })
        .count();
    assert_eq!(differ, 0, "oracleGeneral next_access_vtime vs computed");
}

/// Golden miss counts for every registered policy (object level, size 1, cold start) at
/// 1k, 2k, 5k, 10k, 20k and 50k objects. The trace has 48,974 distinct objects, so at 50k every
/// policy that admits on a miss is down to the compulsory misses; smq promotes only hot regions.
#[test]
fn golden_miss_counts_every_policy() {
    const SIZES: [usize; 6] = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000];
    const GOLDEN: [(&str, [u64; 6]); 12] = [
        ("lru", [94823, 94189, 91527, 79438, 72053, 48974]),
        ("fifo", [95520, 94588, 91581, 79210, 72229, 48974]),
        ("clock", [94727, 94081, 91458, 84750, 72151, 48974]),
        ("sieve", [93975, 93411, 89798, 81059, 64431, 48974]),
        ("s3fifo", [94005, 92990, 85689, 75564, 59311, 48974]),
        ("arc", [94027, 92829, 87770, 79412, 64422, 48974]),
        ("2q", [94121, 93075, 87879, 78832, 72103, 48974]),
        ("lfu", [95562, 93707, 89798, 81059, 64431, 48974]),
        ("lirs", [94304, 93075, 85301, 74397, 58672, 48974]),
        ("wtinylfu", [93793, 91490, 89423, 82424, 60739, 48974]),
        ("smq", [96199, 94438, 92566, 89339, 84556, 72995]),
        ("belady", [87025, 81870, 71311, 61843, 51843, 48974]),
    ];
    assert_eq!(GOLDEN.len(), policy::POLICIES.len(), "a policy without golden counts");
    let t = oracle_trace();
    let next: Vec<u64> = next_access_times(&t.iter().map(|r| r.obj_id).collect::<Vec<_>>());
    let opt: Vec<u64> = SIZES.iter().map(|&c| misses("belady", c, &t, &next)).collect();
    for (name, want) in GOLDEN {
        let got: Vec<u64> = SIZES.iter().map(|&c| misses(name, c, &t, &next)).collect();
        assert_eq!(got, want, "{name} miss counts at {SIZES:?}");
        for (g, o) in got.iter().zip(&opt) {
            assert!(g >= o, "{name} beat Belady: {g} < {o}");
        }
        for w in got.windows(2) {
            assert!(w[1] <= w[0] || name == "fifo", "{name} got worse with a bigger cache");
        }
    }
}
