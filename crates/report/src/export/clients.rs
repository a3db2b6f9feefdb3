//! fio's client-mode documents: several hosts' runs as one (fio client.c).
//!
//! JSON (client.c `fio_client_json_init`, `handle_ts`, `json_object_add_client_info`): the
//! top level carries `client_stats` instead of `jobs`, one entry per host's job with
//! `hostname` and `port` added, then, when there is more than one entry
//! (`sum_stat_clients > 1`), the `All clients` entry (which fio tags with the last host's
//! name and port). `global options` is an object for one host and an array of each host's
//! object for several. `disk_util` holds every host's devices. The aggregate is iolab's exact
//! merge (`iolab_stats::hosts`): counts add, histograms add bucket by bucket (so json+ `bins`
//! are the sum of the hosts' bins) and percentiles come from the sum. iolab's per-host extras
//! (rank, start skew, clock offset, device views, advice) go under `iolab_hosts`.
//!
//! Text (client.c `handle_text`): each host's report with every line led by `<hostname> `,
//! then the `All clients` report unprefixed.

use std::fmt::Write as _;

use iolab_stats::hosts::{all_clients_run, HostRun};
use iolab_stats::RunResult;

use super::fio_json::{disk_json, job_json, value_to_j};
use super::{fio_percentiles, job_views};
use crate::json::J;
use crate::num::ctime;
use crate::ReportError;

/// The merged document as fio's client JSON (`plus`: json+ with `bins`).
pub fn clients_json(hosts: &[HostRun], plus: bool) -> J {
    let mut root = J::obj();
    let meta = hosts.first().map(|h| h.result.meta.clone()).unwrap_or_default();
    root.put("fio version", super::terse::FIO_VERSION)
        .put("iolab_version", format!("iolab-{}", meta.iolab_version))
        .put("timestamp", meta.start_unix_ms / 1000)
        .put("timestamp_ms", meta.start_unix_ms)
        .put("time", ctime(meta.start_unix_ms / 1000));
    let globals: Vec<J> = hosts.iter().map(|h| global_options(&h.result)).collect();
    match <[J; 1]>::try_from(globals) {
        Ok([one]) => root.put("global options", one),
        Err(many) => root.put("global options", J::Arr(many)),
    };
    let mut entries = Vec::new();
    for h in hosts {
        let pcts = fio_percentiles(&h.result);
        for v in job_views(&h.result) {
            let mut o = job_json(&h.result, &v, &pcts, plus);
            client_info(&mut o, h);
            entries.push(o);
        }
    }
    let pcts = hosts.first().map(|h| fio_percentiles(&h.result)).unwrap_or_default();
    if let (Some(all), Some(last)) = (all_clients_run(hosts, &pcts), hosts.last()) {
        for v in job_views(&all) {
            let mut o = job_json(&all, &v, &pcts, plus);
            client_info(&mut o, last);
            entries.push(o);
        }
    }
    root.put("client_stats", J::Arr(entries));
    let disks = hosts.iter().flat_map(|h| h.result.disk_util.iter().map(disk_json)).collect();
    root.put("disk_util", J::Arr(disks));
    root.put("iolab_hosts", J::Arr(hosts.iter().map(host_extras).collect()));
    root
}

/// fio's client JSON as bytes, with the final newline.
pub fn render_clients_json(hosts: &[HostRun], plus: bool) -> Vec<u8> {
    let mut s = clients_json(hosts, plus).to_fio_string();
    s.push('\n');
    s.into_bytes()
}

/// fio's client-mode text: every host's report, each line led by `<hostname> `, then the
/// `All clients` report.
pub fn clients_text(hosts: &[HostRun]) -> String {
    let mut o = String::new();
    for h in hosts {
        for line in super::text::render(&h.result).lines() {
            let _ = writeln!(o, "<{}> {line}", h.hostname);
        }
    }
    let pcts = hosts.first().map(|h| fio_percentiles(&h.result)).unwrap_or_default();
    if let Some(all) = all_clients_run(hosts, &pcts) {
        o.push_str(&super::text::render(&all));
    }
    o
}

/// Several hosts' runs in every format of the comma-separated `formats`, in order: `normal`
/// fio's client text, `json`/`json+` fio's client JSON, `html` the page of that JSON (a
/// chart per host, as `iolab report` draws a client document). fio's client mode has no
/// other format, and neither has this: the rest are refused by name.
pub fn render_hosts(hosts: &[HostRun], formats: &str) -> Result<Vec<u8>, ReportError> {
    let mut out = Vec::new();
    for fmt in formats.split(',') {
        match fmt {
            "normal" => out.extend(clients_text(hosts).into_bytes()),
            "json" | "json+" => out.extend(render_clients_json(hosts, fmt == "json+")),
            "html" => {
                let doc = render_clients_json(hosts, true);
                out.extend(super::html::doc_page("run")(&doc)?);
            }
            other => {
                return Err(ReportError::UnknownFormat {
                    name: format!("{} (for several hosts)", other.escape_default()),
                    expected: "normal, json, json+, html".into(),
                })
            }
        }
    }
    Ok(out)
}

/// client.c `json_object_add_client_info`.
fn client_info(o: &mut J, h: &HostRun) {
    o.put("hostname", h.hostname.as_str()).put("port", h.port);
}

/// A host's `[global]` options (stat.c `json_add_job_opts`: only options with a value).
fn global_options(run: &RunResult) -> J {
    let mut g = J::obj();
    for (k, v) in run.global_options.iter().filter(|(_, v)| !v.is_empty()) {
        g.put(k.as_str(), v.as_str());
    }
    g
}

/// One host's iolab-only figures.
fn host_extras(h: &HostRun) -> J {
    let mut o = J::obj();
    o.put("hostname", h.hostname.as_str())
        .put("port", h.port)
        .put("rank", h.rank)
        .put("start_skew_ns", h.start_skew_ns)
        .put("clock_offset_ns", h.clock_offset_ns);
    if let Some(f) = &h.interval_file {
        o.put("interval_file", f.as_str());
    }
    let series = serde_json::to_value(&h.result.disk_series).unwrap_or_default();
    o.put("disk_series", value_to_j(&series));
    o.put("advice", J::Arr(h.result.advice.iter().map(value_to_j).collect()));
    o
}
