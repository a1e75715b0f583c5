//! The editor features, as LSP values made from the ide layer's data.

use tensorfit_ide::FileAnalysis;
use tower_lsp_server::ls_types::*;

use crate::convert;

pub fn hover(analysis: &FileAnalysis, at: Position) -> Option<Hover> {
    let found = tensorfit_ide::hover(analysis, convert::offset(analysis, at))?;
    let mut value = format!("```tensor\n{}\n```", found.text);
    if let Some(documentation) = &found.documentation {
        value.push_str(&format!("\n\n{documentation}"));
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(convert::range(&analysis.line_index, found.range)),
    })
}

/// `: Tensor[b, 4]` after each named binding in `range` whose shape is
/// known.
pub fn inlay_hints(analysis: &FileAnalysis, range: Range) -> Vec<InlayHint> {
    let wanted = convert::text_range(analysis, range);
    analysis
        .shapes()
        .bindings
        .iter()
        .filter(|b| b.name.is_some() && b.range.start >= wanted.start && b.range.end <= wanted.end)
        .filter(|b| !already_written(analysis, b.range.end))
        .map(|b| InlayHint {
            position: convert::position(&analysis.line_index, b.range.end),
            label: InlayHintLabel::String(format!(": {}", b.shape)),
            kind: Some(InlayHintKind::TYPE),
            text_edits: None,
            tooltip: None,
            padding_left: None,
            padding_right: Some(true),
            data: None,
        })
        .collect()
}

/// A binding followed by `:` has its type written out (a parameter, an
/// annotated `let`): a hint would repeat it.
fn already_written(analysis: &FileAnalysis, end: u32) -> bool {
    analysis
        .text
        .get(end as usize..)
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
