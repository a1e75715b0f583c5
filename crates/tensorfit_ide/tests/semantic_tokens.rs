//! Semantic tokens, data-driven: one token per line as
//! `line:column text Kind +modifiers`.
//! Update with `UPDATE_EXPECT=1 cargo test -p tensorfit_ide --test semantic_tokens`.

use expect_test::{expect, Expect};
use tensorfit_base::LineIndex;
use tensorfit_ide::{semantic_tokens, Prelude, SemanticToken};

fn check(text: &str, expect: Expect) {
    let file = tensorfit_syntax::parse(text).file;
    let tokens = semantic_tokens(&file, Prelude::builtin());
    assert_sorted_and_disjoint(&tokens);
    let lines = LineIndex::new(text);
    let mut actual = String::new();
    for token in &tokens {
        let position = lines.position(token.range.start);
        let mut modifiers = String::new();
        if token.modifiers.declaration {
            modifiers.push_str(" +declaration");
        }
        if token.modifiers.readonly {
            modifiers.push_str(" +readonly");
        }
        if token.modifiers.default_library {
            modifiers.push_str(" +default_library");
        }
        actual.push_str(&format!(
            "{}:{} {} {:?}{}\n",
            position.line + 1,
            position.character,
            &text[token.range.as_usize()],
            token.kind,
            modifiers
        ));
    }
    expect.assert_eq(&actual);
}

fn assert_sorted_and_disjoint(tokens: &[SemanticToken]) {
    for pair in tokens.windows(2) {
        assert!(
            pair[0].range.end <= pair[1].range.start,
            "tokens overlap or are unsorted: {pair:?}"
        );
    }
    assert!(tokens.iter().all(|t| !t.range.is_empty()));
}

#[test]
fn function_with_dimension_names_and_locals() {
    check(
        r#"
fn f(x: Tensor[batch, 3], k: Int) -> Tensor[batch, 4] {
  let w = randn(3, 4)
  var y = x @ w
  y = y.reshape(batch, -1)
  return y
}
"#,
        expect![[r#"
            2:3 f Function +declaration
            2:5 x Parameter +declaration
            2:15 batch DimensionName +declaration +readonly
            2:26 k Parameter +declaration
            2:44 batch DimensionName +readonly
            3:6 w Variable +declaration +readonly
            3:10 randn Function +default_library
            4:6 y Variable +declaration
            4:10 x Parameter
            4:14 w Variable +readonly
            5:2 y Variable
            5:6 y Variable
            5:8 reshape Method +default_library
            5:16 batch DimensionName +readonly
            6:9 y Variable
        "#]],
    );
}

#[test]
fn structs_fields_methods_and_prelude_layers() {
    check(
        r#"
struct Block(c: Int) {
  conv = Conv2d(c, c, kernel_size: 3)
  fn forward(self, x: Tensor) -> Tensor {
    return self.conv(x).shape
  }
}
let b: Block = Block(3)
"#,
        expect![[r#"
            2:7 Block Struct +declaration
            2:13 c Parameter +declaration
            3:2 conv Property +declaration
            3:9 Conv2d Struct +default_library
            3:16 c Parameter
            3:19 c Parameter
            3:22 kernel_size Parameter +default_library
            4:5 forward Method +declaration
            4:19 x Parameter +declaration
            5:16 conv Property
            5:21 x Parameter
            5:24 shape Property +readonly +default_library
            8:4 b Variable +declaration +readonly
            8:7 Block Struct
            8:15 Block Struct
        "#]],
    );
}

#[test]
fn holes_segments_and_constants() {
    check(
        r#"
const n = 4
fn f(x: Tensor[..lead, n], y: Tensor[..rest]) -> Tensor[..broadcast(lead, rest)] {
  let d = Linear(in_features: __, out_features: n)
  return x + y
}
let z = zeros(___, None)
"#,
        expect![[r#"
            2:6 n Variable +declaration +readonly
            3:3 f Function +declaration
            3:5 x Parameter +declaration
            3:17 lead DimensionName +declaration +readonly
            3:23 n Variable +readonly
            3:27 y Parameter +declaration
            3:39 rest DimensionName +declaration +readonly
            3:58 broadcast Function +default_library
            3:68 lead DimensionName +readonly
            3:74 rest DimensionName +readonly
            4:6 d Variable +declaration +readonly
            4:10 Linear Struct +default_library
            4:17 in_features Parameter +default_library
            4:30 __ Hole
            4:34 out_features Parameter +default_library
            4:48 n Variable +readonly
            5:9 x Parameter
            5:13 y Parameter
            7:4 z Variable +declaration +readonly
            7:8 zeros Function +default_library
            7:14 ___ Hole
            7:19 None Variable +readonly +default_library
        "#]],
    );
}

/// In `B[i, t]` inside index notation, `t` is a new index variable, not
/// the loop variable (docs/language.md, "Index notation").
#[test]
fn index_notation_and_loops() {
    check(
        r#"
fn k(B: Tensor[n, m], C: Tensor[m]) -> Tensor {
  var A[i] = B[i, j] * C[j]
  for t in 0..n {
    A[i] += B[i, t]
  }
  return A
}
"#,
        expect![[r#"
            2:3 k Function +declaration
            2:5 B Parameter +declaration
            2:15 n DimensionName +declaration +readonly
            2:18 m DimensionName +declaration +readonly
            2:22 C Parameter +declaration
            2:32 m DimensionName +readonly
            3:6 A Variable +declaration
            3:8 i Variable +declaration +readonly
            3:13 B Parameter
            3:15 i Variable +readonly
            3:18 j Variable +declaration +readonly
            3:23 C Parameter
            3:25 j Variable +readonly
            4:6 t Variable +declaration +readonly
            4:14 n DimensionName +readonly
            5:4 A Variable
            5:6 i Variable +declaration +readonly
            5:12 B Parameter
            5:14 i Variable +readonly
            5:17 t Variable +declaration +readonly
            7:9 A Variable
        "#]],
    );
}

#[test]
fn undeclared_names_get_a_token_only_where_the_syntax_tells_what_they_are() {
    check(
        r#"
let a = mystery(unknown, opt: 1).field.method()
"#,
        expect![[r#"
            2:4 a Variable +declaration +readonly
            2:8 mystery Function
            2:25 opt Parameter
            2:33 field Property
            2:39 method Method
        "#]],
    );
}
