//! Standard streams for child processes that do not open `/dev/null` (std's `Stdio::null()`
//! does): a test must not depend on the system's `/dev/null` being the null device (the
//! README's test command once failed on a machine where it had been replaced by a file).

use std::os::fd::{FromRawFd, OwnedFd};
use std::process::Stdio;

/// An stdin that is at end of file at once: the read end of a pipe whose write end is closed.
pub fn empty_stdin() -> std::io::Result<Stdio> {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid array of two ints for pipe2(2) to fill.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both descriptors are open and owned by nobody else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(write);
    Ok(Stdio::from(read))
}

/// An output sink: an unnamed temporary file (O_TMPFILE), gone when the child exits.
pub fn sink() -> std::io::Result<Stdio> {
    Ok(Stdio::from(tempfile::tempfile()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn empty_stdin_is_at_end_of_file() {
        let o = Command::new("sh")
            .args(["-c", "wc -c"])
            .stdin(empty_stdin().unwrap())
            .output()
            .unwrap();
        assert!(o.status.success());
        assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "0");
    }

    #[test]
    fn sink_takes_output_and_the_child_succeeds() {
        let st = Command::new("sh")
            .args(["-c", "head -c 1048576 /proc/self/exe; echo done"])
            .stdout(sink().unwrap())
            .status()
            .unwrap();
        assert!(st.success());
    }
}
