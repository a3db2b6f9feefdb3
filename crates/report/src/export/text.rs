//! fio's normal (human) output.
//!
//! Layout from fio stat.c: `show_thread_status_normal` (job header, cpu, IO depths, submit,
//! complete, issued rwts, latency target), `show_ddir_status` (`read: IOPS=…, BW=…`, slat/clat/
//! lat lines via `display_lat` with stat.h's ns→us→ms rules, bw/iops sample lines),
//! `show_clat_percentiles` (columns, widths and unit scaling), `show_lat` (latency
//! distribution, five per line), `show_group_stats` ("Run status group") and
//! `print_disk_util` ("Disk stats"). Numbers go through fio's `num2str` (4 significant digits).
//! iolab adds one line per direction when a percentile beyond fio's list was requested or when
//! tail percentiles rest on fewer than 10 samples, and prints warnings and notes at the end.

use std::fmt::Write;

use iolab_core::IoDir;
use iolab_stats::{DirStats, LatStats, RunResult, MIN_TAIL_SAMPLES};

use super::{fio_percentiles, job_views, mixed_view, unified_rw, JobView};
use crate::fio_plat::{calc_dist, LatDist, LAT_M_LABELS, LAT_NU_LABELS};
use crate::num::{ctime, lat_unit, num2str, N2s};
use crate::{Exporter, ReportError};

/// fio's `--output-format=normal`.
pub struct Text;

impl Exporter for Text {
    fn name(&self) -> &'static str {
        "normal"
    }

    fn render(&self, run: &RunResult) -> Result<Vec<u8>, ReportError> {
        Ok(render(run).into_bytes())
    }
}

const SIG_FIGS: usize = 4;

/// The whole report as a string.
pub fn render(run: &RunResult) -> String {
    let mut o = String::new();
    let pcts = fio_percentiles(run);
    for v in job_views(run) {
        job(&mut o, run, &v, &pcts);
    }
    verify_lines(&mut o, run);
    for g in &run.groups {
        group_status(&mut o, run, g);
    }
    disk_stats(&mut o, run);
    for w in &run.warnings {
        let _ = writeln!(o, "warning: {w}");
    }
    for n in &run.notes {
        let _ = writeln!(o, "note: {n}");
    }
    for n in job_notes(run) {
        let _ = writeln!(o, "note: {n}");
    }
    if run.meta.interrupted {
        o.push_str("note: the run was interrupted; figures cover the time until then\n");
    }
    o
}

/// One "Run status group" block (fio stat.c `show_group_stats`); nothing for a group that
/// did no I/O.
fn group_status(o: &mut String, run: &RunResult, g: &iolab_stats::GroupResult) {
    if IoDir::DATA.iter().all(|&d| g.dir(d).max_run_ns == 0) {
        return;
    }
    let _ = writeln!(o, "\nRun status group {} (all jobs):", g.groupid);
    let unified = group_unified(run, g);
    for (d, label) in IoDir::DATA.iter().zip(["   READ", "  WRITE", "   TRIM"]) {
        let gd = g.dir(*d);
        if gd.max_run_ns == 0 || unified == 1 {
            continue;
        }
        group_line(o, label, &fio_group_dir(run, g, *d));
    }
    if unified != 0 {
        let m = mixed_group(run, g);
        if m.max_run_ns > 0 {
            group_line(o, "  MIXED", &m);
        }
    }
    if g.window_ns > 0 && g.window_ns != g.runtime_ns {
        let _ = writeln!(
            o,
            "  iolab: group window {} ms (first start to last end) vs fio's longest-job {} ms",
            g.window_ns / 1_000_000,
            g.runtime_ns / 1_000_000
        );
    }
}

/// A group's direction as fio's `__show_run_stats` sums it: each job's runtime in whole ms
/// (`fio_ms`, at least 1 for a job that ran), its bandwidth `io_bytes·1000/ms` in integers,
/// the aggregate over the longest job's ms. A 1 MiB job of 0.2 ms is then 1000 MiB/s and
/// `run=1-1msec` on both lines, as fio prints, where the ns figures gave 6196 MiB/s and
/// `run=0-0msec` beside the job's own `(1024KiB/1msec)`.
fn fio_group_dir(run: &RunResult, g: &iolab_stats::GroupResult, d: IoDir) -> iolab_stats::GroupDir {
    let mut gd = g.dir(d).clone();
    let (mut min_ms, mut max_ms, mut min_bw, mut max_bw) = (u64::MAX, 0u64, u64::MAX, 0u64);
    let jobs: Vec<&iolab_stats::JobResult> =
        g.jobs.iter().filter_map(|&i| run.jobs.get(i)).collect();
    for j in &jobs {
        let s = j.dir(d);
        let ms = super::fio_json::fio_ms(s.runtime_ns);
        if ms == 0 {
            continue;
        }
        let bw = s.io_bytes.saturating_mul(1000) / ms;
        (min_ms, max_ms) = (min_ms.min(ms), max_ms.max(ms));
        (min_bw, max_bw) = (min_bw.min(bw), max_bw.max(bw));
    }
    if max_ms == 0 {
        return gd;
    }
    // group_reporting: fio sums the jobs into one thread_stat whose runtime is the longest
    // (stat.c sum_thread_stats), so the line's range is that one entry's.
    if jobs.iter().any(|j| super::group_reporting(run, j)) {
        min_ms = max_ms;
        min_bw = gd.stats.io_bytes.saturating_mul(1000) / max_ms;
        max_bw = min_bw;
    }
    gd.min_run_ns = min_ms * 1_000_000;
    gd.max_run_ns = max_ms * 1_000_000;
    gd.min_bw_bytes = min_bw as f64;
    gd.max_bw_bytes = max_bw as f64;
    gd.agg_bw_bytes = (gd.stats.io_bytes.saturating_mul(1000) / max_ms) as f64;
    gd
}

/// One direction's line of a group block: aggregate, minimum and maximum bandwidth, bytes
/// and run times.
fn group_line(o: &mut String, label: &str, gd: &iolab_stats::GroupDir) {
    let b = |x: f64| num2str(x as u64, SIG_FIGS, true, N2s::BytePerSec);
    let s = |x: f64| num2str(x as u64, SIG_FIGS, false, N2s::BytePerSec);
    let _ = writeln!(
        o,
        "{label}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
        b(gd.agg_bw_bytes),
        s(gd.agg_bw_bytes),
        b(gd.min_bw_bytes),
        b(gd.max_bw_bytes),
        s(gd.min_bw_bytes),
        s(gd.max_bw_bytes),
        num2str(gd.stats.io_bytes, SIG_FIGS, true, N2s::Byte),
        num2str(gd.stats.io_bytes, SIG_FIGS, false, N2s::Byte),
        gd.min_run_ns / 1_000_000,
        gd.max_run_ns / 1_000_000,
    );
}

/// "Disk stats (read/write)" (fio stat.c `print_disk_util`) plus iolab's `iostat -x` line.
fn disk_stats(o: &mut String, run: &RunResult) {
    if run.disk_util.is_empty() {
        return;
    }
    o.push_str("\nDisk stats (read/write):\n");
    for d in &run.disk_util {
        let _ = writeln!(
            o,
            "  {}: ios={}/{}, sectors={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:.2}%",
            d.name,
            d.read_ios,
            d.write_ios,
            d.read_sectors,
            d.write_sectors,
            d.read_merges,
            d.write_merges,
            d.read_ticks,
            d.write_ticks,
            d.in_queue,
            d.util
        );
        let x = &d.iostat;
        if d.window_ns > 0 {
            // iostat -x figures for the same window: the queue depth the device saw
            // (aqu-sz) and per-request wait, which fio's line leaves to the reader.
            let _ = writeln!(
                o,
                "    iolab: r/s={:.1}, w/s={:.1}, rMB/s={:.2}, wMB/s={:.2}, r_await={:.3}ms, \
                 w_await={:.3}ms, aqu-sz={:.2}",
                x.r_s, x.w_s, x.rmb_s, x.wmb_s, x.r_await, x.w_await, x.aqu_sz
            );
        }
    }
}

/// `unified_rw_reporting` of a group (its first job's, as fio takes the group's options).
fn group_unified(run: &RunResult, g: &iolab_stats::GroupResult) -> u8 {
    g.jobs.first().and_then(|&i| run.jobs.get(i)).map_or(0, |j| j.report.unified_rw)
}

/// The group's "  MIXED" line (stat.c show_group_stats with every ddir summed into one):
/// aggregate and bytes summed over the directions, min/max over each job's summed rate.
fn mixed_group(run: &RunResult, g: &iolab_stats::GroupResult) -> iolab_stats::GroupDir {
    let mut m = iolab_stats::GroupDir::default();
    let (mut lo, mut hi) = (f64::INFINITY, 0f64);
    let (mut min_run, mut max_run) = (u64::MAX, 0u64);
    for d in IoDir::DATA {
        m.agg_bw_bytes += g.dir(d).agg_bw_bytes;
        m.stats.io_bytes += g.dir(d).stats.io_bytes;
    }
    for j in g.jobs.iter().filter_map(|&i| run.jobs.get(i)) {
        let bytes: u64 = IoDir::DATA.iter().map(|&d| j.dir(d).io_bytes).sum();
        let runt = IoDir::DATA.iter().map(|&d| j.dir(d).runtime_ns).max().unwrap_or(0);
        if runt == 0 {
            continue;
        }
        let bw = bytes as f64 * 1e9 / runt as f64;
        lo = lo.min(bw);
        hi = hi.max(bw);
        min_run = min_run.min(runt);
        max_run = max_run.max(runt);
    }
    if max_run > 0 {
        m.min_bw_bytes = lo;
        m.max_bw_bytes = hi;
        m.min_run_ns = min_run;
        m.max_run_ns = max_run;
    }
    m
}

/// The verify phase of each job (fio prints verify errors as they happen; iolab sums them):
/// blocks checked, how each failed, the read-back's rate, and the first failures.
fn verify_lines(o: &mut String, run: &RunResult) {
    for j in &run.jobs {
        let Some(v) = &j.verify else { continue };
        let rate =
            if v.runtime_ns > 0 { v.read.io_bytes as f64 * 1e9 / v.runtime_ns as f64 } else { 0.0 };
        let _ = writeln!(
            o,
            "  verify ({}) {}.{}: blocks={}, ok={}, failed={} (corruption={}, misplaced={}, \
             stale={}, torn={}, bad_header={}), read={} at {} in {:.3}msec",
            v.kind,
            j.name,
            j.jobidx,
            v.checked,
            v.ok,
            v.failed(),
            v.corruption,
            v.misplaced,
            v.stale,
            v.torn,
            v.bad_header,
            num2str(v.read.io_bytes, SIG_FIGS, true, N2s::Byte),
            num2str(rate as u64, SIG_FIGS, true, N2s::BytePerSec),
            v.runtime_ns as f64 / 1e6
        );
        for f in &v.failures {
            let _ = writeln!(
                o,
                "    {}: {} (expected {}; found {})",
                f.file, f.message, f.expected, f.found
            );
        }
        if v.failed() > v.failures.len() as u64 {
            let _ = writeln!(o, "    ... {} more", v.failed() - v.failures.len() as u64);
        }
    }
}

/// One job's block (fio stat.c `show_thread_status_normal`).
fn job(o: &mut String, run: &RunResult, v: &JobView<'_>, pcts: &[f64]) {
    let _ = writeln!(
        o,
        "{}: (groupid={}, jobs={}): err={:2}: {}",
        v.name,
        v.groupid,
        v.njobs,
        v.error,
        ctime(run.meta.start_unix_ms / 1000)
    );
    job_dirs(o, run, v, pcts);
    let total: u64 = IoDir::DATA.iter().map(|&d| v.dir(d).total_ios).sum();
    let mut ld = LatDist::default();
    for d in IoDir::DATA {
        ld.add(&v.dir(d).lat);
    }
    lat_dist(o, &LatDist::pct(&ld.ns, total), &LAT_NU_LABELS, "nsec");
    lat_dist(o, &LatDist::pct(&ld.us, total), &LAT_NU_LABELS, "usec");
    lat_dist(o, &LatDist::pct(&ld.ms, total), &LAT_M_LABELS, "msec");
    let sync = v.dir(IoDir::Sync);
    if sync.lat.n > 0 {
        o.push_str("  fsync/fdatasync/sync_file_range/syncfs:\n");
        display_lat(o, "sync", &sync.lat);
        percentiles(o, "sync", &sync.lat, pcts);
    }
    let _ = writeln!(
        o,
        "  cpu          : usr={:.2}%, sys={:.2}%, ctx={}, majf={}, minf={}",
        v.cpu.usr_pct(v.job_runtime_ms.saturating_mul(1_000_000)),
        v.cpu.sys_pct(v.job_runtime_ms.saturating_mul(1_000_000)),
        v.cpu.ctx,
        v.cpu.majf,
        v.cpu.minf
    );
    job_depths(o, v, total);
    job_issued(o, run, v);
}

/// A job's direction blocks: each direction, "mixed" instead (`unified_rw_reporting=mixed`)
/// or after them (`=both`).
fn job_dirs(o: &mut String, run: &RunResult, v: &JobView<'_>, pcts: &[f64]) {
    let group = run.groups.iter().find(|g| g.groupid == v.groupid);
    // stat.c show_thread_status_normal: "mixed" replaces the directions (unified_rw_reporting
    // =mixed) or follows them (=both, show_mixed_ddir_status).
    let unified = unified_rw(v, run);
    if unified != 1 {
        for d in IoDir::DATA {
            let s = v.dir(d);
            if s.io_bytes == 0 || super::fio_json::fio_ms(s.runtime_ns) == 0 {
                continue;
            }
            let agg = group.map(|g| g.dir(d).agg_bw_bytes).unwrap_or(0.0);
            ddir(o, d.as_str(), s, agg, pcts);
        }
    }
    if unified != 0 {
        let (m, agg) = mixed_view(v, run, pcts);
        if m.io_bytes > 0 && super::fio_json::fio_ms(m.runtime_ns) > 0 {
            ddir(o, "mixed", &m, agg, pcts);
        }
    }
}

/// "IO depths" and the submit/complete batch distributions.
fn job_depths(o: &mut String, v: &JobView<'_>, total: u64) {
    let d = calc_dist(&v.depth.level, total);
    let _ = writeln!(
        o,
        "  IO depths    : 1={:.1}%, 2={:.1}%, 4={:.1}%, 8={:.1}%, 16={:.1}%, 32={:.1}%, >=64={:.1}%",
        d[0], d[1], d[2], d[3], d[4], d[5], d[6]
    );
    for (label, map) in [("submit  ", &v.depth.submit), ("complete", &v.depth.complete)] {
        let d = calc_dist(map, map.iter().sum());
        let _ = writeln!(
            o,
            "     {label}  : 0={:.1}%, 4={:.1}%, 8={:.1}%, 16={:.1}%, 32={:.1}%, 64={:.1}%, >=64={:.1}%",
            d[0], d[1], d[2], d[3], d[4], d[5], d[6]
        );
    }
}

/// "issued rwts", "latency" (the `latency_target` search) and "errors".
fn job_issued(o: &mut String, run: &RunResult, v: &JobView<'_>) {
    let sync = v.dir(IoDir::Sync);
    let ds = [v.dir(IoDir::Read), v.dir(IoDir::Write), v.dir(IoDir::Trim), sync];
    let _ = writeln!(
        o,
        "     issued rwts: total={},{},{},{} short={},{},{},0 dropped={},{},{},0",
        ds[0].issued_ios.max(ds[0].total_ios),
        ds[1].issued_ios.max(ds[1].total_ios),
        ds[2].issued_ios.max(ds[2].total_ios),
        ds[3].issued_ios.max(ds[3].total_ios),
        ds[0].short_ios,
        ds[1].short_ios,
        ds[2].short_ios,
        ds[0].drop_ios,
        ds[1].drop_ios,
        ds[2].drop_ios
    );
    let lt = v.latency_target;
    let _ = writeln!(
        o,
        "     latency   : target={}, window={}, percentile={:.2}%, depth={}",
        lt.target_ns / 1000,
        lt.window_ns / 1000,
        lt.percentile,
        super::latency_depth(v, run)
    );
    let failed: u64 = ds.iter().map(|d| d.failed_ios).sum();
    if failed > 0 {
        let _ = writeln!(o, "     errors    : total={failed}, first_error={}", v.error);
    }
}

fn ddir(o: &mut String, label: &str, s: &DirStats, agg_bytes: f64, pcts: &[f64]) {
    let runt_ms = super::fio_json::fio_ms(s.runtime_ns);
    let bw = 1000 * s.io_bytes / runt_ms;
    let iops = 1000 * s.total_ios / runt_ms;
    let _ = writeln!(
        o,
        "  {}: IOPS={}, BW={} ({})({}/{}msec)",
        label,
        num2str(iops, SIG_FIGS, false, N2s::None),
        num2str(bw, SIG_FIGS, true, N2s::BytePerSec),
        num2str(bw, SIG_FIGS, false, N2s::BytePerSec),
        num2str(s.io_bytes, SIG_FIGS, true, N2s::Byte),
        runt_ms
    );
    if s.slat.n > 0 {
        display_lat(o, "slat", &s.slat);
    }
    if s.clat.n > 0 {
        display_lat(o, "clat", &s.clat);
    }
    if s.lat.n > 0 {
        display_lat(o, " lat", &s.lat);
    }
    if s.clat.n > 0 {
        percentiles(o, "clat", &s.clat, pcts);
        iolab_tail(o, &s.clat, pcts);
    }
    let b = &s.bw;
    if b.samples > 0 {
        let p_of_agg = if agg_bytes > 1024.0 {
            (b.mean.trunc() * 100.0 / (agg_bytes / 1024.0)).min(100.0)
        } else {
            100.0
        };
        let (unit, div) = if b.mean > 1024.0 * 1024.0 { ("MiB", 1024.0) } else { ("KiB", 1.0) };
        let _ = writeln!(
            o,
            "   bw ({unit:>5}/s): min={:5}, max={:5}, per={:.2}%, avg={:5.2}, stdev={:5.2}, samples={}",
            (b.min / div) as u64,
            (b.max / div) as u64,
            p_of_agg,
            b.mean / div,
            b.stddev / div,
            b.samples
        );
    }
    let i = &s.iops;
    if i.samples > 0 {
        let _ = writeln!(
            o,
            "   iops        : min={:5}, max={:5}, avg={:5.2}, stdev={:5.2}, samples={}",
            i.min as u64, i.max as u64, i.mean, i.stddev, i.samples
        );
    }
}

fn display_lat(o: &mut String, name: &str, s: &LatStats) {
    let (unit, div) = lat_unit(s.min, s.max, s.stddev);
    let _ = writeln!(
        o,
        "    {name} ({unit}): min={}, max={}, avg={:5.2}, stdev={:5.2}",
        num2str(s.min / div, 6, false, N2s::None),
        num2str(s.max / div, 6, false, N2s::None),
        s.mean / div as f64,
        s.stddev / div as f64
    );
}

/// fio `show_clat_percentiles` with `percentile_precision` 2.
fn percentiles(o: &mut String, pre: &str, s: &LatStats, pcts: &[f64]) {
    if pcts.is_empty() {
        return;
    }
    let vals: Vec<u64> = pcts.iter().map(|&p| s.percentile(p).value).collect();
    let minv = vals.iter().copied().min().unwrap_or(0);
    let maxv = vals.iter().copied().max().unwrap_or(0);
    let (unit, scale) = if minv > 2_000_000 && maxv > 99_999_999 {
        ("msec", 2)
    } else if minv > 2000 && maxv > 99_999 {
        ("usec", 1)
    } else {
        ("nsec", 0)
    };
    let divisor = 1000u64.pow(scale);
    let width = 5usize.max(((maxv / divisor).max(1) as f64).log10() as usize + 1);
    let precision = 2usize;
    let per_line = (80 - 7) / (precision + 10 + width);
    let _ = write!(o, "    {pre} percentiles ({unit}):\n     |");
    for (j, (&p, &v)) in pcts.iter().zip(&vals).enumerate() {
        if j != 0 && j % per_line == 0 {
            o.push_str("     |");
        }
        let mut v = v;
        for _ in 0..scale {
            v = v.div_ceil(1000);
        }
        let last = j == pcts.len() - 1;
        let _ = write!(o, " {p:5.2}th=[{v:width$}]{}", if last { '\n' } else { ',' });
        if !last && j % per_line == per_line - 1 {
            o.push('\n');
        }
    }
}

/// iolab's line under the percentile block: percentiles fio's list lacks, and how many
/// samples lie behind the tail ones.
fn iolab_tail(o: &mut String, s: &LatStats, fio_list: &[f64]) {
    let extra: Vec<String> = s
        .percentiles
        .iter()
        .filter(|p| !fio_list.contains(&p.pct))
        .map(|p| {
            let (unit, div) = lat_unit(s.min, s.max, s.stddev);
            format!("{}th={} {unit}", p.pct, p.value / div)
        })
        .collect();
    let thin: Vec<String> = s
        .percentiles
        .iter()
        .filter(|p| !p.reliable)
        .map(|p| format!("{}th ({} above)", p.pct, p.tail_samples))
        .collect();
    if !extra.is_empty() {
        let _ = writeln!(o, "     | iolab: {}", extra.join(", "));
    }
    if !thin.is_empty() {
        let _ = writeln!(
            o,
            "     | iolab: fewer than {MIN_TAIL_SAMPLES} samples behind {}; run longer to resolve them",
            thin.join(", ")
        );
    }
}

/// fio `show_lat`: non-zero ranges, five per line.
fn lat_dist(o: &mut String, pct: &[f64], labels: &[&str], unit: &str) {
    let mut on_line = 0;
    let mut shown = false;
    for (p, l) in pct.iter().zip(labels) {
        if *p <= 0.0 {
            continue;
        }
        if on_line == 0 {
            if shown {
                o.push('\n');
            }
            let _ = write!(o, "  lat ({unit})   : ");
        } else {
            o.push_str(", ");
        }
        shown = true;
        let _ = write!(o, "{l}={p:.2}%");
        on_line = (on_line + 1) % 5;
    }
    if shown {
        o.push('\n');
    }
}

/// Every job's notes, prefixed with its name, each distinct line once (clones usually share
/// them).
pub fn job_notes(run: &RunResult) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for j in &run.jobs {
        for n in &j.notes {
            let line = format!("job {}: {n}", j.name);
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    out
}
