//! `tensorfit run`: the reference interpreter (docs/interpreter.md).

use std::collections::HashMap;
use std::process::ExitCode;
use std::time::Instant;

use tensorfit_base::{LineIndex, TextRange};
use tensorfit_run::{InputValue, Limits, Program, RunOptions, RunValues, Value};

use crate::args::RunArgs;
use crate::output::printable;

pub fn run(args: &RunArgs) -> ExitCode {
    let program = match Program::load(&args.file) {
        Ok(program) => program,
        Err(error) => {
            let place = match error.range {
                Some(range) => {
                    let text = std::fs::read_to_string(&error.path).unwrap_or_default();
                    format!(
                        "{}: ",
                        place(&error.path.display().to_string(), &text, range)
                    )
                }
                None => String::new(),
            };
            eprintln!("tensorfit: {place}{}", printable(&error.message));
            return ExitCode::from(2);
        }
    };
    let mut inputs = HashMap::new();
    for (name, text) in &args.inputs {
        match InputValue::parse(text) {
            Ok(v) => {
                inputs.insert(name.clone(), v);
            }
            Err(message) => {
                eprintln!("tensorfit: --input {}: {message}", printable(name));
                return ExitCode::from(2);
            }
        }
    }
    let defaults = Limits::default();
    let options = RunOptions {
        entry: args.entry.clone(),
        inputs,
        seed: args.seed,
        limits: Limits {
            max_steps: args.max_steps.unwrap_or(defaults.max_steps),
            max_elements: args.max_elements.unwrap_or(defaults.max_elements),
            ..defaults
        },
        trace: false,
    };
    let started = Instant::now();
    let report = tensorfit_run::run(&program, &options);
    let elapsed = started.elapsed();
    let what = match &args.entry {
        Some(entry) => format!(
            "`{}` of {}",
            printable(entry),
            printable(&args.file.display().to_string())
        ),
        None => format!(
            "the script of {}",
            printable(&args.file.display().to_string())
        ),
    };
    match report.result {
        Ok(values) => {
            println!(
                "ran {what}: {} steps in {:.3} s, every shape fact held",
                report.steps,
                elapsed.as_secs_f64()
            );
            match values {
                RunValues::Script(names) => {
                    for (name, value) in names {
                        println!("  {}: {}", printable(&name), describe(&value));
                    }
                }
                RunValues::Entry(value) => println!("  result: {}", describe(&value)),
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            let file = program.file(error.at.file);
            let path = file.path.display().to_string();
            eprintln!(
                "error[run]: {}\n --> {}",
                printable(&error.message),
                place(&path, &file.text, error.at.range)
            );
            let index = LineIndex::new(&file.text);
            let line = index.position(error.at.range.start).line;
            eprintln!("  | {}", printable(index.line_text(line).trim_end()));
            for call in error.calls.iter().rev() {
                let file = program.file(call.file);
                eprintln!(
                    "  = called from {}",
                    place(&file.path.display().to_string(), &file.text, call.range)
                );
            }
            eprintln!("after {} steps", report.steps);
            ExitCode::from(1)
        }
    }
}

fn place(path: &str, text: &str, range: TextRange) -> String {
    let position = LineIndex::new(text).position(range.start);
    // Paths and names are the user's: no control character reaches the
    // terminal.
    let path = crate::output::line_start_path(path);
    format!("{path}:{}:{}", position.line + 1, position.character + 1)
}

/// A value for people: shapes, and a tensor's first few numbers.
fn describe(value: &Value) -> String {
    match value {
        Value::Tensor(t) => {
            let first: Vec<String> = t.iter().take(4).map(|x| format!("{x:.4}")).collect();
            let more = if t.len() > 4 { ", …" } else { "" };
            format!(
                "{} = [{}{more}]",
                tensorfit_run::shape_text(t.shape()),
                first.join(", ")
            )
        }
        Value::Tuple(items) => {
            let parts: Vec<String> = items.iter().map(describe).collect();
            format!("({})", parts.join(", "))
        }
        other => other.to_string(),
    }
}
