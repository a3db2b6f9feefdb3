//! fio's terse (`--minimal`, `--output-format=terse`) semicolon lines, versions 2 to 5.
//!
//! Source: fio 3.33 stat.c `show_thread_status_terse_all`, `show_ddir_status_terse`,
//! `show_mixed_ddir_status_terse`, `print_disk_util` (terse branch) and `stat_calc_lat_nu`.
//! One line per job (or per group under `group_reporting`):
//!
//! - header: v2 `2;name;groupid;error`, v3–v5 `ver;fio-3.33;name;groupid;error`;
//! - per direction (read, write, and trim for v2/v4/v5; one "mixed" block instead under
//!   `unified_rw_reporting=mixed`, plus one after them under `both`): KiB, KiB/s, IOPS,
//!   runtime ms; slat, clat min/max/mean/stddev in µs; 20 `pct%=µs` percentile slots; lat in
//!   µs; bw min/max KiB/s, percent of the group aggregate, mean, stddev; v5 adds bw samples
//!   and iops min/max/mean/stddev/samples — 41 fields per direction, 47 in v5;
//! - cpu usr%, sys%, ctx, majf, minf; 7 iodepth levels; 10 µs and 12 ms latency ranges (the ns
//!   ranges folded into the first µs range);
//! - v3+: one 9-field block per disk (`;name;rios;wios;rmerge;wmerge;rticks;wticks;inq;util%`);
//! - `continue_on_error`: total errors and the first errno; `description` when set.
//!
//! With one disk: v2 161 fields, v3 130, v4 171, v5 189.

use std::fmt::Write;

use iolab_core::IoDir;
use iolab_stats::{DirStats, LatStats, RunResult};

use super::{fio_percentiles, job_views, mixed_view, unified_rw, JobView};
use crate::fio_plat::{calc_dist, LatDist};
use crate::{Exporter, ReportError};

/// The version string fio writes in terse v3+ and JSON (`fio_version_string`); iolab names
/// itself in its own JSON section instead.
pub const FIO_VERSION: &str = iolab_core::FIO_VERSION;

/// fio stat.h `FIO_IO_U_LIST_MAX_LEN`: percentile slots per direction.
const PCT_SLOTS: usize = 20;

/// fio's terse output of one `terse_version` (2, 3, 4 or 5; fio's default is 3).
pub struct Terse {
    pub version: u8,
}

impl Exporter for Terse {
    fn name(&self) -> &'static str {
        "terse"
    }

    fn render(&self, run: &RunResult) -> Result<Vec<u8>, ReportError> {
        if !(2..=5).contains(&self.version) {
            return Err(ReportError::UnknownFormat {
                name: format!("terse version {}", self.version),
                expected: "terse versions 2, 3, 4, 5".into(),
            });
        }
        let pcts = fio_percentiles(run);
        let mut s = String::new();
        for v in job_views(run) {
            terse_line(&mut s, run, &v, &pcts, self.version);
        }
        Ok(s.into_bytes())
    }
}

/// One job's line, newline included.
fn terse_line(s: &mut String, run: &RunResult, v: &JobView<'_>, pcts: &[f64], ver: u8) {
    if ver == 2 {
        let _ = write!(s, "2;{};{};{}", v.name, v.groupid, v.error);
    } else {
        let _ = write!(s, "{ver};{FIO_VERSION};{};{};{}", v.name, v.groupid, v.error);
    }
    let use_lat = v.report().lat_percentiles;
    let use_clat = v.report().clat_percentiles;
    let group = run.groups.iter().find(|g| g.groupid == v.groupid);
    let agg = |d: IoDir| group.map(|g| g.dir(d).agg_bw_bytes).unwrap_or(0.0);
    let pct_src = |d: &DirStats| -> Option<LatStats> {
        if use_lat {
            Some(d.lat.clone())
        } else if use_clat {
            Some(d.clat.clone())
        } else {
            None
        }
    };
    let unified = unified_rw(v, run);
    let mut dirs: Vec<(DirStats, f64)> = Vec::new();
    if unified == 1 {
        dirs.push(mixed_view(v, run, pcts));
    } else {
        dirs.push((v.dir(IoDir::Read).clone(), agg(IoDir::Read)));
        dirs.push((v.dir(IoDir::Write).clone(), agg(IoDir::Write)));
        if ver != 3 {
            dirs.push((v.dir(IoDir::Trim).clone(), agg(IoDir::Trim)));
        }
        if unified == 2 {
            dirs.push(mixed_view(v, run, pcts));
        }
    }
    for (d, agg_bytes) in &dirs {
        ddir_terse(s, d, *agg_bytes, pct_src(d).as_ref(), pcts, ver);
    }
    tail_terse(s, run, v, ver);
    s.push('\n');
}

/// `calc_lat` then `;min;max;mean;dev` in µs (fio divides ns by 1000, integers truncated).
fn lat_us(s: &mut String, l: &LatStats) {
    if l.n == 0 {
        s.push_str(";0;0;0.000000;0.000000");
    } else {
        let _ = write!(
            s,
            ";{};{};{:.6};{:.6}",
            l.min / 1000,
            l.max / 1000,
            l.mean / 1000.0,
            l.stddev / 1000.0
        );
    }
}

/// stat.c `show_ddir_status_terse`.
fn ddir_terse(
    s: &mut String,
    d: &DirStats,
    agg_bytes: f64,
    pct: Option<&LatStats>,
    pcts: &[f64],
    ver: u8,
) {
    let runt = super::fio_json::fio_ms(d.runtime_ns);
    let (bw, iops) = match runt {
        0 => (0, 0),
        r => ((1000 * d.io_bytes / r) / 1024, 1000 * d.total_ios / r),
    };
    let _ = write!(s, ";{};{bw};{iops};{runt}", d.io_bytes >> 10);
    lat_us(s, &d.slat);
    lat_us(s, &d.clat);
    // calc_clat_percentiles fills every slot of the list, zeros when there are no samples.
    let shown = if pct.is_some() { pcts.len().min(PCT_SLOTS) } else { 0 };
    for i in 0..PCT_SLOTS {
        match (pcts.get(i).filter(|_| i < shown), pct) {
            (Some(&p), Some(l)) => {
                let v = if l.n > 0 { l.percentile(p).value / 1000 } else { 0 };
                let _ = write!(s, ";{p:.6}%={v}");
            }
            _ => s.push_str(";0%=0"),
        }
    }
    lat_us(s, &d.lat);
    let b = &d.bw;
    if b.samples > 0 {
        let agg_k = (agg_bytes as u64) / 1024;
        let p_of_agg = if agg_k > 0 { (b.mean * 100.0 / agg_k as f64).min(100.0) } else { 100.0 };
        let _ = write!(
            s,
            ";{};{};{p_of_agg:.6}%;{:.6};{:.6}",
            b.min as u64, b.max as u64, b.mean, b.stddev
        );
    } else {
        s.push_str(";0;0;0.000000%;0.000000;0.000000");
    }
    if ver == 5 {
        let _ = write!(s, ";{}", b.samples);
        let io = &d.iops;
        if io.samples > 0 {
            let _ = write!(
                s,
                ";{};{};{:.6};{:.6};{}",
                io.min as u64, io.max as u64, io.mean, io.stddev, io.samples
            );
        } else {
            s.push_str(";0;0;0.000000;0.000000;0");
        }
    }
}

/// CPU, depth and latency distributions, disks, errors and description.
fn tail_terse(s: &mut String, run: &RunResult, v: &JobView<'_>, ver: u8) {
    let _ = write!(
        s,
        ";{:.6}%;{:.6}%;{};{};{}",
        v.cpu.usr_pct(v.job_runtime_ms.saturating_mul(1_000_000)),
        v.cpu.sys_pct(v.job_runtime_ms.saturating_mul(1_000_000)),
        v.cpu.ctx,
        v.cpu.majf,
        v.cpu.minf
    );
    let total: u64 = IoDir::DATA.iter().map(|&d| v.dir(d).total_ios).sum();
    for p in calc_dist(&v.depth.level, total) {
        let _ = write!(s, ";{p:3.1}%");
    }
    let mut ld = LatDist::default();
    for d in IoDir::DATA {
        ld.add(&v.dir(d).lat);
    }
    // stat_calc_lat_nu: the ns ranges are added to the first µs range.
    let mut us = LatDist::pct(&ld.us, total);
    if total > 0 {
        us[0] += 100.0 * ld.ns.iter().sum::<u64>() as f64 / total as f64;
    }
    for p in us.iter().chain(LatDist::pct(&ld.ms, total).iter()) {
        let _ = write!(s, ";{p:3.2}%");
    }
    if ver >= 3 {
        for d in &run.disk_util {
            let _ = write!(
                s,
                ";{};{};{};{};{};{};{};{};{:3.2}%",
                d.name,
                d.read_ios,
                d.write_ios,
                d.read_merges,
                d.write_merges,
                d.read_ticks,
                d.write_ticks,
                d.in_queue,
                d.util.min(100.0)
            );
        }
    }
    if v.report().continue_on_error {
        let total_err: u64 = v.first.errors.iter().map(|e| e.count).sum();
        let first = v.first.errors.first().map(|e| e.errno).unwrap_or(0);
        let _ = write!(s, ";{total_err};{first}");
    }
    if let Some(desc) = v.report().description.as_deref() {
        if ver == 2 {
            s.push('\n');
        }
        let _ = write!(s, ";{desc}");
    }
}
