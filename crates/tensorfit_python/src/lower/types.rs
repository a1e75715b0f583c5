//! Annotations read as Tensor-language types (PYTHON.md §4): `int`, `bool`,
//! `float`, `Tensor` / `torch.Tensor` (a tensor of unknown rank), and
//! jaxtyping's `Float[Tensor, "batch c h w"]` with its dimension syntax.
//! Anything else, and no annotation, is gradual.

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::syntax::{child_by_field, named_children};
use super::Lowerer;
use crate::context::resolve_dotted;

impl Lowerer<'_> {
    /// The type a `type` node (or an expression used as one) stands for.
    pub(super) fn annotation(&mut self, node: Node<'_>) -> Option<Type> {
        let inner = match node.kind() {
            "type" => *named_children(node).first()?,
            _ => node,
        };
        if inner.kind() == "subscript" || inner.kind() == "generic_type" {
            return self.jaxtyping(inner);
        }
        let range = self.range(inner);
        let kind = match self.resolved_name(inner).as_str() {
            "int" => TypeKind::Int,
            "bool" => TypeKind::Bool,
            "float" => TypeKind::Float,
            name if is_torch_tensor(name) => TypeKind::Tensor { dims: None },
            _ => return None,
        };
        Some(Type { kind, range })
    }

    /// A dotted name through the file's imports, without whitespace.
    fn resolved_name(&self, node: Node<'_>) -> String {
        let spelled: String = self
            .text(node)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        resolve_dotted(&spelled, &self.context.imported)
    }

    /// `Float[Tensor, "b c h w"]` (any jaxtyping dtype): a tensor with
    /// those dimensions. Another array type than PyTorch's, or a shape
    /// that is not a plain string, is gradual.
    fn jaxtyping(&mut self, node: Node<'_>) -> Option<Type> {
        let (head, args) = match node.kind() {
            "subscript" => {
                let mut cursor = node.walk();
                let args: Vec<Node<'_>> = node
                    .children_by_field_name("subscript", &mut cursor)
                    .collect();
                (child_by_field(node, "value")?, args)
            }
            // `generic_type`: `Float[Tensor, "b c"]` in a `type` position.
            _ => {
                let children = named_children(node);
                let head = *children.first()?;
                let params = children.iter().find(|c| c.kind() == "type_parameter")?;
                (head, named_children(*params))
            }
        };
        if !self.resolved_name(head).starts_with("jaxtyping.") {
            return None;
        }
        let [array, shape] = args.as_slice() else {
            return None;
        };
        let array = match array.kind() {
            "type" => *named_children(*array).first()?,
            _ => *array,
        };
        if !is_torch_tensor(&self.resolved_name(array)) {
            return None;
        }
        let shape = match shape.kind() {
            "type" => *named_children(*shape).first()?,
            _ => *shape,
        };
        let text = self.string_literal(shape)?;
        // Offsets of the dimensions: the string's content follows its
        // opening quote (escapes would shift them; the range is then only
        // approximate, which only moves where a message points).
        let content_start = named_children(shape)
            .into_iter()
            .find(|c| c.kind() == "string_content")
            .map_or(shape.start_byte(), |c| c.start_byte());
        let dims = self.jaxtyping_dims(&text, content_start)?;
        Some(Type {
            kind: TypeKind::Tensor { dims: Some(dims) },
            range: self.range(node),
        })
    }

    fn jaxtyping_dims(&mut self, text: &str, start: usize) -> Option<Vec<Dim>> {
        let mut dims = Vec::new();
        let mut offset = 0;
        for word in text.split(' ') {
            let at = start + offset;
            offset += word.len() + 1;
            if word.is_empty() {
                continue;
            }
            let range = self.span(at, at + word.len());
            let dim = match word {
                "_" => Dim::Unknown(range),
                "..." => self.anonymous_segment(range),
                _ if word.starts_with('*') => {
                    let name = word.trim_start_matches('*');
                    if is_identifier(name) {
                        Dim::Segment {
                            name: Name {
                                text: name.to_owned(),
                                range,
                            },
                            args: None,
                            range,
                        }
                    } else {
                        // `*#batch`, `*_`: broadcastable or nameless.
                        self.anonymous_segment(range)
                    }
                }
                // `#name`: the name or 1 (broadcast); `name=doc`: a
                // documented dimension. Neither is followed: unknown.
                _ if word.starts_with('#') || word.contains('=') => Dim::Unknown(range),
                _ => match dimension_expr(word, range) {
                    Some(expr) => Dim::Expr(expr),
                    None => Dim::Unknown(range),
                },
            };
            dims.push(dim);
        }
        Some(dims)
    }

    /// `...`: a segment of its own, bound to nothing else.
    fn anonymous_segment(&mut self, range: TextRange) -> Dim {
        let name = self.temporary();
        Dim::Segment {
            name: Name { text: name, range },
            args: None,
            range,
        }
    }
}

fn is_torch_tensor(name: &str) -> bool {
    matches!(
        name,
        "torch.Tensor" | "torch.FloatTensor" | "torch.LongTensor"
    )
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// A dimension written as a number, a name, or arithmetic of them
/// (`d-1`, `2*d`, `h//2`): a small expression parser for the words of a
/// jaxtyping shape, which contain no spaces.
fn dimension_expr(word: &str, range: TextRange) -> Option<Expr> {
    let tokens = tokenize(word)?;
    let mut parser = DimParser {
        tokens,
        at: 0,
        range,
    };
    let expr = parser.sum()?;
    (parser.at == parser.tokens.len()).then_some(expr)
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Int(i64),
    Name(String),
    Op(char),
    Open,
    Close,
}

fn tokenize(word: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = word.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            tokens.push(Token::Int(digits.parse().ok()?));
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Name(chars[start..i].iter().collect()));
            continue;
        }
        match c {
            '+' | '-' | '*' | '%' => tokens.push(Token::Op(c)),
            // `//` and `/` both floor on dimensions.
            '/' => {
                if chars.get(i + 1) == Some(&'/') {
                    i += 1;
                }
                tokens.push(Token::Op('/'));
            }
            '(' => tokens.push(Token::Open),
            ')' => tokens.push(Token::Close),
            _ => return None,
        }
        i += 1;
    }
    Some(tokens)
}

struct DimParser {
    tokens: Vec<Token>,
    at: usize,
    range: TextRange,
}

impl DimParser {
    fn make(&self, kind: ExprKind) -> Expr {
        Expr {
            kind,
            range: self.range,
        }
    }

    fn binary(&self, op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
        self.make(ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        })
    }

    fn sum(&mut self) -> Option<Expr> {
        let mut lhs = self.product()?;
        while let Some(Token::Op(op @ ('+' | '-'))) = self.tokens.get(self.at).cloned() {
            self.at += 1;
            let rhs = self.product()?;
            let op = if op == '+' {
                BinaryOp::Add
            } else {
                BinaryOp::Sub
            };
            lhs = self.binary(op, lhs, rhs);
        }
        Some(lhs)
    }

    fn product(&mut self) -> Option<Expr> {
        let mut lhs = self.atom()?;
        while let Some(Token::Op(op @ ('*' | '/' | '%'))) = self.tokens.get(self.at).cloned() {
            self.at += 1;
            let rhs = self.atom()?;
            let op = match op {
                '*' => BinaryOp::Mul,
                '/' => BinaryOp::Div,
                _ => BinaryOp::Rem,
            };
            lhs = self.binary(op, lhs, rhs);
        }
        Some(lhs)
    }

    fn atom(&mut self) -> Option<Expr> {
        let token = self.tokens.get(self.at).cloned()?;
        self.at += 1;
        match token {
            Token::Int(value) => Some(self.make(ExprKind::Int(value))),
            Token::Name(name) => Some(self.make(ExprKind::Name(name))),
            Token::Open => {
                let inner = self.sum()?;
                (self.tokens.get(self.at) == Some(&Token::Close)).then(|| {
                    self.at += 1;
                    inner
                })
            }
            Token::Op('-') => {
                let operand = self.atom()?;
                Some(self.make(ExprKind::Unary {
                    op: UnaryOp::Neg,
                    operand: Box::new(operand),
                }))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(word: &str) -> Option<String> {
        dimension_expr(word, TextRange::empty(0)).map(|e| tensorfit_syntax::print::expr(&e))
    }

    #[test]
    fn dimension_words_parse_as_arithmetic() {
        assert_eq!(shown("3").as_deref(), Some("3"));
        assert_eq!(shown("batch").as_deref(), Some("batch"));
        assert_eq!(shown("d-1").as_deref(), Some("d - 1"));
        assert_eq!(shown("2*d+1").as_deref(), Some("2 * d + 1"));
        assert_eq!(shown("h//2").as_deref(), Some("h / 2"));
        assert_eq!(shown("(h-1)*2").as_deref(), Some("(h - 1) * 2"));
        assert_eq!(shown("d-"), None);
        assert_eq!(shown("a.b"), None);
    }
}
