//! The features that read the syntax tree only (no shapes): definition,
//! references, symbols, semantic tokens, completion and signature help.
//! They answer without waiting for the solver.

use tensorfit_base::TextRange;
use tensorfit_db::{Database, SourceFile};
use tensorfit_ide::{CompletionKind, FileSyntax, SymbolKind as IdeSymbolKind, TokenKind};
use tower_lsp_server::ls_types::*;

use crate::convert;

/// A file's syntax, and where it is in LSP terms.
pub struct SyntaxView<'db> {
    syntax: FileSyntax<'db>,
    db: &'db Database,
    file: SourceFile,
}

impl<'db> SyntaxView<'db> {
    pub fn new(db: &'db Database, file: SourceFile) -> SyntaxView<'db> {
        SyntaxView {
            syntax: tensorfit_ide::file_syntax(db, file),
            db,
            file,
        }
    }

    fn offset(&self, at: Position) -> usize {
        convert::offset_in(&self.syntax.line_index, self.syntax.text, at) as usize
    }

    fn range(&self, range: TextRange) -> Range {
        convert::range(&self.syntax.line_index, range)
    }
}

/// The declaration of the name at `at`: in the document, or in the file
/// an import loaded it from.
pub fn definition(view: &SyntaxView, uri: &Uri, at: Position) -> Option<GotoDefinitionResponse> {
    let syntax = &view.syntax;
    let found = tensorfit_ide::definition(
        syntax.tree,
        syntax.text,
        syntax.imports,
        &syntax.prelude,
        view.offset(at),
    )?;
    let location = match found.import {
        None => Location::new(uri.clone(), view.range(found.target.name_range)),
        Some(import) => {
            let imported = (*tensorfit_db::import_sources(view.db, view.file).get(import)?)?;
            let line_index = tensorfit_db::queries::line_index(view.db, imported);
            Location::new(
                Uri::from_file_path(imported.path(view.db))?,
                convert::range(&line_index, found.target.name_range),
            )
        }
    };
    Some(GotoDefinitionResponse::Scalar(location))
}

pub fn references(view: &SyntaxView, uri: &Uri, at: Position, declaration: bool) -> Vec<Location> {
    let offset = view.offset(at);
    tensorfit_ide::references(view.syntax.tree, &view.syntax.prelude, offset, declaration)
        .into_iter()
        .map(|range| Location::new(uri.clone(), view.range(range)))
        .collect()
}

pub fn document_symbols(view: &SyntaxView) -> DocumentSymbolResponse {
    fn convert(view: &SyntaxView, symbol: tensorfit_ide::Symbol) -> DocumentSymbol {
        let children: Vec<DocumentSymbol> = symbol
            .children
            .into_iter()
            .map(|c| convert(view, c))
            .collect();
        #[allow(deprecated)] // `deprecated` is a required field of the type
        DocumentSymbol {
            name: symbol.name,
            detail: symbol.detail,
            kind: match symbol.kind {
                IdeSymbolKind::Function => SymbolKind::FUNCTION,
                IdeSymbolKind::Struct => SymbolKind::STRUCT,
                IdeSymbolKind::Method => SymbolKind::METHOD,
                IdeSymbolKind::Field => SymbolKind::FIELD,
                IdeSymbolKind::Const => SymbolKind::CONSTANT,
                IdeSymbolKind::Import => SymbolKind::MODULE,
            },
            tags: None,
            deprecated: None,
            range: view.range(symbol.full_range),
            selection_range: view.range(symbol.name_range),
            children: (!children.is_empty()).then_some(children),
        }
    }
    let symbols = tensorfit_ide::document_symbols(view.syntax.tree)
        .into_iter()
        .map(|s| convert(view, s))
        .collect();
    DocumentSymbolResponse::Nested(symbols)
}

/// The token types, in the order of their indices in the legend.
const TOKEN_TYPES: [TokenKind; 8] = [
    TokenKind::Function,
    TokenKind::Method,
    TokenKind::Struct,
    TokenKind::Parameter,
    TokenKind::Variable,
    TokenKind::Property,
    TokenKind::DimensionName,
    TokenKind::Hole,
];

pub fn semantic_tokens_legend() -> SemanticTokensLegend {
    let name = |kind: TokenKind| match kind {
        TokenKind::Function => SemanticTokenType::FUNCTION,
        TokenKind::Method => SemanticTokenType::METHOD,
        TokenKind::Struct => SemanticTokenType::STRUCT,
        TokenKind::Parameter => SemanticTokenType::PARAMETER,
        TokenKind::Variable => SemanticTokenType::VARIABLE,
        TokenKind::Property => SemanticTokenType::PROPERTY,
        // Dimension names are type-level variables.
        TokenKind::DimensionName => SemanticTokenType::TYPE_PARAMETER,
        // No standard type fits a hole; clients without a theme rule for
        // it show it as plain text.
        TokenKind::Hole => SemanticTokenType::new("hole"),
    };
    SemanticTokensLegend {
        token_types: TOKEN_TYPES.iter().map(|k| name(*k)).collect(),
        token_modifiers: vec![
            SemanticTokenModifier::DECLARATION,
            SemanticTokenModifier::READONLY,
            SemanticTokenModifier::DEFAULT_LIBRARY,
        ],
    }
}

/// The tokens in LSP's relative encoding (each from the previous one).
pub fn semantic_tokens(view: &SyntaxView) -> SemanticTokens {
    let mut data = Vec::new();
    let (mut line, mut start) = (0, 0);
    for token in tensorfit_ide::semantic_tokens(view.syntax.tree, &view.syntax.prelude) {
        let from = view.syntax.line_index.position(token.range.start);
        let to = view.syntax.line_index.position(token.range.end);
        if to.line != from.line || to.character <= from.character {
            continue; // names never span lines; anything else is not a token
        }
        let Some(kind) = TOKEN_TYPES.iter().position(|k| *k == token.kind) else {
            continue;
        };
        let modifiers = [
            token.modifiers.declaration,
            token.modifiers.readonly,
            token.modifiers.default_library,
        ]
        .iter()
        .enumerate()
        .filter(|(_, set)| **set)
        .fold(0u32, |bits, (i, _)| bits | 1 << i);
        let delta_line = from.line - line;
        let delta_start = if delta_line == 0 {
            from.character - start
        } else {
            from.character
        };
        data.push(SemanticToken {
            delta_line,
            delta_start,
            length: to.character - from.character,
            token_type: kind as u32,
            token_modifiers_bitset: modifiers,
        });
        (line, start) = (from.line, from.character);
    }
    SemanticTokens {
        result_id: None,
        data,
    }
}

pub fn completions(view: &SyntaxView, at: Position) -> Vec<CompletionItem> {
    tensorfit_ide::completions(
        view.syntax.tree,
        view.syntax.text,
        view.offset(at),
        view.syntax.environment(),
        view.syntax.first_error,
    )
    .into_iter()
    .map(|item| {
        let named = item.kind == CompletionKind::NamedArgument;
        CompletionItem {
            label: item.label,
            kind: Some(match item.kind {
                CompletionKind::Variable => CompletionItemKind::VARIABLE,
                CompletionKind::Parameter => CompletionItemKind::VARIABLE,
                CompletionKind::DimensionName => CompletionItemKind::TYPE_PARAMETER,
                CompletionKind::Constant => CompletionItemKind::CONSTANT,
                CompletionKind::Function => CompletionItemKind::FUNCTION,
                CompletionKind::Struct => CompletionItemKind::STRUCT,
                CompletionKind::Method => CompletionItemKind::METHOD,
                CompletionKind::Field => CompletionItemKind::FIELD,
                CompletionKind::Property => CompletionItemKind::PROPERTY,
                CompletionKind::NamedArgument => CompletionItemKind::PROPERTY,
                CompletionKind::Type => CompletionItemKind::CLASS,
            }),
            detail: item.detail,
            insert_text: item.insert_text,
            // Named arguments first: they are what the call still needs.
            sort_text: named.then(|| "0".to_owned()),
            ..CompletionItem::default()
        }
    })
    .collect()
}

pub fn signature_help(view: &SyntaxView, at: Position) -> Option<SignatureHelp> {
    let help = tensorfit_ide::signature_help(
        view.syntax.tree,
        view.syntax.text,
        view.offset(at),
        view.syntax.environment(),
        view.syntax.first_error,
    )?;
    // Parameter spans are bytes of the label; LSP counts UTF-16 units.
    let utf16 = |byte: usize| help.label[..byte].encode_utf16().count() as u32;
    let parameters = help
        .parameters
        .iter()
        .map(|&(start, end)| ParameterInformation {
            label: ParameterLabel::LabelOffsets([utf16(start), utf16(end)]),
            documentation: None,
        })
        .collect();
    Some(SignatureHelp {
        signatures: vec![SignatureInformation {
            label: help.label.clone(),
            documentation: help.documentation.map(|d| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: d,
                })
            }),
            parameters: Some(parameters),
            active_parameter: help.active_parameter.map(|p| p as u32),
        }],
        active_signature: Some(0),
        active_parameter: help.active_parameter.map(|p| p as u32),
    })
}
