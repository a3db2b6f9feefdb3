//! Steady state, reported either way. Two criteria:
//! * fio's `steadystate`/`ss` result when the job set one (steadystate.c: deviation or
//!   least-squares slope over `ss_dur`, job ended when attained; fio-behaviour.md §3.6);
//! * the SNIA Solid State Storage PTS 2.0.2 criterion over the last [`PTS_ROUNDS`] interval
//!   IOPS samples: range (max − min) ≤ 20 % of the mean and the best-fit line's excursion
//!   across the window ≤ 10 % of the mean (`iolab_stats::snia_pts`).
//!
//! Pitfall #6 of `peers-and-pitfalls.md` §7 (fresh-out-of-box numbers that decline once the
//! SSD's spare area or a cache is used up). A job with fewer than `PTS_ROUNDS` intervals and
//! no `ss` option gets nothing: there is no window to judge.

use iolab_stats::steady::{max_deviation, mean, slope};
use iolab_stats::{snia_pts, IntervalPoint, JobResult, RunResult};

use super::{job_subject, Check};
use crate::{Advice, Evidence, Severity};

pub const ID: &str = "steady_state";
/// SNIA PTS measurement window: five rounds.
pub const PTS_ROUNDS: usize = 5;

pub const CHECK: Check = Check { id: ID, summary: "steady state (fio ss, SNIA PTS)", run };

/// IOPS of all directions per interval, full intervals only: the closing partial one (a job
/// ends a few microseconds after a tick, 31 I/Os in 21 µs reads as 1.5 M IOPS) is left out,
/// as from fio's bw/iops samples.
pub fn iops_series(j: &JobResult) -> Vec<f64> {
    let dirs: [&[IntervalPoint]; 3] = [&j.read.series, &j.write.series, &j.trim.series];
    let n = dirs.iter().map(|s| s.len()).max().unwrap_or(0);
    (0..n)
        .filter(|&i| {
            let dur = dirs.iter().find_map(|s| s.get(i)).map_or(0, |p| p.dur_ns);
            dur * 2 >= j.interval_ns
        })
        .map(|i| dirs.iter().filter_map(|s| s.get(i)).map(|p| p.iops()).sum())
        .collect()
}

fn run(r: &RunResult, _ev: &Evidence) -> Vec<Advice> {
    let mut out = Vec::new();
    for j in &r.jobs {
        let mut facts = Vec::new();
        let mut steady = true;
        if let Some(ss) = &j.steadystate {
            steady &= ss.attained;
            facts.push(format!(
                "fio criterion ss={} {} over a {:.0} s window (criterion {:.3}, max deviation \
                 {:.1}, slope {:.3})",
                ss.ss,
                if ss.attained { "attained" } else { "not attained" },
                ss.duration_ns as f64 / 1e9,
                ss.criterion,
                ss.max_deviation,
                ss.slope
            ));
        }
        let s = iops_series(j);
        if s.len() >= PTS_ROUNDS {
            let w = &s[s.len() - PTS_ROUNDS..];
            let m = mean(w);
            let (lo, hi) = w
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
            let ok = snia_pts(w);
            steady &= ok;
            let pct = |x: f64| if m > 0.0 { 100.0 * x / m } else { f64::INFINITY };
            facts.push(format!(
                "SNIA PTS over the last {PTS_ROUNDS} intervals of {:.1} s: mean {m:.0} IOPS, \
                 range {:.1}% (limit 20%), slope excursion {:.1}% (limit 10%), max deviation \
                 {:.1}%: {}",
                j.interval_ns as f64 / 1e9,
                pct(hi - lo),
                pct(slope(w).abs() * (PTS_ROUNDS - 1) as f64),
                pct(max_deviation(w)),
                if ok { "steady" } else { "not steady" }
            ));
        }
        if facts.is_empty() {
            continue;
        }
        out.push(Advice {
            id: ID,
            severity: if steady { Severity::Info } else { Severity::Warning },
            subject: job_subject(j),
            title: if steady { "steady state reached" } else { "not in steady state" }.into(),
            evidence: facts.join("; "),
            why: "Until caches, SLC buffers and garbage collection settle, each interval \
                  measures a different device state; a summary over a drifting run is an \
                  average of transients that no later run reproduces."
                .into(),
            what_to_do: if steady {
                "Nothing; quote the steady-state window with the results.".into()
            } else {
                "Precondition (write the device twice over with the workload's block size), \
                 run longer with time_based, and let ss=iops_slope:0.3% with ss_dur end the \
                 job when it settles."
                    .into()
            },
        });
    }
    out
}

/// The quick profile's phases are a few seconds each by design, too short to judge: instead of
/// a "not in steady state" per phase, one line saying so and how to get a steady-state figure.
/// Returns the advice without this check's entries, and that line when a phase was not steady.
pub fn fold_short_phases(advice: Vec<Advice>, phase_secs: f64) -> (Vec<Advice>, Option<String>) {
    let (mine, rest): (Vec<Advice>, Vec<Advice>) = advice.into_iter().partition(|a| a.id == ID);
    let unsteady = mine.iter().filter(|a| a.severity == Severity::Warning).count();
    let line = (unsteady > 0).then(|| {
        format!(
            "{unsteady} of {} phases not yet steady after {phase_secs:.1} s, as expected of the \
             quick profile's short phases; for a steady-state figure use --phase-time=60, or a \
             job with steadystate= (e.g. --time_based --runtime=600 --ss=iops_slope:0.3% \
             --ss_dur=60)",
            mine.len()
        )
    });
    (rest, line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testutil::job;
    use iolab_stats::SteadyStateReport;

    fn with_series(iops: &[u64]) -> JobResult {
        let mut j = job("ss", 0, 0);
        j.interval_ns = 1_000_000_000;
        j.read.series = iops
            .iter()
            .enumerate()
            .map(|(i, &n)| IntervalPoint {
                end_ns: (i as u64 + 1) * 1_000_000_000,
                dur_ns: 1_000_000_000,
                ios: n,
                ..Default::default()
            })
            .collect();
        j
    }

    fn one(j: JobResult) -> Vec<Advice> {
        run(&RunResult { jobs: vec![j], ..Default::default() }, &Evidence::default())
    }

    #[test]
    fn decaying_series_is_not_steady() {
        // FOB decline: the last five are 80k, 70k, 60k, 55k, 50k: range 30k of mean 63k.
        let a = one(with_series(&[90_000, 85_000, 80_000, 70_000, 60_000, 55_000, 50_000]));
        assert_eq!(a.len(), 1);
        assert_eq!(
            (a[0].severity, a[0].title.as_str()),
            (Severity::Warning, "not in steady state")
        );
        assert!(a[0].evidence.contains("range 47.6% (limit 20%)"), "{}", a[0].evidence);
    }

    #[test]
    fn flat_series_is_steady_and_still_reported() {
        let a = one(with_series(&[90_000, 50_000, 50_500, 49_800, 50_200, 50_100, 49_900]));
        assert_eq!((a[0].severity, a[0].title.as_str()), (Severity::Info, "steady state reached"));
        assert!(a[0].evidence.contains("range 1.4%"), "{}", a[0].evidence);
    }

    #[test]
    fn closing_partial_interval_is_not_a_sample() {
        // Five flat seconds, then the job ends 21 µs after a tick with 31 I/Os (1.5 M IOPS).
        let mut j = with_series(&[50_000, 50_100, 49_900, 50_000, 50_050]);
        j.read.series.push(IntervalPoint {
            end_ns: 5_000_021_000,
            dur_ns: 21_000,
            ios: 31,
            ..Default::default()
        });
        assert_eq!(iops_series(&j).len(), 5);
        let a = one(j);
        assert_eq!((a[0].severity, a[0].title.as_str()), (Severity::Info, "steady state reached"));
    }

    #[test]
    fn fio_ss_result_is_reported_and_short_jobs_are_skipped() {
        let mut j = with_series(&[100, 100]);
        j.steadystate = Some(SteadyStateReport {
            ss: "iops:20%".into(),
            duration_ns: 3_000_000_000,
            attained: false,
            criterion: 31.0,
            ..Default::default()
        });
        let a = one(j);
        assert_eq!(a[0].severity, Severity::Warning);
        assert!(a[0].evidence.starts_with("fio criterion ss=iops:20% not attained over a 3 s"));
        assert!(one(with_series(&[1, 2, 3, 4])).is_empty());
    }

    #[test]
    fn the_quick_profile_gets_one_line_for_its_short_phases() {
        let decaying = [90_000, 85_000, 80_000, 70_000, 60_000, 55_000, 50_000];
        let mut all: Vec<Advice> = (0..6).flat_map(|_| one(with_series(&decaying))).collect();
        all.extend(one(with_series(&[1000, 1000, 1000, 1000, 1000])));
        let other = Advice { id: "zero_reads", ..all[0].clone() };
        all.push(other);
        let (kept, line) = fold_short_phases(all, 3.0);
        assert_eq!(kept.iter().map(|a| a.id).collect::<Vec<_>>(), ["zero_reads"]);
        let line = line.unwrap();
        assert!(line.starts_with("6 of 7 phases not yet steady after 3.0 s"), "{line}");
        assert!(line.contains("--phase-time=60") && line.contains("steadystate="), "{line}");
        // All steady: nothing to say.
        let (kept, line) = fold_short_phases(one(with_series(&[1000; 5])), 3.0);
        assert!(kept.is_empty() && line.is_none());
    }
}
