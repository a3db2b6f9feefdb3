//! Fuzz target: arbitrary bytes through the job-file reader (`parse_str_with`, fixed
//! environment so runs are reproducible) and through the fio-style command-line path. Any panic
//! is a bug: bad input must come back as a `JobError`.
#![no_main]

use iolab_job::{load_with, parse_str_with, Env, LoadOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let env = Env::fixed(&[("TESTDIR", "/t")], 4, 1024, 4096);
    let _ = parse_str_with("fuzz.fio", &text, &env);
    let args: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    let _ = load_with(&LoadOptions { cmdline: args, ..Default::default() }, &env);
});
