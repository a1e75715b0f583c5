//! Answering from the last finished analysis while a newer version of the
//! text is being checked.
//!
//! After an edit, the re-check of the edited function can take as long as
//! a whole model's solving. Hover and inlay hints do not wait for it: they
//! read the previous analysis through an [`EditMap`], which maps the
//! request back to that analysis's text and the answer forward to the
//! current one. What an edit replaced has no answer there, and what lies in
//! a function (or script statement) that was edited is marked as possibly
//! out of date: the function's other shapes may change with the edit. The
//! rest of the file is exact unless the edit changed what a function
//! promises its callers; then the fresh results replace it moments later.

use tensorfit_base::{EditMap, TextRange};
use tensorfit_semantics::ShapeInfo;
use tensorfit_syntax::ast;

use crate::{FileAnalysis, Hover};

/// A finished analysis and the edits made to its text since.
#[derive(Clone, Debug)]
pub struct CarriedAnalysis {
    pub analysis: FileAnalysis,
    pub edits: EditMap,
}

/// An answer read from an older analysis, in the current text's offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Carried<T> {
    pub value: T,
    /// It lies in a function or statement edited since that analysis.
    pub in_edited_code: bool,
}

impl CarriedAnalysis {
    /// An analysis of the current text itself: nothing to carry it over.
    pub fn exact(analysis: FileAnalysis) -> CarriedAnalysis {
        CarriedAnalysis {
            analysis,
            edits: EditMap::default(),
        }
    }

    /// The hover at `offset` of the current text, if the analysis has one
    /// for that place and the place's text is unchanged.
    pub fn hover(&self, offset: u32) -> Option<Carried<Hover>> {
        let old = self.edits.to_old(offset)?;
        let mut hover = crate::hover(&self.analysis, old)?;
        let in_edited_code = self.in_edited_code(old);
        hover.range = self.edits.to_current(hover.range)?;
        Some(Carried {
            value: hover,
            in_edited_code,
        })
    }

    /// Whether `offset` of the current text lies in text typed since the
    /// analysis (which has nothing for it).
    pub fn typed_since(&self, offset: u32) -> bool {
        self.edits.to_old(offset).is_none()
    }

    /// The named bindings whose current range lies in `wanted`, with their
    /// ranges now (inlay hints, which are asked for again when a newer
    /// analysis is kept, so they are not marked).
    pub fn bindings_in(&self, wanted: TextRange) -> Vec<(TextRange, &ShapeInfo)> {
        self.analysis
            .shapes()
            .bindings
            .iter()
            .filter(|b| b.name.is_some())
            .filter_map(|b| {
                let now = self.edits.to_current(b.range)?;
                (wanted.start <= now.start && now.end <= wanted.end).then_some((now, b))
            })
            .collect()
    }

    /// Whether the function, method or script statement around an offset
    /// of the analysed text was edited since.
    fn in_edited_code(&self, old: u32) -> bool {
        !self.edits.is_empty()
            && innermost_unit(self.analysis.tree(), old)
                .is_some_and(|unit| self.edits.touches(unit))
    }
}

/// The range of what is analysed as one unit around `offset`: a function,
/// a method, or a statement of the script.
fn innermost_unit(tree: &ast::SourceFile, offset: u32) -> Option<TextRange> {
    let covers = |range: &TextRange| range.start <= offset && offset <= range.end;
    let functions = tree.items.iter().flat_map(|item| match item {
        ast::Item::Function(f) => std::slice::from_ref(f),
        ast::Item::Struct(s) => s.methods.as_slice(),
        _ => &[],
    });
    functions
        .map(|f| f.range)
        .chain(tree.script.iter().map(|s| s.range))
        .find(covers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::sync::Arc;
    use tensorfit_base::ByteEdit;

    use crate::{analyze_file, AnalysisOptions, NoImports};

    /// The analysis of `before`, carried over the edit that turns the text
    /// marked `<<old|new>>` into `new`.
    fn carried(marked: &str) -> (String, CarriedAnalysis) {
        let open = marked.find("<<").expect("<<");
        let bar = marked.find('|').expect("|");
        let close = marked.find(">>").expect(">>");
        let (old, new) = (&marked[open + 2..bar], &marked[bar + 1..close]);
        let before = format!("{}{old}{}", &marked[..open], &marked[close + 2..]);
        let after = format!("{}{new}{}", &marked[..open], &marked[close + 2..]);
        let analysis = analyze_file(
            Path::new("carried.tensor"),
            before.as_bytes(),
            Arc::new(NoImports),
            AnalysisOptions::default(),
        );
        let mut edits = EditMap::default();
        edits.record(ByteEdit {
            start: open as u32,
            end: (open + old.len()) as u32,
            inserted: new.len() as u32,
        });
        (after, CarriedAnalysis { analysis, edits })
    }

    const MODEL: &str = "\
fn block(x: Tensor[b, 4]) -> Tensor[b, 8] {
  let h = x @ ones(4, 8)<<|  // typed>>
  let y = relu(h)
  return y
}

let out = block(randn([2, 4]))
";

    /// Hovers on bindings after an edit in `block`: the old shape at the
    /// name's new place, marked when the binding is in the edited function.
    #[test]
    fn hovers_read_the_old_shapes_at_their_new_places() {
        let (after, carried) = carried(MODEL);
        let cases = [
            ("let y", "y: Tensor[b, 8]", true),
            ("let out", "out: Tensor[2, 8]", false),
        ];
        for (binding, shape, in_edited_code) in cases {
            let at = after.find(binding).unwrap() as u32 + 4;
            let hover = carried.hover(at).expect(binding);
            assert_eq!(hover.value.text.lines().next(), Some(shape));
            assert_eq!(&after[hover.value.range.as_usize()], &binding[4..]);
            assert_eq!(hover.in_edited_code, in_edited_code, "{binding}");
        }
    }

    #[test]
    fn what_an_edit_replaced_has_no_answer() {
        let (after, carried) = carried(&MODEL.replace(
            "let h = x @ ones(4, 8)<<|  // typed>>",
            "let <<h|hidden>> = x @ ones(4, 8)",
        ));
        let at = after.find("hidden").unwrap() as u32 + 2;
        assert_eq!(carried.hover(at), None);
        // Only the edit's own text waits for the check (the server's
        // hover); a place the analysis had nothing for is answered so.
        assert!(carried.typed_since(at));
        let keyword = after.find("return").unwrap() as u32 + 2;
        assert_eq!(carried.hover(keyword), None);
        assert!(!carried.typed_since(keyword));
        let all = TextRange::new(0, after.len());
        let names: Vec<&str> = carried
            .bindings_in(all)
            .iter()
            .map(|(now, _)| &after[now.as_usize()])
            .collect();
        assert!(names.contains(&"y") && names.contains(&"out"), "{names:?}");
        assert!(
            !names.contains(&"hidden") && !names.contains(&"h"),
            "{names:?}"
        );
    }
}
