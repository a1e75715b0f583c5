//! What hovering a position shows: the shape of the binding or of the
//! innermost tensor expression there, and the concrete shapes at the calls
//! that fix it (LANGUAGE.md §5, "How shapes are shown"); a hole's
//! solution; a function's signature and preconditions.

use tensorfit_base::TextRange;
use tensorfit_semantics::{CallShape, ShapeInfo, ValueRange};

use tensorfit_syntax::ast;

use crate::callable::{callable, prelude_callable};
use crate::cursor_text::word_around;
pub use crate::hover_basics::Hover;
use crate::hover_basics::Names;
use crate::FileAnalysis;
use tensorfit_semantics::resolve::{Callee, DefKind, Target};

/// Calls listed before the rest are summarised as "and N more".
const MAX_CALLS_SHOWN: usize = 8;

/// The hover at byte `offset`: a hole's solution, or the shape of the
/// tensor there.
pub fn hover(analysis: &FileAnalysis, offset: u32) -> Option<Hover> {
    let covers = |range: TextRange| range.start <= offset && offset <= range.end;
    if let Some(hole) = analysis.shapes().holes.iter().find(|h| covers(h.range)) {
        return Some(Hover {
            range: hole.range,
            text: format!("__ {}", hole_text(&hole.values)),
            documentation: None,
        });
    }
    let shape_hover = |info: &ShapeInfo| Hover {
        range: info.range,
        text: shape_text(analysis, info),
        documentation: None,
    };
    if let Some(binding) = analysis.shapes().bindings.iter().find(|b| covers(b.range)) {
        let mut hover = shape_hover(binding);
        // On a parameter with something to migrate: the annotation.
        let of_parameter = |m: &&tensorfit_semantics::Migration| {
            m.range.start <= binding.range.start && binding.range.end <= m.range.end
        };
        if let Some(migration) = analysis.shapes().migrations.iter().find(of_parameter) {
            hover.text.push('\n');
            hover
                .text
                .push_str(&crate::migration::hover_text(analysis, migration));
        }
        return Some(hover);
    }
    if let Some(function) = function_hover(analysis, offset, Names::AroundOffset) {
        return Some(function);
    }
    if let Some(index) = crate::index_hover::index_hover(analysis, offset, Names::AroundOffset) {
        return Some(index);
    }
    if let Some(unknown) = crate::unknown_hover::unknown_hover(analysis, offset) {
        return Some(unknown);
    }
    analysis
        .shapes()
        .expressions
        .iter()
        .filter(|e| covers(e.range))
        .min_by_key(|e| e.range.end - e.range.start)
        .map(shape_hover)
}

/// On the name of a function or method (declared or called), or of a
/// prelude operation: its signature, then what it asks of its callers
/// beyond the signature (its summary's preconditions).
fn function_hover(analysis: &FileAnalysis, offset: u32, names: Names) -> Option<Hover> {
    // Only done for a word that names a function, a method or a prelude
    // operation somewhere.
    if !names_a_function(analysis, word_around(&analysis.text, offset as usize)?) {
        return None;
    }
    let resolution = names.resolve(analysis, offset);
    let occurrence = resolution.occurrence_at(offset as usize)?;
    let (callable, key) = match &occurrence.target {
        Target::Def(id) => {
            let def = resolution.defs.get(*id)?;
            if !matches!(def.kind, DefKind::Function | DefKind::Method) {
                return None;
            }
            let callable = callable(&resolution, &Callee::Def(*id), &analysis.text, &|_| true)?;
            // The summary's key is the callable's name: `f`, `S.forward`.
            let key = callable.name.clone();
            (callable, Some(key))
        }
        Target::Prelude(op) => (prelude_callable(&analysis.prelude, op, false)?, None),
        _ => return None,
    };
    let mut text = format!("fn {}", callable.label().0);
    let preconditions = key.and_then(|k| analysis.shapes().preconditions.get(&k));
    for precondition in preconditions.into_iter().flatten() {
        text.push_str(&format!("\nrequires {precondition}"));
    }
    Some(Hover {
        range: occurrence.range,
        text,
        documentation: callable.documentation,
    })
}

fn names_a_function(analysis: &FileAnalysis, word: &str) -> bool {
    let named = |name: &Option<ast::Name>| name.as_ref().is_some_and(|n| n.text == word);
    analysis.prelude.function(word).is_some()
        || analysis.tree().items.iter().any(|item| match item {
            ast::Item::Function(f) => named(&f.name),
            ast::Item::Struct(s) => s.methods.iter().any(|m| named(&m.name)),
            _ => false,
        })
}

/// `y: Tensor[n, 2 * m]`, then one line per call that fixes the shape.
pub fn shape_text(analysis: &FileAnalysis, info: &ShapeInfo) -> String {
    let mut text = match &info.name {
        Some(name) => format!("{name}: {}", info.shape),
        None => info.shape.clone(),
    };
    // A call that fixes nothing more (the shape is already concrete) says
    // nothing new.
    let calls: Vec<&CallShape> = info
        .at_calls
        .iter()
        .filter(|call| call.shape != info.shape)
        .collect();
    for call in calls.iter().take(MAX_CALLS_SHOWN) {
        let lines: Vec<String> = call
            .calls
            .iter()
            .rev()
            .map(|range| (analysis.line_index.position(range.start).line + 1).to_string())
            .collect();
        let place = match lines.split_first() {
            Some((direct, [])) => format!("line {direct}"),
            Some((direct, outer)) => format!("line {direct} (from line {})", outer.join(", ")),
            None => continue,
        };
        text.push_str(&format!("\nat the call on {place}: {}", call.shape));
    }
    if calls.len() > MAX_CALLS_SHOWN {
        text.push_str(&format!(
            "\nand {} more calls",
            calls.len() - MAX_CALLS_SHOWN
        ));
    }
    text
}

/// What is known of a hole: `must be 320`, `any value from 1 to 4
/// (examples: 1, 2)`, or why nothing is.
pub fn hole_text(values: &ValueRange) -> String {
    match values {
        ValueRange::Forced(value) => format!("must be {value}"),
        ValueRange::Range { min, max, examples } => {
            let span = match (min, max) {
                (Some(min), Some(max)) => format!("any value from {min} to {max}"),
                (Some(min), None) => format!("any value from {min}"),
                (None, Some(max)) => format!("any value up to {max}"),
                (None, None) => "any value".to_owned(),
            };
            if examples.is_empty() {
                span
            } else {
                let listed: Vec<String> = examples.iter().map(i64::to_string).collect();
                format!("{span} (examples: {})", listed.join(", "))
            }
        }
        ValueRange::Empty => "no value fits every path that uses it".to_owned(),
        ValueRange::Unknown => "cannot be determined within the time limit".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::{analyze_file, AnalysisOptions, NoImports};

    /// The papers' programs, every example model, and names that a body
    /// shadows, defined after their use, in structs and the script.
    fn texts() -> Vec<(String, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut texts: Vec<(String, String)> = ["tests/programs/papers", "examples/models"]
            .iter()
            .flat_map(|dir| std::fs::read_dir(root.join(dir)).expect("the repository's programs"))
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|path| path.extension().is_some_and(|e| e == "tensor"))
            .map(|path| {
                let text = std::fs::read_to_string(&path).expect("a program");
                (path.display().to_string(), text)
            })
            .collect();
        texts.push((
            "shadowing".to_owned(),
            "fn g(x: Tensor[n]) -> Tensor[n] { let f = x\n  return f }\n\
             fn f(x: Tensor[n]) -> Tensor[n] { return g(x) }\n\
             struct S(k: Int) { w = Linear(k, k)\n  fn forward(self, x: Tensor) -> Tensor { return self.w(f(x)) } }\n\
             let y = f(randn([3]))\nlet s = S(3)\nlet z = s(randn([2, 3]))\n\
             fn k(x: Tensor[a, b]) -> Tensor[a] { return sum(j in 0..b) x[i, j] }\n"
                .to_owned(),
        ));
        assert!(texts.len() >= 12, "found {} programs", texts.len());
        texts
    }

    /// Hover resolves names only in the item around the cursor: at every
    /// offset of every program, it answers as when the whole file's names
    /// are resolved.
    #[test]
    fn hovers_resolving_one_item_answer_as_resolving_the_whole_file() {
        let (mut answered, mut indices) = (0, 0);
        for (name, text) in texts() {
            let analysis = analyze_file(
                Path::new("hover.tensor"),
                text.as_bytes(),
                Arc::new(NoImports),
                AnalysisOptions::default(),
            );
            for offset in (0..=text.len() as u32).filter(|&o| text.is_char_boundary(o as usize)) {
                let around = function_hover(&analysis, offset, Names::AroundOffset);
                let whole = function_hover(&analysis, offset, Names::WholeFile);
                assert_eq!(around, whole, "{name} at {offset}");
                answered += usize::from(whole.is_some());
                let around =
                    crate::index_hover::index_hover(&analysis, offset, Names::AroundOffset);
                let whole = crate::index_hover::index_hover(&analysis, offset, Names::WholeFile);
                assert_eq!(around, whole, "{name} at {offset}");
                indices += usize::from(whole.is_some());
            }
        }
        // Not vacuous: function and index hovers were found.
        assert!(answered > 1_000, "{answered} hovers");
        assert!(indices > 0, "no index hover");
    }
}
