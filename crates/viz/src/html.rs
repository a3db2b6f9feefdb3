//! The report as one self-contained HTML file: inline CSS (light and dark themes through
//! `prefers-color-scheme`, `@media print`), the charts as inline SVG from [`crate::chart`], and a
//! small inline script for hover values. Nothing is fetched: no fonts, scripts or images from
//! anywhere, so the file opens from disk offline.
//!
//! Each chart is a `<figure class="chart">` with `data-chart`, `data-series` and `data-points`
//! (what was drawn) and a JSON island (`<script type="application/json">`) with the drawn
//! coordinates and the plotting frame; the script reads the islands for the tooltip and writes
//! what it found into `<body>`'s `data-hover-*` attributes, and any script error into
//! `#errors` and `data-errors`, so a headless browser's DOM shows whether it ran. Opened as
//! `page.html#selftest`, the script also moves a synthetic mouse over every chart and counts
//! in `data-hover-test` the charts whose tooltip showed values.

use crate::chart::{self, Chart, Frame};
use crate::model::{Advice, Report, Section, Table};
use crate::VizError;
use std::fmt::Write;

pub use crate::escape::esc;

/// The whole page.
pub fn render(report: &Report) -> Result<String, VizError> {
    let mut o = String::new();
    let charts: usize = report.sections.iter().map(|s| s.charts.len()).sum();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"iolab-viz {}\">\n<title>{}</title>\n<style>{}</style>\n\
         </head>\n<body data-charts=\"{charts}\">\n<header><h1>{}</h1>\n<nav>",
        env!("CARGO_PKG_VERSION"),
        esc(&report.title),
        CSS,
        esc(&report.title)
    );
    for (i, s) in report.sections.iter().enumerate() {
        let _ = write!(o, "<a href=\"#s{i}\">{}</a> ", esc(&s.title));
    }
    o.push_str("</nav></header>\n<main>\n");
    for (i, s) in report.sections.iter().enumerate() {
        section(&mut o, i, s)?;
    }
    o.push_str("</main>\n<pre id=\"errors\" hidden></pre>\n<div id=\"tip\" role=\"tooltip\" hidden></div>\n");
    let _ = write!(o, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    Ok(o)
}

fn section(o: &mut String, i: usize, s: &Section) -> Result<(), VizError> {
    let _ = write!(
        o,
        "<section class=\"report\" id=\"s{i}\" data-kind=\"{}\" data-charts=\"{}\">\n<h2>{}</h2>\n",
        esc(&s.kind),
        s.charts.len(),
        esc(&s.title)
    );
    for t in &s.tables {
        table(o, t);
    }
    if !s.charts.is_empty() {
        o.push_str("<div class=\"charts\">\n");
        for c in &s.charts {
            figure(o, c)?;
        }
        o.push_str("</div>\n");
    }
    if !s.advice.is_empty() {
        advice(o, &s.advice);
    }
    if !s.notes.is_empty() {
        o.push_str("<h3>Notes</h3>\n<ul class=\"notes\">");
        for n in &s.notes {
            let _ = write!(o, "<li>{}</li>", esc(n));
        }
        o.push_str("</ul>\n");
    }
    o.push_str("</section>\n");
    Ok(())
}

fn table(o: &mut String, t: &Table) {
    if t.rows.is_empty() {
        return;
    }
    // Wide tables scroll in their box; cells wrap only between words (numbers never).
    let _ = write!(o, "<div class=\"tw\"><table>\n<caption>{}</caption>\n", esc(&t.caption));
    if t.head.iter().any(|h| !h.is_empty()) {
        o.push_str("<thead><tr>");
        for h in &t.head {
            let _ = write!(o, "<th>{}</th>", esc(h));
        }
        o.push_str("</tr></thead>\n");
    }
    o.push_str("<tbody>\n");
    for r in &t.rows {
        o.push_str("<tr>");
        for (k, c) in r.iter().enumerate() {
            let tag = if k == 0 && t.head.iter().all(String::is_empty) { "th" } else { "td" };
            let _ = write!(o, "<{tag}>{}</{tag}>", esc(c));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody></table></div>\n");
}

fn figure(o: &mut String, c: &Chart) -> Result<(), VizError> {
    let (svg, frame) =
        chart::svg(c).map_err(|what| VizError::Draw { chart: c.id.clone(), what })?;
    // Inline SVG in HTML needs no namespace declaration (and the page then names no URL at
    // all); the SVG's own <title> is its tooltip where scripts are off.
    let svg = svg.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1);
    let svg = match svg.find('>') {
        Some(k) => format!("{}<title>{}</title>{}", &svg[..=k], esc(&c.title), &svg[k + 1..]),
        None => svg,
    };
    // The shaded window (steady state), in x values.
    let band = c.band.as_ref().map(|b| format!(" data-band=\"{},{}\"", b.0, b.1));
    let _ = write!(
        o,
        "<figure class=\"chart\" id=\"c-{id}\" data-chart=\"{id}\" data-series=\"{}\" \
         data-points=\"{}\" data-x-scale=\"{}\" data-y-scale=\"{}\"{}>\n{svg}\n\
         <figcaption>{}</figcaption>\n<script type=\"application/json\">{}</script>\n</figure>\n",
        c.series.len(),
        c.point_count(),
        c.x.scale.name(),
        c.y.scale.name(),
        band.unwrap_or_default(),
        esc(&c.title),
        island(c, &frame),
        id = esc(&c.id),
    );
    Ok(())
}

/// The chart's drawn coordinates and frame as JSON for the hover script (through
/// [`crate::escape::island`]: no `<` the HTML parser could act on).
fn island(c: &Chart, f: &Frame) -> String {
    let series: Vec<serde_json::Value> = c
        .series
        .iter()
        .zip(c.coords())
        .map(|(s, pts)| {
            let p: Vec<[f64; 2]> = pts.iter().map(|&(x, y)| [round(x), round(y)]).collect();
            serde_json::json!({ "n": s.name, "p": p })
        })
        .collect();
    let cats = match &c.style {
        chart::Style::Bars { categories, .. } => Some(categories),
        chart::Style::Lines => None,
    };
    let v = serde_json::json!({
        "c": cats,
        "f": [f.px.0, f.px.1, f.py.0, f.py.1],
        "x": [f.x.0, f.x.1],
        "y": [f.y.0, f.y.1],
        "xs": c.x.scale.name(),
        "ys": c.y.scale.name(),
        "xl": c.x.label,
        "yl": c.y.label,
        "s": series,
    });
    crate::escape::island(&v.to_string())
}

/// Six significant digits are more than a tooltip shows, and keep the file small.
fn round(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return 0.0;
    }
    let m = 10f64.powi(5 - v.abs().log10().floor() as i32);
    (v * m).round() / m
}

fn advice(o: &mut String, list: &[Advice]) {
    o.push_str("<h3>Advice</h3>\n<div class=\"advice\">\n");
    for a in list {
        let _ = write!(
            o,
            "<article class=\"finding {sev}\" data-id=\"{}\"><h4><span class=\"sev\">{sev}</span> \
             [{}] {}: {}</h4>\n<dl><dt>evidence</dt><dd>{}</dd><dt>why</dt><dd>{}</dd>\
             <dt>what to do</dt><dd>{}</dd></dl></article>\n",
            esc(&a.id),
            esc(&a.id),
            esc(&a.subject),
            esc(&a.title),
            esc(&a.evidence),
            esc(&a.why),
            esc(&a.what_to_do),
            sev = esc(&a.severity),
        );
    }
    o.push_str("</div>\n");
}

const CSS: &str = r##"
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1b1d21;--muted:#5f6670;--grid:#dddddd;--card:#f5f6f8;--border:#d3d7dd;--warn:#a85200;--info:#005f99;--err:#b00020}
@media (prefers-color-scheme:dark){:root{--bg:#15171b;--fg:#e4e6ea;--muted:#9aa3ad;--grid:#3a4048;--card:#1e2126;--border:#3a4048;--warn:#f0a050;--info:#6cb6ff;--err:#ff6b81}}
*{box-sizing:border-box}
body{background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1240px;padding:12px 20px}
h1{font-size:1.4em;margin:.3em 0}h2{font-size:1.2em;border-bottom:1px solid var(--border);padding-bottom:.2em;margin-top:1.6em}
nav a{color:var(--info);margin-right:1em}
table{border-collapse:collapse;margin:.8em 0;font-variant-numeric:tabular-nums;background:var(--card)}
caption{text-align:left;font-weight:600;padding:.3em 0;color:var(--muted)}
.tw{overflow-x:auto;max-width:100%}
th,td{border:1px solid var(--border);padding:3px 8px;text-align:left;vertical-align:top;max-width:60em;overflow-wrap:break-word}
td{text-align:right;white-space:nowrap}td:first-child,td:nth-child(2){text-align:left;white-space:normal;min-width:8em}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:14px}
figure.chart{margin:0;padding:6px;background:var(--card);border:1px solid var(--border);border-radius:6px}
figure.chart svg{width:100%;height:auto;display:block}
figure.chart svg text{fill:var(--fg)}
figure.chart svg [stroke="#000000"]{stroke:var(--fg)}
figure.chart svg [stroke="#DDDDDD"]{stroke:var(--grid)}
figure.chart svg [fill="#FFFFFF"]{fill:var(--card)}
figcaption{font-size:.85em;color:var(--muted);text-align:center}
.finding{border-left:4px solid var(--info);background:var(--card);padding:4px 12px;margin:8px 0}
.finding.warning{border-color:var(--warn)}.finding.error{border-color:var(--err)}
.finding h4{margin:.3em 0}.sev{text-transform:uppercase;font-size:.8em;color:var(--muted)}
dl{display:grid;grid-template-columns:8em 1fr;gap:2px 10px;margin:.3em 0}dt{color:var(--muted)}dd{margin:0}
#tip{position:absolute;pointer-events:none;background:var(--bg);color:var(--fg);border:1px solid var(--border);padding:4px 8px;white-space:pre;font:12px/1.35 ui-monospace,monospace;box-shadow:0 2px 6px rgba(0,0,0,.25);z-index:9}
#errors{color:var(--err)}
@media print{:root{--bg:#fff;--fg:#000;--card:#fff;--grid:#ccc;--border:#999;--muted:#333}body{max-width:none;padding:0;font-size:11px}nav,#tip{display:none}.charts{display:block}figure.chart{break-inside:avoid;margin:6px 0}table,article{break-inside:avoid}}
"##;

const SCRIPT: &str = r##"
(function(){
var body=document.body,errs=document.getElementById('errors'),tip=document.getElementById('tip');
function fail(m){errs.hidden=false;errs.textContent+=m+'\n';body.dataset.errors=(+(body.dataset.errors||0))+1;}
window.addEventListener('error',function(e){fail(String(e.message));});
function val(s,c){return s==='log'?Math.pow(10,c):s==='nines'?100*(1-Math.pow(10,-c)):c;}
function fmt(v){var a=Math.abs(v);if(a>=1e9)return(v/1e9).toPrecision(4)+'G';if(a>=1e6)return(v/1e6).toPrecision(4)+'M';if(a>=1e4)return(v/1e3).toPrecision(4)+'k';if(a>=100||v===Math.round(v))return String(Math.round(v*100)/100);return v.toPrecision(4);}
function near(p,x){var lo=0,hi=p.length-1;while(hi-lo>1){var m=(lo+hi)>>1;if(p[m][0]<x)lo=m;else hi=m;}return Math.abs(p[lo][0]-x)<=Math.abs(p[hi][0]-x)?p[lo]:p[hi];}
var figs=document.querySelectorAll('figure.chart'),ser=0,pts=0;
figs.forEach(function(f){
 var d;try{d=JSON.parse(f.querySelector('script[type="application/json"]').textContent);}catch(e){fail(f.id+': '+e);return;}
 ser+=d.s.length;d.s.forEach(function(s){pts+=s.p.length;});
 f.dataset.hoverSeries=d.s.length;
 var svg=f.querySelector('svg');
 svg.addEventListener('mousemove',function(ev){
  var r=svg.getBoundingClientRect(),vb=svg.viewBox.baseVal,sx=(ev.clientX-r.left)*vb.width/r.width,sy=(ev.clientY-r.top)*vb.height/r.height;
  if(sx<d.f[0]||sx>d.f[1]||sy<d.f[2]||sy>d.f[3]){tip.hidden=true;return;}
  var cx=d.x[0]+(sx-d.f[0])/(d.f[1]-d.f[0])*(d.x[1]-d.x[0]);
  function xv(x){return d.c?(d.c[Math.round(x)]||''):fmt(val(d.xs,x));}
  var lines=[d.xl+': '+xv(cx)];
  d.s.forEach(function(s){if(!s.p.length)return;var p=near(s.p,cx);lines.push((s.n||'value')+': '+fmt(val(d.ys,p[1]))+'  ('+xv(p[0])+')');});
  lines.push('('+d.yl+')');
  tip.textContent=lines.join('\n');tip.hidden=false;tip.style.left=(ev.pageX+14)+'px';tip.style.top=(ev.pageY+14)+'px';
 });
 svg.addEventListener('mouseleave',function(){tip.hidden=true;});
});
if(location.hash==='#selftest'){var ok=0;figs.forEach(function(f){var svg=f.querySelector('svg'),r=svg.getBoundingClientRect();svg.dispatchEvent(new MouseEvent('mousemove',{clientX:r.left+r.width*0.6,clientY:r.top+r.height*0.5,bubbles:true}));if(!tip.hidden&&tip.textContent.split('\n').length>=3)ok++;});tip.hidden=true;body.dataset.hoverTest=ok;}
if(location.hash==='#selftest'){var lg=0,lo=[];figs.forEach(function(f){var svg=f.querySelector('svg'),rects=[].slice.call(svg.querySelectorAll('rect'));
 function num(e,a){return +(e.getAttribute(a)||0);}
 rects.filter(function(r){return r.getAttribute('opacity')==='0.85'&&r.getAttribute('fill')==='#FFFFFF';}).forEach(function(r){lg++;
  var x0=num(r,'x')+1,y0=num(r,'y')+1,x1=x0+num(r,'width')-2,y1=y0+num(r,'height')-2,hit=0;
  function inb(x,y){return x>x0&&x<x1&&y>y0&&y<y1;}
  svg.querySelectorAll('polyline').forEach(function(p){var q=(p.getAttribute('points')||'').trim().split(/\s+/).map(function(s){var a=s.split(',');return[+a[0],+a[1]];});
   if(q.every(function(z){return inb(z[0],z[1]);}))return;
   for(var i=0;i<q.length&&!hit;i++){if(inb(q[i][0],q[i][1])){hit++;break;}if(i>0){var a=q[i-1],b=q[i],n=Math.ceil(Math.max(Math.abs(b[0]-a[0]),Math.abs(b[1]-a[1]))/2);for(var k=1;k<n;k++){var t=k/n;if(inb(a[0]+(b[0]-a[0])*t,a[1]+(b[1]-a[1])*t)){hit++;break;}}}}});
  svg.querySelectorAll('circle').forEach(function(c){if(inb(num(c,'cx'),num(c,'cy')))hit++;});
  rects.forEach(function(q){if(q===r||q.getAttribute('fill')==='none'||q.getAttribute('fill')==='#FFFFFF'||+(q.getAttribute('opacity')||1)<0.5)return;
   var a=num(q,'x'),b=num(q,'y'),c=a+num(q,'width'),d=b+num(q,'height');if(a>=x0-2&&c<=x1+2&&b>=y0-2&&d<=y1+2)return;if(a<x1&&c>x0&&b<y1&&d>y0)hit++;});
  if(hit)lo.push(f.id);});});
 body.dataset.legends=lg;body.dataset.legendOverlaps=lo.length;if(lo.length)body.dataset.legendOverlapCharts=lo.join(' ');}
body.dataset.hoverCharts=figs.length;body.dataset.hoverSeries=ser;body.dataset.hoverPoints=pts;body.dataset.script='ok';
})();
"##;
