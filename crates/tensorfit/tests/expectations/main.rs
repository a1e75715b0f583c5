//! Runs every `.tensor` file of the shared corpus, `tests/programs/` and
//! `examples/models/`, and every `.py` file of `tests/python/`, through
//! `tensorfit check --format json` and compares the report with the file's
//! `//~` (Python: `#~`) expectations (docs/testing.md).
//!
//! Expectations that a later issue will satisfy are listed in
//! `tests/pending.txt`; a listed expectation that starts to hold fails the
//! run until it is removed from the list, so the list only ever shrinks.

mod compare;
mod expectation;
mod outputs;
mod pending;
mod report;
mod torch_oracle;

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let root = workspace_root();
    let pending_path = root.join("tests/pending.txt");
    let pending = match pending::Pending::load(&pending_path) {
        Ok(pending) => pending,
        Err(error) => {
            eprintln!("cannot read {}: {error}", pending_path.display());
            std::process::exit(2);
        }
    };
    let mut trials = Vec::new();
    let mut all_keys = Vec::new();
    for (label, dir) in test_roots(&root) {
        let Some(dir) = dir else {
            // The shared corpus sits beside a checkout, not in it: a plain
            // clone runs without it (shown as ignored) unless
            // TENSORFIT_REQUIRE_CORPUS asks for it. The other roots are
            // the repository's own.
            let optional =
                label == "corpus" && std::env::var_os("TENSORFIT_REQUIRE_CORPUS").is_none();
            let trial = Trial::test(format!("{label} (missing)"), move || {
                Err(Failed::from(format!(
                    "the {label} directory was not found; set TENSORFIT_CORPUS to the shared corpus"
                )))
            });
            trials.push(trial.with_ignored_flag(optional));
            continue;
        };
        for file in tensor_files(&dir) {
            let relative = file
                .strip_prefix(&dir)
                .unwrap_or(&file)
                .to_string_lossy()
                .replace('\\', "/");
            let name = format!("{label}/{relative}");
            let source = std::fs::read_to_string(&file).unwrap_or_default();
            let marker = expectation::marker_for(&file);
            let expectations = expectation::parse_file(&source, marker);
            for expectation in &expectations {
                all_keys.push(pending::Key::new(
                    &name,
                    expectation.line,
                    &expectation.text,
                ));
            }
            let pending = pending.for_file(&name);
            // A file that expects something has it proved by PyTorch; one
            // that expects nothing (silence on code that is not PyTorch, or
            // not even Python 3) is only checked to be silent.
            if label == "python" && !expectations.is_empty() {
                trials.push(torch_oracle::trial(&root, &name, &file));
            }
            // The shared corpus is not the repository's: its outputs are
            // not kept here.
            let snapshot = (label != "corpus").then(|| outputs::snapshot_path(&root, &name));
            let root = root.clone();
            trials.push(Trial::test(name.clone(), move || {
                check_file(&root, &file, &source, &pending, snapshot.as_deref())
            }));
        }
    }
    let stale = pending.stale_entries(&all_keys);
    trials.push(Trial::test(
        "pending list names existing expectations",
        move || {
            if stale.is_empty() {
                Ok(())
            } else {
                Err(Failed::from(format!(
                    "tests/pending.txt lists expectations that no test file has:\n  {}",
                    stale.join("\n  ")
                )))
            }
        },
    ));
    libtest_mimic::run(&args, trials).exit();
}

/// Checks the program at `path` against its expectations and, given a
/// snapshot, its whole report against the snapshot (`outputs.rs`). It runs
/// from the workspace root so that the report's paths are the same in any
/// clone.
fn check_file(
    root: &Path,
    path: &Path,
    source: &str,
    pending: &pending::FilePending,
    snapshot: Option<&Path>,
) -> Result<(), Failed> {
    let output = Command::new(env!("CARGO_BIN_EXE_tensorfit"))
        .current_dir(root)
        .args(["check", "--format", "json"])
        .arg(path.strip_prefix(root).unwrap_or(path))
        .output()
        .map_err(|e| format!("cannot run tensorfit: {e}"))?;
    let code = output.status.code();
    if !matches!(code, Some(0 | 1)) {
        return Err(format!(
            "tensorfit exited with {code:?}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let report = report::Report::from_json(&output.stdout)?;
    let expectations = expectation::parse_file(source, expectation::marker_for(path));
    let has_errors = report.diagnostics.iter().any(|d| d.severity == "error");
    if has_errors != (code == Some(1)) {
        return Err(format!("exit code {code:?} does not agree with the reported errors").into());
    }
    let problems = compare::compare(&expectations, &report, pending);
    if !problems.is_empty() {
        return Err(format!("{}:\n  {}", path.display(), problems.join("\n  ")).into());
    }
    match snapshot {
        Some(snapshot) => {
            let rendered = outputs::render(&output.stdout, root)?;
            outputs::compare(snapshot, &rendered).map_err(Failed::from)
        }
        None => Ok(()),
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// The shared corpus (beside the repository, or `TENSORFIT_CORPUS`) and the
/// project's own test programs.
fn test_roots(root: &Path) -> Vec<(&'static str, Option<PathBuf>)> {
    let corpus = std::env::var_os("TENSORFIT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    let programs = root.join("tests/programs");
    let models = root.join("examples/models");
    let python = root.join("tests/python");
    vec![
        ("corpus", corpus.is_dir().then_some(corpus)),
        ("programs", programs.is_dir().then_some(programs)),
        ("models", models.is_dir().then_some(models)),
        ("python", python.is_dir().then_some(python)),
    ]
}

fn tensor_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "tensor" || e == "py") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}
