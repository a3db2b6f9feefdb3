//! `iolab fill`: how many reads, and how long at a given IOPS, it takes to fill a cache of N
//! entries; the spread (coupon-collector percentiles) and where an observation falls. Maths in
//! iolab-model's `fill` module (notes/caches-and-models.md §5).

use anyhow::{bail, Context};
use iolab_core::units::quote;
use iolab_model::fill::{Fill, Oversubscribed, Pattern};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Cache entries (a count: 1M = 1,000,000; k, M, G are powers of 1000).
    #[arg(long)]
    entries: String,
    /// Reads per second, to turn reads into wall-clock time.
    #[arg(long)]
    iops: Option<f64>,
    /// An observed number of passes (reads / entries) until the cache was full.
    #[arg(long)]
    observed_passes: Option<f64>,
    /// uniform (independent draws, fio norandommap), randommap (fio default: each block once
    /// per pass) or zipf:S.
    #[arg(long, default_value = "uniform")]
    pattern: String,
    /// Also simulate this many seeded fills and report their spread.
    #[arg(long, default_value_t = 0)]
    monte_carlo: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A working set larger than the cache (same count syntax): LRU steady-state hit ratio and
    /// the time to reach it.
    #[arg(long)]
    working_set: Option<String>,
    #[arg(long)]
    json: bool,
    /// Write the fill curves as an offline HTML page (`iolab report`'s) to stdout.
    #[arg(long, conflicts_with = "json")]
    html: bool,
}

/// A count with decimal suffixes (k, M, G, T).
pub fn parse_count(s: &str) -> anyhow::Result<u64> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m = match c.to_ascii_lowercase() {
                'k' => 1e3,
                'm' => 1e6,
                'g' => 1e9,
                't' => 1e12,
                _ => bail!("count `{}`: unknown suffix `{c}` (expected k, M, G or T)", quote(s)),
            };
            (&t[..i], m)
        }
        _ => (t, 1.0),
    };
    let v: f64 = num.parse().with_context(|| format!("count `{}`: expected a number", quote(s)))?;
    let v = v * mult;
    if !(1.0..1e15).contains(&v) {
        bail!("count `{}`: must be between 1 and 10^15", quote(s));
    }
    Ok(v.round() as u64)
}

fn duration(secs: f64) -> String {
    if secs < 120.0 {
        format!("{secs:.1} s")
    } else if secs < 7200.0 {
        format!("{:.1} min", secs / 60.0)
    } else if secs < 172_800.0 {
        format!("{:.1} h", secs / 3600.0)
    } else {
        format!("{:.1} d", secs / 86400.0)
    }
}

fn ordinal(p: f64) -> String {
    let r = p.round() as u64;
    let suf = match (r % 10, r % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{r}{suf}")
}

/// Most random draws `--monte-carlo` makes in total (about a minute on one core).
const MC_MAX_DRAWS: f64 = 4e9;
/// Most memory `--monte-carlo` holds (bitmap, and the CDF table for zipf).
const MC_MAX_BYTES: f64 = 2.0 * (1u64 << 30) as f64;

/// Refuses a Monte-Carlo check that would run for hours or exhaust memory, before it starts.
fn check_mc_cost(f: &Fill, runs: usize, cap: u64) -> anyhow::Result<()> {
    let c = f.monte_carlo_cost(runs, cap);
    if c.bytes > MC_MAX_BYTES {
        bail!(
            "--monte-carlo {runs} over {} entries needs {:.1} GiB of memory (at most {:.0} GiB); \
             expected fewer --entries, or no --monte-carlo (the model needs no simulation)",
            f.n,
            c.bytes / (1u64 << 30) as f64,
            MC_MAX_BYTES / (1u64 << 30) as f64
        );
    }
    if c.draws > MC_MAX_DRAWS {
        bail!(
            "--monte-carlo {runs} over {} entries would draw about {:.1e} random numbers (at \
             most {MC_MAX_DRAWS:.0e}); expected fewer runs or --entries",
            f.n,
            c.draws
        );
    }
    Ok(())
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let n = parse_count(&a.entries).context("--entries")?;
    let pattern: Pattern =
        a.pattern.parse().map_err(|e: String| anyhow::anyhow!("--pattern: {e}"))?;
    if let Some(iops) = a.iops {
        if !(1e-3..=1e12).contains(&iops) {
            bail!("--iops {iops:?}: expected 0.001 to 1e12 reads per second");
        }
    }
    if let Some(o) = a.observed_passes {
        if !(o > 0.0 && o <= 1e12) {
            bail!("--observed-passes {o:?}: expected a number of passes > 0 (at most 1e12)");
        }
    }
    let f = Fill::try_new(n, pattern).context("--pattern")?;
    if a.monte_carlo > 0 {
        check_mc_cost(&f, a.monte_carlo, 1e12 as u64)?;
    }
    let nf = n as f64;
    let time = |reads: f64| a.iops.map(|i| duration(reads / i));
    let mean = f.expected_reads();
    let sd = f.stddev();
    let qs = [0.5, 0.9, 0.95, 0.99, 0.999];
    let quant: Vec<(f64, f64)> = qs.iter().map(|&q| (q, f.quantile(q))).collect();
    let top = quant.last().map_or(mean, |q| q.1) / nf;
    let mut passes: Vec<f64> = (1..=10).map(|p| p as f64).collect();
    let mut p = 12.0;
    while p <= top.ceil() + 1.0 && passes.len() < 60 {
        passes.push(p);
        p += if p < 20.0 {
            2.0
        } else if p < 50.0 {
            5.0
        } else {
            (p / 5.0).round()
        };
    }
    let mc = if a.monte_carlo > 0 {
        let cap = (mean * 20.0).min(1e12) as u64;
        let runs = f.monte_carlo(a.monte_carlo, a.seed, cap);
        let done: Vec<f64> = runs.iter().flatten().map(|&r| r as f64 / nf).collect();
        Some((runs.len(), done))
    } else {
        None
    };
    let observed = a.observed_passes.map(|o| (o, f.percentile_of(o * nf)));
    let over = a
        .working_set
        .as_deref()
        .map(parse_count)
        .transpose()
        .context("--working-set")?
        .map(|w| {
            if w < n {
                bail!("--working-set {w} is smaller than --entries {n}: the cache never fills");
            }
            Ok(Oversubscribed { cache: n, working_set: w })
        })
        .transpose()?;

    if a.json || a.html {
        let v = serde_json::json!({
            "entries": n,
            "pattern": a.pattern,
            "expected_reads": mean,
            "expected_passes": mean / nf,
            "stddev_passes": sd / nf,
            "quantiles_passes": quant.iter().map(|(q, r)| serde_json::json!({"q": q, "passes": r / nf})).collect::<Vec<_>>(),
            "table": passes.iter().map(|&p| serde_json::json!({
                "passes": p,
                "reads": p * nf,
                "seconds": a.iops.map(|i| p * nf / i),
                "filled_fraction": f.filled_fraction(p * nf),
                "p_all_filled": f.cdf(p * nf),
            })).collect::<Vec<_>>(),
            "monte_carlo": mc.as_ref().map(|(runs, done)| serde_json::json!({
                "runs": runs, "completed": done.len(),
                "mean_passes": done.iter().sum::<f64>() / done.len().max(1) as f64,
                "passes": done,
            })),
            "observed": observed.map(|(o, pct)| serde_json::json!({"passes": o, "percentile": pct * 100.0})),
            "interrupted": iolab_core::stop::requested(),
            "working_set": over.map(|o| serde_json::json!({
                "working_set": o.working_set,
                "steady_hit_ratio": o.steady_hit_ratio(),
                "reads_to_full": o.reads_to_full(),
                "reads_to_95pct_of_steady_hit_ratio": o.reads_to_hit_ratio(0.95),
            })),
        });
        if a.html {
            print!("{}", super::report::page_of("fill", &v)?);
        } else {
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        return Ok(exit_status());
    }

    println!("cache of {n} entries, {} reads", a.pattern);
    println!(
        "{:>7} {:>14} {:>12} {:>10} {:>14} {:>14}",
        "passes", "reads", "time", "filled", "entries filled", "P(all filled)"
    );
    for &p in &passes {
        let reads = p * nf;
        println!(
            "{:>7} {:>14.0} {:>12} {:>9.3}% {:>14.0} {:>13.3}%",
            p,
            reads,
            time(reads).unwrap_or_else(|| "-".into()),
            100.0 * f.filled_fraction(reads),
            f.filled_fraction(reads) * nf,
            100.0 * f.cdf(reads)
        );
    }
    println!(
        "expected reads to fill: {:.0} ({:.2} passes{}), stddev {:.2} passes",
        mean,
        mean / nf,
        time(mean).map(|t| format!(", {t}")).unwrap_or_default(),
        sd / nf
    );
    let qline: Vec<String> =
        quant.iter().map(|(q, r)| format!("p{} {:.2}", q * 100.0, r / nf)).collect();
    println!("percentiles (passes): {}", qline.join(", "));
    if let Some((runs, done)) = &mc {
        let m = done.iter().sum::<f64>() / done.len().max(1) as f64;
        let s = (done.iter().map(|x| (x - m).powi(2)).sum::<f64>()
            / (done.len().max(2) - 1) as f64)
            .sqrt();
        let (lo, hi) = done.iter().fold((f64::MAX, 0f64), |(l, h), &x| (l.min(x), h.max(x)));
        println!(
            "monte carlo (seed {}): {} of {runs} runs filled; mean {m:.2} passes, stddev {s:.2}, min {lo:.2}, max {hi:.2}",
            a.seed,
            done.len()
        );
    }
    if let Some((o, pct)) = observed {
        println!(
            "{o} passes is the {} percentile of the {} model",
            ordinal(pct * 100.0),
            a.pattern
        );
    }
    if let Some(o) = over {
        println!(
            "working set {} > cache {n}: LRU steady-state hit ratio {:.4}; cache full after {:.0} reads ({:.3} cache sizes{}); 95 % of the steady hit ratio after {:.0} reads",
            o.working_set,
            o.steady_hit_ratio(),
            o.reads_to_full(),
            o.reads_to_full() / nf,
            time(o.reads_to_full()).map(|t| format!(", {t}")).unwrap_or_default(),
            o.reads_to_hit_ratio(0.95)
        );
    }
    if iolab_core::stop::requested() {
        println!("interrupted: the Monte Carlo check covers the runs finished before the signal");
    }
    Ok(exit_status())
}

/// 128 + the signal after a stop request (the Monte Carlo runs end early), else success.
fn exit_status() -> ExitCode {
    iolab_core::stop::exit_status().map_or(ExitCode::SUCCESS, ExitCode::from)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_ordinals() {
        assert_eq!(parse_count("1M").unwrap(), 1_000_000);
        assert_eq!(parse_count("500k").unwrap(), 500_000);
        assert_eq!(parse_count("2000000").unwrap(), 2_000_000);
        assert!(parse_count("1Q").is_err());
        assert!(parse_count("0").is_err());
        assert_eq!(
            (ordinal(95.9), ordinal(1.0), ordinal(12.0), ordinal(22.0)),
            ("96th".into(), "1st".into(), "12th".into(), "22nd".into())
        );
    }
}
