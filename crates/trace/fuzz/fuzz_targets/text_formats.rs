//! Fuzz every text reader and format detection with arbitrary bytes: the first byte picks the
//! format, the rest is the trace.
#![no_main]
use libfuzzer_sys::fuzz_target;
mod common;

const TEXT: [&str; 8] =
    ["cloudphysics", "fio-iolog", "msr", "alibaba", "tencent", "blkparse", "txt", "csv"];

fuzz_target!(|data: &[u8]| {
    if let Some((&sel, rest)) = data.split_first() {
        common::drive(TEXT[sel as usize % TEXT.len()], rest);
        // Detection path (decompression sniffing included).
        let _ = iolab_trace::open_reader(
            Box::new(std::io::Cursor::new(rest.to_vec())),
            "fuzz.bin",
            None,
            &iolab_trace::ReaderConfig::default(),
        );
    }
});
