//! Welch's unequal-variance t-test from summary statistics (B. L. Welch, "The generalization of
//! Student's problem when several different population variances are involved", Biometrika
//! 1947): t = (m₂ − m₁) / √(s₁²/n₁ + s₂²/n₂), with the Welch–Satterthwaite degrees of freedom.
//! The two-sided p-value and the 95 % confidence interval of the difference come from
//! Student's t distribution (`statrs`).

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Summary of one side's per-interval samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Samples {
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: f64,
    pub n: u64,
}

/// The test's outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Welch {
    pub t: f64,
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// 95 % confidence interval of (mean₂ − mean₁), in the samples' unit.
    pub ci95: (f64, f64),
}

/// Welch's test of `b` against `a`; `None` when either side has fewer than two samples or a
/// statistic is not finite.
pub fn welch(a: Samples, b: Samples) -> Option<Welch> {
    if a.n < 2 || b.n < 2 || ![a.mean, a.sd, b.mean, b.sd].iter().all(|x| x.is_finite()) {
        return None;
    }
    let (va, vb) = (a.sd * a.sd / a.n as f64, b.sd * b.sd / b.n as f64);
    let se = (va + vb).sqrt();
    let diff = b.mean - a.mean;
    if se == 0.0 {
        // Both sides constant: equal means are the same, different means differ for sure.
        let p = if diff == 0.0 { 1.0 } else { 0.0 };
        return Some(Welch { t: 0.0, df: f64::INFINITY, p, ci95: (diff, diff) });
    }
    let t = diff / se;
    let df = (va + vb).powi(2)
        / (va * va / (a.n - 1) as f64 + vb * vb / (b.n - 1) as f64).max(f64::MIN_POSITIVE);
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    let p = (2.0 * (1.0 - dist.cdf(t.abs()))).clamp(0.0, 1.0);
    let q = dist.inverse_cdf(0.975);
    Some(Welch { t, df, p, ci95: (diff - q * se, diff + q * se) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(mean: f64, sd: f64, n: u64) -> Samples {
        Samples { mean, sd, n }
    }

    #[test]
    fn matches_a_textbook_value() {
        // m=20,s=4,n=10 vs m=24,s=6,n=12: t = 4/sqrt(1.6+3) = 1.86501, df = 4.6^2 /
        // (1.6^2/9 + 3^2/11) = 19.1905; the p-value checked by integrating Student's t
        // density numerically (Simpson, 200k steps): 0.0775464.
        let w = welch(s(20.0, 4.0, 10), s(24.0, 6.0, 12)).unwrap();
        assert!((w.t - 1.86501).abs() < 1e-4, "{w:?}");
        assert!((w.df - 19.1905).abs() < 1e-3, "{w:?}");
        assert!((w.p - 0.0775464).abs() < 1e-6, "{w:?}");
        assert!(w.ci95.0 < 0.0 && w.ci95.1 > 0.0);
    }

    #[test]
    fn separated_means_are_significant_and_equal_ones_are_not() {
        assert!(welch(s(100.0, 2.0, 20), s(50.0, 2.0, 20)).unwrap().p < 1e-10);
        assert_eq!(welch(s(100.0, 2.0, 20), s(100.0, 2.0, 20)).unwrap().p, 1.0);
        assert_eq!(welch(s(5.0, 0.0, 3), s(5.0, 0.0, 3)).unwrap().p, 1.0);
        assert_eq!(welch(s(5.0, 0.0, 3), s(6.0, 0.0, 3)).unwrap().p, 0.0);
    }

    #[test]
    fn too_few_or_non_finite_samples_give_no_test() {
        assert_eq!(welch(s(1.0, 1.0, 1), s(1.0, 1.0, 9)), None);
        assert_eq!(welch(s(f64::NAN, 1.0, 5), s(1.0, 1.0, 9)), None);
        assert_eq!(welch(s(1.0, f64::INFINITY, 5), s(1.0, 1.0, 9)), None);
    }
}
