#![allow(clippy::unwrap_used)]
use super::*;
use std::io::Cursor;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;

const GOOD: &[u8] = b"0123456789abcdef0123";

/// Both halves over a socket pair: (client's result, server's result).
fn pair(client: &Secret, server: &Secret) -> (Result<(), RemoteError>, Result<(), RemoteError>) {
    let (a, b) = UnixStream::pair().unwrap();
    let s = server.clone();
    let t = std::thread::spawn(move || {
        let (mut r, mut w) = (&b, &b);
        server_handshake(&mut r, &mut w, &s, "client")
    });
    let (mut r, mut w) = (&a, &a);
    let mut recv = |max: u32, when: &str| read_msg(&mut r, max, "server", when);
    let c = client_handshake(&mut recv, &mut w, client, "server");
    drop(a);
    (c, t.join().unwrap())
}

#[test]
fn the_same_secret_passes_both_ways() {
    let s = Secret::from_bytes(GOOD);
    let (c, sv) = pair(&s, &s);
    c.unwrap();
    sv.unwrap();
}

#[test]
fn a_wrong_secret_fails_on_both_sides_and_never_reaches_a_job() {
    let (c, sv) = pair(&Secret::from_bytes(b"another secret, wrong"), &Secret::from_bytes(GOOD));
    assert!(matches!(c, Err(RemoteError::Auth { .. })), "{c:?}");
    // The client saw the server's proof fail and hung up without proving anything.
    let e = sv.unwrap_err();
    assert_eq!(
        e.to_string(),
        "client: authentication failed: the client refused this server's proof (its proof does \
         not match the client's secret)"
    );
}

#[test]
fn a_client_that_answers_with_a_forged_proof_is_refused() {
    let s = Secret::from_bytes(GOOD);
    let mut hello = Vec::new();
    write_msg(&mut hello, &Msg::Hello { version: VERSION, nonce: hex(&[7; NONCE]) }, "x").unwrap();
    write_msg(&mut hello, &Msg::Proof { proof: hex(&[0; 32]) }, "x").unwrap();
    let mut out = Vec::new();
    let e = server_handshake(&mut Cursor::new(hello), &mut out, &s, "p").unwrap_err();
    assert!(matches!(e, RemoteError::Auth { .. }), "{e}");
    let mut r = out.as_slice();
    assert!(matches!(read_msg(&mut r, MAX_HELLO, "", "").unwrap(), Msg::Challenge { .. }));
    assert!(matches!(read_msg(&mut r, MAX_HELLO, "", "").unwrap(), Msg::Refused { .. }));
}

/// Frames a real client sent in a successful handshake, recorded and sent again to a new
/// session: the server's fresh nonce makes the recorded proof wrong.
#[test]
fn a_replayed_handshake_is_refused() {
    let s = Secret::from_bytes(GOOD);
    let (a, b) = UnixStream::pair().unwrap();
    let s2 = s.clone();
    let client = std::thread::spawn(move || {
        let (mut r, mut w) = (&b, &b);
        let mut recv = |max: u32, when: &str| read_msg(&mut r, max, "server", when);
        client_handshake(&mut recv, &mut w, &s2, "server")
    });
    // A recording server: its frames go to the client, the client's are kept.
    let mut recorded = Vec::new();
    let mut tee = Tee { inner: &a, copy: &mut recorded };
    let mut w = &a;
    server_handshake(&mut tee, &mut w, &s, "client").unwrap();
    client.join().unwrap().unwrap();
    let mut out = Vec::new();
    let e = server_handshake(&mut Cursor::new(recorded), &mut out, &s, "replayer").unwrap_err();
    assert!(matches!(e, RemoteError::Auth { .. }), "{e}");
}

struct Tee<'a> {
    inner: &'a UnixStream,
    copy: &'a mut Vec<u8>,
}

impl Read for Tee<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.copy.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

#[test]
fn another_version_is_refused_in_the_hello() {
    let mut hello = Vec::new();
    write_msg(&mut hello, &Msg::Hello { version: 99, nonce: hex(&[1; NONCE]) }, "x").unwrap();
    let mut out = Vec::new();
    let s = Secret::from_bytes(GOOD);
    let e = server_handshake(&mut Cursor::new(hello), &mut out, &s, "p").unwrap_err();
    assert_eq!(e.to_string(), "p: protocol version 99, this iolab speaks 2");
}

#[test]
fn the_secret_file_must_be_a_private_regular_file_of_16_bytes_or_more() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s");
    std::fs::write(&f, b"0123456789abcdef\n").unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(Secret::from_file(&f).unwrap().0, b"0123456789abcdef");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
    let e = Secret::from_file(&f).unwrap_err().to_string();
    assert!(e.contains("mode 0640 lets group or others at it"), "{e}");
    let link = dir.path().join("l");
    std::os::unix::fs::symlink(&f, &link).unwrap();
    assert!(Secret::from_file(&link).unwrap_err().to_string().contains("symbolic link"));
    let e = Secret::from_file(dir.path()).unwrap_err().to_string();
    assert!(e.contains("not a regular file"), "{e}");
    let short = dir.path().join("short");
    std::fs::write(&short, b"abc").unwrap();
    std::fs::set_permissions(&short, std::fs::Permissions::from_mode(0o600)).unwrap();
    let e = Secret::from_file(&short).unwrap_err().to_string();
    assert!(e.contains("holds 3 bytes; a secret needs at least 16"), "{e}");
}
