//! Probes for issue 35 ("the first hour"): `trace convert --lossy` (a conversion to
//! oracleGeneral, which has no operation field, is refused with what would be lost unless
//! `--lossy`; nothing is written on a refusal) and the tier keys' error (an unknown
//! `key=value` names the keys iolab knows).

use super::runner::{After, Oracle, Prep, Probe};

fn err(needles: &[&str]) -> Oracle {
    Oracle::Err(needles.iter().map(|s| s.to_string()).collect())
}

/// The shared fixture (`{F}/t.csv`: 2,000 CloudPhysics records, every one a write).
const TRACE: &str = "{F}/t.csv";

pub fn probes() -> Vec<Probe> {
    let conv = |name: &str, extra: &[&str], o: Oracle| {
        let mut args = vec!["trace", "convert"];
        args.extend(extra);
        Probe::new("first", format!("trace convert {name}"), &args, o)
    };
    let mut v = vec![
        // Every record is a write: refused, naming the count, the field and the flag.
        conv(
            "--to=oracle of writes",
            &["--to=oracle", TRACE, "{W}/out.bin"],
            err(&["2000 of 2000 records", "2000 writes", "--lossy", "operation"]),
        )
        .after(After::NoLeftovers(vec![])),
        conv("--to=oracle --lossy", &["--to=oracle", "--lossy", TRACE, "{W}/out.bin"], Oracle::Ok)
            .after(After::FileLen("out.bin", 2000 * 24)),
        // Formats that carry the operation need no --lossy, and accept it.
        conv("--to=iolog --lossy", &["--to=iolog", "--lossy", TRACE, "{W}/out.log"], Oracle::Ok),
        conv("--to=csv --lossy", &["--to=csv", "--lossy", TRACE, "{W}/out.csv"], Oracle::Ok),
        // A refused conversion onto an existing file leaves it as it was.
        conv("--to=oracle onto an existing file", &["--to=oracle", TRACE, "{W}/keep.bin"], {
            err(&["--lossy"])
        })
        .prep(Prep::File("keep.bin", b"keep".to_vec()))
        .after(After::Unchanged("keep.bin")),
        // A read-only trace converts without loss and without the flag.
        conv("--to=oracle of reads", &["--to=oracle", "{W}/r.csv", "{W}/out.bin"], Oracle::Ok)
            .prep(Prep::File("r.csv", b"version,time,op,size,lbn\n1,0,28,4096,8\n".to_vec()))
            .after(After::FileLen("out.bin", 24)),
    ];
    for key in ["battry=1", "dirty=0.5", "=1"] {
        let tier = format!("--tier=ram:1m:lru:{key}");
        v.push(Probe::new(
            "first",
            format!("sim {tier}"),
            &["sim", "--name=x", "--size=1m", "--number_ios=10", &tier],
            err(&["known:", "battery", "dirty_ratio", "metadata_only", "flush_rate"]),
        ));
    }
    v
}
