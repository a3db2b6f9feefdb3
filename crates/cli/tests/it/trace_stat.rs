//! `iolab trace stat` end to end on inputs the library tests do not make: an oracleGeneral
//! trace whose obj_ids are hashed 64-bit keys (libCacheSim's converters write them), which
//! do not fit as sector numbers.

use std::process::Command;

/// 100 records of 4 KiB with obj_ids near 2^64 (`0xfedc...` + i·7919), one second apart.
fn hashed_trace(path: &std::path::Path) {
    let mut b = Vec::new();
    for i in 0..100u64 {
        b.extend((i as u32).to_le_bytes());
        b.extend((0xfedc_ba98_7654_3210u64 + i * 7919).to_le_bytes());
        b.extend(4096u32.to_le_bytes());
        b.extend((-1i64).to_le_bytes());
    }
    std::fs::write(path, b).unwrap();
}

/// The reliability review: "trace stat still rejects oracleGeneral files with hashed 64-bit
/// obj_ids (value out of range: obj_id); mrc now takes them". Now every record is counted,
/// and stderr says the ids were read as object keys, so offsets and streams do not apply.
#[test]
fn hashed_oracle_ids_are_read_as_object_keys() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("hashed.bin");
    hashed_trace(&t);
    let o = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args(["trace", "stat", "--json"])
        .arg(&t)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("read as object keys") && err.lines().count() == 1, "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["requests"], 100, "{v}");
    assert_eq!(v["read"]["bytes"], 100 * 4096, "{v}");
}
