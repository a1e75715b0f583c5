//! The LSP session fuzzer: one `tensorfit lsp` process, thousands of random
//! editor actions (edits mid-token and past the end, UTF-16 surrogates,
//! out-of-order versions, requests and their cancellation, open/close
//! cycles, files that import each other or themselves, files deleted while
//! open, malformed messages), on Tensor and Python documents alike. Every
//! request must be answered and the process must live; at the end, what it
//! shows of each open document must equal what a fresh server shows of the
//! same final text.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use crate::lsp_client::{file_uri, frame, Server, Trouble};
use crate::mutate::{fragment, mutate};
use crate::programs::{Language, Program};
use crate::rng::Rng;
use crate::text_model::{self, Position};

pub struct Settings {
    pub binary: PathBuf,
    pub steps: u64,
    pub seed: u64,
    /// How long a request may go unanswered.
    pub answer_within: Duration,
}

pub struct Report {
    pub steps: u64,
    pub requests: u64,
    /// Resident memory, sampled every [`MEMORY_EVERY`] steps.
    pub memory_mib: Vec<f64>,
    /// What the server's Rust code holds on its heap, at the same steps.
    pub heap_mib: Vec<f64>,
    /// What Z3 holds in the server, at the same steps.
    pub z3_mib: Vec<f64>,
    /// Why the session failed, if it did.
    pub failure: Option<String>,
}

impl Report {
    pub fn summary(&self) -> String {
        let samples = |mib: &[f64]| {
            mib.iter()
                .map(|m| format!("{m:.0}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        format!(
            "{} editing steps, {} requests answered; every {MEMORY_EVERY} steps, server resident memory (MiB): {}, heap held (MiB): {}, held by Z3 (MiB): {}; {}",
            self.steps,
            self.requests,
            samples(&self.memory_mib),
            samples(&self.heap_mib),
            samples(&self.z3_mib),
            match &self.failure {
                None => "final state equals a fresh server's".to_owned(),
                Some(failure) => format!("FAILED: {failure}"),
            }
        )
    }
}

/// How often the server's memory is sampled.
const MEMORY_EVERY: u64 = 500;

/// The session's files, with the imports they start with: each imports
/// another or itself.
const FILES: [(&str, &str); 5] = [
    ("a.tensor", "import \"b.tensor\"\n"),
    ("b.tensor", "import \"a.tensor\"\n"),
    ("c.tensor", "import \"c.tensor\"\n"),
    ("p.py", "from q import *\n"),
    ("q.py", "import p\nfrom . import q\n"),
];

fn language_of(name: &str) -> Language {
    Language::of_path(Path::new(name))
}

/// A program to put in the file `name`: one of its language when there is
/// one.
fn program_for<'p>(rng: &mut Rng, programs: &'p [Program], name: &str) -> &'p Program {
    let language = language_of(name);
    let same: Vec<&Program> = programs
        .iter()
        .filter(|p| p.language() == language)
        .collect();
    if same.is_empty() {
        rng.pick(programs)
    } else {
        same[rng.below(same.len())]
    }
}

/// A mutant of a program of `name`'s language.
fn mutant_for(rng: &mut Rng, programs: &[Program], name: &str) -> String {
    let program = program_for(rng, programs, name);
    String::from_utf8_lossy(&mutate(&program.bytes, program.language(), rng)).into_owned()
}

/// The documents as the editor has them.
struct Editor {
    root: PathBuf,
    /// Open documents: text and the last version sent.
    open: BTreeMap<String, (String, i64)>,
    /// The highest version sent for each document, ever.
    versions: BTreeMap<String, i64>,
}

impl Editor {
    fn uri(&self, name: &str) -> String {
        file_uri(&self.root.join(name))
    }
}

pub fn run(settings: &Settings, programs: &[Program], root: &Path) -> std::io::Result<Report> {
    let mut rng = Rng::new(settings.seed);
    std::fs::create_dir_all(root)?;
    for (name, header) in FILES {
        let body = String::from_utf8_lossy(&program_for(&mut rng, programs, name).bytes);
        std::fs::write(root.join(name), format!("{header}{body}"))?;
    }
    let mut editor = Editor {
        root: root.to_path_buf(),
        open: BTreeMap::new(),
        versions: BTreeMap::new(),
    };
    let mut report = Report {
        steps: 0,
        requests: 0,
        memory_mib: Vec::new(),
        heap_mib: Vec::new(),
        z3_mib: Vec::new(),
        failure: None,
    };
    let outcome = drive(settings, programs, &mut rng, &mut editor, &mut report);
    report.failure = match outcome {
        Ok(view) => compare_with_fresh(settings, &editor, &view).err(),
        Err(trouble) => Some(format!("step {}: {trouble:?}", report.steps)),
    };
    Ok(report)
}

fn drive(
    settings: &Settings,
    programs: &[Program],
    rng: &mut Rng,
    editor: &mut Editor,
    report: &mut Report,
) -> Result<Value, Trouble> {
    let mut server = Server::start(&settings.binary, &editor.root)?;
    for (name, _) in FILES {
        open(&mut server, editor, name, None)?;
    }
    let mut pending: Vec<i64> = Vec::new();
    for step in 0..settings.steps {
        report.steps = step + 1;
        server.poll()?;
        let names: Vec<String> = editor.open.keys().cloned().collect();
        let name = if names.is_empty() {
            ""
        } else {
            rng.pick(&names).as_str()
        };
        let roll = rng.below(100);
        match (roll, names.is_empty()) {
            (0..=44, false) => edit(&mut server, editor, rng, programs, name)?,
            (45..=49, false) => {
                let text = mutant_for(rng, programs, name);
                change(&mut server, editor, rng, name, vec![(None, text)])?;
            }
            (50..=51, false) => lone_surrogate_edit(&mut server, editor, rng, name)?,
            (52..=74, false) => {
                let id = request(&mut server, editor, rng, name)?;
                if rng.one_in(4) {
                    server.notify("$/cancelRequest", json!({"id": id}))?;
                }
                pending.push(id);
            }
            (75..=79, _) => toggle_open(&mut server, editor, rng, programs)?,
            (80..=83, _) => disk_change(&mut server, editor, rng, programs)?,
            (84..=86, _) => malformed(&mut server, rng)?,
            _ => {
                // The editor waits for what it asked.
                for id in pending.drain(..) {
                    server.answer(id, settings.answer_within)?;
                    report.requests += 1;
                }
            }
        }
        if step % MEMORY_EVERY == 0 {
            report.memory_mib.extend(server.rss_mib());
            let id = server.request("tensorfit/memory", Value::Null)?;
            let held = server.answer(id, settings.answer_within)?;
            let mib = |key: &str| held["result"][key].as_f64().map(|b| b / f64::from(1 << 20));
            report.heap_mib.extend(mib("heapBytes"));
            report.z3_mib.extend(mib("z3Bytes"));
        }
    }
    for id in pending.drain(..) {
        server.answer(id, settings.answer_within)?;
        report.requests += 1;
    }
    report.memory_mib.extend(server.rss_mib());
    let view = view_of(&mut server, editor, settings.answer_within, true)?;
    server.stop();
    Ok(view)
}

fn open(
    server: &mut Server,
    editor: &mut Editor,
    name: &str,
    text: Option<String>,
) -> Result<(), Trouble> {
    let text =
        text.unwrap_or_else(|| std::fs::read_to_string(editor.root.join(name)).unwrap_or_default());
    let version = editor.versions.get(name).map_or(1, |v| v + 1);
    editor.versions.insert(name.to_owned(), version);
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": editor.uri(name), "languageId": language_id(name), "version": version, "text": text}}),
    )?;
    editor.open.insert(name.to_owned(), (text, version));
    Ok(())
}

fn language_id(name: &str) -> &'static str {
    match language_of(name) {
        Language::Tensor => "tensor",
        Language::Python => "python",
    }
}

/// A position in or near the text: mostly inside it, sometimes past the end
/// of a line or of the text, sometimes inside a surrogate pair.
fn position(rng: &mut Rng, text: &str) -> Position {
    let lines = text_model::line_count(text) as u32;
    let line = if rng.one_in(10) {
        lines + rng.below(5) as u32
    } else {
        rng.below(lines as usize) as u32
    };
    let character = if rng.one_in(8) {
        80 + rng.below(200) as u32
    } else {
        rng.below(40) as u32
    };
    Position { line, character }
}

fn lsp_position(p: Position) -> Value {
    json!({"line": p.line, "character": p.character})
}

type Change = (Option<(Position, Position)>, String);

fn edit(
    server: &mut Server,
    editor: &mut Editor,
    rng: &mut Rng,
    programs: &[Program],
    name: &str,
) -> Result<(), Trouble> {
    let text = editor.open[name].0.clone();
    let mut changes = Vec::new();
    for _ in 0..1 + rng.below(3) {
        let start = position(rng, &text);
        let end = if rng.one_in(3) {
            start
        } else {
            Position {
                line: start.line + rng.below(2) as u32,
                character: rng.below(60) as u32,
            }
        };
        let new_text = match rng.below(4) {
            0 => String::new(),
            1 => {
                let program = program_for(rng, programs, name);
                let source = String::from_utf8_lossy(&program.bytes).into_owned();
                let from = rng.below(source.len());
                let to = (from + rng.below(120)).min(source.len());
                source.get(from..to).unwrap_or("").to_owned()
            }
            _ => fragment(language_of(name), rng).to_owned(),
        };
        changes.push((Some((start, end)), new_text));
    }
    change(server, editor, rng, name, changes)
}

/// Sends `changes` with the next version (now and then an older one: the
/// server applies changes in the order sent, whatever their versions).
fn change(
    server: &mut Server,
    editor: &mut Editor,
    rng: &mut Rng,
    name: &str,
    changes: Vec<Change>,
) -> Result<(), Trouble> {
    let version = next_version(editor, rng, name);
    let content: Vec<Value> = changes
        .iter()
        .map(|(range, text)| match range {
            None => json!({"text": text}),
            Some((s, e)) => {
                json!({"range": {"start": lsp_position(*s), "end": lsp_position(*e)}, "text": text})
            }
        })
        .collect();
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": editor.uri(name), "version": version}, "contentChanges": content}),
    )?;
    let document = editor.open.get_mut(name).expect("open");
    for (range, text) in changes {
        text_model::apply(&mut document.0, range, &text);
    }
    document.1 = version;
    Ok(())
}

fn next_version(editor: &mut Editor, rng: &mut Rng, name: &str) -> i64 {
    let highest = editor.versions.get(name).copied().unwrap_or(1);
    let version = if rng.one_in(20) {
        rng.below(highest as usize + 1) as i64
    } else {
        highest + 1
    };
    editor
        .versions
        .insert(name.to_owned(), highest.max(version));
    version
}

/// An insertion of a lone high surrogate, as a JavaScript editor sends half
/// a character: the server reads it as U+FFFD (one UTF-16 unit).
fn lone_surrogate_edit(
    server: &mut Server,
    editor: &mut Editor,
    rng: &mut Rng,
    name: &str,
) -> Result<(), Trouble> {
    let at = position(rng, &editor.open[name].0);
    let version = next_version(editor, rng, name);
    let body = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"textDocument":{{"uri":"{}","version":{version}}},"contentChanges":[{{"range":{{"start":{},"end":{}}},"text":"x\ud800y"}}]}}}}"#,
        editor.uri(name),
        lsp_position(at),
        lsp_position(at)
    );
    server.send_raw(&frame(body.as_bytes()))?;
    let document = editor.open.get_mut(name).expect("open");
    text_model::apply(&mut document.0, Some((at, at)), "x\u{FFFD}y");
    document.1 = version;
    Ok(())
}

fn request(
    server: &mut Server,
    editor: &Editor,
    rng: &mut Rng,
    name: &str,
) -> Result<i64, Trouble> {
    let text = &editor.open[name].0;
    let document = json!({"uri": editor.uri(name)});
    let at = lsp_position(position(rng, text));
    let whole =
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 100000, "character": 0}});
    let (method, params) = match rng.below(10) {
        0 => (
            "textDocument/hover",
            json!({"textDocument": document, "position": at}),
        ),
        1 => (
            "textDocument/completion",
            json!({"textDocument": document, "position": at}),
        ),
        2 => (
            "textDocument/inlayHint",
            json!({"textDocument": document, "range": whole}),
        ),
        3 => (
            "textDocument/semanticTokens/full",
            json!({"textDocument": document}),
        ),
        4 => (
            "textDocument/documentSymbol",
            json!({"textDocument": document}),
        ),
        5 => (
            "textDocument/definition",
            json!({"textDocument": document, "position": at}),
        ),
        6 => (
            "textDocument/references",
            json!({"textDocument": document, "position": at, "context": {"includeDeclaration": true}}),
        ),
        7 => (
            "textDocument/signatureHelp",
            json!({"textDocument": document, "position": at}),
        ),
        8 => (
            "textDocument/codeAction",
            json!({"textDocument": document, "range": {"start": at, "end": at}, "context": {"diagnostics": []}}),
        ),
        _ => ("tensorfit/functionChecks", Value::Null),
    };
    server.request(method, params)
}

fn toggle_open(
    server: &mut Server,
    editor: &mut Editor,
    rng: &mut Rng,
    programs: &[Program],
) -> Result<(), Trouble> {
    let name = rng.pick(&FILES).0;
    if editor.open.remove(name).is_some() {
        server.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": editor.uri(name)}}),
        )?;
        return Ok(());
    }
    let text = rng.one_in(2).then(|| mutant_for(rng, programs, name));
    open(server, editor, name, text)
}

/// A file deleted, created or rewritten on disk, and the watcher's word.
fn disk_change(
    server: &mut Server,
    editor: &mut Editor,
    rng: &mut Rng,
    programs: &[Program],
) -> Result<(), Trouble> {
    let name = rng.pick(&FILES).0;
    let path = editor.root.join(name);
    let kind = if path.exists() && rng.one_in(2) {
        let _ = std::fs::remove_file(&path);
        3
    } else {
        let created = !path.exists();
        let _ = std::fs::write(&path, mutant_for(rng, programs, name));
        if created {
            1
        } else {
            2
        }
    };
    server.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": editor.uri(name), "type": kind}]}),
    )
}

fn malformed(server: &mut Server, rng: &mut Rng) -> Result<(), Trouble> {
    let bodies: [&[u8]; 6] = [
        br#"{"jsonrpc": "2.0", "id": 99999, "meth"#,
        br#"{"id": 99998, "method": "textDocument/hover"}"#,
        br#"{"jsonrpc":"2.0","id":99997,"method":"textDocument/hover","params":{"textDocument":7}}"#,
        br#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///nowhere"},"contentChanges":"x"}}"#,
        b"\xff\xfe\x00garbage",
        br#"[1, 2, 3]"#,
    ];
    match rng.below(bodies.len() + 1) {
        i if i < bodies.len() => server.send_raw(&frame(bodies[i])),
        _ => server.send_raw(b"Content-Length: nope\r\n\r\n{}"),
    }
}

/// What a server shows of every open document: diagnostics, semantic
/// tokens, symbols, inlay hints and hovers at some places. `touch` sends an
/// empty change first, so that the diagnostics waited for are of a version
/// no earlier message named.
fn view_of(
    server: &mut Server,
    editor: &mut Editor,
    limit: Duration,
    touch: bool,
) -> Result<Value, Trouble> {
    let mut views = serde_json::Map::new();
    let names: Vec<String> = editor.open.keys().cloned().collect();
    for name in &names {
        let uri = editor.uri(name);
        let version = if touch {
            let version = editor.versions[name] + 1;
            editor.versions.insert(name.clone(), version);
            server.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": []}),
            )?;
            version
        } else {
            editor.open[name].1
        };
        let diagnostics = server
            .wait(limit, |s| match s.diagnostics.get(&uri) {
                Some((Some(v), list)) if *v == version => Some(list.clone()),
                _ => None,
            })
            .map_err(|_| Trouble::Silent(format!("no diagnostics for {name} version {version}")))?;
        // Hover and hints answer from the last whole analysis kept, which
        // comes after the diagnostics: they are compared once it is this
        // version's.
        analysed(server, &uri, version, limit)?;
        let document = json!({"uri": uri});
        let text = editor.open[name].0.clone();
        let mut asked = vec![
            (
                "textDocument/semanticTokens/full",
                json!({"textDocument": document}),
            ),
            (
                "textDocument/documentSymbol",
                json!({"textDocument": document}),
            ),
            (
                "textDocument/inlayHint",
                json!({"textDocument": document, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 100000, "character": 0}}}),
            ),
        ];
        let lines = text_model::line_count(&text);
        for line in (0..lines).step_by(lines / 12 + 1) {
            for character in [0, 4, 9] {
                asked.push(("textDocument/hover", json!({"textDocument": document, "position": {"line": line, "character": character}})));
            }
        }
        let mut answers = vec![json!({"diagnostics": diagnostics})];
        for (method, params) in asked {
            let id = server.request(method, params)?;
            let mut answer = server.answer(id, limit)?;
            answer.as_object_mut().map(|a| a.remove("id"));
            answers.push(json!({method: answer}));
        }
        views.insert(name.clone(), Value::Array(answers));
    }
    Ok(Value::Object(views))
}

/// Waits until hover and inlay hints of `uri` answer from the analysis of
/// `version` (`tensorfit/analysedVersion`).
fn analysed(server: &mut Server, uri: &str, version: i64, limit: Duration) -> Result<(), Trouble> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        let id = server.request("tensorfit/analysedVersion", json!({"uri": uri}))?;
        let answer = server.answer(id, limit)?;
        if answer["result"] == json!(version) {
            return Ok(());
        }
        if std::time::Instant::now() > deadline {
            return Err(Trouble::Silent(format!(
                "the analysis of {uri} version {version} was never kept (still {})",
                answer["result"]
            )));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The session's final view against a fresh server's view of the same
/// texts; both are written beside the texts when they differ.
fn compare_with_fresh(settings: &Settings, editor: &Editor, session: &Value) -> Result<(), String> {
    let mut fresh_editor = Editor {
        root: editor.root.clone(),
        open: BTreeMap::new(),
        versions: BTreeMap::new(),
    };
    let mut server = Server::start(&settings.binary, &editor.root).map_err(|t| format!("{t:?}"))?;
    for (name, (text, _)) in &editor.open {
        open(&mut server, &mut fresh_editor, name, Some(text.clone()))
            .map_err(|t| format!("{t:?}"))?;
    }
    let fresh = view_of(
        &mut server,
        &mut fresh_editor,
        settings.answer_within,
        false,
    )
    .map_err(|t| format!("{t:?}"))?;
    server.stop();
    if *session == fresh {
        return Ok(());
    }
    std::fs::write(editor.root.join("final-view.json"), session.to_string()).ok();
    std::fs::write(editor.root.join("fresh-view.json"), fresh.to_string()).ok();
    for (name, (text, _)) in &editor.open {
        std::fs::write(editor.root.join(format!("final-{name}")), text).ok();
    }
    Err(format!(
        "the session's view differs from a fresh server's (see {}: final-view.json, fresh-view.json, final-*)",
        editor.root.display()
    ))
}
