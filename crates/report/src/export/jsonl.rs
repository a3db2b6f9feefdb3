//! JSON Lines status output: one object per job and interval with per-interval (not
//! cumulative) figures, for `--status-interval` style monitoring.
//!
//! fio's own `--status-interval` with JSON prints whole cumulative documents back to back,
//! which is not valid JSON and hides what happened in each period (fio-behaviour.md §3.2
//! quirk 2, §3.5; fio PR #461, issues #130, #1068). Each line here is one self-contained
//! object: `{"time_ms", "job", "jobidx", "interval_ms", "read": {"io_bytes", "total_ios",
//! "bw_bytes", "iops", "clat_mean_ns"}, "write": …}`; directions with no I/O in the interval
//! are left out. A run ended early by a signal closes with `{"interrupted": true, "time_ms"}`
//! (the last interval's end). [`status_line`] builds the same line live from two counter snapshots.

use iolab_stats::{IntervalPoint, LiveSnapshot, RunResult, DIRS};

use crate::json::J;
use crate::{Exporter, ReportError};

/// The JSON Lines exporter over a finished run's interval series.
pub struct Jsonl;

impl Exporter for Jsonl {
    fn name(&self) -> &'static str {
        "jsonl"
    }

    fn render(&self, run: &RunResult) -> Result<Vec<u8>, ReportError> {
        let mut out = String::new();
        let mut last_ns = 0;
        for j in &run.jobs {
            let n = DIRS.iter().map(|&d| j.dir(d).series.len()).max().unwrap_or(0);
            for k in 0..n {
                let mut end = 0;
                let mut dur = 0;
                let mut dirs = Vec::new();
                for d in DIRS {
                    if let Some(p) = j.dir(d).series.get(k) {
                        end = end.max(p.end_ns);
                        dur = dur.max(p.dur_ns);
                        if p.ios > 0 {
                            dirs.push((d.as_str(), p.clone()));
                        }
                    }
                }
                last_ns = last_ns.max(end);
                out.push_str(&line(end, dur, &j.name, j.jobidx, &dirs));
                out.push('\n');
            }
        }
        if run.meta.interrupted {
            let mut o = J::obj();
            o.put("interrupted", true).put("time_ms", last_ns / 1_000_000);
            out.push_str(&o.to_compact_string());
            out.push('\n');
        }
        Ok(out.into_bytes())
    }
}

fn line(
    end_ns: u64,
    dur_ns: u64,
    job: &str,
    jobidx: u32,
    dirs: &[(&str, IntervalPoint)],
) -> String {
    let mut o = J::obj();
    o.put("time_ms", end_ns / 1_000_000)
        .put("job", job)
        .put("jobidx", jobidx)
        .put("interval_ms", dur_ns as f64 / 1e6);
    for (name, p) in dirs {
        let mut d = J::obj();
        d.put("io_bytes", p.bytes)
            .put("total_ios", p.ios)
            .put("bw_bytes", p.bw_bytes_per_sec())
            .put("iops", p.iops())
            .put("clat_mean_ns", p.clat_mean_ns);
        o.put(*name, d);
    }
    o.to_compact_string()
}

/// One live status line from two snapshots of a job's
/// [`LiveCounters`](iolab_stats::LiveCounters), `prev` taken `dur_ns` before `cur`;
/// `t_ns` is the time since the job started.
pub fn status_line(
    job: &str,
    jobidx: u32,
    t_ns: u64,
    dur_ns: u64,
    prev: &LiveSnapshot,
    cur: &LiveSnapshot,
) -> String {
    let mut dirs = Vec::new();
    for d in DIRS {
        let i = d.fio_ddir() as usize;
        let ios = cur.ios[i].saturating_sub(prev.ios[i]);
        if ios == 0 {
            continue;
        }
        let clat = cur.clat_sum_ns[i].wrapping_sub(prev.clat_sum_ns[i]);
        dirs.push((
            d.as_str(),
            IntervalPoint {
                end_ns: t_ns,
                dur_ns,
                bytes: cur.bytes[i].saturating_sub(prev.bytes[i]),
                ios,
                clat_mean_ns: clat as f64 / ios as f64,
            },
        ));
    }
    line(t_ns, dur_ns, job, jobidx, &dirs)
}
