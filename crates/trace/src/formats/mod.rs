//! One module per trace format. Each implements the crate-private `Parse` trait and has one
//! line in [`crate::registry::FORMATS`].

pub mod alibaba;
pub mod blkparse;
pub mod cloudphysics;
pub mod fio_iolog;
pub mod lcs_csv;
pub mod msr;
pub mod oracle;
pub mod tencent;
pub mod vscsi;

use std::collections::HashMap;

/// Device/file names to dense `req.file` indices in order of first appearance. Allocates only
/// when a new name appears.
#[derive(Default)]
pub(crate) struct Devices {
    map: HashMap<Vec<u8>, u32>,
    names: Vec<Vec<u8>>,
}

impl Devices {
    pub(crate) fn index(&mut self, name: &[u8]) -> u32 {
        if let Some(&i) = self.map.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.map.insert(name.to_vec(), i);
        self.names.push(name.to_vec());
        i
    }

    pub(crate) fn get(&self, name: &[u8]) -> Option<u32> {
        self.map.get(name).copied()
    }

    pub(crate) fn names(&self) -> Vec<String> {
        self.names.iter().map(|n| String::from_utf8_lossy(n).into_owned()).collect()
    }
}
