//! Holes left in a program, as warnings (`tensorfit check --deny-holes`).
//!
//! A hole (`__`, or `...` in PyTorch code) asks the checker for a number
//! and is meant to be replaced by it. A check lists what fits each hole
//! without complaining: a program with holes is one being written, and the
//! test programs' expectations (EXPECTATIONS.md) give holes no warning. In
//! CI a hole left behind should fail the build, so `--deny-holes` reports
//! each one as an `unsolved-hole` warning and makes the exit status 1.

use tensorfit_base::{Code, Diagnostic, Severity};
use tensorfit_semantics::ValueRange;

use crate::FileAnalysis;

/// One `unsolved-hole` warning per hole of the file, saying what fits it.
pub fn left_hole_warnings(analysis: &FileAnalysis) -> Vec<Diagnostic> {
    analysis
        .shapes()
        .holes
        .iter()
        .map(|hole| {
            let written = analysis.text.get(hole.range.as_usize()).unwrap_or("__");
            let what = crate::hole_text(&hole.values);
            let fits = match &hole.values {
                ValueRange::Forced(_) => format!("it {what}"),
                ValueRange::Range { .. } => format!("it can be {what}"),
                ValueRange::Empty => what,
                ValueRange::Unknown => format!("its value {what}"),
            };
            Diagnostic {
                range: hole.range,
                severity: Severity::Warning,
                code: Code::UnsolvedHole,
                message: format!("the hole `{written}` is left in the program: {fits}"),
                related: Vec::new(),
                // The hole's own fixes fill it (crate::fixes).
                suggestion: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use crate::{analyze_file, AnalysisOptions, NoImports};

    fn warnings(path: &str, text: &str) -> Vec<String> {
        let analysis = analyze_file(
            Path::new(path),
            text.as_bytes(),
            Arc::new(NoImports),
            AnalysisOptions::default(),
        )
        .with_left_holes_reported();
        analysis
            .diagnostics()
            .iter()
            .map(|d| {
                let line = analysis.line_index.position(d.range.start).line;
                format!(
                    "{line}: {} {}: {}",
                    d.severity.as_str(),
                    d.code.as_str(),
                    d.message
                )
            })
            .collect()
    }

    #[test]
    fn each_hole_left_is_a_warning_saying_what_fits() {
        let text = "\
let x = randn(4, 8)
let y = x @ randn(__, 3)
let z = randn(__, 2)
";
        expect_test::expect![[r#"
            [
                "1: warning unsolved-hole: the hole `__` is left in the program: it must be 8",
                "2: warning unsolved-hole: the hole `__` is left in the program: it can be any value from 1 (examples: 1, 2, 3)",
            ]
        "#]]
        .assert_debug_eq(&warnings("holes.tensor", text));
    }

    #[test]
    fn a_python_hole_is_named_as_written_and_errors_keep_their_place() {
        let text = "\
import torch
x = torch.randn(4, 8)
y = x @ torch.randn(..., 3)
z = torch.randn(2, 3) @ torch.randn(4, 5)
";
        expect_test::expect![[r#"
            [
                "2: warning unsolved-hole: the hole `...` is left in the program: it must be 8",
                "3: error shape-mismatch: shape mismatch in matrix multiplication ([2, 3] @ [4, 5]): torch.randn(2, 3).shape[-1] = 3 but torch.randn(4, 5).shape[-2] = 4",
            ]
        "#]]
        .assert_debug_eq(&warnings("holes.py", text));
    }
}
