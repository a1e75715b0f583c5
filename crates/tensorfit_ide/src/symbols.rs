//! The outline of a file: its items, with the members of each struct.
//!
//! Editors show it as the document outline and use it for "go to symbol".
//! Each function carries its signature as written, because in a shape
//! language the signature (`(x: Tensor[b, 3]) -> Tensor[b, 4]`) is what
//! tells functions apart. The script's statements are not symbols.

use tensorfit_base::TextRange;
use tensorfit_syntax::ast;

use crate::render;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    /// The signature of a function or method, the parameters of a struct,
    /// the value or type of a constant or field.
    pub detail: Option<String>,
    pub full_range: TextRange,
    pub name_range: TextRange,
    /// The fields and methods of a struct.
    pub children: Vec<Symbol>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    Function,
    Struct,
    Method,
    Field,
    Const,
    Import,
}

/// The file's items in source order; items without a name (half-typed)
/// are left out.
pub fn document_symbols(file: &ast::SourceFile) -> Vec<Symbol> {
    file.items.iter().filter_map(item_symbol).collect()
}

fn item_symbol(item: &ast::Item) -> Option<Symbol> {
    match item {
        ast::Item::Const(c) => {
            let name = c.name.as_ref()?;
            let detail = render::annotation_and_value(c.ty.as_ref(), &c.value);
            Some(leaf(name, SymbolKind::Const, detail, c.range))
        }
        ast::Item::Import(import) => {
            let path = import.path.as_ref().filter(|p| !p.is_empty())?;
            Some(Symbol {
                name: path.clone(),
                kind: SymbolKind::Import,
                detail: None,
                full_range: import.range,
                name_range: import.path_range,
                children: Vec::new(),
            })
        }
        ast::Item::Function(f) => {
            let name = f.name.as_ref()?;
            Some(leaf(
                name,
                SymbolKind::Function,
                Some(function_detail(f)),
                f.range,
            ))
        }
        ast::Item::Struct(s) => {
            let name = s.name.as_ref()?;
            let mut children: Vec<Symbol> = s
                .fields
                .iter()
                .map(|field| {
                    let detail = render::annotation_and_value(field.ty.as_ref(), &field.value);
                    leaf(&field.name, SymbolKind::Field, detail, field.range)
                })
                .collect();
            children.extend(s.methods.iter().filter_map(|m| {
                let name = m.name.as_ref()?;
                Some(leaf(
                    name,
                    SymbolKind::Method,
                    Some(function_detail(m)),
                    m.range,
                ))
            }));
            children.sort_by_key(|c| (c.full_range.start, c.full_range.end));
            Some(Symbol {
                children,
                ..leaf(
                    name,
                    SymbolKind::Struct,
                    render::struct_signature(s),
                    s.range,
                )
            })
        }
    }
}

fn leaf(
    name: &ast::Name,
    kind: SymbolKind,
    detail: Option<String>,
    full_range: TextRange,
) -> Symbol {
    Symbol {
        name: name.text.clone(),
        kind,
        detail,
        full_range,
        name_range: name.range,
        children: Vec::new(),
    }
}

/// A function's or method's signature, `self` included.
fn function_detail(f: &ast::Function) -> String {
    render::function_signature(f, true)
}
