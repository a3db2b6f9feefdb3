//! `iolab compare`'s flag values: the significance level, the negligible difference and the
//! output format, each refused with a message naming the flag.

use super::{render_csv, render_html, render_json, render_text, CompareError, Comparison};
use std::path::PathBuf;

/// A comparison's renderer; the HTML page also reads the result files for their series.
pub type Renderer = fn(&Comparison, &[PathBuf]) -> Result<String, CompareError>;

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
}
