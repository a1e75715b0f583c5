//! Data-driven tests of every editor feature, over the real protocol.
//!
//! Each file `tests/fixtures/<feature>/<case>.tensor` (or `.py`, opened as
//! a PyTorch file) is opened in a fresh
//! server; the feature is asked at the `$0` cursor (or of the whole file),
//! and the answer, rendered as text a person can check, is compared with
//! `<case>.snap` next to it. `UPDATE_EXPECT=1 cargo test` rewrites the
//! snapshots; review the diff.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use support::{cursor, Client, PYTHON_URI, URI};

#[tokio::test]
async fn every_fixture_matches_its_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flat_map(|feature| std::fs::read_dir(feature.unwrap().path()).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tensor" || e == "py"))
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 20,
        "fixtures were found in {}",
        root.display()
    );
    let mut failed = Vec::new();
    for case in &cases {
        let feature = case
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let fixture = std::fs::read_to_string(case).unwrap();
        let uri = match case.extension().is_some_and(|e| e == "py") {
            true => PYTHON_URI,
            false => URI,
        };
        let shown = run(feature, &fixture, uri).await;
        let snapshot = case.with_extension("snap");
        let outcome = std::panic::catch_unwind(|| {
            expect_test::expect_file![snapshot].assert_eq(&shown);
        });
        if outcome.is_err() {
            failed.push(case.strip_prefix(&root).unwrap().display().to_string());
        }
    }
    assert!(failed.is_empty(), "snapshots differ: {failed:?}");
}

/// Asks the server for `feature` on the fixture and renders the answer.
async fn run(feature: &str, fixture: &str, uri: &str) -> String {
    let (text, at) = if fixture.contains("$0") {
        cursor(fixture)
    } else {
        (fixture.to_owned(), json!({"line": 0, "character": 0}))
    };
    let mut client = Client::start().await;
    client.open_at(uri, &text).await;
    let document = json!({"uri": uri});
    let at_cursor = json!({"textDocument": document, "position": at});
    let whole =
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 100000, "character": 0}});
    let answer = |result: Result<Value, Value>| result.expect("the server answers");
    match feature {
        "diagnostics" => render_diagnostics(&text, &client.diagnostics(1).await),
        "hover" => {
            let hover = answer(client.request("textDocument/hover", at_cursor).await);
            match hover["contents"]["value"].as_str() {
                Some(value) => format!("{}\n{value}\n", quote(&text, &hover["range"])),
                None => "no hover\n".to_owned(),
            }
        }
        "inlay_hints" => {
            let hints = answer(
                client
                    .request(
                        "textDocument/inlayHint",
                        json!({"textDocument": document, "range": whole}),
                    )
                    .await,
            );
            let inserts = hints
                .as_array()
                .unwrap()
                .iter()
                .map(|h| {
                    (
                        h["position"].clone(),
                        format!("{{{}}}", h["label"].as_str().unwrap()),
                    )
                })
                .collect();
            insert_all(&text, inserts)
        }
        "code_actions" => {
            let range = json!({"start": at, "end": at});
            let params =
                json!({"textDocument": document, "range": range, "context": {"diagnostics": []}});
            let actions = answer(client.request("textDocument/codeAction", params).await);
            render_actions(&text, &actions, uri)
        }
        "definition" => {
            let target = answer(client.request("textDocument/definition", at_cursor).await);
            match target.get("range") {
                Some(range) => format!("{} {}\n", place(range), quote(&text, range)),
                None => "no definition\n".to_owned(),
            }
        }
        "references" => {
            let mut params = at_cursor;
            params["context"] = json!({"includeDeclaration": true});
            let found = answer(client.request("textDocument/references", params).await);
            lines(found.as_array().unwrap(), |r| {
                format!("{} {}", place(&r["range"]), quote(&text, &r["range"]))
            })
        }
        "document_symbols" => {
            let symbols = answer(
                client
                    .request(
                        "textDocument/documentSymbol",
                        json!({"textDocument": document}),
                    )
                    .await,
            );
            let mut out = String::new();
            render_symbols(symbols.as_array().unwrap(), 0, &mut out);
            out
        }
        "semantic_tokens" => {
            let tokens = answer(
                client
                    .request(
                        "textDocument/semanticTokens/full",
                        json!({"textDocument": document}),
                    )
                    .await,
            );
            let legend = &client.capabilities["semanticTokensProvider"]["legend"];
            render_tokens(&text, &tokens, legend)
        }
        "completion" => {
            let items = answer(client.request("textDocument/completion", at_cursor).await);
            lines(items.as_array().unwrap(), |item| {
                let mut line = format!("{} ({})", item["label"].as_str().unwrap(), item["kind"]);
                if let Some(detail) = item["detail"].as_str() {
                    line.push_str(&format!(" {detail}"));
                }
                if let Some(insert) = item["insertText"].as_str() {
                    line.push_str(&format!(" inserts {insert:?}"));
                }
                line
            })
        }
        "signature_help" => {
            let help = answer(
                client
                    .request("textDocument/signatureHelp", at_cursor)
                    .await,
            );
            render_signature(&help)
        }
        other => panic!("no feature named {other} (a fixtures directory)"),
    }
}

fn lines(values: &[Value], show: impl Fn(&Value) -> String) -> String {
    if values.is_empty() {
        return "nothing\n".to_owned();
    }
    values.iter().map(|v| show(v) + "\n").collect()
}

/// `3:4` (1-based line, 0-based UTF-16 column, as editors show them).
fn place(range: &Value) -> String {
    let start = &range["start"];
    format!(
        "{}:{}",
        start["line"].as_u64().unwrap() + 1,
        start["character"]
    )
}

fn offset(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().unwrap() as usize;
    let character = position["character"].as_u64().unwrap() as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= character || c == '\n' {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// The text a range covers, in backticks.
fn quote(text: &str, range: &Value) -> String {
    let (start, end) = (offset(text, &range["start"]), offset(text, &range["end"]));
    format!("`{}`", &text[start..end])
}

/// The text with each insertion made at its position.
fn insert_all(text: &str, mut inserts: Vec<(Value, String)>) -> String {
    inserts.sort_by_key(|(p, _)| std::cmp::Reverse(offset(text, p)));
    let mut out = text.to_owned();
    for (position, label) in inserts {
        out.insert_str(offset(text, &position), &label);
    }
    out
}

fn render_diagnostics(text: &str, diagnostics: &[Value]) -> String {
    lines(diagnostics, |d| {
        let mut line = format!(
            "{} {} [{}] {}",
            place(&d["range"]),
            quote(text, &d["range"]),
            d["code"].as_str().unwrap(),
            d["message"].as_str().unwrap()
        );
        for related in d["relatedInformation"].as_array().into_iter().flatten() {
            let range = &related["location"]["range"];
            line.push_str(&format!(
                "\n    {} {} {}",
                place(range),
                quote(text, range),
                related["message"].as_str().unwrap()
            ));
        }
        line
    })
}

/// Each action's title, then the text after applying it.
fn render_actions(text: &str, actions: &Value, uri: &str) -> String {
    let actions = actions.as_array().unwrap();
    if actions.is_empty() {
        return "no actions\n".to_owned();
    }
    let mut out = String::new();
    for action in actions {
        let preferred = if action["isPreferred"] == json!(true) {
            " (preferred)"
        } else {
            ""
        };
        out.push_str(&format!(
            "== {}{preferred}\n",
            action["title"].as_str().unwrap()
        ));
        let edits = action["edit"]["changes"][uri].as_array().unwrap();
        let mut applied = text.to_owned();
        let mut spans: Vec<(usize, usize, &str)> = edits
            .iter()
            .map(|e| {
                (
                    offset(text, &e["range"]["start"]),
                    offset(text, &e["range"]["end"]),
                    e["newText"].as_str().unwrap(),
                )
            })
            .collect();
        spans.sort_by_key(|s| std::cmp::Reverse(s.0));
        for (start, end, new_text) in spans {
            applied.replace_range(start..end, new_text);
        }
        out.push_str(&applied);
    }
    out
}

fn render_symbols(symbols: &[Value], depth: usize, out: &mut String) {
    for symbol in symbols {
        out.push_str(&format!(
            "{}{} {} (kind {}){}\n",
            "  ".repeat(depth),
            place(&symbol["selectionRange"]),
            symbol["name"].as_str().unwrap(),
            symbol["kind"],
            symbol["detail"]
                .as_str()
                .map(|d| format!(": {d}"))
                .unwrap_or_default()
        ));
        if let Some(children) = symbol["children"].as_array() {
            render_symbols(children, depth + 1, out);
        }
    }
}

/// Decodes the relative encoding, with the legend's names.
fn render_tokens(text: &str, tokens: &Value, legend: &Value) -> String {
    let names = |key: &str| -> Vec<String> {
        legend[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    let (types, modifier_names) = (names("tokenTypes"), names("tokenModifiers"));
    let data: Vec<u64> = tokens["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let (mut line, mut start) = (0, 0);
    let mut out = String::new();
    for token in data.chunks(5) {
        let [delta_line, delta_start, length, kind, modifiers] = token else {
            panic!("tokens come in fives");
        };
        line += delta_line;
        start = if *delta_line == 0 {
            start + delta_start
        } else {
            *delta_start
        };
        let range = json!({"start": {"line": line, "character": start},
                           "end": {"line": line, "character": start + length}});
        let set: Vec<&str> = modifier_names
            .iter()
            .enumerate()
            .filter(|(i, _)| modifiers & (1 << i) != 0)
            .map(|(_, m)| m.as_str())
            .collect();
        out.push_str(&format!(
            "{} {} {}{}\n",
            place(&range),
            quote(text, &range),
            types[*kind as usize],
            if set.is_empty() {
                String::new()
            } else {
                format!(" [{}]", set.join(", "))
            }
        ));
    }
    out
}

/// The label with the active parameter in `[[ ]]`, then the documentation.
fn render_signature(help: &Value) -> String {
    if help.is_null() {
        return "no signature help\n".to_owned();
    }
    let signature = &help["signatures"][0];
    let label: Vec<u16> = signature["label"]
        .as_str()
        .unwrap()
        .encode_utf16()
        .collect();
    let mut shown = String::from_utf16(&label).unwrap();
    if let Some(active) = help["activeParameter"].as_u64() {
        let span = &signature["parameters"][active as usize]["label"];
        let (start, end) = (
            span[0].as_u64().unwrap() as usize,
            span[1].as_u64().unwrap() as usize,
        );
        shown = format!(
            "{}[[{}]]{}",
            String::from_utf16(&label[..start]).unwrap(),
            String::from_utf16(&label[start..end]).unwrap(),
            String::from_utf16(&label[end..]).unwrap()
        );
    }
    let documentation = signature["documentation"]["value"].as_str().unwrap_or("");
    format!("{shown}\n{documentation}\n")
}
