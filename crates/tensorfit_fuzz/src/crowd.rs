//! The language server under a crowd of documents and at its end.
//!
//! - **Crowd**: many documents opened back to back (the test and example
//!   programs, as files of their own), and one huge one. Every document
//!   must get its diagnostics, each published at most a few times; the
//!   huge one gets one `file-too-large` diagnostic and costs about its
//!   text; a small document opened after them still gets its diagnostics.
//! - **Exits**: `exit` after `shutdown` ends the process with 0, `exit`
//!   alone with 1, and a client that declares dynamic registration and
//!   closes its end right after `initialized` leaves no process behind.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::lsp_client::{file_uri, Server};
use crate::programs::Program;

/// Publications allowed per document opened once: its own, and one more
/// for each of a few documents it may import that open later.
const MAX_PUBLICATIONS: usize = 3;

pub struct Settings<'a> {
    pub binary: &'a Path,
    pub documents: usize,
    /// The huge document's size, in MiB (0 for none).
    pub huge_mib: usize,
    /// How long all documents may take to get their diagnostics.
    pub within: Duration,
}

/// What a crowd did.
pub struct CrowdReport {
    pub documents: usize,
    pub publications: usize,
    pub most_for_one: usize,
    pub all_diagnosed_after: Duration,
    pub last_opened_after: Duration,
    pub rss_mib: Option<f64>,
}

impl CrowdReport {
    pub fn summary(&self) -> String {
        format!(
            "{} documents: all diagnosed in {:.2} s, {} publications (at most {} for one); a document opened after them diagnosed in {:.2} s; resident {}",
            self.documents,
            self.all_diagnosed_after.as_secs_f64(),
            self.publications,
            self.most_for_one,
            self.last_opened_after.as_secs_f64(),
            self.rss_mib
                .map_or("unknown".to_owned(), |m| format!("{m:.0} MiB")),
        )
    }
}

/// Opens `settings.documents` documents made from `programs`, and the huge
/// one, in a workspace at `root`.
pub fn crowd(
    settings: &Settings<'_>,
    programs: &[Program],
    root: &Path,
) -> Result<CrowdReport, String> {
    let _ = std::fs::remove_dir_all(root);
    std::fs::create_dir_all(root).map_err(|e| e.to_string())?;
    let mut server = Server::start(settings.binary, root).map_err(|t| format!("{t:?}"))?;
    let started = Instant::now();
    let mut uris = Vec::new();
    if settings.huge_mib > 0 {
        let line = "x = torch.randn(2, 3)\n";
        let text = format!(
            "import torch\n{}",
            line.repeat((settings.huge_mib << 20) / line.len())
        );
        open(&mut server, &root.join("huge.py"), &text)?;
    }
    for k in 0..settings.documents {
        let program = &programs[k % programs.len()];
        let extension = match program.language() {
            tensorfit_base::Language::Python => "py",
            tensorfit_base::Language::Tensor => "tensor",
        };
        let path = root.join(format!("document_{k}.{extension}"));
        let text = String::from_utf8_lossy(&program.bytes).into_owned();
        uris.push(open(&mut server, &path, &text)?);
    }
    let everyone = |server: &mut Server| {
        uris.iter()
            .all(|uri| server.diagnostics.contains_key(uri))
            .then_some(())
    };
    server
        .wait(settings.within, everyone)
        .map_err(|t| format!("not every document got its diagnostics: {t:?}"))?;
    let all_diagnosed_after = started.elapsed();
    // One more, opened after the crowd: it does not wait behind anything.
    let opened_at = Instant::now();
    let last = open(
        &mut server,
        &root.join("after.py"),
        "import torch\ny = torch.randn(2, 3) @ torch.randn(4, 5)\n",
    )?;
    server
        .wait(settings.within, |s| {
            s.diagnostics.contains_key(&last).then_some(())
        })
        .map_err(|t| format!("the document opened last got nothing: {t:?}"))?;
    let last_opened_after = opened_at.elapsed();
    // Late publications of the crowd arrive meanwhile.
    std::thread::sleep(Duration::from_millis(500));
    server.poll().map_err(|t| format!("{t:?}"))?;
    let rss_mib = server.rss_mib();
    if settings.huge_mib > 0 {
        let huge = file_uri(&root.join("huge.py"));
        let (_, diagnostics) = server
            .diagnostics
            .get(&huge)
            .ok_or("the huge document got nothing")?;
        let codes: Vec<&str> = diagnostics
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d["code"].as_str())
            .collect();
        if codes != ["file-too-large"] {
            return Err(format!("the huge document got {codes:?}"));
        }
    }
    let counts: Vec<usize> = uris
        .iter()
        .map(|uri| server.publications.get(uri).copied().unwrap_or(0))
        .collect();
    let most_for_one = counts.iter().copied().max().unwrap_or(0);
    if most_for_one > MAX_PUBLICATIONS {
        return Err(format!(
            "a document was published {most_for_one} times (at most {MAX_PUBLICATIONS})"
        ));
    }
    let exit_code = stop(&mut server);
    if exit_code != Some(0) {
        return Err(format!("after shutdown and exit: exit code {exit_code:?}"));
    }
    Ok(CrowdReport {
        documents: uris.len(),
        publications: counts.iter().sum(),
        most_for_one,
        all_diagnosed_after,
        last_opened_after,
        rss_mib,
    })
}

fn open(server: &mut Server, path: &Path, text: &str) -> Result<String, String> {
    let uri = file_uri(path);
    let language = match path.extension().and_then(|e| e.to_str()) {
        Some("py") => "python",
        _ => "tensor",
    };
    server
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
        )
        .map_err(|t| format!("{t:?}"))?;
    Ok(uri)
}

/// `shutdown` then `exit`: the exit code.
fn stop(server: &mut Server) -> Option<i32> {
    let id = server.request("shutdown", Value::Null).ok()?;
    server.answer(id, Duration::from_secs(30)).ok()?;
    server.notify("exit", Value::Null).ok()?;
    server.exit_code(Duration::from_secs(5))
}

/// How each way of ending a session ends the process (see the module's
/// docs); a description of each that went wrong.
pub fn exits(binary: &Path, root: &Path) -> Vec<String> {
    let _ = std::fs::create_dir_all(root);
    let mut wrong = Vec::new();
    let start = |capabilities: Value| Server::start_as(binary, root, capabilities);
    match start(json!({})) {
        Ok(mut server) => {
            let code = stop(&mut server);
            if code != Some(0) {
                wrong.push(format!("exit after shutdown: {code:?}, not 0"));
            }
        }
        Err(t) => wrong.push(format!("{t:?}")),
    }
    match start(json!({})) {
        Ok(mut server) => {
            let _ = server.notify("exit", Value::Null);
            let code = server.exit_code(Duration::from_secs(5));
            if code != Some(1) {
                wrong.push(format!("exit without shutdown: {code:?}, not 1"));
            }
        }
        Err(t) => wrong.push(format!("{t:?}")),
    }
    let registering =
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    match start(registering) {
        Ok(mut server) => {
            // The registration is never answered: the client is gone.
            server.close_input();
            if server.exit_code(Duration::from_secs(15)).is_none() {
                wrong.push("still running 15 s after its input closed".to_owned());
            }
        }
        Err(t) => wrong.push(format!("{t:?}")),
    }
    wrong
}
