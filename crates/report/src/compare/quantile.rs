//! The noise of a latency percentile, from the one result file that holds it.
//!
//! fio's and iolab's JSON keep no per-interval latency percentiles, so Welch's test has no
//! samples for them. A percentile's own sampling noise is known without any: for the
//! `q`-quantile of `n` independent samples, the order statistics of ranks
//! `n·q ± 1.96·√(n·q·(1−q))` bound a distribution-free 95 % confidence interval (the normal
//! approximation to the binomial count of samples below the quantile; Conover, *Practical
//! Nonparametric Statistics*, 3rd ed., §3.2). The file lists percentiles, not every
//! order statistic, so the interval is widened to the listed percentiles around those ranks:
//! the largest listed at or below the low rank, the smallest listed at or above the high
//! one. Two sides whose intervals do not overlap differ beyond sampling noise. I/Os are not
//! quite independent (a queue couples neighbours), which makes the interval narrower than the
//! truth; `compare`'s minimum difference (`--min-diff`) is the guard against calling a small
//! systematic shift significant.

/// The 95 % confidence interval of percentile `p` (0–100) of `n` samples, from the listed
/// `(percentile, value)` pairs; `None` when `n` is too small for the ranks to fall inside the
/// listed range.
pub fn ci95(listed: &[(f64, f64)], p: f64, n: u64) -> Option<(f64, f64)> {
    if n < 20 || !(0.0..=100.0).contains(&p) {
        return None;
    }
    let (nf, q) = (n as f64, p / 100.0);
    let half = 1.96 * (nf * q * (1.0 - q)).sqrt();
    let (lo, hi) = ((nf * q - half) / nf * 100.0, (nf * q + half) / nf * 100.0);
    if lo < 0.0 || hi > 100.0 {
        return None;
    }
    let eps = 1e-9;
    let low = listed.iter().filter(|(k, _)| *k <= lo + eps).max_by(|a, b| a.0.total_cmp(&b.0))?;
    let high = listed.iter().filter(|(k, _)| *k >= hi - eps).min_by(|a, b| a.0.total_cmp(&b.0))?;
    Some((low.1, high.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio's default list with the value of each percentile equal to the percentile (µs).
    fn fio_list() -> Vec<(f64, f64)> {
        [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9]
            .iter()
            .chain(&[99.95, 99.99])
            .map(|&p| (p, p))
            .collect()
    }

    #[test]
    fn ranks_widen_to_the_listed_percentiles_around_them() {
        let l = fio_list();
        // n = 10,000: p50's ranks are 4902..5098 (49.02 %..50.98 %): listed 40 and 60.
        assert_eq!(ci95(&l, 50.0, 10_000), Some((40.0, 60.0)));
        // p99: 98.80 %..99.20 % → 95 and 99.5; p99.9: 99.838 %..99.962 % → 99.5 and 99.99.
        assert_eq!(ci95(&l, 99.0, 10_000), Some((95.0, 99.5)));
        assert_eq!(ci95(&l, 99.9, 10_000), Some((99.5, 99.99)));
        // A million samples pin p50 to the listed value's neighbours only if listed closer.
        let fine: Vec<(f64, f64)> = (0..=1000).map(|i| (i as f64 / 10.0, i as f64)).collect();
        assert_eq!(ci95(&fine, 50.0, 1_000_000), Some((499.0, 501.0)));
    }

    #[test]
    fn too_few_samples_give_no_interval() {
        let l = fio_list();
        // 2,000 samples: p99.9's high rank is 99.9 % + 0.14 % = 100.04 %: beyond every sample.
        assert_eq!(ci95(&l, 99.9, 2000), None);
        assert_eq!(ci95(&l, 50.0, 19), None);
        assert_eq!(ci95(&l, 150.0, 10_000), None);
        assert_eq!(ci95(&[], 50.0, 10_000), None);
    }
}
