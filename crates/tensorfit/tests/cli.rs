//! The `tensorfit` command as users run it: exit codes, file discovery,
//! report formats, and files no editor would produce.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tensorfit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tensorfit"))
        .args(args)
        .output()
        .expect("run tensorfit")
}

/// A fresh directory under the target dir for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, contents).unwrap();
    path.to_string_lossy().into_owned()
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}):\n{}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

#[test]
fn exit_codes_follow_the_contract() {
    let dir = scratch("exit_codes");
    let clean = write(&dir, "clean.tensor", "let x = zeros([2, 3])\n");
    let broken = write(&dir, "broken.tensor", "let y = undefined_thing\n");
    assert_eq!(tensorfit(&["check", &clean]).status.code(), Some(0));
    assert_eq!(tensorfit(&["check", &broken]).status.code(), Some(1));
    assert_eq!(
        tensorfit(&["check", &clean, &broken]).status.code(),
        Some(1)
    );
    let missing = tensorfit(&["check", "/no/such/file.tensor"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read"));
    // Nothing was checked: no summary claims "0 errors".
    assert!(
        missing.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&missing.stdout)
    );
    assert_eq!(tensorfit(&["check"]).status.code(), Some(2));
    assert_eq!(
        tensorfit(&["check", "--format", "yaml", &clean])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(tensorfit(&["lint", &clean]).status.code(), Some(2));
    // A bare `tensorfit`: the usage, on stderr, as a usage problem; asked
    // for with `--help`, on stdout.
    let bare = tensorfit(&[]);
    assert_eq!(bare.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bare.stderr).contains("usage: tensorfit check"));
    assert!(bare.stdout.is_empty());
    let help = tensorfit(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("usage: tensorfit check"));
}

/// A hole left in a file is listed but passes the check; with
/// `--deny-holes` it is an `unsolved-hole` warning in every format and
/// the exit status is 1 (for CI).
#[test]
fn a_hole_left_fails_the_check_only_with_deny_holes() {
    let dir = scratch("deny_holes");
    let holed = write(
        &dir,
        "holed.tensor",
        "let x = randn(4, 8)\nlet y = x @ randn(__, 3)\n",
    );
    let plain = tensorfit(&["check", "--format", "json", &holed]);
    assert_eq!(plain.status.code(), Some(0));
    assert_eq!(
        json(&plain)["files"][0]["diagnostics"],
        serde_json::json!([])
    );
    assert_eq!(json(&plain)["files"][0]["holes"][0]["value"], 8);

    let denied = tensorfit(&["check", "--deny-holes", "--format", "json", &holed]);
    assert_eq!(denied.status.code(), Some(1));
    let diagnostics = &json(&denied)["files"][0]["diagnostics"];
    assert_eq!(
        diagnostics.as_array().map(Vec::len),
        Some(1),
        "{diagnostics}"
    );
    assert_eq!(diagnostics[0]["code"], "unsolved-hole");
    assert_eq!(diagnostics[0]["severity"], "warning");
    let human = tensorfit(&["check", "--deny-holes", &holed]);
    assert_eq!(human.status.code(), Some(1));
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("warning[unsolved-hole]: the hole `__` is left in the program: it must be 8"),
        "{text}"
    );
    // Nothing left: the flag changes nothing.
    let filled = write(&dir, "filled.tensor", "let x = randn(4, 8) @ randn(8, 3)\n");
    assert_eq!(
        tensorfit(&["check", "--deny-holes", &filled]).status.code(),
        Some(0)
    );
}

#[test]
fn version_is_printed() {
    let output = tensorfit(&["--version"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("tensorfit {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn directories_are_searched_for_tensor_files() {
    let dir = scratch("discovery");
    write(&dir, "a.tensor", "let a = 1\n");
    write(&dir, "nested/deeper/b.tensor", "let b = 2\n");
    write(&dir, "notes.txt", "let c = oops\n");
    let output = tensorfit(&["check", "--format", "json", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    let report = json(&output);
    let paths: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 2, "{paths:?}");
    assert!(
        paths[0].ends_with("a.tensor") && paths[1].ends_with("nested/deeper/b.tensor"),
        "{paths:?}"
    );
}

#[test]
fn json_has_the_full_schema_and_lsp_positions() {
    let dir = scratch("schema");
    // 'é' is one UTF-16 unit; '𝕏' two: the column of `undefined` counts them.
    let file = write(
        &dir,
        "positions.tensor",
        "// é𝕏\nlet é𝕏 = 1\nlet y = undefined + 1\n",
    );
    let output = tensorfit(&["check", "--format=json", &file]);
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    assert_eq!(report["version"], 1);
    let file = &report["files"][0];
    for key in ["bindings", "holes", "conditions", "migrations"] {
        assert!(file[key].is_array(), "`{key}` is missing");
    }
    let diagnostic = &file["diagnostics"][0];
    assert_eq!(diagnostic["severity"], "error");
    assert_eq!(diagnostic["code"], "undeclared-name");
    assert_eq!(
        diagnostic["range"]["start"],
        serde_json::json!({"line": 2, "character": 8})
    );
    assert_eq!(
        diagnostic["range"]["end"],
        serde_json::json!({"line": 2, "character": 17})
    );
    assert!(diagnostic["related"].is_array());
}

#[test]
fn files_no_editor_would_produce_get_answers() {
    let dir = scratch("adversarial");
    let corpus_line = "fn f(x: Tensor) -> Tensor { let y = relu(x) |-> [?, 3]; return y }\n";
    let mut random = Vec::new();
    let mut state = 7u32;
    for _ in 0..50_000 {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        random.push((state >> 16) as u8);
    }
    let cases = [
        (
            "fifty_thousand_lines.tensor",
            corpus_line.repeat(50_000).into_bytes(),
        ),
        ("brackets.tensor", "[".repeat(10_000).into_bytes()),
        (
            "long_line.tensor",
            format!("let x = {}1\n", "1 + ".repeat(100_000)).into_bytes(),
        ),
        ("random.tensor", random),
        ("empty.tensor", Vec::new()),
        ("nul.tensor", vec![0u8; 1000]),
    ];
    for (name, bytes) in cases {
        let path = write(&dir, name, bytes);
        for format in ["json", "human"] {
            let output = tensorfit(&["check", "--format", format, &path]);
            assert!(
                matches!(output.status.code(), Some(0 | 1)),
                "{name} ({format}): {:?}",
                output.status
            );
            if format == "json" {
                json(&output);
            }
        }
    }
}

/// Compares with a snapshot file; `UPDATE_SNAPSHOTS=1` rewrites it.
fn assert_snapshot(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no snapshot {}; run with UPDATE_SNAPSHOTS=1",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "snapshot {name} differs:\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}

#[test]
fn human_report_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let output = Command::new(env!("CARGO_BIN_EXE_tensorfit"))
        .current_dir(&root)
        .args(["check", "human_report.tensor"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_snapshot(
        "human_report.stdout",
        &String::from_utf8_lossy(&output.stdout),
    );
}

/// `check FORMAT` on the snapshot input, run where it is (relative paths).
fn report_in(format: &str) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let output = Command::new(env!("CARGO_BIN_EXE_tensorfit"))
        .current_dir(&root)
        .args(["check", "--format", format, "human_report.tensor"])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "errors exit with 1 in every format"
    );
    output
}

#[test]
fn sarif_report_snapshot() {
    let output = report_in("sarif");
    let log = json(&output);
    // What code scanning relies on, beyond the snapshot: every result's
    // rule is the rule at its index, and related places are numbered.
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    for result in log["runs"][0]["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
    }
    assert_snapshot(
        "sarif_report.json",
        &String::from_utf8_lossy(&output.stdout),
    );
}

#[test]
fn github_report_snapshot() {
    let output = report_in("github");
    assert_snapshot(
        "github_report.txt",
        &String::from_utf8_lossy(&output.stdout),
    );
}

#[test]
fn sarif_paths_are_uris() {
    let dir = scratch("sarif_paths");
    let file = write(
        &dir,
        "with space/bad%name.tensor",
        "let y = undefined_name\n",
    );
    let output = tensorfit(&["check", "--format", "sarif", &file]);
    let log = json(&output);
    let uri = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"];
    let uri = uri.as_str().unwrap();
    assert!(uri.starts_with("file:///"), "{uri}");
    assert!(uri.ends_with("/with%20space/bad%25name.tensor"), "{uri}");
}

/// A file's name is the user's, and may hold anything a file system allows:
/// a newline followed by a GitHub workflow command, terminal escapes. No
/// line of the human report (diagnostics, holes, migrations, shapes) starts
/// a workflow command or carries a control character.
#[test]
fn names_in_the_human_report_cannot_inject_output() {
    let dir = scratch("injection");
    let hostile =
        "x\n::error file=injected.py,line=1::INJECTED\n\u{1b}]0;title\u{7}\u{1b}[2J.tensor";
    let program = "\
fn f(x: Tensor[?, 4]) -> Tensor {
  return x
}
let y = f(zeros(2, 4))
let z = zeros(2, __) @ zeros(3, 5)
let w = undefined_name
";
    write(&dir, hostile, program);
    // Relative, as a workflow step names it: the path then starts the
    // `--shapes` lines.
    let output = Command::new(env!("CARGO_BIN_EXE_tensorfit"))
        .current_dir(&dir)
        .args(["check", "--shapes", "--migrations", "."])
        .output()
        .expect("run tensorfit");
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 report");
    for section in ["error[", "hole at", "migration at", ": y: Tensor[2, 4]"] {
        assert!(stdout.contains(section), "no `{section}` in:\n{stdout}");
    }
    for line in stdout.lines() {
        assert!(!line.trim_start().starts_with("::"), "{line:?}");
        assert!(
            !line.chars().any(|c| c.is_control() && c != '\t'),
            "a control character in {line:?}"
        );
    }
    // The name is still recognisable, its controls shown as pictures.
    assert!(stdout.contains("x\u{240a}::error"), "{stdout}");

    // A file whose name starts with `::` starts no command either.
    let dir = scratch("injection_start");
    write(
        &dir,
        "::warning::X.tensor",
        "let y = zeros(2, 3) @ zeros(4, 5)\n",
    );
    let output = Command::new(env!("CARGO_BIN_EXE_tensorfit"))
        .current_dir(&dir)
        .args(["check", "--shapes", "::warning::X.tensor"])
        .output()
        .expect("run tensorfit");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 report");
    assert!(stdout.contains("./::warning::X.tensor:1:"), "{stdout}");
    assert!(
        stdout
            .lines()
            .all(|line| !line.trim_start().starts_with("::")),
        "{stdout}"
    );
}

/// On Unix a backslash is part of a file's name, not a separator: the
/// SARIF URI keeps it, encoded.
#[cfg(unix)]
#[test]
fn sarif_keeps_backslashes_in_names() {
    let dir = scratch("sarif_backslash");
    write(&dir, "back\\slash.tensor", "let y = undefined_name\n");
    let output = Command::new(env!("CARGO_BIN_EXE_tensorfit"))
        .current_dir(&dir)
        .args(["check", "--format", "sarif", "back\\slash.tensor"])
        .output()
        .expect("run tensorfit");
    let log = json(&output);
    let uri = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"];
    assert_eq!(uri.as_str(), Some("back%5Cslash.tensor"));
}

/// The inputs of the reliability issues that once aborted the checker (a
/// stack overflow, a 32 GB allocation) or ran for minutes: each gets a
/// prompt answer with the diagnostic or the bound it names, and none an
/// internal error.
#[test]
fn inputs_that_once_aborted_or_hung_get_prompt_answers() {
    let dir = scratch("once_fatal");
    let chain = |n: usize| {
        let mut text = String::new();
        for i in 0..n {
            text += &format!(
                "fn f{i}(x: Tensor[n, k]) -> Tensor[n, k] {{\n  return f{}(x)\n}}\n",
                i + 1
            );
        }
        text + &format!("fn f{n}(x: Tensor[n, k]) -> Tensor[n, k] {{\n  return x\n}}\nlet y = f0(randn([2, 3]))\n")
    };
    let residual = |n: usize| {
        let blocks = vec!["Block(16)"; n].join(", ");
        format!(
            "struct Block(c: Int) {{\n  conv = Conv2d(c, c, padding: 1)\n  fn forward(self, x: Tensor) -> Tensor {{\n    return relu(self.conv(x) + x)\n  }}\n}}\n\
             struct Net {{\n  body = Sequential({blocks})\n  fn forward(self, x: Tensor) -> Tensor {{\n    return self.body(x)\n  }}\n}}\n\
             let net = Net()\nlet y = net(randn([2, 16, 8, 8]))\n"
        )
    };
    // The same blocks with a symbolic kernel size: each block's dimension
    // is the last one's, rewritten; once large it is named by a new
    // unknown (`limits::MAX_JOINED_DIM`), so no limit cuts the chain.
    let residual_symbolic = |n: usize| {
        let blocks = vec!["Block(16, k)"; n].join(", ");
        format!(
            "struct Block(c: Int, k: Int) {{\n  conv = Conv2d(c, c, kernel_size: k, padding: 1)\n  fn forward(self, x: Tensor) -> Tensor {{\n    return relu(self.conv(x) + x)\n  }}\n}}\n\
             fn net(x: Tensor, k: Int) -> Tensor {{\n  let body = Sequential({blocks})\n  return body(x)\n}}\n"
        )
    };
    let resnet = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/models/resnet50.tensor"),
    )
    .unwrap();
    let bottleneck = resnet
        .find("struct Bottleneck")
        .expect("ResNet-50 has a Bottleneck");
    let product: Vec<String> = (0..30).map(|i| format!("x.shape[{i}]")).collect();
    let names: Vec<String> = (0..30).map(|i| format!("d{i}")).collect();
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "recursive_struct.tensor",
            "struct A {\n  inner = A()\n}\nlet a = A()\n".into(),
            "recursive-struct",
        ),
        (
            "mutual_structs.tensor",
            "struct A {\n  b = B()\n}\nstruct B {\n  a = A()\n}\nlet a = A()\n".into(),
            "recursive-struct",
        ),
        ("call_chain.tensor", chain(1_100), "call-depth"),
        // Only the missing argument: no clash computed from a guessed one.
        ("residual_blocks.tensor", residual(12), "missing-argument"),
        ("residual_symbolic.tensor", residual_symbolic(12), ""),
        (
            "huge_rank.tensor",
            "fn f(x: Tensor) {\n  assert x.rank == 1000000000\n  return x\n}\n".into(),
            "rank",
        ),
        (
            "large_rank.tensor",
            "fn f(x: Tensor) {\n  assert x.rank == 10000000\n  return x\n}\n".into(),
            "rank",
        ),
        (
            "thirty_dims.tensor",
            format!(
                "fn f(x: Tensor[{}]) {{\n  let p = {}\n  assert p % 7 == 3\n  return x\n}}\n",
                names.join(", "),
                product.join(" * ")
            ),
            "",
        ),
        (
            "cat_of_scalars.tensor",
            "let b = cat([1, 2], dim: 0)\n".into(),
            "shape-mismatch",
        ),
        (
            // Operations that index a dimension, on a scalar (a mutant found
            // `split` indexing an empty shape).
            "ops_on_a_scalar.tensor",
            "let s = zeros([])\nlet (a, b) = split(s, 1)\nlet c = chunk(s, 2)\nlet t = transpose(s, 0, -1)\n\
             let n = narrow(s, 0, 0, 1)\nlet q = squeeze(s, 0)\nlet f = flatten(s)\nlet r = sum(s, dim: 0)\n"
                .into(),
            "",
        ),
        (
            "import_device.tensor",
            "import \"/dev/zero\"\nlet a = 1\n".into(),
            "import-not-found",
        ),
        (
            "import_stdin.tensor",
            "import \"/dev/stdin\"\nlet a = 1\n".into(),
            "import-not-found",
        ),
        (
            "import_outside.tensor",
            "import \"../../../../../../../../etc/passwd\"\nlet a = 1\n".into(),
            "import-not-found",
        ),
    ];
    // ResNet-50 with its Bottleneck cut mid-token, every 37 bytes.
    let mut cases = cases;
    let cut_end = (bottleneck + 1500).min(resnet.len());
    for cut in (bottleneck..cut_end)
        .step_by(37)
        .filter(|c| resnet.is_char_boundary(*c))
    {
        cases.push(("resnet50_cut.tensor", resnet[..cut].to_owned(), ""));
    }
    for (name, text, expected) in cases {
        let path = write(&dir, name, text);
        let started = std::time::Instant::now();
        let output = tensorfit(&["check", "--format", "json", "--timeout-ms", "500", &path]);
        let elapsed = started.elapsed();
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{name}: {:?}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        // Debug builds are about ten times slower than what users run.
        assert!(elapsed.as_secs() < 30, "{name} took {elapsed:?}");
        let report = json(&output);
        let file = &report["files"][0];
        let codes: Vec<&str> = file["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap())
            .collect();
        let limits: Vec<&str> = file["limits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["limit"].as_str().unwrap())
            .collect();
        assert!(!codes.contains(&"internal-error"), "{name}: {codes:?}");
        if name == "residual_blocks.tensor" {
            assert!(!codes.contains(&"shape-mismatch"), "{name}: {codes:?}");
        }
        if name == "residual_symbolic.tensor" {
            assert!(!limits.contains(&"term-size"), "{name}: {limits:?}");
        }
        assert!(
            expected.is_empty() || codes.contains(&expected) || limits.contains(&expected),
            "{name}: expected {expected} among {codes:?} / {limits:?}"
        );
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(!text.contains("root:"), "{name}: an outside file's text");
    }
}

/// Python imports read only the workspace and the search paths: a relative
/// import that climbs above the workspace and a module that is a symbolic
/// link to a file outside it are unknown (PYTHON.md §1: never an error),
/// and nothing of the outside file reaches the output. The same function
/// inside the workspace is read, so the test would see a leak.
#[cfg(unix)]
#[test]
fn python_imports_do_not_leave_the_workspace() {
    let dir = scratch("python_outside");
    let identity = "def leak(x):\n    return x\n";
    write(&dir, "secret.py", identity);
    let workspace = dir.join("ws");
    std::fs::create_dir_all(workspace.join(".git")).unwrap();
    write(&workspace, "inside.py", identity.replace("leak", "keep"));
    std::os::unix::fs::symlink(dir.join("secret.py"), workspace.join("link.py")).unwrap();
    write(
        &workspace,
        "pkg/climbs.py",
        "import torch\nfrom ...secret import leak\nfrom inside import keep\n\
         climbed = leak(torch.randn(2))\nkept = keep(torch.randn(5))\n",
    );
    write(
        &workspace,
        "linked.py",
        "import torch\nfrom link import leak\nlinked = leak(torch.randn(3))\n",
    );
    let output = Command::new(env!("CARGO_BIN_EXE_tensorfit"))
        .args([
            "check",
            "--shapes",
            "--python-path=",
            "pkg/climbs.py",
            "linked.py",
        ])
        .current_dir(&workspace)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("kept: Tensor[5]"), "the inside file: {text}");
    assert!(!text.contains("climbed"), "{text}");
    assert!(!text.contains("linked"), "{text}");
    assert!(text.contains("no errors, no warnings"), "{text}");
}

/// A FIFO named like a source file is refused rather than read (reading
/// it would block for ever), and a symlinked directory is not followed.
#[cfg(unix)]
#[test]
fn special_files_are_refused_and_links_not_followed() {
    let dir = scratch("special_files");
    let fifo = dir.join("p.tensor");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let output = tensorfit(&["check", &fifo.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a regular file"));
    let outside = scratch("special_files_outside");
    write(&outside, "secret.tensor", "let leaked = zz\n");
    let tree = dir.join("tree");
    std::fs::create_dir_all(&tree).unwrap();
    write(&tree, "ok.tensor", "let a = 1\n");
    std::os::unix::fs::symlink(&outside, tree.join("link")).unwrap();
    let output = tensorfit(&["check", "--format", "json", &tree.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(0));
    let report = json(&output);
    assert_eq!(report["files"].as_array().unwrap().len(), 1);
}

/// Ten entry points whose claims the solver cannot decide in time: without
/// a budget per file each would take its own (two time-outs of 300 ms,
/// 6 s in all); the file's budget (2 s at this time-out) ends the check,
/// and the entry points it cut say nothing and are listed under `limits`.
#[test]
fn a_files_check_stays_within_its_time_budget() {
    let dir = scratch("file_budget");
    let mut text = String::new();
    for i in 0..10 {
        text.push_str(&format!(
            "fn hard{i}(x: Tensor[a, b]) where a > 1, b > 1 {{\n  assert a * b == 999962000357\n  return x\n}}\n"
        ));
    }
    let path = write(&dir, "hard.tensor", text);
    let started = std::time::Instant::now();
    let output = tensorfit(&["check", "--format", "json", "--timeout-ms", "300", &path]);
    let elapsed = started.elapsed();
    assert_eq!(output.status.code(), Some(0), "no error without proof");
    let report = json(&output);
    let file = &report["files"][0];
    assert_eq!(file["diagnostics"].as_array().unwrap().len(), 0);
    let cut: Vec<&str> = file["limits"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["limit"] == "file-time")
        .map(|l| l["function"].as_str().unwrap())
        .collect();
    assert!(cut.contains(&"hard9"), "{cut:?}");
    assert!(elapsed.as_secs_f64() < 5.0, "took {elapsed:?}");
}

/// Python files: a directory's `.py` files are read when they import torch;
/// a project without PyTorch gives no output at all.
#[test]
fn python_files_are_checked_when_they_use_pytorch() {
    let dir = scratch("python_discovery");
    write(
        &dir,
        "models/net.py",
        "import torch\nimport torch.nn as nn\n\nfc = nn.Linear(4, 2)\ny = fc(torch.randn(3, 5))\n",
    );
    write(
        &dir,
        "web/views.py",
        "from django.http import JsonResponse\n\ndef view(r):\n    return JsonResponse({})\n",
    );
    let output = tensorfit(&["check", "--format", "json", dir.to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the wrong Linear is an error"
    );
    let report = json(&output);
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("models/net.py"));

    let plain = scratch("python_without_torch");
    write(
        &plain,
        "manage.py",
        "import sys\n\nprint(undefined.attr[1] @ 2)\n",
    );
    write(
        &plain,
        "app/views.py",
        "def view(request):\n    return request.user.name\n",
    );
    let output = tensorfit(&["check", plain.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Bad Python input (PYTHON.md, issue 23): a 20,000-line file, nesting far
/// deeper than the checker follows, long `elif` chains, Python 2 and
/// binary junk get an answer and no diagnostic.
#[test]
fn bad_python_input_gets_a_quiet_answer() {
    let dir = scratch("python_bad_input");
    let mut huge = String::from("import torch\nimport torch.nn as nn\n\n");
    let mut classes = 0;
    while huge.lines().count() < 20_000 {
        huge.push_str(&format!(
            "class Block{classes}(nn.Module):\n    def __init__(self, d=16):\n        super().__init__()\n        self.fc = nn.Linear(d, d)\n\n    def forward(self, x):\n        y = self.fc(x)\n        if y.shape[0] > 2:\n            y = y * 2.0\n        return y\n\n\n"
        ));
        classes += 1;
    }
    huge.push_str("x = torch.randn(4, 16)\n");
    for k in (0..classes).step_by(100) {
        huge.push_str(&format!("y{k} = Block{k}()(x)\n"));
    }
    let mut deep = String::from("import torch\nx = torch.randn(2, 3)\n");
    deep.push_str(&format!("y = {}x{}\n", "(".repeat(3000), ")".repeat(3000)));
    deep.push_str(&format!(
        "z = {}x{}\n",
        "torch.relu(".repeat(3000),
        ")".repeat(3000)
    ));
    deep.push_str(&format!("N = {}\n", vec!["1"; 50_000].join(" + ")));
    deep.push_str("def f(x):\n");
    for k in 0..400 {
        deep.push_str(&format!("{}if x:\n", "    ".repeat(k + 1)));
    }
    deep.push_str(&format!("{}pass\n", "    ".repeat(401)));
    deep.push_str("if a:\n    pass\n");
    for k in 0..20_000 {
        deep.push_str(&format!("elif b{k}:\n    pass\n"));
    }
    let files = [
        write(&dir, "huge.py", huge),
        write(&dir, "deep.py", deep),
        write(
            &dir,
            "py2.py",
            "import torch\nprint 'x', torch.zeros(2)\nexec 'y = 1'\ndef f(x:\n",
        ),
        write(
            &dir,
            "junk.py",
            b"import torch\n\xff\xfe\x00\x01 ((((]]]] \x00 def class :\n".as_slice(),
        ),
    ];
    for file in &files {
        let output = tensorfit(&["check", "--format", "json", file]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{file}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report = json(&output);
        let diagnostics = report["files"][0]["diagnostics"].as_array().unwrap();
        assert!(diagnostics.is_empty(), "{file}: {diagnostics:#?}");
    }
}

/// Chains of Python functions through unannotated parameters (issue 27's
/// call chains, as Python writes them): each takes over its callee's facts
/// and shapes. A chain of 800 once took 126 s and 20 GB (a rank's `>= 0`
/// restated at every level, and every call path copied into every
/// summary); one that calls the function before twice at each of 300
/// levels doubles its call paths at each. Both answer quickly and small,
/// with the chain's result exact.
#[test]
fn python_call_chains_stay_small() {
    let dir = scratch("python_chains");
    let chain = |levels: usize, body: &str| {
        let mut text = String::from(
            "import torch

def f0(x):
    return x
",
        );
        for k in 1..levels {
            text.push_str(&format!(
                "def f{k}(x):
    return {}
",
                body.replace("PREV", &format!("f{}", k - 1))
            ));
        }
        text.push_str(&format!(
            "y = f{}(torch.randn(3, 4))
",
            levels - 1
        ));
        text
    };
    let cases = [
        ("single.py", chain(800, "PREV(x)")),
        ("doubling.py", chain(300, "PREV(x) + PREV(x)")),
    ];
    for (name, text) in cases {
        let path = write(&dir, name, text);
        let finished = tensorfit_fuzz::child::run(
            Path::new(env!("CARGO_BIN_EXE_tensorfit")),
            &["check", "--shapes", "--python-path=", &path],
            &dir,
            std::time::Duration::from_secs(60),
        )
        .unwrap();
        let stdout = String::from_utf8_lossy(&finished.stdout);
        assert_eq!(
            finished.status,
            Some(tensorfit_fuzz::child::Exit::Code(0)),
            "{name}: {stdout}"
        );
        assert!(stdout.contains("y: Tensor[3, 4]"), "{name}: {stdout}");
        let mib = finished.max_rss_kib / 1024;
        assert!(mib < 512, "{name}: {mib} MiB");
        // Debug builds are about ten times slower than what users run.
        assert!(
            finished.elapsed.as_secs() < 30,
            "{name}: {:?}",
            finished.elapsed
        );
    }
}

/// Migrations are listed on demand (`--migrations`); in Python only where
/// the user wrote a jaxtyping `_`: a bare parameter's is in JSON (and
/// hover, code action), which always has them all.
#[test]
fn python_migrations_are_listed_only_for_written_unknowns() {
    let dir = scratch("python_migrations");
    let file = write(
        &dir,
        "heads.py",
        "import torch\nfrom torch import Tensor\nfrom jaxtyping import Float\n\n\
         def bare(x):\n    b, c = x.shape\n    return x @ torch.ones(8, 4)\n\n\
         def asked(x: Float[Tensor, \"b _\"]):\n    return x @ torch.ones(8, 4)\n",
    );
    let human = |args: &[&str]| String::from_utf8_lossy(&tensorfit(args).stdout).into_owned();
    let plain = human(&["check", &file]);
    assert!(!plain.contains("migration"), "{plain}");
    let asked = human(&["check", "--migrations", &file]);
    let listed: Vec<&str> = asked.lines().filter(|l| l.contains("migration")).collect();
    assert_eq!(listed.len(), 1, "{asked}");
    assert!(listed[0].contains("`x` of `asked`"), "{asked}");
    let report = json(&tensorfit(&["check", "--format", "json", &file]));
    let functions: Vec<&str> = report["files"][0]["migrations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["function"].as_str().unwrap())
        .collect();
    assert_eq!(functions, ["bare", "asked"]);
}

/// `python3` is asked for its site-packages only when an import is looked
/// for below them: a model file that imports `torch` and its own project's
/// modules never starts it. A fake `python3` on PATH counts its runs and
/// answers a `site-packages` directory with an installed package.
#[cfg(unix)]
#[test]
fn python3_is_asked_only_when_an_import_needs_installed_packages() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("python3_asked");
    let site = dir.join("lib/site-packages");
    write(
        &site,
        "pkg/__init__.py",
        "def halve(x):\n    return x[:, :4]\n",
    );
    let asked = dir.join("asked");
    let fake = write(
        &dir,
        "bin/python3",
        format!(
            "#!/bin/sh\necho run >> '{}'\necho '{}'\n",
            asked.display(),
            site.display()
        ),
    );
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let project = dir.join("project");
    write(&project, "blocks.py", "def same(x):\n    return x\n");
    write(
        &project,
        "plain.py",
        "import torch\nimport torch.nn as nn\nfrom typing import Optional\n\
         from blocks import same\nkept = same(torch.randn(3, 8))\n",
    );
    write(
        &project,
        "installed.py",
        "import torch\nfrom pkg import halve\nhalved = halve(torch.randn(3, 8))\n",
    );
    let path = format!("{}:/usr/bin:/bin", dir.join("bin").display());
    let check = |file: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_tensorfit"))
            .args(["check", "--shapes", file])
            .current_dir(&project)
            .env("PATH", &path)
            .output()
            .unwrap();
        let runs = std::fs::read_to_string(&asked).unwrap_or_default();
        (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            runs.lines().count(),
        )
    };
    let (text, runs) = check("plain.py");
    assert!(text.contains("kept: Tensor[3, 8]"), "{text}");
    assert_eq!(
        runs, 0,
        "python3 was started for a file that needs nothing of it"
    );
    let (text, runs) = check("installed.py");
    assert!(text.contains("halved: Tensor[3, 4]"), "{text}");
    assert_eq!(runs, 1, "python3 is asked once");
}

/// The README's quick start: its main command's report is the snapshot the
/// README shows, and PyTorch raises on the same line (with the hole filled
/// by the value tensorfit gives), and runs once `fc1` is fixed, which
/// tensorfit then checks clean. Without PyTorch (and without
/// `TENSORFIT_REQUIRE_TORCH=1`) the PyTorch half is skipped.
#[test]
fn the_quick_start_example_is_what_the_readme_says_and_pytorch_agrees() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new(env!("CARGO_BIN_EXE_tensorfit"))
        .current_dir(&root)
        .args(["check", "--shapes", "examples/quickstart.py"])
        .output()
        .expect("run tensorfit");
    assert_eq!(output.status.code(), Some(1));
    let report = String::from_utf8(output.stdout).unwrap();
    assert_snapshot("quickstart_py.txt", &report);
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains(&report),
        "README.md does not show the quick start's report:\n{report}"
    );
    assert!(report.contains("hole at examples/quickstart.py:17:30 must be 84"));

    let python = std::env::var_os("TENSORFIT_TORCH_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/python3"));
    let has_torch = Command::new(&python)
        .args(["-c", "import torch"])
        .output()
        .is_ok_and(|o| o.status.success());
    let required = std::env::var_os("TENSORFIT_REQUIRE_TORCH").is_some_and(|v| v == "1");
    assert!(has_torch || !required, "PyTorch is required but missing");
    let source = std::fs::read_to_string(root.join("examples/quickstart.py")).unwrap();
    let filled = source.replace("nn.Linear(..., 10)", "nn.Linear(84, 10)");
    let fixed = filled.replace("nn.Linear(16 * 4 * 4, 120)", "nn.Linear(16 * 5 * 5, 120)");
    let dir = scratch("quickstart");
    write(&dir, "fixed.py", &fixed);
    let fixed_check = tensorfit(&["check", &dir.join("fixed.py").to_string_lossy()]);
    assert_eq!(fixed_check.status.code(), Some(0), "{fixed_check:?}");
    if !has_torch {
        return;
    }
    let run = |program: &str| {
        Command::new(&python)
            .arg("-c")
            .arg(format!("{program}\nprint(tuple(logits.shape))"))
            .output()
            .expect("run python3")
    };
    let raised = run(&filled);
    let stderr = String::from_utf8_lossy(&raised.stderr);
    assert!(
        stderr.contains("mat1 and mat2 shapes cannot be multiplied (8x400 and 256x120)"),
        "{stderr}"
    );
    let ran = run(&fixed);
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&ran.stdout).trim(), "(8, 10)");
}
