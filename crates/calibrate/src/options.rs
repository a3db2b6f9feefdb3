//! `iolab calibrate`'s flags as [`CalibrateOptions`] (fio's time and size units, each range
//! checked with a message naming the flag), and the per-point lines it prints after the fit.

use iolab_core::units::{parse_size, parse_time, KbBase, TimeUnitDefault};

use crate::sweep::{check_budget, CalibrateOptions, Calibration};
use crate::CalibrateError;

impl CalibrateOptions {
    /// The options from `--budget`, `--size` and `--max-depth` as typed.
    pub fn from_flags(budget: &str, size: &str, max_depth: u32) -> Result<Self, CalibrateError> {
        let flag = |flag, value: &str, why: String| CalibrateError::Flag {
            flag,
            value: value.to_string(),
            why,
        };
        let t = parse_time(budget, TimeUnitDefault::Seconds)
            .map_err(|e| flag("budget", budget, e.to_string()))?;
        let budget_secs = t.0 as f64 / 1e9;
        check_budget(budget_secs, budget)?;
        let new_file_size =
            parse_size(size, KbBase::default()).map_err(|e| flag("size", size, e.to_string()))?;
        if new_file_size < 4 << 20 {
            return Err(flag("size", size, "expected at least 4MiB".into()));
        }
        if !(1..=4096).contains(&max_depth) {
            let why = "expected 1 to 4096".to_string();
            return Err(flag("max-depth", &max_depth.to_string(), why));
        }
        Ok(CalibrateOptions { budget_secs, new_file_size, max_depth, ..Self::default() })
    }
}

impl Calibration {
    /// What was calibrated, then each sweep point: measured → fitted IOPS (error), p50, p99.
    pub fn summary(&self, budget_secs: f64) -> Vec<String> {
        let mut v = vec![format!(
            "calibrated {} in {:.1}s (budget {:.1}s), {} points",
            self.target.path.display(),
            self.elapsed_secs,
            budget_secs,
            self.measured.len()
        )];
        for p in &self.profile.points {
            v.push(format!(
                "  {:<10} bs={:<8} qd={:<3} IOPS {:>10.0} → {:>10.0} ({:+.1} %)  p50 {:>8.1} → {:>8.1} µs  p99 {:>8.1} → {:>8.1} µs",
                p.rw, p.bs, p.iodepth, p.measured_iops, p.predicted_iops, p.iops_error * 100.0,
                p.measured_p50_us, p.predicted_p50_us, p.measured_p99_us, p.predicted_p99_us
            ));
        }
        v
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn flags_in_fios_units_and_their_ranges() {
        let o = CalibrateOptions::from_flags("2m", "64m", 32).unwrap();
        assert_eq!((o.budget_secs, o.new_file_size, o.max_depth), (120.0, 64 << 20, 32));
        let e = |b, s, d| CalibrateOptions::from_flags(b, s, d).unwrap_err().to_string();
        assert_eq!(e("60s", "1m", 32), "--size=1m: expected at least 4MiB");
        assert_eq!(e("60s", "64m", 0), "--max-depth=0: expected 1 to 4096");
        assert!(e("forever", "64m", 8).starts_with("--budget=forever: "));
    }
}
