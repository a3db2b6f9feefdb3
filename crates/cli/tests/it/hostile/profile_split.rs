//! Hostile probes of a device profile's keys for where the caller waits and what the profile
//! was measured over (family "calibrate"): `submit_share` (the submit call's share of a
//! command, read and write, 0 to 1) NaN, negative, above 1, one value, a string; `[[valid]]`
//! with an unknown key or a size that is not a number; a `[[point]]` whose `p50_error` is a
//! string. Each is one line naming the file and the key, or (a value of the wrong type or
//! length, which the TOML reader refuses before the key's own check) the file and the line.

use super::runner::{Oracle, Prep, Probe};

fn err(needles: &[&str]) -> Oracle {
    Oracle::Err(needles.iter().map(|s| s.to_string()).collect())
}

pub fn probes() -> Vec<Probe> {
    let dir = "base_us=1\nseq_base_us=1\nxfer_bytes_per_sec=1e9\nservers=1\nshape=[[0.0,1.0],[1.0,1.0]]\n";
    let head = "version = 1\nname = \"x\"\ncapacity = 1000000\nservers = 1\n";
    let body = format!("[read]\n{dir}[write]\n{dir}");
    let point = "rw=\"randread\"\nbs=4096\niodepth=1\nspan=4096\nmeasured_iops=1.0\n\
                 predicted_iops=1.0\nmeasured_p50_us=1.0\npredicted_p50_us=1.0\n\
                 measured_p99_us=1.0\npredicted_p99_us=1.0\niops_error=0.0\n";
    let valid =
        "dir=\"read\"\nbs=[4096,4096]\ndepth=[1,1]\niops=[1.0,1.0]\nbytes_per_sec=[1.0,1.0]\n";
    // A value of the wrong type or length: the file and its line, and what was expected.
    let typed = "expected";
    let shares = [
        ("[nan, 0.5]", "submit_share"),
        ("[-0.1, 0.0]", "submit_share"),
        ("[1.5, 0.0]", "submit_share"),
        ("[0.5, 1e300]", "submit_share"),
        ("[0.5]", typed),
        ("\"half\"", typed),
    ];
    let mut cases: Vec<(String, &str, String)> = shares
        .iter()
        .map(|(bad, key)| {
            (format!("submit_share = {bad}"), *key, format!("{head}submit_share = {bad}\n{body}"))
        })
        .collect();
    cases.push((
        "a [[valid]] with an unknown key".into(),
        "bogus",
        format!("{head}{body}[[valid]]\n{valid}bogus=1\n"),
    ));
    cases.push((
        "a [[valid]] size that is a string".into(),
        typed,
        format!("{head}{body}[[valid]]\n{}", valid.replace("bs=[4096,4096]", "bs=[\"4k\",4096]")),
    ));
    cases.push((
        "a [[point]] p50_error that is a string".into(),
        typed,
        format!("{head}{body}[[point]]\n{point}p50_error=\"big\"\n"),
    ));
    cases
        .into_iter()
        .map(|(what, key, text)| {
            Probe::new(
                "calibrate",
                format!("sim --backing profile with {what}"),
                &["sim", "--backing={W}/p.toml", "--name=x", "--size=1m"],
                if key == typed { err(&["p.toml", "line", typed]) } else { err(&["p.toml", key]) },
            )
            .prep(Prep::File("p.toml", text.into_bytes()))
        })
        .collect()
}
