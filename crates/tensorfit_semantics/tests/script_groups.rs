//! Analysing the script in groups of statements that share no variable
//! must report exactly what analysing it whole reports: the same
//! diagnostics, shapes, holes, conditions and migrations. Checked on every
//! program of the test suite, the shared corpus and the examples.

use std::path::{Path, PathBuf};

use tensorfit_semantics::{
    check_shapes, check_shapes_whole_script, independent_groups, Limits, ShapeOptions,
};

const OPTIONS: ShapeOptions = ShapeOptions {
    limits: Limits { timeout_ms: 2000 },
    questions: true,
    language: tensorfit_semantics::Language::Tensor,
};

fn tensor_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            tensor_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "tensor") {
            found.push(path);
        }
    }
}

#[test]
fn groups_agree_with_the_whole_script_on_every_program() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["tests/programs", "examples", "../shared/corpus"] {
        tensor_files(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() >= 30, "the programs were not found: {files:?}");
    let mut split = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let file = tensorfit_syntax::parse(&text).file;
        if independent_groups(&file.script).len() > 1 {
            split += 1;
        }
        assert_eq!(
            check_shapes(&file, &[], OPTIONS),
            check_shapes_whole_script(&file, &[], OPTIONS),
            "{}: the grouped analysis differs from the whole script's",
            path.display()
        );
    }
    // Otherwise this test would compare nothing but whole scripts.
    assert!(split >= 10, "only {split} programs have a split script");
}

#[test]
fn groups_agree_on_a_script_of_errors_holes_conditions_and_shared_variables() {
    let text = "\
fn head(x: Tensor[b, 8]) -> Tensor[b, 4] {
    return x @ ones(8, 4)
}

let a = randn(2, 8)
let b = randn(3, 9)
let wrong = head(b)
let right = head(a) |-> [2, 4]
let fitted = randn(6, 4).reshape(__, 8)
var acc = zeros(4)
for i in 0..3 {
    acc = acc + right[0]
}
if a.shape[0] == 2 {
    let c = a @ ones(8, 3)
} else {
    let d = a @ ones(5, 3)
}
let e = zeros(3) @ ones(4)
let again = randn(3, 8).reshape(__, 6)
";
    let file = tensorfit_syntax::parse(text).file;
    assert!(independent_groups(&file.script).len() >= 4);
    let whole = check_shapes_whole_script(&file, &[], OPTIONS);
    assert!(whole.diagnostics.len() >= 2, "{:?}", whole.diagnostics);
    assert_eq!(check_shapes(&file, &[], OPTIONS), whole);
}
