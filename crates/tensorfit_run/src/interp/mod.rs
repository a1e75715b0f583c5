//! The tree-walking evaluator: frames, limits and the trace of a run.

mod call;
mod entry;
mod expr;
mod kernel;
mod stmt;
mod types;

use std::collections::{HashMap, HashSet};

use tensorfit_base::TextRange;
use tensorfit_semantics::Prelude;
use tensorfit_syntax::ast;

use crate::error::{ErrorKind, Failure, Location, Outcome};
use crate::ops::OpContext;
use crate::program::{FileId, Program};
use crate::value::Value;

pub use entry::InputValue;
pub use stmt::Flow;

/// How far a run may go before it is stopped.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Statements, loop iterations and kernel points, together.
    pub max_steps: u64,
    /// Elements of one tensor (4 bytes each).
    pub max_elements: usize,
    /// Nested calls.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: 50_000_000,
            max_elements: 1 << 28,
            max_depth: 200,
        }
    }
}

/// What a run saw, for comparing with the static analysis.
#[derive(Debug, Default)]
pub struct Trace {
    /// Every tensor-valued binding: (where the name is, its shape).
    pub bindings: Vec<(Location, Vec<usize>)>,
    /// Every tensor-valued expression evaluated: (its range, its shape).
    pub expressions: Vec<(Location, Vec<usize>)>,
    /// The statements that started to run.
    pub reached: HashSet<(FileId, TextRange)>,
}

pub struct Interpreter<'p> {
    pub(crate) program: &'p Program,
    pub(crate) prelude: &'static Prelude,
    pub(crate) ops: OpContext,
    limits: Limits,
    steps: u64,
    /// The calls being evaluated, outermost first.
    calls: Vec<Location>,
    consts: HashMap<(FileId, usize), Value>,
    evaluating_consts: HashSet<(FileId, usize)>,
    pub trace: Option<Trace>,
}

/// One function activation: its file (for names) and its block scopes.
pub(crate) struct Frame {
    pub file: FileId,
    scopes: Vec<HashMap<String, Slot>>,
    pub self_value: Option<Value>,
    /// The declared result type of the running function and the
    /// function's name: each `return` is checked against it, where it is.
    pub result: Option<(ast::Type, String)>,
}

pub(crate) struct Slot {
    /// `None` for a `var` declared without a value.
    pub value: Option<Value>,
    pub mutable: bool,
    /// The declared type of a `var`, checked at each assignment.
    pub ty: Option<ast::Type>,
}

impl Frame {
    pub fn new(file: FileId) -> Frame {
        Frame {
            file,
            scopes: vec![HashMap::new()],
            self_value: None,
            result: None,
        }
    }

    pub fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    pub fn define(
        &mut self,
        name: &str,
        value: Option<Value>,
        mutable: bool,
        ty: Option<ast::Type>,
    ) {
        let scope = self.scopes.last_mut().expect("a frame has a scope");
        scope.insert(name.to_owned(), Slot { value, mutable, ty });
    }

    pub fn lookup(&self, name: &str) -> Option<&Slot> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    pub fn lookup_mut(&mut self, name: &str) -> Option<&mut Slot> {
        self.scopes.iter_mut().rev().find_map(|s| s.get_mut(name))
    }
}

impl<'p> Interpreter<'p> {
    pub fn new(program: &'p Program, seed: u64, limits: Limits) -> Interpreter<'p> {
        Interpreter {
            program,
            prelude: Prelude::builtin(),
            ops: OpContext::new(seed, limits.max_elements),
            limits,
            steps: 0,
            calls: Vec::new(),
            consts: HashMap::new(),
            evaluating_consts: HashSet::new(),
            trace: None,
        }
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Counts one step; fails once the limit is passed.
    pub(crate) fn step(&mut self) -> Outcome<()> {
        self.steps += 1;
        if self.steps > self.limits.max_steps {
            return Err(Failure::limit(format!(
                "the run was stopped after {} steps (statements, loop iterations and kernel points): \
                 is a `while` loop endless?",
                self.limits.max_steps
            )));
        }
        Ok(())
    }

    pub(crate) fn location(&self, frame: &Frame, range: TextRange) -> Location {
        Location {
            file: frame.file,
            range,
        }
    }

    /// The text of `range` in `frame`'s file, for messages.
    pub(crate) fn text(&self, file: FileId, range: TextRange) -> &'p str {
        let text: &'p str = if file == FileId::PRELUDE {
            &self.prelude.source
        } else {
            &self.program.file(file).text
        };
        text.get(range.as_usize()).unwrap_or("")
    }

    /// Records a tensor bound to a name (at the name's `range`).
    pub(crate) fn record_binding(&mut self, frame: &Frame, range: TextRange, value: &Value) {
        if let Some(trace) = self.trace.as_mut() {
            record(&mut trace.bindings, frame.file, range, value);
        }
    }

    /// Records a tensor-valued expression.
    pub(crate) fn record_expression(&mut self, frame: &Frame, range: TextRange, value: &Value) {
        if let Some(trace) = self.trace.as_mut() {
            record(&mut trace.expressions, frame.file, range, value);
        }
    }

    /// Runs `f` as a call made at `at`: failures inside name the call.
    pub(crate) fn in_call<T>(
        &mut self,
        at: Location,
        f: impl FnOnce(&mut Self) -> Outcome<T>,
    ) -> Outcome<T> {
        if self.calls.len() >= self.limits.max_depth {
            return Err(Failure::new(
                ErrorKind::Limit,
                format!(
                    "calls nest more than {} deep: is a function calling itself without end?",
                    self.limits.max_depth
                ),
            ));
        }
        self.calls.push(at);
        let result = f(self);
        self.calls.pop();
        result.map_err(|mut failure| {
            if failure.calls.is_empty() {
                failure.calls = self.calls.clone();
                failure.calls.push(at);
            }
            failure
        })
    }

    pub(crate) fn constant(&mut self, file: FileId, item: usize) -> Outcome<Value> {
        if let Some(v) = self.consts.get(&(file, item)) {
            return Ok(v.clone());
        }
        if !self.evaluating_consts.insert((file, item)) {
            return Err(Failure::program("a constant is defined through itself"));
        }
        let ast::Item::Const(c) = self.program.item(file, item) else {
            unreachable!("a constant reference names a constant");
        };
        let mut frame = Frame::new(file);
        let result = self.eval(&mut frame, &c.value);
        self.evaluating_consts.remove(&(file, item));
        let value = result?;
        self.consts.insert((file, item), value.clone());
        Ok(value)
    }
}

fn record(into: &mut Vec<(Location, Vec<usize>)>, file: FileId, range: TextRange, value: &Value) {
    if let Value::Tensor(t) = value {
        into.push((Location { file, range }, t.shape().to_vec()));
    }
}
