//! `iolab server` and `iolab run --client` (issue 29, "Many hosts, one result", the server
//! part): two servers on 127.0.0.2 and 127.0.0.3 give one fio client document; a wrong
//! secret and a replayed handshake are refused before any job is read; a server without
//! --allow-destroy writes no block device whatever the client asks; a host killed or stopped
//! mid-run is named in a partial document; two clients at once are served one after the
//! other; `--stdio` speaks the same protocol. Every wait is bounded; traffic stays on
//! loopback.
#![allow(clippy::unwrap_used)]

use iolab_test_support::{empty_stdin, LoopDev};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn iolab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_iolab"))
}

/// A secret file (mode 0600) named `name` in `dir`.
pub fn secret(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
    p
}

/// A running `iolab server`, its address, and its stderr lines as they come; killed on drop.
pub struct Server {
    pub child: Child,
    pub addr: String,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// Start on `ip` with a free port; wait (at most 20 s) for its "listening on" line.
    pub fn start(ip: &str, secret: &Path, extra: &[&str]) -> Server {
        let mut cmd = iolab();
        cmd.arg("server").args(extra);
        Server::spawn(cmd, &format!("--listen={ip}:0"), secret)
    }

    /// `cmd` (an `iolab server` command line, perhaps wrapped) with `listen` and the secret.
    fn spawn(mut cmd: Command, listen: &str, secret: &Path) -> Server {
        let mut child = cmd
            .arg(listen)
            .arg(format!("--secret-file={}", secret.display()))
            .stdin(empty_stdin().unwrap())
            .stdout(iolab_test_support::sink().unwrap())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let err = child.stderr.take().unwrap();
        // Owned by the server at once: its drop kills and reaps the child on every path.
        let mut srv = Server { child, addr: String::new(), log: log.clone() };
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                log.lock().unwrap().push(line);
            }
        });
        let t0 = Instant::now();
        loop {
            let found = srv.log.lock().unwrap().iter().find_map(|l| {
                l.strip_prefix("iolab server: listening on ")
                    .map(|r| r.split(' ').next().unwrap().to_string())
            });
            if let Some(addr) = found {
                srv.addr = addr;
                return srv;
            }
            assert!(t0.elapsed() < Duration::from_secs(20), "server did not start: {}", srv.log());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    pub fn signal(&self, sig: i32) {
        // SAFETY: kill(2) on our own child's pid, which has not been reaped.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, sig) }, 0);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.signal(libc::SIGCONT);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Run `cmd` to the end, killing it after `limit`.
pub fn bounded(mut cmd: Command, limit: Duration) -> (Output, Duration) {
    let t0 = Instant::now();
    let mut child = cmd
        .stdin(empty_stdin().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let o = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut v).unwrap();
        v
    });
    let e = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut v).unwrap();
        v
    });
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            let _ = child.kill();
            panic!("{cmd:?} ran over {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = child.wait().unwrap();
    let output = Output { status, stdout: o.join().unwrap(), stderr: e.join().unwrap() };
    (output, t0.elapsed())
}

fn client(hosts: &str, secret: &Path, job: &[&str]) -> Command {
    let mut c = iolab();
    c.arg("run").args(job).arg(format!("--client={hosts}"));
    c.arg(format!("--secret-file={}", secret.display()));
    c
}

const NULL_JOB: &[&str] = &[
    "--name=n",
    "--ioengine=null",
    "--rw=randread",
    "--bs=4k",
    "--size=64m",
    "--output-format=json+",
];

fn entries(doc: &Value) -> Vec<&Value> {
    doc["client_stats"].as_array().unwrap().iter().collect()
}

/// The json+ completion-latency bins of an entry, as (ns, count).
fn bins(e: &Value) -> std::collections::BTreeMap<u64, u64> {
    let b = e["read"]["clat_ns"]["bins"].as_object().unwrap();
    b.iter().map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap())).collect()
}

#[test]
fn two_servers_give_one_client_document_with_exact_all_clients() {
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "a shared secret of some length\n");
    let (a, b) = (Server::start("127.0.0.2", &s, &[]), Server::start("127.0.0.3", &s, &[]));
    let hosts = format!("{},{}", a.addr, b.addr);
    let (o, took) = bounded(client(&hosts, &s, NULL_JOB), Duration::from_secs(60));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}\n{}\n{}", a.log(), b.log());
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let e = entries(&doc);
    let names: Vec<(&str, &str)> = e
        .iter()
        .map(|e| (e["jobname"].as_str().unwrap(), e["hostname"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [("n", "127.0.0.2"), ("n", "127.0.0.3"), ("All clients", "127.0.0.3")]);
    let port = |x: &Server| x.addr.rsplit(':').next().unwrap().parse::<u64>().unwrap();
    assert_eq!(e[0]["port"], port(&a));
    assert_eq!(e[1]["port"], port(&b));
    // 64 MiB in 4 KiB reads on each host; All clients is the exact sum, bins included.
    let ios: Vec<u64> = e.iter().map(|e| e["read"]["total_ios"].as_u64().unwrap()).collect();
    assert_eq!(ios, [16384, 16384, 32768]);
    let mut sum = bins(e[0]);
    for (k, v) in bins(e[1]) {
        *sum.entry(k).or_default() += v;
    }
    assert_eq!(bins(e[2]), sum);
    assert_eq!(sum.values().sum::<u64>(), 32768);
    let extras = doc["iolab_hosts"].as_array().unwrap();
    assert_eq!(extras.len(), 2);
    for (rank, x) in extras.iter().enumerate() {
        assert_eq!(x["rank"], rank as u64);
        let skew = x["start_skew_ns"].as_i64().unwrap();
        assert!((0..1_000_000_000).contains(&skew), "start skew {skew} ns");
        assert!(x["clock_offset_ns"].as_i64().unwrap().abs() < 1_000_000_000);
    }
    assert!(doc.get("iolab_partial").is_none());
    println!("two hosts in {:.3} s; {}", took.as_secs_f64(), err.trim());
    assert!(a.log().contains("authenticated") && b.log().contains("job done"));
}

#[test]
fn a_wrong_secret_is_refused_before_any_job_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "the server's secret, 32 bytes..");
    let wrong = secret(dir.path(), "wrong", "not the server's secret at all!!");
    let srv = Server::start("127.0.0.2", &s, &[]);
    let (o, _) = bounded(client(&srv.addr, &wrong, NULL_JOB), Duration::from_secs(30));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("authentication failed"), "{err}");
    assert!(o.stdout.is_empty());
    std::thread::sleep(Duration::from_millis(300));
    let log = srv.log();
    assert!(log.contains("refused before any job"), "{log}");
    assert!(!log.contains("authenticated") && !log.contains("running"), "{log}");
}

/// A recording of a real client's bytes, sent again on a new connection: the server's
/// fresh nonce makes the recorded proof wrong, and nothing after it is read.
#[test]
fn a_replayed_handshake_is_refused() {
    use iolab_remote::auth::{client_handshake, Secret};
    use iolab_remote::proto::{read_msg, write_msg, Msg, MAX_FRAME};
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "replay me if you can, 32 bytes.");
    let srv = Server::start("127.0.0.2", &s, &[]);
    let key = Secret::from_file(&s).unwrap();
    let tcp = std::net::TcpStream::connect(&srv.addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut tee = Tee { tcp: &tcp, copy: Vec::new() };
    let mut r = &tcp;
    let mut recv = |max: u32, when: &str| read_msg(&mut r, max, "srv", when);
    client_handshake(&mut recv, &mut tee, &key, "srv").unwrap();
    let recorded = tee.copy;
    let replay = std::net::TcpStream::connect(&srv.addr).unwrap();
    replay.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    (&replay).write_all(&recorded).unwrap();
    let job = Msg::Job { args: vec!["--name=x".into()], files: vec![], interval_ns: 0 };
    let _ = write_msg(&mut &replay, &job, "srv");
    let mut r = &replay;
    assert!(matches!(read_msg(&mut r, MAX_FRAME, "srv", "").unwrap(), Msg::Challenge { .. }));
    match read_msg(&mut r, MAX_FRAME, "srv", "").unwrap() {
        Msg::Refused { why } => assert!(why.contains("authentication failed"), "{why}"),
        m => panic!("{m:?}"),
    }
    // Then the server hangs up: the job frame was never read.
    assert!(read_msg(&mut r, MAX_FRAME, "srv", "").is_err());
    std::thread::sleep(Duration::from_millis(300));
    let log = srv.log();
    assert!(log.contains("refused before any job") && !log.contains("running"), "{log}");
    drop(tcp);
}

/// A writer to the server that keeps a copy of every byte.
struct Tee<'a> {
    tcp: &'a std::net::TcpStream,
    copy: Vec<u8>,
}

impl Write for Tee<'_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let n = (&mut &*self.tcp).write(b)?;
        self.copy.extend_from_slice(&b[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_server_without_allow_destroy_never_writes_a_block_device() {
    let Some(lo) = iolab_test_support::or_skip(LoopDev::new_sized(8 << 20)) else { return };
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "device guard secret, 32 bytes..");
    let srv = Server::start("127.0.0.2", &s, &[]);
    let dev = format!("--filename={}", lo.device().display());
    let write = ["--name=w", "--ioengine=psync", "--rw=write", "--bs=4k", "--size=1m", &dev];
    for asks in [true, false] {
        let mut job = write.to_vec();
        if asks {
            job.push("--allow-destroy");
        }
        let (o, _) = bounded(client(&srv.addr, &s, &job), Duration::from_secs(30));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "asks={asks}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("refused") && err.contains("not started with --allow-destroy"),
            "{err}"
        );
    }
    let bytes = std::fs::read(lo.backing()).unwrap();
    assert!(bytes.iter().all(|&b| b == 0), "the device was written");
}

/// The survivor's numbers, the lost host named, the document marked partial.
fn assert_partial(doc: &Value, survivor: &str, lost: &Server) {
    let e = entries(doc);
    assert_eq!(e.len(), 1, "{doc}");
    assert_eq!(e[0]["hostname"], survivor);
    assert!(e[0]["read"]["total_ios"].as_u64().unwrap() > 0);
    assert_eq!(doc["iolab_partial"], true);
    let l = &doc["iolab_lost_hosts"][0];
    assert_eq!(l["hostname"], "127.0.0.3");
    assert_eq!(l["port"], lost.addr.rsplit(':').next().unwrap().parse::<u64>().unwrap());
    assert_eq!(l["rank"], 1);
}

const TIMED: &[&str] = &[
    "--name=t",
    "--ioengine=null",
    "--rw=randread",
    "--bs=4k",
    "--size=64m",
    "--time_based",
    "--runtime=4",
    "--output-format=json",
];

#[test]
fn a_server_killed_mid_run_gives_a_partial_document_and_a_non_zero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "kill test secret of 32 bytes....");
    let (a, b) = (Server::start("127.0.0.2", &s, &[]), Server::start("127.0.0.3", &s, &[]));
    let mut cmd = client(&format!("{},{}", a.addr, b.addr), &s, TIMED);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(empty_stdin().unwrap());
    let child = cmd.spawn().unwrap();
    std::thread::sleep(Duration::from_secs(2));
    b.signal(libc::SIGKILL);
    let t0 = Instant::now();
    let o = wait_output(child, Duration::from_secs(30));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("host 127.0.0.3:{} (rank 1) lost", port(&b))), "{err}");
    assert!(err.contains("partial"), "{err}");
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_partial(&doc, "127.0.0.2", &b);
    // The survivor ran its whole 4 s.
    assert!(doc["client_stats"][0]["job_runtime"].as_u64().unwrap() >= 3900, "{doc}");
    assert!(t0.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_stopped_server_times_out_and_continue_still_marks_the_document() {
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "stop test secret of 32 bytes....");
    let (a, b) = (Server::start("127.0.0.2", &s, &[]), Server::start("127.0.0.3", &s, &[]));
    let mut cmd = client(&format!("{},{}", a.addr, b.addr), &s, TIMED);
    cmd.args(["--host-timeout=1.5", "--on-host-loss=continue"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(empty_stdin().unwrap());
    let child = cmd.spawn().unwrap();
    std::thread::sleep(Duration::from_secs(1));
    b.signal(libc::SIGSTOP);
    let o = wait_output(child, Duration::from_secs(30));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("no frame for 1.5 s awaiting the result"), "{err}");
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_partial(&doc, "127.0.0.2", &b);
    assert!(doc["iolab_lost_hosts"][0]["reason"].as_str().unwrap().contains("no frame for 1.5 s"));
}

fn port(s: &Server) -> &str {
    s.addr.rsplit(':').next().unwrap()
}

fn wait_output(mut child: Child, limit: Duration) -> Output {
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            let _ = child.kill();
            panic!("the client ran over {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Two clients at once on one server: served one after the other, each document holding its
/// own job only.
#[test]
fn two_clients_at_once_are_served_in_turn_never_mixed() {
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "two clients secret, 32 bytes....");
    let srv = Server::start("127.0.0.2", &s, &[]);
    let job = |name: &str, size: &str| {
        let mut c = client(&srv.addr, &s, &[]);
        c.args([&format!("--name={name}"), "--ioengine=null", "--rw=randread", "--bs=4k"]);
        c.args([&format!("--size={size}"), "--rate_iops=4000", "--output-format=json"]);
        c
    };
    let t0 = Instant::now();
    let (one, two) = (job("first", "4m"), job("second", "8m"));
    let h1 = std::thread::spawn(move || bounded(one, Duration::from_secs(60)).0);
    let h2 = std::thread::spawn(move || bounded(two, Duration::from_secs(60)).0);
    let (o1, o2) = (h1.join().unwrap(), h2.join().unwrap());
    let took = t0.elapsed();
    for (o, name, ios) in [(&o1, "first", 1024), (&o2, "second", 2048)] {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        let e = entries(&doc);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0]["jobname"], name);
        assert_eq!(e[0]["read"]["total_ios"], ios);
    }
    // 1024 and 2048 I/Os at 4000 IOPS: 0.26 s and 0.51 s, one after the other.
    assert!(srv.log().contains("queued behind another client's job"), "{}", srv.log());
    assert!(took >= Duration::from_millis(700), "{took:?}");
}

/// `iolab server --stdio`, as `ssh host iolab server --stdio` runs it: the same protocol on
/// stdin/stdout, nothing else on stdout.
#[test]
fn stdio_speaks_the_same_protocol() {
    use iolab_remote::auth::Secret;
    use iolab_remote::client::Session;
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "stdio secret of at least 16 b");
    let mut child = iolab()
        .args(["server", "--stdio", &format!("--secret-file={}", s.display())])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(iolab_test_support::sink().unwrap())
        .spawn()
        .unwrap();
    let (w, r) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
    let mut session = Session::over(Box::new(r), Box::new(w), "stdio", Duration::from_secs(20));
    session.handshake(&Secret::from_file(&s).unwrap()).unwrap();
    let args: Vec<String> = ["--name=s", "--ioengine=null", "--rw=read", "--bs=64k", "--size=8m"]
        .iter()
        .map(|a| a.to_string())
        .collect();
    session.prepare(&args, &[], 0).unwrap();
    session.start(iolab_remote::proto::now_ns() + 50_000_000).unwrap();
    let done = session.finish(&|_| ()).unwrap();
    let (result, skew) = (done.result, done.start_skew_ns);
    assert_eq!(result.jobs.len(), 1);
    assert_eq!(result.jobs[0].read.total_ios, 128);
    assert!(skew >= 0, "{skew}");
    drop(session);
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(t0.elapsed() < Duration::from_secs(10), "--stdio did not end at EOF");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A hostfile line's options go to its host only and through the local checks there.
#[test]
fn a_hostfile_gives_each_host_its_own_options() {
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "hostfile secret of 32 bytes.....");
    let (a, b) = (Server::start("127.0.0.2", &s, &[]), Server::start("127.0.0.3", &s, &[]));
    let hf = dir.path().join("hosts");
    std::fs::write(&hf, format!("# two hosts\n{} --size=4m\n{} --size=8m\n", a.addr, b.addr))
        .unwrap();
    let job = ["--name=h", "--ioengine=null", "--rw=read", "--bs=4k", "--output-format=json"];
    let (o, _) = bounded(client(hf.to_str().unwrap(), &s, &job), Duration::from_secs(60));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let ios: Vec<u64> =
        entries(&doc).iter().map(|e| e["read"]["total_ios"].as_u64().unwrap()).collect();
    assert_eq!(ios, [1024, 2048, 3072]);
    std::fs::write(&hf, format!("{} --bogus-option=1\n", a.addr)).unwrap();
    let (o, _) = bounded(client(hf.to_str().unwrap(), &s, &job), Duration::from_secs(60));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("refused") && err.contains("bogus-option"), "{err}");
}

/// A network namespace joined to this one by a veth pair, deleted on drop (which removes the
/// pair too). Traffic goes only to the namespace this test made.
struct NetNs {
    name: String,
    host_if: String,
    peer_ip: String,
}

impl NetNs {
    fn new() -> Result<NetNs, String> {
        if !iolab_test_support::is_root() {
            return Err("network namespaces need root".into());
        }
        let ip = iolab_test_support::which("ip").ok_or("no `ip` (iproute2)")?;
        let id = std::process::id() % 60_000;
        let (a, b) = (id / 250 % 250, id % 250);
        let net = format!("10.{}.{a}", 200 + b % 50);
        let host_ip = format!("{net}.1");
        let ns = NetNs {
            name: format!("iolab-t{id}"),
            host_if: format!("iolv{id}"),
            peer_ip: format!("{net}.2"),
        };
        let (n, h, p) = (ns.name.as_str(), ns.host_if.as_str(), format!("{}p", ns.host_if));
        let steps: Vec<Vec<String>> = [
            vec!["netns", "add", n],
            vec!["link", "add", h, "type", "veth", "peer", "name", &p],
            vec!["link", "set", &p, "netns", n],
            vec!["addr", "add", &format!("{host_ip}/30"), "dev", h],
            vec!["link", "set", h, "up"],
            vec!["-n", n, "addr", "add", &format!("{}/30", ns.peer_ip), "dev", &p],
            vec!["-n", n, "link", "set", &p, "up"],
            vec!["-n", n, "link", "set", "lo", "up"],
        ]
        .iter()
        .map(|v| v.iter().map(|s| s.to_string()).collect())
        .collect();
        for s in steps {
            let o = Command::new(&ip).args(&s).output().map_err(|e| e.to_string())?;
            if !o.status.success() {
                return Err(format!(
                    "ip {}: {}",
                    s.join(" "),
                    String::from_utf8_lossy(&o.stderr).trim()
                ));
            }
        }
        Ok(ns)
    }

    fn link(&self, state: &str) {
        let o = Command::new("ip").args(["link", "set", &self.host_if, state]).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
}

impl Drop for NetNs {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["link", "del", &self.host_if]).output();
        let _ = Command::new("ip").args(["netns", "del", &self.name]).output();
    }
}

/// A server in a namespace of its own behind a veth pair; the link goes down 1.5 s into a
/// 4 s run: that host is lost after --host-timeout, the other's numbers stay, exit 1.
#[test]
fn a_link_taken_down_mid_run_loses_that_host_only() {
    let ns = match NetNs::new() {
        Ok(ns) => ns,
        Err(why) => return iolab_test_support::skip(why),
    };
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "namespace secret of 32 bytes....");
    let local = Server::start("127.0.0.2", &s, &[]);
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", &ns.name, env!("CARGO_BIN_EXE_iolab"), "server"]);
    let remote = Server::spawn(cmd, &format!("--listen={}:0", ns.peer_ip), &s);
    let mut c = client(&format!("{},{}", local.addr, remote.addr), &s, TIMED);
    c.arg("--host-timeout=1.5");
    c.stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(empty_stdin().unwrap());
    let child = c.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    ns.link("down");
    let o = wait_output(child, Duration::from_secs(30));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("host {} (rank 1) lost", remote.addr)), "{err}");
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let e = entries(&doc);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0]["hostname"], "127.0.0.2");
    assert_eq!(doc["iolab_partial"], true);
    assert_eq!(doc["iolab_lost_hosts"][0]["hostname"], ns.peer_ip.as_str());
    drop(remote);
}

/// `--client=ssh://user@host` runs `ssh … host iolab server --stdio --secret-file=F`: here a
/// stand-in `ssh` on PATH runs the server locally with those arguments, so the whole ssh path
/// of the client is exercised without an ssh daemon.
#[test]
fn ssh_hosts_run_the_server_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "ssh stand-in secret, 32 bytes...");
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let log = dir.path().join("ssh.args");
    let script = format!(
        "#!/bin/sh\necho \"$@\" >> '{}'\nshift 5\nexec '{}' \"$@\"\n",
        log.display(),
        env!("CARGO_BIN_EXE_iolab")
    );
    std::fs::write(bin.join("ssh"), script).unwrap();
    std::fs::set_permissions(bin.join("ssh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut c = client("ssh://me@alpha,ssh://beta", &s, NULL_JOB);
    c.env("PATH", path);
    let (o, _) = bounded(c, Duration::from_secs(60));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let e = entries(&doc);
    let hosts: Vec<(&str, u64)> =
        e.iter().map(|e| (e["hostname"].as_str().unwrap(), e["port"].as_u64().unwrap())).collect();
    assert_eq!(hosts, [("alpha", 0), ("beta", 0), ("beta", 0)]);
    assert_eq!(e[2]["read"]["total_ios"], 32768);
    let args = std::fs::read_to_string(&log).unwrap();
    let want =
        format!("-o BatchMode=yes -- me@alpha iolab server --stdio --secret-file={}", s.display());
    assert!(args.lines().any(|l| l == want), "{args}");
}

/// Issue 29: a tool that reads fio's client JSON draws the merged document. fio-plot (PyPI)
/// takes `client_stats` documents named as bench-fio names results (`MODE-DEPTH-JOBS.json`);
/// two servers' randread documents at depths 1 and 4 give its bar chart of IOPS and latency
/// per queue depth (`-l`), a bar per host and one for All clients.
#[test]
fn fio_plot_draws_the_merged_client_document() {
    let have = Command::new("fio-plot").arg("--help").output().is_ok_and(|o| o.status.success());
    if !have {
        println!("skip: fio-plot (PyPI fio-plot) is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "a shared secret of some length\n");
    let (a, b) = (Server::start("127.0.0.2", &s, &[]), Server::start("127.0.0.3", &s, &[]));
    let hosts = format!("{},{}", a.addr, b.addr);
    let res = dir.path().join("res");
    std::fs::create_dir(&res).unwrap();
    for depth in [1, 4] {
        let out = res.join(format!("randread-{depth}-1.json"));
        let job = [
            "--name=randread".to_string(),
            "--ioengine=null".into(),
            "--rw=randread".into(),
            "--bs=4k".into(),
            "--size=64m".into(),
            format!("--iodepth={depth}"),
            "--numjobs=1".into(),
            "--output-format=json".into(),
            format!("--output={}", out.display()),
        ];
        let job: Vec<&str> = job.iter().map(String::as_str).collect();
        let (o, _) = bounded(client(&hosts, &s, &job), Duration::from_secs(60));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(entries(&v).len(), 3, "two hosts and All clients");
    }
    let png = dir.path().join("bars.png");
    let o = Command::new("fio-plot")
        .arg("-i")
        .arg(&res)
        .args(["-T", "two hosts", "-l", "-r", "randread", "-o"])
        .arg(&png)
        .output()
        .unwrap();
    assert!(o.status.success(), "fio-plot: {}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&png).unwrap_or_default();
    assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 20_000, "{} bytes", bytes.len());
}

/// `--help` names every many-host flag, each with a line of its own.
#[test]
fn run_and_server_help_name_every_many_host_flag() {
    let help = |sub: &str| {
        let o = iolab().args([sub, "--help"]).output().unwrap();
        assert!(o.status.success());
        String::from_utf8(o.stdout).unwrap()
    };
    let (run, server) = (help("run"), help("server"));
    // A flag's own line: the flag, then its value or spaces (not a wrapped mention).
    let flag_lines = |text: &str, flag: &str| {
        let own = |r: &str| r.is_empty() || r.starts_with(' ') || flag.ends_with('<');
        text.lines().filter(|l| l.trim_start().strip_prefix(flag).is_some_and(own)).count()
    };
    for f in [
        "--client <",
        "--secret-file <",
        "--host-timeout <",
        "--on-host-loss <",
        "--mpi-stonewall <",
    ] {
        assert_eq!(flag_lines(&run, f), 1, "iolab run --help lists {f} once:\n{run}");
    }
    assert!(run.contains("Many hosts"), "{run}");
    for f in ["--listen <", "--secret-file <", "--allow-destroy", "--stdio", "--state-dir <"] {
        assert_eq!(flag_lines(&server, f), 1, "iolab server --help lists {f} once:\n{server}");
    }
}

/// The documents a client printed: every JSON document of a stream, in order.
fn docs(out: &[u8]) -> Vec<Value> {
    serde_json::Deserializer::from_slice(out).into_iter::<Value>().map(Result::unwrap).collect()
}

fn bins_of(v: &Value) -> std::collections::BTreeMap<u64, u64> {
    v.as_object()
        .map(|b| b.iter().map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap())).collect())
        .unwrap_or_default()
}

fn add_bins(
    a: &mut std::collections::BTreeMap<u64, u64>,
    b: &std::collections::BTreeMap<u64, u64>,
) {
    for (k, v) in b {
        *a.entry(*k).or_default() += v;
    }
}

/// Every interval's All clients is the hosts' sum (counts and bins), in the running totals of
/// the printed document and in its deltas; the final document is the sum of the intervals.
pub fn check_intervals(all: &[Value], hosts: usize) -> usize {
    let (final_doc, periodic) = all.split_last().unwrap();
    let mut prev_all = 0u64;
    for d in periodic {
        let e = entries(d);
        assert_eq!(e.len(), hosts + 1, "{d}");
        assert_eq!(e[hosts]["jobname"], "All clients");
        let ios: Vec<u64> = e.iter().map(|e| e["read"]["total_ios"].as_u64().unwrap()).collect();
        assert_eq!(ios[hosts], ios[..hosts].iter().sum::<u64>(), "running totals add up");
        let mut sum = std::collections::BTreeMap::new();
        e[..hosts].iter().for_each(|h| add_bins(&mut sum, &bins(h)));
        // Every bin below the hosts' top ones: json+ clamps a top bucket's value to the
        // entry's max, which differs between a host and All clients (fio_plat.rs).
        let cut = e[..hosts].iter().filter_map(|h| bins(h).keys().last().copied()).min().unwrap();
        let below = |m: std::collections::BTreeMap<u64, u64>| -> Vec<(u64, u64)> {
            m.into_iter().filter(|(k, _)| *k < cut).collect()
        };
        assert_eq!(below(bins(e[hosts])), below(sum.clone()), "running bins add up");
        assert_eq!(bins(e[hosts]).values().sum::<u64>(), sum.values().sum::<u64>());
        let row = &d["iolab_interval"];
        let delta: Vec<u64> = row["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["ios"][0].as_u64().unwrap())
            .collect();
        assert_eq!(row["All clients"]["ios"][0].as_u64().unwrap(), delta.iter().sum::<u64>());
        let mut dsum = std::collections::BTreeMap::new();
        for h in row["hosts"].as_array().unwrap() {
            add_bins(&mut dsum, &bins_of(&h["clat_ns_bins"]));
        }
        assert_eq!(bins_of(&row["All clients"]["clat_ns_bins"]), dsum, "delta bins add up");
        // The delta is what the running totals gained since the previous interval.
        assert_eq!(ios[hosts] - prev_all, row["All clients"]["ios"][0].as_u64().unwrap());
        assert_eq!(dsum.values().sum::<u64>(), ios[hosts] - prev_all);
        prev_all = ios[hosts];
    }
    let rows = final_doc["iolab_intervals"].as_array().unwrap();
    assert_eq!(rows.iter().filter(|r| r["final"] == false).count(), periodic.len());
    let e = entries(final_doc);
    let total: u64 = rows.iter().map(|r| r["All clients"]["ios"][0].as_u64().unwrap()).sum();
    assert_eq!(total, e[hosts]["read"]["total_ios"].as_u64().unwrap(), "final = sum of intervals");
    let mut sum = std::collections::BTreeMap::new();
    rows.iter().for_each(|r| add_bins(&mut sum, &bins_of(&r["All clients"]["clat_ns_bins"])));
    assert_eq!(sum, bins(e[hosts]), "final bins = sum of the intervals' bins");
    periodic.len()
}

const INTERVALS: &[&str] = &[
    "--name=i",
    "--ioengine=null",
    "--rw=randread",
    "--bs=4k",
    "--size=64m",
    "--time_based",
    "--runtime=3",
    "--rate_iops=20000",
    "--status-interval=1",
    "--output-format=json+",
];

#[test]
fn status_intervals_through_two_servers_add_up_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "interval secret of 32 bytes.....");
    let state = dir.path().join("state");
    let st = format!("--state-dir={}", state.display());
    let (a, b) = (Server::start("127.0.0.2", &s, &[&st]), Server::start("127.0.0.3", &s, &[&st]));
    let (o, _) =
        bounded(client(&format!("{},{}", a.addr, b.addr), &s, INTERVALS), Duration::from_secs(60));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}\n{}\n{}", a.log(), b.log());
    let all = docs(&o.stdout);
    let n = check_intervals(&all, 2);
    assert!((2..=4).contains(&n), "{n} interval documents in a 3 s run at 1 s");
    let fin = all.last().unwrap();
    // 20000 IOPS for 3 s on each host, within the rate's tolerance.
    let ios = entries(fin)[2]["read"]["total_ios"].as_u64().unwrap();
    assert!((80_000..=130_000).contains(&ios), "{ios}");
    for x in fin["iolab_hosts"].as_array().unwrap() {
        let f = x["interval_file"].as_str().unwrap();
        assert!(f.starts_with(&state.display().to_string()), "{f}");
        assert!(!Path::new(f).exists(), "{f} is removed once the client has the result");
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(a.log().contains("the client has the result"), "{}", a.log());
}

#[test]
fn a_killed_client_leaves_the_servers_intervals_on_disk() {
    use iolab_stats::hosts::delta::HostInterval;
    let dir = tempfile::tempdir().unwrap();
    let s = secret(dir.path(), "secret", "killed client secret, 32 bytes..");
    let st = format!("--state-dir={}", dir.path().join("state").display());
    let srv = Server::start("127.0.0.2", &s, &[&st]);
    let mut job = INTERVALS.to_vec();
    job.push("--status-interval=0.5");
    job.retain(|a| *a != "--status-interval=1");
    let mut cmd = client(&srv.addr, &s, &job);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(empty_stdin().unwrap());
    let mut child = cmd.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(1800));
    child.kill().unwrap();
    child.wait().unwrap();
    let t0 = Instant::now();
    let kept = loop {
        let log = srv.log();
        let lost = log.lines().find(|l| l.contains("coordinator lost"));
        if let Some(f) = lost.and_then(|l| l.split("kept in ").nth(1)) {
            break f.to_string();
        }
        assert!(t0.elapsed() < Duration::from_secs(20), "{}", srv.log());
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = std::fs::read_to_string(kept.trim()).unwrap();
    let ivs: Vec<HostInterval> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(ivs.len() >= 4, "{} intervals in a 3 s run at 0.5 s", ivs.len());
    let seqs: Vec<u32> = ivs.iter().map(|d| d.seq).collect();
    assert_eq!(seqs, (1..=ivs.len() as u32).collect::<Vec<_>>());
    assert!(ivs.last().unwrap().last, "the run went on to its end and its remainder is kept");
    let mut sum = 0u64;
    for d in &ivs {
        sum += d.ios()[0];
        assert_eq!(sum, d.jobs[0].dirs[0].total_ios, "interval {} adds up", d.seq);
    }
    assert!((50_000..=70_000).contains(&sum), "{sum} I/Os at 20000 IOPS for 3 s");
}
