//! `tensorfit check`: find the files, analyse them, report, set the exit code.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tensorfit_base::{Code, Severity};
use tensorfit_db::search_paths::SearchPaths;
use tensorfit_ide::{analyze_file, read_source, AnalysisOptions, FsLoader};

use crate::args::{CheckOptions, Format};
use crate::output::{self, CheckedFile};

pub fn run(options: &CheckOptions) -> ExitCode {
    let mut io_errors = Vec::new();
    let paths = collect_files(&options.paths, &mut io_errors);
    let loader = std::sync::Arc::new(FsLoader::within(workspace_roots(&options.paths)));
    // `python3` is asked for its site-packages only if an import needs them.
    let python_paths = match &options.python_paths {
        Some(given) => SearchPaths::given(given.clone()),
        None => SearchPaths::of_python3(),
    };
    loader.set_libraries(python_paths.clone());
    let mut files = Vec::new();
    for path in paths {
        match read_source(&path) {
            Ok(bytes) => {
                let analysis_options = AnalysisOptions {
                    timeout_ms: options.timeout_ms.min(u64::from(u32::MAX)) as u32,
                    python_paths: python_paths.clone(),
                    ..AnalysisOptions::default()
                };
                let mut analysis = analyze_file(&path, &bytes, loader.clone(), analysis_options);
                if options.deny_holes {
                    analysis = analysis.with_left_holes_reported();
                }
                files.push(CheckedFile {
                    path: display_path(&path),
                    analysis,
                });
            }
            Err(error) => io_errors.push(format!(
                "cannot read {}: {error}",
                output::printable(&path.display().to_string())
            )),
        }
    }

    // Stdout is line-buffered; a report can have many thousands of lines.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = match options.format {
        Format::Human => output::human::write(
            &mut out,
            &files,
            output::human::HumanOptions {
                color: output::human::use_color(),
                shapes: options.shapes,
                migrations: options.migrations,
            },
        ),
        Format::Json => output::json::write(&mut out, &files),
        Format::Sarif => output::sarif::write(&mut out, &files),
        Format::Github => output::github::write(&mut out, &files),
    };
    let _ = out.flush();
    if let Err(error) = written {
        // A closed pipe (`| head`) is not worth a message; anything else is.
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("tensorfit: cannot write the report: {error}");
        }
        return ExitCode::from(2);
    }
    for error in &io_errors {
        eprintln!("tensorfit: {error}");
    }
    if !io_errors.is_empty() {
        return ExitCode::from(2);
    }
    // A hole left is a warning, but with `--deny-holes` it fails the check.
    let fails = |d: &tensorfit_base::Diagnostic| {
        d.severity == Severity::Error || (options.deny_holes && d.code == Code::UnsolvedHole)
    };
    let failed = files
        .iter()
        .any(|f| f.analysis.diagnostics().iter().any(fails));
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Where imports may be read from: the current directory and, for each
/// path named, the repository it is in (the nearest directory above it
/// with a `.git`), or else its own directory. `import "../../etc/passwd"`
/// or an absolute path elsewhere is refused.
fn workspace_roots(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::env::current_dir().into_iter().collect();
    for path in paths {
        let Ok(canonical) = std::fs::canonicalize(path) else {
            continue;
        };
        let dir = if canonical.is_dir() {
            canonical
        } else {
            canonical.parent().map(Path::to_owned).unwrap_or(canonical)
        };
        let repository = dir.ancestors().find(|a| a.join(".git").exists());
        roots.push(repository.unwrap_or(&dir).to_owned());
    }
    roots
}

/// The files named, and below the directories named every `*.tensor` file
/// and every `*.py` file that imports PyTorch (a Django view or a plain
/// script is not read: PYTHON.md), in a stable order. Symbolic links below a directory are not followed:
/// they could lead out of the tree or into a loop.
fn collect_files(paths: &[PathBuf], errors: &mut Vec<String>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut seen_dirs = std::collections::HashSet::new();
    for path in paths {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => walk_dir(path, &mut files, &mut seen_dirs, errors),
            Ok(_) => files.push(path.clone()),
            Err(error) => errors.push(format!(
                "cannot read {}: {error}",
                output::printable(&path.display().to_string())
            )),
        }
    }
    files
}

fn walk_dir(
    dir: &Path,
    files: &mut Vec<PathBuf>,
    seen_dirs: &mut std::collections::HashSet<PathBuf>,
    errors: &mut Vec<String>,
) {
    // Guards against symlink loops.
    let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    if !seen_dirs.insert(canonical) {
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            errors.push(format!(
                "cannot read directory {}: {error}",
                output::printable(&dir.display().to_string())
            ));
            return;
        }
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for entry in entries {
        let is_link = std::fs::symlink_metadata(&entry).is_ok_and(|m| m.file_type().is_symlink());
        if is_link {
            continue;
        }
        if entry.is_dir() {
            walk_dir(&entry, files, seen_dirs, errors);
        } else if entry.extension().is_some_and(|ext| ext == "tensor") || is_torch_python(&entry) {
            files.push(entry);
        }
    }
}

/// A `.py` file that imports `torch` (read up to tensorfit's size limit;
/// a larger one is named anyway, for the check to report).
fn is_torch_python(path: &Path) -> bool {
    if path.extension().is_none_or(|ext| ext != "py") {
        return false;
    }
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if meta.len() > tensorfit_db::MAX_SOURCE_BYTES {
        return true;
    }
    std::fs::read_to_string(path).is_ok_and(|text| tensorfit_python::imports_torch(&text))
}

fn display_path(path: &Path) -> String {
    let text = path.display().to_string();
    text.strip_prefix("./").map(str::to_owned).unwrap_or(text)
}
