//! The reference interpreter of the Tensor language (`tensorfit run`).
//!
//! It runs a program on `f32` data with the prelude's numeric semantics
//! and checks, as the program runs, every fact the static analysis reasons
//! about: parameter types, `where` clauses, `assert`s, `|->` claims and the
//! contracts of operations. Its verdicts are what the analysis is tested
//! against (docs/interpreter.md): a reported error must fail here, a shown
//! shape must be the shape seen here.
//!
//! Layout: `program` loads files and scopes; `interp` walks the syntax
//! tree (statements, expressions, calls, types, index notation, entry
//! points); `ops` and `layers` implement the prelude on `ndarray` data.

mod error;
mod interp;
mod layers;
pub mod ops;
mod program;
mod random;
mod recurrent;
mod value;

use std::collections::HashMap;

pub use error::{ErrorKind, Location, RunError};
pub use interp::{InputValue, Interpreter, Limits, Trace};
pub use program::{FileId, LoadError, Program};
pub use random::Rng;
pub use value::{shape_text, Tensor, Value};

/// What to run and how.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// `None`: the script body. Otherwise a function or `Struct.method`.
    pub entry: Option<String>,
    pub inputs: HashMap<String, InputValue>,
    pub seed: u64,
    pub limits: Limits,
    /// Record what the run sees (shapes, statements reached).
    pub trace: bool,
}

/// What a run gave.
pub struct RunReport {
    /// The script's top-level names, or the entry point's result.
    pub result: Result<RunValues, RunError>,
    pub steps: u64,
    pub trace: Option<Trace>,
}

pub enum RunValues {
    Script(Vec<(String, Value)>),
    Entry(Value),
}

/// Calls the function `entry` of `program` with `arguments` (by position).
pub fn call(
    program: &Program,
    entry: &str,
    arguments: Vec<Value>,
    options: &RunOptions,
) -> Result<Value, RunError> {
    let mut interpreter = Interpreter::new(program, options.seed, options.limits);
    interpreter
        .call_entry_with(entry, arguments)
        .map_err(|failure| failure.into_error(program.main()))
}

/// Runs `program` as `options` say.
pub fn run(program: &Program, options: &RunOptions) -> RunReport {
    let mut interpreter = Interpreter::new(program, options.seed, options.limits);
    if options.trace {
        interpreter.trace = Some(Trace::default());
    }
    let outcome = match &options.entry {
        None => interpreter.run_script().map(RunValues::Script),
        Some(entry) => interpreter
            .run_entry(entry, &options.inputs)
            .map(RunValues::Entry),
    };
    let result = outcome.map_err(|failure| failure.into_error(program.main()));
    RunReport {
        result,
        steps: interpreter.steps(),
        trace: interpreter.trace.take(),
    }
}
