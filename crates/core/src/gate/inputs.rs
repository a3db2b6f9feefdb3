//! The files this process has read as inputs, so that no output replaces one.
//!
//! Every input is opened through [`crate::input::open_input`], which notes it here by device
//! and inode (and resolved name). An output is then refused when it is any of them — the job
//! file and every file it includes, a `--predict` profile, a pattern file, a trace, an iolog,
//! a result — without each command listing what it read on the way (the family the
//! reliability review of 2026-11-28 found: `--output` replacing an include, a profile, a
//! pattern file). A process-wide list, like the output writer's list of temporaries: what
//! was read is a fact about the process, not about one call.

use super::classify::Classified;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

struct Read {
    id: (u64, u64),
    resolved: PathBuf,
}

static INPUTS: Mutex<Vec<Read>> = Mutex::new(Vec::new());

fn list() -> std::sync::MutexGuard<'static, Vec<Read>> {
    INPUTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Note that `path`, open as `meta`, was read as an input.
pub fn note(path: &Path, meta: &std::fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let id = (meta.dev(), meta.ino());
    let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut l = list();
    if !l.iter().any(|r| r.id == id) {
        l.push(Read { id, resolved });
    }
}

/// The input the classified path is, if any (same device and inode, or same resolved name).
pub fn matching(c: &Classified) -> Option<PathBuf> {
    list()
        .iter()
        .find(|r| c.id == Some(r.id) || c.resolved == r.resolved)
        .map(|r| r.resolved.clone())
}
