//! `iolab plot`: every chart of the report as `ID.svg` and `ID.png` in a directory, drawn by
//! the same [`crate::chart::draw`] as the HTML's inline SVG.

use crate::chart;
use crate::model::Report;
use crate::VizError;
use std::path::{Path, PathBuf};

/// Write each chart of `report` into `dir` (created if missing); returns the files written.
pub fn write_all(report: &Report, dir: &Path) -> Result<Vec<PathBuf>, VizError> {
    let io = |source| VizError::Io { path: dir.display().to_string(), source };
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut out = Vec::new();
    for c in report.sections.iter().flat_map(|s| &s.charts) {
        let draw = |what| VizError::Draw { chart: c.id.clone(), what };
        let (svg, _) = chart::svg(c).map_err(draw)?;
        let p = dir.join(format!("{}.svg", c.id));
        std::fs::write(&p, svg)
            .map_err(|source| VizError::Io { path: p.display().to_string(), source })?;
        out.push(p);
        let p = dir.join(format!("{}.png", c.id));
        chart::png(c, &p).map_err(draw)?;
        out.push(p);
    }
    Ok(out)
}
