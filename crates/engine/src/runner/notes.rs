//! The set-up notes of a clone with many files, folded into one note per remainder.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// A clone with more files than this gets one summary note instead of a note per file.
pub const FILE_NOTES_MAX: usize = 16;

/// Folds the per-file notes a clone's set-up added from `notes[from..]` ("PATH: laid out 4096
/// bytes", one per file) into one note per distinct remainder when the clone has more than
/// [`FILE_NOTES_MAX`] files: "100000 files (FIRST ... LAST): laid out 4096 bytes". Notes not
/// about one of `paths`, and remainders only one file has, stay as they were.
pub fn fold_file_notes(notes: &mut Vec<String>, from: usize, paths: &[PathBuf]) {
    if paths.len() <= FILE_NOTES_MAX || from >= notes.len() {
        return;
    }
    let names: HashSet<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let split = |n: &str| {
        n.match_indices(": ")
            .map(|(i, _)| i)
            .find(|&i| names.contains(&n[..i]))
            .map(|i| (n[..i].to_string(), n[i + 2..].to_string()))
    };
    let mut order: Vec<String> = Vec::new();
    let mut by_rest: HashMap<String, Vec<String>> = HashMap::new();
    let mut kept = Vec::new();
    for n in notes.drain(from..) {
        match split(&n) {
            Some((path, rest)) => {
                let e = by_rest.entry(rest.clone()).or_default();
                if e.is_empty() {
                    order.push(rest);
                }
                e.push(path);
            }
            None => kept.push(n),
        }
    }
    for rest in order {
        let files = &by_rest[&rest];
        match files.as_slice() {
            [one] => notes.push(format!("{one}: {rest}")),
            [first, .., last] => {
                notes.push(format!("{} files ({first} ... {last}): {rest}", files.len()))
            }
            [] => {}
        }
    }
    notes.extend(kept);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_up_notes_of_many_files_fold_into_one_per_remainder() {
        let paths: Vec<PathBuf> = (0..20).map(|i| PathBuf::from(format!("/d/j: {i}"))).collect();
        let mut notes = vec!["before".to_string()];
        notes.extend(paths.iter().map(|p| format!("{}: laid out 4096 bytes", p.display())));
        notes.push("/d/j: 3: invalidated the page cache".into());
        notes.push("not about a file".into());
        fold_file_notes(&mut notes, 1, &paths);
        assert_eq!(
            notes,
            [
                "before",
                "20 files (/d/j: 0 ... /d/j: 19): laid out 4096 bytes",
                "/d/j: 3: invalidated the page cache",
                "not about a file",
            ]
        );
        // Up to FILE_NOTES_MAX files, each keeps its own note.
        let mut few: Vec<String> =
            paths[..2].iter().map(|p| format!("{}: x", p.display())).collect();
        fold_file_notes(&mut few, 0, &paths[..2]);
        assert_eq!(few, ["/d/j: 0: x", "/d/j: 1: x"]);
    }
}
