//! The server driven over real JSON-RPC framing (an in-process pipe), as an
//! editor drives it. Fixtures mark the cursor with `$0`.

mod support;

use std::time::{Duration, Instant};

use expect_test::{expect, Expect};
use serde_json::{json, Value};
use support::{cursor, Client, PYTHON_URI, URI};

fn summary(diagnostics: &[Value]) -> String {
    diagnostics
        .iter()
        .map(|d| {
            let related = d["relatedInformation"]
                .as_array()
                .map(|r| {
                    r.iter()
                        .map(|r| {
                            format!(
                                "\n    {}:{} {}",
                                r["location"]["range"]["start"]["line"],
                                r["location"]["range"]["start"]["character"],
                                r["message"].as_str().unwrap()
                            )
                        })
                        .collect::<String>()
                })
                .unwrap_or_default();
            format!(
                "{}:{} [{}] {}{related}\n",
                d["range"]["start"]["line"],
                d["range"]["start"]["character"],
                d["code"].as_str().unwrap(),
                d["message"].as_str().unwrap()
            )
        })
        .collect()
}

const MODEL: &str = "\
fn project(x: Tensor[b, 8]) -> Tensor[b, 4] {
    let w = ones(8, 4)
    return x @ w
}

fn head(x: Tensor[b, 8]) -> Tensor[b, 2] {
    let p = project(x)
    return p @ ones(4, 2)
}

fn wrong(y: Tensor[3, 5]) -> Tensor[3, 5] {
    return y @ ones(4, 5)
}

let batch = randn(16, 8)
let out = head(batch)
let fitted = batch.reshape(__, 4)
";

async fn hover_at(fixture: &str, expected: Expect) {
    let (text, position) = cursor(fixture);
    let mut client = Client::start().await;
    client.open(&text).await;
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": position}),
        )
        .await
        .unwrap();
    expected.assert_eq(hover["contents"]["value"].as_str().unwrap_or("null"));
}

#[tokio::test]
async fn diagnostics_come_with_the_version_and_related_places() {
    let mut client = Client::start().await;
    client.open(MODEL).await;
    let diagnostics = client.diagnostics(1).await;
    expect![[r#"
        11:11 [shape-mismatch] shape mismatch in matrix multiplication ([3, 5] @ [4, 5]): y.shape[-1] = 5 but ones(4, 5).shape[-2] = 4
            10:9 `y` is defined here
    "#]]
    .assert_eq(&summary(&diagnostics));
}

#[tokio::test]
async fn hover_shows_a_binding_with_its_shape_at_each_call() {
    hover_at(
        &MODEL.replacen("let p = project", "let $0p = project", 1),
        expect![[r#"
            ```tensor
            p: Tensor[b, 4]
            at the call on line 16: Tensor[16, 4]
            ```"#]],
    )
    .await;
}

#[tokio::test]
async fn hover_on_a_hole_shows_its_solution() {
    hover_at(
        &MODEL.replacen("reshape(__", "reshape(_$0_", 1),
        expect![[r#"
            ```tensor
            __ must be 32
            ```"#]],
    )
    .await;
}

#[tokio::test]
async fn inlay_hints_follow_bindings_without_written_types() {
    let mut client = Client::start().await;
    client.open(MODEL).await;
    let hints = client
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": URI},
                   "range": {"start": {"line": 0, "character": 0}, "end": {"line": 20, "character": 0}}}),
        )
        .await
        .unwrap();
    let shown: String = hints
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            format!(
                "{}:{}{}\n",
                h["position"]["line"],
                h["position"]["character"],
                h["label"].as_str().unwrap()
            )
        })
        .collect();
    expect![[r#"
        1:9: Tensor[8, 4]
        6:9: Tensor[b, 4]
        14:9: Tensor[16, 8]
        15:7: Tensor[16, 2]
        16:10: Tensor[32, 4]
    "#]]
    .assert_eq(&shown);
}

#[tokio::test]
async fn the_hole_quick_fix_writes_the_number() {
    let (text, position) = cursor(&MODEL.replacen("reshape(__", "reshape($0__", 1));
    let mut client = Client::start().await;
    client.open(&text).await;
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": URI},
                   "range": {"start": position, "end": position},
                   "context": {"diagnostics": []}}),
        )
        .await
        .unwrap();
    let action = &actions[0];
    assert_eq!(action["title"], "Fill the hole with 32");
    let edit = &action["edit"]["changes"][URI][0];
    assert_eq!(edit["newText"], "32");
    assert_eq!(edit["range"]["start"], position);
}

/// Diagnostics come from analyses of the checks alone, the shapes hover
/// shows from whole analyses made after them: each function is analysed
/// once for each, and an edit analyses again only the function it touched.
#[tokio::test]
async fn edits_re_solve_only_what_they_touch() {
    let mut client = Client::start().await;
    client.open(MODEL).await;
    client.diagnostics(1).await;
    client.analysed(1).await;
    let cold = client.function_checks().await;
    assert_eq!(cold, 2 * 3, "three functions, checks and everything");
    // Fix `wrong`: only it is analysed again, for its diagnostics...
    client
        .change(
            2,
            json!([{"range": {"start": {"line": 11, "character": 20}, "end": {"line": 11, "character": 21}},
                    "text": "5"}]),
        )
        .await;
    let diagnostics = client.diagnostics(2).await;
    assert!(diagnostics.is_empty(), "{}", summary(&diagnostics));
    // ... and, once the edit has rested, for hover.
    client.analysed(2).await;
    assert_eq!(client.function_checks().await - cold, 2);
}

#[tokio::test]
async fn bad_input_gets_answers_not_crashes() {
    let mut client = Client::start().await;
    // Requests about a document nobody opened.
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": "file:///nowhere.tensor"}, "position": {"line": 0, "character": 0}}),
        )
        .await;
    assert_eq!(hover, Ok(Value::Null));
    client.change(7, json!([{"text": "fn f("}])).await; // a change to a closed document is ignored
    client
        .open("fn f(x: Tensor[2, 3]) -> Tensor[2, 3] {\n    return x\n}\n")
        .await;
    // Edits past the end, garbage, and a truncated text, in one batch.
    client
        .change(
            2,
            json!([
                {"range": {"start": {"line": 90, "character": 4}, "end": {"line": 99, "character": 0}}, "text": "\u{0}\u{7f}💥 let"},
                {"range": {"start": {"line": 0, "character": 400}, "end": {"line": 0, "character": 2}}, "text": "("},
                {"text": "fn f(x: Tensor[2, 3]) -> Tensor[2, 3] {\n    return x @"}
            ]),
        )
        .await;
    let broken = client.diagnostics(2).await;
    assert!(
        summary(&broken).contains("[syntax-error]"),
        "{}",
        summary(&broken)
    );
    // A thousand rapid edits, then valid text again: the server recovers.
    for version in 3..1003 {
        client
            .change(
                version,
                json!([{"range": {"start": {"line": 1, "character": 14}, "end": {"line": 1, "character": 14}}, "text": " "}]),
            )
            .await;
    }
    client
        .change(
            1003,
            json!([{"text": "fn f(x: Tensor[2, 3]) -> Tensor[2, 3] {\n    return x\n}\n"}]),
        )
        .await;
    assert!(client.diagnostics(1003).await.is_empty());
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": {"line": 1, "character": 11}}),
        )
        .await
        .unwrap();
    // `x` in `return x`: the expression's shape, so the text is the new one.
    assert_eq!(hover["contents"]["value"], "```tensor\nTensor[2, 3]\n```");
}

/// A message the server cannot read is answered, and the session goes on:
/// broken JSON, a lone UTF-16 surrogate (repaired to U+FFFD, keeping the
/// document's positions), a message without `"jsonrpc"`, a bad length.
#[tokio::test]
async fn malformed_messages_are_answered_and_the_session_goes_on() {
    let mut client = Client::start().await;
    let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
    client
        .send_raw(frame(r#"{"jsonrpc": "2.0", "id": 5, "meth"#).as_bytes())
        .await;
    assert_eq!(client.unaddressed_error().await["code"], -32700);
    let without_version = r#"{"id": 6, "method": "textDocument/hover", "params": {}}"#;
    client.send_raw(frame(without_version).as_bytes()).await;
    client.send_raw(b"Content-Length: abc\r\n\r\n{}").await;
    assert_eq!(client.unaddressed_error().await["code"], -32700);
    let open = r#"{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "file:///work/model.tensor", "languageId": "tensor", "version": 1, "text": "let s = \"\ud800\"\nlet a = ones(2, 3)\n"}}}"#;
    client.send_raw(frame(open).as_bytes()).await;
    assert!(client.diagnostics(1).await.is_empty());
    // `a` on the second line: the surrogate took one UTF-16 unit, as in
    // the editor.
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": {"line": 1, "character": 4}}),
        )
        .await
        .unwrap();
    assert_eq!(
        hover["contents"]["value"],
        "```tensor\na: Tensor[2, 3]\n```"
    );
    assert_eq!(
        client.request("shutdown", json!(null)).await,
        Ok(Value::Null)
    );
}

/// A bound reached while checking is said in the server's log (the
/// editor's output panel), naming the function; the rest is still checked.
#[tokio::test]
async fn a_limit_reached_is_in_the_log() {
    let mut client = Client::start().await;
    client
        .open("fn f(x: Tensor) {\n  assert x.rank == 1000000000\n  return x\n}\nlet a = ones(2, 3) @ ones(4, 5)\n")
        .await;
    let diagnostics = client.diagnostics(1).await;
    assert!(
        summary(&diagnostics).contains("shape-mismatch"),
        "{}",
        summary(&diagnostics)
    );
    let log = client.wait_for("window/logMessage").await;
    let message = log["params"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("limit rank reached in `f` of file:///work/model.tensor (version 1)"),
        "{message}"
    );
}

/// A Z3 query that would run to its time limit (here a minute: factoring a
/// large number) does not hold up the next edit: the edit interrupts it,
/// and the new text is checked at once.
#[tokio::test]
async fn an_edit_interrupts_a_slow_solver_query() {
    const SLOW: &str = "\
fn factor(x: Tensor[a, b]) -> Tensor[a, b] {
    assert a * b == 1000000016000000063
    assert a > 1
    assert b > 1
    return x
}
";
    const FIXED: &str = "\
fn factor(x: Tensor[a, b]) -> Tensor[a, b] {
    assert a == 3
    return x
}

let y = factor(ones(4, 2))
";
    let mut client = Client::start_with(json!({"timeoutMs": 60000})).await;
    client.open(SLOW).await;
    // Past the typing pause: the check of version 1 is in Z3.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let edited = Instant::now();
    client.change(2, json!([{"text": FIXED}])).await;
    let diagnostics = client.diagnostics(2).await;
    let waited = edited.elapsed();
    assert!(
        waited < Duration::from_secs(20),
        "the edit waited {waited:?} for a solver query (its limit is 60 s)"
    );
    assert!(
        summary(&diagnostics).contains("a = 4"),
        "the new text is checked: {}",
        summary(&diagnostics)
    );
}

/// A 50,000-line file: it is checked, its error found, hover answers, and
/// an edit at its end is applied and checked again.
#[tokio::test]
async fn a_fifty_thousand_line_file_is_served() {
    let mut text = String::new();
    for i in 0..12_499 {
        text.push_str(&format!(
            "fn f{i}(x: Tensor[b, 8]) -> Tensor[b, 4] {{\n    return x @ ones(8, 4)\n}}\n\n"
        ));
    }
    text.push_str("fn last(y: Tensor[3, 5]) -> Tensor[3, 5] {\n    return y @ ones(4, 5)\n}\n\n");
    assert_eq!(text.lines().count(), 50_000);
    let mut client = Client::start().await;
    client.open(&text).await;
    let diagnostics = client.diagnostics(1).await;
    assert_eq!(diagnostics.len(), 1, "{}", summary(&diagnostics));
    assert_eq!(diagnostics[0]["range"]["start"]["line"], 49_997);
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": {"line": 25_001, "character": 13}}),
        )
        .await
        .unwrap();
    assert_eq!(hover["contents"]["value"], "```tensor\nTensor[b, 4]\n```");
    client
        .change(
            2,
            json!([{"range": {"start": {"line": 49_997, "character": 20}, "end": {"line": 49_997, "character": 21}},
                    "text": "5"}]),
        )
        .await;
    assert!(client.diagnostics(2).await.is_empty());
}

/// Go to definition on a name the document imports: the declaration in
/// the imported file, which is not open; a name the document declares
/// itself stays in the document, and one nothing declares gives nothing.
#[tokio::test]
async fn definition_of_an_imported_name_is_in_the_imported_file() {
    let dir = std::env::temp_dir().join(format!("tensorfit-definition-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let layers = dir.join("layers.tensor");
    std::fs::write(
        &layers,
        "// shared layers\n\nfn project(x: Tensor[b, 8]) -> Tensor[b, 4] {\n    return x @ ones(8, 4)\n}\n",
    )
    .unwrap();
    let main = format!("file://{}", dir.join("main.tensor").display());
    let (text, imported_at) = cursor(
        "import \"layers.tensor\"\nfn local(x: Tensor) -> Tensor { return x }\nlet y = pro$0ject(randn(2, 8))\nlet z = local(y)\nlet w = missing(y)\n",
    );
    let mut client = Client::start().await;
    client.open_at(&main, &text).await;
    client.diagnostics(1).await;
    let definition =
        |position: Value| json!({"textDocument": {"uri": main.clone()}, "position": position});

    let found = client
        .request("textDocument/definition", definition(imported_at))
        .await
        .expect("answered");
    assert_eq!(
        found["uri"].as_str(),
        Some(format!("file://{}", layers.display()).as_str())
    );
    assert_eq!(found["range"]["start"], json!({"line": 2, "character": 3}));
    assert_eq!(found["range"]["end"], json!({"line": 2, "character": 10}));

    let local = client
        .request(
            "textDocument/definition",
            definition(json!({"line": 3, "character": 9})),
        )
        .await
        .expect("answered");
    assert_eq!(local["uri"].as_str(), Some(main.as_str()));
    assert_eq!(local["range"]["start"], json!({"line": 1, "character": 3}));

    let missing = client
        .request(
            "textDocument/definition",
            definition(json!({"line": 4, "character": 9})),
        )
        .await
        .expect("answered");
    assert_eq!(missing, Value::Null);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The hover's Markdown at a position of the document, `null` for none.
async fn hover_text(client: &mut Client, line: u32, character: u32) -> String {
    let at =
        json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}});
    let hover = client.request("textDocument/hover", at).await.unwrap();
    hover["contents"]["value"]
        .as_str()
        .unwrap_or("null")
        .to_owned()
}

/// Right after an edit, hover and inlay hints answer from the last
/// finished analysis at once, at the places its text moved to, and say so
/// in the function being edited; what the edit replaced waits for the
/// check of the new text; once that is done, the client is asked for its
/// inlay hints again.
#[tokio::test]
async fn after_an_edit_hover_answers_from_the_last_check_without_waiting() {
    let mut client = Client::start().await;
    client.open(MODEL).await;
    client.diagnostics(1).await;
    client.analysed(1).await;
    // A comment typed at the end of `let p = project(x)` (line 6), in
    // `head`; `p` is hovered on the next line.
    client
        .change(
            2,
            json!([{"range": {"start": {"line": 6, "character": 22}, "end": {"line": 6, "character": 22}},
                    "text": "  // typed"}]),
        )
        .await;
    let text = hover_text(&mut client, 7, 11).await;
    assert!(text.starts_with("```tensor\nTensor[b, 4]"), "{text}");
    assert!(text.contains("As of the last check"), "{text}");
    let text = hover_text(&mut client, 15, 5).await;
    assert!(text.starts_with("```tensor\nout: Tensor[16, 2]"), "{text}");
    assert!(!text.contains("As of the last check"), "{text}");
    // A place the last check had nothing for (`return`): nothing.
    assert_eq!(hover_text(&mut client, 7, 6).await, "null");
    // The edit's own text: the new check answers (nothing to show there).
    assert_eq!(hover_text(&mut client, 6, 28).await, "null");

    // Inlay hints meanwhile come from the last check too; when the new
    // one is ready the client is asked for them again.
    client.change(3, json!([{"range": {"start": {"line": 6, "character": 22}, "end": {"line": 6, "character": 32}}, "text": ""}])).await;
    let labels = client.inlay_labels(URI, 18).await;
    assert!(labels.iter().any(|l| l == ": Tensor[b, 4]"), "{labels:?}");
    // They were answered before version 3's analysis could be kept (it
    // is made 30 ms after that version's diagnostics), so the server asks
    // for them again once it is.
    client.wait_for("workspace/inlayHint/refresh").await;
    client.analysed(3).await;
    let text = hover_text(&mut client, 7, 11).await;
    assert!(!text.contains("As of the last check"), "{text}");
}

/// Beside Pylance or pyright, tensorfit contributes shapes to a Python
/// file (diagnostics, hover) and leaves completion, navigation, symbols,
/// highlighting and signatures to them: the same requests on a Tensor
/// file are answered.
#[tokio::test]
async fn a_python_file_gets_shapes_and_nothing_its_own_server_gives() {
    let mut client = Client::start_with(json!({"pythonPaths": []})).await;
    let uri = "file:///project/model.py";
    let text = "import torch\nx = torch.randn(2, 3)\ny = x @ torch.randn(4, 5)\n\ndef f(t):\n    return t\n";
    client
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}),
        )
        .await;
    let diagnostics = client.diagnostics(1).await;
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    client.analysed_at(uri, 1).await;
    let at = |line: u32, character: u32| json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
    let hover = client
        .request("textDocument/hover", at(1, 0))
        .await
        .unwrap();
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .contains("Tensor[2, 3]"),
        "{hover}"
    );
    // Inlay hints: the shapes that say something (not `t: Tensor`, a
    // parameter of which nothing is known).
    let labels = client.inlay_labels(uri, 7).await;
    assert!(labels.iter().any(|l| l == ": Tensor[2, 3]"), "{labels:?}");
    assert!(!labels.iter().any(|l| l == ": Tensor"), "{labels:?}");
    let document = json!({"textDocument": {"uri": uri}});
    let mut references = at(1, 0);
    references["context"] = json!({"includeDeclaration": true});
    for (method, params) in [
        ("textDocument/completion", at(2, 5)),
        ("textDocument/definition", at(2, 4)),
        ("textDocument/references", references),
        ("textDocument/signatureHelp", at(2, 20)),
        ("textDocument/documentSymbol", document.clone()),
        ("textDocument/semanticTokens/full", document),
    ] {
        let answer = client.request(method, params).await.unwrap();
        assert_eq!(answer, Value::Null, "{method} on a Python file: {answer}");
    }
    // A Tensor file is answered.
    client.open("let x = zeros([2, 3])\nlet y = x\n").await;
    let symbols = client
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": URI}}),
        )
        .await
        .unwrap();
    assert_ne!(symbols, Value::Null);
}

/// The README's example as an editor shows it: the error under the call
/// with its notes, `x` on the flattening line at the call, and the hole's
/// quick fix (the command line's report is `cli.rs`'s).
#[tokio::test]
async fn the_quick_start_example_in_an_editor() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/quickstart.py"),
    )
    .unwrap();
    let mut client = Client::start().await;
    client.open_at(PYTHON_URI, &text).await;
    let diagnostics = client.diagnostics(1).await;
    assert_eq!(diagnostics.len(), 1, "{}", summary(&diagnostics));
    let error = &diagnostics[0];
    assert_eq!(error["range"]["start"], json!({"line": 29, "character": 9}));
    assert!(error["message"]
        .as_str()
        .unwrap()
        .contains("in_features = 256"));
    assert_eq!(
        error["relatedInformation"].as_array().map(Vec::len),
        Some(2)
    );
    client.analysed_at(PYTHON_URI, 1).await;
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": PYTHON_URI}, "position": {"line": 21, "character": 8}}),
        )
        .await
        .unwrap();
    let shown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        shown.contains("at the call on line 30: Tensor[8, 400]"),
        "{shown}"
    );
    let hole = json!({"line": 16, "character": 29});
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": PYTHON_URI},
                   "range": {"start": hole, "end": hole},
                   "context": {"diagnostics": []}}),
        )
        .await
        .unwrap();
    let fills: Vec<&Value> = actions
        .as_array()
        .into_iter()
        .flatten()
        .filter(|a| a["title"].as_str().is_some_and(|t| t.starts_with("Fill")))
        .collect();
    assert_eq!(fills.len(), 1, "{actions}");
    assert_eq!(fills[0]["edit"]["changes"][PYTHON_URI][0]["newText"], "84");
}
