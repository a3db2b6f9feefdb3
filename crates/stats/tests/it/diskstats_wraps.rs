//! Run and phase summaries of the device view add the per-interval wrap-safe deltas
//! (diskseries.rs `summed`): a synthetic `/proc/diskstats` series whose 32-bit counters
//! (reads, sectors, `io_ticks`, `time_in_queue` as `unsigned int` on older and 32-bit
//! kernels) wrap several times inside each summary window still gives the right totals.
#![allow(clippy::unwrap_used)]

use iolab_core::Nanos;
use iolab_stats::diskseries::DiskSeriesSampler;

const WRAP: u64 = 1 << 32;

/// The counters after `k` seconds: each second 3·10⁹ reads, 4·10⁹ sectors, 999 ms busy,
/// 3·10⁹ ms of queue time (each under 2³² per interval, as a sampler needs), all reduced
/// modulo 2³² as a 32-bit counter shows them.
fn line(k: u64) -> String {
    let reads = (k * 3_000_000_000) % WRAP;
    let sectors = (k * 4_000_000_000) % WRAP;
    let ticks = (k * 999) % WRAP;
    let in_queue = (k * 3_000_000_000) % WRAP;
    format!("7 0 loop0 {reads} 0 {sectors} 0 0 0 0 0 1 {ticks} {in_queue}\n8 0 sda 1 0 8 1 0 0 0 0 0 1 1")
}

#[test]
fn several_wraps_per_window_give_the_right_totals() {
    let dir = std::env::temp_dir().join(format!("iolab-wraps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("diskstats");
    let mut s = DiskSeriesSampler::with_path(&f, vec!["loop0".into()]);
    for k in 0..=10u64 {
        std::fs::write(&f, line(k)).unwrap();
        s.tick(Nanos::from_secs(k)).unwrap();
    }
    let ser = s.series();
    let d = ser.device("loop0").unwrap();
    assert_eq!(d.points.len(), 10);
    // Ten seconds: 3·10¹⁰ reads (about 7 wraps), 4·10¹⁰ sectors (about 9 wraps).
    assert_eq!(d.summary.read_ios, 30_000_000_000);
    assert_eq!(d.summary.read_sectors, 40_000_000_000);
    assert_eq!(d.summary.in_queue, 30_000_000_000);
    assert_eq!(d.summary.io_ticks, 9_990);
    assert!((d.summary.iostat.r_s - 3e9).abs() < 1e-3, "{}", d.summary.iostat.r_s);
    assert!((d.summary.iostat.aqu_sz - 3e6).abs() < 1e-6, "{}", d.summary.iostat.aqu_sz);
    // A window of seconds 2..6 and a phase of the same span: four seconds' worth each.
    let w = s.window(Nanos::from_secs(2), Nanos::from_secs(6));
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].read_ios, 12_000_000_000);
    assert_eq!(w[0].in_queue, 12_000_000_000);
    let p = s.phase_window(Nanos::from_secs(2), Nanos::from_secs(6));
    assert_eq!(p[0].read_sectors, 16_000_000_000);
    assert_eq!(p[0].window_ns, 4_000_000_000);
    std::fs::remove_dir_all(&dir).unwrap();
}
