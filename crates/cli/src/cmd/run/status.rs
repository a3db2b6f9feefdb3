//! fio's `--status-interval=t` periodic reports: `iolab_engine::status` builds a full result
//! every `t`; here each is rendered in every output format asked for (normal: the whole job
//! report and the group lines; json: one document per interval; terse: one line per job) and
//! printed, or collected for `--output`.

use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use iolab_engine::runner::Progress;
use iolab_engine::status::Periodic;
use iolab_stats::RunResult;

/// The periodic results to make, the formats to render them in, and where they go.
#[derive(Clone)]
pub struct Reports {
    pub periodic: Periodic,
    pub formats: Vec<String>,
    pub terse_version: u8,
    /// `None`: print to stdout as each report is made; otherwise collected here (`--output`).
    pub sink: Option<Arc<Mutex<Vec<u8>>>>,
}

impl Reports {
    pub fn new(
        jobs: &[iolab_job::Job],
        period: std::time::Duration,
        formats: &str,
        terse: u8,
    ) -> Self {
        Reports {
            periodic: Periodic::new(jobs, period),
            formats: formats.split(',').map(str::to_string).collect(),
            terse_version: terse,
            sink: None,
        }
    }
}

/// Until `done`: the engine's periodic results, each rendered and emitted.
pub fn status_loop(p: &Progress, done: &AtomicBool, cfg: &Reports) {
    iolab_engine::status::status_loop(p, done, &cfg.periodic, |r| emit(cfg, r));
}

fn emit(cfg: &Reports, r: &RunResult) {
    let mut out = Vec::new();
    for fmt in &cfg.formats {
        let ex: anyhow::Result<Box<dyn iolab_report::Exporter>> = if fmt == "terse" {
            Ok(Box::new(iolab_report::export::terse::Terse { version: cfg.terse_version }))
        } else {
            iolab_report::exporter(fmt).map_err(Into::into)
        };
        if fmt == "normal" {
            out.push(b'\n');
        }
        match ex.and_then(|e| e.render(r).map_err(Into::into)) {
            Ok(b) => out.extend(b),
            Err(e) => eprintln!("fio: status report ({fmt}): {e}"),
        }
    }
    match &cfg.sink {
        Some(s) => {
            if let Ok(mut g) = s.lock() {
                g.extend(out);
            }
        }
        None => {
            let mut s = std::io::stdout().lock();
            let _ = s.write_all(&out).and_then(|_| s.flush());
        }
    }
}
