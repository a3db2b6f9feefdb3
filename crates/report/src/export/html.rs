//! `--output-format=html`: the run as one offline HTML page (crate iolab-viz: tables, inline
//! SVG charts, advice), built from this run's json+ document and JSON Lines intervals (the
//! same reader `iolab report` uses on saved files), with the host it ran on
//! ([`crate::render::host_section`]) and the command's own sections (`iolab_predict`).

use iolab_stats::RunResult;

use super::jsonl::Jsonl;
use crate::render::{host_section, json_doc};
use crate::{Exporter, ReportError};

pub struct Html;

impl Exporter for Html {
    fn name(&self) -> &'static str {
        "html"
    }

    fn render(&self, run: &RunResult) -> Result<Vec<u8>, ReportError> {
        run_page(run, &[])
    }
}

/// The page of `run` with `more` sections after fio's keys and the host's.
pub fn run_page(
    run: &RunResult,
    more: &[(&str, serde_json::Value)],
) -> Result<Vec<u8>, ReportError> {
    let sections = [&[("iolab_host", host_section(run))][..], more].concat();
    let doc = json_doc(run, true, &sections, None);
    let lines = Jsonl.render(run)?;
    Ok(iolab_viz::html_of("run", &doc, &lines)?.into_bytes())
}

/// `iolab sim --output-format=html`: the page of the predicted run (json+ with the
/// `iolab_sim` section, as `--output-format=json+` writes it).
pub fn sim_page(run: &RunResult, sim: &serde_json::Value) -> Result<Vec<u8>, ReportError> {
    let doc = json_doc(run, true, &[("iolab_sim", sim.clone())], None);
    let page = iolab_viz::html_of("sim", &doc, b"").map_err(|e| ReportError::Html(e.into()))?;
    Ok(page.into_bytes())
}

/// The page of a result document (`mrc`, `fill`, `trace stat`, `sim --object-level`, a device
/// profile) as [`crate::render_document`]'s page hook, drawn as `label`.
pub fn doc_page(label: &str) -> impl Fn(&[u8]) -> Result<Vec<u8>, ReportError> + '_ {
    move |doc| match iolab_viz::html_of(label, doc, b"") {
        Ok(page) => Ok(page.into_bytes()),
        Err(e) => Err(ReportError::Html(e.into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_documents_page_or_a_one_line_refusal() {
        let doc = br#"{"method":"exact","points":[{"cache_size":1,"miss_ratio":0.5}]}"#;
        let page = doc_page("mrc")(doc).unwrap();
        assert!(page.starts_with(b"<!DOCTYPE html>"), "{}", String::from_utf8_lossy(&page));
        for bad in [&b""[..], b"\xff\xfe\x00", b"{", b"[NaN]", b"-1"] {
            let e = doc_page("mrc")(bad).unwrap_err().to_string();
            assert!(e.starts_with("html report: ") && !e.contains('\n'), "{bad:?}: {e}");
        }
        let run = RunResult::default();
        let page = sim_page(&run, &serde_json::json!({"tiers": []})).unwrap();
        assert!(page.starts_with(b"<!DOCTYPE html>"));
    }
}
