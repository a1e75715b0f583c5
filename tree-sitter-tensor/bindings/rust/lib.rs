//! The Tensor language grammar for tree-sitter.
//!
//! ```
//! let mut parser = tree_sitter::Parser::new();
//! parser.set_language(&tree_sitter_tensor::LANGUAGE.into()).unwrap();
//! let tree = parser.parse("let x = zeros([2, 3])", None).unwrap();
//! assert!(!tree.root_node().has_error());
//! ```

use tree_sitter_language::LanguageFn;

extern "C" {
    fn tree_sitter_tensor() -> *const ();
}

/// The tree-sitter language of `.tensor` files.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_tensor) };

/// The content of `node-types.json`, describing every node kind.
pub const NODE_TYPES: &str = include_str!("../../src/node-types.json");

/// Syntax highlighting queries.
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

/// Scopes and definitions, for editors that track locals.
pub const LOCALS_QUERY: &str = include_str!("../../queries/locals.scm");

/// Definitions and references, for code navigation.
pub const TAGS_QUERY: &str = include_str!("../../queries/tags.scm");

#[cfg(test)]
mod tests {
    #[test]
    fn loads_the_grammar() {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&super::LANGUAGE.into())
            .expect("the generated parser's ABI is supported by the runtime");
    }

    #[test]
    fn queries_compile() {
        let language = super::LANGUAGE.into();
        for (name, source) in [
            ("highlights", super::HIGHLIGHTS_QUERY),
            ("locals", super::LOCALS_QUERY),
            ("tags", super::TAGS_QUERY),
        ] {
            if let Err(error) = tree_sitter::Query::new(&language, source) {
                panic!("{name}.scm does not compile: {error}");
            }
        }
    }
}
