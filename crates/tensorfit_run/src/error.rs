//! What stops a run: a failed check, a limit, bad data or a bad request.

use std::fmt;

use tensorfit_base::TextRange;

use crate::program::FileId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A shape fact that does not hold: a parameter type, a `where` clause,
    /// an `assert`, a `|->` claim or an operation's contract.
    Shape,
    /// The data, not the shapes: an `Int` division by zero, an embedding
    /// index out of range.
    Data,
    /// A step or memory limit of the run.
    Limit,
    /// Something the language does not allow that the static checks
    /// report too (an undeclared name, a missing argument).
    Program,
    /// An operation the registry declares that the interpreter does not
    /// run: a defect of tensorfit, which the tests fail on.
    Unimplemented,
}

/// A place in one of the run's files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: FileId,
    pub range: TextRange,
}

#[derive(Clone, Debug)]
pub struct RunError {
    pub kind: ErrorKind,
    pub message: String,
    /// Where it failed: the innermost expression being evaluated.
    pub at: Location,
    /// The calls that led there, outermost first.
    pub calls: Vec<Location>,
}

impl RunError {
    /// Every place the failure can be said to be at: the failing expression
    /// and each call on the way to it.
    pub fn places(&self) -> impl Iterator<Item = &Location> {
        std::iter::once(&self.at).chain(self.calls.iter())
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

/// An error before it is placed: the evaluator adds where it happened.
#[derive(Clone, Debug)]
pub struct Failure {
    pub kind: ErrorKind,
    pub message: String,
    /// Set by the first evaluator frame that sees it, so the innermost
    /// expression wins.
    pub at: Option<Location>,
    pub calls: Vec<Location>,
}

impl Failure {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            at: None,
            calls: Vec::new(),
        }
    }

    pub fn shape(message: impl Into<String>) -> Failure {
        Failure::new(ErrorKind::Shape, message)
    }

    pub fn data(message: impl Into<String>) -> Failure {
        Failure::new(ErrorKind::Data, message)
    }

    pub fn program(message: impl Into<String>) -> Failure {
        Failure::new(ErrorKind::Program, message)
    }

    pub fn unimplemented(message: impl Into<String>) -> Failure {
        Failure::new(ErrorKind::Unimplemented, message)
    }

    pub fn limit(message: impl Into<String>) -> Failure {
        Failure::new(ErrorKind::Limit, message)
    }

    /// The error a run reports; a failure no expression placed (an entry
    /// point's own arguments) is at the start of `main`.
    pub fn into_error(self, main: FileId) -> RunError {
        RunError {
            kind: self.kind,
            message: self.message,
            at: self.at.unwrap_or(Location {
                file: main,
                range: TextRange::empty(0),
            }),
            calls: self.calls,
        }
    }

    pub fn at(mut self, location: Location) -> Failure {
        if self.at.is_none() {
            self.at = Some(location);
        }
        self
    }
}

pub type Outcome<T> = Result<T, Failure>;
