//! A result that cannot be written where it was asked for is not lost (issue 28, the
//! reliability review of 2026-11-28 §10: ENOSPC on the output's filesystem lost a whole run's
//! result). The output writer keeps the old file whole (its temporary is removed), and the
//! bytes are saved instead in a new file in the first directory that takes them: the
//! temporary directory (`$TMPDIR`, else `/tmp`), the working directory, `$HOME`. The file is
//! a scratch file of the gate (`iolab_core::gate::scratch`: `O_CREAT|O_EXCL|O_NOFOLLOW`,
//! mode 0600, an unpredictable name, so a planted link or file is never written), kept once
//! whole and synced. When no directory takes it, the bytes go to stderr, so a terminal or a
//! log still has them. The command's error then names the output, the errno and where the
//! result went, on one line, and the exit status is 1.

use iolab_core::gate::scratch::Scratch;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a result that could not be written went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rescued {
    /// A new file, whole and synced.
    File(PathBuf),
    /// No directory took it: written to stderr.
    Stderr,
}

impl std::fmt::Display for Rescued {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rescued::File(p) => write!(f, "the result was saved to {} instead", p.display()),
            Rescued::Stderr => write!(f, "the result was written to stderr instead"),
        }
    }
}

/// The directories tried, in order.
fn directories() -> Vec<PathBuf> {
    let mut v = vec![std::env::temp_dir(), PathBuf::from(".")];
    if let Some(h) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        v.push(PathBuf::from(h));
    }
    v
}

/// The suffix of the saved file: the output's own extension (`.json`, `.html`), else `.out`.
fn suffix(output: Option<&Path>) -> String {
    let ext = output.and_then(|p| p.extension()).and_then(|e| e.to_str());
    let ext =
        ext.filter(|e| !e.is_empty() && e.len() <= 16 && e.chars().all(char::is_alphanumeric));
    format!(".{}", ext.unwrap_or("out"))
}

/// Save `bytes` in the first directory of [`directories`] with room, else on stderr.
pub fn rescue(bytes: &[u8], output: Option<&Path>) -> Rescued {
    rescue_in(bytes, output, &directories())
}

/// [`rescue`] with the directories given (tests).
pub fn rescue_in(bytes: &[u8], output: Option<&Path>, dirs: &[PathBuf]) -> Rescued {
    let suffix = suffix(output);
    for d in dirs {
        let Ok(mut s) = Scratch::create(d, "iolab-unsaved-", &suffix) else { continue };
        // A write or sync that fails (that filesystem is full too) drops the scratch file,
        // which removes it; the next directory is tried.
        if s.file.write_all(bytes).is_ok() && s.file.sync_all().is_ok() {
            return Rescued::File(s.keep());
        }
    }
    let mut e = std::io::stderr().lock();
    let _ = e.write_all(bytes);
    let _ = e.flush();
    Rescued::Stderr
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn saved_in_the_first_directory_that_takes_it_with_the_outputs_extension() {
        let d = tempfile::tempdir().unwrap();
        let missing = d.path().join("missing");
        let ok = d.path().join("ok");
        std::fs::create_dir(&ok).unwrap();
        let r =
            rescue_in(b"{\"jobs\":[]}\n", Some(Path::new("full/r.json")), &[missing, ok.clone()]);
        let Rescued::File(p) = r else { panic!("not saved: {r:?}") };
        assert_eq!(p.parent().unwrap(), ok);
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("iolab-unsaved-") && name.ends_with(".json"), "{name}");
        assert_eq!(std::fs::read(&p).unwrap(), b"{\"jobs\":[]}\n");
        // Kept when the scratch file was dropped.
        assert!(p.exists());
        std::fs::remove_file(&p).unwrap();
        assert_eq!(suffix(None), ".out");
        assert_eq!(suffix(Some(Path::new("x.j\u{1b}[2J"))), ".out");
    }
}
