//! The shared secret and the mutual challenge–response proof.
//!
//! Both sides hold the same secret file. The client sends a fresh 32-byte nonce; the server
//! answers with its own fresh nonce and `HMAC-SHA256(secret, "iolab-remote-v1 server" ‖
//! nonce_c ‖ nonce_s)`; the client checks it (so a fake server cannot feed it results) and
//! answers `HMAC-SHA256(secret, "iolab-remote-v1 client" ‖ nonce_s ‖ nonce_c)`. The secret
//! never travels; the labels keep one side's proof from serving as the other's; a recorded
//! handshake replayed later fails because the server's nonce is new (RFC 2104 HMAC, compared
//! in constant time by `hmac`'s `verify_slice`). Nonces come from the OS (`getrandom`).
//!
//! The secret file must be a regular file (not a symlink, FIFO or device), no larger than
//! 4 KiB, holding at least 16 bytes, with no permission for group or others: anything else is
//! refused in one line before a socket is opened.

use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::proto::{read_msg, write_msg, Msg, MAX_HELLO, VERSION};
use crate::RemoteError;

type HmacSha256 = Hmac<Sha256>;

const LABEL_SERVER: &[u8] = b"iolab-remote-v1 server";
const LABEL_CLIENT: &[u8] = b"iolab-remote-v1 client";
const MAX_SECRET: u64 = 4096;
const MIN_SECRET: usize = 16;
const NONCE: usize = 32;

/// The shared secret (trailing newlines and spaces dropped).
#[derive(Clone)]
pub struct Secret(Vec<u8>);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl Secret {
    /// Read and check the secret file (see the module note).
    pub fn from_file(path: &Path) -> Result<Secret, RemoteError> {
        let bad = |why: String| RemoteError::Secret { path: path.display().to_string(), why };
        let meta = std::fs::symlink_metadata(path).map_err(|e| bad(e.to_string()))?;
        check_meta(&meta, path).map_err(bad)?;
        // O_NOFOLLOW and O_NONBLOCK: a file swapped for a symlink or a FIFO after the check
        // neither follows nor blocks; the opened file is checked again.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| bad(e.to_string()))?;
        let meta = file.metadata().map_err(|e| bad(e.to_string()))?;
        check_meta(&meta, path).map_err(bad)?;
        let mut bytes = Vec::new();
        file.take(MAX_SECRET + 1).read_to_end(&mut bytes).map_err(|e| bad(e.to_string()))?;
        while bytes.last().is_some_and(|b| b.is_ascii_whitespace()) {
            bytes.pop();
        }
        if bytes.len() < MIN_SECRET {
            return Err(bad(format!(
                "holds {} bytes; a secret needs at least {MIN_SECRET} (e.g. `head -c 32 \
                 /dev/urandom | base64 > F; chmod 600 F`)",
                bytes.len()
            )));
        }
        Ok(Secret(bytes))
    }

    /// A secret from bytes (tests, and callers with their own store).
    pub fn from_bytes(bytes: &[u8]) -> Secret {
        Secret(bytes.to_vec())
    }

    fn mac(&self, label: &[u8], a: &[u8], b: &[u8]) -> HmacSha256 {
        // HMAC takes a key of any length: `new_from_slice` cannot fail for it.
        let mut m = match HmacSha256::new_from_slice(&self.0) {
            Ok(m) => m,
            Err(_) => unreachable!("HMAC accepts keys of every length"),
        };
        m.update(label);
        m.update(&VERSION.to_be_bytes());
        m.update(a);
        m.update(b);
        m
    }

    /// The proof of `label`'s side over the two nonces, hex.
    fn prove(&self, label: &[u8], a: &[u8], b: &[u8]) -> String {
        hex(&self.mac(label, a, b).finalize().into_bytes())
    }

    /// Whether `proof` (hex) is `label`'s proof over the nonces (constant-time compare).
    fn verify(&self, label: &[u8], a: &[u8], b: &[u8], proof: &str) -> bool {
        match unhex(proof) {
            Some(p) => self.mac(label, a, b).verify_slice(&p).is_ok(),
            None => false,
        }
    }
}

fn check_meta(meta: &std::fs::Metadata, path: &Path) -> Result<(), String> {
    let ft = meta.file_type();
    if ft.is_symlink() {
        return Err("is a symbolic link; name the file itself".into());
    }
    if !ft.is_file() {
        return Err("is not a regular file (a FIFO, socket, device or directory)".into());
    }
    if meta.mode() & 0o077 != 0 {
        return Err(format!(
            "mode {:04o} lets group or others at it; `chmod 600 {}`",
            meta.mode() & 0o7777,
            path.display()
        ));
    }
    if meta.len() > MAX_SECRET {
        return Err(format!("is {} bytes; a secret file holds at most {MAX_SECRET}", meta.len()));
    }
    Ok(())
}

/// A fresh random nonce.
fn nonce(peer: &str) -> Result<[u8; NONCE], RemoteError> {
    let mut n = [0u8; NONCE];
    getrandom::fill(&mut n)
        .map_err(|e| RemoteError::Io { peer: peer.into(), why: format!("no random nonce: {e}") })?;
    Ok(n)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 || s.len() > 256 {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

fn peer_nonce(s: &str, peer: &str) -> Result<Vec<u8>, RemoteError> {
    unhex(s).filter(|n| n.len() == NONCE).ok_or_else(|| RemoteError::Malformed {
        peer: peer.into(),
        why: format!("nonce is not {NONCE} bytes of hex"),
    })
}

/// The server's half: read the hello, challenge, check the proof. On failure the peer is
/// told `refused` (when the connection still works) and nothing more is read from it.
pub fn server_handshake(
    r: &mut dyn Read,
    w: &mut dyn Write,
    secret: &Secret,
    peer: &str,
) -> Result<(), RemoteError> {
    let refuse = |w: &mut dyn Write, e: RemoteError| {
        let _ = write_msg(w, &Msg::Refused { why: e.to_string() }, peer);
        e
    };
    let (version, nonce_c) = match read_msg(r, MAX_HELLO, peer, "awaiting the hello")? {
        Msg::Hello { version, nonce } => (version, nonce),
        m => return Err(refuse(w, unexpected(peer, &m, "instead of the hello"))),
    };
    if version != VERSION {
        return Err(refuse(
            w,
            RemoteError::Version { peer: peer.into(), theirs: version, ours: VERSION },
        ));
    }
    let nonce_c = peer_nonce(&nonce_c, peer).map_err(|e| refuse(w, e))?;
    let nonce_s = nonce(peer)?;
    let proof = secret.prove(LABEL_SERVER, &nonce_c, &nonce_s);
    write_msg(w, &Msg::Challenge { version: VERSION, nonce: hex(&nonce_s), proof }, peer)?;
    let proof = match read_msg(r, MAX_HELLO, peer, "awaiting the proof")? {
        Msg::Proof { proof } => proof,
        Msg::Refused { why } => {
            let why = format!("the client refused this server's proof ({why})");
            return Err(RemoteError::Auth { peer: peer.into(), why });
        }
        m => return Err(refuse(w, unexpected(peer, &m, "instead of the proof"))),
    };
    if !secret.verify(LABEL_CLIENT, &nonce_s, &nonce_c, &proof) {
        let why = "the client's proof does not match this server's secret".to_string();
        return Err(refuse(w, RemoteError::Auth { peer: peer.into(), why }));
    }
    write_msg(w, &Msg::Welcome, peer)
}

/// Receive one frame of at most the given size; the `&str` says what is awaited.
pub type Recv<'a> = dyn FnMut(u32, &str) -> Result<Msg, RemoteError> + 'a;

/// The client's half: hello, check the server's proof, prove, await the welcome. `recv`
/// reads the server's frames (through a channel with a timeout, in the client).
pub fn client_handshake(
    recv: &mut Recv<'_>,
    w: &mut dyn Write,
    secret: &Secret,
    peer: &str,
) -> Result<(), RemoteError> {
    let nonce_c = nonce(peer)?;
    write_msg(w, &Msg::Hello { version: VERSION, nonce: hex(&nonce_c) }, peer)?;
    let (nonce_s, proof) = match recv(MAX_HELLO, "awaiting the challenge")? {
        Msg::Challenge { version, .. } if version != VERSION => {
            return Err(RemoteError::Version { peer: peer.into(), theirs: version, ours: VERSION })
        }
        Msg::Challenge { nonce, proof, .. } => (peer_nonce(&nonce, peer)?, proof),
        Msg::Refused { why } => return Err(RemoteError::Refused { peer: peer.into(), why }),
        m => return Err(unexpected(peer, &m, "instead of the challenge")),
    };
    if !secret.verify(LABEL_SERVER, &nonce_c, &nonce_s, &proof) {
        let why = "the server's proof does not match this secret (a wrong secret, or not \
                   this server)"
            .to_string();
        // Tell the server why before hanging up, so its log names the cause.
        let told = "its proof does not match the client's secret".to_string();
        let _ = write_msg(w, &Msg::Refused { why: told }, peer);
        return Err(RemoteError::Auth { peer: peer.into(), why });
    }
    let proof = secret.prove(LABEL_CLIENT, &nonce_s, &nonce_c);
    write_msg(w, &Msg::Proof { proof }, peer)?;
    match recv(MAX_HELLO, "awaiting the welcome")? {
        Msg::Welcome => Ok(()),
        Msg::Refused { why } => Err(RemoteError::Refused { peer: peer.into(), why }),
        m => Err(unexpected(peer, &m, "instead of the welcome")),
    }
}

/// A message that was not the one awaited.
pub fn unexpected(peer: &str, m: &Msg, when: &str) -> RemoteError {
    RemoteError::Unexpected { peer: peer.into(), got: m.name().into(), when: when.into() }
}

#[cfg(test)]
mod tests;
