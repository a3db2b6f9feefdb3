//! One module per trace format. Each implements the crate-private `Parse` trait and has one
//! line in [`crate::registry::FORMATS`].

pub mod cloudphysics;
pub mod lcs_csv;
pub mod oracle;
