//! One output path for every command that produces a [`RunResult`]: the result in each
//! requested format, in the order given (fio's `--output-format=normal,json`), with what the
//! command adds (the model's tiers after the normal text, `iolab_sim`/`iolab_predict` after
//! fio's JSON keys, the HTML page through a hook since `viz` sits above this crate), then
//! written to `--output` through [`crate::output`] (atomically) or to stdout.

use std::io::Write;
use std::path::Path;

use iolab_stats::RunResult;

use crate::export::{fio_json, terse::Terse};
use crate::{exporter, Exporter, ReportError};

/// Builds the HTML page of a result (`iolab_viz`, which this crate does not depend on) with
/// the command's [`Extras::sections`] (`iolab_predict` beside the run's own charts).
pub type HtmlPage<'a> =
    dyn Fn(&RunResult, &[(&str, serde_json::Value)]) -> Result<Vec<u8>, ReportError> + 'a;

/// What a command adds to its result's documents.
pub struct Extras<'a> {
    /// fio's `--terse-version` (3 by default).
    pub terse_version: u8,
    /// Speaking as fio: the normal output starts with a blank line (stat.c
    /// `__show_run_stats`).
    pub fio: bool,
    /// Text blocks after the normal summary, in order.
    pub after_normal: Vec<String>,
    /// Sections after fio's keys in json and json+, in fio's layout.
    pub sections: Vec<(&'a str, serde_json::Value)>,
    /// A second result rendered in the same format inside one of the `sections`
    /// (`iolab run --predict`: the prediction under `iolab_predict.result`).
    pub inner: Option<Inner<'a>>,
    /// The `html` format's page; without it `html` is the `html` exporter's page of the run.
    pub html: Option<&'a HtmlPage<'a>>,
}

/// See [`Extras::inner`].
pub struct Inner<'a> {
    pub section: &'a str,
    pub key: &'a str,
    pub result: &'a RunResult,
}

impl Default for Extras<'_> {
    fn default() -> Self {
        Extras {
            terse_version: 3,
            fio: false,
            after_normal: vec![],
            sections: vec![],
            inner: None,
            html: None,
        }
    }
}

/// The exporter of `name`, terse in fio's `version`.
pub fn exporter_versioned(name: &str, version: u8) -> Result<Box<dyn Exporter>, ReportError> {
    match name {
        "terse" => Ok(Box::new(Terse { version })),
        _ => exporter(name),
    }
}

/// The formats named in a comma-separated list, each checked against the exporters.
pub fn check_formats(formats: &str, html: bool) -> Result<(), ReportError> {
    for f in formats.split(',').filter(|&f| !(html && f == "html")) {
        exporter(f)?;
    }
    Ok(())
}

/// The result in every format of the comma-separated `formats`, with the command's extras.
pub fn render(result: &RunResult, formats: &str, x: &Extras<'_>) -> Result<Vec<u8>, ReportError> {
    let mut out = Vec::new();
    for fmt in formats.split(',') {
        if let ("html", Some(page)) = (fmt, x.html) {
            out.extend(page(result, &x.sections)?);
            continue;
        }
        if x.fio && fmt == "normal" {
            out.push(b'\n');
        }
        if matches!(fmt, "json" | "json+") && !x.sections.is_empty() {
            out.extend(json_doc(result, fmt == "json+", &x.sections, x.inner.as_ref()));
        } else {
            out.extend(exporter_versioned(fmt, x.terse_version)?.render(result)?);
        }
        if fmt == "normal" {
            x.after_normal.iter().for_each(|t| out.extend(t.as_bytes()));
        }
    }
    Ok(out)
}

/// Builds the HTML page of a JSON document (`iolab_viz`).
pub type DocPage<'a> = dyn Fn(&[u8]) -> Result<Vec<u8>, ReportError> + 'a;

/// A result that is not a run (a miss-ratio curve, a fill estimate, trace statistics, object
/// miss ratios, measured data ratios) in `format`: `normal` (or `text`) its `text`, `json`
/// its serde document, `csv` where it has one, `html` the `page` of its JSON document.
pub fn render_document<T: serde::Serialize>(
    value: &T,
    format: &str,
    text: &dyn Fn(&T) -> String,
    csv: Option<&dyn Fn(&T) -> String>,
    page: Option<&DocPage<'_>>,
) -> Result<Vec<u8>, ReportError> {
    Ok(match (format, csv, page) {
        ("normal" | "text", ..) => text(value).into_bytes(),
        ("json", ..) => (serde_json::to_string_pretty(value)? + "\n").into_bytes(),
        ("csv", Some(csv), _) => csv(value).into_bytes(),
        ("html", _, Some(page)) => page(&serde_json::to_vec(value)?)?,
        (other, csv, page) => {
            let mut known = vec!["normal", "json"];
            known.extend(csv.map(|_| "csv").into_iter().chain(page.map(|_| "html")));
            let expected = known.join(", ");
            return Err(ReportError::UnknownFormat {
                name: other.escape_default().to_string(),
                expected,
            });
        }
    })
}

/// How a result that is not a run (a miss-ratio curve, a fill estimate, trace statistics) is
/// written: `--output-format`, as `run` and `sim` take it, or one of its shorthands; with the
/// `clap` feature, also those flags.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "clap", derive(clap::Args), group(skip))]
pub struct DocFormat {
    /// normal, json, csv (`mrc` only) or html (an offline page, `iolab report`'s).
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "FORMAT", conflicts_with_all = ["json", "csv", "html"])
    )]
    pub output_format: Option<String>,
    /// The same as --output-format=json.
    #[cfg_attr(feature = "clap", arg(long, conflicts_with_all = ["csv", "html"]))]
    pub json: bool,
    /// The same as --output-format=csv (`mrc` only).
    #[cfg_attr(feature = "clap", arg(long, conflicts_with = "html"))]
    pub csv: bool,
    /// The same as --output-format=html: an offline HTML page (`iolab report`'s) on stdout.
    #[cfg_attr(feature = "clap", arg(long))]
    pub html: bool,
}

impl DocFormat {
    /// The format named ([`render_document`] refuses one the result does not have).
    pub fn name(&self) -> &str {
        let short = [(self.html, "html"), (self.json, "json"), (self.csv, "csv")];
        let short = short.into_iter().find(|f| f.0).map_or("normal", |f| f.1);
        self.output_format.as_deref().unwrap_or(short)
    }
}

/// fio's JSON (json+ with `plus`) with the command's sections after fio's keys, in fio's
/// layout; `inner` renders a second result inside one of them.
pub fn json_doc(
    result: &RunResult,
    plus: bool,
    sections: &[(&str, serde_json::Value)],
    inner: Option<&Inner<'_>>,
) -> Vec<u8> {
    let mut root = fio_json::fio_json(result, plus);
    for (k, v) in sections {
        let mut j = fio_json::value_to_j(v);
        if let Some(i) = inner.filter(|i| i.section == *k) {
            j.put(i.key, fio_json::fio_json(i.result, plus));
        }
        root.put(*k, j);
    }
    let mut s = root.to_fio_string();
    s.push('\n');
    s.into_bytes()
}

/// The host a measured result ran on, for the HTML page: hostname, kernel release, command
/// line.
pub fn host_section(result: &RunResult) -> serde_json::Value {
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    serde_json::json!({
        "hostname": result.meta.hostname,
        "kernel": kernel.trim(),
        "command_line": result.meta.command_line.join(" "),
    })
}

/// `bytes` to `path` (atomically, see [`crate::output`]) or, without one, to stdout. When
/// that fails (ENOSPC, EIO, a destination refused at the end), the bytes are saved elsewhere
/// and the error says where ([`crate::output::rescue`]); a closed stdout (EPIPE) is left to
/// the caller, which ends quietly as fio does.
pub fn write(bytes: &[u8], path: Option<&Path>) -> Result<(), ReportError> {
    let r = match path {
        Some(p) => crate::output::write_atomic(p, bytes),
        None => {
            let mut s = std::io::stdout().lock();
            let stdout_err = |source| ReportError::Io { path: "stdout".into(), source };
            s.write_all(bytes).and_then(|()| s.flush()).map_err(stdout_err)
        }
    };
    match r {
        Err(ReportError::Io { source, .. })
            if path.is_none() && source.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            Err(ReportError::Io { path: "stdout".into(), source })
        }
        Err(e) => {
            let rescued = crate::output::rescue::rescue(bytes, path);
            Err(ReportError::Unsaved { cause: Box::new(e), rescued })
        }
        Ok(()) => Ok(()),
    }
}

/// `f` writing through a buffer into `path`'s [`crate::output::OutputFile`] (a temporary
/// renamed into place when whole, removed on error or signal; a device or FIFO written
/// through); returns what `f` returns.
pub fn write_streamed<T, E: From<ReportError>>(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> Result<T, E>,
) -> Result<T, E> {
    let mut out = crate::output::OutputFile::create(path)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut out);
    let v = f(&mut w)?;
    let io = |source| ReportError::Io { path: path.to_path_buf(), source };
    w.flush().map_err(io)?;
    drop(w);
    out.commit()?;
    Ok(v)
}

/// [`render`], then [`write`].
pub fn render_to(
    result: &RunResult,
    formats: &str,
    x: &Extras<'_>,
    path: Option<&Path>,
) -> Result<(), ReportError> {
    write(&render(result, formats, x)?, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_in_order_with_sections_and_text() {
        let r = RunResult::default();
        let x = Extras {
            after_normal: vec!["\nMODEL\n".into()],
            sections: vec![("iolab_sim", serde_json::json!({"tiers": 2}))],
            ..Extras::default()
        };
        let out = String::from_utf8(render(&r, "normal,json", &x).unwrap()).unwrap();
        let model = out.find("MODEL").unwrap();
        let json = out.find("\"fio version\"").unwrap();
        assert!(model < json, "{out}");
        let doc: serde_json::Value = serde_json::from_str(&out[out.find('{').unwrap()..]).unwrap();
        assert_eq!(doc["iolab_sim"]["tiers"], 2);
        let inner = Inner { section: "iolab_predict", key: "result", result: &r };
        let sections = vec![("iolab_predict", serde_json::json!({"rows": []}))];
        let x2 = Extras { sections, inner: Some(inner), ..Extras::default() };
        let doc: serde_json::Value =
            serde_json::from_slice(&render(&r, "json", &x2).unwrap()).unwrap();
        assert_eq!(doc["iolab_predict"]["result"]["fio version"], "fio-3.33");
        // Without a page hook, `html` is the `html` exporter's page of the run.
        let page = render(&r, "html", &x).unwrap();
        assert!(page.starts_with(b"<!DOCTYPE html>"), "{}", String::from_utf8_lossy(&page));
        let page = |_: &RunResult, _: &[(&str, serde_json::Value)]| Ok(b"<html>".to_vec());
        let x = Extras { html: Some(&page), terse_version: 2, ..Extras::default() };
        let out = render(&r, "html,terse", &x).unwrap();
        // No job: terse has no line, the page alone.
        assert_eq!(out, b"<html>");
    }

    #[test]
    fn a_document_as_text_json_csv_or_page() {
        let v = serde_json::json!({"b": 1, "a": 2});
        let text = |v: &serde_json::Value| format!("b={}\n", v["b"]);
        let csv = |_: &serde_json::Value| "b,a\n1,2\n".to_string();
        let page = |doc: &[u8]| Ok([b"<p>".as_slice(), doc].concat());
        assert_eq!(render_document(&v, "normal", &text, None, None).unwrap(), b"b=1\n");
        let json = render_document(&v, "json", &text, None, None).unwrap();
        assert_eq!(serde_json::from_slice::<serde_json::Value>(&json).unwrap(), v);
        assert_eq!(render_document(&v, "csv", &text, Some(&csv), None).unwrap(), b"b,a\n1,2\n");
        let html = render_document(&v, "html", &text, None, Some(&page)).unwrap();
        assert!(html.starts_with(b"<p>{"));
        let e = render_document(&v, "csv", &text, None, Some(&page)).unwrap_err().to_string();
        assert_eq!(e, "unknown output format 'csv'; expected one of: normal, json, html");
    }

    #[test]
    fn a_document_format_from_the_flag_or_a_shorthand() {
        let f = |output_format: Option<&str>, json, csv, html| {
            let output_format = output_format.map(str::to_string);
            DocFormat { output_format, json, csv, html }.name().to_string()
        };
        assert_eq!(f(None, false, false, false), "normal");
        assert_eq!(
            (f(None, true, false, false), f(None, false, true, false)),
            ("json".into(), "csv".into())
        );
        assert_eq!(f(None, false, false, true), "html");
        assert_eq!(f(Some("csv"), false, false, false), "csv");
        // The name is given as written; render_document refuses a hostile one, escaped.
        let v = serde_json::json!({});
        let text = |_: &serde_json::Value| String::new();
        for bad in ["", "\u{0}\u{1b}[2J", "-1", "NaN", &"x".repeat(100_000)] {
            let name = f(Some(bad), false, false, false);
            let e = render_document(&v, &name, &text, None, None).unwrap_err().to_string();
            assert!(e.starts_with("unknown output format '") && !e.contains('\u{1b}'), "{e:.80}");
        }
    }
}
