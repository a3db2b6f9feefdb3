//! Hostile probes of iolab's many-host transport (family "server", issue 29): the flags of
//! `iolab run --client`, `iolab server` and fio's `--client`/`--server` (ports zero, negative
//! and huge; timeouts zero, negative, NaN and huge; the secret file as a FIFO, a symlink, a
//! device, a directory, group-readable, missing; hostfiles with garbage), and, in
//! [`hostile_frames`], bytes thrown at a live server: oversized lengths, binary garbage,
//! truncated frames, the wrong version, the wrong message, bad nonces, each refused or closed
//! before any job, the server still serving a real client after all of them.

use super::runner::{Oracle, Prep, Probe};
use crate::server::{bounded, secret, Server};
use iolab_remote::auth::{client_handshake, Secret};
use iolab_remote::proto::{read_msg, write_msg, Msg, MAX_FRAME};
use std::io::Write;
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

fn err(needles: &[&str]) -> Oracle {
    Oracle::Err(needles.iter().map(|s| s.to_string()).collect())
}

const JOB: &[&str] = &["run", "--name=x", "--ioengine=null", "--size=1m"];

/// `iolab run JOB --client=… ARGS` with a secret file that may not exist (`{W}/s`).
fn client(name: &str, args: &[&str], o: Oracle) -> Probe {
    let mut a = JOB.to_vec();
    a.extend_from_slice(args);
    Probe::new("server", name, &a, o)
}

fn flag_probes() -> Vec<Probe> {
    let c = "--client=127.0.0.1:1";
    let s = "--secret-file={W}/s";
    let port = |p: &str| format!("--client=127.0.0.1:{p}");
    let mut v = Vec::new();
    for p in ["0", "65536", "-1", "99999999999999999999", "", "x"] {
        let a = port(p);
        v.push(client(&format!("--client port '{p}'"), &[&a, s], err(&["--client", "port"])));
    }
    v.push(client("empty --client", &["--client=", s], err(&["--client"])));
    v.push(client("empty host in the list", &["--client=a,,b", s], err(&["--client"])));
    v.push(client("ssh:// without a host", &["--client=ssh://", s], err(&["--client", "ssh"])));
    v.push(client("--client without --secret-file", &[c], err(&["--secret-file"])));
    v.push(client("--secret-file without --client", &[s], err(&["--secret-file", "--client"])));
    for t in ["0", "-1", "nan", "inf", "1e300", "abc", "0ms", "86401"] {
        let a = format!("--host-timeout={t}");
        v.push(client(&format!("--host-timeout={t}"), &[c, s, &a], err(&["--host-timeout"])));
    }
    v.push(client(
        "--on-host-loss=maybe",
        &[c, s, "--on-host-loss=maybe"],
        err(&["--on-host-loss"]),
    ));
    v.push(client("--client twice", &[c, c, s], err(&["--client", "twice"])));
    v.push(client(
        "terse with --client",
        &[c, s, "--output-format=terse"],
        err(&["--output-format"]),
    ));
    let huge = "9".repeat(400);
    for t in ["0", "-1", "nan", "NaN", "inf", "1e300", "abc", "", &huge] {
        let a = format!("--status-interval={t}");
        let name = format!("--status-interval={:.12} with --client", t);
        v.push(client(&name, &[c, s, &a], err(&["--status-interval", "!\u{1b}"])));
    }
    for (t, i) in [("1", "2"), ("2", "2"), ("500ms", "0.5")] {
        let (ta, ia) = (format!("--host-timeout={t}"), format!("--status-interval={i}"));
        v.push(client(
            &format!("--host-timeout={t} not above --status-interval={i}"),
            &[c, s, &ta, &ia],
            err(&["--host-timeout", "--status-interval"]),
        ));
    }
    v
}

fn secret_probes() -> Vec<Probe> {
    let c = "--client=127.0.0.1:1";
    let mut v = vec![
        client(
            "secret file missing",
            &[c, "--secret-file={W}/none"],
            err(&["secret file", "none"]),
        ),
        client(
            "secret file is a FIFO",
            &[c, "--secret-file={W}/fifo"],
            err(&["secret file", "not a regular file"]),
        )
        .prep(Prep::Fifo("fifo")),
        client(
            "secret file is a symlink",
            &[c, "--secret-file={W}/link"],
            err(&["secret file", "symbolic link"]),
        )
        .prep(Prep::File("real", b"0123456789abcdef0123".to_vec()))
        .prep(Prep::Symlink("link", "real")),
        client(
            "secret file is a directory",
            &[c, "--secret-file={W}/d"],
            err(&["secret file", "not a regular file"]),
        )
        .prep(Prep::Dir("d")),
        client(
            "secret file group-readable",
            &[c, "--secret-file={W}/g"],
            err(&["secret file", "chmod 600"]),
        )
        .prep(Prep::File("g", b"0123456789abcdef0123".to_vec())),
        Probe::new(
            "server",
            "server: secret file is a FIFO",
            &["server", "--listen=127.0.0.1:0", "--secret-file={W}/fifo"],
            err(&["secret file", "not a regular file"]),
        )
        .prep(Prep::Fifo("fifo")),
        Probe::new(
            "server",
            "server: no --secret-file",
            &["server", "--listen=127.0.0.1:0"],
            err(&["--secret-file"]),
        ),
    ];
    if iolab_test_support::is_root() {
        v.push(
            client(
                "secret file is a char device",
                &[c, "--secret-file={W}/zero"],
                err(&["secret file", "not a regular file"]),
            )
            .prep(Prep::CharDev("zero", 1, 5)),
        );
    } else {
        println!("skip: the secret-file-as-device probe needs root (mknod)");
    }
    v
}

fn listen_and_hostfile_probes() -> Vec<Probe> {
    let mut v = Vec::new();
    for l in
        ["127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:99999999999", "", "[::1", "no such host:1"]
    {
        let a = format!("--listen={l}");
        let args = ["server", a.as_str(), "--secret-file={W}/s"];
        v.push(Probe::new("server", format!("--listen='{l}'"), &args, err(&["--listen"])));
    }
    let hf = "--client={W}/hosts";
    let s = "--secret-file={W}/s";
    for (name, text, needle) in [
        ("hostfile option without --", &b"127.0.0.1:1 size=1m\n"[..], "not an --option"),
        ("hostfile port 0", b"127.0.0.1:0\n", "port"),
        ("hostfile of comments only", b"# none\n\n", "names no host"),
        ("hostfile of binary garbage", b"\xff\xfe\x00\x01garbage\x80\n", "hostfile"),
    ] {
        v.push(
            client(name, &[hf, s], err(&["--client", needle]))
                .prep(Prep::File("hosts", text.to_vec())),
        );
    }
    let fio = |name: &str, args: &[&str], o| {
        let mut a = vec!["fio"];
        a.extend_from_slice(args);
        Probe::new("server", name, &a, o)
    };
    v.push(fio(
        "fio --client without --secret-file",
        &["--name=x", "--ioengine=null", "--size=1m", "--client=127.0.0.1:1"],
        err(&["--secret-file"]),
    ));
    v.push(fio("fio --server without --secret-file", &["--server"], err(&["--secret-file"])));
    v.push(fio(
        "fio --server port 65536",
        &["--server=127.0.0.1:65536", "--secret-file={W}/s"],
        err(&["65536"]),
    ));
    v
}

/// `iolab server --state-dir=…` that is not a private directory of this user.
fn state_dir_probes() -> Vec<Probe> {
    let srv = |name: &str, dir: &str, needle: &str| {
        let a = format!("--state-dir={dir}");
        let args = ["server", "--listen=127.0.0.1:0", "--secret-file={W}/none", a.as_str()];
        Probe::new("server", name, &args, err(&["--state-dir", needle]))
    };
    vec![
        srv("--state-dir empty", "", "value"),
        srv("--state-dir a file", "{W}/f", "not a directory").prep(Prep::File("f", b"x".to_vec())),
        srv("--state-dir a symlink", "{W}/l", "not a directory")
            .prep(Prep::Dir("d"))
            .prep(Prep::Symlink("l", "d")),
        srv("--state-dir open to others", "{W}/o", "chmod 700").prep(Prep::Dir("o")),
        srv("--state-dir under a file", "{W}/f/x", "not a directory")
            .prep(Prep::File("f", b"x".to_vec())),
    ]
}

/// The flag and secret-file probes, run by the harness.
pub fn probes() -> Vec<Probe> {
    let mut v = flag_probes();
    v.extend(state_dir_probes());
    v.extend(secret_probes());
    v.extend(listen_and_hostfile_probes());
    v
}

/// What a live server did with one probe's bytes.
fn answer(stream: &TcpStream) -> String {
    let mut r = stream;
    match read_msg(&mut r, MAX_FRAME, "srv", "") {
        Ok(Msg::Refused { why }) => format!("refused: {why}"),
        Ok(Msg::Challenge { .. }) => match read_msg(&mut r, MAX_FRAME, "srv", "") {
            Ok(Msg::Refused { why }) => format!("refused after the challenge: {why}"),
            Ok(m) => format!("ANSWERED {}", m.name()),
            Err(_) => "closed after the challenge".into(),
        },
        Ok(m) => format!("ANSWERED {}", m.name()),
        Err(_) => "closed".into(),
    }
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut f = (body.len() as u32).to_be_bytes().to_vec();
    f.extend_from_slice(body);
    f
}

/// Probes of the wire before the proof: name, bytes.
fn wire_cases() -> Vec<(&'static str, Vec<u8>)> {
    let garbage: Vec<u8> =
        (0..256u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let nonce = "ab".repeat(32);
    vec![
        ("length 2^32-1", vec![0xff; 4]),
        ("length over the 4 KiB pre-proof limit", 4097u32.to_be_bytes().to_vec()),
        ("zero-length frame", frame(b"")),
        ("binary garbage", garbage),
        ("truncated frame", [100u32.to_be_bytes().to_vec(), b"{\"hello\"".to_vec()].concat()),
        ("valid JSON, not a message", frame(b"{\"x\":1}")),
        ("ping before the hello", frame(b"{\"ping\":{\"t0\":1}}")),
        ("a job before the hello", frame(br#"{"job":{"args":["--name=x"],"files":[]}}"#)),
        (
            "wrong version",
            frame(format!(r#"{{"hello":{{"version":1,"nonce":"{nonce}"}}}}"#).as_bytes()),
        ),
        ("nonce not hex", frame(r#"{"hello":{"version":2,"nonce":"zz"}}"#.as_bytes())),
        ("nonce too short", frame(r#"{"hello":{"version":2,"nonce":"abcd"}}"#.as_bytes())),
        (
            "a job instead of the proof",
            [
                frame(format!(r#"{{"hello":{{"version":2,"nonce":"{nonce}"}}}}"#).as_bytes()),
                frame(br#"{"job":{"args":["--name=x"],"files":[]}}"#),
            ]
            .concat(),
        ),
        (
            "a proof of 5000 bytes",
            [
                frame(format!(r#"{{"hello":{{"version":2,"nonce":"{nonce}"}}}}"#).as_bytes()),
                frame(format!(r#"{{"proof":{{"proof":"{}"}}}}"#, "0".repeat(5000)).as_bytes()),
            ]
            .concat(),
        ),
    ]
}

/// Bytes thrown at a live server: every probe is refused or closed before any job, and the
/// server still serves a real client afterwards.
#[test]
fn hostile_frames() {
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "hostile frames secret, 32 bytes.");
    let srv = Server::start("127.0.0.2", &s, &[]);
    let mut bad = Vec::new();
    for (name, bytes) in wire_cases() {
        let t = TcpStream::connect(&srv.addr).unwrap();
        t.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
        let _ = (&t).write_all(&bytes);
        let _ = t.shutdown(Shutdown::Write);
        let got = answer(&t);
        println!("server   {name:<45} {got}");
        if got.starts_with("ANSWERED") {
            bad.push(format!("{name}: {got}"));
        }
    }
    for (name, got) in after_proof(&srv.addr, &Secret::from_file(&s).unwrap()) {
        println!("server   {name:<45} {got}");
        if !got.starts_with("failed") && !got.starts_with("closed") {
            bad.push(format!("{name}: {got}"));
        }
    }
    std::thread::sleep(Duration::from_millis(300));
    let log = srv.log();
    assert!(!log.contains("running"), "a probe ran a job:\n{log}");
    assert!(log.matches("refused before any job").count() >= wire_cases().len(), "{log}");
    assert!(bad.is_empty(), "{bad:?}");
    let job = ["--name=ok", "--ioengine=null", "--size=1m", "--output-format=json"];
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"));
    c.arg("run")
        .args(job)
        .arg(format!("--client={}", srv.addr))
        .arg(format!("--secret-file={}", s.display()));
    let (o, _) = bounded(c, Duration::from_secs(30));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// After a good proof: an oversized frame and a start with no job.
fn after_proof(addr: &str, key: &Secret) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for (name, bytes) in [
        ("after the proof: length 2^32-1", vec![0xff; 4]),
        ("after the proof: start with no job", frame(br#"{"start":{"at_ns":0}}"#)),
        ("after the proof: garbage", frame(b"\x00\x01\x02 not json")),
    ] {
        let t = TcpStream::connect(addr).unwrap();
        t.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
        let mut r = &t;
        let mut recv = |max: u32, when: &str| read_msg(&mut r, max, "srv", when);
        client_handshake(&mut recv, &mut &t, key, "srv").unwrap();
        let _ = (&t).write_all(&bytes);
        let mut r = &t;
        let got = match read_msg(&mut r, MAX_FRAME, "srv", "") {
            Ok(Msg::Failed { why }) => format!("failed: {why}"),
            Ok(m) => format!("ANSWERED {}", m.name()),
            Err(_) => "closed".into(),
        };
        out.push((name, got));
        let _ = write_msg(&mut &t, &Msg::Ping { t0: 0 }, "srv");
    }
    out
}

/// A well-formed interval of one job: `ios` reads, `total` so far, all at 100 ns.
fn interval(seq: u32, ios: u64, total: u64) -> iolab_stats::hosts::delta::HostInterval {
    use iolab_stats::hosts::delta::{DirDelta, HostInterval, JobDelta, LatDelta};
    let n = u128::from(ios);
    let clat = LatDelta {
        n: ios,
        sum: n * 100,
        sum_sq: n * 10_000,
        min: 100,
        max: 100,
        buckets: vec![(100, ios)],
    };
    let read = DirDelta { ios, bytes: ios * 4096, total_ios: total, clat, ..Default::default() };
    let mut job = JobDelta { name: "x".into(), ..Default::default() };
    job.dirs[0] = read;
    HostInterval {
        seq,
        end_ns: u64::from(seq) * 500_000_000,
        jobs: vec![job],
        ..Default::default()
    }
}

fn interval_frame(d: iolab_stats::hosts::delta::HostInterval) -> Vec<u8> {
    let mut v = Vec::new();
    write_msg(&mut v, &Msg::Interval { delta: Box::new(d) }, "fake").unwrap();
    v
}

/// What a fake server sends after the start, and what the client must say of it.
fn interval_cases() -> Vec<(&'static str, Vec<Vec<u8>>, &'static str)> {
    let ok = || interval_frame(interval(1, 10, 10));
    let mut bad_buckets = interval(2, 5, 15);
    bad_buckets.jobs[0].dirs[0].clat.buckets = vec![(100, 9)];
    let mut unordered = interval(2, 5, 15);
    unordered.jobs[0].dirs[0].clat.buckets = vec![(200, 2), (100, 3)];
    let mut done = iolab_stats::RunResult::default();
    let mut job = iolab_stats::JobResult { name: "x".into(), ..Default::default() };
    job.read.total_ios = 11;
    done.jobs.push(job);
    let mut done_frame = Vec::new();
    let msg = Msg::Done { result: Box::new(done), start_skew_ns: 0, interval_file: None };
    write_msg(&mut done_frame, &msg, "fake").unwrap();
    vec![
        ("counts going backwards", vec![ok(), interval_frame(interval(2, 0, 5))], "do not add up"),
        ("an interval repeated", vec![ok(), ok()], "interval 1 arrived after interval 1"),
        ("an interval skipped", vec![ok(), interval_frame(interval(3, 1, 11))], "arrived after"),
        (
            "buckets not summing to the count",
            vec![ok(), interval_frame(bad_buckets)],
            "buckets hold 9",
        ),
        ("buckets out of order", vec![ok(), interval_frame(unordered)], "out of order"),
        ("an oversized interval frame", vec![ok(), vec![0xff; 4]], "over the limit"),
        (
            "a malformed interval frame",
            vec![ok(), frame(br#"{"interval":{"delta":7}}"#)],
            "malformed",
        ),
        ("binary garbage as an interval", vec![ok(), frame(b"\x00\xff garbage")], "malformed"),
        ("a result that is not the sum of its intervals", vec![ok(), done_frame], "not the sum"),
    ]
}

/// A server that proves itself, takes the job, and after the start sends `script`.
fn fake_server(key: Secret, script: Vec<Vec<u8>>) -> (String, std::thread::JoinHandle<()>) {
    use iolab_remote::auth::server_handshake;
    use iolab_remote::proto::now_ns;
    let l = std::net::TcpListener::bind("127.0.0.2:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let h = std::thread::spawn(move || {
        let (t, _) = l.accept().unwrap();
        t.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let (mut r, mut w) = (&t, &t);
        server_handshake(&mut r, &mut w, &key, "fake").unwrap();
        loop {
            match read_msg(&mut r, MAX_FRAME, "fake", "") {
                Ok(Msg::Ping { t0 }) => {
                    let pong = Msg::Pong { t0, t1: now_ns(), t2: now_ns() };
                    write_msg(&mut w, &pong, "fake").unwrap();
                }
                Ok(Msg::Job { .. }) => write_msg(&mut w, &Msg::Ready, "fake").unwrap(),
                Ok(Msg::Start { .. }) => {
                    for b in &script {
                        let _ = w.write_all(b);
                        std::thread::sleep(Duration::from_millis(100));
                    }
                    // Then silence until the client hangs up.
                    let _ = read_msg(&mut r, MAX_FRAME, "fake", "");
                    return;
                }
                _ => return,
            }
        }
    });
    (addr, h)
}

/// A server whose intervals do not add up (or do not read) is lost, named with the reason;
/// the other host's numbers and intervals are intact and the lost host's bad interval is in
/// no sum.
#[test]
fn hostile_interval_frames() {
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "hostile intervals secret, 32 b..");
    let st = format!("--state-dir={}", dir.path().join("state").display());
    let real = Server::start("127.0.0.3", &s, &[&st]);
    let key = Secret::from_file(&s).unwrap();
    let job = [
        "--name=x",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=1m",
        "--time_based",
        "--runtime=1",
        "--rate_iops=2000",
        "--status-interval=0.5",
        "--host-timeout=3",
        "--output-format=json+",
    ];
    let mut bad = Vec::new();
    for (name, script, needle) in interval_cases() {
        let (fake, h) = fake_server(key.clone(), script);
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"));
        c.arg("run").args(job).arg(format!("--client={fake},{}", real.addr));
        c.arg(format!("--secret-file={}", s.display()));
        let (o, _) = bounded(c, Duration::from_secs(60));
        let _ = h.join();
        let err = String::from_utf8_lossy(&o.stderr);
        let lost_line =
            format!("host 127.0.0.2:{} (rank 0) lost", fake.rsplit(':').next().unwrap());
        let doc: serde_json::Value = match serde_json::Deserializer::from_slice(&o.stdout)
            .into_iter::<serde_json::Value>()
            .last()
        {
            Some(Ok(d)) => d,
            _ => {
                bad.push(format!("{name}: no document: {err}"));
                continue;
            }
        };
        let rows = doc["iolab_intervals"].as_array().cloned().unwrap_or_default();
        let host_sum = |h: usize| -> u64 {
            rows.iter().map(|r| r["hosts"][h]["ios"][0].as_u64().unwrap()).sum()
        };
        let survivor = doc["client_stats"][0]["read"]["total_ios"].as_u64().unwrap_or(0);
        let ok = o.status.code() == Some(1)
            && err.contains(&lost_line)
            && err.contains(needle)
            && doc["iolab_partial"] == true
            && doc["iolab_lost_hosts"][0]["reason"].as_str().is_some_and(|r| r.contains(needle))
            && doc["client_stats"].as_array().map(Vec::len) == Some(1)
            && survivor > 0
            && host_sum(1) == survivor
            && host_sum(0) == 10;
        println!("interval {name:<45} {}", if ok { "refused, host named" } else { "WRONG" });
        if !ok {
            bad.push(format!(
                "{name}: exit {:?}, fake's rows {}, survivor {survivor} vs {}: {err}",
                o.status.code(),
                host_sum(0),
                host_sum(1)
            ));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}
