//! Summaries that do not grow with the depth of the call chain (issue 25):
//! a chain of structs, each holding the one before and applying a layer to
//! its input, checked function by function with one-off summaries.

use std::cell::RefCell;
use std::collections::HashMap;

use super::value::Value;
use super::*;

const OPTIONS: ShapeOptions = ShapeOptions {
    limits: crate::Limits { timeout_ms: 2000 },
    questions: true,
    language: crate::Language::Tensor,
};

/// `n` structs: `S0` applies a linear layer; `Sk` holds `S(k-1)` as
/// `inner`, calls it, and applies its own layer with a residual sum.
/// `input` is the script's input; `reach` is a method of the last struct
/// reading `inner` that many levels down.
fn chain(n: usize, input: &str, reach: usize) -> String {
    let mut text = String::from(
        "struct S0(c: Int) {\n  fc = Linear(c, c)\n  fn forward(self, x: Tensor) -> Tensor {\n    return relu(self.fc(x))\n  }\n}\n\n",
    );
    for k in 1..n {
        let deep = match k == n - 1 {
            true => format!(
                "  fn deep(self, x: Tensor) -> Tensor {{\n    return self{}.fc(x)\n  }}\n",
                ".inner".repeat(reach)
            ),
            false => String::new(),
        };
        text.push_str(&format!(
            "struct S{k}(c: Int) {{\n  inner = S{}(c)\n  fc = Linear(c, c)\n  fn forward(self, x: Tensor) -> Tensor {{\n    let y = self.inner(x)\n    return self.fc(y) + y\n  }}\n{deep}}}\n\n",
            k - 1
        ));
    }
    text.push_str(&format!(
        "let model = S{}(16)\nlet out = model({input})\nlet d = model.deep({input})\n",
        n - 1
    ));
    text
}

/// Each method's summary, by key, and the whole report.
fn summaries(text: &str) -> (HashMap<String, Arc<Summary>>, ShapeReport) {
    let parse = tensorfit_syntax::parse(text);
    assert!(parse.diagnostics.is_empty(), "{:?}", parse.diagnostics);
    let file = &parse.file;
    let report = check_shapes(file, &[], OPTIONS);
    let source = OnDemand {
        file,
        made: RefCell::new(HashMap::new()),
    };
    for key in entry_keys(file) {
        source.summary(&key);
    }
    let made = source.made.into_inner();
    let summaries = made
        .into_iter()
        .filter_map(|(k, s)| Some((k, s?)))
        .collect();
    (summaries, report)
}

/// Each function summarised once, on first use (the file has no cycles of
/// calls).
struct OnDemand<'f> {
    file: &'f ast::SourceFile,
    made: RefCell<HashMap<String, Option<Arc<Summary>>>>,
}

impl SummarySource for OnDemand<'_> {
    fn summary(&self, key: &str) -> Option<Arc<Summary>> {
        if let Some(made) = self.made.borrow().get(key) {
            return made.clone();
        }
        let outcome = analyse_function(self.file, &[], key, OPTIONS, self, &[]);
        self.made
            .borrow_mut()
            .insert(key.to_owned(), outcome.summary.clone());
        outcome.summary
    }
}

/// How many instances deep a value nests.
fn instance_depth(value: &Value) -> usize {
    match value {
        Value::Instance(instance) => {
            1 + instance
                .fields
                .iter()
                .map(|(_, field)| instance_depth(field))
                .max()
                .unwrap_or(0)
        }
        _ => 0,
    }
}

/// The shape of the script's binding `name`; `None` where its value is
/// unknown (no tensor, so no binding).
fn shape_of<'r>(report: &'r ShapeReport, name: &str) -> Option<&'r str> {
    report
        .findings
        .bindings
        .iter()
        .find(|b| b.name.as_deref() == Some(name) && b.function.is_none())
        .map(|b| b.shape.as_str())
}

#[test]
fn a_chain_of_structs_has_summaries_of_one_size() {
    let (summaries, report) = summaries(&chain(30, "randn([4, 16])", 3));
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
    assert_eq!(shape_of(&report, "out"), Some("Tensor[4, 16]"));
    // What grows with the depth: the facts taken over (each level restated
    // its callee's `rank(x) >= 1`), the call paths, and `self` built all the
    // way down. Past the first levels a summary is as large as the one
    // below it.
    let size = |key: &str| {
        let summary = &summaries[key];
        let self_depth = summary
            .params
            .iter()
            .find(|(name, _)| name == "self")
            .map_or(0, |(_, value)| instance_depth(value));
        let path_nodes: usize = summary.facts.iter().map(|f| f.via.len()).sum();
        (
            summary.facts.len(),
            summary.records.len(),
            self_depth,
            path_nodes,
        )
    };
    let (facts, records, depth, _) = size("S12.forward");
    for k in 13..29 {
        let (f, r, d, _) = size(&format!("S{k}.forward"));
        assert_eq!((f, r, d), (facts, records, depth), "S{k}.forward");
    }
    assert!(depth <= exec::MAX_ASSUMED_SELF_DEPTH + 1, "{depth}");
    // The one fact that comes from the bottom of the chain keeps its whole
    // call path (the error explains every call).
    let (_, _, _, paths) = size("S28.forward");
    assert!(paths >= 28, "{paths}");
}

#[test]
fn a_call_down_a_chain_is_still_checked_where_the_bottom_fails() {
    let (_, report) = summaries(&chain(30, "randn([4, 15])", 3));
    let messages: Vec<&str> = report
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(messages.len(), 2, "{messages:#?}");
    assert!(
        messages[0].contains("x.shape[-1] = 15 but in_features = 16"),
        "{messages:#?}"
    );
}

#[test]
fn a_field_read_past_the_depth_of_self_is_unknown_not_an_error() {
    // `deep` reads `fc` of the struct 12 levels down: past the depth its
    // `self` is built to, so its result is unknown (and no error comes of
    // it), while `forward` still calls all the way down.
    let (_, report) = summaries(&chain(20, "randn([4, 16])", 12));
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
    assert_eq!(shape_of(&report, "d"), None);
    assert_eq!(shape_of(&report, "out"), Some("Tensor[4, 16]"));
    // Within the depth, the field is read: its shape is known.
    let (_, report) = summaries(&chain(20, "randn([4, 16])", 3));
    assert_eq!(shape_of(&report, "d"), Some("Tensor[4, 16]"));
}
