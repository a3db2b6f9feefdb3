//! The file- and directory-operation engines (fio engines/fileoperations.c): each file's
//! operation counted once per pass as a latency sample, the tree they leave, and the I/O count
//! fio 3.33 reports for the same job file.

use crate::common::{load, run};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// A job file for `engine` over `nrfiles` files in `dir`.
fn job_file(dir: &Path, engine: &str, nrfiles: u32, extra: &str) -> std::path::PathBuf {
    let p = dir.join(format!("{engine}.fio"));
    let text = format!(
        "[t]\nioengine={engine}\ndirectory={}\nnrfiles={nrfiles}\nfilesize=8k\nbs=4k\n{extra}\n",
        dir.join("tree").display()
    );
    std::fs::create_dir_all(dir.join("tree")).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir.join("tree"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn expected_names(n: u32) -> Vec<String> {
    let mut v: Vec<String> = (0..n).map(|i| format!("t.0.{i}")).collect();
    v.sort();
    v
}

/// fio 3.33's `total_ios` per direction for `job`, or `None` (with a skip line) without fio.
fn fio_total_ios(job: &Path) -> Option<(u64, u64)> {
    let out = match std::process::Command::new("fio").arg("--output-format=json").arg(job).output()
    {
        Ok(o) => o,
        Err(e) => {
            println!("skip: fio is not installed ({e}); iolab's counts not compared with fio's");
            return None;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let at = text.find('{').unwrap_or_else(|| panic!("fio printed no JSON: {text}"));
    let v: serde_json::Value = serde_json::from_str(&text[at..]).unwrap();
    let j = &v["jobs"][0];
    Some((j["read"]["total_ios"].as_u64().unwrap(), j["write"]["total_ios"].as_u64().unwrap()))
}

#[test]
fn filecreate_opens_every_file_once_per_loop_and_counts_ios_as_fio() {
    let d = tempfile::tempdir_in(".").unwrap();
    let extra = "loops=3\nopenfiles=1\ncreate_on_open=1\nfallocate=none";
    let job = job_file(d.path(), "filecreate", 8, extra);
    let r = run(&load(std::slice::from_ref(&job), &[], d.path()));
    let j = &r.jobs[0];
    assert_eq!(j.error, 0);
    // 8 files × 3 loops opens, each one latency sample; 2 units of 4k per file and loop.
    assert_eq!(j.read.clat.n, 24);
    assert_eq!(j.read.lat.n, 0);
    assert_eq!(j.read.total_ios, 48);
    assert_eq!(j.read.io_bytes, 48 * 4096);
    assert_eq!(names(d.path()), expected_names(8));
    for n in expected_names(8) {
        let m = std::fs::metadata(d.path().join("tree").join(&n)).unwrap();
        assert!(m.is_file());
        assert_eq!(m.len(), 0, "{n}: created empty, nothing written");
        assert_eq!(m.permissions().mode() & 0o777, 0o600 & !umask(), "{n}");
    }
    std::fs::remove_dir_all(d.path().join("tree")).unwrap();
    std::fs::create_dir(d.path().join("tree")).unwrap();
    if let Some((r, w)) = fio_total_ios(&job) {
        assert_eq!((j.read.total_ios, j.write.total_ios), (r, w));
        assert_eq!(names(d.path()), expected_names(8), "fio leaves the same tree");
    }
}

fn umask() -> u32 {
    // SAFETY: umask(2) only swaps the process mask; it is set straight back.
    unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m
    }
}

#[test]
fn filestat_stats_every_file_with_each_stat_type() {
    for st in ["stat", "lstat", "statx"] {
        let d = tempfile::tempdir_in(".").unwrap();
        let job = job_file(d.path(), "filestat", 6, &format!("loops=2\nstat_type={st}"));
        let r = run(&load(std::slice::from_ref(&job), &[], d.path()));
        let j = &r.jobs[0];
        assert_eq!(j.error, 0, "{st}");
        assert_eq!(j.read.clat.n, 12, "{st}: 6 files × 2 loops");
        assert_eq!(j.read.total_ios, 24, "{st}");
        // The files were laid out at set-up and are still there, whole.
        assert_eq!(names(d.path()), expected_names(6));
        for n in expected_names(6) {
            assert_eq!(std::fs::metadata(d.path().join("tree").join(&n)).unwrap().len(), 8192);
        }
        if let Some(fio) = fio_total_ios(&job) {
            assert_eq!((j.read.total_ios, j.write.total_ios), fio, "{st}");
        }
    }
}

#[test]
fn filedelete_unlinks_every_file_and_a_second_loop_fails_as_fio() {
    let d = tempfile::tempdir_in(".").unwrap();
    let job = job_file(d.path(), "filedelete", 5, "rw=write");
    let r = run(&load(std::slice::from_ref(&job), &[], d.path()));
    let j = &r.jobs[0];
    assert_eq!(j.error, 0);
    assert_eq!(j.write.clat.n, 5);
    assert_eq!(j.write.total_ios, 10);
    assert!(names(d.path()).is_empty(), "{:?}", names(d.path()));
    if let Some(fio) = fio_total_ios(&job) {
        assert_eq!((j.read.total_ios, j.write.total_ios), fio);
    }
    // loops=2: the second pass finds nothing to unlink (ENOENT), as fio does.
    let job = job_file(d.path(), "filedelete", 5, "loops=2");
    let r = run(&load(&[job], &[], d.path()));
    let j = &r.jobs[0];
    assert_eq!(j.error, libc::ENOENT);
    assert_eq!(j.read.clat.n, 5);
    assert_eq!(j.read.total_ios, 10, "the units of the first pass only");
}

#[test]
fn directory_engines_make_stat_and_remove_the_tree() {
    let d = tempfile::tempdir_in(".").unwrap();
    let job = job_file(d.path(), "dircreate", 4, "loops=2");
    let r = run(&load(&[job], &[], d.path()));
    let j = &r.jobs[0];
    // The first pass makes the directories; the second finds them (EEXIST) and stops, as
    // fio's mkdir in its open hook does.
    assert_eq!(j.error, libc::EEXIST);
    assert_eq!(names(d.path()), expected_names(4));
    for n in expected_names(4) {
        let m = std::fs::metadata(d.path().join("tree").join(&n)).unwrap();
        assert!(m.is_dir());
        // fio calls mkdir(path, S_IFDIR): no permission bits.
        assert_eq!(m.permissions().mode() & 0o777, 0, "{n}");
        std::fs::set_permissions(d.path().join("tree").join(&n), PermissionsExt::from_mode(0o700))
            .unwrap();
    }
    assert_eq!(j.read.clat.n, 4);
    let job = job_file(d.path(), "dirstat", 4, "loops=3\nstat_type=lstat");
    let j = run(&load(&[job], &[], d.path())).jobs.remove(0);
    assert_eq!((j.error, j.read.clat.n), (0, 12));
    let job = job_file(d.path(), "dirdelete", 6, "");
    let j = run(&load(&[job], &[], d.path())).jobs.remove(0);
    // dirdelete makes the directories it deletes at set-up (fio's setup_dirs).
    assert_eq!((j.error, j.read.clat.n), (0, 6));
    assert!(names(d.path()).is_empty(), "{:?}", names(d.path()));
}
