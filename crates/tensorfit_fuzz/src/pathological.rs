//! Pathological programs, built by hand rather than mutated: each family
//! grows one structure a user controls (loop nesting, branch chains, class
//! chains, lambda depth, comment and continuation lines, statements on a
//! line, container growth, call fan-out, file size) with its size as a
//! parameter, and ends with a line PyTorch raises on.
//!
//! Every program goes through `tensorfit check --format json`, and must
//! finish within the file's time budget with bounded memory, and either
//! report the error of its last line or say that it was not fully checked
//! (a `limits` entry): never a silent exit 0 on a program with a bug.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use crate::child;

/// The line every Python program ends with: `matmul` of `[2, 3]` and
/// `[4, 5]`, which PyTorch refuses.
const PYTHON_BUG: &str = "bad = torch.randn(2, 3) @ torch.randn(4, 5)\n";
const PYTHON_HEADER: &str = "import torch\nimport torch.nn as nn\n";
/// The same in the Tensor language.
const TENSOR_BUG: &str = "let bad = zeros(2, 3) @ zeros(4, 5)\n";

/// A family of programs.
pub struct Family {
    pub name: &'static str,
    /// The file's extension: which front end reads it.
    pub extension: &'static str,
    /// The program of size `n`.
    pub make: fn(usize) -> String,
    /// The size the reliability issue measured it at (the long run's).
    pub large: usize,
    /// A size a debug build checks in well under a second.
    pub small: usize,
}

/// Every family.
pub const FAMILIES: &[Family] = &[
    Family {
        name: "nested-for-pass",
        extension: "py",
        make: nested_for_pass,
        large: 20,
        small: 8,
    },
    Family {
        name: "nested-for-cat",
        extension: "py",
        make: nested_for_cat,
        large: 20,
        small: 6,
    },
    Family {
        name: "elif-chain",
        extension: "py",
        make: elif_chain,
        large: 400,
        small: 20,
    },
    Family {
        name: "nested-if",
        extension: "py",
        make: nested_if,
        large: 200,
        small: 20,
    },
    Family {
        name: "super-chain",
        extension: "py",
        make: super_chain,
        large: 1_000,
        small: 50,
    },
    Family {
        name: "nested-lambda",
        extension: "py",
        make: nested_lambda,
        large: 5_000,
        small: 200,
    },
    Family {
        name: "comment-lines",
        extension: "py",
        make: comment_lines,
        large: 100_000,
        small: 2_000,
    },
    Family {
        name: "continuation-lines",
        extension: "py",
        make: continuation_lines,
        large: 100_000,
        small: 2_000,
    },
    Family {
        name: "statements-on-one-line",
        extension: "py",
        make: statements_on_one_line,
        large: 50_000,
        small: 500,
    },
    Family {
        name: "tuple-doubling",
        extension: "py",
        make: tuple_doubling,
        large: 24,
        small: 16,
    },
    Family {
        name: "list-doubling",
        extension: "py",
        make: list_doubling,
        large: 24,
        small: 16,
    },
    Family {
        name: "call-fan-out",
        extension: "py",
        make: call_fan_out,
        large: 59,
        small: 12,
    },
    Family {
        name: "many-modules",
        extension: "py",
        make: many_modules,
        // 7.3 MB, under the 8 MiB a check reads (the 80,000 were
        // shorter modules).
        large: 45_000,
        small: 200,
    },
    Family {
        name: "many-tensor-functions",
        extension: "tensor",
        make: many_tensor_functions,
        // 8.3 MB, as the issue's.
        large: 145_000,
        small: 300,
    },
];

fn python(body: &str) -> String {
    format!("{PYTHON_HEADER}{body}{PYTHON_BUG}")
}

/// `n` nested `for i in range(2):` around `pass`, at module level.
fn nested_for_pass(n: usize) -> String {
    let mut body = String::new();
    for depth in 0..n {
        let _ = writeln!(body, "{}for i{depth} in range(2):", "    ".repeat(depth));
    }
    let _ = writeln!(body, "{}pass", "    ".repeat(n));
    python(&body)
}

/// `n` nested loops around a `cat` that doubles `x` at each iteration.
fn nested_for_cat(n: usize) -> String {
    let mut body = String::from("x = torch.randn(2, 3)\n");
    for depth in 0..n {
        let _ = writeln!(body, "{}for i{depth} in range(2):", "    ".repeat(depth));
    }
    let _ = writeln!(body, "{}x = torch.cat([x, x], 0)", "    ".repeat(n));
    python(&body)
}

/// An `if`/`elif` chain of `n` tests on `x.shape[1]`, each a `view`.
fn elif_chain(n: usize) -> String {
    let mut body = String::from("def f(x):\n");
    for k in 0..n {
        let keyword = if k == 0 { "if" } else { "elif" };
        let _ = writeln!(
            body,
            "    {keyword} x.shape[1] == {k}:\n        y = x.view({}, -1)",
            k + 1
        );
    }
    body.push_str("    else:\n        y = x\n    return y\n\n\nz = f(torch.randn(4, 6))\n");
    python(&body)
}

/// `n` nested `if x.shape[0] > k:`.
fn nested_if(n: usize) -> String {
    let mut body = String::from("def f(x):\n");
    for k in 0..n {
        let _ = writeln!(body, "{}if x.shape[0] > {k}:", "    ".repeat(k + 1));
    }
    let _ = writeln!(body, "{}x = x + 1", "    ".repeat(n + 1));
    body.push_str("    return x\n\n\nz = f(torch.randn(3, 2))\n");
    python(&body)
}

/// `n` classes, each `forward` calling `super().forward(x.unsqueeze(0))`.
fn super_chain(n: usize) -> String {
    let mut body =
        String::from("class C0(nn.Module):\n    def forward(self, x):\n        return x\n");
    for k in 1..n.max(1) {
        let _ = writeln!(
            body,
            "class C{k}(C{}):\n    def forward(self, x):\n        return super().forward(x.unsqueeze(0))",
            k - 1
        );
    }
    let _ = writeln!(body, "y = C{}()(torch.randn(2))", n.max(1) - 1);
    python(&body)
}

/// `lambda x: lambda x: ... x`, `n` deep.
fn nested_lambda(n: usize) -> String {
    python(&format!("f = {}x\n", "lambda x: ".repeat(n)))
}

/// `n` lines holding `#`, then the bug.
fn comment_lines(n: usize) -> String {
    python(&"#\n".repeat(n))
}

/// A statement, then `n` lines holding only `\`, then the bug.
fn continuation_lines(n: usize) -> String {
    python(&format!("x = 1 + \\\n{}1\n", "\\\n".repeat(n)))
}

/// `n` statements on one line.
fn statements_on_one_line(n: usize) -> String {
    python(&format!("{}\n", "x = torch.randn(2, 3); ".repeat(n)))
}

/// A tuple doubled `n` times, then used as a shape.
fn tuple_doubling(n: usize) -> String {
    python(&format!(
        "s = (2,)\n{}t = torch.randn(s)\n",
        "s = s + s\n".repeat(n)
    ))
}

/// A list doubled `n` times, then its length used as a size.
fn list_doubling(n: usize) -> String {
    python(&format!(
        "s = [2]\n{}t = torch.randn(len(s))\n",
        "s = s + s\n".repeat(n)
    ))
}

/// `n` functions, each calling the previous one three times with `cat`.
fn call_fan_out(n: usize) -> String {
    let mut body = String::from("def f0(x):\n    return torch.cat([x, x], 0)\n");
    for k in 1..n.max(1) {
        let _ = writeln!(
            body,
            "def f{k}(x):\n    return torch.cat([f{p}(x), f{p}(x), f{p}(x)], 0)",
            p = k - 1
        );
    }
    let _ = writeln!(body, "y = f{}(torch.randn(2, 3))", n.max(1) - 1);
    python(&body)
}

/// `n` small modules; the first is called with a wrong input at the end.
fn many_modules(n: usize) -> String {
    let mut body = String::new();
    for k in 0..n {
        let _ = writeln!(
            body,
            "class M{k}(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear({}, 4)\n    def forward(self, x):\n        return self.fc(x)",
            k % 7 + 2
        );
    }
    body.push_str("wrong = M0()(torch.randn(3, 5))\n");
    python(&body)
}

/// `n` Tensor functions, then the bug.
fn many_tensor_functions(n: usize) -> String {
    let mut text = String::new();
    for k in 0..n {
        let _ = writeln!(
            text,
            "fn f{k}(x: Tensor[n, 4]) -> Tensor[n, 4] {{ return x }}"
        );
    }
    text.push_str(TENSOR_BUG);
    text
}

/// What one program's check did.
pub struct Outcome {
    pub family: &'static str,
    pub size: usize,
    pub elapsed: Duration,
    pub max_rss_kib: u64,
    /// What is wrong with it, if anything.
    pub problem: Option<String>,
}

/// The bounds a check must stay within.
pub struct Bounds {
    /// Wall-clock time for one program.
    pub time: Duration,
    /// Peak resident memory, in MiB.
    pub memory_mib: u64,
}

/// Writes the family's program of `size` into `directory` and checks it.
pub fn check(
    binary: &Path,
    family: &Family,
    size: usize,
    directory: &Path,
    bounds: &Bounds,
) -> std::io::Result<Outcome> {
    std::fs::create_dir_all(directory)?;
    let name = format!("{}-{size}.{}", family.name, family.extension);
    std::fs::write(directory.join(&name), (family.make)(size))?;
    // Killed well after the bound, so that a slow check is measured, not
    // only cut.
    let limit = bounds.time * 3;
    let args = ["check", "--format", "json", "--python-path=", name.as_str()];
    let finished = child::run(binary, &args, directory, limit)?;
    let problem = judge(&finished, bounds);
    Ok(Outcome {
        family: family.name,
        size,
        elapsed: finished.elapsed,
        max_rss_kib: finished.max_rss_kib,
        problem,
    })
}

fn judge(finished: &child::Finished, bounds: &Bounds) -> Option<String> {
    let Some(status) = finished.status else {
        return Some(format!("killed after {:?}", finished.elapsed));
    };
    if status != child::Exit::Code(0) && status != child::Exit::Code(1) {
        let stderr = String::from_utf8_lossy(&finished.stderr);
        return Some(format!("ended with {status:?}: {stderr}"));
    }
    if finished.elapsed > bounds.time {
        return Some(format!(
            "took {:?}, over {:?}",
            finished.elapsed, bounds.time
        ));
    }
    let mib = finished.max_rss_kib / 1024;
    if mib > bounds.memory_mib {
        return Some(format!("{mib} MiB, over {} MiB", bounds.memory_mib));
    }
    let report: serde_json::Value = match serde_json::from_slice(&finished.stdout) {
        Ok(report) => report,
        Err(error) => return Some(format!("not a JSON report: {error}")),
    };
    let file = &report["files"][0];
    let found_the_bug = file["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|d| d["severity"] == "error" && d["code"] == "shape-mismatch");
    let cut = file["limits"].as_array().is_some_and(|l| !l.is_empty());
    if !found_the_bug && !cut {
        return Some("the bug is not reported, and no limit says why".to_owned());
    }
    let internal = file["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|d| d["code"] == "internal-error");
    internal.then(|| "an internal error".to_owned())
}

impl Outcome {
    /// One line of the report.
    pub fn line(&self) -> String {
        format!(
            "{:24} {:>7}  {:>7.2} s  {:>6} MiB  {}",
            self.family,
            self.size,
            self.elapsed.as_secs_f64(),
            self.max_rss_kib / 1024,
            self.problem.as_deref().unwrap_or("ok")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_program_ends_with_its_bug_and_grows_with_its_size() {
        for family in FAMILIES {
            let small = (family.make)(family.small);
            let larger = (family.make)(family.small * 2);
            let bug = match family.extension {
                "py" => PYTHON_BUG,
                _ => TENSOR_BUG,
            };
            assert!(small.ends_with(bug), "{}", family.name);
            assert!(larger.len() > small.len(), "{}", family.name);
        }
    }
}
