//! fio's `--output-format=json` and `json+`.
//!
//! Field names, nesting, order and units follow fio stat.c `show_thread_status_json`,
//! `add_ddir_status_json` (l.1505), `add_ddir_lat_json` and `json_add_disk_util` (fio-3.33
//! layout, checked against a real fio JSON, notes Appendix B): `runtime` in ms, `bw` in KiB/s
//! (integer, `bw_bytes/1024` whatever `kb_base`), `bw_bytes = 1000·io_bytes/runtime_ms`,
//! `iops = 1000·total_ios/runtime_ms`, latencies in ns under `*_ns`, percentile keys as
//! `printf("%f")`. json+ adds `bins` in fio's 1856-bucket layout (see `fio_plat`). Each job
//! gains an `"iolab"` object with what fio cannot express (p99.999, samples behind each
//! percentile, exact depths, failed I/Os, interruption, the job's notes); fio's consumers
//! ignore unknown keys.

use iolab_core::IoDir;
use iolab_stats::{DirStats, DiskUtil, LatStats, RunResult, SsMetric, SteadyStateReport};

use super::{fio_percentiles, job_views, mixed_view, unified_rw, JobView};
use crate::fio_plat::{bins, calc_dist, LatDist, LAT_M_LABELS, LAT_NU_LABELS};
use crate::json::J;
use crate::num::ctime;
use crate::{Exporter, ReportError};

/// fio JSON (`plus == false`) or json+ (`plus == true`).
pub struct FioJson {
    pub plus: bool,
}

impl Exporter for FioJson {
    fn name(&self) -> &'static str {
        if self.plus {
            "json+"
        } else {
            "json"
        }
    }

    fn render(&self, run: &RunResult) -> Result<Vec<u8>, ReportError> {
        let mut s = fio_json(run, self.plus).to_fio_string();
        s.push('\n');
        Ok(s.into_bytes())
    }
}

/// fio JSON or json+ with iolab's own sections appended after fio's keys (`iolab sim`'s
/// `iolab_sim`), in fio's key order and layout.
pub fn render_with(run: &RunResult, plus: bool, extra: &[(&str, &serde_json::Value)]) -> Vec<u8> {
    let mut root = fio_json(run, plus);
    for (k, v) in extra {
        root.put(*k, value_to_j(v));
    }
    let mut s = root.to_fio_string();
    s.push('\n');
    s.into_bytes()
}

/// Which latency kinds get a `percentile` object (fio `clat_percentiles` default on,
/// `lat_percentiles`, `slat_percentiles` default off).
#[derive(Clone, Copy, Debug)]
struct PctFlags {
    slat: bool,
    clat: bool,
    lat: bool,
}

/// The whole document as an ordered tree.
pub fn fio_json(run: &RunResult, plus: bool) -> J {
    let pcts = fio_percentiles(run);
    let mut root = J::obj();
    // What fio writes (tools check for "fio-3"); iolab names itself in `iolab_version`.
    root.put("fio version", super::terse::FIO_VERSION);
    root.put("iolab_version", format!("iolab-{}", run.meta.iolab_version));
    root.put("timestamp", run.meta.start_unix_ms / 1000);
    root.put("timestamp_ms", run.meta.start_unix_ms);
    root.put("time", ctime(run.meta.start_unix_ms / 1000));
    if run.meta.interrupted {
        // Also per job (`iolab.interrupted`); here even when no job ran (stopped in layout).
        root.put("iolab_interrupted", true);
    }
    // stat.c json_add_job_opts: in the order written, only options with a value (fio keeps
    // no value for a bare flag such as `group_reporting`), and no object when there are none.
    let globals: Vec<_> = run.global_options.iter().filter(|(_, v)| !v.is_empty()).collect();
    if !globals.is_empty() {
        let mut g = J::obj();
        for (k, v) in globals {
            g.put(k.as_str(), v.as_str());
        }
        root.put("global options", g);
    }
    let jobs = job_views(run).iter().map(|v| job_json(run, v, &pcts, plus)).collect();
    root.put("jobs", J::Arr(jobs));
    if !run.disk_util.is_empty() {
        let disks = run.disk_util.iter().map(disk_json).collect();
        root.put("disk_util", J::Arr(disks));
    }
    // iolab extensions (tools written for fio ignore unknown keys): the per-interval device
    // view and the advice findings.
    if !run.disk_series.is_empty() {
        let devs = run
            .disk_series
            .iter()
            .map(|d| {
                let pts = d
                    .points
                    .iter()
                    .map(|p| {
                        let x = &p.iostat;
                        let mut o = J::obj();
                        o.put("end_ms", p.end_ns / 1_000_000)
                            .put("dur_ms", p.dur_ns / 1_000_000)
                            .put("r/s", x.r_s)
                            .put("w/s", x.w_s)
                            .put("rMB/s", x.rmb_s)
                            .put("wMB/s", x.wmb_s)
                            .put("r_await", x.r_await)
                            .put("w_await", x.w_await)
                            .put("aqu-sz", x.aqu_sz)
                            .put("util", x.util)
                            .put("in_flight", p.in_flight);
                        o
                    })
                    .collect();
                let mut o = J::obj();
                o.put("name", d.name.as_str()).put("intervals", J::Arr(pts));
                o
            })
            .collect();
        root.put("iolab_disk_series", J::Arr(devs));
    }
    if !run.advice.is_empty() {
        root.put("iolab_advice", J::Arr(run.advice.iter().map(value_to_j).collect()));
    }
    root
}

/// One `disk_util` entry (stat.c `json_add_disk_util`).
pub(super) fn disk_json(d: &DiskUtil) -> J {
    let mut o = J::obj();
    o.put("name", d.name.as_str())
        .put("read_ios", d.read_ios)
        .put("write_ios", d.write_ios)
        .put("read_sectors", d.read_sectors)
        .put("write_sectors", d.write_sectors)
        .put("read_merges", d.read_merges)
        .put("write_merges", d.write_merges)
        .put("read_ticks", d.read_ticks)
        .put("write_ticks", d.write_ticks)
        .put("in_queue", d.in_queue)
        .put("util", d.util);
    o
}

/// A serde_json value (the advice findings) in the ordered tree.
pub fn value_to_j(v: &serde_json::Value) -> J {
    use serde_json::Value as V;
    match v {
        V::Null => J::Str(String::new()),
        V::Bool(b) => J::Bool(*b),
        V::Number(n) => match n.as_i64() {
            Some(i) => J::Int(i as i128),
            None => J::Float(n.as_f64().unwrap_or(0.0)),
        },
        V::String(s) => J::Str(s.clone()),
        V::Array(a) => J::Arr(a.iter().map(value_to_j).collect()),
        V::Object(m) => J::Obj(m.iter().map(|(k, v)| (k.clone(), value_to_j(v))).collect()),
    }
}

fn lat_json(s: &LatStats, pcts: &[f64], with_pct: bool, plus: bool) -> J {
    let mut o = J::obj();
    o.put("min", s.min).put("max", s.max).put("mean", s.mean).put("stddev", s.stddev);
    o.put("N", s.n);
    if with_pct && s.n > 0 {
        let mut p = J::obj();
        for &pct in pcts {
            p.put(format!("{pct:.6}"), s.percentile(pct).value);
        }
        o.put("percentile", p);
        if plus {
            let mut b = J::obj();
            for (v, c) in bins(s) {
                b.put(v.to_string(), c);
            }
            o.put("bins", b);
        }
    }
    o
}

/// A direction's runtime in ms as fio reports it: whole microseconds rounded up to the
/// millisecond (backend.c `update_runtime`), so a direction that ran at all has at least 1.
pub(crate) fn fio_ms(runtime_ns: u64) -> u64 {
    (runtime_ns / 1000).div_ceil(1000)
}

fn dir_json(d: &DirStats, agg_bytes: f64, pcts: &[f64], f: PctFlags, plus: bool) -> J {
    let mut o = J::obj();
    let runt_ms = fio_ms(d.runtime_ns);
    // fio: bw_bytes = 1000·io_bytes/runtime_ms (integer), iops = 1000·total_ios/runtime_ms.
    let bw_bytes = (1000 * d.io_bytes).checked_div(runt_ms).unwrap_or(0);
    let iops = if runt_ms > 0 { 1000.0 * d.total_ios as f64 / runt_ms as f64 } else { 0.0 };
    o.put("io_bytes", d.io_bytes)
        .put("io_kbytes", d.io_bytes >> 10)
        .put("bw_bytes", bw_bytes)
        .put("bw", bw_bytes / 1024)
        .put("iops", iops)
        .put("runtime", runt_ms)
        .put("total_ios", d.total_ios)
        .put("short_ios", d.short_ios)
        .put("drop_ios", d.drop_ios);
    o.put("slat_ns", lat_json(&d.slat, pcts, f.slat, plus));
    o.put("clat_ns", lat_json(&d.clat, pcts, f.clat, plus));
    o.put("lat_ns", lat_json(&d.lat, pcts, f.lat, plus));
    let bw = &d.bw;
    // stat.c convert_agg_kbytes_percent: this job's mean over the group's aggregate, ≤ 100.
    let p_of_agg = if bw.samples == 0 {
        0.0
    } else if agg_bytes > 1024.0 {
        (bw.mean.trunc() * 100.0 / (agg_bytes / 1024.0)).min(100.0)
    } else {
        100.0
    };
    o.put("bw_min", bw.min as u64)
        .put("bw_max", bw.max as u64)
        .put("bw_agg", p_of_agg)
        .put("bw_mean", bw.mean)
        .put("bw_dev", bw.stddev)
        .put("bw_samples", bw.samples);
    let io = &d.iops;
    o.put("iops_min", io.min as u64)
        .put("iops_max", io.max as u64)
        .put("iops_mean", io.mean)
        .put("iops_stddev", io.stddev)
        .put("iops_samples", io.samples);
    o
}

fn dist_obj(labels: &[&str], vals: &[f64]) -> J {
    let mut o = J::obj();
    for (l, v) in labels.iter().zip(vals) {
        o.put(*l, *v);
    }
    o
}

pub(super) fn job_json(run: &RunResult, v: &JobView<'_>, pcts: &[f64], plus: bool) -> J {
    let f = PctFlags {
        slat: v.report().slat_percentiles,
        clat: v.report().clat_percentiles,
        lat: v.report().lat_percentiles,
    };
    let mut o = J::obj();
    o.put("jobname", v.name)
        .put("groupid", v.groupid)
        .put("error", v.error)
        .put("eta", fio_eta(run))
        .put("elapsed", v.elapsed_ns.div_ceil(1_000_000_000));
    let mut opts = J::obj();
    for (k, val) in v.options.iter().filter(|(_, val)| !val.is_empty()) {
        opts.put(k.as_str(), val.as_str());
    }
    o.put("job options", opts);
    let group = run.groups.iter().find(|g| g.groupid == v.groupid);
    // stat.c add_ddir_status_json: "mixed" alone under unified_rw_reporting=mixed (sync
    // included, as fio skips every other ddir), after read/write/trim/sync under "both".
    let unified = unified_rw(v, run);
    let mixed = (unified != 0).then(|| mixed_view(v, run, pcts));
    if let (1, Some((m, agg))) = (unified, &mixed) {
        o.put("mixed", dir_json(m, *agg, pcts, f, plus));
    } else {
        for d in IoDir::DATA {
            let agg = group.map(|g| g.dir(d).agg_bw_bytes).unwrap_or(0.0);
            o.put(d.as_str(), dir_json(v.dir(d), agg, pcts, f, plus));
        }
        let sync = v.dir(IoDir::Sync);
        let mut so = J::obj();
        // stat.c add_ddir_status_json: total_io_u[DDIR_SYNC], fsyncs only (fdatasync is
        // DDIR_DATASYNC, outside the array); the latencies are sync_stat, of both.
        so.put("total_ios", sync.total_ios.saturating_sub(sync.datasync_ios));
        so.put("lat_ns", lat_json(&sync.lat, pcts, f.lat || f.clat, plus));
        o.put("sync", so);
        if let Some((m, agg)) = &mixed {
            o.put("mixed", dir_json(m, *agg, pcts, f, plus));
        }
    }

    // stat.c show_thread_status_json: job_runtime and the CPU shares over total_run_time
    // (summed over a group's jobs).
    let runt_ms = v.job_runtime_ms;
    let runt_ns = runt_ms.saturating_mul(1_000_000);
    o.put("job_runtime", runt_ms)
        .put("usr_cpu", v.cpu.usr_pct(runt_ns))
        .put("sys_cpu", v.cpu.sys_pct(runt_ns))
        .put("ctx", v.cpu.ctx)
        .put("majf", v.cpu.majf)
        .put("minf", v.cpu.minf);
    let total_ios: u64 = IoDir::DATA.iter().map(|&d| v.dir(d).total_ios).sum();
    let depth = calc_dist(&v.depth.level, total_ios);
    o.put("iodepth_level", dist_obj(&["1", "2", "4", "8", "16", "32", ">=64"], &depth));
    let submits: u64 = v.depth.submit.iter().sum();
    let completes: u64 = v.depth.complete.iter().sum();
    let labels = ["0", "4", "8", "16", "32", "64", ">=64"];
    o.put("iodepth_submit", dist_obj(&labels, &calc_dist(&v.depth.submit, submits)));
    o.put("iodepth_complete", dist_obj(&labels, &calc_dist(&v.depth.complete, completes)));
    let mut ld = LatDist::default();
    for d in IoDir::DATA {
        ld.add(&v.dir(d).lat);
    }
    o.put("latency_ns", dist_obj(&LAT_NU_LABELS, &LatDist::pct(&ld.ns, total_ios)));
    o.put("latency_us", dist_obj(&LAT_NU_LABELS, &LatDist::pct(&ld.us, total_ios)));
    o.put("latency_ms", dist_obj(&LAT_M_LABELS, &LatDist::pct(&ld.ms, total_ios)));
    // stat.c show_thread_status_json: the error counts with continue_on_error, then the
    // latency target, then the description.
    if v.first.report.continue_on_error {
        let total: u64 = v.first.errors.iter().map(|e| e.count).sum();
        o.put("total_err", total).put("first_error", v.first.error as i64);
    }
    let lt = v.latency_target;
    o.put("latency_depth", super::latency_depth(v, run))
        .put("latency_target", lt.target_ns / 1000)
        .put("latency_percentile", lt.percentile)
        .put("latency_window", lt.window_ns / 1000);
    if let Some(d) = &v.first.report.description {
        o.put("desc", d.as_str());
    }
    if let Some(ss) = &v.first.steadystate {
        o.put("steadystate", steadystate_json(ss));
    }
    o.put("iolab", iolab_extras(run, v, pcts));
    o
}

/// fio's `eta` as the JSON report gets it once every job is done (eta.c
/// `calc_thread_status`): `INT_MAX` while fio has run less than 3 s (no estimate yet), else 0.
/// The run's elapsed time is taken as its longest job's.
fn fio_eta(run: &RunResult) -> u64 {
    let elapsed_ns = run.jobs.iter().map(|j| j.elapsed_ns).max().unwrap_or(0);
    if elapsed_ns.div_ceil(1_000_000_000) < 3 {
        i32::MAX as u64
    } else {
        0
    }
}

/// fio stat.c `show_thread_status_json`, `ss_dur` branch.
fn steadystate_json(ss: &SteadyStateReport) -> J {
    // The criterion as the job typed it (with its kb_base); never parsed again here.
    let crit = ss.rule;
    let pct = crit.map(|c| c.percent).unwrap_or_else(|| ss.ss.ends_with('%'));
    let name = match crit {
        Some(c) => format!(
            "{}{}:{:.6}{}",
            match c.metric {
                SsMetric::Iops => "iops",
                SsMetric::Bw => "bw",
                SsMetric::Lat => "lat",
            },
            if c.slope { "_slope" } else { "" },
            c.limit,
            if c.percent { "%" } else { "" }
        ),
        None => ss.ss.clone(),
    };
    let mean =
        |xs: &[f64]| if xs.is_empty() { 0.0 } else { xs.iter().sum::<f64>() / xs.len() as f64 };
    let ints = |xs: &[f64]| J::Arr(xs.iter().map(|&x| J::from(x.round() as u64)).collect());
    let mut o = J::obj();
    o.put("ss", name)
        .put("duration", ss.duration_ns / 1_000_000_000)
        .put("attained", ss.attained as u32)
        .put("criterion", format!("{:.6}{}", ss.criterion, if pct { "%" } else { "" }))
        .put("max_deviation", ss.max_deviation)
        .put("slope", ss.slope);
    let mut data = J::obj();
    data.put("bw_mean", mean(&ss.bw).round() as u64)
        .put("iops_mean", mean(&ss.iops).round() as u64);
    if !ss.lat.is_empty() {
        data.put("lat_mean", mean(&ss.lat).round() as u64).put("lat_ns", ints(&ss.lat));
    }
    data.put("iops", ints(&ss.iops)).put("bw", ints(&ss.bw));
    o.put("data", data);
    o
}

/// One direction's `iolab` object: issued and failed I/Os, the latency percentiles with
/// their tail counts, and a paced job's latency from the schedule.
fn iolab_dir(s: &DirStats, pcts: &[f64]) -> J {
    let mut o = J::obj();
    o.put("issued_ios", s.issued_ios).put("failed_ios", s.failed_ios);
    for (name, l) in [("clat_ns", &s.clat), ("lat_ns", &s.lat)] {
        if l.n == 0 {
            continue;
        }
        let list: Vec<J> = l
            .percentiles
            .iter()
            .map(|p| {
                let mut e = J::obj();
                e.put("pct", p.pct)
                    .put("value", p.value)
                    .put("tail_samples", p.tail_samples)
                    .put("reliable", p.reliable);
                e
            })
            .collect();
        o.put(name, J::Arr(list));
    }
    if s.sched_lat.n > 0 {
        // Beside fio's lat (from submission): from the rate schedule's intended time.
        o.put("sched_lat_ns", lat_json(&s.sched_lat, pcts, true, false));
    }
    o
}

fn iolab_extras(run: &RunResult, v: &JobView<'_>, pcts: &[f64]) -> J {
    let mut x = J::obj();
    x.put("interrupted", run.meta.interrupted)
        .put("mode", format!("{:?}", run.meta.mode).to_lowercase())
        .put("jobs", v.njobs)
        .put("runtime_ns", v.runtime_ns);
    for d in [IoDir::Read, IoDir::Write, IoDir::Trim, IoDir::Sync] {
        let s = v.dir(d);
        if s.total_ios == 0 && s.issued_ios == 0 && s.failed_ios == 0 {
            continue;
        }
        x.put(d.as_str(), iolab_dir(s, pcts));
    }
    let exact: Vec<J> =
        v.depth.exact.iter().map(|&(d, c)| J::Arr(vec![J::from(d), J::from(c)])).collect();
    x.put("iodepth_exact", J::Arr(exact));
    let errs: Vec<J> = v
        .first
        .errors
        .iter()
        .map(|e| {
            let mut o = J::obj();
            o.put("errno", e.errno).put("count", e.count);
            o
        })
        .collect();
    x.put("errors", J::Arr(errs));
    // What the run chose or met for this job (fallbacks, a stop, cache not dropped).
    x.put("notes", J::Arr(v.first.notes.iter().map(|n| J::from(n.as_str())).collect()));
    if let Some(vr) = &v.first.verify {
        let mut o = J::obj();
        o.put("type", vr.kind.as_str())
            .put("checked", vr.checked)
            .put("ok", vr.ok)
            .put("failed", vr.failed())
            .put("corruption", vr.corruption)
            .put("misplaced", vr.misplaced)
            .put("stale", vr.stale)
            .put("torn", vr.torn)
            .put("bad_header", vr.bad_header)
            .put("read_ios", vr.read.total_ios)
            .put("read_bytes", vr.read.io_bytes)
            .put("runtime_ns", vr.runtime_ns);
        let list: Vec<J> = vr
            .failures
            .iter()
            .map(|f| {
                let mut e = J::obj();
                e.put("file", f.file.as_str())
                    .put("offset", f.offset)
                    .put("len", f.len)
                    .put("kind", f.kind.as_str())
                    .put("expected", f.expected.as_str())
                    .put("found", f.found.as_str())
                    .put("message", f.message.as_str());
                e
            })
            .collect();
        o.put("failures", J::Arr(list));
        x.put("verify", o);
    }
    x
}
