//! The prelude: operations every program can call without declaring them.
//!
//! It is a `.tensor` file of `extern fn` contracts compiled into the binary,
//! parsed with the same parser as user code.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use tensorfit_syntax::ast;

use crate::signature::Signature;

/// The source text of the prelude.
pub const PRELUDE_SOURCE: &str = include_str!("../prelude/prelude.tensor");

/// Values the prelude defines besides its operations. `None` is PyTorch's
/// "no value", the default of optional parameters.
pub const PRELUDE_VALUES: &[&str] = &["None"];

pub struct Prelude {
    pub file: ast::SourceFile,
    pub signatures: BTreeMap<String, Signature>,
}

impl Prelude {
    pub fn get() -> &'static Prelude {
        static PRELUDE: OnceLock<Prelude> = OnceLock::new();
        PRELUDE.get_or_init(|| {
            let parse = tensorfit_syntax::parse(PRELUDE_SOURCE);
            debug_assert!(
                parse.diagnostics.is_empty(),
                "prelude syntax: {:?}",
                parse.diagnostics
            );
            let signatures = parse
                .file
                .items
                .iter()
                .filter_map(|item| match item {
                    ast::Item::Function(f) => {
                        let name = f.name.as_ref()?.text.clone();
                        Some((name.clone(), Signature::from_params(name, &f.params)))
                    }
                    _ => None,
                })
                .collect();
            Prelude {
                file: std::sync::Arc::unwrap_or_clone(parse.file),
                signatures,
            }
        })
    }

    pub fn signature(&self, name: &str) -> Option<&Signature> {
        self.signatures.get(name)
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
        let diagnostics = crate::check_names(&Prelude::get().file, &[], &Default::default());
        assert_eq!(diagnostics, vec![]);
    }

    #[test]
    fn signatures_follow_pytorch() {
        let prelude = Prelude::get();
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
