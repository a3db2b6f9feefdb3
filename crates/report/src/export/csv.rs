//! CSV: one row per job and direction, for spreadsheets and plotting (elbencho #69 asks for
//! percentiles in CSV). RFC 4180 quoting; units in the column names (`_ns`, `_bytes`,
//! `_per_s`); one percentile column per entry of the run's percentile list, plus the number
//! of samples behind the last one, and `interrupted` (1 when a signal ended the run early,
//! so the row covers the time until then).

use std::fmt::Write;

use iolab_core::IoDir;
use iolab_stats::{RunResult, DEFAULT_PERCENTILES};

use crate::{Exporter, ReportError};

/// The CSV exporter.
pub struct Csv;

fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn pct_name(p: f64) -> String {
    format!("clat_p{}_ns", p.to_string().replace('.', "_"))
}

impl Exporter for Csv {
    fn name(&self) -> &'static str {
        "csv"
    }

    fn render(&self, run: &RunResult) -> Result<Vec<u8>, ReportError> {
        let pcts: Vec<f64> = if run.meta.percentile_list.is_empty() {
            DEFAULT_PERCENTILES.to_vec()
        } else {
            run.meta.percentile_list.clone()
        };
        let mut s = String::from(
            "jobname,jobidx,groupid,dir,io_bytes,total_ios,short_ios,drop_ios,failed_ios,\
             runtime_ns,bw_bytes_per_s,iops,slat_mean_ns,clat_min_ns,clat_mean_ns,\
             clat_stddev_ns,clat_max_ns,lat_mean_ns",
        );
        for &p in &pcts {
            let _ = write!(s, ",{}", pct_name(p));
        }
        s.push_str(",clat_last_pct_tail_samples,interrupted\n");
        for j in &run.jobs {
            for d in [IoDir::Read, IoDir::Write, IoDir::Trim, IoDir::Sync] {
                let x = j.dir(d);
                if x.total_ios == 0 && x.failed_ios == 0 {
                    continue;
                }
                let _ = write!(
                    s,
                    "{},{},{},{},{},{},{},{},{},{},{:.3},{:.3},{:.3},{},{:.3},{:.3},{},{:.3}",
                    quote(&j.name),
                    j.jobidx,
                    j.groupid,
                    d.as_str(),
                    x.io_bytes,
                    x.total_ios,
                    x.short_ios,
                    x.drop_ios,
                    x.failed_ios,
                    x.runtime_ns,
                    x.bw_bytes_per_sec(),
                    x.iops_mean(),
                    x.slat.mean,
                    x.clat.min,
                    x.clat.mean,
                    x.clat.stddev,
                    x.clat.max,
                    x.lat.mean
                );
                let mut tail = 0;
                for &p in &pcts {
                    if x.clat.n == 0 {
                        s.push(',');
                        continue;
                    }
                    let v = x.clat.percentile(p);
                    tail = v.tail_samples;
                    let _ = write!(s, ",{}", v.value);
                }
                let _ = writeln!(s, ",{tail},{}", u8::from(run.meta.interrupted));
            }
        }
        Ok(s.into_bytes())
    }
}
