//! `iolab run` under MPI (issue 29): `mpirun -np 3` on a null job gives one fio client
//! document with three host entries whose `All clients` counts and json+ bins are the sums of
//! the hosts'; each rank's start skew; generated file names numbered on across ranks; a
//! failing rank named; `--mpi-stonewall=first`. These need the `mpi` feature and `mpirun`
//! (else `skip:`). A build without the feature under a launcher's environment refuses to run
//! as one of several ranks, and a hostile launcher variable is refused by name.
#![allow(clippy::unwrap_used)]

use iolab_test_support::empty_stdin;
use std::process::{Command, Output};

fn iolab() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
    for v in ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"] {
        c.env_remove(v);
    }
    c.stdin(empty_stdin().unwrap());
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[cfg(not(feature = "mpi"))]
#[test]
fn a_build_without_mpi_refuses_to_be_one_of_several_ranks() {
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let out = d.path().join("r.json");
    let o = iolab()
        .env("OMPI_COMM_WORLD_SIZE", "2")
        .args(["run", "--name=n", "--ioengine=null", "--size=1m", "--output-format=json"])
        .arg(format!("--output={}", out.display()))
        .output()
        .unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("built without MPI") && e.contains("one of 2 MPI ranks"), "{e}");
    assert!(o.stdout.is_empty() && !out.exists(), "nothing is run or written");
    // One rank (`mpirun -np 1`) is a run alone.
    let o = iolab()
        .env("OMPI_COMM_WORLD_SIZE", "1")
        .args(["run", "--name=n", "--ioengine=null", "--size=1m", "--output-format=json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_hostile_launcher_variable_is_refused_by_name() {
    for (var, value) in [("OMPI_COMM_WORLD_SIZE", "two"), ("PMI_SIZE", "-1"), ("PMIX_RANK", "")] {
        let o = iolab()
            .env(var, value)
            .args(["run", "--name=n", "--ioengine=null", "--size=1m"])
            .output()
            .unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{var}={value}: {e}");
        assert!(e.trim_end().ends_with("expected a whole number as MPI launchers set it"), "{e}");
        assert!(e.contains(&format!("{var}='{value}'")), "{e}");
    }
}

#[test]
fn sim_and_replay_refuse_to_run_as_one_of_several_ranks() {
    for args in [&["sim", "--name=n", "--size=1m"][..], &["replay", "t.csv", "--filename=x"][..]] {
        let o = iolab().env("PMI_SIZE", "3").args(args).output().unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
        let want = format!("iolab {} does not run under MPI yet: each of the 3 ranks", args[0]);
        assert!(e.contains(&want) && e.lines().count() == 1, "{e}");
    }
}

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::stderr;
    use iolab_test_support::{empty_stdin, or_skip, tool};
    use serde_json::Value;
    use std::collections::BTreeMap;
    use std::path::Path;
    use std::process::{Command, Output};

    /// `mpirun` as root on one machine, N ranks over 2 cores.
    fn mpirun(np: u32) -> Option<Command> {
        let m = or_skip(tool("mpirun"))?;
        let mut c = Command::new(m);
        c.args(["--allow-run-as-root", "--oversubscribe", "-np", &np.to_string()]);
        c.stdin(empty_stdin().unwrap());
        Some(c)
    }

    fn bin() -> &'static str {
        env!("CARGO_BIN_EXE_iolab")
    }

    fn doc(p: &Path) -> Value {
        let t = std::fs::read_to_string(p).unwrap();
        serde_json::from_str(&t).unwrap_or_else(|e| panic!("{e}: {t}"))
    }

    fn bins(v: &Value) -> BTreeMap<String, u64> {
        let b = v["read"]["clat_ns"]["bins"].as_object().expect("json+ bins");
        b.iter().map(|(k, n)| (k.clone(), n.as_u64().unwrap())).collect()
    }

    fn run(o: Output) -> Output {
        assert!(o.status.success(), "{}", stderr(&o));
        o
    }

    #[test]
    fn three_ranks_make_one_document_whose_all_clients_is_the_sum() {
        let Some(mut m) = mpirun(3) else { return };
        let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let out = d.path().join("r.json");
        let o = run(m
            .args([bin(), "run", "--name=n", "--ioengine=null", "--size=64m"])
            .args(["--output-format=json+", &format!("--output={}", out.display())])
            .output()
            .unwrap());
        assert!(o.stdout.is_empty(), "no rank prints the result on stdout");
        let j = doc(&out);
        let cs = j["client_stats"].as_array().unwrap();
        assert_eq!(cs.len(), 4, "three hosts and All clients");
        let hosts = &cs[..3];
        let all = &cs[3];
        assert_eq!(all["jobname"], "All clients");
        let names: Vec<&str> = hosts.iter().map(|h| h["hostname"].as_str().unwrap()).collect();
        for (r, n) in names.iter().enumerate() {
            assert!(n.ends_with(&format!("/{r}")), "{names:?}");
            assert_eq!(hosts[r]["port"], 0);
        }
        // 64 MiB of 4 KiB reads on every rank: 16384 each, the sum in All clients.
        for h in hosts {
            assert_eq!(h["read"]["total_ios"], 16384, "{}", h["hostname"]);
        }
        assert_eq!(all["read"]["total_ios"], 3 * 16384);
        let mut sum: BTreeMap<String, u64> = BTreeMap::new();
        for h in hosts {
            for (k, n) in bins(h) {
                *sum.entry(k).or_default() += n;
            }
        }
        assert_eq!(bins(all), sum, "All clients' bins are the hosts' bins added");
        assert_eq!(sum.values().sum::<u64>(), 3 * 16384);
        // Every rank's skew from the common start: present, and under a second here.
        let extras = j["iolab_hosts"].as_array().unwrap();
        assert_eq!(extras.len(), 3);
        for (r, h) in extras.iter().enumerate() {
            assert_eq!(h["rank"], r as u64);
            let skew = h["start_skew_ns"].as_i64().unwrap();
            assert!((0..1_000_000_000).contains(&skew), "rank {r}: skew {skew} ns");
        }
    }

    #[test]
    fn clones_are_numbered_on_across_ranks() {
        // numjobs=2 on two ranks: rank 1's clones are 2 and 3 (their generated files, and
        // their offset_increment regions), and its jobidx follow rank 0's.
        let Some(mut m) = mpirun(2) else { return };
        let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let out = d.path().join("r.json");
        run(m
            .args([bin(), "run", "--name=f", "--ioengine=psync", "--rw=write", "--size=256k"])
            .args(["--numjobs=2", &format!("--directory={}", d.path().display())])
            .args(["--output-format=json", &format!("--output={}", out.display())])
            .output()
            .unwrap());
        let mut files: Vec<String> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("f."))
            .collect();
        files.sort();
        assert_eq!(files, ["f.0.0", "f.1.0", "f.2.0", "f.3.0"]);
        for f in &files {
            assert_eq!(std::fs::metadata(d.path().join(f)).unwrap().len(), 256 << 10, "{f}");
        }
        let j = doc(&out);
        let cs = j["client_stats"].as_array().unwrap();
        assert_eq!(cs.len(), 5, "two clones on two ranks and All clients");
        let written: u64 = cs[..4].iter().map(|c| c["write"]["io_bytes"].as_u64().unwrap()).sum();
        assert_eq!(written, 4 * (256 << 10));
        assert_eq!(cs[4]["write"]["io_bytes"], 4 * (256 << 10));
    }

    #[test]
    fn a_failing_rank_fails_the_run_and_is_named() {
        // MPMD: rank 1 names a job file that does not exist.
        let Some(mut m) = mpirun(1) else { return };
        let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let out = d.path().join("r.json");
        let o = m
            .args([bin(), "run", "--name=n", "--ioengine=null", "--size=1m"])
            .args(["--output-format=json", &format!("--output={}", out.display())])
            .args([":", "-np", "1", bin(), "run", "--ioengine=null", "--size=1m"])
            .args(["--output-format=json", &format!("--output={}", out.display())])
            .arg(d.path().join("missing.fio"))
            .output()
            .unwrap();
        let e = stderr(&o);
        assert_ne!(o.status.code(), Some(0), "{e}");
        assert!(e.contains("1 of 2 MPI ranks failed") && e.contains("rank 1: "), "{e}");
        assert!(e.contains("missing.fio"), "{e}");
        assert!(!out.exists(), "no partial document");
    }

    #[test]
    fn stonewall_first_stops_the_other_ranks() {
        // Rank 0 runs 1 s, rank 1 would run 30 s: the first done stops the other.
        let Some(mut m) = mpirun(1) else { return };
        let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let out = d.path().join("r.json");
        let job = ["run", "--name=n", "--ioengine=null", "--size=1m", "--time_based"];
        let t0 = std::time::Instant::now();
        run(m
            .arg(bin())
            .args(job)
            .args(["--runtime=1", "--mpi-stonewall=first", "--output-format=json"])
            .arg(format!("--output={}", out.display()))
            .args([":", "-np", "1", bin()])
            .args(job)
            .args(["--runtime=30", "--mpi-stonewall=first"])
            .output()
            .unwrap());
        let took = t0.elapsed().as_secs_f64();
        assert!(took < 15.0, "the 30 s rank ran on: {took:.1} s");
        let j = doc(&out);
        let cs = j["client_stats"].as_array().unwrap();
        let ms: Vec<u64> = cs[..2].iter().map(|c| c["job_runtime"].as_u64().unwrap()).collect();
        assert!((900..1500).contains(&ms[0]), "{ms:?}");
        assert!(ms[1] < 3000, "rank 1 stopped about when rank 0 ended: {ms:?}");
    }

    /// `mpirun -np 3` with `--status-interval`: every interval's All clients is the ranks'
    /// sum (counts and bins), the final document is the sum of the intervals, and each rank's
    /// own copy of its intervals is gone once rank 0 has them.
    #[test]
    fn status_intervals_under_three_ranks_add_up_exactly() {
        let Some(mut m) = mpirun(3) else { return };
        let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let out = d.path().join("r.json");
        let state = d.path().join("state");
        let o = run(m
            .env("XDG_STATE_HOME", &state)
            .args([bin(), "run", "--name=n", "--ioengine=null", "--rw=randread", "--bs=4k"])
            .args(["--size=64m", "--time_based", "--runtime=3", "--rate_iops=10000"])
            .args(["--status-interval=1", "--output-format=json+"])
            .arg(format!("--output={}", out.display()))
            .output()
            .unwrap());
        assert!(o.stdout.is_empty(), "no rank prints on stdout with --output");
        let text = std::fs::read(&out).unwrap();
        let docs: Vec<Value> =
            serde_json::Deserializer::from_slice(&text).into_iter().map(Result::unwrap).collect();
        let n = crate::server::check_intervals(&docs, 3);
        assert!((2..=4).contains(&n), "{n} interval documents in a 3 s run at 1 s");
        let fin = docs.last().unwrap();
        let all = fin["client_stats"][3]["read"]["total_ios"].as_u64().unwrap();
        assert!((60_000..=100_000).contains(&all), "{all} I/Os: 3 ranks at 10000 IOPS for 3 s");
        for h in fin["iolab_hosts"].as_array().unwrap() {
            let f = h["interval_file"].as_str().unwrap();
            assert!(f.starts_with(&state.display().to_string()), "{f}");
            assert!(!Path::new(f).exists(), "{f} is removed once rank 0 has the intervals");
        }
    }
}
