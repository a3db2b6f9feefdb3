//! `iolab calibrate`'s flags ([`CalibrateFlags`]; with the `clap` feature, also the binary's
//! clap flags) as [`CalibrateOptions`] (fio's time and size units, each range checked with a
//! message naming the flag), and the per-point lines it prints after the fit.

use std::path::PathBuf;

use iolab_core::units::{parse_size, parse_time, KbBase, TimeUnitDefault};

use crate::sweep::{check_budget, CalibrateOptions, Calibration};
use crate::CalibrateError;

/// What `iolab calibrate` measures (or which preset it writes), and where the profile goes.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "clap", derive(clap::Args), group(skip))]
pub struct CalibrateFlags {
    /// A file (created if missing), a block device or a directory.
    pub target: Option<PathBuf>,
    /// Wall-time budget of the whole calibration (e.g. 60s, 2m). From about 30s each point
    /// is measured in 2-3 segments, one per round over all points, and its median kept.
    #[cfg_attr(feature = "clap", arg(long, default_value = "60s"))]
    pub budget: String,
    /// Size of the file iolab creates (a new path or a directory).
    #[cfg_attr(feature = "clap", arg(long, default_value = "256MiB"))]
    pub size: String,
    /// Write to an existing file or block device (the sweep overwrites its data).
    #[cfg_attr(feature = "clap", arg(long))]
    pub allow_write: bool,
    /// As `iolab run --allow-destroy`: write to a block device carrying a signature.
    #[cfg_attr(feature = "clap", arg(long))]
    pub allow_destroy: bool,
    /// Deepest queue swept.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 64))]
    pub max_depth: u32,
    /// Write the profile to FILE (atomically) instead of stdout.
    #[cfg_attr(feature = "clap", arg(long, short = 'o'))]
    pub output: Option<PathBuf>,
    /// toml (the profile) or html (an offline page of the sweep: measured against fitted).
    #[cfg_attr(feature = "clap", arg(long, default_value = "toml", value_parser = ["toml", "html"]))]
    pub output_format: String,
    /// Also write the profile's HTML page (the sweep, measured against fitted) to FILE,
    /// atomically, beside the profile (`iolab report PROFILE.toml` draws the same page).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub html: Option<PathBuf>,
    /// No progress on stderr while the sweep runs, and no per-point table after it (errors
    /// and warnings still go to stderr).
    #[cfg_attr(feature = "clap", arg(long, short = 'q'))]
    pub quiet: bool,
    /// Write a preset (hdd-7200, hdd-10k, sata-ssd, nvme, …) as a profile; no I/O.
    #[cfg_attr(feature = "clap", arg(long, conflicts_with = "target"))]
    pub from_preset: Option<String>,
}

impl CalibrateFlags {
    /// The sweep's options: `--budget`, `--size` and `--max-depth` checked
    /// ([`CalibrateOptions::from_flags`]), with `--allow-write` and `--allow-destroy`.
    pub fn options(&self) -> Result<CalibrateOptions, CalibrateError> {
        Ok(CalibrateOptions {
            allow_write: self.allow_write,
            allow_destroy: self.allow_destroy,
            ..CalibrateOptions::from_flags(&self.budget, &self.size, self.max_depth)?
        })
    }
}

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

    #[test]
    fn the_commands_flags_as_options_hostile_values_refused() {
        let f = |budget: &str, size: &str, max_depth| CalibrateFlags {
            target: None,
            budget: budget.into(),
            size: size.into(),
            allow_write: true,
            allow_destroy: false,
            max_depth,
            output: None,
            output_format: "toml".into(),
            html: None,
            quiet: false,
            from_preset: None,
        };
        let o = f("60s", "256m", 64).options().unwrap();
        assert_eq!((o.budget_secs, o.new_file_size, o.max_depth), (60.0, 256 << 20, 64));
        assert!(o.allow_write && !o.allow_destroy);
        let e = |b, s, d| f(b, s, d).options().unwrap_err().to_string();
        for (b, s, d, flag) in [
            ("", "64m", 8, "--budget="),
            ("nan", "64m", 8, "--budget="),
            ("-1", "64m", 8, "--budget="),
            ("99999999999999999999999", "64m", 8, "--budget="),
            ("60s", "", 8, "--size="),
            ("60s", "\u{0}\u{ff}", 8, "--size="),
            ("60s", "-1", 8, "--size="),
            ("60s", "64m", 0, "--max-depth="),
            ("60s", "64m", u32::MAX, "--max-depth="),
        ] {
            assert!(e(b, s, d).starts_with(flag), "{b:?} {s:?} {d}: {}", e(b, s, d));
        }
    }
}
