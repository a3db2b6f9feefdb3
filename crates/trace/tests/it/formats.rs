//! iolab-trace's readers, one per format (fio iolog v2/v3, blkparse, MSR/Alibaba/Tencent, vscsi,
//! libCacheSim csv/txt), compressed input, and no panic on arbitrary bytes.

use crate::common::*;
use iolab_core::IoDir;
use iolab_trace::{open_reader, ReaderConfig, TraceReader, TraceRecord};
use std::io::Cursor;

#[test]
fn fio_iolog_v2_and_v3() {
    let v2 = b"fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb read 4096 512\n\
/dev/sdb wait 1500 0\n/dev/sdb write 0 8192\n/dev/sdb trim 65536 4096\n/dev/sdb sync 0 0\n/dev/sdb close\n";
    let (v, fmt, files) = recs_of("a.log", v2);
    assert_eq!(fmt, "fio-iolog");
    assert_eq!(files, ["/dev/sdb"]);
    assert_eq!(
        triples(&v),
        [
            (IoDir::Read, 0, 4096, 512, 0),
            (IoDir::Write, 0, 0, 8192, 1_500_000),
            (IoDir::Trim, 0, 65536, 4096, 1_500_000),
            (IoDir::Sync, 0, 0, 0, 1_500_000)
        ]
    );
    let v3 = b"fio version 3 iolog\n0 a add\n0 b add\n1 a open\n2 b open\n10 a read 0 4096\n250 b write 8192 4096\n300 a close\n";
    let (v, _, files) = recs_of("x", v3);
    assert_eq!(files, ["a", "b"]);
    assert_eq!(
        triples(&v),
        [(IoDir::Read, 0, 0, 4096, 10_000), (IoDir::Write, 1, 8192, 4096, 250_000)]
    );
    assert_eq!(v[1].req.issue_at.unwrap().0, 240_000);

    let mut r =
        from_bytes("x", b"fio version 3 iolog\n0 a add\n5 c read 0 1\n", &ReaderConfig::default());
    let e = r.read_into(&mut TraceRecord::default()).unwrap_err().to_string();
    assert_eq!(e, "x: record 3 (byte 28): unknown file `c` (no `add` action before its first I/O)");
    let mut r = open_reader(
        Box::new(Cursor::new(b"fio version 1 iolog\n".to_vec())),
        "y",
        Some("iolog"),
        &ReaderConfig::default(),
    )
    .unwrap();
    assert!(r
        .read_into(&mut TraceRecord::default())
        .unwrap_err()
        .to_string()
        .contains("not a fio iolog"));
}

#[test]
fn blkparse_default_output() {
    let text = b"  8,0    3        1     0.000000000   697  Q  WS 2048 + 8 [jbd2/sda1-8]\n\
  8,0    3        2     0.000001000   697  G  WS 2048 + 8 [jbd2/sda1-8]\n\
  8,0    3        3     0.000100000   697  D  WS 2048 + 8 [jbd2/sda1-8]\n\
  8,16   1        1     0.500000001  1234  Q   R 100 + 16 [fio]\n\
  8,16   1        2     0.600000000  1234  Q  FWS [fio]\n\
  8,16   1        3     0.700000000  1234  Q   D 4096 + 2048 [fstrim]\n\
  8,16   1        4     0.800000000  1234  Q   N 0 + 0 [x]\n\
  8,0    3        4     0.900000000     0  C  WS 2048 + 8 [0]\n\
CPU0 (8,0):\n Reads Queued:           0,        0KiB\n";
    let (v, fmt, files) = recs_of("t.blkparse", text);
    assert_eq!(fmt, "blkparse");
    assert_eq!(files, ["8,0", "8,16"]);
    assert_eq!(
        triples(&v),
        [
            (IoDir::Write, 0, 2048 * 512, 4096, 0),
            (IoDir::Read, 1, 51200, 8192, 500_000_001),
            (IoDir::Sync, 1, 0, 0, 600_000_000),
            (IoDir::Trim, 1, 4096 * 512, 1 << 20, 700_000_000)
        ]
    );
    let cfg = ReaderConfig { blkparse_action: b'D', ..ReaderConfig::default() };
    let v = read_all(&mut *from_bytes("t.blkparse", text, &cfg));
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].time_ns, 100_000);
}

#[test]
fn msr_alibaba_tencent() {
    let msr = b"128166372003061629,hm,1,Read,3154152448,4096,1344\n128166372003071629,hm,0,Write,0,512,10\n128166372003081629,hm,1,Write,3154156544,8192,10\n";
    let (v, fmt, files) = recs_of("hm_1.csv", msr);
    assert_eq!(fmt, "msr");
    assert_eq!(files, ["hm,1", "hm,0"]);
    assert_eq!(triples(&v)[1], (IoDir::Write, 1, 0, 512, 12_816_637_200_307_162_900));
    assert_eq!(v[2].req.issue_at.unwrap().0, 2_000_000);
    assert_eq!(v[0].obj_id, 3154152448 / 512);

    let ali = b"device_id,opcode,offset,length,timestamp\n0,R,126703644672,4096,1577808144206959\n3,W,8192,16384,1577808144206999\n";
    let (v, fmt, files) = recs_of("io_traces.csv", ali);
    assert_eq!(fmt, "alibaba");
    assert_eq!(files, ["0", "3"]);
    assert_eq!(triples(&v)[1], (IoDir::Write, 1, 8192, 16384, 1_577_808_144_206_999_000));
    assert_eq!(v[1].obj_id, (1u64 << 48) ^ 16);

    let cbs = b"1538323200,2240,8,1,1314\n1538323201,20480,16,0,1314\n1538323201,0,1,0,7\n";
    let (v, fmt, _) = recs_of("1314.csv", cbs);
    assert_eq!(fmt, "tencent");
    assert_eq!(
        triples(&v),
        [
            (IoDir::Write, 0, 2240 * 512, 4096, 1_538_323_200_000_000_000),
            (IoDir::Read, 0, 20480 * 512, 8192, 1_538_323_201_000_000_000),
            (IoDir::Read, 1, 0, 512, 1_538_323_201_000_000_000)
        ]
    );
}

fn vscsi_v1(sn: u32, len: u32, cmd: u16, lbn: u64, ts: u64) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&sn.to_le_bytes());
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&cmd.to_le_bytes());
    b.extend_from_slice(&(1u16 << 8).to_le_bytes());
    b.extend_from_slice(&lbn.to_le_bytes());
    b.extend_from_slice(&ts.to_le_bytes());
    b
}

fn vscsi_v2(sn: u32, len: u32, cmd: u16, lbn: u64, ts: u64) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&cmd.to_le_bytes());
    b.extend_from_slice(&(2u16 << 8).to_le_bytes());
    b.extend_from_slice(&sn.to_le_bytes());
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&lbn.to_le_bytes());
    b.extend_from_slice(&ts.to_le_bytes());
    b.extend_from_slice(&77u64.to_le_bytes());
    b
}

#[test]
fn vscsi_v1_and_v2() {
    for (mk, size) in [(vscsi_v1 as fn(u32, u32, u16, u64, u64) -> Vec<u8>, 32), (vscsi_v2, 40)] {
        let mut bytes = mk(1, 4096, 0x28, 100, 5_000_000);
        bytes.extend(mk(2, 512, 0x2a, 7, 5_000_250));
        bytes.extend(mk(3, 8192, 0x28, 9, 5_000_300));
        let (v, fmt, _) = recs_of("t.vscsi", &bytes);
        assert_eq!(fmt, "vscsi");
        assert_eq!(
            triples(&v),
            [
                (IoDir::Read, 0, 51200, 4096, 5_000_000_000),
                (IoDir::Write, 0, 3584, 512, 5_000_250_000),
                (IoDir::Read, 0, 4608, 8192, 5_000_300_000)
            ]
        );
        bytes.truncate(size * 2 + 5);
        let mut r = from_bytes("t.vscsi", &bytes, &ReaderConfig::default());
        let mut rec = TraceRecord::default();
        assert!(r.read_into(&mut rec).unwrap() && r.read_into(&mut rec).unwrap());
        let e = r.read_into(&mut rec).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("t.vscsi: record 3 (byte {}): truncated record: 5 of {size} bytes", size * 2)
        );
    }
}

#[test]
fn libcachesim_csv_and_txt() {
    let csv = b"time,id,size\n1,42,4096\n2,43,512\n5,42,4096\n";
    let (v, fmt, _) = recs_of("k.csv", csv);
    assert_eq!(fmt, "csv");
    assert_eq!(
        v.iter().map(|r| (r.obj_id, r.size, r.time_ns)).collect::<Vec<_>>(),
        [(42, 4096, 1_000_000_000), (43, 512, 2_000_000_000), (42, 4096, 5_000_000_000)]
    );
    let (v, fmt, _) = recs_of("k.txt", b"5\n6\n5\n");
    assert_eq!(fmt, "txt");
    assert_eq!(v.iter().map(|r| (r.obj_id, r.size)).collect::<Vec<_>>(), [(5, 1), (6, 1), (5, 1)]);
    let mut cfg = ReaderConfig::default();
    cfg.csv.obj_id_is_num = false;
    cfg.csv.op_col = 4;
    cfg.csv.has_header = Some(false);
    let mut r = open_reader(
        Box::new(Cursor::new(b"1,abc,10,get\n2,abd,10,set\n3,abc,10,get\n".to_vec())),
        "s",
        Some("csv"),
        &cfg,
    )
    .unwrap();
    let v = read_all(&mut *r);
    assert_eq!(v[0].obj_id, v[2].obj_id);
    assert_ne!(v[0].obj_id, v[1].obj_id);
    assert_eq!(v[1].req.dir, IoDir::Write);
}

#[test]
fn unknown_format_and_gzip() {
    let e = open_reader(
        Box::new(Cursor::new(b"hello world\n".to_vec())),
        "m",
        None,
        &ReaderConfig::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.starts_with("m: cannot tell the trace format"), "{e}");
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"version,time,op,size,lbn\n1,10,28,4096,8\n").unwrap();
    let (v, fmt, _) = recs_of("t.csv.gz", &gz.finish().unwrap());
    assert_eq!((v.len(), fmt, v[0].obj_id), (1, "cloudphysics", 8));
}

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    fn drive(format: &str, data: &[u8], lenient: bool) {
        let cfg = ReaderConfig { lenient, ..ReaderConfig::default() };
        let Ok(mut r) = open_reader(Box::new(Cursor::new(data.to_vec())), "p", Some(format), &cfg)
        else {
            return;
        };
        let mut rec = TraceRecord::default();
        for _ in 0..10_000 {
            match r.read_into(&mut rec) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    // One line, naming the source.
                    let s = e.to_string();
                    assert!(s.starts_with("p: ") && !s.contains('\n'), "{s}");
                    break;
                }
            }
        }
    }

    const ALL: [&str; 10] = [
        "cloudphysics",
        "fio-iolog",
        "msr",
        "alibaba",
        "tencent",
        "blkparse",
        "vscsi",
        "oracleGeneral",
        "txt",
        "csv",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..600), lenient: bool) {
            for f in ALL {
                drive(f, &data, lenient);
            }
            let _ = open_reader(Box::new(Cursor::new(data.clone())), "p.csv", None, &ReaderConfig::default());
        }

        #[test]
        fn mutated_text_never_panics(lines in proptest::collection::vec("[0-9a-zA-Z,+. /\\[\\]-]{0,60}", 0..20), f in 0usize..10) {
            let text = lines.join("\n");
            drive(ALL[f], text.as_bytes(), false);
            drive(ALL[f], text.as_bytes(), true);
        }
    }
}
