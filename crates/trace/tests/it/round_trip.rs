//! iolab-trace's writers: iolog and csv round trips, and an iolog written by iolab replayed by fio
//! (skips without fio).

use crate::common::*;
use iolab_trace::{open, ReaderConfig, TraceReader, TraceRecord};

#[test]
fn iolog_and_csv_round_trip() {
    use iolab_trace::write::{csv::CsvWriter, iolog::IologWriter, TraceWriter};
    let text = b"fio version 2 iolog\n/dev/a add\n/dev/b add\n/dev/a open\n/dev/b open\n/dev/a read 4096 512\n/dev/a wait 2000 0\n/dev/b write 0 8192\n/dev/a trim 65536 4096\n/dev/a close\n";
    let mut r = from_bytes("in.log", text, &ReaderConfig::default());
    let files = {
        let v = read_all(&mut *r);
        (v, r.file_names())
    };
    let mut out = Vec::new();
    let mut w = IologWriter::new(&mut out, "out", files.1.clone());
    for rec in &files.0 {
        w.write(rec).unwrap();
    }
    w.finish().unwrap();
    let s = String::from_utf8(out.clone()).unwrap();
    assert_eq!(
        s,
        "fio version 3 iolog\n0 /dev/a add\n0 /dev/a open\n0 /dev/a read 4096 512\n\
2000 /dev/b add\n2000 /dev/b open\n2000 /dev/b write 0 8192\n2000 /dev/a trim 65536 4096\n\
2000 /dev/a close\n2000 /dev/b close\n"
    );
    let back = read_all(&mut *from_bytes("back.log", &out, &ReaderConfig::default()));
    assert_eq!(triples(&back), triples(&files.0));

    let mut csv = Vec::new();
    let mut w = CsvWriter::new(&mut csv, "c");
    w.write(&files.0[0]).unwrap();
    w.write(&files.0[1]).unwrap();
    let e = w.write(&files.0[2]).unwrap_err().to_string();
    assert!(e.starts_with("c: record 3 (byte 0): a trim request cannot be written"), "{e}");
    let back = read_all(&mut *from_bytes("c.csv", &csv, &ReaderConfig::default()));
    assert_eq!(triples(&back), triples(&files.0[..2]));
}

/// fio's binary, if installed and runnable; otherwise prints why the caller skips.
fn fio_bin() -> Option<&'static str> {
    iolab_test_support::or_skip(iolab_test_support::fio()).map(|_| "fio")
}

#[test]
fn iolog_written_by_iolab_replays_in_fio_with_identical_counts() {
    use iolab_trace::write::{iolog::IologWriter, TraceWriter};
    let Some(fio) = fio_bin() else { return };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("cp.iolog");
    let dev = dir.path().join("dev0").display().to_string();
    let mut r =
        open(&shared().join("traces/cloudPhysicsIO.csv"), None, &ReaderConfig::default()).unwrap();
    let mut w = IologWriter::new(
        std::io::BufWriter::new(std::fs::File::create(&log).unwrap()),
        "log",
        vec![dev],
    );
    let mut rec = TraceRecord::default();
    let (mut n, mut bytes) = ([0u64; 2], [0u64; 2]);
    while r.read_into(&mut rec).unwrap() {
        let d = rec.req.dir.data_index().unwrap();
        n[d] += 1;
        bytes[d] += rec.req.len;
        w.write(&rec).unwrap();
    }
    w.finish().unwrap();
    drop(w);
    let out = std::process::Command::new(fio)
        .args(["--ioengine=null", "--replay_no_stall=1", "--name=x", "--output-format=json"])
        .arg(format!("--read_iolog={}", log.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "fio failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    let job = &json["jobs"][0];
    let got = |d: &str, k: &str| job[d][k].as_u64().unwrap();
    assert_eq!((n[0], n[1]), (46_974, 66_898));
    assert_eq!((got("read", "total_ios"), got("write", "total_ios")), (n[0], n[1]));
    assert_eq!((got("read", "io_bytes"), got("write", "io_bytes")), (bytes[0], bytes[1]));
}
