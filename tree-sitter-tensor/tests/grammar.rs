//! Checks that need the tree-sitter CLI: the committed `src/` is what
//! `grammar.js` generates, and the grammar's own `test/corpus` passes.
//!
//! Without the CLI these checks say so and pass, so that a plain
//! `cargo test` works anywhere; CI sets `TENSORFIT_REQUIRE_TREE_SITTER=1`
//! (and installs the pinned CLI) so that there they always run, as does
//! `scripts/test.sh` wherever grammar.js changed since `src/` was
//! generated (its recorded SHA-256, which the first test checks).

use std::path::{Path, PathBuf};
use std::process::Command;

fn grammar_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pinned CLI version, or `None` (after saying why) when the checks
/// cannot run here.
fn cli() -> Option<()> {
    let pinned = std::fs::read_to_string(grammar_dir().join("TREE_SITTER_CLI_VERSION")).unwrap();
    let pinned = pinned.trim();
    let found = Command::new("tree-sitter")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success());
    let required = std::env::var_os("TENSORFIT_REQUIRE_TREE_SITTER").is_some();
    let problem = match &found {
        None => format!("the tree-sitter CLI is not installed (cargo install --locked tree-sitter-cli@{pinned})"),
        Some(output) => {
            let version = String::from_utf8_lossy(&output.stdout);
            if version.split_whitespace().nth(1) == Some(pinned) {
                return Some(());
            }
            format!("tree-sitter CLI {} found, but src/ is generated with {pinned}", version.trim())
        }
    };
    assert!(!required, "{problem}");
    eprintln!("skipped: {problem}");
    None
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn committed_parser_matches_grammar_js() {
    if cli().is_none() {
        return;
    }
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("grammar-regenerate");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    for file in ["grammar.js", "tree-sitter.json"] {
        std::fs::copy(grammar_dir().join(file), scratch.join(file)).unwrap();
    }
    let status = Command::new("tree-sitter")
        .arg("generate")
        .current_dir(&scratch)
        .status()
        .unwrap();
    assert!(status.success(), "tree-sitter generate failed");
    for file in ["parser.c", "grammar.json", "node-types.json"] {
        let committed = std::fs::read(grammar_dir().join("src").join(file)).unwrap();
        let generated = std::fs::read(scratch.join("src").join(file)).unwrap();
        assert!(
            committed == generated,
            "src/{file} is out of date: run `tree-sitter generate` in tree-sitter-tensor/ and commit"
        );
    }
    // The recorded hash is what lets a clone skip the CLI while grammar.js
    // is unchanged (scripts/grammar-unchanged.sh): it must name this
    // grammar.js, whose parser was just found current.
    let unchanged = Command::new("bash")
        .arg(grammar_dir().join("../scripts/grammar-unchanged.sh"))
        .status()
        .unwrap();
    assert!(
        unchanged.success(),
        "GRAMMAR_JS_SHA256 does not name grammar.js: run `sha256sum grammar.js | cut -d' ' -f1 > GRAMMAR_JS_SHA256` in tree-sitter-tensor/ and commit"
    );
}

#[test]
fn grammar_corpus_tests_pass() {
    if cli().is_none() {
        return;
    }
    // Run on a copy so that the CLI's build artefacts stay out of the tree.
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("grammar-test");
    let _ = std::fs::remove_dir_all(&scratch);
    for dir in ["src", "test", "queries"] {
        copy_dir(&grammar_dir().join(dir), &scratch.join(dir));
    }
    for file in ["grammar.js", "tree-sitter.json"] {
        std::fs::copy(grammar_dir().join(file), scratch.join(file)).unwrap();
    }
    let output = Command::new("tree-sitter")
        .arg("test")
        .current_dir(&scratch)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "tree-sitter test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("successful parses"),
        "no corpus test ran:\n{stdout}"
    );
}
