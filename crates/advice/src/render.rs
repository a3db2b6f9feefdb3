//! Plain-text rendering of advice, printed after the run summary: one block per finding, its
//! evidence, why and what-to-do wrapped to 100 columns so they read in a terminal and in a
//! pasted log (the one-line header is left whole so it can be grepped).

use iolab_stats::diskseries::iostat_line;
use iolab_stats::{DiskUtil, JobResult, RunResult};

use crate::evidence::{foreign_io, mean_issued_depth, JobEvidence};
use crate::{Advice, Evidence, Severity};

const WIDTH: usize = 100;
const LABEL: usize = 16;

/// The findings as text; empty string when there are none.
pub fn render_text(advice: &[Advice]) -> String {
    if advice.is_empty() {
        return String::new();
    }
    let warnings = advice.iter().filter(|a| a.severity == Severity::Warning).count();
    let notes = advice.len() - warnings;
    let mut s = format!("Advice: {warnings} warning(s), {notes} note(s)\n");
    for a in advice {
        s.push_str(&format!(
            "  {:<7} [{}] {}: {}\n",
            a.severity.as_str(),
            a.id,
            a.subject,
            a.title
        ));
        for (label, text) in
            [("evidence:", &a.evidence), ("why:", &a.why), ("what to do:", &a.what_to_do)]
        {
            wrap_into(&mut s, label, text);
        }
    }
    s
}

/// The warnings, then the notes, one line each, under a count of everything found (for the
/// quick profile's one table; the full text is in [`render_text`] and the JSON). Issue 17:
/// the notes were counted but not shown.
pub fn render_brief(advice: &[Advice]) -> String {
    if advice.is_empty() {
        return String::new();
    }
    let warnings = advice.iter().filter(|a| a.severity == Severity::Warning).count();
    let mut s = format!(
        "Advice: {} warning(s), {} note(s); evidence and what to do with --output-format=json\n",
        warnings,
        advice.len() - warnings
    );
    for sev in [Severity::Warning, Severity::Info] {
        for a in advice.iter().filter(|a| a.severity == sev) {
            let kind = if sev == Severity::Warning { "warning" } else { "note" };
            s.push_str(&format!("  {kind} [{}] {}: {}\n", a.id, a.subject, a.title));
        }
    }
    s
}

/// The device view: for each reporting group (phase), the depth iolab issued beside what
/// each device serving it saw (`iostat -x` figures over the phase's window), so "asked 8,
/// device saw 1" is visible without reading the advice.
pub fn render_device_view(r: &RunResult, ev: &Evidence) -> String {
    let mut s = String::new();
    for (gid, jobs) in ev.groups(r) {
        let asked: u32 = jobs.iter().map(|(_, e)| e.iodepth.max(1)).sum();
        let depths: Vec<f64> = jobs.iter().filter_map(|(j, _)| mean_issued_depth(j)).collect();
        let issued = if depths.is_empty() {
            "n/a".to_string()
        } else {
            format!("{:.2}", depths.iter().sum::<f64>())
        };
        let mut names: Vec<&String> = jobs.iter().flat_map(|(_, e)| &e.devices).collect();
        names.sort();
        names.dedup();
        let Some(devs) = ev.phase_rates(r, gid) else { continue };
        let p = ev.phases.iter().find(|p| p.groupid == gid);
        let first = jobs.first().map(|(j, _)| j.name.as_str()).unwrap_or("");
        s.push_str(&format!(
            "Device view, group {gid} ({} job(s) from '{first}'{}): iodepth asked {asked}, \
             issued mean {issued}\n",
            jobs.len(),
            p.map(|p| format!(", {:.1}-{:.1} s", p.start_ns as f64 / 1e9, p.end_ns as f64 / 1e9))
                .unwrap_or_default()
        ));
        for d in devs.iter().filter(|d| names.contains(&&d.name)) {
            s.push_str(&format!("  {}\n", iostat_line(d)));
            backing_lines(&mut s, &d.name, &jobs, devs);
        }
        let mine: Vec<&DiskUtil> = devs.iter().filter(|d| names.contains(&&d.name)).collect();
        if let Some(f) = foreign_io(&jobs, &mine) {
            let buffered = jobs.iter().any(|(_, e)| !e.direct);
            s.push_str(&format!("  note: {}\n", f.describe(buffered)));
        }
    }
    s
}

/// Under a loop device: its backing file, and the devices under that file with their own
/// figures (the loop device's I/O reaches the host's disk through the file system there, so
/// that disk's line is what backs the loop device's, shared with whatever else uses it).
fn backing_lines(
    s: &mut String,
    dev: &str,
    jobs: &[(&JobResult, &JobEvidence)],
    devs: &[DiskUtil],
) {
    let Some(b) = jobs.iter().flat_map(|(_, e)| &e.loop_backing).find(|b| b.device == dev) else {
        return;
    };
    let file = b.file.as_ref().map_or("an unnamed file".into(), |f| f.display().to_string());
    let under =
        if b.under.is_empty() { "no block device (tmpfs?)".into() } else { b.under.join(", ") };
    s.push_str(&format!("    {dev} is backed by {file}, on {under}\n"));
    for d in devs.iter().filter(|d| b.under.contains(&d.name)) {
        s.push_str(&format!("    {} (backing {dev}; shared with other I/O)\n", iostat_line(d)));
    }
}

fn wrap_into(out: &mut String, label: &str, text: &str) {
    let indent = " ".repeat(4 + LABEL);
    let mut line = format!("    {label:<LABEL$}");
    let mut empty = true;
    for w in text.split_whitespace() {
        if !empty && line.len() + 1 + w.len() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = indent.clone();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(w);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_and_counts() {
        let a = Advice {
            id: "x",
            severity: Severity::Warning,
            subject: "job 'a'".into(),
            title: "t".into(),
            evidence: "word ".repeat(60),
            why: "because".into(),
            what_to_do: "fix".into(),
        };
        let s = render_text(&[a]);
        assert!(s.starts_with("Advice: 1 warning(s), 0 note(s)\n  warning [x] job 'a': t\n"));
        assert!(s.lines().all(|l| l.len() <= WIDTH), "{s}");
        assert!(s.contains("\n    what to do:     fix\n"), "{s}");
        assert_eq!(render_text(&[]), "");
    }

    #[test]
    fn brief_lists_notes_after_warnings() {
        let mk = |id, severity| Advice {
            id,
            severity,
            subject: "job 'q'".into(),
            title: format!("{id} title"),
            evidence: String::new(),
            why: String::new(),
            what_to_do: String::new(),
        };
        let s = render_brief(&[mk("n1", Severity::Info), mk("w1", Severity::Warning)]);
        assert_eq!(
            s.lines().skip(1).collect::<Vec<_>>(),
            ["  warning [w1] job 'q': w1 title", "  note [n1] job 'q': n1 title"]
        );
        assert!(s.starts_with("Advice: 1 warning(s), 1 note(s)"), "{s}");
        let only_note = render_brief(&[mk("n1", Severity::Info)]);
        assert!(only_note.contains("note [n1]"), "a note alone is shown: {only_note}");
        assert_eq!(render_brief(&[]), "");
    }
}
