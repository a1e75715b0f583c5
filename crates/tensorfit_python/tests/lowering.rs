//! What the Python front end makes of each construct PYTHON.md names: every
//! `tests/lowering/*.py` is lowered whole and its tree dumped
//! (`tensorfit_syntax::dump`), then compared with the `.lowered` file beside
//! it. A change of the lowering shows here as a diff of those files;
//! `UPDATE_SNAPSHOTS=1` rewrites them, for the diff to be read and
//! committed.

use std::path::{Path, PathBuf};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lowering");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/lowering")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    files
}

fn lowered(text: &str) -> String {
    let tree = tensorfit_python::parse_tree(text, None);
    let parse = tensorfit_python::lower_tree(&tree, text);
    tensorfit_syntax::dump::source_file(&parse.file)
}

#[test]
fn each_construct_lowers_as_its_snapshot_says() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let files = fixtures();
    assert!(files.len() >= 15, "only {} fixtures", files.len());
    let mut differ = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let actual = lowered(&text);
        let snapshot = file.with_extension("lowered");
        if update {
            std::fs::write(&snapshot, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&snapshot).unwrap_or_default();
        if expected != actual {
            differ.push(format!(
                "{}:\n--- expected\n{expected}\n--- actual\n{actual}",
                snapshot.display()
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "lowerings differ from their snapshots (UPDATE_SNAPSHOTS=1 rewrites them):\n{}",
        differ.join("\n")
    );
}
