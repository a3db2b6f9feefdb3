//! One chart description and its drawing with `plotters` (SVG and bitmap backends share the
//! code below). Log axes are drawn as linear axes over `log10(value)` and labelled with the
//! value; the "nines" axis of a percentile plot is `-log10(1 - p/100)` (50 → 0.3, 99 → 2,
//! 99.9 → 3), the usual way latency tails are plotted (HdrHistogram's percentile plot).
//!
//! Text in PNG files needs glyphs: plotters' `ab_glyph` feature with DejaVu Sans from the
//! `dejavu` crate (compiled into the binary, so nothing is looked up at run time). SVG text is
//! written as `<text>` and drawn by the viewer's own sans-serif font.

use crate::escape::label;
use crate::legend::Placement;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::sync::Once;

/// How values map onto an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// log10 of the value; values ≤ 0 are left out.
    Log,
    /// Percentiles as nines: `-log10(1 - p/100)`.
    Nines,
}

impl Scale {
    /// The drawn coordinate of a value (`None`: not drawable on this scale).
    pub fn to_coord(self, v: f64) -> Option<f64> {
        let c = match self {
            Scale::Linear => v,
            Scale::Log if v > 0.0 => v.log10(),
            Scale::Nines if v < 100.0 => -(1.0 - v / 100.0).log10(),
            _ => return None,
        };
        c.is_finite().then_some(c)
    }

    /// The value behind a drawn coordinate.
    pub fn from_coord(self, c: f64) -> f64 {
        match self {
            Scale::Linear => c,
            Scale::Log => 10f64.powf(c),
            Scale::Nines => 100.0 * (1.0 - 10f64.powf(-c)),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Scale::Linear => "linear",
            Scale::Log => "log",
            Scale::Nines => "nines",
        }
    }
}

/// An axis: its label (with the unit) and scale.
#[derive(Clone, Debug)]
pub struct Axis {
    pub label: String,
    pub scale: Scale,
}

impl Axis {
    pub fn lin(label: impl Into<String>) -> Axis {
        Axis { label: label.into(), scale: Scale::Linear }
    }
    pub fn log(label: impl Into<String>) -> Axis {
        Axis { label: label.into(), scale: Scale::Log }
    }
}

/// One named line of `(x, y)` values (not yet transformed by the scales).
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// How the series are drawn.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Style {
    /// Lines through the points (a single point as a dot).
    #[default]
    Lines,
    /// Side-by-side bars, one per series in each category: a point's x is the index of its
    /// category in `categories`; `bands[s][k]` is the noise band `(low, high)` drawn as a
    /// whisker over series `s`'s `k`-th bar (NaN: none).
    Bars { categories: Vec<String>, bands: Vec<Vec<(f64, f64)>> },
}

/// A chart: title, axes, lines or bars, and an optional shaded x range (a steady-state
/// window).
#[derive(Clone, Debug)]
pub struct Chart {
    /// A file-name-safe identifier, unique within one report.
    pub id: String,
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    /// `(from, to, label)` in x values.
    pub band: Option<(f64, f64, String)>,
    /// y starts at 0 (rates, ratios) rather than at the smallest value.
    pub y_from_zero: bool,
    /// Where the legend goes (the corner the lines usually leave free).
    pub legend: Corner,
    pub style: Style,
}

/// A corner of the plotting area.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Corner {
    #[default]
    UpperRight,
    UpperLeft,
    LowerLeft,
    LowerRight,
}

/// Where the plotting area landed, in pixels, and the coordinate ranges drawn there: what the
/// HTML's hover script needs to turn a mouse position back into values.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub px: (i32, i32),
    pub py: (i32, i32),
    pub x: (f64, f64),
    pub y: (f64, f64),
}

/// Chart size in pixels (SVG and PNG alike).
pub const SIZE: (u32, u32) = (760, 340);

/// A colour-blind-safe palette (Okabe–Ito, then Tableau) readable on light and dark pages.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(188, 189, 34),
    RGBColor(127, 127, 127),
];

/// Grid colour; the HTML's stylesheet recolours it for the dark theme by this value.
pub const GRID: RGBColor = RGBColor(221, 221, 221);

impl Chart {
    /// The series with both coordinates transformed and undrawable points dropped.
    pub fn coords(&self) -> Vec<Vec<(f64, f64)>> {
        self.series
            .iter()
            .map(|s| {
                s.points
                    .iter()
                    .filter_map(|&(x, y)| {
                        Some((self.x.scale.to_coord(x)?, self.y.scale.to_coord(y)?))
                    })
                    .collect()
            })
            .collect()
    }

    /// Total drawn points over all series.
    pub fn point_count(&self) -> usize {
        self.coords().iter().map(Vec::len).sum()
    }

    /// The drawn ranges, padded so lines do not sit on the frame.
    fn ranges(&self, coords: &[Vec<(f64, f64)>]) -> ((f64, f64), (f64, f64)) {
        let all = coords.iter().flatten();
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in all {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if x0 > x1 {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        if let Style::Bars { categories, bands } = &self.style {
            // Every category gets a slot of width 1 around its index; whiskers count in y.
            (x0, x1) = (-0.5, categories.len().max(1) as f64 - 0.5);
            for &(lo, hi) in bands.iter().flatten().filter(|b| b.0.is_finite()) {
                y0 = y0.min(lo);
                y1 = y1.max(hi);
            }
            // Headroom above the tallest bar (the legend's, see `crate::legend`).
            let (y0, y1) = (y0.min(0.0), if y1 > y0.min(0.0) { y1 * 1.1 } else { 1.0 });
            return ((x0, x1), (y0, y1));
        }
        if let Some((a, b, _)) = &self.band {
            if let (Some(a), Some(b)) = (self.x.scale.to_coord(*a), self.x.scale.to_coord(*b)) {
                x0 = x0.min(a);
                x1 = x1.max(b);
            }
        }
        if self.y_from_zero && self.y.scale == Scale::Linear {
            y0 = y0.min(0.0);
        }
        let pad = |a: f64, b: f64, f: f64| {
            let w = if b - a > 1e-12 { b - a } else { a.abs().max(1.0) };
            (a - w * f, b + w * f)
        };
        let (x0, x1) = if x1 - x0 > 1e-12 { (x0, x1) } else { pad(x0, x1, 0.5) };
        let (y0, y1) = pad(y0, y1, 0.05);
        let y0 = if self.y_from_zero && y0 < 0.0 && coords.iter().flatten().all(|p| p.1 >= 0.0) {
            0.0
        } else {
            y0
        };
        ((x0, x1), (y0, y1))
    }
}

/// A value with at most four significant digits and an SI suffix (1.23k, 45.6M).
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    let (d, suf) = match a {
        _ if a >= 1e12 => (1e12, "T"),
        _ if a >= 1e9 => (1e9, "G"),
        _ if a >= 1e6 => (1e6, "M"),
        _ if a >= 1e4 => (1e3, "k"),
        _ => (1.0, ""),
    };
    let x = v / d;
    let s = if x.abs() >= 100.0 || x == x.trunc() {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else if x.abs() >= 0.01 || x == 0.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.2e}")
    };
    let s = if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s}{suf}")
}

/// A label for a drawn coordinate on `scale`.
pub fn fmt_coord(scale: Scale, c: f64) -> String {
    let v = scale.from_coord(c);
    match scale {
        Scale::Nines => {
            let s = format!("{v:.4}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        }
        // Between whole decades, two significant digits (3.2k, not 3162).
        Scale::Log if (c - c.round()).abs() > 1e-9 => {
            let m = 10f64.powi(v.log10().floor() as i32 - 1);
            fmt_num((v / m).round() * m)
        }
        _ => fmt_num(v),
    }
}

/// Labels on an axis: on log and nines axes one per whole decade or nine (plotters then picks
/// integer steps, so labels read 1, 10, 100 or 90, 99, 99.9), else `linear`.
fn label_count(scale: Scale, span: f64, linear: usize) -> usize {
    match scale {
        Scale::Linear => linear,
        _ if span >= 2.0 => (span.ceil() as usize + 1).clamp(2, 12),
        _ => 4,
    }
}

static FONT: Once = Once::new();

/// Register DejaVu Sans as plotters' "sans-serif" (ab_glyph has no system font lookup).
fn register_font() {
    FONT.call_once(|| {
        // The font is a valid TTF compiled in; an error here would only drop the text.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        );
    });
}

/// The drawing error as text (plotters' error type is generic over the backend).
pub type DrawResult<T> = Result<T, String>;

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// The chart's frame (caption, label areas) over the ranges `x` and `y` on `root`.
fn frame<'a, DB: DrawingBackend>(
    chart: &Chart,
    root: &'a DrawingArea<DB, Shift>,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> DrawResult<Cc<'a, DB>> {
    ChartBuilder::on(root)
        .caption(label(&chart.title), ("sans-serif", 24))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(76)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)
}

/// The legend's entries in plotters' order (the band's first), or none when no legend is
/// drawn (one unnamed series).
fn legend_labels(chart: &Chart) -> Vec<&str> {
    let bars = matches!(chart.style, Style::Bars { .. });
    if !bars && chart.series.len() <= 1 && chart.series.iter().all(|s| s.name.is_empty()) {
        return Vec::new();
    }
    let band = chart.band.as_ref().map(|b| b.2.as_str());
    band.into_iter().chain(chart.series.iter().map(|s| s.name.as_str())).collect()
}

/// Where the legend goes (see [`crate::legend`]), and the y range that leaves it room.
fn place_legend(
    chart: &Chart,
    coords: &[Vec<(f64, f64)>],
    dim: (u32, u32),
    x: (f64, f64),
    y: (f64, f64),
) -> DrawResult<Option<Placement>> {
    let labels = legend_labels(chart);
    if labels.is_empty() {
        return Ok(None);
    }
    let font: TextStyle<'_> = ("sans-serif", LEGEND_FONT).into_font().into();
    let size = crate::legend::box_size(&labels, &font);
    // The plotting area's size does not depend on the ranges: measure it on a scratch SVG.
    let mut scratch = String::new();
    let area = {
        let root = SVGBackend::with_string(&mut scratch, dim).into_drawing_area();
        let cc = frame(chart, &root, x, y)?;
        cc.plotting_area().dim_in_pixel()
    };
    Ok(Some(crate::legend::place(chart, coords, size, area, x, y)))
}

/// The legend's font size.
const LEGEND_FONT: u32 = 17;

/// Draw `chart` on `root` (any plotters backend).
pub fn draw<DB: DrawingBackend>(chart: &Chart, root: &DrawingArea<DB, Shift>) -> DrawResult<Frame> {
    register_font();
    let coords = chart.coords();
    let ((x0, x1), (y0, y1)) = chart.ranges(&coords);
    // A range whose width overflows would send plotters' tick search into an endless loop.
    if ![x1 - x0, y1 - y0].iter().all(|w| w.is_finite()) {
        return Err(format!(
            "values span too wide a range to draw (x {x0:e}..{x1:e}, y {y0:e}..{y1:e})"
        ));
    }
    let legend = place_legend(chart, &coords, root.dim_in_pixel(), (x0, x1), (y0, y1))?;
    let y1 = legend.map_or(y1, |p| p.y1);
    let mut cc = frame(chart, root, (x0, x1), (y0, y1))?;
    let (xs, ys) = (chart.x.scale, chart.y.scale);
    let cats = match &chart.style {
        Style::Bars { categories, .. } => {
            Some(categories.iter().map(|c| label(c)).collect::<Vec<_>>())
        }
        Style::Lines => None,
    };
    let ncat = cats.as_ref().map_or(0, Vec::len);
    let xf = move |v: &f64| match &cats {
        // A category's name under its slot; nothing between slots.
        Some(c) if (v - v.round()).abs() < 1e-6 && *v >= 0.0 => {
            c.get(v.round() as usize).cloned().unwrap_or_default()
        }
        Some(_) => String::new(),
        None => fmt_coord(xs, *v),
    };
    let yf = move |v: &f64| fmt_coord(ys, *v);
    cc.configure_mesh()
        .x_desc(label(&chart.x.label))
        .y_desc(label(&chart.y.label))
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_labels(if ncat > 0 { ncat + 1 } else { label_count(xs, x1 - x0, 8) })
        .y_labels(label_count(ys, y1 - y0, 6))
        .light_line_style(TRANSPARENT)
        .bold_line_style(GRID)
        .label_style(("sans-serif", 17))
        .axis_desc_style(("sans-serif", 18))
        .draw()
        .map_err(err)?;
    draw_band(chart, &mut cc, y0, y1)?;
    match &chart.style {
        Style::Lines => draw_lines(chart, &coords, &mut cc)?,
        Style::Bars { bands, .. } => draw_bars(chart, &coords, bands, &mut cc)?,
    }
    if let Some(p) = legend {
        cc.configure_series_labels()
            .position(SeriesLabelPosition::Coordinate(p.at.0, p.at.1))
            .background_style(WHITE.mix(0.85))
            .border_style(GRID)
            .label_font(("sans-serif", LEGEND_FONT))
            .draw()
            .map_err(err)?;
    }
    let (px, py) = cc.plotting_area().get_pixel_range();
    Ok(Frame { px: (px.start, px.end), py: (py.start, py.end), x: (x0, x1), y: (y0, y1) })
}

type Cc<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The series (a single point as a dot); [`draw`] adds the legend.
fn draw_lines<'a, DB: DrawingBackend + 'a>(
    chart: &Chart,
    coords: &[Vec<(f64, f64)>],
    cc: &mut Cc<'a, DB>,
) -> DrawResult<()> {
    for (i, (s, pts)) in chart.series.iter().zip(coords).enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let style = ShapeStyle { color: color.to_rgba(), filled: false, stroke_width: 2 };
        let drawn = if pts.len() == 1 {
            cc.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(err)?
        } else {
            cc.draw_series(LineSeries::new(pts.iter().copied(), style)).map_err(err)?
        };
        drawn
            .label(label(&s.name))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
    }
    Ok(())
}

/// Side-by-side bars (series `i` of `n` in the `i`-th share of each category's slot), each
/// with its noise band as a whisker; [`draw`] adds the legend.
fn draw_bars<'a, DB: DrawingBackend + 'a>(
    chart: &Chart,
    coords: &[Vec<(f64, f64)>],
    bands: &[Vec<(f64, f64)>],
    cc: &mut Cc<'a, DB>,
) -> DrawResult<()> {
    let n = coords.len().max(1) as f64;
    let width = 0.8 / n;
    for (i, (s, pts)) in chart.series.iter().zip(coords).enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let left = |x: f64| x - 0.4 + i as f64 * width;
        let bars = pts.iter().map(|&(x, y)| {
            Rectangle::new(
                [(left(x) + width * 0.08, 0.0), (left(x) + width * 0.92, y)],
                color.filled(),
            )
        });
        cc.draw_series(bars)
            .map_err(err)?
            .label(label(&s.name))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], color.filled()));
        let band = bands.get(i).map(Vec::as_slice).unwrap_or(&[]);
        let whiskers = pts.iter().zip(band).filter(|(_, b)| b.0.is_finite() && b.1.is_finite());
        let ink = ShapeStyle { color: BLACK.to_rgba(), filled: false, stroke_width: 2 };
        cc.draw_series(whiskers.flat_map(|(&(x, _), &(lo, hi))| {
            let (c, w) = (left(x) + width / 2.0, width / 4.0);
            [
                PathElement::new(vec![(c, lo), (c, hi)], ink),
                PathElement::new(vec![(c - w, lo), (c + w, lo)], ink),
                PathElement::new(vec![(c - w, hi), (c + w, hi)], ink),
            ]
        }))
        .map_err(err)?;
    }
    Ok(())
}

fn draw_band<DB: DrawingBackend>(
    chart: &Chart,
    cc: &mut Cc<'_, DB>,
    y0: f64,
    y1: f64,
) -> DrawResult<()> {
    let Some((a, b, text)) = &chart.band else { return Ok(()) };
    let (Some(a), Some(b)) = (chart.x.scale.to_coord(*a), chart.x.scale.to_coord(*b)) else {
        return Ok(());
    };
    let shade = RGBColor(0, 158, 115).mix(0.15).filled();
    cc.draw_series(std::iter::once(Rectangle::new([(a, y0), (b, y1)], shade)))
        .map_err(err)?
        .label(label(text))
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], shade));
    Ok(())
}

/// The chart as an SVG document and where its plotting area is.
pub fn svg(chart: &Chart) -> DrawResult<(String, Frame)> {
    let mut s = String::new();
    let frame = {
        let root = SVGBackend::with_string(&mut s, SIZE).into_drawing_area();
        let f = draw(chart, &root)?;
        root.present().map_err(err)?;
        f
    };
    Ok((s, frame))
}

/// The chart as a PNG file at `path` (white background): drawn into an RGB buffer by
/// plotters' bitmap backend and encoded by the `png` crate (plotters' own encoder would pull
/// in the whole `image` crate).
pub fn png(chart: &Chart, path: &std::path::Path) -> DrawResult<()> {
    let mut rgb = vec![0u8; SIZE.0 as usize * SIZE.1 as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        draw(chart, &root)?;
        root.present().map_err(err)?;
    }
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), SIZE.0, SIZE.1);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(err)?;
    w.write_image_data(&rgb).map_err(err)?;
    w.finish().map_err(err)
}

/// At most `max` points per series: the series cut into buckets, each kept as its smallest and
/// largest y in x order, so spikes survive (min/max decimation, as rrdtool and Grafana do).
pub fn downsample(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if points.len() <= max || max < 4 {
        return points.to_vec();
    }
    let buckets = max / 2;
    let mut out = Vec::with_capacity(max);
    for b in 0..buckets {
        let lo = b * points.len() / buckets;
        let hi = ((b + 1) * points.len() / buckets).max(lo + 1);
        let chunk = &points[lo..hi];
        let (mut imin, mut imax) = (0, 0);
        for (i, p) in chunk.iter().enumerate() {
            if p.1 < chunk[imin].1 {
                imin = i;
            }
            if p.1 > chunk[imax].1 {
                imax = i;
            }
        }
        out.push(chunk[imin.min(imax)]);
        if imin != imax {
            out.push(chunk[imin.max(imax)]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_round_trip() {
        assert_eq!(Scale::Log.to_coord(1000.0), Some(3.0));
        assert_eq!(Scale::Log.to_coord(0.0), None);
        let c = Scale::Nines.to_coord(99.9).unwrap();
        assert!((c - 3.0).abs() < 1e-9);
        assert!((Scale::Nines.from_coord(c) - 99.9).abs() < 1e-9);
        assert_eq!(Scale::Nines.to_coord(100.0), None);
    }

    #[test]
    fn numbers_read_like_a_person_writes_them() {
        assert_eq!(fmt_num(1_472_913.6), "1.47M");
        assert_eq!(fmt_num(12_000.0), "12k");
        assert_eq!(fmt_num(250.0), "250");
        assert_eq!(fmt_num(0.5), "0.5");
        assert_eq!(fmt_coord(Scale::Nines, 2.0), "99");
        assert_eq!(fmt_coord(Scale::Log, 3.5), "3200");
        assert_eq!(fmt_coord(Scale::Log, 4.5), "32k");
        assert_eq!(fmt_coord(Scale::Log, 2.0), "100");
    }

    #[test]
    fn downsample_keeps_the_spike() {
        let mut pts: Vec<(f64, f64)> = (0..3600).map(|i| (i as f64, 100.0)).collect();
        pts[1234].1 = 9999.0;
        let d = downsample(&pts, 600);
        assert!(d.len() <= 600, "{}", d.len());
        assert!(d.contains(&(1234.0, 9999.0)));
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn svg_has_every_series_and_the_frame() {
        let c = Chart {
            id: "t".into(),
            title: "IOPS".into(),
            x: Axis::lin("time (s)"),
            y: Axis::lin("IOPS"),
            series: vec![
                Series { name: "read".into(), points: vec![(0.0, 1.0), (1.0, 2.0)] },
                Series { name: "write".into(), points: vec![(0.0, 3.0), (1.0, 1.0)] },
            ],
            band: Some((0.5, 1.0, "steady state".into())),
            y_from_zero: true,
            legend: Corner::LowerRight,
            style: Style::Lines,
        };
        let (s, f) = svg(&c).unwrap();
        assert!(s.starts_with("<svg"), "{}", &s[..40]);
        // Each series colour: its line and its legend mark.
        assert_eq!(s.matches("stroke=\"#0072B2\"").count(), 2, "{s}");
        assert_eq!(s.matches("stroke=\"#D55E00\"").count(), 2, "{s}");
        assert!(s.contains("\nread\n") && s.contains("\nsteady state\n"), "{s}");
        assert!(f.px.0 > 0 && f.px.1 > f.px.0 && f.py.1 > f.py.0);
        assert_eq!(f.y.0, 0.0);
    }

    #[test]
    fn a_range_that_overflows_is_an_error_not_an_endless_tick_search() {
        let c = Chart {
            id: "t".into(),
            title: "IOPS".into(),
            x: Axis::lin("time (s)"),
            y: Axis::lin("IOPS"),
            series: vec![Series { name: "r".into(), points: vec![(0.0, -1e308), (1.0, 1e308)] }],
            band: None,
            y_from_zero: true,
            legend: Corner::LowerRight,
            style: Style::Lines,
        };
        let e = svg(&c).unwrap_err();
        assert!(e.starts_with("values span too wide a range to draw"), "{e}");
    }
}
