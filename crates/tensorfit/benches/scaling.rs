//! `cargo bench -p tensorfit --bench scaling`: how a cold `tensorfit check`
//! grows with the program (issue 25 asks for linear growth), on two
//! generated families:
//!
//! - a chain of structs, each holding the one before it and calling it
//!   from its `forward` (the depth of the call chain grows with the file);
//! - files of independent small functions, each called once by the script
//!   (the width grows, the depth does not);
//! - PyTorch files of as many top-level statements: a list constant and a
//!   function reading it, each (the module context is made from every
//!   statement's facts).
//!
//! For each size it reports the median wall time of the process, its peak
//! resident memory and the size of its JSON report, then the exponent k of
//! `time ~ n^k` between the smallest and the largest size (1 is linear).
//! Numbers are recorded in docs/benchmarks.md.

use std::path::Path;
use std::time::Duration;

use tensorfit_fuzz::child;

const RUNS: usize = 3;

/// `n` structs: `S0` wraps a linear layer; `Sk` holds `S(k-1)` and adds
/// its own layer and a residual sum. The script builds and calls the last.
fn struct_chain(n: usize) -> String {
    let mut text = String::new();
    text.push_str(
        "struct S0(c: Int) {\n  fc = Linear(c, c)\n  fn forward(self, x: Tensor) -> Tensor {\n    return relu(self.fc(x))\n  }\n}\n\n",
    );
    for k in 1..n {
        text.push_str(&format!(
            "struct S{k}(c: Int) {{\n  inner = S{}(c)\n  fc = Linear(c, c)\n  fn forward(self, x: Tensor) -> Tensor {{\n    let y = self.inner(x)\n    return self.fc(y) + y\n  }}\n}}\n\n",
            k - 1
        ));
    }
    text.push_str(&format!(
        "let model = S{}(16)\nlet out = model(randn([4, 16]))\n",
        n - 1
    ));
    text
}

/// `n` functions `fK(x: Tensor[b, 8]) -> Tensor[b, 4]`, each called once.
fn functions(n: usize) -> String {
    let mut text = String::new();
    for k in 0..n {
        text.push_str(&format!(
            "fn f{k}(x: Tensor[b, 8], w: Tensor[8, 4]) -> Tensor[b, 4] {{\n  return relu(x @ w)\n}}\n\n"
        ));
    }
    for k in 0..n {
        text.push_str(&format!("let y{k} = f{k}(randn([2, 8]), randn([8, 4]))\n"));
    }
    text
}

/// `n` Python list constants `Xk = [k]`, each read by a function.
fn python_statements(n: usize) -> String {
    let mut text = String::from("import torch\n\n");
    for k in 0..n {
        text.push_str(&format!(
            "X{k} = [{k}]\n\n\ndef f{k}(x: torch.Tensor) -> torch.Tensor:\n    return x + X{k}[0]\n\n\n"
        ));
    }
    text
}

/// The median time of `tensorfit check --format json file`, its peak
/// resident memory (KiB) and the report's size in bytes.
fn measure(file: &Path) -> (Duration, u64, usize) {
    let mut times = Vec::with_capacity(RUNS);
    let mut peak = 0;
    let mut report = 0;
    for _ in 0..RUNS {
        let finished = child::run(
            Path::new(env!("CARGO_BIN_EXE_tensorfit")),
            &["check", "--format", "json", &file.to_string_lossy()],
            Path::new("."),
            Duration::from_secs(600),
        )
        .expect("run tensorfit");
        times.push(finished.elapsed);
        peak = peak.max(finished.max_rss_kib);
        report = finished.stdout.len();
    }
    times.sort();
    (times[RUNS / 2], peak, report)
}

fn family(name: &str, extension: &str, sizes: &[usize], generate: fn(usize) -> String) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    println!("{name}");
    println!(
        "{:>6} {:>8} {:>12} {:>10} {:>12}",
        "n", "lines", "median", "peak", "report"
    );
    let mut points = Vec::new();
    for &n in sizes {
        let text = generate(n);
        let file = dir.join(format!(
            "scaling_{}_{n}.{extension}",
            name.replace(' ', "_")
        ));
        std::fs::write(&file, &text).expect("write the generated file");
        let (time, peak, report) = measure(&file);
        println!(
            "{:>6} {:>8} {:>9.1} ms {:>6.1} MiB {:>9.1} kB",
            n,
            text.lines().count(),
            time.as_secs_f64() * 1e3,
            peak as f64 / 1024.0,
            report as f64 / 1e3
        );
        points.push((n as f64, time.as_secs_f64()));
    }
    if let (Some(first), Some(last)) = (points.first(), points.last()) {
        let k = (last.1 / first.1).ln() / (last.0 / first.0).ln();
        println!(
            "time grows as n^{k:.2} from n = {} to {}\n",
            first.0, last.0
        );
    }
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let wanted = |name: &str| filter.as_ref().is_none_or(|f| name.contains(f.as_str()));
    if wanted("struct chain") {
        family(
            "struct chain",
            "tensor",
            &[10, 20, 50, 100, 200, 400],
            struct_chain,
        );
    }
    if wanted("functions") {
        family("functions", "tensor", &[50, 500, 5000], functions);
    }
    if wanted("python statements") {
        family(
            "python statements",
            "py",
            &[50, 500, 5000],
            python_statements,
        );
    }
}
