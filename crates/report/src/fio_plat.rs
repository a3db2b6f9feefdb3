//! fio's latency bucket layouts, for output that fio's consumers parse.
//!
//! * The json+ `bins` histogram: stat.h `FIO_IO_U_PLAT_BITS = 6`, `FIO_IO_U_PLAT_GROUP_NR =
//!   29`, 1856 buckets; stat.c `plat_val_to_idx` (value → bucket) and `plat_idx_to_val` (bucket
//!   → its midpoint, the key fio prints). iolab's HdrHistogram buckets (≤0.1 % wide) are mapped
//!   onto fio's (≤1.6 % wide) by their value, so `fio_jsonplus_clat2csv` and friends read them.
//! * The `latency_ns/us/ms` distributions: io_u.c `io_u_mark_lat_nsec/usec/msec` ranges,
//!   reported by stat.c `stat_calc_lat` as percent of all data-direction I/Os.

use iolab_stats::LatStats;

pub const PLAT_BITS: u32 = 6;
pub const PLAT_VAL: u64 = 1 << PLAT_BITS;
pub const PLAT_GROUP_NR: u64 = 29;
pub const PLAT_NR: usize = (PLAT_GROUP_NR * PLAT_VAL) as usize;

/// fio `plat_val_to_idx`.
pub fn plat_val_to_idx(val: u64) -> usize {
    let msb = if val == 0 { 0 } else { 63 - val.leading_zeros() };
    if msb <= PLAT_BITS {
        return val as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as u64) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (val >> error_bits);
    ((base + offset) as usize).min(PLAT_NR - 1)
}

/// fio `plat_idx_to_val`: the midpoint of bucket `idx`.
pub fn plat_idx_to_val(idx: usize) -> u64 {
    let idx = idx.min(PLAT_NR - 1) as u64;
    if idx < (PLAT_VAL << 1) {
        return idx;
    }
    let error_bits = (idx >> PLAT_BITS) - 1;
    let base = 1u64 << (error_bits + PLAT_BITS as u64);
    let k = idx % PLAT_VAL;
    base + ((k as f64 + 0.5) * (1u64 << error_bits) as f64) as u64
}

/// fio's 1856-bucket array from iolab's histogram buckets.
pub fn fio_plat(stats: &LatStats) -> Vec<u64> {
    let mut plat = vec![0u64; PLAT_NR];
    for &(v, c) in &stats.buckets {
        // Clamp to the observed range: HdrHistogram's highest-equivalent value of the top
        // bucket can lie above max.
        plat[plat_val_to_idx(v.min(stats.max))] += c;
    }
    plat
}

/// json+ `bins`: (bucket midpoint ns, count) for non-empty buckets, ascending.
pub fn bins(stats: &LatStats) -> Vec<(u64, u64)> {
    fio_plat(stats)
        .iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
        .map(|(i, &c)| (plat_idx_to_val(i), c))
        .collect()
}

/// Labels of fio's `latency_ns` and `latency_us` maps.
pub const LAT_NU_LABELS: [&str; 10] =
    ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"];
/// Labels of fio's `latency_ms` map.
pub const LAT_M_LABELS: [&str; 12] =
    ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"];

fn nu_idx(x: u64) -> usize {
    match x {
        0..=1 => 0,
        2..=3 => 1,
        4..=9 => 2,
        10..=19 => 3,
        20..=49 => 4,
        50..=99 => 5,
        100..=249 => 6,
        250..=499 => 7,
        500..=749 => 8,
        _ => 9,
    }
}

fn m_idx(ms: u64) -> usize {
    match ms {
        0..=999 => nu_idx(ms),
        1000..=1999 => 10,
        _ => 11,
    }
}

/// Counts in fio's ns (10), us (10) and ms (12) latency ranges.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LatDist {
    pub ns: [u64; 10],
    pub us: [u64; 10],
    pub ms: [u64; 12],
}

impl LatDist {
    /// Add one histogram's buckets (fio marks each I/O's total latency).
    pub fn add(&mut self, s: &LatStats) {
        for &(v, c) in &s.buckets {
            let v = v.min(s.max);
            if v < 1_000 {
                self.ns[nu_idx(v)] += c;
            } else if v < 1_000_000 {
                self.us[nu_idx(v / 1_000)] += c;
            } else {
                self.ms[m_idx(v / 1_000_000)] += c;
            }
        }
    }

    /// Percentages of `total` as fio's stat.c `stat_calc_lat`: a non-empty range shows at
    /// least 0.01 so it never prints as `0.00%`.
    pub fn pct(counts: &[u64], total: u64) -> Vec<f64> {
        counts
            .iter()
            .map(|&c| {
                if total == 0 {
                    0.0
                } else {
                    let p = c as f64 * 100.0 / total as f64;
                    if p < 0.01 && c > 0 {
                        0.01
                    } else {
                        p
                    }
                }
            })
            .collect()
    }
}

/// fio `stat_calc_dist`: percentages, a non-empty bucket shows at least 0.1.
pub fn calc_dist(map: &[u64; 7], total: u64) -> [f64; 7] {
    let mut out = [0.0; 7];
    for i in 0..7 {
        if total > 0 {
            out[i] = map[i] as f64 * 100.0 / total as f64;
            if out[i] < 0.1 && map[i] > 0 {
                out[i] = 0.1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lat_pct_floor_like_fio() {
        assert_eq!(LatDist::pct(&[1, 0, 99_999], 100_000), [0.01, 0.0, 99.999]);
        assert_eq!(calc_dist(&[1, 0, 0, 0, 0, 0, 9999], 10_000)[0], 0.1);
    }

    #[test]
    fn plat_round_trip_matches_fio_layout() {
        assert_eq!(plat_val_to_idx(0), 0);
        assert_eq!(plat_val_to_idx(127), 127);
        assert_eq!(plat_val_to_idx(128), 128);
        assert_eq!(plat_val_to_idx(130), 129);
        assert_eq!(plat_idx_to_val(129), 131);
        assert_eq!(plat_val_to_idx(u64::MAX), PLAT_NR - 1);
        // 2^34 ns is where fio's exact range ends (notes §3.7).
        assert_eq!(plat_val_to_idx((1 << 34) - 1), PLAT_NR - 1);
        for idx in 128..PLAT_NR {
            assert_eq!(plat_val_to_idx(plat_idx_to_val(idx)), idx, "idx {idx}");
        }
    }
}
