//! Plain-text renderings of the registry for `iolab options`: the grouped listing (the
//! shape of fio's `--cmdhelp`, `init.c` `fio_show_option_help`, plus iolab's status marker)
//! and the full description of one option.

use std::fmt::Write;

use super::markdown::{bounds, type_name};
use super::{by_category, OptionDef, Status};

/// `iolab options --status`: one [`Status`] to list (with the `clap` feature, its values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum StatusFilter {
    Supported,
    Ignored,
    Unsupported,
}

impl StatusFilter {
    /// Whether an option of status `s` is listed.
    pub fn keeps(self, s: Status) -> bool {
        matches!(
            (self, s),
            (StatusFilter::Supported, Status::Supported)
                | (StatusFilter::Ignored, Status::Ignored(_))
                | (StatusFilter::Unsupported, Status::Unsupported(_))
        )
    }
}

/// Every option grouped by category: `  + name            one-line help`.
pub fn listing() -> String {
    listing_where(|_| true)
}

/// The listing restricted to the options `keep` accepts (e.g. one status).
pub fn listing_where(keep: impl Fn(&OptionDef) -> bool) -> String {
    // Most names fit in 26 columns; the few longer ones push their help right.
    let width = 26;
    let mut s = String::from(
        "Status: + supported, ~ accepted but ignored (with a warning), - refused.\n\
         `iolab options NAME` shows one option in full.\n",
    );
    for (cat, opts) in by_category() {
        let opts: Vec<_> = opts.into_iter().filter(|o| keep(o)).collect();
        if opts.is_empty() {
            continue;
        }
        let _ = writeln!(s, "\n{}:", cat.title());
        for o in opts {
            let _ = writeln!(s, "  {} {:<width$}  {}", o.status.marker(), o.name, o.help);
        }
    }
    s
}

/// One option in full: type, default, choices, aliases, engines, status and reason, and
/// the long help wrapped to 80 columns.
pub fn describe(o: &OptionDef) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}: {}", o.name, o.help);
    let _ = writeln!(s, "  category: {}", o.category.title());
    let _ = writeln!(s, "  type:     {}", type_name(o.ty));
    if !o.aliases.is_empty() {
        let _ = writeln!(s, "  aliases:  {}", o.aliases.join(", "));
    }
    if !o.default.is_empty() {
        let _ = writeln!(s, "  default:  {}", o.default);
    }
    if !o.choices.is_empty() {
        let _ = writeln!(s, "  choices:  {}", o.choices.join(", "));
    }
    if let Some(r) = bounds(o) {
        let _ = writeln!(s, "  range:    {r}");
    }
    if !o.engine.is_empty() {
        let _ = writeln!(s, "  engine:   {}", o.engine.join(", "));
    }
    match o.status.reason() {
        None => {
            let _ = writeln!(s, "  status:   {}", o.status.word());
        }
        Some(r) => {
            let _ = writeln!(s, "  status:   {}: {}", o.status.word(), r);
        }
    }
    if !o.long_help.is_empty() {
        s.push('\n');
        s.push_str(&wrap(o.long_help, 80));
    }
    s
}

/// Greedy word wrap; words longer than the width stay whole.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for w in text.split_whitespace() {
        if line > 0 && line + 1 + w.len() > width {
            out.push('\n');
            line = 0;
        }
        if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(w);
        line += w.len();
    }
    out.push('\n');
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::lookup;
    use super::*;

    #[test]
    fn listing_has_every_option_once_with_its_marker() {
        let l = listing();
        for o in super::super::OPTIONS {
            let needle = format!("  {} {} ", o.status.marker(), o.name);
            assert_eq!(l.matches(&needle).count(), 1, "{}", o.name);
        }
        assert!(l.contains("\nI/O engines and their options:\n"));
    }

    #[test]
    fn listing_filtered_by_status() {
        let l = listing_where(|o| matches!(o.status, super::super::Status::Unsupported(_)));
        assert!(l.contains(" - verify_async "));
        assert!(!l.contains(" + iodepth "));
        assert!(!l.contains("iolab extensions:"), "a category with nothing left is dropped");
    }

    #[test]
    fn describe_shows_status_reason_and_aliases() {
        let d = describe(lookup("verify_async").unwrap());
        assert!(d.contains("status:   unsupported: not implemented"), "{d}");
        let d = describe(lookup("rw").unwrap());
        assert!(d.contains("aliases:  readwrite"));
        assert!(d.contains("default:  read"));
        let long = d.split("\n\n").nth(1).unwrap();
        assert!(long.lines().all(|l| l.chars().count() <= 80), "{long}");
        assert!(long.contains("randread:8"));
    }

    #[test]
    fn wrap_keeps_words_and_width() {
        let w = wrap("aaa bbb ccc ddd", 7);
        assert_eq!(w, "aaa bbb\nccc ddd\n");
    }

    #[test]
    fn a_status_filter_keeps_its_status_only() {
        let (ok, ign, uns) = (Status::Supported, Status::Ignored("x"), Status::Unsupported("y"));
        assert!(StatusFilter::Supported.keeps(ok) && !StatusFilter::Supported.keeps(ign));
        assert!(StatusFilter::Ignored.keeps(ign) && !StatusFilter::Ignored.keeps(uns));
        assert!(StatusFilter::Unsupported.keeps(uns) && !StatusFilter::Unsupported.keeps(ok));
        let listed = super::super::OPTIONS.iter().filter(|o| StatusFilter::Ignored.keeps(o.status));
        assert!(listed.count() > 0);
    }
}
