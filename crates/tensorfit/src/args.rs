//! Command-line arguments. Hand-written: the interface is small and a parser
//! dependency would cost more build time than it saves.

use std::path::PathBuf;

pub const USAGE: &str = "\
usage: tensorfit check [--format human|json|sarif|github] [--shapes] [--migrations]
                       [--deny-holes] [--timeout-ms N] [--python-path DIR]... PATH...
       tensorfit run FILE [--entry NAME] [--input NAME=2x3x4]... [--seed N]
                     [--max-steps N] [--max-elements N]
       tensorfit lsp
       tensorfit --version

  lsp          run the language server on stdin/stdout (see docs/server.md)
  check        check .tensor files and PyTorch .py files (directories are
               searched recursively; .py files that import torch)
  --format     human (default): rustc-style report; json: see docs/cli.md;
               sarif: SARIF 2.1.0; github: GitHub Actions annotations
  --shapes     human format: also list the shape of every tensor binding
  --migrations human format: also list what each parameter written with `?`
               (or a jaxtyping `_`) can be annotated with (JSON always has it)
  --deny-holes report each hole left (`__`, `...` in PyTorch code) as an
               `unsolved-hole` warning, and exit 1 when there is one (for CI)
  --timeout-ms solver time limit per query in milliseconds (default 2000)
  --python-path a directory of installed Python packages that imports are
               followed into (repeatable; default: the site-packages of
               the python3 on PATH; --python-path= for none)
  run          run a program on random f32 data, checking every shape fact
               (see docs/interpreter.md); without --entry, the script body
  --entry      a function or Struct.method to call instead of the script
  --input      a parameter's shape (x=2x3x4, random data), Int (n=5) or
               Float (p=0.5); a name that is no parameter fixes a
               dimension name of the signature
  --seed       seed of the random data and weights (default 0)
";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Github,
}

#[derive(Debug, PartialEq, Eq)]
pub struct CheckOptions {
    pub format: Format,
    /// List binding shapes in the human report (JSON always has them).
    pub shapes: bool,
    /// List migrations in the human report (JSON always has them).
    pub migrations: bool,
    /// Each hole left is an `unsolved-hole` warning, and fails the check.
    pub deny_holes: bool,
    /// The solver's time limit per query.
    pub timeout_ms: u64,
    /// `--python-path` directories, in order; `None` when none is given
    /// (the default search paths apply). An empty value adds nothing.
    pub python_paths: Option<Vec<PathBuf>>,
    pub paths: Vec<PathBuf>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct RunArgs {
    pub file: PathBuf,
    pub entry: Option<String>,
    /// `NAME=VALUE` as written; parsed by the interpreter.
    pub inputs: Vec<(String, String)>,
    pub seed: u64,
    pub max_steps: Option<u64>,
    pub max_elements: Option<usize>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Check(CheckOptions),
    Run(RunArgs),
    Lsp,
    Version,
    Help,
}

pub fn parse(mut args: impl Iterator<Item = String>) -> Result<Command, String> {
    let command = match args.next().as_deref() {
        // A bare `tensorfit` asked for nothing: a usage problem (exit 2, the
        // usage on stderr), as for git or cargo; `--help` asked for it.
        None => return Err("no command given".to_owned()),
        Some("-h" | "--help" | "help") => return Ok(Command::Help),
        Some("-V" | "--version") => return Ok(Command::Version),
        Some("check") => "check",
        // Editors pass `--stdio`; stdio is the only transport.
        Some("lsp") => return Ok(Command::Lsp),
        Some("run") => return parse_run(args),
        Some(other) => return Err(format!("unknown command `{other}`")),
    };
    debug_assert_eq!(command, "check");
    let mut options = CheckOptions {
        format: Format::Human,
        shapes: false,
        migrations: false,
        deny_holes: false,
        timeout_ms: 2000,
        python_paths: None,
        paths: Vec::new(),
    };
    while let Some(arg) = args.next() {
        let (flag, inline_value) = split_flag(&arg);
        let mut value = |name: &str| flag_value(&inline_value, &mut args, name);
        match flag.as_str() {
            "--format" => {
                options.format = match value("--format")?.as_str() {
                    "human" => Format::Human,
                    "json" => Format::Json,
                    "sarif" => Format::Sarif,
                    "github" => Format::Github,
                    other => {
                        return Err(format!(
                            "unknown format `{other}` (expected human, json, sarif or github)"
                        ))
                    }
                }
            }
            "--timeout-ms" => {
                let text = value("--timeout-ms")?;
                options.timeout_ms = text.parse().ok().filter(|ms| *ms > 0).ok_or_else(|| {
                    format!("`--timeout-ms` needs a positive number of milliseconds, not `{text}`")
                })?;
            }
            "--python-path" => {
                let dir = value("--python-path")?;
                let paths = options.python_paths.get_or_insert_with(Vec::new);
                if !dir.is_empty() {
                    paths.push(PathBuf::from(dir));
                }
            }
            "--shapes" => options.shapes = true,
            "--migrations" => options.migrations = true,
            "--deny-holes" => options.deny_holes = true,
            "-h" | "--help" => return Ok(Command::Help),
            "--" => {
                options.paths.extend(args.by_ref().map(PathBuf::from));
            }
            flag if flag.starts_with('-') && flag.len() > 1 => {
                return Err(format!("unknown option `{flag}`"))
            }
            _ => options.paths.push(PathBuf::from(arg)),
        }
    }
    if options.paths.is_empty() {
        return Err("`check` needs at least one file or directory".to_owned());
    }
    Ok(Command::Check(options))
}

/// `--flag=value` as the flag and its value; anything else as itself.
fn split_flag(arg: &str) -> (String, Option<String>) {
    match arg.split_once('=') {
        Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.to_owned())),
        _ => (arg.to_owned(), None),
    }
}

/// A flag's value: written after `=`, else the next argument.
fn flag_value(
    inline: &Option<String>,
    args: &mut impl Iterator<Item = String>,
    flag: &str,
) -> Result<String, String> {
    inline
        .clone()
        .or_else(|| args.next())
        .ok_or_else(|| format!("`{flag}` needs a value"))
}

fn parse_run(mut args: impl Iterator<Item = String>) -> Result<Command, String> {
    let mut run = RunArgs {
        file: PathBuf::new(),
        entry: None,
        inputs: Vec::new(),
        seed: 0,
        max_steps: None,
        max_elements: None,
    };
    let mut file = None;
    while let Some(arg) = args.next() {
        let (flag, inline_value) = split_flag(&arg);
        let mut value = |name: &str| flag_value(&inline_value, &mut args, name);
        fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String> {
            text.parse()
                .map_err(|_| format!("`{flag}` needs a non-negative whole number, not `{text}`"))
        }
        match flag.as_str() {
            "--entry" => run.entry = Some(value("--entry")?),
            "--input" => {
                let text = value("--input")?;
                let (name, v) = text
                    .split_once('=')
                    .ok_or_else(|| format!("`--input` takes NAME=VALUE, not `{text}`"))?;
                run.inputs
                    .push((name.trim().to_owned(), v.trim().to_owned()));
            }
            "--seed" => run.seed = number("--seed", &value("--seed")?)?,
            "--max-steps" => run.max_steps = Some(number("--max-steps", &value("--max-steps")?)?),
            "--max-elements" => {
                run.max_elements = Some(number("--max-elements", &value("--max-elements")?)?)
            }
            "-h" | "--help" => return Ok(Command::Help),
            flag if flag.starts_with('-') && flag.len() > 1 => {
                return Err(format!("unknown option `{flag}`"))
            }
            _ if file.is_none() => file = Some(PathBuf::from(arg)),
            _ => return Err("`run` takes one file".to_owned()),
        }
    }
    run.file = file.ok_or("`run` needs a file")?;
    Ok(Command::Run(run))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_args(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn run_with_options() {
        let Ok(Command::Run(run)) = parse_args(&[
            "run",
            "model.tensor",
            "--entry",
            "Model.forward",
            "--input",
            "x=2x3",
            "--input=n=4",
            "--seed",
            "7",
        ]) else {
            panic!("not a run command");
        };
        assert_eq!(run.file, PathBuf::from("model.tensor"));
        assert_eq!(run.entry.as_deref(), Some("Model.forward"));
        assert_eq!(
            run.inputs,
            [
                ("x".to_owned(), "2x3".to_owned()),
                ("n".to_owned(), "4".to_owned())
            ]
        );
        assert_eq!(run.seed, 7);
        assert!(parse_args(&["run"]).is_err());
        assert!(parse_args(&["run", "a.tensor", "--input", "x"]).is_err());
        assert!(parse_args(&["run", "a.tensor", "b.tensor"]).is_err());
    }

    #[test]
    fn python_paths_are_given_in_order_or_left_to_the_default() {
        let paths = |args: &[&str]| match parse_args(args) {
            Ok(Command::Check(options)) => options.python_paths,
            other => panic!("not a check command: {other:?}"),
        };
        assert_eq!(paths(&["check", "a.py"]), None);
        assert_eq!(
            paths(&[
                "check",
                "--python-path",
                "/site",
                "--python-path=/more",
                "a.py"
            ]),
            Some(vec![PathBuf::from("/site"), PathBuf::from("/more")])
        );
        // `--python-path=` alone: no search path at all.
        assert_eq!(
            paths(&["check", "--python-path=", "a.py"]),
            Some(Vec::new())
        );
    }

    #[test]
    fn check_with_options() {
        let Ok(Command::Check(options)) = parse_args(&[
            "check",
            "--format",
            "json",
            "--timeout-ms=50",
            "--shapes",
            "--migrations",
            "--deny-holes",
            "a.tensor",
            "dir",
        ]) else {
            panic!("not a check command");
        };
        assert_eq!(options.format, Format::Json);
        assert_eq!(options.timeout_ms, 50);
        assert!(options.shapes);
        assert!(options.migrations);
        assert!(options.deny_holes);
        assert_eq!(
            options.paths,
            [PathBuf::from("a.tensor"), PathBuf::from("dir")]
        );
    }

    #[test]
    fn usage_errors() {
        assert!(parse_args(&["check"]).is_err());
        assert!(parse_args(&["check", "--format", "xml", "a"]).is_err());
        assert!(parse_args(&["check", "--timeout-ms", "0", "a"]).is_err());
        assert!(parse_args(&["check", "--frobnicate", "a"]).is_err());
        assert!(parse_args(&["frobnicate"]).is_err());
        assert!(parse_args(&[]).is_err());
        assert_eq!(parse_args(&["--help"]), Ok(Command::Help));
        assert_eq!(parse_args(&["--version"]), Ok(Command::Version));
    }
}
