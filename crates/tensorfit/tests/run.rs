//! `tensorfit run`: what it prints, its exit codes, and how it treats
//! programs that would never end or never fit in memory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tensorfit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tensorfit"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn program(name: &str, text: &str) -> String {
    let dir: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join("run");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("written");
    path.display().to_string()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `source` and gives (exit code, stdout, stderr).
fn run(name: &str, source: &str, extra: &[&str]) -> (i32, String, String) {
    let path = program(name, source);
    let mut args = vec!["run", path.as_str()];
    args.extend_from_slice(extra);
    let output = tensorfit(&args);
    (
        output.status.code().unwrap_or(-1),
        text(&output.stdout),
        text(&output.stderr),
    )
}

#[test]
fn a_clean_script_runs_and_lists_its_shapes() {
    let (code, out, err) = run(
        "clean.tensor",
        "let x = randn([4, 3])\nlet w = Linear(3, 2)\nlet y = w(x) |-> [4, 2]\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("every shape fact held"), "{out}");
    assert!(out.contains("y: Tensor[4, 2] = ["), "{out}");
}

#[test]
fn a_failing_fact_names_the_statement_and_the_values() {
    let root =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/papers/tfp_matmul.tensor");
    let output = tensorfit(&["run", &root.display().to_string()]);
    let err = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "assertion failed: `x.shape[1] == y.shape[0]` (x.shape[1] = 10, y.shape[0] = 30)"
        ),
        "{err}"
    );
    assert!(err.contains("tfp_matmul.tensor:7:3"), "{err}");
    assert!(err.contains("called from"), "{err}");
}

#[test]
fn an_entry_point_takes_inputs_and_draws_the_rest() {
    let source = "fn mm(a: Tensor[n, k], b: Tensor[k, m]) -> Tensor[n, m] { return a @ b }\n\
                  fn fixed(x: Tensor[2, 3]) -> Tensor[3] { return x.sum(dim: 0) }\n";
    let (code, out, err) = run(
        "entry.tensor",
        source,
        &["--entry", "mm", "--input", "a=2x5", "--input", "b=5x4"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("result: Tensor[2, 4]"), "{out}");
    let (code, out, err) = run("entry.tensor", source, &["--entry", "fixed"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("result: Tensor[3]"), "{out}");
    // Dimension names given on their own fix the random inputs' shapes.
    let (code, out, err) = run(
        "entry.tensor",
        source,
        &[
            "--entry", "mm", "--input", "n=3", "--input", "k=2", "--input", "m=6",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("result: Tensor[3, 6]"), "{out}");
    // Nothing fixes `n`: the message says what to give.
    let (code, _, err) = run("entry.tensor", source, &["--entry", "mm"]);
    assert_eq!(code, 1);
    assert!(err.contains("--input a=…"), "{err}");
    // A mismatch in the inputs fails the parameter type.
    let (code, _, err) = run(
        "entry.tensor",
        source,
        &["--entry", "mm", "--input", "a=2x5", "--input", "b=4x4"],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "`b` should be a `Tensor[k, m]`, but it is a Tensor[4, 4]: dimension 0 is 4, not k = 5"
        ),
        "{err}"
    );
}

#[test]
fn shapes_too_large_are_refused_with_their_size() {
    let (code, _, err) = run("huge.tensor", "let x = zeros([100000, 100000, 100])\n", &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("would hold 1000000000000 elements (3.6 TiB)"),
        "{err}"
    );
}

/// `--max-elements` bounds the tensors a run holds together, not only
/// each one: six tensors of a quarter of the limit do not all fit.
#[test]
fn the_element_limit_counts_every_tensor_held() {
    let source = "let a = ones([1000, 1000])\nlet b = ones([1000, 1000])\nlet c = ones([1000, 1000])\nlet d = ones([1000, 1000])\nlet e = ones([1000, 1000])\nlet f = ones([1000, 1000])\n";
    let (code, _, err) = run("many.tensor", source, &["--max-elements", "4000000"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("would pass the limit of 4000000 elements in all"),
        "{err}"
    );
    let (code, _, err) = run("many.tensor", source, &["--max-elements", "8000000"]);
    assert_eq!(code, 0, "{err}");
}

/// The edges of `Int` are errors at the expression, never a crash.
#[test]
fn int_overflow_at_the_edges_is_an_error() {
    let min = "let m = -9223372036854775807 - 1\n";
    for (expression, expected) in [
        ("m / -1", Some("overflows")),
        ("m % -1", None),
        ("-m", Some("overflows")),
        ("m * 2", Some("overflows")),
        ("m / 3", None),
        ("m % 7", None),
    ] {
        let source = format!("{min}let r = {expression}\n");
        let (code, out, err) = run("edge.tensor", &source, &[]);
        match expected {
            Some(message) => {
                assert_eq!(code, 1, "{expression}: {out}{err}");
                assert!(err.contains(message), "{expression}: {err}");
            }
            None => assert_eq!(code, 0, "{expression}: {err}"),
        }
    }
    let (_, out, _) = run(
        "edge.tensor",
        &format!("{min}let r = m % -1\nlet s = m % 7\n"),
        &[],
    );
    // Floored: the remainder takes the divisor's sign.
    assert!(out.contains("r: 0") && out.contains("s: 6"), "{out}");
}

#[test]
fn endless_loops_stop_at_the_step_limit() {
    let source = "var i = 0\nwhile i < 1 {\n  i = i * 1\n}\n";
    let (code, _, err) = run("endless.tensor", source, &["--max-steps", "10000"]);
    assert_eq!(code, 1);
    assert!(err.contains("stopped after 10000 steps"), "{err}");
}

#[test]
fn division_by_zero_is_an_error_not_a_crash() {
    let (code, _, err) = run("zero.tensor", "let z = 0\nlet q = 12 / z\n", &[]);
    assert_eq!(code, 1);
    assert!(err.contains("division by zero: `12 / 0`"), "{err}");
    assert!(err.contains("zero.tensor:2:9"), "{err}");
    // Tensors divide as PyTorch does: by zero gives infinity.
    let (code, out, err) = run(
        "tensor_zero.tensor",
        "let q = ones([2]) / zeros([2])\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("q: Tensor[2] = [inf, inf]"), "{out}");
}

#[test]
fn holes_and_syntax_errors_are_explained() {
    let (code, _, err) = run("hole.tensor", "let x = zeros([__, 2])\n", &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("a hole `__` has no value at run time"),
        "{err}"
    );
    let (code, _, err) = run("broken.tensor", "let x = zeros([2, \n", &[]);
    assert_eq!(code, 2);
    assert!(err.contains("syntax error"), "{err}");
    let output = tensorfit(&["run", "/nonexistent/file.tensor"]);
    assert_eq!(output.status.code(), Some(2));
}

/// `let (h, w) = x.shape` binds one name per dimension, and the wrong
/// number of names is an error, as the analysis reads it.
#[test]
fn a_shape_unpacks_into_one_name_per_dimension() {
    let (code, out, err) = run(
        "unpack.tensor",
        "let x = randn(4, 6)\nlet (h, w) = x.shape\nlet grid = zeros(h, w)\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("grid: Tensor[4, 6]"), "{out}");
    let (code, _, err) = run(
        "unpack_wrong.tensor",
        "let x = randn(4, 6)\nlet (p, q, r) = x.shape\n",
        &[],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot unpack 2 values into 3 names"), "{err}");
}
