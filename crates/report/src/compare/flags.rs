//! `iolab compare`'s flags ([`CompareFlags`]; with the `clap` feature, also the binary's clap
//! flags) and their values: the significance level, the negligible difference and the output
//! format, each refused with a message naming the flag.

use super::{render_csv, render_html, render_json, render_text, CompareError, Comparison};
use std::path::PathBuf;

/// A comparison's renderer; the HTML page also reads the result files for their series.
pub type Renderer = fn(&Comparison, &[PathBuf]) -> Result<String, CompareError>;

/// What `iolab compare` compares and how.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "clap", derive(clap::Args), group(skip))]
pub struct CompareFlags {
    /// Result files (`iolab run|sim --output-format=json`, or fio's `--output-format=json`);
    /// the first is the baseline. `-` reads one from stdin.
    #[cfg_attr(feature = "clap", arg(required = true, num_args = 2..))]
    pub files: Vec<PathBuf>,
    /// text, json, csv or html (bars with noise bands, the results' intervals overlaid).
    #[cfg_attr(feature = "clap", arg(long, default_value = "text"))]
    pub output_format: String,
    /// Write here instead of stdout.
    #[cfg_attr(feature = "clap", arg(long))]
    pub output: Option<PathBuf>,
    /// Significance level of the two-sided test, in (0, 0.5].
    #[cfg_attr(feature = "clap", arg(long, default_value = "0.05"))]
    pub alpha: String,
    /// A difference beyond noise but smaller than this many percent is called negligible.
    #[cfg_attr(feature = "clap", arg(long, default_value = "1"))]
    pub min_diff: String,
}

/// The renderer, the significance level and the negligible difference in percent.
pub type Settings = (Renderer, f64, f64);

impl CompareFlags {
    /// The flags' values, checked before any file is read; stdin (`-`) at most once.
    pub fn settings(&self) -> Result<Settings, CompareError> {
        let render = renderer(&self.output_format)?;
        let (alpha, min_pct) = (parse_alpha(&self.alpha)?, parse_min_diff(&self.min_diff)?);
        if self.files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
            return Err(CompareError::StdinTwice);
        }
        Ok((render, alpha, min_pct))
    }

    /// The result files, read in order.
    pub fn read(&self) -> Result<Vec<super::ResultView>, CompareError> {
        self.files.iter().map(|f| super::read_result(f)).collect()
    }
}

/// `--alpha`: a finite number (its range is checked by [`Comparison::new`]).
pub fn parse_alpha(s: &str) -> Result<f64, CompareError> {
    s.parse().ok().filter(|x: &f64| x.is_finite()).ok_or_else(|| CompareError::Alpha(s.into()))
}

/// `--min-diff`: a percentage, `%` optional.
pub fn parse_min_diff(s: &str) -> Result<f64, CompareError> {
    let v = s.trim_end_matches('%').parse().ok().filter(|x: &f64| x.is_finite());
    v.ok_or_else(|| CompareError::MinDiff(s.into()))
}

/// The renderer of `--output-format` (text, also called normal; json; csv; html).
pub fn renderer(format: &str) -> Result<Renderer, CompareError> {
    match format {
        "text" | "normal" => Ok(|c, _| Ok(render_text(c))),
        "json" => Ok(|c, _| Ok(render_json(c))),
        "csv" => Ok(|c, _| Ok(render_csv(c))),
        "html" => Ok(render_html),
        other => Err(CompareError::UnknownFormat(other.into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_refusals() {
        assert_eq!(parse_alpha("0.01").unwrap(), 0.01);
        assert_eq!(parse_min_diff("2.5%").unwrap(), 2.5);
        assert!(parse_alpha("nan").unwrap_err().to_string().starts_with("--alpha"));
        assert!(parse_min_diff("x").unwrap_err().to_string().starts_with("--min-diff"));
        assert!(renderer("normal").is_ok() && renderer("csv").is_ok());
        let e = renderer("xml").unwrap_err().to_string();
        assert_eq!(e, "--output-format: unknown format 'xml'; expected text, json, csv or html");
    }

    #[test]
    fn settings_refuse_hostile_values_naming_the_flag() {
        let flags = |alpha: &str, min_diff: &str, files: &[&str]| CompareFlags {
            files: files.iter().map(PathBuf::from).collect(),
            output_format: "text".into(),
            output: None,
            alpha: alpha.into(),
            min_diff: min_diff.into(),
        };
        let (_, alpha, min) = flags("0.01", "2%", &["a", "b"]).settings().unwrap();
        assert_eq!((alpha, min), (0.01, 2.0));
        let long = "9".repeat(100_000);
        for (a, m, flag) in [
            ("", "1", "--alpha"),
            ("nan", "1", "--alpha"),
            ("\u{0}\u{ff}", "1", "--alpha"),
            ("0.05", "NaN", "--min-diff"),
            ("0.05", "", "--min-diff"),
            ("0.05", "inf", "--min-diff"),
        ] {
            let e = flags(a, m, &["a", "b"]).settings().unwrap_err().to_string();
            assert!(e.starts_with(flag), "{a:?} {m:?}: {e}");
        }
        // 10^100000 is no finite number; a negative percentage is Comparison::new's to refuse.
        assert!(flags(&long, "1", &["a", "b"])
            .settings()
            .unwrap_err()
            .to_string()
            .starts_with("--alpha"));
        assert!(flags("0.05", "-1", &["a", "b"]).settings().is_ok());
        let e = flags("0.05", "1", &["-", "x", "-"]).settings().unwrap_err().to_string();
        assert_eq!(e, "compare: stdin ('-') can be given once");
    }
}
