//! The editor features, as LSP values made from the ide layer's data.

use tensorfit_db::Rope;
use tensorfit_ide::{CarriedAnalysis, FileAnalysis};
use tower_lsp_server::ls_types::*;

use crate::convert;

/// The hover at a position of the current text (`rope`), from an analysis
/// carried over the edits since (see [`CarriedAnalysis`]).
pub fn hover(carried: &CarriedAnalysis, rope: &Rope, at: Position) -> Option<Hover> {
    let found = carried.hover(convert::rope_offset(rope, at))?;
    let range = convert::rope_range(rope, found.value.range);
    let fence = carried.analysis.code_fence();
    Some(lsp_hover(&found.value, fence, range, found.in_edited_code))
}

fn lsp_hover(
    found: &tensorfit_ide::Hover,
    fence: &str,
    range: Range,
    in_edited_code: bool,
) -> Hover {
    let mut value = format!("```{fence}\n{}\n```", found.text);
    if let Some(documentation) = &found.documentation {
        value.push_str(&format!("\n\n{documentation}"));
    }
    if in_edited_code {
        value.push_str("\n\n_As of the last check: your edit is being checked._");
    }
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(range),
    }
}

/// `: Tensor[b, 4]` after each named binding in `range` (of the current
/// text, `rope`) whose shape is known, from an analysis carried over the
/// edits since (see [`CarriedAnalysis`]).
pub fn inlay_hints(carried: &CarriedAnalysis, rope: &Rope, range: Range) -> Vec<InlayHint> {
    let wanted = tensorfit_base::TextRange::new(
        convert::rope_offset(rope, range.start) as usize,
        convert::rope_offset(rope, range.end) as usize,
    );
    let mut shown: Vec<_> = carried
        .bindings_in(wanted)
        .into_iter()
        .filter(|(_, b)| !already_written(&carried.analysis.text, b.range.end))
        // A tensor of which nothing is known (an unannotated parameter,
        // `forward(self, x)`): `: Tensor` would say nothing.
        .filter(|(_, b)| b.shape != "Tensor")
        .collect();
    // In the order of the text, so positions are found line after line
    // (a whole file's hints: thousands).
    shown.sort_by_key(|(now, _)| now.end);
    let mut positions = tensorfit_db::PositionCursor::new(rope);
    shown
        .into_iter()
        .map(|(now, b)| {
            let p = positions.position(now.end as usize);
            inlay_hint(Position::new(p.line, p.character), b)
        })
        .collect()
}

/// The hint sits right after the name, before the ` =` or `,` that follows:
/// no padding (as rust-analyzer's type hints), which would only widen the
/// gap.
fn inlay_hint(position: Position, binding: &tensorfit_semantics::ShapeInfo) -> InlayHint {
    InlayHint {
        position,
        label: InlayHintLabel::String(format!(": {}", binding.shape)),
        kind: Some(InlayHintKind::TYPE),
        text_edits: None,
        tooltip: None,
        padding_left: None,
        padding_right: None,
        data: None,
    }
}

/// A binding followed by `:` has its type written out (a parameter, an
/// annotated `let`): a hint would repeat it.
fn already_written(text: &str, end: u32) -> bool {
    text.get(end as usize..)
        .is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(':'))
}

/// The fixes whose target meets `range`, as code actions.
pub fn code_actions(analysis: &FileAnalysis, uri: &Uri, range: Range) -> CodeActionResponse {
    let wanted = convert::text_range(analysis, range);
    let meets = |t: tensorfit_base::TextRange| t.start <= wanted.end && wanted.start <= t.end;
    tensorfit_ide::fixes(analysis)
        .into_iter()
        .filter(|fix| meets(fix.target))
        .map(|fix| {
            let edits = fix
                .edits
                .iter()
                .map(|e| convert::edit(&analysis.line_index, e))
                .collect();
            let mut changes = std::collections::HashMap::new();
            changes.insert(uri.clone(), edits);
            CodeActionOrCommand::CodeAction(CodeAction {
                title: fix.title,
                kind: Some(match fix.kind {
                    tensorfit_ide::FixKind::QuickFix => CodeActionKind::QUICKFIX,
                    tensorfit_ide::FixKind::Rewrite => CodeActionKind::REFACTOR_REWRITE,
                }),
                edit: Some(WorkspaceEdit {
                    changes: Some(changes),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(fix.preferred),
                ..CodeAction::default()
            })
        })
        .collect()
}
