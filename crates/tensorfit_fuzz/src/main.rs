//! `tensorfit-fuzz mutants …` and `tensorfit-fuzz session …`: see
//! `docs/testing.md`. Exits 1 when a target is missed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use tensorfit_fuzz::{crowd, mutants, pathological, programs, session};

const USAGE: &str = "\
usage: tensorfit-fuzz mutants [--count N] [--seed S] [--jobs J] [--keep DIR]
                              [--hang-seconds S] [--p99-seconds S] [--memory-mib M]
       tensorfit-fuzz session [--steps N] [--seed S]
       tensorfit-fuzz pathological [--size small|large|N] [--family NAME]...
                                   [--seconds S] [--memory-mib M]
       tensorfit-fuzz crowd [--documents N] [--huge-mib M]
       tensorfit-fuzz show --index I [--seed S]   (prints mutant I of seed S)
common: [--binary PATH] (default: the tensorfit beside this program)
        [--programs DIR]... (default: tests/programs, examples and the shared corpus)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("tensorfit-fuzz: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// The flags after the subcommand, as name → values.
struct Flags(Vec<(String, String)>);

impl Flags {
    fn parse(args: &[String]) -> Result<Flags, String> {
        let mut flags = Vec::new();
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            let name = flag
                .strip_prefix("--")
                .ok_or(format!("unexpected `{flag}`"))?;
            let value = args.next().ok_or(format!("`{flag}` needs a value"))?;
            flags.push((name.to_owned(), value.clone()));
        }
        Ok(Flags(flags))
    }

    fn all(&self, name: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.all(name).last() {
            None => Ok(default),
            Some(value) => value
                .parse()
                .map_err(|_| format!("--{name}: `{value}` is not a number")),
        }
    }

    fn check_known(&self, known: &[&str]) -> Result<(), String> {
        match self.0.iter().find(|(n, _)| !known.contains(&n.as_str())) {
            Some((name, _)) => Err(format!("unknown flag --{name}")),
            None => Ok(()),
        }
    }
}

fn run(args: &[String]) -> Result<bool, String> {
    let (command, rest) = args.split_first().ok_or("no subcommand")?;
    let flags = Flags::parse(rest)?;
    let binary = match flags.all("binary").last() {
        Some(path) => PathBuf::from(path),
        None => std::env::current_exe()
            .map_err(|e| e.to_string())?
            .with_file_name("tensorfit"),
    };
    // Absolute: the children run in scratch directories.
    let binary = std::fs::canonicalize(&binary)
        .ok()
        .filter(|b| b.is_file())
        .ok_or(format!(
            "{} is not there: build it, or name it with --binary",
            binary.display()
        ))?;
    let directories: Vec<PathBuf> = match flags.all("programs") {
        named if named.is_empty() => {
            programs::default_directories(&std::env::current_dir().map_err(|e| e.to_string())?)
        }
        named => named.into_iter().map(PathBuf::from).collect(),
    };
    let programs =
        programs::collect(&directories).map_err(|e| format!("reading the programs: {e}"))?;
    if programs.is_empty() {
        return Err(
            "no programs to mutate (run it from the repository, or name --programs)".into(),
        );
    }
    let scratch = std::env::temp_dir().join(format!("tensorfit-fuzz-{}", std::process::id()));
    let seed = flags.number("seed", 1u64)?;
    let met = match command.as_str() {
        "mutants" => {
            flags.check_known(&[
                "binary",
                "programs",
                "count",
                "seed",
                "jobs",
                "keep",
                "hang-seconds",
                "p99-seconds",
                "memory-mib",
            ])?;
            let settings = mutants::Settings {
                binary,
                count: flags.number("count", 1000)?,
                seed,
                jobs: flags.number("jobs", 2)?,
                hang_after: Duration::from_secs_f64(flags.number("hang-seconds", 10.0)?),
                keep: flags.all("keep").last().map(PathBuf::from),
            };
            println!("{} programs, seed {seed}", programs.len());
            let outcomes =
                mutants::run(&settings, &programs, &scratch).map_err(|e| e.to_string())?;
            let summary = mutants::Summary::of(&outcomes);
            println!("{}", summary.report());
            let violations = summary.violations(
                flags.number("p99-seconds", 2.0)?,
                flags.number("memory-mib", 1024.0)?,
            );
            for violation in &violations {
                println!("  {violation}");
            }
            violations.is_empty()
        }
        "session" => {
            flags.check_known(&["binary", "programs", "steps", "seed"])?;
            let settings = session::Settings {
                binary,
                steps: flags.number("steps", 1000)?,
                seed,
                answer_within: Duration::from_secs(60),
            };
            let report = session::run(&settings, &programs, &scratch).map_err(|e| e.to_string())?;
            println!("seed {seed}: {}", report.summary());
            report.failure.is_none()
        }
        "pathological" => {
            flags.check_known(&[
                "binary",
                "programs",
                "size",
                "family",
                "seconds",
                "memory-mib",
            ])?;
            let bounds = pathological::Bounds {
                time: Duration::from_secs_f64(flags.number("seconds", 10.0)?),
                memory_mib: flags.number("memory-mib", 1024u64)?,
            };
            let size = flags
                .all("size")
                .last()
                .copied()
                .unwrap_or("large")
                .to_owned();
            let named = flags.all("family");
            let mut met = true;
            for family in pathological::FAMILIES {
                if !named.is_empty() && !named.contains(&family.name) {
                    continue;
                }
                let n = match size.as_str() {
                    "small" => family.small,
                    "large" => family.large,
                    n => n.parse().map_err(|_| format!("--size: `{n}`"))?,
                };
                let outcome =
                    pathological::check(&binary, family, n, &scratch.join(family.name), &bounds)
                        .map_err(|e| e.to_string())?;
                println!("{}", outcome.line());
                met &= outcome.problem.is_none();
            }
            met
        }
        "crowd" => {
            flags.check_known(&["binary", "programs", "documents", "huge-mib"])?;
            let settings = crowd::Settings {
                binary: &binary,
                documents: flags.number("documents", 1000)?,
                huge_mib: flags.number("huge-mib", 20)?,
                within: Duration::from_secs(300),
            };
            let report = crowd::crowd(&settings, &programs, &scratch.join("crowd"))?;
            println!("{}", report.summary());
            let wrong = crowd::exits(&binary, &scratch.join("exits"));
            for problem in &wrong {
                println!("  {problem}");
            }
            wrong.is_empty()
        }
        "show" => {
            flags.check_known(&["binary", "programs", "seed", "index"])?;
            let index = flags.number("index", 0u64)?;
            let (which, bytes) = mutants::mutant(&programs, seed, index);
            eprintln!(
                "mutant {index} of seed {seed}, from {}",
                programs[which].path.display()
            );
            use std::io::Write;
            std::io::stdout()
                .write_all(&bytes)
                .map_err(|e| e.to_string())?;
            return Ok(true);
        }
        other => return Err(format!("unknown subcommand `{other}`")),
    };
    if met {
        let _ = std::fs::remove_dir_all(&scratch);
    } else {
        println!("scratch files kept in {}", scratch.display());
    }
    Ok(met)
}
