//! Fixes, data-driven: the fix offered at the `$0` cursor whose title
//! contains the given words is applied; the expectation is its title and
//! the resulting text. Update with `UPDATE_EXPECT=1`.

use std::path::Path;

use expect_test::{expect, Expect};
use tensorfit_ide::{analyze_file, fixes, AnalysisOptions, NoImports};

fn check(fixture: &str, title: &str, expect: Expect) {
    check_file("fix.tensor", fixture, title, expect);
}

/// [`check`] of a file of another name (`fix.py`: Python).
fn check_file(name: &str, fixture: &str, title: &str, expect: Expect) {
    let offset = fixture.find("$0").expect("fixture has a $0 cursor") as u32;
    let text = fixture.replace("$0", "");
    let analysis = analyze_file(
        Path::new(name),
        text.as_bytes(),
        std::sync::Arc::new(NoImports),
        AnalysisOptions::default(),
    );
    let all = fixes(&analysis);
    let Some(fix) = all
        .iter()
        .find(|f| f.target.start <= offset && offset <= f.target.end && f.title.contains(title))
    else {
        let titles: Vec<&str> = all.iter().map(|f| f.title.as_str()).collect();
        panic!("no fix `{title}` at the cursor; fixes: {titles:?}");
    };
    let mut result = text.clone();
    let mut edits = fix.edits.clone();
    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    for edit in edits {
        result.replace_range(edit.range.as_usize(), &edit.new_text);
    }
    expect.assert_eq(&format!("{}\n---{result}", fix.title));
}

#[test]
fn fill_a_forced_hole() {
    check(
        r#"
let x = randn([20, 10])
let y = randn([$0__, 3])
let z = matmul(x, y)
"#,
        "Fill",
        expect![[r#"
            Fill the hole with 10
            ---
            let x = randn([20, 10])
            let y = randn([10, 3])
            let z = matmul(x, y)
        "#]],
    );
}

#[test]
fn fill_a_python_hole() {
    check_file(
        "fix.py",
        r#"
import torch
from torch import nn
fc = nn.Linear($0..., 10)
y = fc(torch.randn(4, 320))
"#,
        "Fill",
        expect![[r#"
            Fill the hole with 320
            ---
            import torch
            from torch import nn
            fc = nn.Linear(320, 10)
            y = fc(torch.randn(4, 320))
        "#]],
    );
}

#[test]
fn make_a_lazy_layer_concrete() {
    check_file(
        "fix.py",
        r#"
import torch
from torch import nn
fc = nn.Lazy$0Linear(10)
conv = nn.LazyConv2d(out_channels=8, kernel_size=3)
bn = nn.LazyBatchNorm2d()
y = fc(torch.randn(4, 320))
z = bn(conv(torch.randn(1, 3, 5, 5)))
"#,
        "Linear",
        expect![[r#"
            Replace `LazyLinear` with `Linear(320, …)`
            ---
            import torch
            from torch import nn
            fc = nn.Linear(320, 10)
            conv = nn.LazyConv2d(out_channels=8, kernel_size=3)
            bn = nn.LazyBatchNorm2d()
            y = fc(torch.randn(4, 320))
            z = bn(conv(torch.randn(1, 3, 5, 5)))
        "#]],
    );
    check_file(
        "fix.py",
        r#"
import torch
from torch import nn
conv = nn.LazyConv2d($0out_channels=8, kernel_size=3)
bn = nn.LazyBatchNorm2d()
z = bn(conv(torch.randn(1, 3, 5, 5)))
"#,
        "Conv2d",
        expect![[r#"
            Replace `LazyConv2d` with `Conv2d(3, …)`
            ---
            import torch
            from torch import nn
            conv = nn.Conv2d(3, out_channels=8, kernel_size=3)
            bn = nn.LazyBatchNorm2d()
            z = bn(conv(torch.randn(1, 3, 5, 5)))
        "#]],
    );
    check_file(
        "fix.py",
        r#"
import torch
from torch import nn
conv = nn.LazyConv2d(out_channels=8, kernel_size=3)
bn = nn.LazyBatch$0Norm2d()
z = bn(conv(torch.randn(1, 3, 5, 5)))
"#,
        "BatchNorm2d",
        expect![[r#"
            Replace `LazyBatchNorm2d` with `BatchNorm2d(8)`
            ---
            import torch
            from torch import nn
            conv = nn.LazyConv2d(out_channels=8, kernel_size=3)
            bn = nn.BatchNorm2d(8)
            z = bn(conv(torch.randn(1, 3, 5, 5)))
        "#]],
    );
}

#[test]
fn annotate_a_bare_python_parameter_in_jaxtyping() {
    check_file(
        "fix.py",
        r#"
import torch
from jaxtyping import Float
def head(x$0):
    b, c = x.shape
    return x @ torch.ones(8, 4)
y = head(torch.randn(2, 8))
"#,
        "Annotate `x` as",
        expect![[r#"
            Annotate `x` as Shaped[torch.Tensor, "_ 8"]
            ---
            import torch
            from jaxtyping import Float, Shaped
            def head(x: Shaped[torch.Tensor, "_ 8"]):
                b, c = x.shape
                return x @ torch.ones(8, 4)
            y = head(torch.randn(2, 8))
        "#]],
    );
}

#[test]
fn fill_a_jaxtyping_unknown_dimension() {
    check_file(
        "fix.py",
        r#"
from torch import Tensor, ones
from jaxtyping import Float
def head(x$0: Float[Tensor, "b _"]) -> Float[Tensor, "b 4"]:
    return x @ ones(8, 4)
"#,
        "Annotate `x` as",
        expect![[r#"
            Annotate `x` as Float[Tensor, "b 8"]
            ---
            from torch import Tensor, ones
            from jaxtyping import Float
            def head(x: Float[Tensor, "b 8"]) -> Float[Tensor, "b 4"]:
                return x @ ones(8, 4)
        "#]],
    );
}

#[test]
fn no_annotation_is_written_without_jaxtyping() {
    let text = "import torch\ndef head(x):\n    b, c = x.shape\n    return x @ torch.ones(8, 4)\n";
    let analysis = analyze_file(
        Path::new("fix.py"),
        text.as_bytes(),
        std::sync::Arc::new(NoImports),
        AnalysisOptions::default(),
    );
    let migration = &analysis.shapes().migrations;
    assert_eq!(migration.len(), 1, "{migration:?}");
    assert_eq!(migration[0].annotation, "Tensor[?, 8]");
    let titles: Vec<String> = fixes(&analysis).into_iter().map(|f| f.title).collect();
    assert!(
        titles.iter().all(|t| !t.starts_with("Annotate")),
        "{titles:?}"
    );
}

#[test]
fn fill_a_hole_with_one_of_its_values() {
    check(
        r#"
let grid = zeros([12]).reshape($0__, -1)
"#,
        "with 2",
        expect![[r#"
            Fill the hole with 2 (one of several values that fit)
            ---
            let grid = zeros([12]).reshape(2, -1)
        "#]],
    );
}

#[test]
fn annotate_what_the_body_determines() {
    check(
        r#"
fn project(x$0: Tensor[?, ?], w: Tensor[16, 4]) -> Tensor {
  return x @ w
}
"#,
        "as",
        expect![[r#"
            Annotate `x` as Tensor[?, 16]
            ---
            fn project(x: Tensor[?, 16], w: Tensor[16, 4]) -> Tensor {
              return x @ w
            }
        "#]],
    );
}

#[test]
fn annotate_with_a_static_shape_within_the_where_clauses() {
    check(
        r#"
fn bounded(x$0: Tensor) -> Tensor where x.rank == 2, x.shape[0] >= 7, x.shape[1] <= 2 {
  return relu(x)
}
"#,
        "static",
        expect![[r#"
            Annotate `x` with the static shape Tensor[7, 1]
            ---
            fn bounded(x: Tensor[7, 1]) -> Tensor where x.rank == 2, x.shape[0] >= 7, x.shape[1] <= 2 {
              return relu(x)
            }
        "#]],
    );
}

#[test]
fn remove_an_else_that_never_runs() {
    check(
        r#"
fn f(x: Tensor) {
  if $0x.shape[0] == 2 {
    let a = relu(x)
    assert x.shape[1] == 3
  } else {
    assert x.shape[1] == 8
  }
  assert x.shape[0] == 2
}
"#,
        "Remove",
        expect![[r#"
            Remove the branch that never runs
            ---
            fn f(x: Tensor) {
              let a = relu(x)
              assert x.shape[1] == 3
              assert x.shape[0] == 2
            }
        "#]],
    );
}

#[test]
fn remove_an_if_that_never_runs() {
    check(
        r#"
fn f(x: Tensor[2, 3]) {
  let y = relu(x)
  if $0x.shape[0] == 5 {
    assert x.shape[1] == 7
  }
  let z = relu(y)
}
"#,
        "Remove",
        expect![[r#"
            Remove the branch that never runs
            ---
            fn f(x: Tensor[2, 3]) {
              let y = relu(x)
              let z = relu(y)
            }
        "#]],
    );
}

#[test]
fn keep_the_else_branch_of_an_always_false_condition() {
    check(
        r#"
struct R {
  fn forward(self, x: Tensor) -> Tensor {
    if $0x.reshape(100).size()[0] < 100 {
      return dropout(x, p: 0.5)
    } else {
      return relu(x)
    }
  }
}
"#,
        "Remove",
        expect![[r#"
            Remove the branch that never runs
            ---
            struct R {
              fn forward(self, x: Tensor) -> Tensor {
                return relu(x)
              }
            }
        "#]],
    );
}

/// Q2: writing a proposed static annotation into the program must not make
/// the function fail (its `where` clauses included; callers passing other
/// shapes may). Checked on every migration of the migration programs.
#[test]
fn static_examples_check_cleanly_once_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let files = [
        root.join("tests/programs/papers/gradual_migration.tensor"),
        root.join("tests/programs/migration/annotations.tensor"),
    ];
    // Errors from the parameter to the end of the function's body.
    let errors = |text: &str, from: usize| {
        let body = from + text[from..].find('{').expect("a body");
        let mut depth = 0;
        let mut end = text.len();
        for (i, c) in text[body..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = body + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        analyze_file(
            Path::new("migrated.tensor"),
            text.as_bytes(),
            std::sync::Arc::new(NoImports),
            AnalysisOptions::default(),
        )
        .diagnostics()
        .iter()
        .filter(|d| d.severity == tensorfit_base::Severity::Error)
        .filter(|d| (from..end).contains(&(d.range.start as usize)))
        .count()
    };
    let mut checked = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read a migration program");
        let analysis = analyze_file(
            &path,
            text.as_bytes(),
            std::sync::Arc::new(NoImports),
            AnalysisOptions::default(),
        );
        for migration in &analysis.shapes().migrations {
            let Some(example) = &migration.example else {
                continue;
            };
            let from = migration.range.start as usize;
            let before = errors(&text, from);
            let mut migrated = text.clone();
            migrated.replace_range(migration.type_range.as_usize(), example);
            assert_eq!(
                errors(&migrated, from),
                before,
                "{}: annotating `{}` of `{}` as {example} adds errors",
                path.display(),
                migration.parameter,
                migration.function
            );
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} examples were checked");
}

#[test]
fn claim_an_inferred_shape() {
    check(
        r#"
fn head(x: Tensor[b, 8]) -> Tensor {
  let $0h = relu(x @ ones(8, 4))
  return h
}
"#,
        "Claim",
        expect![[r#"
            Claim the shape: `|-> [b, 4]`
            ---
            fn head(x: Tensor[b, 8]) -> Tensor {
              let h = relu(x @ ones(8, 4)) |-> [b, 4]
              return h
            }
        "#]],
    );
}

/// A claim of the inferred shape must hold: writing every claim offered in
/// the corpus, the examples and the test programs adds no error.
#[test]
fn claims_hold_once_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![
        root.join("examples/models/resnet50.tensor"),
        root.join("examples/quickstart.tensor"),
    ];
    for dir in [
        "tests/programs/papers",
        "tests/programs/engine",
        "tests/programs/calls",
    ] {
        for entry in std::fs::read_dir(root.join(dir)).expect("a directory of programs") {
            files.push(entry.expect("an entry").path());
        }
    }
    // The corpus sits beside a checkout: read when there.
    if let Ok(seeds) = std::fs::read_dir(root.join("../shared/corpus/seeds")) {
        files.extend(seeds.flatten().map(|entry| entry.path()));
    }
    let analyse = |path: &Path, text: &str| {
        analyze_file(
            path,
            text.as_bytes(),
            std::sync::Arc::new(NoImports),
            AnalysisOptions::default(),
        )
    };
    let errors = |analysis: &tensorfit_ide::FileAnalysis| {
        analysis
            .diagnostics()
            .iter()
            .filter(|d| d.severity == tensorfit_base::Severity::Error)
            .count()
    };
    let mut claimed = 0;
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "tensor"))
    {
        let text = std::fs::read_to_string(path).expect("read a program");
        let analysis = analyse(path, &text);
        let mut edits: Vec<_> = fixes(&analysis)
            .into_iter()
            .filter(|f| f.kind == tensorfit_ide::FixKind::Rewrite)
            .flat_map(|f| f.edits)
            .collect();
        if edits.is_empty() {
            continue;
        }
        claimed += edits.len();
        edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
        let mut claimed_text = text.clone();
        for edit in edits {
            claimed_text.replace_range(edit.range.as_usize(), &edit.new_text);
        }
        let after = analyse(path, &claimed_text);
        assert_eq!(
            errors(&after),
            errors(&analysis),
            "{}: the claims add errors:\n{claimed_text}",
            path.display()
        );
    }
    assert!(claimed >= 50, "only {claimed} claims were written");
}

#[test]
fn write_a_named_argument_with_a_colon() {
    check(
        "let conv = Conv2d(3, 16, kernel_size$0=3)\n",
        "Change `=`",
        expect![[r#"
            Change `=` to `:`
            ---let conv = Conv2d(3, 16, kernel_size: 3)
        "#]],
    );
}

#[test]
fn drop_a_pytorch_prefix() {
    check(
        "let x = randn([2, 3])\nlet y = torch.nn.func$0tional.softmax(x, dim: 1)\n",
        "Remove",
        expect![[r#"
            Remove `torch.nn.functional.`
            ---let x = randn([2, 3])
            let y = softmax(x, dim: 1)
        "#]],
    );
}

#[test]
fn take_the_name_a_misspelling_meant() {
    check(
        "let x = randn([2, 3])\nlet y = sof$0max(x, dim: 1)\n",
        "Change to",
        expect![[r#"
            Change to `softmax`
            ---let x = randn([2, 3])
            let y = softmax(x, dim: 1)
        "#]],
    );
}

/// The property of issue 22: applying any offered fix (quick fix or
/// rewrite) to any program of the suite, the examples or the corpus never
/// adds an error. Each fix is applied alone to the original text and the
/// result checked again.
#[test]
fn no_fix_adds_an_error() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in [
        "tests/programs",
        "tests/python",
        "examples",
        "../shared/corpus",
    ] {
        collect_programs(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() > 50, "the programs were not found");
    let loader = std::sync::Arc::new(tensorfit_ide::FsLoader::within([root.clone()]));
    let errors = |path: &Path, text: &str| {
        let analysis = analyze_file(
            path,
            text.as_bytes(),
            loader.clone(),
            AnalysisOptions::default(),
        );
        let count = analysis
            .diagnostics()
            .iter()
            .filter(|d| d.severity == tensorfit_base::Severity::Error)
            .count();
        (analysis, count)
    };
    let (mut applied, mut problems) = (0, Vec::new());
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let (analysis, before) = errors(path, &text);
        for fix in fixes(&analysis) {
            let mut fixed = text.clone();
            let mut edits = fix.edits.clone();
            edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
            for edit in edits {
                fixed.replace_range(edit.range.as_usize(), &edit.new_text);
            }
            let (_, after) = errors(path, &fixed);
            applied += 1;
            if after > before {
                problems.push(format!(
                    "{}: `{}` takes the errors from {before} to {after}",
                    path.display(),
                    fix.title
                ));
            }
        }
    }
    eprintln!("{applied} fixes applied to {} programs", files.len());
    assert!(applied > 20, "too few fixes were tried: {applied}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn collect_programs(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_programs(&path, out);
        } else if path.extension().is_some_and(|e| e == "tensor" || e == "py") {
            out.push(path);
        }
    }
}

/// A claim is Tensor syntax (`|-> [4, 8]`): none is offered on Python,
/// whose reader would take the rest of the line apart.
#[test]
fn no_claims_on_python() {
    let text = "import torch\nx = torch.zeros(4, 8)\n";
    let analysis = analyze_file(
        Path::new("model.py"),
        text.as_bytes(),
        std::sync::Arc::new(NoImports),
        AnalysisOptions::default(),
    );
    assert!(analysis
        .shapes()
        .bindings
        .iter()
        .any(|b| b.shape == "Tensor[4, 8]"));
    let titles: Vec<String> = fixes(&analysis).into_iter().map(|f| f.title).collect();
    assert!(titles.iter().all(|t| !t.contains("|->")), "{titles:?}");
}
