//! CPU usage of the process from `getrusage(2)` (`RUSAGE_SELF`, or `RUSAGE_THREAD` per
//! worker), reported as fio does (stat.c `show_thread_status_normal`: `cpu : usr=…%,
//! sys=…%, ctx=…, majf=…, minf=…`; `usr_cpu`/`sys_cpu` are percentages of the job's runtime).

use serde::{Deserialize, Serialize};

/// Resource usage counters (absolute, or the difference of two samples).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuUsage {
    /// User CPU time, ns.
    pub usr_ns: u64,
    /// System CPU time, ns.
    pub sys_ns: u64,
    /// Voluntary + involuntary context switches.
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
}

/// Which usage `getrusage` reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// The whole process.
    Process,
    /// The calling thread only (Linux `RUSAGE_THREAD`), for per-worker figures.
    Thread,
}

impl CpuUsage {
    /// Sample the current counters. Returns zeros if the call fails (it cannot for these
    /// arguments on Linux; the caller subtracts two samples, so zeros give a zero delta).
    pub fn sample(who: Who) -> CpuUsage {
        let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        let w = match who {
            Who::Process => libc::RUSAGE_SELF,
            Who::Thread => libc::RUSAGE_THREAD,
        };
        // SAFETY: `ru` points to writable memory the size of `rusage`; getrusage only writes
        // into it and reports failure by its return value.
        let rc = unsafe { libc::getrusage(w, ru.as_mut_ptr()) };
        if rc != 0 {
            return CpuUsage::default();
        }
        // SAFETY: getrusage returned 0, so it filled the struct (zeroed memory is also a valid
        // `rusage`, all of whose fields are integers).
        let ru = unsafe { ru.assume_init() };
        let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
        CpuUsage {
            usr_ns: tv(ru.ru_utime),
            sys_ns: tv(ru.ru_stime),
            ctx: (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
            majf: ru.ru_majflt as u64,
            minf: ru.ru_minflt as u64,
        }
    }

    /// `self − earlier`, saturating at zero.
    pub fn since(&self, earlier: &CpuUsage) -> CpuUsage {
        CpuUsage {
            usr_ns: self.usr_ns.saturating_sub(earlier.usr_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
            ctx: self.ctx.saturating_sub(earlier.ctx),
            majf: self.majf.saturating_sub(earlier.majf),
            minf: self.minf.saturating_sub(earlier.minf),
        }
    }

    pub fn add(&mut self, o: &CpuUsage) {
        self.usr_ns += o.usr_ns;
        self.sys_ns += o.sys_ns;
        self.ctx += o.ctx;
        self.majf += o.majf;
        self.minf += o.minf;
    }

    /// fio `usr_cpu`: percent of `runtime_ns`.
    pub fn usr_pct(&self, runtime_ns: u64) -> f64 {
        pct(self.usr_ns, runtime_ns)
    }

    /// fio `sys_cpu`: percent of `runtime_ns`.
    pub fn sys_pct(&self, runtime_ns: u64) -> f64 {
        pct(self.sys_ns, runtime_ns)
    }
}

fn pct(x: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        x as f64 * 100.0 / of as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_grows_with_work() {
        let a = CpuUsage::sample(Who::Thread);
        let t = std::time::Instant::now();
        let mut x = 0u64;
        let mut d = CpuUsage::default();
        // Spin until this thread has used 5 ms of CPU (bounded by 5 s of wall time on a busy
        // machine): thread CPU time must advance with work.
        while t.elapsed() < std::time::Duration::from_secs(5) {
            for _ in 0..10_000 {
                x = x.wrapping_mul(31).wrapping_add(std::hint::black_box(7));
            }
            d = CpuUsage::sample(Who::Thread).since(&a);
            if d.usr_ns + d.sys_ns >= 5_000_000 {
                break;
            }
        }
        std::hint::black_box(x);
        assert!(d.usr_ns + d.sys_ns >= 5_000_000, "{d:?}");
        assert!(d.usr_pct(d.usr_ns * 2) > 49.0 || d.usr_ns == 0);
        let p = CpuUsage::sample(Who::Process);
        assert!(p.usr_ns + p.sys_ns >= d.usr_ns + d.sys_ns);
    }
}
