//! How a migration's annotation is written into a Python file (PYTHON.md
//! §6: "the annotation is written in the file's own style"). A file that
//! imports jaxtyping gets a jaxtyping annotation, spelt with the names the
//! file already uses for jaxtyping and for `Tensor`; a file that does not
//! has no way to write a shape, so its migrations are offered in words only
//! (adding a dependency to someone's project is not a quick fix).
//!
//! The engine writes migrations in the Tensor language (`Tensor[?, 4]`);
//! this module turns them into `Shaped[Tensor, "_ 4"]`, keeping whatever a
//! jaxtyping annotation already names (`"b _"` becomes `"b 4"`).

use tensorfit_base::TextRange;
use tensorfit_semantics::{Migration, Writing};
use tree_sitter::{Node, Tree};

use crate::context::ModuleContext;
use crate::lower::syntax::{child_by_field, named_children, text_of};

/// jaxtyping's dtype that accepts any dtype: tensorfit knows shapes, not
/// dtypes, so it never claims one.
const ANY_DTYPE: &str = "Shaped";

/// The names a file writes a jaxtyping annotation with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnnotationStyle {
    /// `Shaped`, or `jt.Shaped` after `import jaxtyping as jt`.
    dtype: String,
    /// `Tensor` after `from torch import Tensor`, else `torch.Tensor`
    /// through the file's alias of `torch`.
    tensor: String,
    /// Adds `Shaped` to the file's `from jaxtyping import …` when it is
    /// not imported yet.
    import: Option<(TextRange, String)>,
}

/// The file's style, if it imports jaxtyping and torch.
pub fn annotation_style(
    tree: &Tree,
    text: &str,
    context: &ModuleContext,
) -> Option<AnnotationStyle> {
    let bound_to = |path: &str| {
        context
            .imported
            .iter()
            .find(|(_, p)| p.as_str() == path)
            .map(|(name, _)| name.clone())
    };
    let tensor = bound_to("torch.Tensor")
        .or_else(|| bound_to("torch").map(|torch| format!("{torch}.Tensor")))?;
    if let Some(shaped) = bound_to("jaxtyping.Shaped") {
        return Some(AnnotationStyle {
            dtype: shaped,
            tensor,
            import: None,
        });
    }
    if let Some(module) = bound_to("jaxtyping") {
        return Some(AnnotationStyle {
            dtype: format!("{module}.{ANY_DTYPE}"),
            tensor,
            import: None,
        });
    }
    let from_jaxtyping = named_children(tree.root_node())
        .into_iter()
        .find(|node| is_import_from(*node, text, "jaxtyping"))?;
    // `from jaxtyping import *` (no last name) already binds it.
    let import = last_imported_name(from_jaxtyping)
        .map(|last| (TextRange::empty(last.end_byte()), format!(", {ANY_DTYPE}")));
    Some(AnnotationStyle {
        dtype: ANY_DTYPE.to_owned(),
        tensor,
        import,
    })
}

fn is_import_from(node: Node<'_>, text: &str, module: &str) -> bool {
    node.kind() == "import_from_statement"
        && child_by_field(node, "module_name").is_some_and(|m| text_of(m, text).trim() == module)
}

/// The last name of `from m import a, b as c`; `None` for `import *`.
fn last_imported_name(statement: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = statement.walk();
    let names: Vec<Node<'_>> = statement
        .children_by_field_name("name", &mut cursor)
        .collect();
    names.last().copied()
}

impl AnnotationStyle {
    /// Rewrites a migration the engine wrote in the Tensor language into
    /// the file's spelling; `text` is the file's. When an annotation cannot
    /// be written (the parameter's jaxtyping shape has a `*segment` that
    /// does not line up with the dimensions found), the migration stays in
    /// words only.
    pub fn write(&self, migration: &mut Migration, text: &str) -> bool {
        let written = text
            .get(migration.type_range.as_usize())
            .unwrap_or_default()
            .trim();
        let Some((annotation, uses_dtype)) = self.spell(&migration.annotation, written) else {
            return false;
        };
        let spell_known = |shape: &str| self.spell(shape, written).map(|(s, _)| s);
        migration.example = migration.example.as_deref().and_then(spell_known);
        migration.call_shapes = migration
            .call_shapes
            .iter()
            .map(|shape| spell_known(shape).unwrap_or_else(|| shape.clone()))
            .collect();
        migration.annotation = annotation;
        let also = self.import.iter().filter(|_| uses_dtype).cloned().collect();
        migration.writing = Some(Writing {
            lead: if written.is_empty() { ": " } else { "" }.to_owned(),
            also,
        });
        true
    }

    /// `Tensor[?, 4]` written over the parameter's annotation `written`
    /// (empty when it has none), and whether it uses this style's dtype
    /// name (and so maybe its import). `None` when nothing can be written.
    fn spell(&self, shape: &str, written: &str) -> Option<(String, bool)> {
        let dims = tensor_dims(shape)?;
        if let Some(jaxtyping) = Jaxtyping::parse(written) {
            return jaxtyping.filled(&dims).map(|a| (a, false));
        }
        let tensor = if written.is_empty() {
            self.tensor.as_str()
        } else {
            // `x: torch.Tensor` keeps its spelling of the array type.
            written
        };
        let words: Vec<String> = dims
            .iter()
            .map(|d| {
                if *d == "?" {
                    "_".to_owned()
                } else {
                    jaxtyping_word(d)
                }
            })
            .collect();
        Some((
            format!("{}[{tensor}, \"{}\"]", self.dtype, words.join(" ")),
            true,
        ))
    }
}

/// A dimension as one word of a jaxtyping shape string, which jaxtyping
/// splits at spaces: `(h + 1) // 2` is written `(h+1)//2`.
fn jaxtyping_word(dim: &str) -> String {
    dim.split_whitespace().collect()
}

/// The dimensions of `Tensor[a, b]` (`?` for an unknown one); `None` for
/// a bare `Tensor`, which says nothing worth writing.
fn tensor_dims(shape: &str) -> Option<Vec<&str>> {
    let inner = shape.strip_prefix("Tensor[")?.strip_suffix(']')?;
    Some(
        inner
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .collect(),
    )
}

/// A written jaxtyping annotation, `Float[torch.Tensor, "b _ 4"]`, taken
/// apart as text.
struct Jaxtyping<'t> {
    /// `Float[torch.Tensor, `: everything before the shape string.
    head: &'t str,
    quote: char,
    words: Vec<&'t str>,
}

impl<'t> Jaxtyping<'t> {
    fn parse(written: &'t str) -> Option<Self> {
        let inner = written.strip_suffix(']')?.trim_end();
        let quote = inner.chars().last().filter(|q| *q == '"' || *q == '\'')?;
        let body = &inner[..inner.len() - 1];
        let open = body.rfind(quote)?;
        let head = &written[..open];
        if !head.contains('[') {
            return None;
        }
        Some(Jaxtyping {
            head,
            quote,
            words: body[open + 1..].split_whitespace().collect(),
        })
    }

    /// The annotation with each `_` that the engine found a number for
    /// replaced by it; `None` when the words do not line up one to one
    /// with the dimensions.
    fn filled(&self, dims: &[&str]) -> Option<String> {
        let variadic = |w: &&str| *w == "..." || w.starts_with('*');
        if self.words.iter().any(variadic) || self.words.len() != dims.len() {
            return None;
        }
        let words: Vec<String> = self
            .words
            .iter()
            .zip(dims)
            .map(|(word, dim)| match (*word, *dim) {
                ("_", "?") => "_".to_owned(),
                ("_", value) => jaxtyping_word(value),
                (word, _) => word.to_owned(),
            })
            .collect();
        let quote = self.quote;
        Some(format!("{}{quote}{}{quote}]", self.head, words.join(" ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn style_of(text: &str) -> Option<AnnotationStyle> {
        let tree = crate::parse_tree(text, None);
        let context = crate::module_context(&tree, text);
        annotation_style(&tree, text, &context)
    }

    #[test]
    fn files_without_jaxtyping_have_no_style() {
        assert_eq!(style_of("import torch\ndef f(x):\n    return x\n"), None);
    }

    #[test]
    fn the_files_names_are_used() {
        let style = style_of("import torch as th\nimport jaxtyping as jt\n").unwrap();
        assert_eq!(
            (style.dtype.as_str(), style.tensor.as_str()),
            ("jt.Shaped", "th.Tensor")
        );
        assert_eq!(style.import, None);
        let style = style_of("from torch import Tensor\nfrom jaxtyping import Shaped\n").unwrap();
        assert_eq!(
            (style.dtype.as_str(), style.tensor.as_str()),
            ("Shaped", "Tensor")
        );
    }

    #[test]
    fn shaped_is_added_to_the_jaxtyping_import() {
        let text = "import torch\nfrom jaxtyping import Float, Int\n";
        let style = style_of(text).unwrap();
        let (range, added) = style.import.clone().unwrap();
        assert_eq!(
            &text[..range.start as usize],
            "import torch\nfrom jaxtyping import Float, Int"
        );
        assert_eq!(added, ", Shaped");
    }

    #[test]
    fn shapes_are_spelt_in_jaxtyping() {
        let style = style_of("from torch import Tensor\nfrom jaxtyping import Shaped\n").unwrap();
        let spell = |shape: &str, written: &str| style.spell(shape, written).map(|(s, _)| s);
        assert_eq!(
            spell("Tensor[?, 4]", "").as_deref(),
            Some("Shaped[Tensor, \"_ 4\"]")
        );
        assert_eq!(
            spell("Tensor[]", "").as_deref(),
            Some("Shaped[Tensor, \"\"]")
        );
        assert_eq!(spell("Tensor", ""), None);
        assert_eq!(
            spell("Tensor[2, 3]", "torch.Tensor").as_deref(),
            Some("Shaped[torch.Tensor, \"2 3\"]")
        );
        // jaxtyping splits its string at spaces: a dimension is one word.
        assert_eq!(
            spell("Tensor[b, (h + 1) // 2]", "").as_deref(),
            Some("Shaped[Tensor, \"b (h+1)//2\"]")
        );
        assert_eq!(
            spell("Tensor[b, n // h]", "Float[Tensor, \"b _\"]").as_deref(),
            Some("Float[Tensor, \"b n//h\"]")
        );
        assert_eq!(
            spell("Tensor[?, 4, 5]", "Float[Tensor, 'b _ #c']").as_deref(),
            Some("Float[Tensor, 'b 4 #c']")
        );
        assert_eq!(spell("Tensor[?, 4]", "Float[Tensor, \"*b _\"]"), None);
        assert_eq!(spell("Tensor[?, 4]", "Float[Tensor, \"_\"]"), None);
    }
}
