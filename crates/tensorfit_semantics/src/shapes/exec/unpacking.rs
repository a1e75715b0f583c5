//! Python's unpacked arguments, `f(*xs)` and `f(**kw)`: a call whose
//! unpacked values are known (a list, tuple or shape of known length; a
//! dict, such as a `**kwargs` collected by the caller) is the call with
//! their items written out, so every kind of callee binds them as it binds
//! any argument. Where an unpacked value is not known, neither is the call.

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::{Arg, Expr, ExprKind, FieldName, Name, Unpack};

use super::Frame;
use crate::shapes::value::Value;

impl<'f, 'a> Frame<'f, 'a> {
    /// The call's arguments with the unpacked ones written out, each item
    /// read from the unpacked value (`xs[0]`, `kw.name`) so that messages
    /// name it; `None` when an unpacked value's items are not known (the
    /// other arguments are still evaluated, for what they report).
    pub(super) fn unpacked_args(&mut self, args: &[Arg]) -> Option<Vec<Arg>> {
        let mut written = Vec::with_capacity(args.len());
        let mut known = true;
        for arg in args {
            let Some(unpack) = arg.unpack else {
                written.push(arg.clone());
                continue;
            };
            let (source, value) = self.unpacked_source(&arg.value);
            let items = match (unpack, &value) {
                (Unpack::Positional, Value::List(items) | Value::Tuple(items)) => {
                    Some(positional(&source, items.len(), arg.range))
                }
                (Unpack::Positional, Value::Shape(shape)) => shape
                    .dims()
                    .map(|dims| positional(&source, dims.len(), arg.range)),
                (Unpack::Keywords, Value::Instance(dict)) if dict.is_dict() => {
                    let names = dict.fields.iter().map(|(name, _)| name.as_str());
                    Some(named(&source, names, arg.range))
                }
                _ => None,
            };
            match items {
                Some(items) => written.extend(items),
                None => known = false,
            }
        }
        if !known {
            for arg in written.iter().filter(|a| a.unpack.is_none()) {
                self.expr(&arg.value);
            }
            return None;
        }
        Some(written)
    }

    /// An expression that reads the unpacked value, and the value: a name
    /// is read where it is; anything else is evaluated once, into a local
    /// named after its text.
    fn unpacked_source(&mut self, expr: &Expr) -> (Expr, Value) {
        let value = self.expr(expr);
        if matches!(expr.kind, ExprKind::Name(_)) {
            return (expr.clone(), value);
        }
        let name = format!("({})", self.describe(expr));
        self.bind(&name, value.clone(), None);
        let source = Expr {
            kind: ExprKind::Name(name),
            range: expr.range,
        };
        (source, value)
    }
}

/// `xs[0], ..., xs[n - 1]`.
fn positional(source: &Expr, n: usize, range: TextRange) -> Vec<Arg> {
    (0..n)
        .map(|i| Arg {
            name: None,
            unpack: None,
            value: Expr {
                kind: ExprKind::Subscript {
                    value: Box::new(source.clone()),
                    indices: vec![Expr {
                        kind: ExprKind::Int(i as i64),
                        range,
                    }],
                },
                range,
            },
            range,
        })
        .collect()
}

/// `name=kw.name` for each of the dict's names.
fn named<'n>(source: &Expr, names: impl Iterator<Item = &'n str>, range: TextRange) -> Vec<Arg> {
    names
        .map(|text| {
            let name = Name {
                text: text.to_owned(),
                range,
            };
            Arg {
                name: Some(name.clone()),
                unpack: None,
                value: Expr {
                    kind: ExprKind::Field {
                        value: Box::new(source.clone()),
                        field: FieldName::Named(name),
                    },
                    range,
                },
                range,
            }
        })
        .collect()
}
