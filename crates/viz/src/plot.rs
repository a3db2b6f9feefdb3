//! `iolab plot`: every chart of the report as `NAME.svg` and `NAME.png` in a directory, drawn
//! by the same [`crate::chart::draw`] as the HTML's inline SVG. Files are named after what
//! they show ([`file_stems`]: `run-iops`, `mrc-miss-ratio`), not the page's element ids.

use crate::chart;
use crate::model::Report;
use crate::VizError;
use std::path::{Path, PathBuf};

/// Write each chart of `report` into `dir` (created if missing); returns the files written.
pub fn write_all(report: &Report, dir: &Path) -> Result<Vec<PathBuf>, VizError> {
    let io = |source| VizError::Io { path: dir.display().to_string(), source };
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut out = Vec::new();
    let charts = report.sections.iter().flat_map(|s| &s.charts);
    for (c, stem) in charts.zip(file_stems(report)) {
        let draw = |what| VizError::Draw { chart: c.id.clone(), what };
        let (svg, _) = chart::svg(c).map_err(draw)?;
        let p = dir.join(format!("{stem}.svg"));
        std::fs::write(&p, svg)
            .map_err(|source| VizError::Io { path: p.display().to_string(), source })?;
        out.push(p);
        let p = dir.join(format!("{stem}.png"));
        chart::png(c, &p).map_err(draw)?;
        out.push(p);
    }
    Ok(out)
}

/// One file stem per chart of `report`, in order: `KIND-WHAT` (`run-iops`, `sim-hit`,
/// `mrc-miss-ratio`, `compare-iops`); a device's charts carry the device (`run-vda-util`), a
/// job's carry the job where the report has several (`run-seq-read-iops`); names still alike
/// (the same kind of result given twice) get `-2`, `-3`, … in order.
pub fn file_stems(report: &Report) -> Vec<String> {
    let named: Vec<Name> = report
        .sections
        .iter()
        .flat_map(|s| s.charts.iter().map(move |c| Name::of(&s.kind, c)))
        .collect();
    let first: Vec<String> = named.iter().map(|n| n.stem(false)).collect();
    let count = |v: &[String], s: &str| v.iter().filter(|x| *x == s).count();
    let second: Vec<String> = named
        .iter()
        .zip(&first)
        .map(|(n, f)| if count(&first, f) > 1 { n.stem(true) } else { f.clone() })
        .collect();
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    second
        .into_iter()
        .map(|stem| {
            let n = seen.entry(stem.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                stem
            } else {
                format!("{stem}-{n}")
            }
        })
        .collect()
}

/// A chart's file name parts, from its section's kind, its id (`i0-j1-iops`, `i2-d0-util`,
/// `i0-sim-hit`, `mrc`) and its title (`seq read: IOPS`).
struct Name {
    kind: &'static str,
    /// The job or device the chart is about.
    qual: Option<String>,
    /// The qualifier is shown even when the name is unique (a device's charts).
    always: bool,
    what: String,
}

impl Name {
    fn of(kind: &str, c: &crate::chart::Chart) -> Name {
        let kind = match kind {
            "run" => "run",
            "sim" => "sim",
            "mrc" => "mrc",
            "fill" => "fill",
            "trace" => "trace",
            "compare" => "compare",
            "predict" => "predict",
            "calibrate" => "calibration",
            _ => "chart",
        };
        let mut rest = strip_index(&c.id, 'i').unwrap_or(&c.id);
        let subject = c.title.split_once(": ").map(|(q, _)| slug(q)).filter(|q| !q.is_empty());
        let (qual, always) = if let Some(r) = strip_index(rest, 'j') {
            rest = r;
            (subject, false)
        } else if let Some(r) = strip_index(rest, 'd') {
            rest = r;
            (subject, true)
        } else {
            (None, false)
        };
        for p in ["sim-", "cal-", "pred-", "trace-", "cmp-"] {
            if let Some(r) = rest.strip_prefix(p) {
                rest = r;
                break;
            }
        }
        let what = match rest {
            "mrc" => "miss-ratio".to_string(),
            "mrc-bytes" => "byte-miss-ratio".to_string(),
            // Charts numbered within their section (a comparison's metrics) take the metric.
            r if r.bytes().all(|b| b.is_ascii_digit()) => {
                slug(c.title.split(':').next().unwrap_or(r))
            }
            r => slug(r),
        };
        Name { kind, qual, always, what }
    }

    fn stem(&self, with_qual: bool) -> String {
        match &self.qual {
            Some(q) if with_qual || self.always => format!("{}-{q}-{}", self.kind, self.what),
            _ => format!("{}-{}", self.kind, self.what),
        }
    }
}

/// `s` after `C` + digits + `-` (`i0-`, `j12-`), if it starts so.
fn strip_index(s: &str, c: char) -> Option<&str> {
    let r = s.strip_prefix(c)?;
    let digits = r.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then_some(())?;
    r[digits..].strip_prefix('-')
}

/// Lower-case ASCII letters and digits, other runs as one `-`.
fn slug(s: &str) -> String {
    let mut out = String::new();
    for ch in s.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::chart::{Axis, Chart, Corner, Style};
    use crate::model::Section;

    fn chart(id: &str, title: &str) -> Chart {
        Chart {
            id: id.into(),
            title: title.into(),
            x: Axis::lin("x"),
            y: Axis::lin("y"),
            series: Vec::new(),
            band: None,
            y_from_zero: true,
            legend: Corner::UpperRight,
            style: Style::Lines,
        }
    }

    fn section(kind: &str, charts: Vec<Chart>) -> Section {
        Section { kind: kind.into(), charts, ..Section::default() }
    }

    #[test]
    fn files_are_named_after_what_they_show() {
        let one_job = Report {
            title: String::new(),
            sections: vec![
                section(
                    "run",
                    vec![
                        chart("i0-j0-iops", "seq read: IOPS"),
                        chart("i0-lat-hist", "Latency histogram"),
                        chart("i0-d0-util", "vda: %util"),
                    ],
                ),
                section("mrc", vec![chart("mrc", "Miss-ratio curves"), chart("mrc-bytes", "B")]),
                section("compare", vec![chart("i2-cmp-0", "IOPS: each result side by side")]),
            ],
        };
        assert_eq!(
            file_stems(&one_job),
            [
                "run-iops",
                "run-lat-hist",
                "run-vda-util",
                "mrc-miss-ratio",
                "mrc-byte-miss-ratio",
                "compare-iops"
            ]
        );
        let two_jobs = Report {
            title: String::new(),
            sections: vec![
                section(
                    "run",
                    vec![chart("i0-j0-iops", "a: IOPS"), chart("i0-j1-iops", "b: IOPS")],
                ),
                section("sim", vec![chart("i1-sim-hit", "Hit ratio")]),
                section("sim", vec![chart("i2-sim-hit", "Hit ratio")]),
            ],
        };
        assert_eq!(file_stems(&two_jobs), ["run-a-iops", "run-b-iops", "sim-hit", "sim-hit-2"]);
    }
}
