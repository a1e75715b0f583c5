//! `cargo bench -p tensorfit --bench torchvision`: issue 24's performance
//! target, "the whole torchvision classification folder checks in under
//! 10 s cold, each file under 1 s", measured as a user meets it: the
//! `tensorfit check` binary started afresh (cold: no database, no cache)
//! on the installed `torchvision/models/*.py` (the classification models
//! and the files they import; not the detection, segmentation, video,
//! quantization or optical-flow packages), with the installed packages as
//! its search path. Reports the median of several runs of the whole
//! folder in one process and of each file alone; numbers are recorded in
//! docs/benchmarks.md. Prints a note and does nothing where torchvision
//! is not installed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 5;

/// The installed torchvision's `models` directory, from the `python3` on
/// PATH or else Debian's (where `python3-torchvision` installs it).
fn torchvision_models() -> Option<PathBuf> {
    ["python3", "/usr/bin/python3"].iter().find_map(|python| {
        let output = Command::new(python)
            .args([
                "-c",
                "import os, torchvision; print(os.path.dirname(torchvision.__file__))",
            ])
            .output()
            .ok()?;
        let root = String::from_utf8(output.stdout).ok()?;
        let models = Path::new(root.trim()).join("models");
        models.is_dir().then_some(models)
    })
}

/// The median of `RUNS` cold checks of `files`, and whether each found no
/// error.
fn cold_check(search_path: &Path, files: &[PathBuf]) -> (Duration, bool) {
    let mut times = Vec::with_capacity(RUNS);
    let mut clean = true;
    for _ in 0..RUNS {
        let started = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_tensorfit"))
            .arg("check")
            .arg("--python-path")
            .arg(search_path)
            .args(files)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("run tensorfit");
        times.push(started.elapsed());
        clean &= status.success();
    }
    times.sort();
    (times[RUNS / 2], clean)
}

fn main() {
    let Some(models) = torchvision_models() else {
        println!("torchvision is not installed: nothing to measure");
        return;
    };
    let search_path = models
        .parent()
        .and_then(Path::parent)
        .expect("site-packages");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&models)
        .expect("torchvision/models")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    let (folder, clean) = cold_check(search_path, &files);
    println!(
        "{} files of {} in one cold run: median {:.2} s ({})",
        files.len(),
        models.display(),
        folder.as_secs_f64(),
        if clean { "no error" } else { "errors reported" }
    );
    println!("{:<28} {:>10}", "file", "median");
    let mut slowest = Duration::ZERO;
    for file in &files {
        let (time, clean) = cold_check(search_path, std::slice::from_ref(file));
        slowest = slowest.max(time);
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        let mark = if clean { "" } else { "  (errors reported)" };
        println!("{:<28} {:>8.2} s{mark}", name, time.as_secs_f64());
    }
    println!("slowest file: {:.2} s", slowest.as_secs_f64());
}
