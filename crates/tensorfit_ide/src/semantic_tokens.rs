//! Semantic highlighting: what each name of the file is.
//!
//! The editor's grammar colours keywords, numbers and comments; it cannot
//! tell a dimension name from a variable or a prelude operation from a user
//! function. Tokens are given for names (classified by the declaration they
//! resolve to, so a name has the same colour at its declaration and at every
//! use) and for shape holes `__`.

use tensorfit_base::TextRange;
use tensorfit_semantics::Prelude;
use tensorfit_syntax::ast;

use tensorfit_semantics::resolve::{resolve, DefKind, Occurrence, Resolution, Role, Target};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SemanticToken {
    pub range: TextRange,
    pub kind: TokenKind,
    pub modifiers: TokenModifiers,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    Function,
    Method,
    /// A struct, and the prelude's layers (`Conv2d`), which act as classes.
    Struct,
    Parameter,
    /// `let`, `var`, constants, loop and index variables.
    Variable,
    /// Struct fields and the tensor properties `shape` and `rank`.
    Property,
    /// A dimension name or segment bound in a `Tensor[...]` type, wherever
    /// it is used.
    DimensionName,
    /// A shape hole `__`.
    Hole,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TokenModifiers {
    /// The name is declared here.
    pub declaration: bool,
    /// The binding cannot be reassigned (`let`, `const`, loop variables,
    /// dimension names); a `var` or a parameter can.
    pub readonly: bool,
    /// Defined by the prelude.
    pub default_library: bool,
}

/// The tokens of the file, sorted by start and not overlapping.
pub fn semantic_tokens(file: &ast::SourceFile, prelude: &Prelude) -> Vec<SemanticToken> {
    let resolution = resolve(file, prelude);
    let mut tokens: Vec<SemanticToken> = resolution
        .occurrences
        .iter()
        .filter_map(|o| classify(&resolution, o))
        .collect();
    tokens.extend(file.holes.iter().map(|&range| SemanticToken {
        range,
        kind: TokenKind::Hole,
        modifiers: TokenModifiers::default(),
    }));
    tokens.retain(|t| !t.range.is_empty());
    tokens.sort_by_key(|t| (t.range.start, t.range.end));
    let mut result: Vec<SemanticToken> = Vec::with_capacity(tokens.len());
    for token in tokens {
        if result
            .last()
            .is_some_and(|last| token.range.start < last.range.end)
        {
            continue;
        }
        result.push(token);
    }
    result
}

fn classify(resolution: &Resolution<'_>, occurrence: &Occurrence) -> Option<SemanticToken> {
    let mut modifiers = TokenModifiers {
        declaration: occurrence.declaration,
        ..TokenModifiers::default()
    };
    let kind = match &occurrence.target {
        Target::Def(id) => {
            let kind = resolution.defs.get(*id)?.kind;
            modifiers.readonly = matches!(
                kind,
                DefKind::Let
                    | DefKind::Const
                    | DefKind::LoopVar
                    | DefKind::IndexVar
                    | DefKind::DimName
                    | DefKind::Segment
            );
            match kind {
                DefKind::Function => TokenKind::Function,
                DefKind::Struct => TokenKind::Struct,
                DefKind::Method => TokenKind::Method,
                DefKind::Field => TokenKind::Property,
                DefKind::Param | DefKind::StructParam => TokenKind::Parameter,
                DefKind::DimName | DefKind::Segment => TokenKind::DimensionName,
                DefKind::Const
                | DefKind::Let
                | DefKind::Var
                | DefKind::LoopVar
                | DefKind::IndexVar => TokenKind::Variable,
            }
        }
        Target::Prelude(op) => {
            modifiers.default_library = true;
            if matches!(occurrence.role, Role::Member { .. }) {
                TokenKind::Method
            } else if op.starts_with(char::is_uppercase) {
                TokenKind::Struct
            } else {
                TokenKind::Function
            }
        }
        Target::PreludeParam { .. } => {
            modifiers.default_library = true;
            TokenKind::Parameter
        }
        Target::PreludeValue(_) => {
            modifiers.default_library = true;
            modifiers.readonly = true;
            TokenKind::Variable
        }
        Target::TensorProperty(_) => {
            modifiers.default_library = true;
            modifiers.readonly = true;
            TokenKind::Property
        }
        Target::SegmentFunction => {
            modifiers.default_library = true;
            TokenKind::Function
        }
        // Undeclared, or declared in a file not resolved here: what the
        // syntax says it is, if it says anything.
        Target::Unresolved | Target::Outer(_) => match occurrence.role {
            Role::Member { called: true, .. } => TokenKind::Method,
            Role::Member { called: false, .. } => TokenKind::Property,
            Role::Callee | Role::SegmentFunction => TokenKind::Function,
            Role::NamedArg => TokenKind::Parameter,
            Role::TypeName => TokenKind::Struct,
            Role::Dimension => TokenKind::DimensionName,
            Role::Plain | Role::Assigned | Role::TorchPrefix { .. } => return None,
        },
    };
    Some(SemanticToken {
        range: occurrence.range,
        kind,
        modifiers,
    })
}
