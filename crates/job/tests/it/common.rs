//! Helpers shared by the topic modules of iolab-job's integration tests.

use iolab_job::*;
use std::path::{Path, PathBuf};

pub(crate) fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

pub(crate) fn env() -> Env {
    Env::fixed(&[("TESTDIR", "/mnt/t")], 8, 16384, 4096)
}

pub(crate) fn load_job(name: &str) -> Parsed {
    let opts = LoadOptions { files: vec![shared().join("jobs").join(name)], ..Default::default() };
    load_with(&opts, &env()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub(crate) fn parse(text: &str) -> Parsed {
    parse_str_with("t.fio", text, &env()).unwrap_or_else(|e| panic!("{e}"))
}

pub(crate) fn parse_err(text: &str) -> JobError {
    parse_str_with("t.fio", text, &env()).unwrap_err()
}

pub(crate) fn one(text: &str) -> Job {
    let mut p = parse(text);
    assert_eq!(p.jobs.len(), 1);
    p.jobs.remove(0)
}

pub(crate) const MB: u64 = 1 << 20;
pub(crate) const GB: u64 = 1 << 30;
