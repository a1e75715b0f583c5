//! Expressions (PYTHON.md §3): names through the file's imports, calls with
//! keyword arguments and `...` holes, attribute chains, subscripts and
//! slices, arithmetic and comparisons. What is not modelled is `Unknown`
//! with the reason hover gives.

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::syntax::{child_by_field, named_children};
use super::Lowerer;
use crate::context::resolve_dotted;
use crate::torch_names::{self, Resolved, SHAPE_KEEPING_METHODS};
use tensorfit_semantics::registry;

impl Lowerer<'_> {
    pub(super) fn expr(&mut self, node: Node<'_>) -> Expr {
        if self.depth >= super::MAX_DEPTH {
            return self.unknown(node, "it is nested deeper than tensorfit follows");
        }
        self.depth += 1;
        let expr = self.expr_inner(node);
        self.depth -= 1;
        expr
    }

    pub(super) fn unknown(&self, node: Node<'_>, why: &str) -> Expr {
        Expr {
            kind: ExprKind::Unknown(why.to_owned()),
            range: self.range(node),
        }
    }

    fn expr_inner(&mut self, node: Node<'_>) -> Expr {
        let range = self.range(node);
        let make = |kind: ExprKind| Expr { kind, range };
        match node.kind() {
            "identifier" => self.identifier(node),
            "integer" => match python_int(self.text(node)) {
                Some(value) => make(ExprKind::Int(value)),
                None => self.unknown(node, "the number is not an `int` tensorfit represents"),
            },
            "float" => {
                let text = self.text(node).replace('_', "");
                match text.ends_with(['j', 'J']) {
                    true => self.unknown(node, "complex numbers are not modelled"),
                    false => make(ExprKind::Float(text)),
                }
            }
            "true" => make(ExprKind::Bool(true)),
            "false" => make(ExprKind::Bool(false)),
            // The prelude's "no value", the default of optional parameters.
            "none" => make(ExprKind::Name("None".to_owned())),
            "string" | "concatenated_string" => match self.string_literal(node) {
                Some(text) => make(ExprKind::Str(text)),
                None => self
                    .formatted_string(node)
                    .unwrap_or_else(|| self.unknown(node, "the formatted string is not modelled")),
            },
            "parenthesized_expression" => match named_children(node).first() {
                Some(inner) if inner.kind() != "yield" => self.expr(*inner),
                _ => self.unknown(node, "the expression is not modelled"),
            },
            "tuple" | "expression_list" | "list" => {
                let elements = named_children(node);
                if elements.iter().any(|e| e.kind().contains("splat")) {
                    return self.unknown(node, "a sequence unpacked with `*` is not followed yet");
                }
                let elements = elements.into_iter().map(|e| self.expr(e)).collect();
                match node.kind() {
                    "list" => make(ExprKind::List(elements)),
                    _ => make(ExprKind::Tuple(elements)),
                }
            }
            "dictionary" => self.dictionary(node).unwrap_or_else(|| {
                self.unknown(node, "a dict without string keys is not modelled")
            }),
            "list_comprehension" => self
                .comprehension(node)
                .unwrap_or_else(|| self.unknown(node, "the comprehension is not followed")),
            "attribute" => self.attribute(node),
            "call" => self.call(node),
            "subscript" => self.subscript(node),
            "binary_operator" => {
                let Some((left, operator, right)) = operands(node) else {
                    return self.unknown(node, "the expression is incomplete");
                };
                let operator = self.text(operator);
                if operator == "**" {
                    return self.power(left, right, range);
                }
                let lhs = self.expr(left);
                let rhs = self.expr(right);
                self.binary_value(operator, lhs, rhs, range)
            }
            "unary_operator" => {
                let (Some(argument), Some(operator)) = (
                    child_by_field(node, "argument"),
                    child_by_field(node, "operator"),
                ) else {
                    return self.unknown(node, "the expression is incomplete");
                };
                let operand = self.expr(argument);
                match self.text(operator) {
                    "-" => make(ExprKind::Unary {
                        op: UnaryOp::Neg,
                        operand: Box::new(operand),
                    }),
                    "+" => operand,
                    _ => self.unknown(node, "bitwise operators are not modelled"),
                }
            }
            "not_operator" => match child_by_field(node, "argument") {
                Some(argument) => {
                    let operand = self.expr(argument);
                    make(ExprKind::Unary {
                        op: UnaryOp::Not,
                        operand: Box::new(operand),
                    })
                }
                None => self.unknown(node, "the expression is incomplete"),
            },
            "boolean_operator" => {
                let Some((left, operator, right)) = operands(node) else {
                    return self.unknown(node, "the expression is incomplete");
                };
                let op = match self.text(operator) {
                    "and" => BinaryOp::And,
                    _ => BinaryOp::Or,
                };
                let lhs = self.expr(left);
                let rhs = self.expr(right);
                make(ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                })
            }
            "comparison_operator" => self.comparison(node),
            "lambda" => self.lambda(node),
            "conditional_expression" => match named_children(node).as_slice() {
                [then, condition, otherwise] => {
                    let args = [*condition, *then, *otherwise].map(|n| self.expr(n));
                    builtin_call(Builtin::Conditional, args.into(), range)
                }
                _ => self.unknown(node, "the expression is incomplete"),
            },
            _ => self.unknown(node, "this kind of expression is not modelled"),
        }
    }

    /// `+ - * / // % @` (`**` and the bitwise operators are not modelled).
    pub(super) fn binary_value(
        &mut self,
        operator: &str,
        lhs: Expr,
        rhs: Expr,
        range: TextRange,
    ) -> Expr {
        let op = match operator {
            "+" => BinaryOp::Add,
            "-" => BinaryOp::Sub,
            "*" => BinaryOp::Mul,
            // On `int`s the Tensor language's `/` floors, which is `//`.
            // Python's `/` of two `int`s is a float, which no shape takes:
            // read as `/` it gives the same tensors, and the same size where
            // the division is exact, as `int(a / b)` is written for. On a
            // float the two differ (`7.0 // 2` is 3.0).
            "/" => BinaryOp::TrueDiv,
            "//" => BinaryOp::FloorDiv,
            "%" => BinaryOp::Rem,
            "@" => BinaryOp::MatMul,
            _ => {
                return Expr {
                    kind: ExprKind::Unknown(format!("the operator `{operator}` is not modelled")),
                    range,
                }
            }
        };
        Expr {
            kind: ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            range,
        }
    }

    /// `base ** exponent`. A small whole exponent of a base that computes
    /// nothing (`(image_size // patch_size) ** 2`, `x ** 2`) is the product
    /// it stands for, which keeps an `int` exact; any other power is
    /// PyTorch's elementwise `pow` (a tensor keeps its broadcast shape; a
    /// power of numbers is unknown).
    fn power(&mut self, base: Node<'_>, exponent: Node<'_>, range: TextRange) -> Expr {
        let small_whole = (exponent.kind() == "integer")
            .then(|| self.text(exponent).replace('_', "").parse::<u32>().ok())
            .flatten()
            .filter(|k| (1..=registry::MAX_EXPONENT_AS_PRODUCT).contains(k));
        // Lowered once per factor: a base that calls or assigns (`:=`)
        // would run that many times.
        let computes_nothing = !super::syntax::descendants(base)
            .any(|n| matches!(n.kind(), "call" | "named_expression"));
        match small_whole {
            Some(k) if computes_nothing => {
                let mut product = self.expr(base);
                for _ in 1..k {
                    let factor = self.expr(base);
                    product = self.binary_value("*", product, factor, range);
                }
                product
            }
            _ => {
                let base = self.expr(base);
                let exponent = self.expr(exponent);
                builtin_call(Builtin::Power, vec![base, exponent], range)
            }
        }
    }

    fn comparison(&mut self, node: Node<'_>) -> Expr {
        let mut operands = Vec::new();
        let mut ops = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.is_extra() {
                continue;
            }
            if child.is_named() {
                operands.push(child);
                continue;
            }
            let spelled: Vec<&str> = self.text(child).split_whitespace().collect();
            let op = match spelled.join(" ").as_str() {
                "is" => CompareOp::Is,
                "is not" => CompareOp::IsNot,
                "==" => CompareOp::Eq,
                "!=" => CompareOp::Ne,
                "<" => CompareOp::Lt,
                "<=" => CompareOp::Le,
                ">" => CompareOp::Gt,
                ">=" => CompareOp::Ge,
                "in" | "not in" => return self.membership(node),
                _ => return self.unknown(node, "the comparison is not modelled"),
            };
            ops.push(op);
        }
        if operands.len() != ops.len() + 1 {
            return self.unknown(node, "the comparison is incomplete");
        }
        let operands = operands.into_iter().map(|o| self.expr(o)).collect();
        Expr {
            kind: ExprKind::Compare { operands, ops },
            range: self.range(node),
        }
    }

    /// `item in container` and `item not in container`, alone (a chain
    /// with `in` is unknown): `operator.contains(container, item)`, known
    /// for a dict's keys and for lists, tuples and strings of known items.
    fn membership(&mut self, node: Node<'_>) -> Expr {
        let range = self.range(node);
        let operands = named_children(node);
        let [item, container] = operands.as_slice() else {
            return self.unknown(node, "a chain of comparisons with `in` is not modelled");
        };
        let mut cursor = node.walk();
        let negated = node
            .children(&mut cursor)
            .any(|child| !child.is_named() && self.text(child).starts_with("not"));
        let args = vec![self.expr(*container), self.expr(*item)];
        let call = builtin_call(Builtin::Contains, args, range);
        match negated {
            false => call,
            true => Expr {
                kind: ExprKind::Unary {
                    op: UnaryOp::Not,
                    operand: Box::new(call),
                },
                range,
            },
        }
    }

    /// Whether an identifier names a parameter or local of the scope.
    pub(super) fn is_bound(&self, node: Node<'_>) -> bool {
        self.is_local_name(self.text(node))
    }

    /// Whether `name` is a local, a parameter or `self` where the lowering
    /// is.
    pub(super) fn is_local_name(&self, name: &str) -> bool {
        self.scope.locals.all.contains(name)
            || self.scope.params.contains(name)
            || self.scope.self_name.as_deref() == Some(name)
    }

    pub(super) fn identifier(&mut self, node: Node<'_>) -> Expr {
        let name = self.text(node);
        let range = self.range(node);
        if self.scope.self_name.as_deref() == Some(name) {
            return Expr {
                kind: ExprKind::SelfValue,
                range,
            };
        }
        let changed = self.scope.changed_elsewhere.get(name);
        if let Some(why) = changed.filter(|_| self.is_bound(node) && !self.context.is_item(name)) {
            if self.scope.only_passed_elsewhere.contains(name) {
                let read = Expr {
                    kind: ExprKind::Name(name.to_owned()),
                    range,
                };
                return builtin_call(Builtin::IfImmutable, vec![read], range);
            }
            return Expr {
                kind: ExprKind::Unknown(why.clone()),
                range,
            };
        }
        if self.is_bound(node) || self.context.is_item(name) {
            return Expr {
                kind: ExprKind::Name(name.to_owned()),
                range,
            };
        }
        let renamed = self.context.renamed_item(name).filter(|original| {
            !self.is_local_name(original) && !self.context.script_names.contains(*original)
        });
        if let Some(original) = renamed {
            return Expr {
                kind: ExprKind::Name(original.to_owned()),
                range,
            };
        }
        if let Some(path) = self.context.import_of(name) {
            let path = path.to_owned();
            return self.imported(&path, range);
        }
        if let Some(function) = builtin_as_function(name, range) {
            return function;
        }
        let why = match name {
            "__name__" | "__file__" => format!("`{name}` is not modelled"),
            _ if is_builtin(name) => format!("the builtin `{name}` is not modelled"),
            _ => format!("`{name}` is not defined in this file"),
        };
        Expr {
            kind: ExprKind::Unknown(why),
            range,
        }
    }

    /// A value reached through an import: an operation of the registry, or
    /// unknown.
    fn imported(&self, path: &str, range: TextRange) -> Expr {
        let kind = match torch_names::resolve(path) {
            // Reached through a module (`F.softmax`), the operation is
            // never the file's own function of that name, nor its
            // importer's: a body analysed at another file's call runs
            // among that file's names (pyg's example imports a `softmax`
            // of its own beside a library that calls `F.softmax`).
            Resolved::Operation(name) => ExprKind::Name(registry::operation_reference(name)),
            Resolved::FirstArgument | Resolved::Lazy(_) | Resolved::Partial => {
                ExprKind::Unknown(format!("`{path}` is read only as a call"))
            }
            Resolved::Unknown(why) => ExprKind::Unknown(why),
        };
        Expr { kind, range }
    }

    /// The name the analysis calls the operation `op` by: its own, unless
    /// the file gives that name another meaning here (a parameter, local,
    /// constant, class or function), then one nothing else answers to
    /// (`registry::OPERATION_PREFIX`).
    pub(super) fn operation_name(&self, op: &str) -> String {
        let shadowed = self.is_local_name(op)
            || self.context.is_item(op)
            || self.context.script_names.contains(op);
        match shadowed {
            true => registry::operation_reference(op),
            false => op.to_owned(),
        }
    }

    /// The item of another file a module's attribute names
    /// (`models.resnet50`), by its own name, unless a local hides it.
    fn qualified_item<'p>(&self, path: &'p str) -> Option<&'p str> {
        if !self.context.qualified_items.contains(path) {
            return None;
        }
        let (_, name) = path.rsplit_once('.')?;
        (!self.is_local_name(name)).then_some(name)
    }

    /// `Class.method`, a function of a class (not a local) called through
    /// it: the function that answers it (see `crate::class_functions`).
    fn class_function(&self, attribute: Node<'_>) -> Option<String> {
        let class = child_by_field(attribute, "object")?;
        let method = child_by_field(attribute, "attribute")?;
        if class.kind() != "identifier" || self.is_bound(class) {
            return None;
        }
        self.context
            .class_function(self.text(class), self.text(method))
    }

    /// The dotted path an attribute chain names through an import
    /// (`nn.functional.relu` → `torch.nn.functional.relu`), if its root is
    /// an imported name and not a local.
    pub(super) fn import_path(&self, node: Node<'_>) -> Option<String> {
        let mut parts = Vec::new();
        let mut current = node;
        loop {
            match current.kind() {
                "attribute" => {
                    parts.push(self.text(child_by_field(current, "attribute")?));
                    current = child_by_field(current, "object")?;
                }
                "identifier" => {
                    if self.is_bound(current) || self.context.is_item(self.text(current)) {
                        return None;
                    }
                    let root = self.text(current);
                    self.context.import_of(root)?;
                    parts.push(root);
                    parts.reverse();
                    return Some(resolve_dotted(&parts.join("."), &self.context.imported));
                }
                _ => return None,
            }
        }
    }

    fn attribute(&mut self, node: Node<'_>) -> Expr {
        if let Some(function) = self.class_function(node) {
            return Expr {
                kind: ExprKind::Name(function),
                range: self.range(node),
            };
        }
        if let Some(path) = self.import_path(node) {
            if let Some(item) = self.qualified_item(&path) {
                return Expr {
                    kind: ExprKind::Name(item.to_owned()),
                    range: self.range(node),
                };
            }
            if let Some(value) = torch_names::math_constant(&path) {
                return Expr {
                    kind: ExprKind::Float(format!("{value:?}")),
                    range: self.range(node),
                };
            }
            if torch_names::is_float_valued(&path) {
                return self.float_value(node);
            }
            return self.imported(&path, self.range(node));
        }
        let (Some(object), Some(attribute)) = (
            child_by_field(node, "object"),
            child_by_field(node, "attribute"),
        ) else {
            return self.unknown(node, "the expression is incomplete");
        };
        if let Some(member) = self.base_member(node) {
            return member;
        }
        if let Some(field) = self.init_field(node) {
            return field;
        }
        let value = self.expr(object);
        let field = self.name(attribute);
        let range = self.range(node);
        match field.text.as_str() {
            // `x.ndim` is `x.dim()`.
            "ndim" => Expr {
                kind: ExprKind::Call {
                    callee: Box::new(Expr {
                        kind: ExprKind::Field {
                            value: Box::new(value),
                            field: FieldName::Named(Name {
                                text: "dim".to_owned(),
                                range: field.range,
                            }),
                        },
                        range,
                    }),
                    args: Vec::new(),
                },
                range,
            },
            _ => Expr {
                kind: ExprKind::Field {
                    value: Box::new(value),
                    field: FieldName::Named(field),
                },
                range,
            },
        }
    }

    fn call(&mut self, node: Node<'_>) -> Expr {
        let range = self.range(node);
        let (Some(function), Some(arguments)) = (
            child_by_field(node, "function"),
            child_by_field(node, "arguments"),
        ) else {
            return self.unknown(node, "the call is incomplete");
        };
        if arguments.kind() == "generator_expression" {
            return self
                .generator_builtin(function, arguments, range)
                .unwrap_or_else(|| self.unknown(node, "a generator argument is not modelled"));
        }
        if arguments.kind() != "argument_list" {
            return self.unknown(node, "the call is incomplete");
        }
        if let Some(value) = self.inline_helper(node) {
            return value;
        }
        if let Some(value) = self.popped(node) {
            return value;
        }
        let argument_nodes = named_children(arguments);
        let path = self.import_path(function);
        if let Some(value) = self.container(node, path.as_deref()) {
            return value;
        }
        // `f(*xs, **kw)` is followed where the analysis knows the items;
        // the calls the front end reads itself take their arguments as
        // written.
        let unpacks = argument_nodes
            .iter()
            .any(|a| matches!(a.kind(), "list_splat" | "dictionary_splat"));
        let unpacked = |frontend: &mut Self| {
            frontend.unknown(
                node,
                "arguments unpacked with `*` or `**` are not followed here",
            )
        };
        // `x.cuda()`, `x.bool()`: the same shape.
        if function.kind() == "attribute" && path.is_none() {
            let method = child_by_field(function, "attribute").map(|a| self.text(a));
            // `d.items()`, `d.keys()`, `d.values()`.
            let view = match method {
                Some("items") => Some(Builtin::Items),
                Some("keys") => Some(Builtin::Keys),
                Some("values") => Some(Builtin::Values),
                _ => None,
            };
            // `t.tolist()`: Python's numbers where the items are known.
            let view = view.or((method == Some("tolist")).then_some(Builtin::ToList));
            if let (Some(view), Some(object), true) = (
                view,
                child_by_field(function, "object"),
                argument_nodes.is_empty(),
            ) {
                let object = self.expr(object);
                return builtin_call(view, vec![object], range);
            }
            // Arguments that compute something (`acc.add_(xs.pop())`) are
            // lowered with the call as written.
            let plain_arguments = argument_nodes
                .iter()
                .all(|a| !super::syntax::descendants(*a).any(|n| n.kind() == "call"));
            if plain_arguments && method.is_some_and(|m| SHAPE_KEEPING_METHODS.contains(&m)) {
                if let Some(object) = child_by_field(function, "object") {
                    let object = self.expr(object);
                    return builtin_call(Builtin::KeepsShape, vec![object], range);
                }
            }
        }
        if function.kind() == "identifier"
            && !self.is_bound(function)
            && !self.context.is_item(self.text(function))
        {
            let name = self.text(function);
            if !unpacks {
                if let Some(value) = self.number_builtin(name, &argument_nodes, range) {
                    return value;
                }
            }
            match name {
                name if unpacks && is_builtin(name) => {
                    return unpacked(self);
                }
                "float" => return self.float_value(node),
                "isinstance" if !unpacks => {
                    if let Some(value) = self.is_instance(&argument_nodes, range) {
                        return value;
                    }
                }
                "len"
                    if argument_nodes.len() == 1
                        && argument_nodes[0].kind() != "keyword_argument" =>
                {
                    // `len(set(xs))`: how many different items.
                    if let Some(items) = self.set_of(argument_nodes[0]) {
                        let items = self.expr(items);
                        return builtin_call(Builtin::DistinctCount, vec![items], range);
                    }
                    let value = self.expr(argument_nodes[0]);
                    return method_call(value, "__len__", range);
                }
                "getattr"
                    if argument_nodes.len() == 2
                        && argument_nodes
                            .iter()
                            .all(|a| super::syntax::is_plain_argument(*a)) =>
                {
                    let values = argument_nodes.iter().map(|a| self.expr(*a)).collect();
                    return builtin_call(Builtin::GetAttr, values, range);
                }
                name if is_builtin(name) => {
                    return self.unknown(node, &format!("the builtin `{name}` is not modelled"));
                }
                _ => {}
            }
        }
        if let Some(path) = path {
            if !unpacks {
                if let Some(value) = self.number_builtin(&path, &argument_nodes, range) {
                    return value;
                }
            }
            let positional = argument_nodes
                .iter()
                .all(|a| a.kind() != "keyword_argument");
            if let Some(function) =
                MathFunction::named(&path).filter(|_| positional && argument_nodes.len() == 1)
            {
                let value = self.expr(argument_nodes[0]);
                return builtin_call(Builtin::Math(function), vec![value], range);
            }
            if torch_names::is_float_valued(&path) {
                return self.float_value(node);
            }
            if torch_names::is_false_when_checked(&path) && argument_nodes.is_empty() {
                return Expr {
                    kind: ExprKind::Bool(false),
                    range,
                };
            }
            // `np.linspace(start, stop, num)`: numpy's points (MaxViT's
            // stochastic-depth rates).
            if path == "numpy.linspace" && argument_nodes.len() == 3 && !unpacks && positional {
                let values = argument_nodes.iter().map(|a| self.expr(*a)).collect();
                return builtin_call(Builtin::NumpyLinspace, values, range);
            }
            // `typing.cast(int, v)` is `v` (VGG's `v = cast(int, v)`).
            if path == "typing.cast" {
                return match argument_nodes.as_slice() {
                    [_, value] if !unpacks && value.kind() != "keyword_argument" => {
                        self.expr(*value)
                    }
                    _ => self.unknown(node, "the call is incomplete"),
                };
            }
            match torch_names::resolve(&path) {
                Resolved::FirstArgument | Resolved::Lazy(_) | Resolved::Partial if unpacks => {
                    return unpacked(self);
                }
                Resolved::FirstArgument => {
                    return match argument_nodes.first() {
                        Some(first) if first.kind() != "keyword_argument" => self.expr(*first),
                        _ => self.unknown(node, "the call is incomplete"),
                    };
                }
                Resolved::Lazy(concrete) => return self.lazy_layer(node, arguments, concrete),
                Resolved::Partial => {
                    let args = self.arguments(node);
                    let callee = Expr {
                        kind: ExprKind::Builtin(Builtin::Partial),
                        range: self.range(function),
                    };
                    return Expr {
                        kind: ExprKind::Call {
                            callee: Box::new(callee),
                            args,
                        },
                        range,
                    };
                }
                _ => {}
            }
        }
        let callee = self.expr(function);
        let mut args = self.arguments(node);
        if let Some(class) = self.class_method_receiver(function) {
            args.push(class);
        }
        Expr {
            kind: ExprKind::Call {
                callee: Box::new(callee),
                args,
            },
            range,
        }
    }

    /// `Class.method(...)` of a class method of this file: the class as
    /// the method's `cls` ([`CLASS_ARGUMENT`]).
    fn class_method_receiver(&mut self, function: Node<'_>) -> Option<Arg> {
        if function.kind() != "attribute" {
            return None;
        }
        let called = self.class_function(function)?;
        if !self.context.own_class_methods.contains(&called) {
            return None;
        }
        let class = child_by_field(function, "object")?;
        let value = self.expr(class);
        Some(Arg {
            name: Some(Name {
                text: CLASS_ARGUMENT.to_owned(),
                range: value.range,
            }),
            unpack: None,
            range: value.range,
            value,
        })
    }

    /// `int(x)`, `round(x)`, `min(a, b)`, `math.ceil(x)`, ...,
    /// `copy.copy(x)`, `zip(a, b)` and `OrderedDict(pairs)`: a builtin the
    /// analysis computes (`Builtin::Int`, ...), by the name
    /// the callee resolves to (`int`, `math.ceil`); `None` for any other
    /// name or arguments (a keyword, `round(x, 2)`). `int` of a quotient of
    /// sizes is that quotient in integers (`int_of_quotient`).
    fn number_builtin(
        &mut self,
        resolved: &str,
        arguments: &[Node<'_>],
        range: TextRange,
    ) -> Option<Expr> {
        let builtin = builtin_named(resolved)?;
        // `sorted(xs, key=f, reverse=True)`, `max(xs, key=f)`.
        let keywords_taken: &[&str] = match resolved {
            "sorted" => &["key", "reverse"],
            "min" | "max" => &["key"],
            _ => &[],
        };
        let (keywords, arguments): (Vec<Node<'_>>, Vec<Node<'_>>) = arguments
            .iter()
            .partition(|a| a.kind() == "keyword_argument");
        let arguments = arguments.as_slice();
        let keyword_name = |k: &Node<'_>| child_by_field(*k, "name").map(|n| self.text(n));
        let keywords_fit = keywords
            .iter()
            .all(|k| keyword_name(k).is_some_and(|name| keywords_taken.contains(&name)));
        let count_fits = match resolved {
            "min" | "max" => !arguments.is_empty(),
            "zip" => true,
            "map" => arguments.len() >= 2,
            "filter" => arguments.len() == 2,
            "functools.reduce" => matches!(arguments.len(), 2 | 3),
            "list" | "tuple" => arguments.len() <= 1,
            "format" => matches!(arguments.len(), 1 | 2),
            "enumerate" => matches!(arguments.len(), 1 | 2),
            "range" => matches!(arguments.len(), 1..=3),
            "collections.OrderedDict" | "typing.OrderedDict" | "dict" => arguments.len() <= 1,
            _ => arguments.len() == 1,
        };
        if !count_fits || !keywords_fit {
            return None;
        }
        let values = match arguments {
            [only] if builtin == Builtin::Int => vec![match self.int_of_quotient(*only) {
                Some(quotient) => quotient,
                None => self.expr(*only),
            }],
            _ => arguments.iter().map(|a| self.expr(*a)).collect(),
        };
        let mut call = builtin_call(builtin, values, range);
        if let ExprKind::Call { args, .. } = &mut call.kind {
            for keyword in keywords {
                let (Some(name), Some(value)) = (
                    child_by_field(keyword, "name"),
                    child_by_field(keyword, "value"),
                ) else {
                    return None;
                };
                args.push(Arg {
                    name: Some(self.name(name)),
                    unpack: None,
                    value: self.expr(value),
                    range: self.range(keyword),
                });
            }
        }
        Some(call)
    }

    /// `tuple(int(d) for d in dims)`: a builtin that consumes a generator
    /// whole, given the list of its items (a comprehension). `any` and
    /// `all`, which stop at the first item that decides, are not: an item
    /// after it may be one Python never computes.
    fn generator_builtin(
        &mut self,
        function: Node<'_>,
        generator: Node<'_>,
        range: TextRange,
    ) -> Option<Expr> {
        if function.kind() != "identifier"
            || self.is_bound(function)
            || self.context.is_item(self.text(function))
        {
            return None;
        }
        let builtin = builtin_named(self.text(function))?;
        let consumes_whole = matches!(
            builtin,
            Builtin::List
                | Builtin::Tuple
                | Builtin::Sorted
                | Builtin::Sum
                | Builtin::Min
                | Builtin::Max
        );
        if !consumes_whole {
            return None;
        }
        let items = self.comprehension(generator)?;
        Some(builtin_call(builtin, vec![items], range))
    }

    /// `set(xs)` of the builtin `set`: `xs`.
    fn set_of<'n>(&self, node: Node<'n>) -> Option<Node<'n>> {
        if !self.is_call_to(node, "set") {
            return None;
        }
        match named_children(child_by_field(node, "arguments")?).as_slice() {
            [only]
                if !matches!(
                    only.kind(),
                    "keyword_argument" | "list_splat" | "dictionary_splat"
                ) =>
            {
                Some(*only)
            }
            _ => None,
        }
    }

    /// `isinstance(v, int)`, `isinstance(v, (list, tuple))` for the
    /// builtin types the analysis decides (`registry::INSTANCE_TYPES`);
    /// `None` for any other type.
    fn is_instance(&mut self, arguments: &[Node<'_>], range: TextRange) -> Option<Expr> {
        let [value, types] = arguments else {
            return None;
        };
        if value.kind() == "keyword_argument" {
            return None;
        }
        let written = match types.kind() {
            "tuple" | "parenthesized_expression" => named_children(*types),
            _ => vec![*types],
        };
        let mut names = Vec::new();
        for ty in written {
            let name = match ty.kind() {
                "identifier" if !self.is_bound(ty) && !self.context.is_item(self.text(ty)) => {
                    let text = self.text(ty);
                    let path = resolve_dotted(text, &self.context.imported);
                    // Only PyTorch's `Tensor` is the tensor type.
                    if text == "Tensor" && path != "torch.Tensor" {
                        return None;
                    }
                    path.rsplit('.').next().unwrap_or(text).to_owned()
                }
                "attribute" => {
                    let path = self.import_path(ty)?;
                    let last = path.rsplit('.').next()?.to_owned();
                    let known_module = path.starts_with("collections.abc.")
                        || path.starts_with("typing.")
                        || path == "torch.Tensor";
                    if !known_module {
                        return None;
                    }
                    last
                }
                _ => return None,
            };
            if !registry::INSTANCE_TYPES.contains(&name.as_str()) {
                return None;
            }
            names.push(name);
        }
        let value = self.expr(*value);
        let types = Expr {
            kind: ExprKind::Str(names.join(",")),
            range,
        };
        Some(builtin_call(Builtin::IsInstance, vec![value, types], range))
    }

    /// `nn.LazyLinear(10)`: `nn.Linear` whose first argument is a hole with
    /// no text, just after the `(` (PYTHON.md §5). The quick fix that fills
    /// it also drops `Lazy` from the name (see `tensorfit_ide::fixes`).
    fn lazy_layer(&mut self, node: Node<'_>, arguments: Node<'_>, concrete: &str) -> Expr {
        let range = self.range(node);
        let at = self.range(arguments).start + 1;
        let hole = TextRange::empty(at as usize);
        self.holes.push(hole);
        let mut args = vec![Arg {
            name: None,
            unpack: None,
            value: Expr {
                kind: ExprKind::Hole,
                range: hole,
            },
            range: hole,
        }];
        args.extend(self.arguments(node));
        let callee = Expr {
            kind: ExprKind::Name(self.operation_name(concrete)),
            range: child_by_field(node, "function").map_or(range, |f| self.range(f)),
        };
        Expr {
            kind: ExprKind::Call {
                callee: Box::new(callee),
                args,
            },
            range,
        }
    }

    /// `int(e)` where `e` multiplies and divides sizes, with float literals
    /// of whole value (`int(planes * (base_width / 64.0))`): the floor of
    /// the exact quotient, in integer arithmetic (sizes are not negative,
    /// so truncation is the floor). `None` without a division.
    fn int_of_quotient(&mut self, node: Node<'_>) -> Option<Expr> {
        // The factors multiplied (`[0]`) and divided by (`[1]`).
        let mut factors: [Vec<Expr>; 2] = Default::default();
        self.factors(node, false, &mut factors)?;
        let range = self.range(node);
        let [numerator, denominator] = factors.map(|side| {
            side.into_iter().reduce(|lhs, rhs| Expr {
                kind: ExprKind::Binary {
                    op: BinaryOp::Mul,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                range,
            })
        });
        // `//`: Python's `/` of ints is a float the analysis does not
        // follow, and this is the floor of the exact quotient.
        Some(Expr {
            kind: ExprKind::Binary {
                op: BinaryOp::FloorDiv,
                lhs: Box::new(numerator?),
                rhs: Box::new(denominator?),
            },
            range,
        })
    }

    /// Adds the factors of `node` to `factors[divides]`, and those of its
    /// divisors to the other side.
    fn factors(
        &mut self,
        node: Node<'_>,
        divides: bool,
        factors: &mut [Vec<Expr>; 2],
    ) -> Option<()> {
        if node.kind() == "parenthesized_expression" {
            let inner = *named_children(node).first()?;
            return self.factors(inner, divides, factors);
        }
        if node.kind() == "binary_operator" {
            let (left, operator, right) = operands(node)?;
            let flips = match self.text(operator) {
                "*" => Some(false),
                "/" => Some(true),
                _ => None,
            };
            if let Some(flips) = flips {
                self.factors(left, divides, factors)?;
                return self.factors(right, divides != flips, factors);
            }
        }
        let value = match node.kind() {
            "float" => {
                let number: f64 = self.text(node).replace('_', "").parse().ok()?;
                let whole =
                    (number.fract() == 0.0 && number.abs() < 1e15).then_some(number as i64)?;
                Expr {
                    kind: ExprKind::Int(whole),
                    range: self.range(node),
                }
            }
            _ => self.expr(node),
        };
        if matches!(value.kind, ExprKind::Float(_) | ExprKind::Unknown(_)) {
            return None;
        }
        factors[usize::from(divides)].push(value);
        Some(())
    }

    /// A call's arguments, `*xs` and `**kw` ones included.
    pub(super) fn arguments(&mut self, call: Node<'_>) -> Vec<Arg> {
        child_by_field(call, "arguments")
            .filter(|a| a.kind() == "argument_list")
            .map(named_children)
            .unwrap_or_default()
            .into_iter()
            .map(|argument| self.argument(argument))
            .collect()
    }

    /// A Python float whose value does not matter to shapes: the analysis
    /// reads any float literal as a float of unknown value.
    fn float_value(&self, node: Node<'_>) -> Expr {
        Expr {
            kind: ExprKind::Float(self.text(node).to_owned()),
            range: self.range(node),
        }
    }

    pub(super) fn argument(&mut self, node: Node<'_>) -> Arg {
        let range = self.range(node);
        match node.kind() {
            "keyword_argument" => {
                let name = child_by_field(node, "name").map(|n| self.name(n));
                let value = match child_by_field(node, "value") {
                    Some(value) => self.argument_value(value),
                    None => self.unknown(node, "the argument is incomplete"),
                };
                Arg {
                    name,
                    unpack: None,
                    value,
                    range,
                }
            }
            "list_splat" | "dictionary_splat" => {
                let unpack = match node.kind() {
                    "list_splat" => Unpack::Positional,
                    _ => Unpack::Keywords,
                };
                let value = match named_children(node).first() {
                    Some(value) => self.expr(*value),
                    None => self.unknown(node, "the argument is incomplete"),
                };
                Arg {
                    name: None,
                    unpack: Some(unpack),
                    value,
                    range,
                }
            }
            _ => Arg {
                name: None,
                unpack: None,
                value: self.argument_value(node),
                range,
            },
        }
    }

    /// An argument's value: `...` is a shape hole (PYTHON.md §5).
    fn argument_value(&mut self, node: Node<'_>) -> Expr {
        if node.kind() == "ellipsis" {
            let range = self.range(node);
            self.holes.push(range);
            return Expr {
                kind: ExprKind::Hole,
                range,
            };
        }
        self.expr(node)
    }

    fn subscript(&mut self, node: Node<'_>) -> Expr {
        let Some(value) = child_by_field(node, "value") else {
            return self.unknown(node, "the subscript is incomplete");
        };
        let value = self.expr(value);
        let mut cursor = node.walk();
        let index_nodes: Vec<Node<'_>> = node
            .children_by_field_name("subscript", &mut cursor)
            .collect();
        let indices = index_nodes
            .into_iter()
            .map(|index| self.index(index))
            .collect();
        Expr {
            kind: ExprKind::Subscript {
                value: Box::new(value),
                indices,
            },
            range: self.range(node),
        }
    }

    fn index(&mut self, node: Node<'_>) -> Expr {
        let range = self.range(node);
        match node.kind() {
            "ellipsis" => Expr {
                kind: ExprKind::Ellipsis,
                range,
            },
            "none" => Expr {
                kind: ExprKind::NewAxis,
                range,
            },
            "slice" => {
                // `start:stop:step`, each part optional: which part an
                // expression is follows from the colons before it.
                let mut parts: [Option<Box<Expr>>; 3] = [None, None, None];
                let mut position = 0;
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for child in children {
                    if child.is_extra() {
                        continue;
                    }
                    if !child.is_named() {
                        if self.text(child) == ":" {
                            position += 1;
                        }
                        continue;
                    }
                    if position < 3 {
                        parts[position] = Some(Box::new(self.expr(child)));
                    }
                }
                let [start, stop, step] = parts;
                Expr {
                    kind: ExprKind::Slice { start, stop, step },
                    range,
                }
            }
            _ => self.expr(node),
        }
    }

    /// `super().__init__(...)`, which the struct's construction stands for.
    pub(super) fn is_super_init(&self, call: Node<'_>) -> bool {
        let Some(function) = child_by_field(call, "function") else {
            return false;
        };
        function.kind() == "attribute"
            && child_by_field(function, "attribute").is_some_and(|a| self.text(a) == "__init__")
            && child_by_field(function, "object").is_some_and(|o| {
                o.kind() == "call"
                    && child_by_field(o, "function").is_some_and(|f| self.text(f) == "super")
            })
    }

    /// `torch._assert(condition, message)` as an `assert`.
    pub(super) fn torch_assert(&mut self, call: Node<'_>, range: TextRange) -> Option<Stmt> {
        let function = child_by_field(call, "function")?;
        if self.import_path(function).as_deref() != Some("torch._assert") {
            return None;
        }
        let args = named_children(child_by_field(call, "arguments")?);
        let condition = self.expr(*args.first()?);
        let message = args.get(1).map(|m| self.expr(*m));
        Some(Stmt {
            kind: StmtKind::Assert {
                condition,
                message,
                guard: false,
            },
            range,
        })
    }

    /// An f-string (`f"block{i + 1}"`, `f"{name!r}_{k:02d}"`):
    /// `builtins.format` of its parts, text and values in turn, a field
    /// with a conversion or a format spec being `repr(x)`, `str(x)` or
    /// `format(x, spec)` as Python defines it.
    fn formatted_string(&mut self, node: Node<'_>) -> Option<Expr> {
        let pieces = match node.kind() {
            "concatenated_string" => named_children(node),
            _ => vec![node],
        };
        let mut parts = Vec::new();
        for piece in pieces {
            for part in named_children(piece) {
                match part.kind() {
                    // `{{` is a brace and `\n` a newline: not followed.
                    "string_content" if !self.text(part).contains(['{', '}', '\\']) => {
                        parts.push(Expr {
                            kind: ExprKind::Str(self.text(part).to_owned()),
                            range: self.range(part),
                        })
                    }
                    "string_start" | "string_end" => {}
                    "interpolation" => parts.push(self.interpolation(part)?),
                    _ => return None,
                }
            }
        }
        Some(builtin_call(Builtin::Format, parts, self.range(node)))
    }

    /// An f-string's replacement field: `{x}`, `{x!r}`, `{x:>4}`, `{x!s:3}`.
    /// `None` for `{x=}`, a nested field in the spec (`{x:{width}}`) and a
    /// quotient, which the front end reads as an integer where Python's
    /// text has a decimal point.
    fn interpolation(&mut self, part: Node<'_>) -> Option<Expr> {
        let children = named_children(part);
        // The braces, and nothing unnamed but them (`=` is).
        if part.child_count() != children.len() + 2 {
            return None;
        }
        let (expression, modifiers) = children.split_first()?;
        if self.text(*expression).contains('/') {
            return None;
        }
        let range = self.range(part);
        let mut value = self.expr(*expression);
        for modifier in modifiers {
            value = match modifier.kind() {
                "type_conversion" => {
                    let conversion = match self.text(*modifier) {
                        "!r" => Builtin::Repr,
                        "!s" => Builtin::Str,
                        _ => return None,
                    };
                    builtin_call(conversion, vec![value], range)
                }
                "format_specifier" if named_children(*modifier).is_empty() => {
                    let written = self.text(*modifier);
                    let spec = Expr {
                        kind: ExprKind::Str(
                            written.strip_prefix(':').unwrap_or(written).to_owned(),
                        ),
                        range: self.range(*modifier),
                    };
                    builtin_call(Builtin::FormatValue, vec![value, spec], range)
                }
                _ => return None,
            };
        }
        Some(value)
    }

    /// The text of a plain string literal; `None` for an f-string.
    pub(super) fn string_literal(&self, node: Node<'_>) -> Option<String> {
        match node.kind() {
            "string" => {
                let mut text = String::new();
                for part in named_children(node) {
                    match part.kind() {
                        "string_content" => text.push_str(self.text(part)),
                        "string_start" | "string_end" => {}
                        _ => return None,
                    }
                }
                Some(text)
            }
            "concatenated_string" => named_children(node)
                .into_iter()
                .map(|part| self.string_literal(part))
                .collect(),
            _ => None,
        }
    }
}

/// The left operand, the operator and the right operand of a binary or
/// boolean operator.
/// `value.method()`.
pub(super) fn method_call(value: Expr, method: &str, range: TextRange) -> Expr {
    Expr {
        kind: ExprKind::Call {
            callee: Box::new(Expr {
                kind: ExprKind::Field {
                    value: Box::new(value),
                    field: FieldName::Named(Name {
                        text: method.to_owned(),
                        range,
                    }),
                },
                range,
            }),
            args: Vec::new(),
        },
        range,
    }
}

fn operands(node: Node<'_>) -> Option<(Node<'_>, Node<'_>, Node<'_>)> {
    Some((
        child_by_field(node, "left")?,
        child_by_field(node, "operator")?,
        child_by_field(node, "right")?,
    ))
}

/// A Python `int` literal's value (`1_000`, `0x10`, `0o7`, `0b1`).
fn python_int(text: &str) -> Option<i64> {
    let digits = text.replace('_', "").to_ascii_lowercase();
    let (radix, body) = match digits.get(..2) {
        Some("0x") => (16, &digits[2..]),
        Some("0o") => (8, &digits[2..]),
        Some("0b") => (2, &digits[2..]),
        _ => (10, digits.as_str()),
    };
    i64::from_str_radix(body, radix).ok()
}

/// A call of one of the builtins the analysis computes
/// (`Builtin::Int`, `Builtin::SetItem`, ...), with positional arguments.
pub(super) fn builtin_call(builtin: Builtin, args: Vec<Expr>, range: TextRange) -> Expr {
    let args = args
        .into_iter()
        .map(|value| Arg {
            name: None,
            unpack: None,
            range: value.range,
            value,
        })
        .collect();
    Expr {
        kind: ExprKind::Call {
            callee: Box::new(Expr {
                kind: ExprKind::Builtin(builtin),
                range,
            }),
            args,
        },
        range,
    }
}

/// Builtins whose result tensorfit does not model.
fn is_builtin(name: &str) -> bool {
    matches!(
        name,
        "print"
            | "len"
            | "range"
            | "min"
            | "max"
            | "abs"
            | "sum"
            | "round"
            | "float"
            | "int"
            | "bool"
            | "str"
            | "list"
            | "tuple"
            | "dict"
            | "set"
            | "zip"
            | "enumerate"
            | "isinstance"
            | "issubclass"
            | "hasattr"
            | "getattr"
            | "setattr"
            | "super"
            | "type"
            | "sorted"
            | "reversed"
            | "map"
            | "filter"
            | "any"
            | "all"
            | "iter"
            | "next"
            | "open"
            | "repr"
            | "format"
            | "divmod"
            | "pow"
            | "callable"
            | "id"
            | "hash"
            | "vars"
            | "globals"
            | "locals"
            | "object"
            | "Exception"
            | "ValueError"
            | "RuntimeError"
            | "TypeError"
            | "NotImplementedError"
            | "AssertionError"
            | "KeyError"
            | "IndexError"
            | "slice"
            | "frozenset"
            | "bytes"
            | "complex"
    )
}

/// The builtin the analysis computes for a callee resolved to `resolved`
/// (`int`, `math.ceil`, `collections.OrderedDict`).
/// A builtin of one argument named as a value (`map(int, parts)`,
/// `sorted(xs, key=len)`): the function `lambda v: int(v)`, which the
/// analysis calls as any function. Others are unknown.
fn builtin_as_function(name: &str, range: TextRange) -> Option<Expr> {
    let takes_one = matches!(
        name,
        "int"
            | "str"
            | "float"
            | "repr"
            | "abs"
            | "round"
            | "len"
            | "list"
            | "tuple"
            | "sorted"
            | "reversed"
            | "sum"
            | "any"
            | "all"
            | "min"
            | "max"
    );
    if !takes_one {
        return None;
    }
    let argument = Expr {
        kind: ExprKind::Name("value".to_owned()),
        range,
    };
    let result = match name {
        "len" => method_call(argument, "__len__", range),
        _ => builtin_call(builtin_named(name)?, vec![argument], range),
    };
    let param = Param {
        is_self: false,
        variadic: false,
        collects: None,
        name: Name {
            text: "value".to_owned(),
            range,
        },
        ty: None,
        default: None,
        range,
    };
    let function = Function {
        name: Some(Name {
            text: name.to_owned(),
            range,
        }),
        is_extern: false,
        params: vec![param],
        return_type: None,
        where_clauses: Vec::new(),
        body: Some(Block {
            stmts: vec![Stmt {
                kind: StmtKind::Return(Some(result)),
                range,
            }],
            range,
        }),
        range,
    };
    let closure = Closure {
        function,
        captures: Vec::new(),
    };
    Some(Expr {
        kind: ExprKind::Closure(std::sync::Arc::new(closure)),
        range,
    })
}

fn builtin_named(resolved: &str) -> Option<Builtin> {
    Some(match resolved {
        "int" => Builtin::Int,
        "str" => Builtin::Str,
        "format" => Builtin::FormatValue,
        "repr" => Builtin::Repr,
        "list" => Builtin::List,
        "tuple" => Builtin::Tuple,
        "sorted" => Builtin::Sorted,
        "reversed" => Builtin::Reversed,
        "enumerate" => Builtin::Enumerate,
        "range" => Builtin::Range,
        "any" => Builtin::Any,
        "all" => Builtin::All,
        "float" => Builtin::Float,
        "round" => Builtin::Round,
        "abs" => Builtin::Abs,
        "min" => Builtin::Min,
        "max" => Builtin::Max,
        "math.ceil" => Builtin::Ceil,
        "math.floor" => Builtin::Floor,
        "sum" => Builtin::Sum,
        "copy.copy" => Builtin::Copy,
        "copy.deepcopy" => Builtin::DeepCopy,
        "zip" => Builtin::Zip,
        "map" => Builtin::Map,
        "callable" => Builtin::IsCallable,
        "inspect.isfunction" => Builtin::IsFunction,
        "inspect.isclass" => Builtin::IsClass,
        "filter" => Builtin::Filter,
        "functools.reduce" => Builtin::Reduce,
        "collections.OrderedDict" | "typing.OrderedDict" | "dict" => Builtin::DictFromPairs,
        "torch.tensor" | "torch.as_tensor" => Builtin::TensorOf,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::python_int;

    #[test]
    fn int_literals_in_every_base() {
        assert_eq!(python_int("1_000"), Some(1000));
        assert_eq!(python_int("0x10"), Some(16));
        assert_eq!(python_int("0O17"), Some(15));
        assert_eq!(python_int("0b101"), Some(5));
        assert_eq!(python_int("99999999999999999999"), None);
    }
}
