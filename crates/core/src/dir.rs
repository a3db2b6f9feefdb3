//! I/O directions, named as fio names them (`ddir` in fio's code).

use serde::{Deserialize, Serialize};

/// The direction of one I/O. `Sync` is an fsync/fdatasync issued as its own I/O, as fio does
/// for `fsync=N`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum IoDir {
    #[default]
    Read,
    Write,
    Trim,
    Sync,
}

impl IoDir {
    /// The three data directions, in fio's order (`read,write,trim` lists).
    pub const DATA: [IoDir; 3] = [IoDir::Read, IoDir::Write, IoDir::Trim];

    /// fio's name for the direction, as in its JSON (`read`, `write`, `trim`, `sync`).
    pub fn as_str(self) -> &'static str {
        match self {
            IoDir::Read => "read",
            IoDir::Write => "write",
            IoDir::Trim => "trim",
            IoDir::Sync => "sync",
        }
    }

    /// Index into a per-direction array of three (`Sync` has none and maps to `None`).
    pub fn data_index(self) -> Option<usize> {
        match self {
            IoDir::Read => Some(0),
            IoDir::Write => Some(1),
            IoDir::Trim => Some(2),
            IoDir::Sync => None,
        }
    }

    /// The number fio writes in its logs and iologs (0 read, 1 write, 2 trim, 3 sync).
    pub fn fio_ddir(self) -> u8 {
        match self {
            IoDir::Read => 0,
            IoDir::Write => 1,
            IoDir::Trim => 2,
            IoDir::Sync => 3,
        }
    }
}

impl std::fmt::Display for IoDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One value per data direction, as fio's `read,write,trim` option lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerDir<T> {
    pub read: T,
    pub write: T,
    pub trim: T,
}

impl<T: Clone> PerDir<T> {
    /// The same value for all three directions.
    pub fn splat(v: T) -> Self {
        PerDir { read: v.clone(), write: v.clone(), trim: v }
    }
}

impl<T> PerDir<T> {
    pub fn get(&self, dir: IoDir) -> Option<&T> {
        match dir {
            IoDir::Read => Some(&self.read),
            IoDir::Write => Some(&self.write),
            IoDir::Trim => Some(&self.trim),
            IoDir::Sync => None,
        }
    }

    pub fn get_mut(&mut self, dir: IoDir) -> Option<&mut T> {
        match dir {
            IoDir::Read => Some(&mut self.read),
            IoDir::Write => Some(&mut self.write),
            IoDir::Trim => Some(&mut self.trim),
            IoDir::Sync => None,
        }
    }

    pub fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> PerDir<U> {
        PerDir { read: f(&self.read), write: f(&self.write), trim: f(&self.trim) }
    }

    pub fn iter(&self) -> impl Iterator<Item = (IoDir, &T)> {
        [(IoDir::Read, &self.read), (IoDir::Write, &self.write), (IoDir::Trim, &self.trim)]
            .into_iter()
    }
}
