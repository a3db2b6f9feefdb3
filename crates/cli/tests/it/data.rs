//! `iolab data gen|measure` through the built binary (these were unit tests in
//! `cmd/data.rs` before the command's body moved into `iolab_data::genfile`; same
//! assertions).
#![allow(clippy::unwrap_used)]

use iolab_data::measure::{measure_path, MeasureOptions};
use std::process::{Command, Output};

fn data(argv: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iolab")).arg("data").args(argv).output().unwrap()
}

fn err_of(o: &Output) -> String {
    assert!(!o.status.success());
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn gen_then_measure_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.bin");
    let o = out.to_str().unwrap();
    let args = |o: &str| -> Vec<String> {
        let a = ["gen", "--size", "4m", "--compress", "50", "--dedupe", "30", "--dedupe-spread"];
        let mut v: Vec<String> = a.iter().map(|s| s.to_string()).collect();
        v.extend(["--pattern", "0xdeadbeef", "-o", o].iter().map(|s| s.to_string()));
        v
    };
    let st = data(&args(o).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    assert_eq!(std::fs::metadata(&out).unwrap().len(), 4 << 20);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary left");
    let m = measure_path(&out, &MeasureOptions::default()).unwrap();
    let unique = m.dedupe[0].unique as f64 / m.dedupe[0].blocks as f64;
    assert!((unique - 0.70).abs() < 0.04, "unique {unique}");
    // 50 % compressible and 30 % duplicate: zstd per block ≈ 2:1, zero runs none.
    let z = m.codecs.iter().find(|c| c.codec == "zstd-3").unwrap();
    assert!((z.block_ratio - 2.0).abs() < 0.1, "{}", z.block_ratio);
    assert_eq!(m.zero_run_bytes, 0.0);
    // Same seed, same bytes.
    let out2 = dir.path().join("e.bin");
    let st = data(&args(out2.to_str().unwrap()).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(st.status.success());
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&out2).unwrap());
    assert!(data(&["measure", o, "--json", "--sample", "1m"]).status.success());
}

#[test]
fn bad_flags_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("x").to_str().unwrap().to_string();
    let e = err_of(&data(&["gen", "--size", "1m", "--pattern", "0xzz", "-o", &o]));
    assert!(e.contains("buffer_pattern `0xzz`"), "{e}");
    let e = err_of(&data(&["gen", "--size", "1m", "--compress", "150", "-o", &o]));
    assert!(e.contains("buffer_compress_percentage=150"), "{e}");
    let e = err_of(&data(&["gen", "--size", "lots", "-o", &o]));
    assert!(e.contains("--size"), "{e}");
    assert!(!std::path::Path::new(&o).exists());
    let e = err_of(&data(&["measure", "/nonexistent/iolab"]));
    assert!(e.contains("/nonexistent/iolab: opening read-only"), "{e}");
}
