use serde::Serialize;

use crate::TextRange;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }
}

/// A finding about a program: where, how bad, what, and where else to look.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub range: TextRange,
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    pub related: Vec<Related>,
    /// The edit that repairs what is reported, when there is one obvious
    /// one (a misspelt name, PyTorch's spelling of an argument): offered as
    /// a quick fix.
    pub suggestion: Option<Box<Suggestion>>,
}

/// Replace the text at `range` with `new_text`: `title` says what that
/// does ("Change to `softmax`").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Suggestion {
    pub title: String,
    pub range: TextRange,
    pub new_text: String,
}

/// A secondary location of a diagnostic in the same file, e.g. the earlier
/// declaration of a redeclared name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Related {
    pub range: TextRange,
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity.
    pub fn new(code: Code, range: TextRange, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            range,
            severity: code.default_severity(),
            code,
            message: message.into(),
            related: Vec::new(),
            suggestion: None,
        }
    }

    pub fn with_suggestion(
        mut self,
        title: impl Into<String>,
        range: TextRange,
        new_text: impl Into<String>,
    ) -> Diagnostic {
        self.suggestion = Some(Box::new(Suggestion {
            title: title.into(),
            range,
            new_text: new_text.into(),
        }));
        self
    }

    pub fn with_related(mut self, range: TextRange, message: impl Into<String>) -> Diagnostic {
        self.related.push(Related {
            range,
            message: message.into(),
        });
        self
    }
}

macro_rules! codes {
    ($($variant:ident => $name:literal, $severity:ident, $summary:literal;)*) => {
        /// The stable identifier of each kind of diagnostic. Every code is
        /// documented in `docs/diagnostics.md` (a test checks this).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $($variant,)*
        }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The identifier shown to users and written to JSON.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            pub fn default_severity(self) -> Severity {
                match self {
                    $(Code::$variant => Severity::$severity,)*
                }
            }

            /// One line saying what the code means.
            pub fn summary(self) -> &'static str {
                match self {
                    $(Code::$variant => $summary,)*
                }
            }
        }
    };
}

codes! {
    // Reading the text.
    SyntaxError => "syntax-error", Error, "the text does not follow the grammar: an unexpected or a missing token";
    InvalidUtf8 => "invalid-utf8", Error, "the file is not valid UTF-8; invalid bytes were replaced before checking";
    InvalidLiteral => "invalid-literal", Error, "a number literal that cannot be represented";
    NestingTooDeep => "nesting-too-deep", Error, "expressions or blocks nested deeper than the checker follows";
    InvalidAssignmentTarget => "invalid-assignment-target", Error, "the left side of `=` or `+=` is not a name or an index-notation target";
    ReturnOutsideFunction => "return-outside-function", Error, "`return` in the script body";
    SelfOutsideMethod => "self-outside-method", Error, "`self` used outside a struct method";
    // Names (the model language's failure kinds).
    UndeclaredName => "undeclared-name", Error, "use of a name that is not declared in scope";
    RedeclaredName => "redeclared-name", Error, "a name declared twice in the same scope";
    AssignToUndeclared => "assign-to-undeclared", Error, "assignment to a name that was never declared";
    AssignToImmutable => "assign-to-immutable", Error, "assignment to a `let`, a constant, a function or another immutable name";
    CyclicConstant => "cyclic-constant", Error, "a constant defined in terms of itself, directly or through other constants";
    UninitializedRead => "uninitialized-read", Error, "a `var` read before it is assigned on some path";
    UnknownFunction => "unknown-function", Error, "a call of a name that is no function, struct or prelude operation";
    RecursiveStruct => "recursive-struct", Error, "a struct whose fields build an instance of itself, directly or through other structs";
    UnknownField => "unknown-field", Error, "`self.name` where the struct has no such field, parameter or method";
    // Calls.
    WrongArgumentCount => "wrong-argument-count", Error, "more positional arguments than the function has parameters";
    MissingArgument => "missing-argument", Error, "a parameter without default that the call does not give";
    UnknownArgument => "unknown-argument", Error, "a named argument that the function has no parameter for";
    DuplicateArgument => "duplicate-argument", Error, "a parameter given twice, by position or by name";
    // Shapes.
    ShapeMismatch => "shape-mismatch", Error, "a shape fact that cannot hold: an operation's requirement, an assertion or a claim";
    PossibleOutOfBounds => "possible-out-of-bounds", Warning, "a kernel index ranges over an extent that nothing proves equal to a dimension it indexes: the kernel may read out of bounds";
    DecidedCondition => "decided-condition", Hint, "a branch condition on shapes that can only be true, or only false";
    InternalError => "internal-error", Warning, "a defect in tensorfit stopped part of the check";
    // Imports.
    ImportNotFound => "import-not-found", Error, "an imported file that cannot be read";
    ImportCycle => "import-cycle", Error, "files that import each other";
    // Asked for by a flag. New codes go last: SARIF's rule indices follow
    // this order.
    UnsolvedHole => "unsolved-hole", Warning, "a hole (`__`, or `...` in PyTorch code) left in the program, reported with `check --deny-holes`";
    // The language server.
    FileTooLarge => "file-too-large", Warning, "a document larger than the server checks (8 MiB): nothing else is said of it";
}

/// Where docs/diagnostics.md is read online, set when the binary is built
/// (the release workflow names the repository and the tag it builds from).
/// A binary built anywhere else has no address for its docs.
pub const DOCS_URL: Option<&str> = option_env!("TENSORFIT_DOCS_URL");

impl Code {
    /// The code's section of docs/diagnostics.md at `docs_url` (its
    /// heading is exactly `` ### `code` ``, so the anchor is the code; a
    /// test keeps it so).
    pub fn docs_at(self, docs_url: &str) -> String {
        format!("{docs_url}#{}", self.as_str())
    }

    /// The code's section online, when this binary knows where its docs
    /// are ([`DOCS_URL`]).
    pub fn docs_url(self) -> Option<String> {
        DOCS_URL.map(|url| self.docs_at(url))
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            let name = code.as_str();
            assert!(seen.insert(name), "duplicate code {name}");
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-' || c.is_ascii_digit()),
                "code {name} is not kebab-case"
            );
            assert!(!code.summary().is_empty());
        }
    }

    #[test]
    fn a_code_links_to_its_own_section() {
        assert_eq!(
            Code::UnsolvedHole.docs_at("https://example.org/docs/diagnostics.md"),
            "https://example.org/docs/diagnostics.md#unsolved-hole"
        );
    }
}
