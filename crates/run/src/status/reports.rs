//! fio's `--status-interval=t` periodic reports as the binary emits them: each result
//! [`super::status_loop`] builds is rendered in every output format asked for through
//! `iolab_report::render` (normal: the whole job report and the group lines; json: one
//! document per interval; terse: one line per job) and printed, or collected for `--output`.

use std::io::Write;
use std::sync::{Arc, Mutex};

use iolab_report::render::{render, Extras};
use iolab_stats::RunResult;

use super::Periodic;
use crate::progress::PeriodicSink;

/// Where the reports go when `--output` is given: collected, written with the final one.
pub type Sink = Arc<Mutex<Vec<u8>>>;

/// The periodic results to make, the formats to render them in, and where they go.
pub struct Reports {
    pub periodic: Periodic,
    /// The run's formats but `html` (one page per run, not per interval).
    pub formats: String,
    pub terse_version: u8,
    /// `None`: print to stdout as each report is made; otherwise collected here (`--output`).
    pub sink: Option<Sink>,
}

impl Reports {
    /// Reports of `jobs` every `period` in `formats` (comma-separated, fio's order).
    pub fn new(
        jobs: &[iolab_job::Job],
        period: std::time::Duration,
        formats: &str,
        terse: u8,
        sink: Option<Sink>,
    ) -> Self {
        let formats: Vec<&str> = formats.split(',').filter(|&f| f != "html").collect();
        let (periodic, formats) = (Periodic::new(jobs, period), formats.join(","));
        Reports { periodic, formats, terse_version: terse, sink }
    }

    /// Emit `out` now (stdout) or keep it for `--output`.
    pub fn put(&self, out: Vec<u8>) {
        match &self.sink {
            Some(s) => s.lock().map(|mut g| g.extend(out)).unwrap_or(()),
            None => {
                let mut s = std::io::stdout().lock();
                let _ = s.write_all(&out).and_then(|_| s.flush());
            }
        }
    }

    /// The engine's periodic results, each rendered and emitted.
    pub fn into_periodic(self) -> PeriodicSink {
        let periodic = self.periodic.clone();
        (periodic, Box::new(move |r: &RunResult| self.emit(r)))
    }

    fn emit(&self, r: &RunResult) {
        if self.formats.is_empty() {
            return;
        }
        let x = Extras { terse_version: self.terse_version, fio: true, ..Extras::default() };
        match render(r, &self.formats, &x) {
            Ok(out) => self.put(out),
            Err(e) => eprintln!("fio: status report: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_never_periodic_and_reports_collect_in_the_sink() {
        let sink = Sink::default();
        let period = std::time::Duration::from_secs(1);
        let r = Reports::new(&[], period, "normal,html,json", 3, Some(sink.clone()));
        assert_eq!(r.formats, "normal,json");
        let (_, mut emit) = r.into_periodic();
        emit(&RunResult::default());
        let got = sink.lock().unwrap().clone();
        let text = String::from_utf8(got).unwrap();
        assert!(text.contains("\"fio version\""), "{text}");
        let only_html = Reports::new(&[], period, "html", 3, Some(Sink::default()));
        let s = only_html.sink.clone().unwrap();
        let (_, mut emit) = only_html.into_periodic();
        emit(&RunResult::default());
        assert!(s.lock().unwrap().is_empty());
    }
}
