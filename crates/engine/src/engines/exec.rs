//! `ioengine=exec`: runs a program as the job, fio's engines/exec.c. The first unit starts
//! `program` with `arguments` split on spaces (fio's `exec_background`: no quoting), after
//! fio's substitutions `%r` (the runtime in seconds) and `%n` (the job name); with
//! `std_redirect` (default 1) its stdout and stderr go to `NAME.stdout` and `NAME.stderr`.
//! Every later unit waits 50 ms (fio sets `thinktime=50000`); the last one before the runtime
//! ends sends SIGTERM and allows `grace_time` seconds (at least 100 ms) before SIGKILL (fio's
//! clean-up). fio never
//! collects the program's exit status; iolab reaps it and reports it as a note of the job
//! (`exec: PROGRAM exited with status N`, or the signal that ended it). Units move no data
//! (`FIO_NOIO`). The child is spawned with `std::process::Command` (no fork of the threaded
//! process by hand).

use super::{Caps, Completion, EngineConfig, IoEngine, IoOp, Queued};
use crate::buf::BufPool;
use crate::error::EngineError;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The exec engine's options, resolved by the runner.
#[derive(Clone, Debug, Default)]
pub struct ExecConfig {
    pub program: String,
    pub arguments: Option<String>,
    pub grace_time: u64,
    pub std_redirect: bool,
    /// The job name (`%n`, the output files' prefix).
    pub name: String,
    /// `runtime` (`%r`, and when to stop the program); `None` stops it at the second unit.
    pub runtime: Option<Duration>,
}

pub struct Exec {
    pool: BufPool,
    cfg: ExecConfig,
    child: Option<Child>,
    started: Instant,
    termed: bool,
    status: Option<String>,
}

impl Exec {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        let Some(x) = cfg.exec.clone().filter(|x| !x.program.is_empty()) else {
            let source = std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "no program is defined, it is mandatory to define one (program=)",
            );
            return Err(EngineError::Engine { engine: "exec", op: "program", source });
        };
        let pool = BufPool::try_new(1, cfg.slot_size, 4096, "exec")?;
        let started = Instant::now();
        Ok(Box::new(Exec { pool, cfg: x, child: None, started, termed: false, status: None }))
    }

    /// fio's `expand_variables` and the split on spaces.
    fn argv(&self) -> Vec<String> {
        let r = self.cfg.runtime.map_or(0, |d| d.as_secs());
        let args = self.cfg.arguments.as_deref().unwrap_or_default();
        let args = args.replace("%r", &r.to_string()).replace("%n", &self.cfg.name);
        let line = format!("{} {args}", self.cfg.program);
        line.split(' ').filter(|s| !s.is_empty()).map(str::to_string).collect()
    }

    fn spawn(&mut self) -> Result<(), EngineError> {
        let argv = self.argv();
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]).stdin(Stdio::null());
        if self.cfg.std_redirect {
            for (suffix, out) in [("stdout", true), ("stderr", false)] {
                let p = format!("{}.{suffix}", self.cfg.name);
                let f = std::fs::File::create(&p).map_err(|e| EngineError::io(&p, "create", e))?;
                if out {
                    cmd.stdout(f);
                } else {
                    cmd.stderr(f);
                }
            }
        }
        let child = cmd.spawn().map_err(|e| EngineError::io(&self.cfg.program, "exec", e))?;
        self.child = Some(child);
        Ok(())
    }

    /// Note how the program ended once it has.
    fn collect(&mut self, wait: bool) {
        let Some(c) = self.child.as_mut() else { return };
        let st = if wait { c.wait().ok() } else { c.try_wait().ok().flatten() };
        if let Some(st) = st {
            let how = match (st.code(), st.signal()) {
                (Some(code), _) => format!("exited with status {code}"),
                (None, Some(sig)) => format!("was ended by signal {sig}"),
                _ => "ended".to_string(),
            };
            self.status = Some(format!("exec: {} {how}", self.cfg.program));
            self.child = None;
        }
    }

    /// SIGTERM, up to `grace_time` (at least 100 ms) for the program to end, then SIGKILL.
    fn terminate(&mut self) {
        self.collect(false);
        self.termed = true;
        if self.child.is_none() {
            return;
        }
        self.signal(libc::SIGTERM);
        let grace = Duration::from_secs(self.cfg.grace_time).max(Duration::from_millis(100));
        // A grace_time past what an Instant can hold waits until the program ends.
        let until = Instant::now().checked_add(grace);
        while self.child.is_some() && until.is_none_or(|u| Instant::now() < u) {
            std::thread::sleep(Duration::from_millis(10));
            self.collect(false);
        }
        if self.child.is_some() {
            self.signal(libc::SIGKILL);
            self.collect(true);
        }
    }

    fn signal(&self, sig: libc::c_int) {
        if let Some(c) = &self.child {
            // SAFETY: kill(2) on our own child's pid, which is not reaped yet.
            unsafe { libc::kill(c.id() as libc::pid_t, sig) };
        }
    }
}

impl IoEngine for Exec {
    fn name(&self) -> &'static str {
        "exec"
    }

    fn caps(&self) -> Caps {
        Caps { sync: true, no_io: true, trim: true, fsync: true, max_depth: 1 }
    }

    fn pool(&mut self) -> &mut BufPool {
        &mut self.pool
    }

    fn queue(&mut self, _op: IoOp) -> Result<Queued, EngineError> {
        if self.child.is_none() && self.status.is_none() {
            self.spawn()?;
            return Ok(Queued::Completed(0));
        }
        // The last unit before the runtime ends stops the program (fio checks after its 50 ms
        // thinktime; the job would end before that check here).
        let tick = Duration::from_millis(50);
        let runtime = self.cfg.runtime.unwrap_or_default();
        if self.started.elapsed() + tick >= runtime && self.child.is_some() && !self.termed {
            self.terminate();
        } else {
            std::thread::sleep(tick);
            self.collect(false);
        }
        Ok(Queued::Completed(0))
    }

    fn commit(&mut self) -> Result<usize, EngineError> {
        Ok(0)
    }

    fn reap(&mut self, _min: u32, _out: &mut Vec<Completion>) -> Result<(), EngineError> {
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.status.iter().cloned().collect()
    }

    fn buf(&mut self, _slot: u32, len: usize) -> &mut [u8] {
        self.pool.slot_mut(0, len)
    }
}

impl Drop for Exec {
    /// fio's `fio_exec_cleanup`: SIGKILL whatever still runs (and reap it).
    fn drop(&mut self) {
        if self.child.is_some() {
            self.signal(libc::SIGKILL);
            self.collect(true);
        }
    }
}
