//! An in-process client of the server: real JSON-RPC framing over a pipe.

#![allow(dead_code)] // each test crate uses part of it

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

pub const URI: &str = "file:///work/model.tensor";
/// Where Python fixtures are opened: the server reads them as PyTorch.
#[allow(dead_code)]
pub const PYTHON_URI: &str = "file:///work/model.py";

pub struct Client {
    to_server: tokio::io::WriteHalf<DuplexStream>,
    from_server: BufReader<tokio::io::ReadHalf<DuplexStream>>,
    next_id: i64,
    /// Notifications received while waiting for something else.
    notifications: Vec<Value>,
    /// What the server announced in its `initialize` answer.
    pub capabilities: Value,
}

impl Client {
    pub async fn start() -> Client {
        Client::start_with(Value::Null).await
    }

    /// A server initialised with these settings (`initializationOptions`).
    pub async fn start_with(settings: Value) -> Client {
        Client::start_as(settings, json!({})).await
    }

    /// A server initialised with settings, by a client that declares
    /// `capabilities`.
    pub async fn start_as(settings: Value, capabilities: Value) -> Client {
        let (client_end, server_end) = tokio::io::duplex(1 << 22);
        let (server_read, server_write) = tokio::io::split(server_end);
        let (service, socket) = tensorfit_lsp::service();
        tokio::spawn(tensorfit_lsp::serve(
            server_read,
            server_write,
            service,
            socket,
        ));
        let (from_server, to_server) = tokio::io::split(client_end);
        let mut client = Client {
            to_server,
            from_server: BufReader::new(from_server),
            next_id: 1,
            notifications: Vec::new(),
            capabilities: Value::Null,
        };
        let answer = client
            .request(
                "initialize",
                json!({"capabilities": capabilities, "initializationOptions": settings}),
            )
            .await
            .expect("initialize answers");
        client.capabilities = answer["capabilities"].clone();
        client.notify("initialized", json!({})).await;
        client
    }

    pub async fn send(&mut self, message: Value) {
        let body = message.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.send_raw(frame.as_bytes()).await;
    }

    /// Bytes as they are, framed or not.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.to_server.write_all(bytes).await.unwrap();
    }

    /// The next message that is an answer with a null id (the answer to a
    /// message the server could not read), waiting for it.
    pub async fn unaddressed_error(&mut self) -> Value {
        loop {
            let found = self
                .notifications
                .iter()
                .position(|n| n["id"].is_null() && n.get("error").is_some());
            if let Some(index) = found {
                return self.notifications.remove(index)["error"].clone();
            }
            let message = tokio::time::timeout(Duration::from_secs(60), self.receive())
                .await
                .expect("the server answers within a minute");
            self.notifications.push(message);
        }
    }

    pub async fn receive(&mut self) -> Value {
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            self.from_server.read_line(&mut line).await.unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(value) = line.strip_prefix("Content-Length: ") {
                length = value.parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        self.from_server.read_exact(&mut body).await.unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// The result, or the error object.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let mut message = tokio::time::timeout(Duration::from_secs(60), self.receive())
                .await
                .expect("the server answers within a minute");
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return match message.get_mut("error") {
                    Some(error) => Err(error.take()),
                    None => Ok(message["result"].take()),
                };
            }
            if message.get("id").is_some() && message.get("method").is_some() {
                // A request from the server (e.g. a refresh): accept it,
                // and keep it for tests that look for it.
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": null});
                self.send(reply).await;
                self.notifications.push(message);
                continue;
            }
            self.notifications.push(message);
        }
    }

    /// The diagnostics published for `version` of the document.
    pub async fn diagnostics(&mut self, version: i64) -> Vec<Value> {
        loop {
            let found = self.notifications.iter().position(|n| {
                n["method"] == "textDocument/publishDiagnostics"
                    && n["params"]["version"] == json!(version)
            });
            if let Some(index) = found {
                let n = self.notifications.remove(index);
                return n["params"]["diagnostics"].as_array().unwrap().clone();
            }
            let message = tokio::time::timeout(Duration::from_secs(60), self.receive())
                .await
                .expect("diagnostics are published within a minute");
            self.notifications.push(message);
        }
    }

    pub async fn open(&mut self, text: &str) {
        self.open_at(URI, text).await;
    }

    pub async fn open_at(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "tensor", "version": 1, "text": text}}),
        )
        .await;
    }

    /// A message received so far with this method (a notification or a
    /// request from the server), removed from those kept.
    pub fn take_received(&mut self, method: &str) -> Option<Value> {
        let index = self
            .notifications
            .iter()
            .position(|n| n["method"] == method)?;
        Some(self.notifications.remove(index))
    }

    /// The next message with this method, waiting for it if need be (a
    /// request from the server is accepted).
    pub async fn wait_for(&mut self, method: &str) -> Value {
        loop {
            if let Some(message) = self.take_received(method) {
                return message;
            }
            let message = tokio::time::timeout(Duration::from_secs(60), self.receive())
                .await
                .expect("the server sends it within a minute");
            if message.get("id").is_some() && message.get("method").is_some() {
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": null});
                self.send(reply).await;
            }
            self.notifications.push(message);
        }
    }

    pub async fn change(&mut self, version: i64, changes: Value) {
        self.change_at(URI, version, changes).await;
    }

    /// [`Client::change`] for the document at `uri`.
    pub async fn change_at(&mut self, uri: &str, version: i64, changes: Value) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        )
        .await;
    }

    /// Waits until hover and inlay hints answer from the analysis of
    /// `version` of [`URI`] (`tensorfit/analysedVersion`).
    pub async fn analysed(&mut self, version: i64) {
        self.analysed_at(URI, version).await;
    }

    /// [`Client::analysed`] for the document at `uri`.
    pub async fn analysed_at(&mut self, uri: &str, version: i64) {
        let started = std::time::Instant::now();
        loop {
            let answer = self
                .request("tensorfit/analysedVersion", json!({"uri": uri}))
                .await
                .unwrap();
            if answer == json!(version) {
                return;
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "still {answer}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    }

    /// The labels of the inlay hints of `uri`'s first `lines` lines.
    pub async fn inlay_labels(&mut self, uri: &str, lines: u32) -> Vec<String> {
        let range =
            json!({"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}});
        let hints = self
            .request(
                "textDocument/inlayHint",
                json!({"textDocument": {"uri": uri}, "range": range}),
            )
            .await
            .unwrap();
        hints
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["label"].as_str().unwrap().to_owned())
            .collect()
    }

    pub async fn function_checks(&mut self) -> u64 {
        self.request("tensorfit/functionChecks", json!(null))
            .await
            .unwrap()
            .as_u64()
            .unwrap()
    }
}

/// The text without `$0`, and the LSP position of `$0`.
pub fn cursor(fixture: &str) -> (String, Value) {
    let at = fixture.find("$0").expect("fixture has a $0 cursor");
    let before = &fixture[..at];
    let line = before.matches('\n').count();
    let character = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .encode_utf16()
        .count();
    (
        fixture.replacen("$0", "", 1),
        json!({"line": line, "character": character}),
    )
}
