//! A blocking LSP client of a `tensorfit lsp` process: real framing over
//! its stdin and stdout, a reader thread, answers matched to requests.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub struct Server {
    process: Child,
    /// `None` once closed ([`Server::close_input`]).
    input: Option<ChildStdin>,
    messages: Receiver<Value>,
    next_id: i64,
    /// Answers received, by request id.
    answers: HashMap<i64, Value>,
    /// The latest diagnostics published for each document: version and list.
    pub diagnostics: HashMap<String, (Option<i64>, Value)>,
    /// How many times diagnostics were published for each document.
    pub publications: HashMap<String, usize>,
}

#[derive(Debug)]
pub enum Trouble {
    /// The process ended, or closed its output.
    Died(String),
    /// No answer in time.
    Silent(String),
}

impl Server {
    /// Starts `binary lsp` in `root` and initialises it with `root` as its
    /// workspace.
    pub fn start(binary: &Path, root: &Path) -> Result<Server, Trouble> {
        Server::start_as(binary, root, json!({}))
    }

    /// [`Server::start`] for a client that declares `capabilities`.
    pub fn start_as(binary: &Path, root: &Path, capabilities: Value) -> Result<Server, Trouble> {
        let mut process = Command::new(binary)
            .arg("lsp")
            // For `tensorfit/memory`.
            .env("TENSORFIT_COUNT_HEAP", "1")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Trouble::Died(format!("cannot start {}: {e}", binary.display())))?;
        let input = process.stdin.take().expect("piped");
        let output = process.stdout.take().expect("piped");
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut output = BufReader::new(output);
            while let Some(message) = read_message(&mut output) {
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        let mut server = Server {
            process,
            input: Some(input),
            messages,
            next_id: 1,
            answers: HashMap::new(),
            diagnostics: HashMap::new(),
            publications: HashMap::new(),
        };
        let uri = file_uri(root);
        let id = server.request(
            "initialize",
            json!({"rootUri": uri, "workspaceFolders": [{"uri": uri, "name": "fuzz"}],
                   "capabilities": capabilities, "initializationOptions": {"timeoutMs": 2000}}),
        )?;
        server.answer(id, Duration::from_secs(60))?;
        server.notify("initialized", json!({}))?;
        Ok(server)
    }

    pub fn pid(&self) -> u32 {
        self.process.id()
    }

    /// Sends a request; its id, for [`Server::answer`].
    pub fn request(&mut self, method: &str, params: Value) -> Result<i64, Trouble> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        Ok(id)
    }

    pub fn notify(&mut self, method: &str, params: Value) -> Result<(), Trouble> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    pub fn send(&mut self, message: &Value) -> Result<(), Trouble> {
        self.send_raw(&frame(message.to_string().as_bytes()))
    }

    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), Trouble> {
        let Some(input) = self.input.as_mut() else {
            return Err(Trouble::Died("the input is closed".into()));
        };
        input
            .write_all(bytes)
            .and_then(|()| input.flush())
            .map_err(|e| Trouble::Died(format!("writing to the server: {e}")))
    }

    /// Closes the server's input, as a client that goes away does.
    pub fn close_input(&mut self) {
        self.input = None;
    }

    /// The process's exit code once it has ended, waiting at most `limit`;
    /// `None` if it still runs (or ended by a signal).
    pub fn exit_code(&mut self, limit: Duration) -> Option<i32> {
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = self.process.try_wait() {
                return status.code();
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Takes in what has arrived, without waiting.
    pub fn poll(&mut self) -> Result<(), Trouble> {
        loop {
            match self.messages.try_recv() {
                Ok(message) => self.take(message)?,
                Err(mpsc::TryRecvError::Empty) => return Ok(()),
                Err(mpsc::TryRecvError::Disconnected) => return Err(self.died()),
            }
        }
    }

    /// The answer to request `id`, waiting at most `limit`.
    pub fn answer(&mut self, id: i64, limit: Duration) -> Result<Value, Trouble> {
        self.wait(limit, |server| server.answers.remove(&id))
            .map_err(|t| match t {
                Trouble::Silent(_) => Trouble::Silent(format!("no answer to request {id}")),
                other => other,
            })
    }

    /// Waits until `found` gives something, taking in messages meanwhile.
    pub fn wait<T>(
        &mut self,
        limit: Duration,
        mut found: impl FnMut(&mut Server) -> Option<T>,
    ) -> Result<T, Trouble> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(value) = found(self) {
                return Ok(value);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) => self.take(message)?,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(Trouble::Silent("nothing came".into()))
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.died()),
            }
        }
    }

    fn take(&mut self, message: Value) -> Result<(), Trouble> {
        let has_id = message.get("id").is_some_and(|id| !id.is_null());
        match (message.get("method").and_then(Value::as_str), has_id) {
            (Some(_), true) => {
                // A request from the server (a refresh, a registration).
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": null});
                self.send(&reply)?;
            }
            (Some("textDocument/publishDiagnostics"), false) => {
                let params = &message["params"];
                let uri = params["uri"].as_str().unwrap_or_default().to_owned();
                let entry = (params["version"].as_i64(), params["diagnostics"].clone());
                *self.publications.entry(uri.clone()).or_default() += 1;
                self.diagnostics.insert(uri, entry);
            }
            (Some(_), false) => {} // log messages and the like
            (None, true) => {
                if let Some(id) = message["id"].as_i64() {
                    self.answers.insert(id, message);
                }
            }
            (None, false) => {} // an answer to a message it could not read
        }
        Ok(())
    }

    fn died(&mut self) -> Trouble {
        let status = self
            .process
            .wait()
            .map(|s| s.to_string())
            .unwrap_or_default();
        Trouble::Died(format!("the server ended ({status})"))
    }

    /// Resident memory now, in MiB (Linux).
    pub fn rss_mib(&self) -> Option<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib / 1024.0)
    }

    /// Asks the server to shut down and exit.
    pub fn stop(mut self) {
        if let Ok(id) = self.request("shutdown", Value::Null) {
            let _ = self.answer(id, Duration::from_secs(10));
            let _ = self.notify("exit", Value::Null);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.process.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.process.try_wait() {
            let _ = self.process.kill();
            let _ = self.process.wait();
        }
    }
}

pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

pub fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn read_message(output: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if output.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse().ok();
        }
    }
    let mut body = vec![0; length?];
    output.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}
