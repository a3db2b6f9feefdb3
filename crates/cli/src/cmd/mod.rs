//! One module per subcommand; each has `Args` (clap) and `run(Args) -> Result<ExitCode>`.

pub mod calibrate;
pub mod compare;
pub mod data;
pub mod fill;
pub mod fio;
pub mod iolog_export;
pub mod mrc;
pub mod options;
pub mod parse;
pub mod plot;
pub mod replay;
pub mod report;
pub mod run;
pub mod sim;
pub mod trace;
