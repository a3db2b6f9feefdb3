//! A block trace as the simulator's request source: any format `iolab-trace` reads, replayed
//! at its timestamps (open loop) or as fast as the depth allows, as one worker.

use super::{RequestSource, SimOptions, SimReport, WorkerSpec};
use crate::tier::Hierarchy;
use crate::SimError;
use iolab_core::IoRequest;
use iolab_trace::{ReaderConfig, TraceError, TraceReader, TraceRecord};
use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

/// How a trace is fed to the simulator.
#[derive(Clone, Debug)]
pub struct TraceReplay<'a> {
    pub path: &'a Path,
    /// A format name, or `None` to detect it.
    pub format: Option<&'a str>,
    /// Issue each request at its timestamp (else as soon as a slot is free).
    pub timed: bool,
    /// Requests in flight, 1 to 65536.
    pub iodepth: usize,
}

/// Simulate `t` through `h`; a bad record ends the simulation with that record's error.
pub fn simulate_trace(h: &mut Hierarchy, t: &TraceReplay<'_>) -> Result<SimReport, SimError> {
    if !(1..=65536).contains(&t.iodepth) {
        return Err(SimError::TraceDepth(t.iodepth));
    }
    let reader = iolab_trace::open(t.path, t.format, &ReaderConfig::default())?;
    let error = Rc::new(RefCell::new(None));
    let source = TraceSource {
        reader,
        rec: TraceRecord::default(),
        timed: t.timed,
        error: Rc::clone(&error),
    };
    let name =
        t.path.file_name().map_or_else(|| "trace".into(), |n| n.to_string_lossy().into_owned());
    let workers = vec![WorkerSpec::new(name, Box::new(source), t.iodepth)];
    let opts = SimOptions { host: super::HostCpu::of_backing(h), ..SimOptions::default() };
    let report = super::run(h, workers, opts);
    if let Some(e) = error.borrow_mut().take() {
        return Err(SimError::BadRecord(e));
    }
    Ok(report)
}

struct TraceSource {
    reader: Box<dyn TraceReader>,
    rec: TraceRecord,
    timed: bool,
    error: Rc<RefCell<Option<TraceError>>>,
}

impl RequestSource for TraceSource {
    fn next_into(&mut self, req: &mut IoRequest) -> bool {
        match self.reader.read_into(&mut self.rec) {
            Ok(true) => {
                *req = self.rec.req;
                if !self.timed {
                    req.issue_at = None;
                }
                true
            }
            Ok(false) => false,
            Err(e) => {
                *self.error.borrow_mut() = Some(e);
                false
            }
        }
    }
}
