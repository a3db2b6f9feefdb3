//! Where a chart's legend goes so that it covers no data: the legend box is measured as
//! plotters lays it out (`SeriesLabelStyle::draw`: the labels' text block, a 30 px swatch
//! column and a 10 px margin all round, 5 px from the plotting area's edges), each corner is
//! tried in turn (the chart's own first) against every drawn line, point, bar and whisker in
//! pixels, and when every corner holds data the y range grows until a band at the top is
//! free and the legend sits there (as gnuplot's `set key` with `set offsets`).

use crate::chart::{Chart, Corner, Style};
use plotters::prelude::*;

/// plotters' series-label defaults (`legend_area_size`, `margin`) and its 5 px inset.
const SWATCH: i32 = 30;
const MARGIN: i32 = 10;
const INSET: i32 = 5;
/// Clearance between the legend box and the nearest data, in pixels.
const CLEAR: f64 = 3.0;

/// The legend's top-left corner in plotting-area pixels, and the y range to draw (the given
/// one, or a taller one whose top band is free of data).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    pub at: (i32, i32),
    pub y1: f64,
}

/// The legend box's size in pixels for `labels` in `font`.
pub fn box_size(labels: &[&str], font: &TextStyle<'_>) -> (i32, i32) {
    let mut text = MultiLineText::<_, &str>::new((0, 0), font);
    for l in labels {
        text.push_line(*l);
    }
    let (w, h) = text.estimate_dimension().unwrap_or((8 * 12, 20 * labels.len() as i32));
    (w + SWATCH + 2 * MARGIN, h + 2 * MARGIN)
}

/// Where the legend of `chart` (box `size`) goes in a plotting area of `area` pixels over
/// the coordinate ranges `x` and `y`.
pub fn place(
    chart: &Chart,
    coords: &[Vec<(f64, f64)>],
    size: (i32, i32),
    area: (u32, u32),
    x: (f64, f64),
    y: (f64, f64),
) -> Placement {
    let (aw, ah) = (area.0 as i32, area.1 as i32);
    let corners = [chart.legend, Corner::UpperRight, Corner::UpperLeft, Corner::LowerRight];
    let marks = marks(chart, coords);
    let at = |c: Corner| {
        let left = matches!(c, Corner::UpperLeft | Corner::LowerLeft);
        let top = matches!(c, Corner::UpperLeft | Corner::UpperRight);
        (
            if left { INSET } else { aw - size.0 - INSET },
            if top { INSET } else { ah - size.1 - INSET },
        )
    };
    let px = |(a, b): (f64, f64), yr: (f64, f64)| {
        let sx = (a - x.0) / (x.1 - x.0).max(1e-300) * f64::from(aw);
        let sy = (yr.1 - b) / (yr.1 - yr.0).max(1e-300) * f64::from(ah);
        (sx, sy)
    };
    for c in corners.into_iter().chain([Corner::LowerLeft]) {
        let (lx, ly) = at(c);
        let hit = |p: (f64, f64)| {
            let (sx, sy) = px(p, y);
            sx >= f64::from(lx) - CLEAR
                && sx <= f64::from(lx + size.0) + CLEAR
                && sy >= f64::from(ly) - CLEAR
                && sy <= f64::from(ly + size.1) + CLEAR
        };
        if !marks.iter().any(|seg| covers(seg, &hit, &|p| px(p, y))) {
            return Placement { at: (lx, ly), y1: y.1 };
        }
    }
    // Every corner holds data: grow y until the data stay below the legend's band.
    let top = marks.iter().flatten().map(|p| p.1).fold(y.0, f64::max);
    let band = (f64::from(size.1 + 2 * INSET) + CLEAR) / f64::from(ah.max(1));
    let band = band.min(0.7);
    let y1 = y.0 + (top - y.0) / (1.0 - band);
    let side = if matches!(chart.legend, Corner::UpperLeft | Corner::LowerLeft) {
        Corner::UpperLeft
    } else {
        Corner::UpperRight
    };
    Placement { at: at(side), y1: y1.max(y.1) }
}

/// Everything drawn, as polylines in data coordinates: each series' line (a single point as
/// itself), and for bars each bar's outline and its whisker.
fn marks(chart: &Chart, coords: &[Vec<(f64, f64)>]) -> Vec<Vec<(f64, f64)>> {
    match &chart.style {
        Style::Lines => coords.to_vec(),
        Style::Bars { bands, .. } => {
            let n = coords.len().max(1) as f64;
            let width = 0.8 / n;
            let mut v = Vec::new();
            for (i, pts) in coords.iter().enumerate() {
                let left = |x: f64| x - 0.4 + i as f64 * width;
                for (k, &(x, top)) in pts.iter().enumerate() {
                    let (a, b) = (left(x), left(x) + width);
                    v.push(vec![(a, 0.0), (a, top), (b, top), (b, 0.0), (a, 0.0)]);
                    if let Some(&(lo, hi)) = bands.get(i).and_then(|b| b.get(k)) {
                        if lo.is_finite() && hi.is_finite() {
                            v.push(vec![(a + width / 2.0, lo), (a + width / 2.0, hi)]);
                        }
                    }
                }
            }
            v
        }
    }
}

/// Whether the polyline `seg` (data coordinates) passes through the box `hit` tests for:
/// every vertex, and points along each segment at most 2 px apart.
fn covers(
    seg: &[(f64, f64)],
    hit: &dyn Fn((f64, f64)) -> bool,
    px: &dyn Fn((f64, f64)) -> (f64, f64),
) -> bool {
    if seg.iter().any(|&p| hit(p)) {
        return true;
    }
    seg.windows(2).any(|w| {
        let (a, b) = (px(w[0]), px(w[1]));
        let steps = ((b.0 - a.0).abs().max((b.1 - a.1).abs()) / 2.0).ceil().min(4000.0) as usize;
        (1..steps).any(|s| {
            let t = s as f64 / steps as f64;
            hit((w[0].0 + (w[1].0 - w[0].0) * t, w[0].1 + (w[1].1 - w[0].1) * t))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::{Axis, Series};

    fn lines(series: Vec<Vec<(f64, f64)>>, legend: Corner) -> Chart {
        Chart {
            id: "t".into(),
            title: "t".into(),
            x: Axis::lin("x"),
            y: Axis::lin("y"),
            series: series
                .into_iter()
                .enumerate()
                .map(|(i, points)| Series { name: format!("s{i}"), points })
                .collect(),
            band: None,
            y_from_zero: true,
            legend,
            style: Style::Lines,
        }
    }

    #[test]
    fn the_legend_takes_a_free_corner_or_a_band_above_the_data() {
        let (area, size) = ((600, 240), (120, 60));
        // A line rising to the upper right: the upper-left corner is free.
        let rising = lines(vec![vec![(0.0, 0.0), (10.0, 10.0)]], Corner::UpperRight);
        let p = place(&rising, &rising.coords(), size, area, (0.0, 10.0), (0.0, 10.0));
        assert_eq!(p, Placement { at: (INSET, INSET), y1: 10.0 });
        // A flat line at the top and one at the bottom: no corner is free, so y grows and
        // the legend sits above both (its box ends above where the top line now is).
        let flat = vec![vec![(0.0, 9.5), (10.0, 9.5)], vec![(0.0, 0.5), (10.0, 0.5)]];
        let both = lines(flat, Corner::UpperRight);
        let p = place(&both, &both.coords(), size, area, (0.0, 10.0), (0.0, 10.0));
        assert_eq!(p.at, (600 - 120 - INSET, INSET));
        let line_px = (p.y1 - 9.5) / p.y1 * 240.0;
        assert!(line_px > f64::from(INSET + size.1), "{p:?}: the line at {line_px} px");
    }
}
