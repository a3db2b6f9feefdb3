//! Shared driver: read every record of `data` as `format`, strict and lenient; any panic is a
//! bug, errors are fine.

use iolab_trace::{open_reader, ReaderConfig, TraceRecord};
use std::io::Cursor;

pub fn drive(format: &str, data: &[u8]) {
    for lenient in [false, true] {
        let cfg = ReaderConfig { lenient, ..ReaderConfig::default() };
        let Ok(mut r) =
            open_reader(Box::new(Cursor::new(data.to_vec())), "fuzz", Some(format), &cfg)
        else {
            continue;
        };
        let mut rec = TraceRecord::default();
        for _ in 0..100_000 {
            match r.read_into(&mut rec) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    let _ = e.to_string();
                    break;
                }
            }
        }
    }
}
