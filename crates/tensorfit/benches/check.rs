//! `cargo bench -p tensorfit`: the time of a cold `check` (parse, names,
//! shapes, solving) of every example model and corpus file, in process.
//! Reports the median and the fastest of several runs, and the median
//! without holes, migrations and decided conditions (to show what those
//! cost), the median of `tensorfit check` run as a process (what a user or
//! CI waits for: start-up, reading, the check and the report), and the peak
//! memory of one cold check in a fresh process; numbers are recorded in
//! docs/benchmarks.md.
//!
//! Shared machines vary by a third between two runs, so a speed change is
//! measured against the binary before it in the same run: with
//! `TENSORFIT_BENCH_BASELINE=/path/to/old/tensorfit`, each file's process
//! runs alternate between the old binary and this one, and the table adds
//! the old median and the ratio.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tensorfit_ide::{analyze_file, AnalysisOptions, FsLoader};

const RUNS: usize = 15;

/// Process runs per file (each binary, alternating).
const PROCESS_RUNS: usize = 9;

/// The binary to compare with (see the module's comment).
const BASELINE: &str = "TENSORFIT_BENCH_BASELINE";

/// Set in the child process that measures one file's peak memory.
const PEAK_CHILD: &str = "TENSORFIT_BENCH_PEAK_OF";

/// The process's peak resident memory (Linux's VmHWM), in KiB.
fn peak_resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Checks one file once and prints the peak memory: run in a fresh copy
/// of this process, so that no other file's allocations count.
fn measure_peak_in_child(path: &Path) -> Option<u64> {
    let output = std::process::Command::new(std::env::current_exe().ok()?)
        .env(PEAK_CHILD, path)
        .output()
        .ok()?;
    String::from_utf8_lossy(&output.stdout).trim().parse().ok()
}

/// The median wall time of `tensorfit check path` as a process, for this
/// build's binary and, when given, a baseline binary, runs alternating.
fn process_medians(path: &Path, baseline: Option<&Path>) -> (Duration, Option<Duration>) {
    let binaries: Vec<&Path> = std::iter::once(Path::new(env!("CARGO_BIN_EXE_tensorfit")))
        .chain(baseline)
        .collect();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); binaries.len()];
    for _ in 0..PROCESS_RUNS {
        for (binary, times) in binaries.iter().zip(&mut times) {
            let started = Instant::now();
            std::process::Command::new(binary)
                .arg("check")
                .arg(path)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .expect("run tensorfit");
            times.push(started.elapsed());
        }
    }
    let mut medians = times.into_iter().map(|mut t| {
        t.sort();
        t[PROCESS_RUNS / 2]
    });
    (medians.next().unwrap_or_default(), medians.next())
}

fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in [
        root.join("examples/models"),
        root.join("../shared/corpus/seeds"),
        root.join("tests/python/models"),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "tensor" || e == "py"))
            .collect();
        found.sort();
        files.extend(found);
    }
    files.extend(python_300_lines(&root));
    files
}

/// Issue 23's size: a PyTorch file of about 300 lines, made of five of the
/// Python test programs one after the other (their classes and functions
/// have different names).
fn python_300_lines(root: &Path) -> Option<PathBuf> {
    let python = root.join("tests/python");
    let mut text = String::new();
    for name in [
        "models/unet.py",
        "models/nanogpt.py",
        "models/vit_and_lstm.py",
        "models/lenet_cifar.py",
        "annotations/jaxtyping_shapes.py",
    ] {
        text.push_str(&std::fs::read_to_string(python.join(name)).ok()?);
        text.push('\n');
    }
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python_300_lines.py");
    std::fs::write(&path, text).ok()?;
    Some(path)
}

fn main() {
    if let Some(path) = std::env::var_os(PEAK_CHILD) {
        let path = PathBuf::from(path);
        let bytes = std::fs::read(&path).expect("read");
        let analysis = analyze_file(
            &path,
            &bytes,
            std::sync::Arc::new(FsLoader::default()),
            AnalysisOptions::default(),
        );
        std::hint::black_box(analysis.diagnostics().len());
        println!("{}", peak_resident_kib().unwrap_or(0));
        return;
    }
    // `cargo bench` passes `--bench`; a filter argument selects files.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let baseline = std::env::var_os(BASELINE).map(PathBuf::from);
    print!(
        "{:<36} {:>10} {:>10} {:>11} {:>10} {:>6} {:>10}",
        "file", "median", "fastest", "without §9", "process", "diags", "peak"
    );
    match &baseline {
        Some(_) => println!(" {:>10} {:>6}", "baseline", "ratio"),
        None => println!(),
    }
    for path in files() {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let bytes = std::fs::read(&path).expect("read");
        let run = |options: AnalysisOptions| {
            let mut times: Vec<Duration> = Vec::with_capacity(RUNS);
            let mut diagnostics = 0;
            for _ in 0..RUNS {
                let started = Instant::now();
                let analysis = analyze_file(
                    &path,
                    &bytes,
                    std::sync::Arc::new(FsLoader::default()),
                    options.clone(),
                );
                times.push(started.elapsed());
                diagnostics = analysis.diagnostics().len();
            }
            times.sort();
            (times, diagnostics)
        };
        let (times, diagnostics) = run(AnalysisOptions::default());
        let (without, _) = run(AnalysisOptions {
            questions: false,
            ..AnalysisOptions::default()
        });
        let peak = measure_peak_in_child(&path)
            .map(|kib| format!("{:.1} MiB", kib as f64 / 1024.0))
            .unwrap_or_else(|| "?".to_owned());
        let (process, old) = process_medians(&path, baseline.as_deref());
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        print!(
            "{:<36} {:>7.1} ms {:>7.1} ms {:>8.1} ms {:>7.1} ms {:>6} {:>10}",
            name,
            ms(times[RUNS / 2]),
            ms(times[0]),
            ms(without[RUNS / 2]),
            ms(process),
            diagnostics,
            peak
        );
        match old {
            Some(old) => println!(" {:>7.1} ms {:>6.2}", ms(old), ms(process) / ms(old)),
            None => println!(),
        }
    }
}
