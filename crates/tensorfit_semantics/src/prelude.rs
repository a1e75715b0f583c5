//! The prelude: operations every program can call without declaring them.
//!
//! It is a `.tensor` file of `extern fn` contracts compiled into the binary,
//! parsed with the same parser as user code.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use tensorfit_base::Diagnostic;
use tensorfit_syntax::ast;

use crate::signature::Signature;

/// The source text of the prelude.
pub const PRELUDE_SOURCE: &str = include_str!("../prelude/prelude.tensor");

/// Values the prelude defines besides its operations. `None` is PyTorch's
/// "no value", the default of optional parameters.
pub const PRELUDE_VALUES: &[&str] = &["None"];

/// The operations a program can call without declaring them, with their
/// contracts. The database holds one as an input (the built-in one unless
/// it is given another); code outside it uses [`Prelude::builtin`].
pub struct Prelude {
    /// The text it was parsed from: two preludes are equal when their
    /// texts are.
    pub source: Arc<str>,
    pub file: ast::SourceFile,
    pub signatures: BTreeMap<String, Signature>,
    /// Where each operation's declaration is among the file's items.
    functions: HashMap<String, usize>,
    /// The name of every item (operations, layers, constants).
    declared: HashSet<String>,
    /// Syntax errors of the text, empty for the built-in prelude.
    pub diagnostics: Vec<Diagnostic>,
}

impl Prelude {
    /// The prelude compiled into tensorfit, parsed once.
    pub fn builtin() -> &'static Prelude {
        Prelude::builtin_shared()
    }

    /// [`Prelude::builtin`] to be held where a prelude is owned (the
    /// database's input).
    pub fn builtin_shared() -> &'static Arc<Prelude> {
        static PRELUDE: OnceLock<Arc<Prelude>> = OnceLock::new();
        PRELUDE.get_or_init(|| {
            let prelude = Prelude::parse(PRELUDE_SOURCE);
            debug_assert!(
                prelude.diagnostics.is_empty(),
                "prelude syntax: {:?}",
                prelude.diagnostics
            );
            Arc::new(prelude)
        })
    }

    /// A prelude from its text: every `fn` (normally `extern fn`) at the
    /// top level is an operation. A syntax error leaves out what it spoils
    /// and is kept in `diagnostics`.
    pub fn parse(source: impl Into<Arc<str>>) -> Prelude {
        let source = source.into();
        let parse = tensorfit_syntax::parse(&source);
        let mut signatures = BTreeMap::new();
        let mut functions = HashMap::new();
        for (i, item) in parse.file.items.iter().enumerate() {
            let ast::Item::Function(f) = item else {
                continue;
            };
            let Some(name) = f.name.as_ref().map(|n| n.text.clone()) else {
                continue;
            };
            signatures.insert(
                name.clone(),
                Signature::from_params(name.clone(), &f.params),
            );
            functions.insert(name, i);
        }
        let declared = parse
            .file
            .items
            .iter()
            .filter_map(|item| item.name().map(|n| n.text.clone()))
            .collect();
        Prelude {
            source,
            file: Arc::unwrap_or_clone(parse.file),
            signatures,
            functions,
            declared,
            diagnostics: parse.diagnostics,
        }
    }

    pub fn signature(&self, name: &str) -> Option<&Signature> {
        self.signatures.get(name)
    }

    /// Whether the prelude declares an item (an operation, a layer, a
    /// constant) named `name`.
    pub fn declares(&self, name: &str) -> bool {
        self.declared.contains(name)
    }

    /// The declaration of the operation `name`.
    pub fn function(&self, name: &str) -> Option<&ast::Function> {
        match &self.file.items[*self.functions.get(name)?] {
            ast::Item::Function(f) => Some(f),
            _ => None,
        }
    }
}

impl PartialEq for Prelude {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for Prelude {}

impl std::fmt::Debug for Prelude {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prelude")
            .field("operations", &self.signatures.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prelude_parses_without_diagnostics() {
        let parse = tensorfit_syntax::parse(PRELUDE_SOURCE);
        assert_eq!(parse.diagnostics, vec![]);
    }

    #[test]
    fn the_prelude_passes_its_own_name_checks() {
        let diagnostics = crate::check_names(&Prelude::builtin().file, &[], &Default::default());
        assert_eq!(diagnostics, vec![]);
    }

    #[test]
    fn signatures_follow_pytorch() {
        let prelude = Prelude::builtin();
        let conv = prelude.signature("Conv2d").expect("Conv2d");
        let names: Vec<&str> = conv.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "in_channels",
                "out_channels",
                "kernel_size",
                "stride",
                "padding",
                "dilation",
                "groups",
                "bias",
                "padding_mode"
            ]
        );
        assert!(conv.params[2].required && !conv.params[3].required);
        let zeros = prelude.signature("zeros").expect("zeros");
        assert!(zeros.params[0].variadic);
        for op in [
            "matmul",
            "bmm",
            "reshape",
            "permute",
            "cat",
            "einsum",
            "softmax",
            "Sequential",
        ] {
            assert!(prelude.signature(op).is_some(), "{op} is missing");
        }
    }
}
