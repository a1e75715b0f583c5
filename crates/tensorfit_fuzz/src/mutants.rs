//! The mutation driver: mutants of every program through `tensorfit check
//! --format json`, one process each, with their exit, time and memory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::child::{self, Exit};
use crate::mutate::mutate;
use crate::programs::Program;
use crate::rng::Rng;

pub struct Settings {
    pub binary: PathBuf,
    pub count: u64,
    pub seed: u64,
    pub jobs: usize,
    /// A check running longer is killed and counted as a hang.
    pub hang_after: Duration,
    /// Where failing mutants are written, to reproduce them.
    pub keep: Option<PathBuf>,
}

/// What went wrong with one mutant.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Failure {
    /// Killed by a signal (a stack overflow aborts), or a panic's exit.
    Abort(String),
    Hang,
    /// An exit status other than 0 (no error) or 1 (errors found).
    Exit(i32),
    /// Output that is not the JSON report.
    Output,
    /// A defect caught inside the checker.
    InternalError,
}

/// One mutant's result.
pub struct Outcome {
    pub index: u64,
    pub failure: Option<Failure>,
    pub seconds: f64,
    pub max_rss_kib: u64,
}

/// The mutant number `index` of a run seeded `seed`.
pub fn mutant(programs: &[Program], seed: u64, index: u64) -> (usize, Vec<u8>) {
    let mut rng = Rng::for_item(seed, index);
    let which = rng.below(programs.len());
    let program = &programs[which];
    (which, mutate(&program.bytes, program.language(), &mut rng))
}

/// Runs every mutant, `jobs` at a time, each in a directory of its own (its
/// imports find nothing of ours).
pub fn run(
    settings: &Settings,
    programs: &[Program],
    scratch: &Path,
) -> std::io::Result<Vec<Outcome>> {
    let next = AtomicU64::new(0);
    let outcomes = Mutex::new(Vec::with_capacity(settings.count as usize));
    let failed_io = Mutex::new(None);
    std::thread::scope(|scope| {
        for worker in 0..settings.jobs.max(1) {
            let directory = scratch.join(format!("worker-{worker}"));
            let (next, outcomes, failed_io) = (&next, &outcomes, &failed_io);
            scope.spawn(move || {
                let result = (|| -> std::io::Result<()> {
                    std::fs::create_dir_all(&directory)?;
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= settings.count {
                            return Ok(());
                        }
                        let outcome = check_one(settings, programs, &directory, index)?;
                        let mut outcomes = outcomes.lock().unwrap();
                        outcomes.push(outcome);
                        // Progress for long runs, on stderr: every tenth.
                        let tenth = (settings.count / 10).max(1);
                        if (outcomes.len() as u64).is_multiple_of(tenth) {
                            eprintln!("{} of {} mutants checked", outcomes.len(), settings.count);
                        }
                    }
                })();
                if let Err(error) = result {
                    *failed_io.lock().unwrap() = Some(error);
                }
            });
        }
    });
    if let Some(error) = failed_io.into_inner().unwrap() {
        return Err(error);
    }
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by_key(|o| o.index);
    Ok(outcomes)
}

fn check_one(
    settings: &Settings,
    programs: &[Program],
    directory: &Path,
    index: u64,
) -> std::io::Result<Outcome> {
    let (which, bytes) = mutant(programs, settings.seed, index);
    let extension = programs[which].language().extension();
    let name = format!("mutant.{extension}");
    std::fs::write(directory.join(&name), &bytes)?;
    // No search paths: the mutant's imports find only its directory, and no
    // `python3` is started per mutant to discover them.
    let finished = child::run(
        &settings.binary,
        &["check", "--format", "json", "--python-path=", &name],
        directory,
        settings.hang_after,
    )?;
    let failure = judge(&finished);
    if let (Some(failure), Some(keep)) = (&failure, &settings.keep) {
        std::fs::create_dir_all(keep)?;
        std::fs::write(keep.join(format!("mutant-{index}.{extension}")), &bytes)?;
        let note = format!("{failure:?}\n{}", String::from_utf8_lossy(&finished.stderr));
        std::fs::write(keep.join(format!("mutant-{index}.txt")), note)?;
    }
    Ok(Outcome {
        index,
        failure,
        seconds: finished.elapsed.as_secs_f64(),
        max_rss_kib: finished.max_rss_kib,
    })
}

fn judge(finished: &child::Finished) -> Option<Failure> {
    let code = match finished.status {
        None => return Some(Failure::Hang),
        Some(Exit::Signal(signal)) => return Some(Failure::Abort(format!("signal {signal}"))),
        Some(Exit::Code(101)) => return Some(Failure::Abort("panic".to_owned())),
        Some(Exit::Code(code)) => code,
    };
    if code != 0 && code != 1 {
        return Some(Failure::Exit(code));
    }
    let Ok(report) = serde_json::from_slice::<serde_json::Value>(&finished.stdout) else {
        return Some(Failure::Output);
    };
    let internal = report["files"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|file| file["diagnostics"].as_array().into_iter().flatten())
        .any(|d| d["code"] == "internal-error");
    internal.then_some(Failure::InternalError)
}

/// The figures of a run, and whether it met its targets.
pub struct Summary {
    pub mutants: usize,
    pub failures: Vec<(u64, Failure)>,
    pub p50_seconds: f64,
    pub p99_seconds: f64,
    pub max_seconds: f64,
    pub max_rss_mib: f64,
}

impl Summary {
    pub fn of(outcomes: &[Outcome]) -> Summary {
        let mut seconds: Vec<f64> = outcomes.iter().map(|o| o.seconds).collect();
        seconds.sort_by(f64::total_cmp);
        let quantile = |q: f64| {
            if seconds.is_empty() {
                return 0.0;
            }
            seconds[((seconds.len() - 1) as f64 * q).round() as usize]
        };
        Summary {
            mutants: outcomes.len(),
            failures: outcomes
                .iter()
                .filter_map(|o| o.failure.clone().map(|f| (o.index, f)))
                .collect(),
            p50_seconds: quantile(0.5),
            p99_seconds: quantile(0.99),
            max_seconds: quantile(1.0),
            max_rss_mib: outcomes.iter().map(|o| o.max_rss_kib).max().unwrap_or(0) as f64 / 1024.0,
        }
    }

    fn count(&self, kind: fn(&Failure) -> bool) -> usize {
        self.failures.iter().filter(|(_, f)| kind(f)).count()
    }

    pub fn report(&self) -> String {
        format!(
            "{} mutants: {} aborts, {} hangs, {} other exits, {} bad outputs, {} internal errors\n\
             check time p50 {:.3} s, p99 {:.3} s, max {:.3} s; peak memory {:.0} MiB",
            self.mutants,
            self.count(|f| matches!(f, Failure::Abort(_))),
            self.count(|f| *f == Failure::Hang),
            self.count(|f| matches!(f, Failure::Exit(_))),
            self.count(|f| *f == Failure::Output),
            self.count(|f| *f == Failure::InternalError),
            self.p50_seconds,
            self.p99_seconds,
            self.max_seconds,
            self.max_rss_mib,
        )
    }

    /// The targets: no failure, p99 under `p99_limit`, memory under
    /// `memory_limit_mib`.
    pub fn violations(&self, p99_limit: f64, memory_limit_mib: f64) -> Vec<String> {
        let mut violations = Vec::new();
        for (index, failure) in self.failures.iter().take(20) {
            violations.push(format!("mutant {index}: {failure:?}"));
        }
        if self.p99_seconds > p99_limit {
            violations.push(format!("p99 {:.3} s over {p99_limit} s", self.p99_seconds));
        }
        if self.max_rss_mib > memory_limit_mib {
            violations.push(format!(
                "peak {:.0} MiB over {memory_limit_mib} MiB",
                self.max_rss_mib
            ));
        }
        violations
    }
}
