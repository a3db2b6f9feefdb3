//! Writes the benchmark's Zipf trace as libCacheSim oracleGeneral (24-byte records `u32 time,
//! u64 obj_id, u32 size = 1, i64 next = -1`), so `scripts/bench-libcachesim.sh` runs
//! libCacheSim and iolab on byte-identical input.
//!
//! `cargo run --release -p iolab-model --example zipf_trace -- OUT [REQUESTS] [OBJECTS] [ALPHA] [SEED]`

#[path = "../benches/support/zipf.rs"]
mod zipf;
use std::io::{BufWriter, Write};
use zipf::Zipf;

fn main() -> std::io::Result<()> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = a.first() else {
        eprintln!("usage: zipf_trace OUT [REQUESTS] [OBJECTS] [ALPHA] [SEED]");
        std::process::exit(2);
    };
    let num = |i: usize, d: f64| a.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(d);
    let (n, objects, alpha, seed) =
        (num(1, 20e6) as u64, num(2, 1e6) as usize, num(3, 1.0), num(4, 42.0) as u64);
    let mut z = Zipf::new(objects, alpha, seed);
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(out)?);
    for i in 0..n {
        let mut rec = [0u8; 24];
        rec[0..4].copy_from_slice(&((i / 1000) as u32).to_le_bytes());
        rec[4..12].copy_from_slice(&z.next_key().to_le_bytes());
        rec[12..16].copy_from_slice(&1u32.to_le_bytes());
        rec[16..24].copy_from_slice(&(-1i64).to_le_bytes());
        w.write_all(&rec)?;
    }
    w.flush()
}
