//! `--status-interval` on many hosts: what fio's client mode prints at each status interval
//! (client.c `handle_ts` of every server's running job, each host's report, then `All
//! clients`), made from the hosts' interval deltas (`iolab_stats::hosts::delta`) so the
//! aggregate is exact: each host's running totals are its deltas added up, `All clients` is
//! their merge bucket by bucket (`iolab_stats::hosts::all_clients`), never an average.
//!
//! Interval `k` of every host is the same window after the common start; the board prints it
//! once every host still running has sent its `k`-th (a host that has ended, or was lost,
//! adds nothing more). Each printed document also carries `iolab_interval`: the window's
//! deltas per host and their sum (completed I/Os per direction, completion-latency bins of
//! all directions), and the final document carries every window as `iolab_intervals`, the
//! last one being the remainder up to each host's final result, so the final counts are the
//! sum of the windows.

use std::collections::VecDeque;
use std::io::Write;

use iolab_remote::client::Event;
use iolab_report::export::clients;
use iolab_report::export::fio_json::value_to_j;
use iolab_stats::hosts::delta::{HostInterval, HostTotals};
use iolab_stats::hosts::{merge_buckets, HostRun};
use iolab_stats::RunResult;
use serde_json::{json, Value};

/// The hosts' intervals as they come, printed window by window.
pub struct Board {
    names: Vec<(String, u16)>,
    totals: Vec<HostTotals>,
    queued: Vec<VecDeque<HostInterval>>,
    ended: Vec<bool>,
    done: u32,
    /// The run's formats but html (one page per run).
    formats: Vec<String>,
    /// Print each window's documents at once (else keep them for `--output`).
    to_stdout: bool,
    /// The documents kept for `--output`.
    pub kept: Vec<u8>,
    rows: Vec<Row>,
    /// The largest completion latency seen so far, ns (json+ bins clamp their top bucket to
    /// it, as `fio_plat` does for a result).
    max_ns: u64,
}

/// One window: per host, the completed I/Os per direction and the latency buckets.
struct Row {
    index: u32,
    end_ns: u64,
    last: bool,
    hosts: Vec<HostDelta>,
}

/// A host's completed I/Os per direction and latency buckets over one window.
type HostDelta = ([u64; 4], Vec<(u64, u64)>);

impl Board {
    /// A board for hosts named `names` (hostname, port) in rank order.
    pub fn new(names: Vec<(String, u16)>, formats: &str, to_stdout: bool) -> Board {
        let n = names.len();
        Board {
            names,
            totals: vec![HostTotals::default(); n],
            queued: vec![VecDeque::new(); n],
            ended: vec![false; n],
            done: 0,
            formats: formats.split(',').filter(|f| *f != "html").map(str::to_string).collect(),
            to_stdout,
            kept: Vec::new(),
            rows: Vec::new(),
            max_ns: 0,
        }
    }

    /// One host's interval or end; prints every window now complete.
    pub fn event(&mut self, e: Event<'_>) {
        match e {
            Event::Interval(rank, d) => {
                if let Some(q) = self.queued.get_mut(rank as usize) {
                    q.push_back(d.clone());
                }
            }
            Event::Ended(rank) => {
                if let Some(x) = self.ended.get_mut(rank as usize) {
                    *x = true;
                }
            }
        }
        self.drain(false);
    }

    /// Every host has ended: the windows left (the remainders among them).
    pub fn finish(&mut self) {
        self.ended.iter_mut().for_each(|e| *e = true);
        self.drain(true);
    }

    fn drain(&mut self, all: bool) {
        loop {
            let k = self.done + 1;
            let has = |q: &VecDeque<HostInterval>| q.front().is_some_and(|d| d.seq == k);
            let any = self.queued.iter().any(has);
            let waiting = self.queued.iter().zip(&self.ended).any(|(q, e)| !e && !has(q));
            if !any || (waiting && !all) {
                return;
            }
            self.window(k);
            self.done = k;
        }
    }

    /// Window `k`: each host's interval `k` added to its totals, the row kept, and the
    /// documents printed unless the window holds only final remainders.
    fn window(&mut self, k: u32) {
        let pcts = &iolab_stats::DEFAULT_PERCENTILES;
        let mut row = Row { index: k, end_ns: 0, last: true, hosts: Vec::new() };
        for (h, q) in self.queued.iter_mut().enumerate() {
            let d = q.front().filter(|d| d.seq == k).is_some().then(|| q.pop_front()).flatten();
            let Some(d) = d else {
                row.hosts.push(([0; 4], Vec::new()));
                continue;
            };
            row.last &= d.last;
            row.end_ns = row.end_ns.max(d.end_ns);
            let top = d.jobs.iter().flat_map(|j| &j.dirs).map(|x| x.clat.max).max();
            self.max_ns = self.max_ns.max(top.unwrap_or(0));
            if let Err(e) = self.totals[h].apply(&d, pcts) {
                eprintln!("iolab: {}: interval left out: {e}", self.names[h].0);
            }
            row.hosts.push((d.ios(), d.clat_buckets()));
        }
        if !row.last {
            let shown = self.row_json(&row);
            self.print(&shown);
        }
        self.rows.push(row);
    }

    /// Every window's deltas, json+ bins clamped to the largest latency of the run (as the
    /// final document's bins are, so the windows' bins add up to them exactly).
    pub fn rows(&self) -> Vec<Value> {
        self.rows.iter().map(|r| self.row_json(r)).collect()
    }

    /// A window as `iolab_interval`: each host's deltas and their sum, bins in fio's json+
    /// layout.
    fn row_json(&self, r: &Row) -> Value {
        let (mut sum_ios, mut sum_bins) = ([0u64; 4], Vec::new());
        let mut hosts = Vec::new();
        for ((ios, b), (name, port)) in r.hosts.iter().zip(&self.names) {
            for (s, i) in sum_ios.iter_mut().zip(ios) {
                *s = s.saturating_add(*i);
            }
            sum_bins = merge_buckets(&sum_bins, b);
            let bins = self.bins_json(b);
            hosts.push(json!({"hostname": name, "port": port, "ios": ios, "clat_ns_bins": bins}));
        }
        let all = json!({"ios": sum_ios, "clat_ns_bins": self.bins_json(&sum_bins)});
        json!({"index": r.index, "end_ns": r.end_ns, "final": r.last, "hosts": hosts, "All clients": all})
    }

    /// json+ `bins` (fio's 1856-bucket layout, `iolab_report::fio_plat`) of raw buckets.
    fn bins_json(&self, b: &[(u64, u64)]) -> Value {
        let stats =
            iolab_stats::LatStats { buckets: b.to_vec(), max: self.max_ns, ..Default::default() };
        let bins = iolab_report::fio_plat::bins(&stats);
        Value::Object(bins.iter().map(|(v, c)| (v.to_string(), Value::from(*c))).collect())
    }

    /// The window's documents, each host's running totals then All clients, in every format.
    fn print(&mut self, row: &Value) {
        let pcts = &iolab_stats::DEFAULT_PERCENTILES;
        let mut like = RunResult::default();
        like.meta.iolab_version = env!("CARGO_PKG_VERSION").to_string();
        like.meta.start_unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let hosts: Vec<HostRun> = self
            .totals
            .iter()
            .zip(&self.names)
            .enumerate()
            .map(|(rank, (t, (name, port)))| HostRun {
                hostname: name.clone(),
                port: *port,
                rank: rank as u32,
                result: t.as_result(&like, pcts),
                ..Default::default()
            })
            .collect();
        let mut out = Vec::new();
        for f in &self.formats {
            match f.as_str() {
                "json" | "json+" => {
                    let mut doc = clients::clients_json(&hosts, f == "json+");
                    doc.put("iolab_interval", value_to_j(row));
                    out.extend(doc.to_fio_string().into_bytes());
                    out.push(b'\n');
                }
                _ => out.extend(clients::clients_text(&hosts).into_bytes()),
            }
        }
        if self.to_stdout {
            let mut s = std::io::stdout().lock();
            let _ = s.write_all(&out).and_then(|()| s.flush());
        } else {
            self.kept.extend(out);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use iolab_stats::hosts::delta::{DirDelta, JobDelta, LatDelta};

    fn iv(seq: u32, last: bool, ios: u64, bucket: u64, total: u64) -> HostInterval {
        let clat = LatDelta {
            n: ios,
            sum: u128::from(ios * bucket),
            sum_sq: u128::from(ios * bucket * bucket),
            min: bucket,
            max: bucket,
            buckets: vec![(bucket, ios)],
        };
        let read =
            DirDelta { ios, bytes: ios * 4096, total_ios: total, clat, ..Default::default() };
        let job = JobDelta {
            name: "j".into(),
            dirs: [read, Default::default(), Default::default(), Default::default()],
            ..Default::default()
        };
        HostInterval { seq, end_ns: u64::from(seq) * 1000, last, reset: false, jobs: vec![job] }
    }

    #[test]
    fn a_window_waits_for_every_running_host_and_sums_their_deltas() {
        let names = vec![("a".to_string(), 1), ("b".to_string(), 2)];
        let mut b = Board::new(names, "json", false);
        b.event(Event::Interval(0, &iv(1, false, 5, 100, 5)));
        assert!(b.rows().is_empty() && b.kept.is_empty());
        b.event(Event::Interval(1, &iv(1, false, 7, 120, 7)));
        let rows = b.rows();
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!(row["All clients"]["ios"][0], 12);
        assert_eq!(row["All clients"]["clat_ns_bins"], json!({"100": 5, "120": 7}));
        assert_eq!(row["hosts"][1]["clat_ns_bins"], json!({"120": 7}));
        let doc: Value = serde_json::from_slice(&b.kept).unwrap();
        let totals: Vec<u64> = doc["client_stats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["read"]["total_ios"].as_u64().unwrap())
            .collect();
        assert_eq!(totals, [5, 7, 12]);
        // Host b ends; a's next window prints alone, and the remainders are kept unprinted.
        b.event(Event::Interval(1, &iv(2, true, 1, 120, 8)));
        b.event(Event::Ended(1));
        b.event(Event::Interval(0, &iv(2, false, 3, 100, 8)));
        assert_eq!(b.rows().len(), 2);
        assert_eq!(b.rows()[1]["All clients"]["ios"][0], 4);
        b.event(Event::Interval(0, &iv(3, true, 2, 100, 10)));
        b.finish();
        let rows = b.rows();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[2]["final"], true);
        let sum: u64 = rows.iter().map(|r| r["All clients"]["ios"][0].as_u64().unwrap()).sum();
        assert_eq!(sum, 18);
    }
}
