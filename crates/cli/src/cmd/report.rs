//! `iolab report RESULT… -o report.html`: one offline HTML page (inline SVG charts, tables,
//! advice) of iolab's and fio's JSON results and of device profiles (`iolab calibrate`'s
//! TOML, read as `sim --backing` reads it, then drawn as `calibrate --html` draws it);
//! drawing and reading in crate iolab-viz. Also the `html` output format of `run` and `sim`
//! (`iolab_report::render`'s page hook).

use iolab_model::device::profile::DeviceProfile;
use iolab_model::ModelError;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Result files: `iolab run`/`sim` JSON (json, json+, optionally followed by jsonl
    /// intervals: `--output-format=json+,jsonl`), JSON Lines, `iolab mrc --json`, `iolab sim
    /// --object-level --output-format=json`, `iolab fill --json`, `iolab trace stat --json`,
    /// `iolab compare --output-format=json`, fio's JSON; a device profile (`iolab calibrate`'s
    /// TOML or JSON).
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(short = 'o', long = "output", default_value = "report.html")]
    output: PathBuf,
}

/// Result files are JSON text: more than this is not one.
const MAX_BYTES: u64 = 256 << 20;

/// Read each result (regular files only, bounded, as `iolab compare` reads them).
pub fn read_inputs(paths: &[PathBuf]) -> anyhow::Result<Vec<iolab_viz::Input>> {
    paths
        .iter()
        .map(|p| {
            let bytes = iolab_core::input::read_bounded(p, "result", MAX_BYTES)?;
            match profile_as_json(p, &bytes)? {
                Some(json) => Ok(iolab_viz::Input::from_bytes(p, &json)?),
                None => Ok(iolab_viz::Input::from_bytes(p, &bytes)?),
            }
        })
        .collect()
}

/// A device profile in TOML (what `iolab calibrate` writes) as the JSON the page is drawn
/// from, read as strictly as `sim --backing=FILE.toml` reads it (an error names the line);
/// `None` for anything that does not look like TOML (JSON, JSON Lines), left to the JSON
/// reader.
fn profile_as_json(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<Option<Vec<u8>>> {
    let shown = path.display().to_string();
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            // A profile with binary bytes in it is named as one, not as broken JSON.
            let head = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or("");
            if looks_like_toml(head) {
                let why = format!("byte {}: not UTF-8 text", e.valid_up_to());
                return Err(ModelError::Profile { path: shown, why }.into());
            }
            return Ok(None);
        }
    };
    if !looks_like_toml(text) {
        return Ok(None);
    }
    let profile = DeviceProfile::from_toml(text, &shown).map_err(|e| match e {
        ModelError::Config { path, why } => ModelError::Profile { path, why },
        e => e,
    })?;
    Ok(Some(serde_json::to_vec(&profile)?))
}

/// A profile's TOML: the first line that is not blank is a comment, `key = …` or a
/// `[table]` header (JSON starts with `{`, `[` and a value, or a value), and a line sets
/// `version` (every profile does; fio's text output, say, does not).
fn looks_like_toml(text: &str) -> bool {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let Some(first) = lines.next() else { return false };
    let table = first.trim_start_matches('[');
    let tomlish = first.starts_with('#')
        || (first.starts_with('[') && table.starts_with(|c: char| c.is_ascii_alphabetic()))
        || (first.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && first.contains('='));
    let version =
        |l: &str| l.strip_prefix("version").is_some_and(|r| r.trim_start().starts_with('='));
    tomlish && (version(first) || lines.any(version))
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let sources: Vec<&std::path::Path> = a.results.iter().map(PathBuf::as_path).collect();
    iolab_report::output::check(&a.output, &sources)?;
    let inputs = read_inputs(&a.results)?;
    let page = iolab_viz::html(&inputs)?;
    // A page that cannot be written (ENOSPC) is saved elsewhere and the error says where.
    iolab_report::render::write(page.as_bytes(), Some(&a.output))?;
    eprintln!("iolab: wrote {} ({} bytes)", a.output.display(), page.len());
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::looks_like_toml;

    #[test]
    fn a_profiles_toml_is_told_from_json_and_text() {
        for toml in ["# iolab device profile\nversion = 1\n", "\n[read]\nx = 1\nversion = 1"] {
            assert!(looks_like_toml(toml), "{toml:?}");
        }
        for other in [
            "{\"version\": 1}",
            "[{\"points\": []}]",
            "[1, 2]",
            "",
            "r: (g=0): rw=randread, bs=4k\nversion 3.33",
            "name = \"x\"\n",
        ] {
            assert!(!looks_like_toml(other), "{other:?}");
        }
    }
}
