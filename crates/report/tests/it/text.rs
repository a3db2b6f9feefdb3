//! iolab-report's text output read like fio's (stat.c show_run_stats): job notes, group reporting.

use crate::common::*;
use iolab_report::exporter;
use iolab_stats::*;

#[test]
fn text_output_reads_like_fio() {
    let run = appendix_b_run();
    let t = String::from_utf8(exporter("normal").unwrap().render(&run).unwrap()).unwrap();
    assert!(t.starts_with("t: (groupid=0, jobs=1): err= 0: Sat Nov 21 00:28:18 2026\n"), "{t}");
    assert!(t.contains("  read: IOPS=9232, BW=36.1MiB/s (37.8MB/s)(72.2MiB/2001msec)\n"), "{t}");
    assert!(t.contains("    clat (usec): min=30, max="), "{t}");
    assert!(t.contains("    clat percentiles (usec):\n     |  1.00th=["), "{t}");
    assert!(t.contains(" 99.99th=["), "{t}");
    assert!(t.contains("     | iolab: 99.999th="), "{t}");
    assert!(t.contains("   bw (  KiB/s): min="), "{t}");
    assert!(
        t.contains("  cpu          : usr=3.65%, sys=32.63%, ctx=18511, majf=0, minf=11\n"),
        "{t}"
    );
    assert!(t.contains("  IO depths    : 1=100.0%, 2=0.0%, 4=0.0%"), "{t}");
    assert!(
        t.contains("     issued rwts: total=18474,0,0,0 short=0,0,0,0 dropped=0,0,0,0\n"),
        "{t}"
    );
    assert!(t.contains("\nRun status group 0 (all jobs):\n   READ: bw=36.1MiB/s (37.8MB/s), 36.1MiB/s-36.1MiB/s (37.8MB/s-37.8MB/s), io=72.2MiB (75.7MB), run=2001-2001msec\n"), "{t}");
    assert!(t.contains("  vda: ios=21634/2, sectors=0/0, merge=0/0, ticks=1709/0, in_queue=1710, util=69.70%\n"), "{t}");
    assert!(t.contains("    iolab: r/s=8815.8, w/s=0.0, rMB/s=0.00, wMB/s=0.00, r_await=0.079ms, w_await=0.000ms, aqu-sz=0.70\n"), "{t}");
    assert!(!t.contains("  write:"));
}

/// A job's notes (an engine fallback, a stop) reach the reader: in the text after the
/// summary, once per distinct line, and in the JSON under `jobs[i].iolab.notes`.
#[test]
fn job_notes_are_printed_and_exported() {
    let mut run = appendix_b_run();
    let note = "io_uring: registered buffers refused (ENOMEM); each I/O pins its pages";
    run.jobs[0].notes.push(note.to_string());
    let mut twin = run.jobs[0].clone();
    twin.jobidx = 1;
    run.jobs.push(twin);
    let t = String::from_utf8(exporter("normal").unwrap().render(&run).unwrap()).unwrap();
    let line = format!("note: job t: {note}\n");
    assert_eq!(t.matches(&line).count(), 1, "{t}");
    let v = render_json(&run, "json");
    assert_eq!(v["jobs"][0]["iolab"]["notes"][0], note);
    let none = render_json(&appendix_b_run(), "json");
    assert_eq!(none["jobs"][0]["iolab"]["notes"].as_array().map(Vec::len), Some(0));
}

#[test]
fn group_reporting_prints_one_entry_per_group() {
    let mut run = appendix_b_run();
    let mut second = run.jobs[0].clone();
    second.jobidx = 1;
    second.name = "t".into();
    run.jobs.push(second);
    run.global_options.insert("group_reporting".into(), "1".into());
    // The exporters act on the typed setting the runner puts into each job's result.
    run.jobs.iter_mut().for_each(|j| j.report.group_reporting = true);
    let refs: Vec<(usize, &JobResult)> = run.jobs.iter().enumerate().collect();
    run.groups = vec![group(0, &refs, &DEFAULT_PERCENTILES)];
    let v = render_json(&run, "json");
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0]["read"]["total_ios"], 2 * 18_474u64);
    assert_eq!(jobs[0]["read"]["runtime"], 2001u64);
    assert_eq!(jobs[0]["read"]["clat_ns"]["N"], 2 * 18_474u64);
    assert_eq!(v["global options"]["group_reporting"], "1");
    let t = String::from_utf8(exporter("normal").unwrap().render(&run).unwrap()).unwrap();
    assert!(t.starts_with("t: (groupid=0, jobs=2)"));
}
