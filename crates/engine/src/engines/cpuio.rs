//! `ioengine=cpuio`: burns CPU instead of doing I/O, fio's engines/cpu.c. Each unit spins
//! for `cpuchunks` µs (`cpumode=noop`, fio's `usec_spin`) or runs fio's qsort stress
//! (`cpumode=qsort`: 256 Ki `int32` from fio's MWC generator sorted four ways, and the chunk
//! becomes that pass's duration, as fio's `do_qsort` re-tunes `cpucycle`), then idles
//! `cpuchunks × (100 − cpuload) / cpuload` µs, so the thread uses `cpuload` % of a CPU. The
//! unit completes with no bytes (fio's `FIO_NOIO`: `total_ios` counts the chunks,
//! `io_bytes` stays 0). fio idles through its thinktime, outside the unit's latency; here the
//! idle time ends the unit, so a unit's clat is chunk + idle (fio: chunk alone). `cpuload=0`
//! is refused as fio refuses it; above 100 it is 100.

use super::{Caps, Completion, EngineConfig, IoEngine, IoOp, Queued};
use crate::buf::BufPool;
use crate::error::EngineError;
use std::time::{Duration, Instant};

/// fio's `qsort_size`: 256 Ki 32-bit integers.
const QSORT_SIZE: usize = 256 * 1024;

pub struct Cpuio {
    pool: BufPool,
    load: u64,
    cycle_us: u64,
    qsort: Option<Vec<i32>>,
}

impl Cpuio {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        if cfg.cpuload == 0 {
            return Err(EngineError::Engine {
                engine: "cpuio",
                op: "cpuload",
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "cpu thread needs rate (cpuload=)",
                ),
            });
        }
        let pool = BufPool::try_new(1, cfg.slot_size, 4096, "cpuio")?;
        let qsort = cfg.cpu_qsort.then(qsort_data);
        let load = u64::from(cfg.cpuload.min(100));
        Ok(Box::new(Cpuio { pool, load, cycle_us: cfg.cpuchunks, qsort }))
    }

    fn idle(&self) -> Duration {
        Duration::from_micros(self.cycle_us.saturating_mul(100 - self.load) / self.load)
    }
}

/// fio's `qsort_init`: the data from its MWC generator with the default entropy.
fn qsort_data() -> Vec<i32> {
    let (mut w, mut z) = (521_288_629u32, 362_436_069u32);
    (0..QSORT_SIZE)
        .map(|_| {
            z = 36969u32.wrapping_mul(z & 65535).wrapping_add(z >> 16);
            w = 18000u32.wrapping_mul(w & 65535).wrapping_add(w >> 16);
            (z << 16).wrapping_add(w) as i32
        })
        .collect()
}

/// fio's `do_qsort`: ascending, descending, by byte, descending again.
fn stress_qsort(d: &mut [i32]) {
    d.sort_unstable();
    d.sort_unstable_by(|a, b| b.cmp(a));
    let mut bytes: Vec<i8> = d.iter().flat_map(|x| x.to_ne_bytes()).map(|b| b as i8).collect();
    bytes.sort_unstable();
    for (x, c) in d.iter_mut().zip(bytes.chunks_exact(4)) {
        *x = i32::from_ne_bytes([c[0] as u8, c[1] as u8, c[2] as u8, c[3] as u8]);
    }
    d.sort_unstable_by(|a, b| b.cmp(a));
}

impl IoEngine for Cpuio {
    fn name(&self) -> &'static str {
        "cpuio"
    }

    fn caps(&self) -> Caps {
        Caps { sync: true, no_io: true, trim: true, fsync: true, max_depth: 1 }
    }

    fn pool(&mut self) -> &mut BufPool {
        &mut self.pool
    }

    fn queue(&mut self, _op: IoOp) -> Result<Queued, EngineError> {
        let start = Instant::now();
        if let Some(d) = self.qsort.as_mut() {
            stress_qsort(d);
            self.cycle_us = start.elapsed().as_micros() as u64;
        } else {
            let chunk = Duration::from_micros(self.cycle_us);
            while start.elapsed() < chunk {
                std::hint::spin_loop();
            }
        }
        std::thread::sleep(self.idle());
        Ok(Queued::Completed(0))
    }

    fn commit(&mut self) -> Result<usize, EngineError> {
        Ok(0)
    }

    fn reap(&mut self, _min: u32, _out: &mut Vec<Completion>) -> Result<(), EngineError> {
        Ok(())
    }

    fn buf(&mut self, _slot: u32, len: usize) -> &mut [u8] {
        self.pool.slot_mut(0, len)
    }
}
