//! A clone's file names, fio's way, in one place: the engine opens these paths and the
//! generator hashes the same names into each file's random seed (fio filesetup.c
//! `add_file` hashes `f->file_name`). `filename=` names are shared by all clones; otherwise
//! each clone gets `$jobname.$jobnum.$filenum` or `filename_format` (init.c `add_job`,
//! `make_filename`). Relative names go under the `directory=` entries round-robin by file
//! index (filesetup.c `set_name_idx`, which joins with one `/` as written).

use iolab_job::Job;
use std::path::PathBuf;

/// The name of file `i` of clone `clone`, as fio spells it (directory included).
pub fn file_name(job: &Job, clone: u32, i: usize) -> String {
    let base = match job.filenames.get(i) {
        Some(n) => n.clone(),
        None => match &job.filename_format {
            Some(fmt) => fmt
                .replace("$jobname", &job.name)
                .replace("$jobnum", &clone.to_string())
                .replace("$filenum", &i.to_string()),
            None => format!("{}.{}.{}", job.name, clone, i),
        },
    };
    match job.directory.len() {
        0 => base,
        _ if base.starts_with('/') => base,
        n => format!("{}/{base}", job.directory[i % n]),
    }
}

/// The files of one clone: every `filename=` entry, or `nrfiles` generated names.
pub fn clone_files(job: &Job, clone: u32) -> Vec<PathBuf> {
    let n =
        if job.filenames.is_empty() { job.nrfiles.max(1) as usize } else { job.filenames.len() };
    (0..n).map(|i| PathBuf::from(file_name(job, clone, i))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(text: &str) -> Job {
        iolab_job::parse_str("t.fio", &format!("[j]\n{text}")).unwrap().jobs.remove(0)
    }

    #[test]
    fn names_follow_format_and_every_directory() {
        let j = job("nrfiles=3\ndirectory=/a:/b\n");
        assert_eq!(clone_files(&j, 1), ["/a/j.1.0", "/b/j.1.1", "/a/j.1.2"].map(PathBuf::from));
        let j = job("nrfiles=2\nfilename_format=$jobname-f$filenum-c$jobnum\n");
        assert_eq!(clone_files(&j, 2), ["j-f0-c2", "j-f1-c2"].map(PathBuf::from));
        let j = job("filename=x:/abs/y\ndirectory=d\n");
        assert_eq!(clone_files(&j, 5), ["d/x", "/abs/y"].map(PathBuf::from));
        assert_eq!(file_name(&j, 0, 1), "/abs/y");
    }
}
