//! Helpers shared by the topic modules of iolab-model's integration tests.

use std::path::{Path, PathBuf};

pub(crate) fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}
