//! Property test: whatever the bytes, checking answers with diagnostics and
//! never panics or hangs. Inputs are the corpus and test programs, truncated
//! and mutated by a seeded generator (deterministic, so a failure reproduces).

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use tensorfit_fuzz::mutate::mutate;
use tensorfit_fuzz::programs::{self, Language, Program};
use tensorfit_fuzz::rng::Rng;
use tensorfit_ide::{analyze_file, AnalysisOptions, FileLoader};

/// Imports resolve to nothing: the property is about the file itself.
struct NoFiles;
impl FileLoader for NoFiles {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            path.display().to_string(),
        ))
    }
}

fn programs() -> Vec<Program> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut directories = programs::default_directories(&root);
    directories.retain(|d| !d.ends_with("examples")); // the test programs cover them
    let files = programs::collect(&directories).expect("the test programs can be read");
    assert!(
        files.len() >= 9,
        "expected the corpus and test programs, found {} files",
        files.len()
    );
    files
}

/// Checks `bytes`, a file of `language`, on a thread with the stack every
/// analysis thread gets (`ANALYSIS_STACK_BYTES`: the CLI's, the server's
/// runtime and analysis pool), and fails on a panic or after 20 s. A stack
/// overflow aborts the test process, which fails it too. (This used
/// 2 MiB, a tokio worker's default, before the server's threads were
/// given the analysis stack; the Python lowering's bounded nesting needs
/// more than that in a debug build.)
fn check_survives(label: &str, language: Language, bytes: Vec<u8>) {
    let name = format!("fuzz.{}", language.extension());
    let (done, wait) = mpsc::channel();
    let input = bytes.clone();
    let worker = std::thread::Builder::new()
        .stack_size(tensorfit_base::ANALYSIS_STACK_BYTES)
        .spawn(move || {
            let analysis = analyze_file(
                Path::new(&name),
                &input,
                std::sync::Arc::new(NoFiles),
                AnalysisOptions {
                    timeout_ms: 200,
                    ..AnalysisOptions::default()
                },
            );
            // The engine's panics are caught and reported as internal
            // errors; here they are failures.
            if let Some(d) = analysis
                .diagnostics()
                .iter()
                .find(|d| d.code == tensorfit_base::Code::InternalError)
            {
                panic!("internal error: {}", d.message);
            }
            // Every range must lie inside the text and map to a position.
            for d in analysis.diagnostics() {
                assert!(
                    d.range.start <= d.range.end && d.range.end as usize <= analysis.text.len()
                );
                analysis.line_index.position(d.range.end);
            }
            let _ = done.send(());
        })
        .unwrap();
    match wait.recv_timeout(Duration::from_secs(20)) {
        Ok(()) => worker.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic!(
                "{label}: checking panicked on input:\n{}",
                String::from_utf8_lossy(&bytes)
            )
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!(
                "{label}: checking did not finish in 20 s on input:\n{}",
                String::from_utf8_lossy(&bytes)
            )
        }
    }
}

#[test]
fn mutated_and_truncated_programs_never_panic_or_hang() {
    let mut rng = Rng::new(0x7E45_0F17);
    let mut cases = 0;
    for program in programs() {
        let (path, source, language) = (&program.path, &program.bytes, program.language());
        // Python files are fewer and longer to check: fewer cases each (the
        // mutation driver, one process per mutant, covers them at length).
        let (cuts, rounds) = match language {
            Language::Tensor => (40, 60),
            Language::Python => (5, 8),
        };
        for cut in (0..=source.len()).step_by(source.len() / cuts + 1) {
            check_survives(
                &format!("{} cut at {cut}", path.display()),
                language,
                source[..cut].to_vec(),
            );
            cases += 1;
        }
        for round in 0..rounds {
            let mutated = mutate(source, language, &mut rng);
            check_survives(
                &format!("{} mutation {round}", path.display()),
                language,
                mutated,
            );
            cases += 1;
        }
    }
    assert!(cases > 1000, "only {cases} cases ran");
}

#[test]
fn pathological_shapes_of_text() {
    let deep_parens = format!("let x = {}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let deep_brackets = format!("let x = {}", "[".repeat(10_000));
    let deep_blocks = format!("fn f() {}{}", "{ if true ".repeat(5_000), "}".repeat(5_000));
    let long_chain = format!("let x = {}", vec!["a"; 20_000].join(" + "));
    let long_line = format!("let x = [{}]", vec!["1"; 200_000].join(", "));
    let many_errors = "let = = = ;\n".repeat(20_000);
    let random: Vec<u8> = {
        let mut rng = Rng::new(42);
        (0..100_000).map(|_| rng.next_u64() as u8).collect()
    };
    let torch = "import torch\nimport torch.nn as nn\n";
    let python_parens = format!(
        "{torch}x = {}torch.randn(2){}\n",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    let python_calls = format!(
        "{torch}x = {}torch.randn(2){}\n",
        "torch.relu(".repeat(5_000),
        ")".repeat(5_000)
    );
    let python_indent: String = (0..2_000)
        .map(|k| format!("{}if x:\n", " ".repeat(k)))
        .collect();
    let python_sequential = format!(
        "{torch}m = {}nn.Linear(3, 4){}\ny = m(torch.randn(2, 3))\n",
        "nn.Sequential(".repeat(3_000),
        ")".repeat(3_000)
    );
    use Language::{Python, Tensor};
    for (label, language, bytes) in [
        ("deep parentheses", Tensor, deep_parens.into_bytes()),
        ("deep unclosed brackets", Tensor, deep_brackets.into_bytes()),
        ("deep blocks", Tensor, deep_blocks.into_bytes()),
        ("long operator chain", Tensor, long_chain.into_bytes()),
        ("long line", Tensor, long_line.into_bytes()),
        ("many errors", Tensor, many_errors.into_bytes()),
        ("random bytes", Tensor, random.clone()),
        (
            "Python: deep parentheses",
            Python,
            python_parens.into_bytes(),
        ),
        ("Python: deep calls", Python, python_calls.into_bytes()),
        (
            "Python: deep indentation",
            Python,
            format!("{torch}{python_indent}").into_bytes(),
        ),
        (
            "Python: deep Sequential",
            Python,
            python_sequential.into_bytes(),
        ),
        ("Python: random bytes", Python, random),
    ] {
        check_survives(label, language, bytes);
    }
}
