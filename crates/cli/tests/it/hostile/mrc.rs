//! Hostile probes of `iolab mrc --policy` (family "mrc"): policy lists (unknown, empty,
//! duplicated, a thousand names), sampling rates (0, negative, NaN, above 1, tiny), thread
//! counts (0, huge), `--by-bytes` on a trace without sizes, and flags that do not combine.

use super::runner::{Oracle, Prep, Probe};

fn err(needles: &[&str]) -> Oracle {
    Oracle::Err(needles.iter().map(|s| s.to_string()).collect())
}

/// Every probe reads the fixtures' 2,000-record CloudPhysics trace.
const T: &str = "{F}/t.csv";

/// 100 oracleGeneral records (24 bytes: time, id, size, next) whose sizes are all 0.
fn sizeless_trace() -> Vec<u8> {
    (0..100u64)
        .flat_map(|i| {
            let mut r = [0u8; 24];
            r[4..12].copy_from_slice(&(i % 7).to_le_bytes());
            r[16..24].copy_from_slice(&(-1i64).to_le_bytes());
            r
        })
        .collect()
}

/// A probe's name, its arguments after `mrc TRACE`, and what it must give.
type Case = (String, Vec<String>, Oracle);

/// The `--policy` list's own hostile values.
fn policy_cases() -> Vec<Case> {
    let thousand = format!("--policy={}", vec!["lru"; 1000].join(","));
    let unknown_1000: String = (0..1000).map(|i| format!("p{i}")).collect::<Vec<_>>().join(",");
    let unknown_1000 = format!("--policy={unknown_1000}");
    vec![
        ("unknown policy".into(), vec!["--policy=lru,nope".into()], err(&["--policy", "nope"])),
        ("empty --policy".into(), vec!["--policy=".into()], err(&["--policy", "empty"])),
        (
            "empty name in the list".into(),
            vec!["--policy=lru,,arc".into()],
            err(&["--policy", "empty"]),
        ),
        (
            "duplicate policy".into(),
            vec!["--policy=lru,arc,LRU".into()],
            err(&["--policy", "twice"]),
        ),
        (
            "alias of a listed policy".into(),
            vec!["--policy=2q,twoq".into()],
            err(&["--policy", "twice"]),
        ),
        ("1000 names (duplicates)".into(), vec![thousand], err(&["--policy", "twice"])),
        ("1000 unknown names".into(), vec![unknown_1000], err(&["--policy", "p0"])),
    ]
}

/// Hostile values of the flags that go with `--policy`.
fn flag_cases() -> Vec<Case> {
    vec![
        (
            "--sample 0".into(),
            vec!["--policy=lru".into(), "--sample=0".into()],
            err(&["--sample", "(0, 1]"]),
        ),
        (
            "--sample -0.5".into(),
            vec!["--policy=lru".into(), "--sample=-0.5".into()],
            err(&["--sample"]),
        ),
        (
            "--sample nan".into(),
            vec!["--policy=lru".into(), "--sample=nan".into()],
            err(&["--sample"]),
        ),
        (
            "--sample 1.5".into(),
            vec!["--policy=lru".into(), "--sample=1.5".into()],
            err(&["--sample"]),
        ),
        (
            "--sample 1e-300".into(),
            vec!["--policy=lru".into(), "--sample=1e-300".into()],
            err(&["--sample"]),
        ),
        (
            "--sample inf".into(),
            vec!["--policy=lru".into(), "--sample=inf".into()],
            err(&["--sample"]),
        ),
        (
            "--sample with --exact".into(),
            vec!["--policy=lru".into(), "--sample=0.1".into(), "--exact".into()],
            err(&["--sample", "--exact"]),
        ),
        ("--sample without --policy".into(), vec!["--sample=0.1".into()], err(&["--policy"])),
        (
            "--threads 0".into(),
            vec!["--policy=lru".into(), "--threads=0".into()],
            err(&["--threads"]),
        ),
        (
            "--threads -1".into(),
            vec!["--policy=lru".into(), "--threads=-1".into()],
            err(&["--threads"]),
        ),
        (
            "--threads 2^64".into(),
            vec!["--policy=lru".into(), "--threads=18446744073709551616".into()],
            err(&["--threads"]),
        ),
        (
            "--policy with --shards".into(),
            vec!["--policy=lru".into(), "--shards=0.1".into()],
            err(&["--policy", "--shards"]),
        ),
        (
            "--policy with --block-size".into(),
            vec!["--policy=lru".into(), "--block-size=4k".into()],
            err(&["--policy", "--block-size"]),
        ),
        ("--sizes 0".into(), vec!["--policy=lru".into(), "--sizes=0,10".into()], err(&["--sizes"])),
        ("--points 1".into(), vec!["--policy=lru".into(), "--points=1".into()], err(&["--points"])),
    ]
}

pub fn probes() -> Vec<Probe> {
    let mut v: Vec<Probe> = policy_cases()
        .into_iter()
        .chain(flag_cases())
        .map(|(name, extra, o)| {
            let mut a = vec!["mrc".to_string(), T.to_string()];
            a.extend(extra);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            Probe::new("mrc", format!("mrc --policy: {name}"), &a, o).limit(20.0)
        })
        .collect();
    // Huge thread counts are at most that many: the run uses one per (policy, size) pair.
    v.push(
        Probe::new(
            "mrc",
            "mrc --policy: --threads 1000000",
            &["mrc", T, "--policy=lru,arc", "--threads=1000000", "--sizes=10,100"],
            Oracle::Ok,
        )
        .limit(20.0),
    );
    v.push(
        Probe::new(
            "mrc",
            "mrc --policy: --by-bytes on a trace without sizes",
            &["mrc", "{W}/z.bin", "--format=oracleGeneral", "--policy=lru", "--by-bytes"],
            err(&["--by-bytes", "size"]),
        )
        .prep(Prep::File("z.bin", sizeless_trace()))
        .limit(20.0),
    );
    v
}
