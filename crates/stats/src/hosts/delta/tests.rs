#![allow(clippy::unwrap_used)]
use super::*;
use crate::hist::DEFAULT_PERCENTILES as P;

/// A one-job snapshot: `ios` reads of 4 KiB with latencies from `buckets`.
fn snap(name: &str, buckets: &[(u64, u64)]) -> RunResult {
    let n: u64 = buckets.iter().map(|b| b.1).sum();
    let sum: u128 = buckets.iter().map(|&(v, c)| u128::from(v) * u128::from(c)).sum();
    let sq: u128 =
        buckets.iter().map(|&(v, c)| u128::from(v) * u128::from(v) * u128::from(c)).sum();
    let (min, max) = (buckets.first().map_or(0, |b| b.0), buckets.last().map_or(0, |b| b.0));
    let clat = LatStats::from_parts(n, min, max, sum, sq, buckets.to_vec(), &P);
    let read = DirStats {
        total_ios: n,
        io_bytes: n * 4096,
        runtime_ns: n * 10,
        clat,
        ..Default::default()
    };
    let job = JobResult { name: name.into(), read, ..Default::default() };
    RunResult { jobs: vec![job], ..Default::default() }
}

#[test]
fn a_runs_deltas_add_up_to_its_final_result_bucket_by_bucket() {
    let snaps = [
        snap("a", &[(10, 3)]),
        snap("a", &[(10, 5), (20, 1)]),
        snap("a", &[(10, 5), (20, 4), (90, 1)]),
    ];
    let mut t = DeltaTracker::default();
    let mut totals = HostTotals::default();
    let mut ios = Vec::new();
    for (i, s) in snaps.iter().enumerate() {
        let d = t.next(s, i as u64 * 1000, i == 2);
        assert_eq!(d.seq, i as u32 + 1);
        ios.push(d.ios()[0]);
        totals.apply(&d, &P).unwrap();
    }
    assert_eq!(ios, [3, 3, 4]);
    let last = &snaps[2].jobs[0].read;
    let got = &totals.jobs[0].read;
    assert_eq!((got.total_ios, got.io_bytes), (10, 40960));
    assert_eq!(got.clat.buckets, last.clat.buckets);
    assert_eq!((got.clat.sum, got.clat.min, got.clat.max), (last.clat.sum, 10, 90));
    assert_eq!(got.clat.percentile(99.0).value, 90);
    totals.check_final(&snaps[2]).unwrap();
    let e = totals.check_final(&snap("a", &[(10, 11)])).unwrap_err().to_string();
    assert_eq!(e, "the final result's completed I/Os (11) is not the sum of the intervals (10)");
}

#[test]
fn the_second_interval_holds_only_what_happened_in_it() {
    let mut t = DeltaTracker::default();
    t.next(&snap("a", &[(10, 3)]), 1, false);
    let d = t.next(&snap("a", &[(10, 5), (20, 1)]), 2, false);
    assert_eq!(d.jobs[0].dirs[0].clat.buckets, [(10, 2), (20, 1)]);
    assert_eq!((d.jobs[0].dirs[0].ios, d.jobs[0].dirs[0].total_ios), (3, 6));
    assert_eq!(d.clat_buckets(), [(10, 2), (20, 1)]);
}

#[test]
fn a_stats_reset_starts_the_totals_over() {
    let mut t = DeltaTracker::default();
    let mut totals = HostTotals::default();
    totals.apply(&t.next(&snap("a", &[(10, 8)]), 1, false), &P).unwrap();
    let d = t.next(&snap("a", &[(50, 2)]), 2, false);
    assert!(d.reset);
    totals.apply(&d, &P).unwrap();
    assert_eq!(totals.jobs[0].read.total_ios, 2);
    assert_eq!(totals.jobs[0].read.clat.buckets, [(50, 2)]);
}

#[test]
fn intervals_that_do_not_add_up_are_refused_and_change_nothing() {
    let mut t = DeltaTracker::default();
    let mut totals = HostTotals::default();
    totals.apply(&t.next(&snap("a", &[(10, 4)]), 1, false), &P).unwrap();
    let good = t.next(&snap("a", &[(10, 6)]), 2, false);
    let refused = |d: &HostInterval, totals: &mut HostTotals| {
        let before = totals.jobs.clone();
        let e = totals.apply(d, &P).unwrap_err().to_string();
        assert_eq!(totals.jobs, before);
        e
    };
    // Counts going backwards: the running total below the one already held.
    let mut back = good.clone();
    back.jobs[0].dirs[0].total_ios = 3;
    let e = refused(&back, &mut totals);
    assert!(e.starts_with("interval 2: job 0 read: completed I/Os do not add up"), "{e}");
    let mut order = good.clone();
    order.seq = 1;
    assert_eq!(refused(&order, &mut totals), "interval 1 arrived after interval 1 (expected 2)");
    let mut buckets = good.clone();
    buckets.jobs[0].dirs[0].clat.buckets = vec![(20, 1), (10, 1)];
    assert!(refused(&buckets, &mut totals).ends_with("clat: buckets out of order"));
    let mut count = good.clone();
    count.jobs[0].dirs[0].clat.buckets = vec![(10, 7)];
    assert!(refused(&count, &mut totals).contains("buckets hold 7 samples, the interval says 2"));
    let mut renamed = good.clone();
    renamed.jobs[0].name = "b".into();
    assert!(refused(&renamed, &mut totals).contains("job 0 is 'b', was 'a'"));
    let mut huge = good.clone();
    huge.jobs[0].dirs[0].ios = u64::MAX;
    assert!(refused(&huge, &mut totals).contains("overflow"));
    let mut fewer = good.clone();
    fewer.jobs.clear();
    assert!(refused(&fewer, &mut totals).contains("never fewer"));
    totals.apply(&good, &P).unwrap();
    assert_eq!(totals.jobs[0].read.total_ios, 6);
}
