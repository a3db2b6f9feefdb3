//! A mixed argv (`iolab run`, `sim`, `parse`) split into fio's parts and the caller's own
//! flags, with the flag names taken from the caller's clap `Args` type
//! (`Command::get_arguments`), so no second list of names is kept by hand. Behind the `clap`
//! feature. Source: fio init.c `parse_cmd_line` for fio's part ([`crate::split_fio_args`]).

use crate::SplitArgs;
use clap::{Args, Command, FromArgMatches};

/// The long flag names of `F`, as `split_fio_args` takes them: `name=` when it takes a value
/// (a flag whose value is optional, `--predict[=FILE]`, takes it only after `=`).
pub fn flag_names<F: Args>() -> Vec<String> {
    F::augment_args(Command::new("flags"))
        .get_arguments()
        .filter_map(|a| {
            let long = a.get_long()?;
            let value = a.get_action().takes_values() && !a.is_require_equals_set();
            Some(if value { format!("{long}=") } else { long.into() })
        })
        .collect()
}

/// Split `rest` into fio's parts and `F`'s flags, parsed by clap as `iolab NAME` would.
pub fn split_own<F: Args + FromArgMatches>(
    name: &'static str,
    rest: &[String],
) -> Result<(SplitArgs, F), clap::Error> {
    let names = flag_names::<F>();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let split = crate::split_fio_args(rest, &refs);
    let cmd = F::augment_args(Command::new(name));
    let argv = std::iter::once(format!("iolab {name}")).chain(split.other.iter().cloned());
    let m = cmd.try_get_matches_from(argv)?;
    Ok((split, F::from_arg_matches(&m)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Args, Debug)]
    struct Own {
        #[arg(long)]
        prefill: bool,
        #[arg(long)]
        write_iolog: Option<std::path::PathBuf>,
        #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "")]
        predict: Option<String>,
    }

    #[test]
    fn own_flags_come_from_clap() {
        assert_eq!(flag_names::<Own>(), ["prefill", "write-iolog=", "predict"]);
        let rest: Vec<String> = ["a.fio", "--prefill", "--write-iolog", "x.log", "--bs=4k"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (split, own) = split_own::<Own>("run", &rest).unwrap();
        assert!(own.prefill);
        assert_eq!(own.write_iolog.as_deref(), Some(std::path::Path::new("x.log")));
        assert_eq!(split.job_files, [std::path::PathBuf::from("a.fio")]);
        assert_eq!(split.fio_options, ["--bs=4k"]);
    }
}
