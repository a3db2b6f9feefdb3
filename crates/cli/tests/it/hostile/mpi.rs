//! Hostile probes of `iolab run`'s MPI flags (issue 29): `--mpi-stonewall` with values that
//! are not `first` or `last` (empty, unknown, wrong case, a list, control characters, huge),
//! without a value, twice, and outside mpirun, each refused with a one-line error naming the
//! flag before any I/O. (The launcher's environment variables are probed in `it/mpi.rs`.)

use super::runner::{Oracle, Probe};

fn err(needles: &[&str]) -> Oracle {
    Oracle::Err(needles.iter().map(|s| s.to_string()).collect())
}

const BASE: &[&str] = &["run", "--name=h", "--ioengine=null", "--size=64k", "--directory={W}"];

pub fn probes() -> Vec<Probe> {
    let huge = "f".repeat(100 * 1024);
    let values: &[(&str, &str)] = &[
        ("empty", ""),
        ("none", "none"),
        ("wrong case", "First"),
        ("list", "first,last"),
        ("number", "1"),
        ("control chars", "fi\u{1b}[2Jrst"),
        ("huge", &huge),
    ];
    let mut v = Vec::new();
    for (label, value) in values {
        let arg = format!("--mpi-stonewall={value}");
        let mut args = BASE.to_vec();
        args.push(&arg);
        let o = err(&["--mpi-stonewall", "expected first", "!\u{1b}"]);
        v.push(Probe::new("mpi", format!("run --mpi-stonewall={label}"), &args, o));
    }
    let mut args = BASE.to_vec();
    args.push("--mpi-stonewall");
    v.push(Probe::new(
        "mpi",
        "run --mpi-stonewall without a value",
        &args,
        err(&["--mpi-stonewall"]),
    ));
    let mut args = BASE.to_vec();
    args.extend(["--mpi-stonewall=first", "--mpi-stonewall=last"]);
    v.push(Probe::new("mpi", "run --mpi-stonewall twice", &args, err(&["--mpi-stonewall"])));
    let mut args = BASE.to_vec();
    args.push("--mpi-stonewall=first");
    v.push(Probe::new(
        "mpi",
        "run --mpi-stonewall outside mpirun",
        &args,
        err(&["--mpi-stonewall", "mpirun"]),
    ));
    v
}
