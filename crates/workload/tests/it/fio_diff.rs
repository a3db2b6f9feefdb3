//! Differential tests against the installed fio 3.33 (`/usr/bin/fio` on Debian 12): fio runs
//! the job with `ioengine=null` and `write_iolog` (iolog.c `log_io_piece`, v3 records
//! `time file action offset length`), iolab builds the same job with
//! `iolab_fio_seeds=3.33`, and the two streams must agree record for record on
//! (file, action, offset, length). Each case runs under fio's default seeds and with
//! `randseed`. Without fio 3.33 or 3.34 the tests print `skip:` and pass.

use iolab_core::IoDir;
use iolab_workload::{FileLayout, WorkerInput, Workload};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One I/O as both sides describe it: (file, action, offset, length).
pub type Rec = (String, &'static str, u64, u64);

/// fio's version if it is 3.33 or 3.34 (the seeding these tests pin), else the skip reason.
pub fn fio_333() -> Result<String, String> {
    let out = Command::new("fio")
        .arg("--version")
        .output()
        .map_err(|e| format!("fio not runnable: {e}"))?;
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if v.starts_with("fio-3.33") || v.starts_with("fio-3.34") {
        Ok(v)
    } else {
        Err(format!("installed fio is {v:?}, these tests pin fio 3.33/3.34 seeding"))
    }
}

/// A fresh directory for one case.
pub fn scratch(case: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("iolab-fio-diff-{}-{case}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run fio in `dir` with `opts` (`name=value` strings) and return its iolog's I/O records.
pub fn fio_records(dir: &Path, opts: &[&str]) -> Vec<Rec> {
    let mut cmd = Command::new("fio");
    cmd.current_dir(dir).args(["--name=x", "--ioengine=null", "--write_iolog=fio.iolog"]);
    cmd.arg("--output=fio.out");
    for o in opts {
        cmd.arg(format!("--{o}"));
    }
    let st = cmd.status().unwrap();
    assert!(st.success(), "fio {opts:?} failed: {st}");
    parse_iolog(&std::fs::read_to_string(dir.join("fio.iolog")).unwrap())
}

/// The I/O records of a fio iolog v2/v3 (adds, opens and closes dropped).
pub fn parse_iolog(text: &str) -> Vec<Rec> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with("fio version")) {
        let f: Vec<&str> = line.split_whitespace().collect();
        // v3 has a leading timestamp; v2 does not.
        let f = if f.len() == 5 || f.len() == 3 { &f[1..] } else { &f[..] };
        let act = match f.get(1) {
            Some(&"read") => "read",
            Some(&"write") => "write",
            Some(&"trim") => "trim",
            _ => continue,
        };
        out.push((f[0].to_string(), act, f[2].parse().unwrap(), f[3].parse().unwrap()));
    }
    out
}

/// iolab's records for the same options, one stream per clone in thread_number order.
pub fn iolab_records(opts: &[&str]) -> Vec<Vec<Rec>> {
    let text = format!("[x]\nioengine=null\niolab_fio_seeds=3.33\n{}\n", opts.join("\n"));
    let parsed = iolab_job::parse_str("diff.fio", &text).unwrap();
    let mut out = Vec::new();
    let mut first = 1u32;
    for job in &parsed.jobs {
        for clone in 0..job.numjobs.max(1) {
            let tn = iolab_workload::fio_thread_number(first, clone, job.numjobs.max(1));
            let names: Vec<String> =
                (0..job.nrfiles.max(1)).map(|n| format!("{}.{clone}.{n}", job.name)).collect();
            let files = vec![FileLayout { size: 0 }; names.len()];
            let input = WorkerInput { job, clone_index: clone, thread_number: tn, files: &files };
            let w = Workload::new(&input).unwrap();
            out.push(
                w.map(|r| {
                    let act = match r.dir {
                        IoDir::Read => "read",
                        IoDir::Write => "write",
                        _ => "trim",
                    };
                    (names[r.file as usize].clone(), act, r.offset, r.len)
                })
                .collect(),
            );
        }
        first += job.numjobs.max(1);
    }
    out
}

/// fio's records split by clone: clone `c` owns the files `x.c.*`.
pub fn by_clone(recs: Vec<Rec>, clones: usize) -> Vec<Vec<Rec>> {
    let mut out = vec![Vec::new(); clones];
    let mut owner: HashMap<String, usize> = HashMap::new();
    for r in recs {
        let c = *owner
            .entry(r.0.clone())
            .or_insert_with(|| r.0.split('.').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0));
        out[c.min(clones - 1)].push(r);
    }
    out
}

/// Compare fio's and iolab's streams for `opts`; returns the records compared.
pub fn assert_same_stream(case: &str, opts: &[&str]) -> usize {
    let dir = scratch(case);
    let ours = iolab_records(opts);
    let fio = by_clone(fio_records(&dir, opts), ours.len());
    let _ = std::fs::remove_dir_all(&dir);
    let mut n = 0;
    for (c, (f, o)) in fio.iter().zip(&ours).enumerate() {
        if let Some(i) = (0..f.len().max(o.len())).find(|&i| f.get(i) != o.get(i)) {
            panic!(
                "{case} clone {c}: first difference at record {i} of {} (fio) / {} (iolab): \
                 fio {:?}, iolab {:?}",
                f.len(),
                o.len(),
                f.get(i),
                o.get(i)
            );
        }
        n += f.len();
    }
    assert!(n > 0, "{case}: fio wrote no I/O records");
    n
}

/// The listed cases of issue 13, each a set of fio options.
pub const CASES: &[(&str, &[&str])] = &[
    ("randread", &["rw=randread", "size=1m", "bs=4k"]),
    ("randwrite", &["rw=randwrite", "size=1m", "bs=4k"]),
    ("randrw-70-30", &["rw=randrw", "rwmixread=70", "size=1m", "bs=4k"]),
    ("zipf-1.2", &["rw=randread", "random_distribution=zipf:1.2", "size=16m", "bs=4k"]),
    ("pareto-0.9", &["rw=randread", "random_distribution=pareto:0.9", "size=16m", "bs=4k"]),
    ("normal", &["rw=randread", "random_distribution=normal", "size=16m", "bs=4k"]),
    ("zoned", &["rw=randread", "random_distribution=zoned:60/10:30/20:10/70", "size=16m", "bs=4k"]),
    ("bsrange", &["rw=randread", "bsrange=4k-16k", "size=1m"]),
    ("bssplit", &["rw=randread", "bssplit=4k/50:16k/30:64k/20", "size=4m"]),
    // Small enough that each clone's log stays within fio's 8 KiB iolog buffer: the clones
    // append to one file, and a larger log could tear a line between them.
    ("numjobs-2", &["rw=randread", "size=256k", "bs=4k", "numjobs=2"]),
    (
        "numjobs-3-zipf",
        &["rw=randread", "size=256k", "bs=4k", "numjobs=3", "random_distribution=zipf:1.2"],
    ),
];

#[test]
fn iolog_streams_equal_fio_3_33_under_default_seeds() {
    if let Err(why) = fio_333() {
        println!("skip: {why}");
        return;
    }
    let mut total = 0;
    for (case, opts) in CASES {
        let n = assert_same_stream(case, opts);
        println!("{case}: {n} records equal");
        total += n;
    }
    assert!(total > 15_000, "{total}");
}

#[test]
fn iolog_streams_equal_fio_3_33_with_randseed() {
    if let Err(why) = fio_333() {
        println!("skip: {why}");
        return;
    }
    for (case, opts) in CASES {
        let mut o = opts.to_vec();
        o.push("randseed=4242");
        let n = assert_same_stream(&format!("{case}-randseed"), &o);
        println!("{case} randseed=4242: {n} records equal");
        // randrepeat=0 with a randseed: every slot from randseed, distributions from slot 4.
        o.push("randrepeat=0");
        let n = assert_same_stream(&format!("{case}-norepeat"), &o);
        println!("{case} randseed=4242 randrepeat=0: {n} records equal");
    }
}
