//! iolab-trace on the bundled CloudPhysics trace and its oracle: three forms agree, batch reads,
//! errors with offsets, byte-exact writer, trace stat.

use crate::common::*;
use iolab_core::IoDir;
use iolab_trace::{open, ReaderConfig, TraceReader, TraceRecord};

#[test]
fn bundled_trace_three_forms_agree() {
    let dir = shared().join("traces");
    let mut csv = open(&dir.join("cloudPhysicsIO.csv"), None, &ReaderConfig::default()).unwrap();
    let mut zst =
        open(&dir.join("cloudPhysicsIO.csv.zst"), None, &ReaderConfig::default()).unwrap();
    let mut bin = open(&dir.join("cloudPhysicsIO.oracleGeneral.bin"), None, &oracle_cfg()).unwrap();
    assert_eq!(csv.format(), "cloudphysics");
    assert_eq!(zst.format(), "cloudphysics");
    assert_eq!(bin.format(), "oracleGeneral");
    let (a, b, c) = (read_all(&mut *csv), read_all(&mut *zst), read_all(&mut *bin));
    assert_eq!(counts(&a), (113_872, 66_898, 46_974));
    assert_eq!(a, b);
    assert_eq!(c.len(), 113_872);
    // oracleGeneral has no op field, and libCacheSim's conversion gives each object the size
    // of its first request (13,671 records differ from the CSV size); time, id and offset
    // match record for record.
    let mut first_size = std::collections::HashMap::new();
    for (x, y) in a.iter().zip(&c) {
        assert_eq!((x.time_ns, x.obj_id, x.req.offset), (y.time_ns, y.obj_id, y.req.offset));
        assert_eq!(*first_size.entry(x.obj_id).or_insert(x.size), y.size);
    }
    assert_eq!(a.iter().zip(&c).filter(|(x, y)| x.size != y.size).count(), 13_671);
    assert_eq!(a[0].obj_id, 42_932_745);
    assert_eq!(a[0].req.offset, 42_932_745 * 512);
    assert_eq!(a[0].time_ns, 5_633_898_000);
    assert_eq!(a[3].req.len, 6656);
    assert_eq!(a.last().unwrap().req.issue_at.unwrap().0, (5_641_098 - 5_633_898) * 1000);
    assert_eq!(csv.skipped(), 0);
}

/// `read_batch` returns the records `read_into` does, whatever the batch size, and a short
/// batch only at the end.
#[test]
fn read_batch_equals_read_into() {
    let path = shared().join("traces/cloudPhysicsIO.oracleGeneral.bin");
    let one = read_all(&mut *open(&path, None, &oracle_cfg()).unwrap());
    for size in [1usize, 7, 256] {
        let mut r = open(&path, None, &oracle_cfg()).unwrap();
        let mut buf = vec![TraceRecord::default(); size];
        let mut all = Vec::new();
        loop {
            let k = r.read_batch(&mut buf).unwrap();
            all.extend_from_slice(&buf[..k]);
            if k < size {
                break;
            }
        }
        assert_eq!(all.len(), 113_872, "batch {size}");
        assert!(all == one, "batch {size}: records differ from read_into");
        assert_eq!(r.records(), 113_872);
    }
}

#[test]
fn cloudphysics_small_and_errors() {
    let text = b"version,time,op,size,lbn\n1,10,28,4096,8\n1,12,2a,512,16\n1,13,42,1024,0\n";
    let recs = read_all(&mut *from_bytes("t.csv", text, &ReaderConfig::default()));
    assert_eq!(recs.len(), 3);
    assert_eq!((recs[0].req.dir, recs[0].req.offset, recs[0].req.len), (IoDir::Read, 4096, 4096));
    assert_eq!((recs[1].req.dir, recs[1].req.offset), (IoDir::Write, 8192));
    assert_eq!(recs[2].req.dir, IoDir::Trim);
    assert_eq!(recs[1].req.issue_at.unwrap().0, 2_000);

    let bad = b"version,time,op,size,lbn\n1,10,28,4096,8\n1,11,ff,4096,8\n1,12,28,x,8\n1,13,28,512\n1,14,2a,512,1\n";
    let mut r = from_bytes("bad.csv", bad, &ReaderConfig::default());
    let mut rec = TraceRecord::default();
    assert!(r.read_into(&mut rec).unwrap());
    let e = r.read_into(&mut rec).unwrap_err().to_string();
    assert_eq!(e.lines().count(), 1);
    assert!(e.starts_with("bad.csv: record 3 (byte 40): unknown operation `ff`"), "{e}");

    let cfg = ReaderConfig { lenient: true, ..ReaderConfig::default() };
    let mut r = from_bytes("bad.csv", bad, &cfg);
    let recs = read_all(&mut *r);
    assert_eq!(recs.len(), 2);
    assert_eq!(r.skipped(), 3);
}

#[test]
fn oracle_truncated_record_is_an_error_with_offset() {
    let mut bytes = Vec::new();
    for i in 0..3u64 {
        bytes.extend_from_slice(&(i as u32).to_le_bytes());
        bytes.extend_from_slice(&(100 + i).to_le_bytes());
        bytes.extend_from_slice(&4096u32.to_le_bytes());
        bytes.extend_from_slice(&(-1i64).to_le_bytes());
    }
    bytes.truncate(24 * 2 + 10);
    let mut r = from_bytes("x.oracleGeneral.bin", &bytes, &ReaderConfig::default());
    let mut rec = TraceRecord::default();
    assert!(r.read_into(&mut rec).unwrap());
    assert!(r.read_into(&mut rec).unwrap());
    assert_eq!((rec.obj_id, rec.size, rec.time_ns), (101, 4096, 1_000_000_000));
    let e = r.read_into(&mut rec).unwrap_err().to_string();
    assert_eq!(e, "x.oracleGeneral.bin: record 3 (byte 48): truncated record: 10 of 24 bytes");
}

#[test]
fn oracle_writer_reproduces_bundled_file_byte_for_byte() {
    use iolab_trace::write::oracle::{OracleOptions, OracleWriter};
    use iolab_trace::write::TraceWriter;
    let dir = shared().join("traces");
    let mut r = open(&dir.join("cloudPhysicsIO.csv.zst"), None, &ReaderConfig::default()).unwrap();
    let mut out = Vec::new();
    let opts = OracleOptions { time_unit_ns: 1_000, first_size: true };
    let mut w = OracleWriter::new(&mut out, "mem", opts);
    let mut rec = TraceRecord::default();
    while r.read_into(&mut rec).unwrap() {
        w.write(&rec).unwrap();
    }
    w.finish().unwrap();
    let want = std::fs::read(dir.join("cloudPhysicsIO.oracleGeneral.bin")).unwrap();
    assert_eq!(out.len(), want.len());
    assert!(
        out == want,
        "first differing byte {:?}",
        out.iter().zip(&want).position(|(a, b)| a != b)
    );
}

/// Issue 17 part 4: `trace stat` says the bundled CloudPhysics trace's clock cannot be µs
/// (113,872 requests in 7.2 ms), gives the blender verdict and lists the longest streams.
#[test]
fn trace_stat_flags_the_cloudphysics_time_unit_and_gives_a_blender_verdict() {
    let mut r =
        open(&shared().join("traces/cloudPhysicsIO.csv"), None, &ReaderConfig::default()).unwrap();
    let mut b = iolab_trace::stat::StatBuilder::new(r.format(), 4096, 64);
    let mut rec = iolab_trace::TraceRecord::default();
    while r.read_into(&mut rec).unwrap() {
        b.add(&rec, &mut |_| None);
    }
    let s = b.finish(0);
    assert_eq!((s.requests, s.duration_ns), (113_872, 7_200_000));
    let t = s.time_unit_check().unwrap();
    assert!(t.contains("113872 requests in 7.2 ms is 15.8 M IOPS"), "{t}");
    assert!(t.contains("it would span 7.20 s"), "{t}");
    let v = s.blender_verdict().unwrap();
    eprintln!("{v}\n{}", s.stream_table());
    let st = &s.streams;
    assert!(st.arrival_sequential <= st.sequential_requests, "{v}");
    assert_eq!(st.top.len(), 10);
    assert_eq!(st.top[0].requests, st.longest_requests);
    assert!(st.top.windows(2).all(|w| w[0].requests >= w[1].requests));
    assert_eq!(s.stream_table().lines().count(), 12);
}
