//! `verify_backlog` and `verify_backlog_batch` against fio 3.33 (issue 34; its t/jobs/t0005,
//! t0008 and examples/cross-stripe-verify.fio): written blocks are read back and checked
//! while the job writes (io_u.c `check_get_verify`), the reads counted as the job's reads but
//! not toward its size. iolab refused both options; now the counts are fio's, including where
//! verifying along the way changes them (`number_ios` counts the verify reads, a time-bound
//! job verifies what it wrote before its time ran out).

use super::{both, jobs, same_jobs_and_exit};

/// t0005's job, 4 MiB here: a write job verifying every 32 blocks reads back all it wrote.
#[test]
fn t0005_reads_back_every_block_written() {
    let Some(j) = same_jobs_and_exit(&[
        "--name=write",
        "--bs=4k",
        "--ioengine=sync",
        "--size=4m",
        "--filename=xxx",
        "--verify=md5",
        "--verify_backlog=32",
        "--rw=write",
        "--output-format=json",
    ]) else {
        return;
    };
    assert_eq!(j, [("write".to_string(), 0, 1024, 1024)]);
}

/// t0008's job, 4 MiB here: a 50/50 readwrite job verifying after every write reads its own
/// share plus every block it wrote, and its size counts its own I/O only.
#[test]
fn t0008_mixed_job_reads_its_share_and_every_written_block() {
    let Some(j) = same_jobs_and_exit(&[
        "--name=foo",
        "--bs=4k",
        "--verify=crc32c",
        "--rw=readwrite",
        "--filename=foo.0",
        "--size=4m",
        "--do_verify=1",
        "--verify_backlog=1",
        "--output-format=json",
    ]) else {
        return;
    };
    let (_, err, reads, writes) = j[0].clone();
    assert_eq!(err, 0);
    assert_eq!(reads, 1024, "own reads + verify reads = the whole size, as t0008 checks");
    assert!((450..=574).contains(&writes), "about half the 1024 blocks written: {writes}");
}

/// `number_ios` counts the verify reads (fio backend.c `exceeds_number_ios` sums the
/// completed blocks of every direction): 16 units are 8 writes and their 8 verifies. Verified
/// only at the end, the job would write 16.
#[test]
fn number_ios_counts_the_verify_reads() {
    for (backlog, batch, n) in [("4", "0", "16"), ("4", "2", "12"), ("3", "1", "10")] {
        let b = format!("--verify_backlog={backlog}");
        let bb = format!("--verify_backlog_batch={batch}");
        let nn = format!("--number_ios={n}");
        let Some(j) = same_jobs_and_exit(&[
            "--name=w",
            "--ioengine=psync",
            "--filename=nf",
            "--size=256k",
            "--rw=write",
            "--verify=md5",
            &b,
            &bb,
            &nn,
            "--output-format=json",
        ]) else {
            return;
        };
        if (backlog, n) == ("4", "16") {
            assert_eq!(j, [("w".to_string(), 0, 8, 8)]);
        }
    }
}

/// A time-bound write job verifies what it writes along the way (without a backlog fio
/// warns that the verify phase never starts and reads nothing): reads trail writes by less
/// than one backlog.
#[test]
fn a_time_based_writer_verifies_along_the_way() {
    let Some((f, i)) = both(&[
        "--name=t",
        "--ioengine=psync",
        "--filename=tf",
        "--size=1m",
        "--rw=randwrite",
        "--verify=crc32c",
        "--verify_backlog=8",
        "--time_based",
        "--runtime=1",
        "--output-format=json",
    ]) else {
        return;
    };
    for (who, o) in [("fio", &f), ("iolab", &i)] {
        assert_eq!(o.status.code(), Some(0), "{who}: {}", String::from_utf8_lossy(&o.stderr));
        let (_, err, reads, writes) = jobs(o)[0].clone();
        assert_eq!(err, 0, "{who}");
        assert!(writes > 256, "{who}: more than one pass in a second: {writes}");
        assert!(reads <= writes && reads + 8 >= writes, "{who}: reads {reads}, writes {writes}");
    }
}
