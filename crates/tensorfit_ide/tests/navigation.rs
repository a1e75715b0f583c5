//! Go to definition and find references, data-driven: each fixture marks
//! the cursor with `$0`. A definition is shown as its name's line with the
//! name between `«»`, then the first line of the whole declaration;
//! references as the lines that contain them, each reference between `«»`.
//! Update with `UPDATE_EXPECT=1 cargo test -p tensorfit_ide --test navigation`.

use expect_test::{expect, Expect};
use tensorfit_base::TextRange;
use tensorfit_ide::{goto_definition, references, Prelude};

fn parse(
    fixture: &str,
) -> (
    String,
    usize,
    std::sync::Arc<tensorfit_syntax::ast::SourceFile>,
) {
    let offset = fixture.find("$0").expect("fixture has a $0 cursor");
    let text = fixture.replace("$0", "");
    let file = tensorfit_syntax::parse(&text).file;
    (text, offset, file)
}

/// The lines holding `ranges`, with each range between `«»`.
fn mark(text: &str, ranges: &[TextRange]) -> String {
    let mut out = String::new();
    let mut line_start = 0;
    for (number, line) in text.split('\n').enumerate() {
        let line_end = line_start + line.len();
        let mut in_line: Vec<&TextRange> = ranges
            .iter()
            .filter(|r| (r.start as usize) >= line_start && (r.start as usize) <= line_end)
            .collect();
        if !in_line.is_empty() {
            in_line.sort();
            let mut marked = String::new();
            let mut at = line_start;
            for range in in_line {
                let (start, end) = (range.start as usize, (range.end as usize).min(line_end));
                marked.push_str(&text[at..start]);
                marked.push('«');
                marked.push_str(&text[start..end]);
                marked.push('»');
                at = end;
            }
            marked.push_str(&text[at..line_end]);
            out.push_str(&format!("{}: {}\n", number + 1, marked.trim()));
        }
        line_start = line_end + 1;
    }
    out
}

fn check_definition(fixture: &str, expect: Expect) {
    let (text, offset, file) = parse(fixture);
    let actual = match goto_definition(&file, Prelude::builtin(), offset) {
        Some(target) => {
            assert!(
                target.full_range.start <= target.name_range.start
                    && target.name_range.end <= target.full_range.end,
                "the name lies in the declaration: {target:?}"
            );
            let full = &text[target.full_range.as_usize()];
            let first_line = full.lines().next().unwrap_or("");
            format!(
                "{}declaration: {}{}\n",
                mark(&text, &[target.name_range]),
                first_line.trim(),
                if full.contains('\n') { " …" } else { "" }
            )
        }
        None => "no definition\n".to_owned(),
    };
    expect.assert_eq(&actual);
}

fn check_references(fixture: &str, include_declaration: bool, expect: Expect) {
    let (text, offset, file) = parse(fixture);
    let ranges = references(&file, Prelude::builtin(), offset, include_declaration);
    assert!(
        ranges.windows(2).all(|w| w[0] < w[1]),
        "sorted, no duplicates"
    );
    let actual = if ranges.is_empty() {
        "no references\n".to_owned()
    } else {
        mark(&text, &ranges)
    };
    expect.assert_eq(&actual);
}

// ---------------------------------------------------------- go to definition

#[test]
fn local_let_in_a_function() {
    check_definition(
        r#"
fn f(x: Tensor) -> Tensor {
  let y = relu(x)
  return y$0
}
"#,
        expect![[r#"
            3: let «y» = relu(x)
            declaration: let y = relu(x)
        "#]],
    );
}

#[test]
fn parameter() {
    check_definition(
        r#"
fn f(x: Tensor, k: Int) -> Tensor {
  return x$0.reshape(k, -1)
}
"#,
        expect![[r#"
            2: fn f(«x»: Tensor, k: Int) -> Tensor {
            declaration: x: Tensor
        "#]],
    );
}

#[test]
fn shadowing_in_an_inner_block_ends_with_the_block() {
    check_definition(
        r#"
fn f(x: Tensor, c: Bool) -> Tensor {
  let y = x
  if c {
    let y = relu(x)
  }
  return y$0
}
"#,
        expect![[r#"
            3: let «y» = x
            declaration: let y = x
        "#]],
    );
}

#[test]
fn shadowing_inside_the_inner_block() {
    check_definition(
        r#"
fn f(x: Tensor, c: Bool) -> Tensor {
  let y = x
  if c {
    let y = relu(x)
    return y$0
  }
  return y
}
"#,
        expect![[r#"
            5: let «y» = relu(x)
            declaration: let y = relu(x)
        "#]],
    );
}

#[test]
fn a_let_value_sees_the_binding_it_shadows() {
    check_definition(
        r#"
let x = randn(3)
if true {
  let x = x$0 + 1.0
}
"#,
        expect![[r#"
            2: let «x» = randn(3)
            declaration: let x = randn(3)
        "#]],
    );
}

#[test]
fn var_reassignment_goes_to_the_var() {
    check_definition(
        r#"
var acc = zeros(3)
for i in 0..4 {
  acc$0 = acc + 1.0
}
"#,
        expect![[r#"
            2: var «acc» = zeros(3)
            declaration: var acc = zeros(3)
        "#]],
    );
}

#[test]
fn loop_variable() {
    check_definition(
        r#"
fn f(x: Tensor[n]) -> Tensor {
  var y = x
  for i in 0..n {
    y = y + i$0
  }
  return y
}
"#,
        expect![[r#"
            4: for «i» in 0..n {
            declaration: for i in 0..n { …
        "#]],
    );
}

#[test]
fn dimension_name_used_in_the_body() {
    check_definition(
        r#"
fn f(x: Tensor[batch, 3]) -> Tensor[batch, 4] {
  let w = randn(3, 4)
  assert batch$0 > 0
  return x @ w
}
"#,
        expect![[r#"
            2: fn f(x: Tensor[«batch», 3]) -> Tensor[batch, 4] {
            declaration: x: Tensor[batch, 3]
        "#]],
    );
}

#[test]
fn dimension_name_in_the_result_type() {
    check_definition(
        r#"
fn mm(a: Tensor[n, k], b: Tensor[k, m]) -> Tensor[n, m$0] {
  return a @ b
}
"#,
        expect![[r#"
            2: fn mm(a: Tensor[n, k], b: Tensor[k, «m»]) -> Tensor[n, m] {
            declaration: b: Tensor[k, m]
        "#]],
    );
}

#[test]
fn dimension_segment() {
    check_definition(
        r#"
fn f(x: Tensor[..lead, c]) -> Tensor[..lead$0] {
  return x.sum(dim: -1)
}
"#,
        expect![[r#"
            2: fn f(x: Tensor[..«lead», c]) -> Tensor[..lead] {
            declaration: x: Tensor[..lead, c]
        "#]],
    );
}

#[test]
fn a_constant_used_as_a_dimension_is_the_constant() {
    check_definition(
        r#"
const batch = 12
fn f(x: Tensor[batch$0, 3]) -> Tensor {
  return x
}
"#,
        expect![[r#"
            2: const «batch» = 12
            declaration: const batch = 12
        "#]],
    );
}

#[test]
fn function_called_before_its_declaration() {
    check_definition(
        r#"
let y = double$0(randn(2, 3))
fn double(x: Tensor) -> Tensor {
  return cat([x, x], dim: 1)
}
"#,
        expect![[r#"
            3: fn «double»(x: Tensor) -> Tensor {
            declaration: fn double(x: Tensor) -> Tensor { …
        "#]],
    );
}

#[test]
fn struct_from_its_constructor_call_and_from_a_type() {
    check_definition(
        r#"
struct Block(c: Int) {
  conv = Conv2d(c, c, kernel_size: 3)
}
fn apply(b: Block$0, x: Tensor) -> Tensor {
  return b(x)
}
"#,
        expect![[r#"
            2: struct «Block»(c: Int) {
            declaration: struct Block(c: Int) { …
        "#]],
    );
}

#[test]
fn self_field_and_struct_parameter() {
    check_definition(
        r#"
struct Block(c: Int) {
  conv = Conv2d(c, c, kernel_size: 3)
  fn forward(self, x: Tensor) -> Tensor {
    return self.conv$0(x)
  }
}
"#,
        expect![[r#"
            3: «conv» = Conv2d(c, c, kernel_size: 3)
            declaration: conv = Conv2d(c, c, kernel_size: 3)
        "#]],
    );
    check_definition(
        r#"
struct Block(c: Int) {
  conv = Conv2d(c$0, c, kernel_size: 3)
  fn width(self) -> Int {
    return self.c
  }
}
"#,
        expect![[r#"
            2: struct Block(«c»: Int) {
            declaration: c: Int
        "#]],
    );
}

#[test]
fn method_through_self_and_through_an_instance() {
    check_definition(
        r#"
struct Model {
  dense = Linear(4, 2)
  fn head(self, x: Tensor) -> Tensor { return self.dense(x) }
  fn forward(self, x: Tensor) -> Tensor { return self.head$0(relu(x)) }
}
"#,
        expect![[r#"
            4: fn «head»(self, x: Tensor) -> Tensor { return self.dense(x) }
            declaration: fn head(self, x: Tensor) -> Tensor { return self.dense(x) }
        "#]],
    );
    check_definition(
        r#"
struct Model {
  dense = Linear(4, 2)
  fn forward(self, x: Tensor) -> Tensor { return self.dense(x) }
}
let m = Model()
let y = m.forward$0(randn(1, 4))
"#,
        expect![[r#"
            4: fn «forward»(self, x: Tensor) -> Tensor { return self.dense(x) }
            declaration: fn forward(self, x: Tensor) -> Tensor { return self.dense(x) }
        "#]],
    );
}

#[test]
fn named_argument_goes_to_the_parameter() {
    check_definition(
        r#"
struct Block(c: Int, stride: Int = 1) {
  conv = Conv2d(c, c, kernel_size: 3, stride: stride)
}
let b = Block(3, stride$0: 2)
"#,
        expect![[r#"
            2: struct Block(c: Int, «stride»: Int = 1) {
            declaration: stride: Int = 1
        "#]],
    );
}

#[test]
fn index_variables_are_local_to_their_statement() {
    check_definition(
        r#"
fn kernel(B: Tensor[n, m, p], C: Tensor[p]) -> Tensor {
  let A[i, j] = B[i, j, k] * C[k$0]
  return A
}
"#,
        expect![[r#"
            3: let A[i, j] = B[i, j, «k»] * C[k]
            declaration: let A[i, j] = B[i, j, k] * C[k]
        "#]],
    );
}

#[test]
fn reduction_index() {
    check_definition(
        r#"
fn f(A: Tensor[h, n], B: Tensor[h, m]) -> Tensor {
  let C[y, x] = sum(k in 0..h) A[k$0, y] * B[k, x]
  return C
}
"#,
        expect![[r#"
            3: let C[y, x] = sum(«k» in 0..h) A[k, y] * B[k, x]
            declaration: sum(k in 0..h) A[k, y] * B[k, x]
        "#]],
    );
}

#[test]
fn on_a_declaration_gives_itself() {
    check_definition(
        r#"
let inp$0ut = zeros([12, 3])
"#,
        expect![[r#"
            2: let «input» = zeros([12, 3])
            declaration: let input = zeros([12, 3])
        "#]],
    );
}

#[test]
fn cursor_just_after_a_name() {
    check_definition(
        r#"
let a = randn(3)
let b = a$0+a
"#,
        expect![[r#"
            2: let «a» = randn(3)
            declaration: let a = randn(3)
        "#]],
    );
}

#[test]
fn name_in_parentheses() {
    check_definition(
        r#"
let a = randn(3)
let b = (a$0) * 2.0
"#,
        expect![[r#"
            2: let «a» = randn(3)
            declaration: let a = randn(3)
        "#]],
    );
}

#[test]
fn nothing_for_prelude_operations_unknown_names_and_non_names() {
    for fixture in [
        "let y = rel$0u(randn(3))",
        "let y = randn(3).resh$0ape(3, 1)",
        "let y = undefin$0ed + 1",
        "let y = 1$02",
        "let y = \"te$0xt\"",
        "let y = x // a comm$0ent",
        "$0",
        // Functions do not see the script's locals.
        "let k = 3\nfn f() -> Int { return k$0 }",
    ] {
        check_definition(
            fixture,
            expect![[r#"
                no definition
            "#]],
        );
    }
}

// -------------------------------------------------------------- references

#[test]
fn references_of_a_local_from_a_use() {
    check_references(
        r#"
fn f(x: Tensor) -> Tensor {
  let y = relu(x)
  let z = y + y$0
  return z * y
}
"#,
        true,
        expect![[r#"
            3: let «y» = relu(x)
            4: let z = «y» + «y»
            5: return z * «y»
        "#]],
    );
}

#[test]
fn references_without_the_declaration() {
    check_references(
        r#"
fn f(x$0: Tensor) -> Tensor {
  let y = relu(x)
  return x + y
}
"#,
        false,
        expect![[r#"
            3: let y = relu(«x»)
            4: return «x» + y
        "#]],
    );
}

#[test]
fn shadowed_bindings_have_separate_references() {
    check_references(
        r#"
let x = randn(3)
let y = x + 1.0
if true {
  let x$0 = y * 2.0
  let z = x
}
let w = x
"#,
        true,
        expect![[r#"
            5: let «x» = y * 2.0
            6: let z = «x»
        "#]],
    );
}

#[test]
fn references_of_a_dimension_name_across_the_signature_and_body() {
    check_references(
        r#"
fn f(x: Tensor[n$0, k], w: Tensor[k, m]) -> Tensor[n, m] where n > 1 {
  assert n < 100
  return x @ w
}
fn g(y: Tensor[n]) -> Tensor { return y }
"#,
        true,
        expect![[r#"
            2: fn f(x: Tensor[«n», k], w: Tensor[k, m]) -> Tensor[«n», m] where «n» > 1 {
            3: assert «n» < 100
        "#]],
    );
}

#[test]
fn references_of_a_field_through_self_and_an_instance() {
    check_references(
        r#"
struct Model {
  dense$0 = Linear(4, 2)
  fn forward(self, x: Tensor) -> Tensor { return self.dense(x) }
}
struct Outer {
  inner = Model()
  fn forward(self, x: Tensor) -> Tensor { return self.inner.dense(x) }
}
let m = Model()
let d = m.dense
"#,
        true,
        expect![[r#"
            3: «dense» = Linear(4, 2)
            4: fn forward(self, x: Tensor) -> Tensor { return self.«dense»(x) }
            8: fn forward(self, x: Tensor) -> Tensor { return self.inner.«dense»(x) }
            11: let d = m.«dense»
        "#]],
    );
}

#[test]
fn references_of_a_parameter_include_named_arguments() {
    check_references(
        r#"
fn scale(x: Tensor, factor$0: Float = 2.0) -> Tensor {
  return x * factor
}
let a = scale(randn(3), factor: 3.0)
let b = scale(a)
"#,
        false,
        expect![[r#"
            3: return x * «factor»
            5: let a = scale(randn(3), «factor»: 3.0)
        "#]],
    );
}

#[test]
fn references_of_a_prelude_operation_are_its_uses() {
    check_references(
        r#"
let a = relu(randn(3))
let b = a.relu()
let c = relu$0(b)
let relu_count = 1
"#,
        true,
        expect![[r#"
            2: let a = «relu»(randn(3))
            3: let b = a.«relu»()
            4: let c = «relu»(b)
        "#]],
    );
}

#[test]
fn references_of_a_function_from_its_declaration() {
    check_references(
        r#"
fn block$0(x: Tensor) -> Tensor { return relu(x) }
fn net(x: Tensor) -> Tensor { return block(block(x)) }
let y = block(randn(3))
"#,
        true,
        expect![[r#"
            2: fn «block»(x: Tensor) -> Tensor { return relu(x) }
            3: fn net(x: Tensor) -> Tensor { return «block»(«block»(x)) }
            4: let y = «block»(randn(3))
        "#]],
    );
}

#[test]
fn no_references_off_names_or_for_unknown_names() {
    check_references(
        "let y = unknown$0 + 1",
        true,
        expect![[r#"
            no references
        "#]],
    );
    check_references(
        "let y = 1 $0+ 2",
        true,
        expect![[r#"
            no references
        "#]],
    );
}
