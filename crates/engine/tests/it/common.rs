//! Helpers shared by the topic modules of iolab-engine's integration tests.

use iolab_core::{IoDir, IoRequest};
use iolab_data::{FailureKind, VerifyCtx, VerifyFailure, VerifyKind};
use iolab_engine::runner::{run_jobs, RunOptions};
use iolab_engine::worker::ReadCheck;
use iolab_job::{Job, LoadOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The byte at `pos` of the test pattern: different per 512-byte sector and per file.
pub(crate) fn pat(file: u32, pos: u64) -> u8 {
    ((pos / 512).wrapping_mul(31) ^ pos ^ (file as u64 * 7)) as u8
}

pub(crate) fn fill_pat(buf: &mut [u8], file: u32, off: u64) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = pat(file, off + i as u64);
    }
}

pub(crate) struct PatCheck;
impl ReadCheck for PatCheck {
    fn check(&mut self, buf: &[u8], file: u32, off: u64) -> Result<(), Box<VerifyFailure>> {
        for (i, &b) in buf.iter().enumerate() {
            if b != pat(file, off + i as u64) {
                return Err(Box::new(VerifyFailure {
                    file,
                    offset: off,
                    len: buf.len() as u64,
                    kind: FailureKind::Corruption { at: i as u64, in_header: false },
                    expected: VerifyCtx::new(VerifyKind::Pattern, file, off, 0, 0),
                    found: None,
                }));
            }
        }
        Ok(())
    }
}

/// Sequential requests over `[0, size)` in `bs` steps, then the end.
pub(crate) fn seq(dir: IoDir, size: u64, bs: u64) -> impl FnMut(&mut IoRequest) -> bool + Send {
    let mut off = 0;
    move |r: &mut IoRequest| {
        if off >= size {
            return false;
        }
        *r = IoRequest::new(dir, 0, off, bs);
        off += bs;
        true
    }
}

pub(crate) fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared").join(rel)
}

pub(crate) fn load(files: &[PathBuf], cmdline: &[&str], testdir: &Path) -> Vec<Job> {
    let mut env = iolab_job::ini::Env::from_system();
    env.vars.insert("TESTDIR".into(), testdir.display().to_string());
    let opts = LoadOptions {
        files: files.to_vec(),
        cmdline: cmdline.iter().map(|s| s.to_string()).collect(),
        sections: vec![],
    };
    iolab_job::load_with(&opts, &env).unwrap().jobs
}

pub(crate) fn run(jobs: &[Job]) -> iolab_stats::RunResult {
    run_full(jobs).result
}

pub(crate) fn run_full(jobs: &[Job]) -> iolab_engine::runner::RunOutput {
    run_jobs(jobs, &RunOptions::default(), Arc::new(AtomicBool::new(false)), None).unwrap()
}

/// A verify job on one 1 MiB file (4 KiB blocks) in `d`; `extra` adds options.
pub(crate) fn verify_job(d: &Path, extra: &[&str]) -> Vec<Job> {
    let f = format!("--filename={}", d.join("v").display());
    let mut a = vec!["--name=v", &f, "--rw=write", "--bs=4k", "--size=1m", "--verify=crc32c"];
    a.extend_from_slice(extra);
    load(&[], &a, d)
}
