//! The programs mutants are made from: every `*.tensor` and `*.py` file
//! under the given directories, in a stable order.

use std::path::{Path, PathBuf};

pub use tensorfit_base::Language;

pub struct Program {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

impl Program {
    pub fn language(&self) -> Language {
        Language::of_path(&self.path)
    }
}

/// The repository's test programs and examples, and the shared corpus when
/// it is there (`TENSORFIT_CORPUS`, or `../shared/corpus` beside `root`).
pub fn default_directories(root: &Path) -> Vec<PathBuf> {
    let corpus = std::env::var_os("TENSORFIT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    let mut directories = vec![
        root.join("tests/programs"),
        root.join("tests/python"),
        root.join("examples"),
    ];
    if corpus.is_dir() {
        directories.push(corpus);
    }
    directories
}

/// Every `*.tensor` and `*.py` file under `directories` (links not followed).
pub fn collect(directories: &[PathBuf]) -> std::io::Result<Vec<Program>> {
    let mut programs = Vec::new();
    let mut stack = directories.to_vec();
    while let Some(directory) = stack.pop() {
        for entry in std::fs::read_dir(&directory)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() && is_program(&path) {
                let bytes = std::fs::read(&path)?;
                programs.push(Program { path, bytes });
            }
        }
    }
    programs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(programs)
}

/// A Tensor or Python file, by its extension.
fn is_program(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == Language::Tensor.extension() || e == Language::Python.extension())
}
