//! Which command-line language an `iolab` argv speaks: fio's (iolab run under the name `fio`,
//! through a symlink or hard link, or as `iolab fio …`) or iolab's own subcommands.
//!
//! Source: fio init.c `parse_cmd_line`, which reads argv as C strings; fio's option parser
//! here takes text, so in fio's language every argument must be UTF-8.

use std::ffi::OsString;
use std::path::Path;

/// fio's argv[0] and arguments when `argv` speaks fio (argv[0]'s file name is `fio`, or the
/// subcommand is `fio`); `None` otherwise.
pub fn fio_personality(argv: &[String]) -> Option<(String, Vec<String>)> {
    let argv0 = argv.first()?;
    let name = Path::new(argv0).file_name()?.to_string_lossy().into_owned();
    if name == "fio" {
        return Some((argv0.clone(), argv[1..].to_vec()));
    }
    (argv.get(1)? == "fio").then(|| ("fio".to_string(), argv[2..].to_vec()))
}

/// The argument list as text when it speaks fio (fio's parser takes text); otherwise only
/// argv[0] and the subcommand, since clap reports a non-UTF-8 argument itself. `Err` is fio's
/// one-line message naming the first argument that is not UTF-8 (at most 100 characters).
pub fn argv_text(os: Vec<OsString>) -> Result<Vec<String>, String> {
    let lossy: Vec<String> = os.iter().take(2).map(|a| a.to_string_lossy().into_owned()).collect();
    if fio_personality(&lossy).is_none() {
        return Ok(lossy);
    }
    utf8_args(os).map_err(|shown| format!("fio: argument '{shown}' is not valid UTF-8"))
}

/// `os` as text; `Err` is the first argument that is not UTF-8, lossily decoded, cut to 100
/// characters and escaped, for the caller's message.
pub fn utf8_args(os: impl IntoIterator<Item = OsString>) -> Result<Vec<String>, String> {
    os.into_iter()
        .map(|a| {
            a.into_string().map_err(|bad| {
                let shown: String = bad.to_string_lossy().chars().take(100).collect();
                shown.escape_default().to_string()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn fio_by_name_or_subcommand() {
        let by_name = fio_personality(&v(&["/usr/local/bin/fio", "--version"]));
        assert_eq!(by_name, Some(("/usr/local/bin/fio".into(), v(&["--version"]))));
        let sub = fio_personality(&v(&["iolab", "fio", "job.fio"]));
        assert_eq!(sub, Some(("fio".into(), v(&["job.fio"]))));
        assert_eq!(fio_personality(&v(&["iolab", "run", "fio"])), None);
        assert_eq!(fio_personality(&v(&["iolab"])), None);
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_is_an_error_only_for_fio() {
        use std::os::unix::ffi::OsStringExt;
        let bad = OsString::from_vec(vec![b'a', 0xff]);
        let fio = vec![OsString::from("fio"), bad.clone()];
        assert_eq!(argv_text(fio).unwrap_err(), "fio: argument 'a\\u{fffd}' is not valid UTF-8");
        let own = vec![OsString::from("iolab"), OsString::from("run"), bad];
        assert_eq!(argv_text(own).unwrap(), v(&["iolab", "run"]));
    }
}
