//! The byte streams between the editor and the server.
//!
//! tower-lsp-server stops reading for good at the first message it cannot
//! decode: it answers an error and the session ends (exit 0, which editors
//! take for a clean stop). A client bug, a truncated write or a lone UTF-16
//! surrogate must cost one error answer, not the session. So a filter sits
//! in front of it: every frame is read here, checked against the very types
//! tower-lsp-server decodes (its `Request` and `Response`), and only frames
//! it will accept are passed on. The others are answered here, and the
//! error answers are merged with the server's own output frame by frame.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tower_lsp_server::jsonrpc::{Request, Response};
use tower_lsp_server::{ClientSocket, LspService};

use crate::Server;

/// A message larger than this is skipped unread (the largest document a
/// file can hold is far smaller: imports stop at 8 MiB).
pub const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// A header line longer than this is not a header: the stream is resynced.
const MAX_HEADER_LINE: usize = 4096;

/// How long after the end of its input the server goes on answering the
/// requests it has (a client that writes its requests and closes its end
/// still reads the answers); then it stops whatever is pending.
const ANSWERS_AFTER_INPUT_ENDS: Duration = Duration::from_secs(10);

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionEnd {
    /// The client sent `exit`, after `shutdown` or not.
    Exit { after_shutdown: bool },
    /// The input ended (the client closed it or went away).
    EndOfInput,
}

impl SessionEnd {
    /// The process's exit status: LSP asks for 0 on `exit` after
    /// `shutdown` and 1 on `exit` without it; the end of input is no
    /// error of the server's.
    pub fn exit_code(self) -> i32 {
        match self {
            SessionEnd::Exit {
                after_shutdown: false,
            } => 1,
            SessionEnd::Exit { .. } | SessionEnd::EndOfInput => 0,
        }
    }
}

/// Serves the LSP `service` on `input`/`output` until the client exits or
/// closes `input`. Malformed messages are answered and skipped.
///
/// On `exit` it returns at once, whatever is pending; at the end of the
/// input, once the server has answered what it was asked (at most
/// [`ANSWERS_AFTER_INPUT_ENDS`]): a request the server made of the client
/// (a registration) can never be answered then, and must not keep the
/// process alive.
pub async fn serve<I, O>(
    input: I,
    output: O,
    service: LspService<Server>,
    socket: ClientSocket,
) -> SessionEnd
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (to_server, server_input) = tokio::io::duplex(1 << 16);
    // Room for a large answer in one write (a whole file's inlay hints are
    // 200 KB on 1,000 functions): through a 64 KiB pipe, the writer and
    // the merge took turns, a wake-up each. The buffer grows only as
    // needed.
    let (server_output, from_server) = tokio::io::duplex(1 << 20);
    let (answers, answered) = mpsc::unbounded_channel();
    let mut filter = tokio::spawn(filter_input(BufReader::new(input), to_server, answers));
    let merge = tokio::spawn(merge_output(BufReader::new(from_server), answered, output));
    let server = tower_lsp_server::Server::new(server_input, server_output, socket)
        // Slow reads must not keep edits waiting for a slot.
        .concurrency_level(64)
        .serve(service);
    tokio::pin!(server);
    let end = tokio::select! {
        end = &mut filter => end.unwrap_or(SessionEnd::EndOfInput),
        // The server stopped reading first (it saw `exit`): the filter
        // tells how the session ended.
        () = &mut server => match tokio::time::timeout(Duration::from_secs(1), &mut filter).await {
            Ok(Ok(end)) => end,
            _ => SessionEnd::EndOfInput,
        },
    };
    filter.abort();
    if end == SessionEnd::EndOfInput {
        // The answers still owed, for a while.
        let _ = tokio::time::timeout(ANSWERS_AFTER_INPUT_ENDS, &mut server).await;
    }
    // What the server has written goes out; then the session is over.
    let _ = tokio::time::timeout(Duration::from_millis(200), merge).await;
    end
}

/// What one frame of the input turned out to be.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A body, `Content-Length` bytes.
    Body(Vec<u8>),
    /// Headers without a usable length, or a length over the limit (the
    /// body was skipped): the stream goes on at the next header.
    Unframed,
    /// The end of the stream.
    End,
}

/// Reads the next frame. A broken frame is skipped up to the next
/// `Content-Length` header, so one bad write does not lose the stream.
pub async fn read_frame<R: AsyncBufRead + Unpin>(input: &mut R) -> std::io::Result<Frame> {
    let mut length: Option<usize> = None;
    let mut broken = false;
    let mut seen_header = false;
    loop {
        let Some(line) = read_header_line(input).await? else {
            return Ok(Frame::End);
        };
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if !seen_header {
                continue; // stray blank lines between frames
            }
            break;
        }
        seen_header = true;
        // A header may follow the remains of a broken frame on its line.
        let lower = line.to_ascii_lowercase();
        if let Some(at) = lower.find("content-length:") {
            if at > 0 {
                broken = false; // a new frame starts here: resynced
            }
            length = line[at + "content-length:".len()..].trim().parse().ok();
            broken |= length.is_none();
        } else if !line.contains(':') {
            broken = true;
        }
    }
    match length {
        Some(length) if length <= MAX_MESSAGE_BYTES && !broken => {
            let mut body = vec![0; length];
            input.read_exact(&mut body).await?;
            Ok(Frame::Body(body))
        }
        Some(length) if length > MAX_MESSAGE_BYTES => {
            let mut body = input.take(length as u64);
            tokio::io::copy(&mut body, &mut tokio::io::sink()).await?;
            Ok(Frame::Unframed)
        }
        _ => Ok(Frame::Unframed),
    }
}

/// One line (with its `\n`), at most [`MAX_HEADER_LINE`] bytes of it kept;
/// `None` at the end of the stream.
async fn read_header_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok((!line.is_empty()).then_some(line));
        }
        let (taken, done) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        let room = MAX_HEADER_LINE.saturating_sub(line.len());
        line.extend_from_slice(&available[..taken.min(room)]);
        input.consume(taken);
        if done {
            return Ok(Some(line));
        }
    }
}

/// What to do with a body read from the editor.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Pass it on (possibly repaired).
    Accept(Vec<u8>),
    /// Do not pass it on; send this answer instead.
    Answer(Value),
}

/// Whether tower-lsp-server will take `body`, and if not, the answer. A
/// body that is not JSON only because of lone UTF-16 surrogates (which
/// JavaScript clients send for half a character) has them replaced by
/// U+FFFD, one UTF-16 unit for one, so positions stay the editor's.
pub fn judge(body: &[u8]) -> Verdict {
    // The common case costs one parse, as the server's own types read it.
    if decodes(body) {
        return Verdict::Accept(body.to_vec());
    }
    let repaired = replace_lone_surrogates(body);
    if repaired != body && decodes(&repaired) {
        return Verdict::Accept(repaired);
    }
    let Ok(value) = serde_json::from_slice::<Value>(&repaired) else {
        return Verdict::Answer(error_answer(Value::Null, -32700, "Parse error"));
    };
    // The id, if the message has a usable one, so the client can match
    // the answer to its request.
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    Verdict::Answer(error_answer(id, -32600, "Invalid request"))
}

/// Whether tower-lsp-server's decoder takes `body` (a request or
/// notification from the editor, or an answer to one of the server's).
fn decodes(body: &[u8]) -> bool {
    serde_json::from_slice::<Request>(body).is_ok()
        || serde_json::from_slice::<Response>(body).is_ok()
}

fn error_answer(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": id})
}

/// `\uD800`–`\uDFFF` escapes that are not a high surrogate followed by a
/// low one, replaced by `\uFFFD`. Only escapes inside strings are touched.
fn replace_lone_surrogates(body: &[u8]) -> Vec<u8> {
    let surrogate = |at: usize| -> Option<u16> {
        let digits = body.get(at..at + 6)?;
        if digits[0] != b'\\' || digits[1] != b'u' {
            return None;
        }
        let code = u16::from_str_radix(std::str::from_utf8(&digits[2..]).ok()?, 16).ok()?;
        (0xD800..=0xDFFF).contains(&code).then_some(code)
    };
    let mut out = Vec::with_capacity(body.len());
    let mut in_string = false;
    let mut at = 0;
    while at < body.len() {
        let byte = body[at];
        if !in_string {
            in_string = byte == b'"';
            out.push(byte);
            at += 1;
            continue;
        }
        match byte {
            b'"' => in_string = false,
            b'\\' => {
                if let Some(code) = surrogate(at) {
                    let pair = (0xD800..0xDC00).contains(&code)
                        && surrogate(at + 6).is_some_and(|low| low >= 0xDC00);
                    if pair {
                        out.extend_from_slice(&body[at..at + 12]);
                        at += 12;
                    } else {
                        out.extend_from_slice(br"\uFFFD");
                        at += 6;
                    }
                    continue;
                }
                // Any other escape: keep it and the character it escapes.
                out.extend_from_slice(&body[at..(at + 2).min(body.len())]);
                at += 2;
                continue;
            }
            _ => {}
        }
        out.push(byte);
        at += 1;
    }
    out
}

/// Reads the editor's frames and passes on those the server will decode;
/// the others are answered through `answers`. Returns at `exit` or at the
/// end of the input.
async fn filter_input<R, W>(
    mut input: R,
    mut to_server: W,
    answers: mpsc::UnboundedSender<Value>,
) -> SessionEnd
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut after_shutdown = false;
    loop {
        let frame = match read_frame(&mut input).await {
            Ok(Frame::Body(body)) => body,
            Ok(Frame::Unframed) => {
                let _ = answers.send(error_answer(Value::Null, -32700, "Parse error"));
                continue;
            }
            Ok(Frame::End) | Err(_) => break,
        };
        match judge(&frame) {
            Verdict::Accept(body) => {
                let method = method_of(&body);
                if write_frame(&mut to_server, &body).await.is_err() {
                    break; // the server has stopped reading
                }
                match method.as_deref() {
                    Some("shutdown") => after_shutdown = true,
                    Some("exit") => return SessionEnd::Exit { after_shutdown },
                    _ => {}
                }
            }
            Verdict::Answer(answer) => {
                let _ = answers.send(answer);
            }
        }
    }
    // Dropping `to_server` ends the server's input, as the editor's did.
    SessionEnd::EndOfInput
}

/// The `method` of a request or notification whose body the server takes.
fn method_of(body: &[u8]) -> Option<String> {
    // Only short bodies can be `shutdown` or `exit`: a document's text is
    // not read twice.
    if body.len() > 512 {
        return None;
    }
    serde_json::from_slice::<Request>(body)
        .ok()
        .map(|request| request.method().to_owned())
}

/// Writes the server's frames and the filter's answers to `output`, each
/// frame whole.
async fn merge_output<R, W>(
    mut from_server: R,
    mut answered: mpsc::UnboundedReceiver<Value>,
    mut output: W,
) where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut server_open = true;
    loop {
        let body = tokio::select! {
            frame = read_frame(&mut from_server), if server_open => match frame {
                Ok(Frame::Body(body)) => body,
                Ok(Frame::Unframed) => continue,
                Ok(Frame::End) | Err(_) => {
                    server_open = false;
                    continue;
                }
            },
            answer = answered.recv() => match answer {
                Some(answer) => answer.to_string().into_bytes(),
                None if server_open => {
                    // The filter has stopped; the server's last frames remain.
                    while let Ok(Frame::Body(body)) = read_frame(&mut from_server).await {
                        if write_frame(&mut output, &body).await.is_err() {
                            return;
                        }
                    }
                    return;
                }
                None => return,
            },
        };
        if write_frame(&mut output, &body).await.is_err() {
            return; // the editor has gone
        }
    }
}

async fn write_frame<W: AsyncWrite + Unpin>(output: &mut W, body: &[u8]) -> std::io::Result<()> {
    let header = format!("Content-Length: {}\r\n\r\n", body.len());
    output.write_all(header.as_bytes()).await?;
    output.write_all(body).await?;
    output.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(stream: &[u8]) -> Vec<Frame> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut input = BufReader::new(stream);
            let mut out = Vec::new();
            loop {
                let frame = read_frame(&mut input).await.unwrap();
                let end = frame == Frame::End;
                out.push(frame);
                if end {
                    return out;
                }
            }
        })
    }

    #[test]
    fn a_frame_with_a_bad_length_is_skipped_up_to_the_next_header() {
        let stream = b"Content-Length: abc\r\n\r\n{}Content-Length: 2\r\n\r\n[]";
        assert_eq!(
            frames(stream),
            [Frame::Unframed, Frame::Body(b"[]".to_vec()), Frame::End]
        );
    }

    #[test]
    fn other_headers_and_blank_lines_between_frames_are_allowed() {
        let stream = b"\r\nContent-Type: x\r\nContent-Length: 1\r\n\r\n1\n\nContent-Length: 1\n\n2";
        assert_eq!(
            frames(stream),
            [
                Frame::Body(b"1".to_vec()),
                Frame::Body(b"2".to_vec()),
                Frame::End
            ]
        );
    }

    #[test]
    fn lone_surrogates_become_replacement_characters_and_pairs_stay() {
        let body = br#"{"a":"x\ud800y","b":"\ud83d\ude00","c":"\\ud800","d":"\udc00"}"#;
        let repaired = replace_lone_surrogates(body);
        assert_eq!(
            String::from_utf8(repaired).unwrap(),
            r#"{"a":"x\uFFFDy","b":"\ud83d\ude00","c":"\\ud800","d":"\uFFFD"}"#
        );
    }

    #[test]
    fn bodies_are_judged_as_the_server_would_decode_them() {
        let request = br#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
        assert_eq!(judge(request), Verdict::Accept(request.to_vec()));
        let no_version = br#"{"id":7,"method":"shutdown"}"#;
        assert_eq!(
            judge(no_version),
            Verdict::Answer(error_answer(json!(7), -32600, "Invalid request"))
        );
        assert_eq!(
            judge(br#"{"jsonrpc": "2.0", "id": 5, "meth"#),
            Verdict::Answer(error_answer(Value::Null, -32700, "Parse error"))
        );
        let surrogate = br#"{"jsonrpc":"2.0","method":"x","params":"\ud800"}"#;
        assert!(matches!(judge(surrogate), Verdict::Accept(_)));
    }
}
