//! The whole report of every test program, kept in `tests/outputs/`: not
//! only what `//~` comments expect but every shape shown, every hole's
//! range and example, every migration and related location. Speed work
//! (issue 25) must leave each of them as it was; a change that means to
//! alter them regenerates the files with `UPDATE_EXPECT=1` and shows the
//! difference in review.
//!
//! Each file holds one line per entry of the report (a diagnostic, a
//! binding, a hole, ...) as compact JSON, so a diff names the entry that
//! changed. Paths under the workspace are written relative to it.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The report's per-file lists, in the order the snapshot writes them.
const SECTIONS: [&str; 6] = [
    "diagnostics",
    "bindings",
    "holes",
    "conditions",
    "migrations",
    "limits",
];

/// Where the snapshot of the test program `name` (`programs/...`) lives.
pub fn snapshot_path(root: &Path, name: &str) -> PathBuf {
    root.join("tests/outputs").join(format!("{name}.txt"))
}

/// The snapshot text of a JSON report.
pub fn render(report: &[u8], root: &Path) -> Result<String, String> {
    let text = String::from_utf8_lossy(report);
    // Absolute paths differ between clones; the workspace's own do not.
    let prefix = format!("{}/", root.display());
    let text = text.replace(&prefix, "");
    let json: Value =
        serde_json::from_str(&text).map_err(|e| format!("the report is not JSON: {e}"))?;
    let mut out = String::new();
    for file in json["files"].as_array().into_iter().flatten() {
        out.push_str(&format!("file {}\n", file["path"]));
        for section in SECTIONS {
            for entry in file[section].as_array().into_iter().flatten() {
                out.push_str(&format!("{section} {entry}\n"));
            }
        }
    }
    Ok(out)
}

/// Compares `rendered` with the stored snapshot (writing it instead under
/// `UPDATE_EXPECT=1`); a description of the first difference otherwise.
pub fn compare(path: &Path, rendered: &str) -> Result<(), String> {
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        return std::fs::write(path, rendered).map_err(|e| e.to_string());
    }
    let stored = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "no output snapshot {} ({e}); run with UPDATE_EXPECT=1 to write it",
            path.display()
        )
    })?;
    if stored == rendered {
        return Ok(());
    }
    let (old, new): (Vec<&str>, Vec<&str>) = (stored.lines().collect(), rendered.lines().collect());
    let first = old
        .iter()
        .zip(&new)
        .position(|(a, b)| a != b)
        .unwrap_or(old.len().min(new.len()));
    Err(format!(
        "the report differs from {} at line {}:\n  was: {}\n  now: {}\n(run with UPDATE_EXPECT=1 if the change is meant)",
        path.display(),
        first + 1,
        old.get(first).unwrap_or(&"<end>"),
        new.get(first).unwrap_or(&"<end>"),
    ))
}
