//! `iolab run --predict` on a job outside the sizes and depths the profile's sweep measured:
//! the predicted-vs-measured table and `iolab_predict.outside_range` say so (issue 32,
//! "predicting outside that range says so"); a job inside the sweep gets no such note.
#![allow(clippy::unwrap_used)]

use std::path::Path;

/// A profile whose `[[point]]` tables swept reads of 4 KiB–64 KiB up to QD8 and writes of
/// 4 KiB at QD1.
fn profile(d: &Path) -> String {
    let dir = "base_us=100\nseq_base_us=20\nxfer_bytes_per_sec=2e9\nservers=4\n\
               shape=[[0.0,1.0],[1.0,1.0]]\n";
    let head = "version = 1\nname = \"swept\"\ncapacity = 1073741824\nservers = 4\n";
    let mut text = format!("{head}[read]\n{dir}[write]\n{dir}");
    for (rw, bs, qd) in [("randread", 4096, 1), ("randread", 65536, 8), ("randwrite", 4096, 1)] {
        text.push_str(&format!(
            "[[point]]\nrw = \"{rw}\"\nbs = {bs}\niodepth = {qd}\nspan = 1073741824\n\
             measured_iops = 1000.0\npredicted_iops = 1000.0\nmeasured_p50_us = 100.0\n\
             predicted_p50_us = 100.0\nmeasured_p99_us = 200.0\npredicted_p99_us = 200.0\n\
             iops_error = 0.0\n"
        ));
    }
    let p = d.join("p.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn run(d: &Path, prof: &str, bs: &str, fmt: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"))
        .current_dir(d)
        .args(["run", "--name=a", "--ioengine=null", "--rw=randread", "--size=64m"])
        .arg(format!("--bs={bs}"))
        .arg(format!("--predict={prof}"))
        .arg(format!("--output-format={fmt}"))
        .stdin(iolab_test_support::empty_stdin().unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_job_outside_the_sweep_is_named_in_the_table_and_the_json() {
    let d = tempfile::tempdir_in(".").unwrap();
    let prof = profile(d.path());
    let text = run(d.path(), &prof, "1m", "normal");
    let want = "note: outside the calibrated range: job 'a' reads 1 MiB blocks; the profile's \
                sweep measured reads of 4 KiB–64 KiB: the prediction extrapolates the fit";
    assert!(text.contains("predicted on profile swept vs measured"), "{text}");
    assert!(text.contains(want), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&run(d.path(), &prof, "1m", "json")).unwrap();
    let outside = doc["iolab_predict"]["outside_range"].as_array().unwrap();
    assert_eq!(outside.len(), 1, "{outside:?}");
    assert!(outside[0].as_str().unwrap().contains("reads 1 MiB blocks"), "{outside:?}");
    // Inside the sweep: the table, and no note.
    let text = run(d.path(), &prof, "16k", "normal");
    assert!(text.contains("predicted on profile swept vs measured"), "{text}");
    assert!(!text.contains("outside the calibrated range"), "{text}");
    let doc: serde_json::Value =
        serde_json::from_str(&run(d.path(), &prof, "16k", "json")).unwrap();
    assert_eq!(doc["iolab_predict"]["outside_range"], serde_json::json!([]));
}
