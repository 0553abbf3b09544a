//! The MCP server's stdio framing: one JSON-RPC 2.0 message per line, checked before rmcp
//! sees it.
//!
//! rmcp's own line transport drops what it cannot use without a word to the client: an
//! unparsable line gets no reply, a request of the wrong shape gets an error without the id
//! that was readable, and a line over its size cap vanishes with only a `tracing` event that
//! nobody subscribes to. JSON-RPC 2.0 asks for an answer to each of these, so goldfish reads
//! stdin itself:
//!
//! - a reader task takes one line at a time, never holding more than the size limit of it in
//!   memory (the rest of an oversized line is skipped as it streams past, its head kept to
//!   answer with the request's id: clients write `jsonrpc` and `id` first);
//! - [`classify`] decides what each line is: a message for rmcp, an error to answer with, or
//!   a bad notification to drop (notifications never get a reply);
//! - errors are answered by the reader itself, through the same writer as rmcp's replies, so
//!   two replies never interleave within a line (a peer that echoes an error back sends a
//!   response, which is never answered, so errors cannot ping-pong);
//! - good messages reach rmcp through a channel, behind rmcp's [`Transport`] trait.
//!
//! A task feeding a channel (rather than reading inside [`Transport::receive`]) keeps a line
//! whole when rmcp drops a `receive` future half-way, which it does whenever a reply becomes
//! ready first.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetMeta as _, ProtocolVersion, ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::{Mutex, mpsc};
use tokio::task::JoinHandle;

/// The default largest message accepted on stdin: 16 MiB, rmcp's own cap, so a message that
/// rmcp accepts over HTTP is accepted here too.
pub(crate) const DEFAULT_MAX_MESSAGE_BYTES: u64 = 16 * 1024 * 1024;

/// How much of the start of an oversized line is kept to find the request's `id` in.
const HEAD_BYTES: usize = 4096;

/// The environment variable that sets the limit (`--max-message-bytes` wins over it).
pub(crate) const MAX_MESSAGE_BYTES_ENV: &str = "GOLDFISH_MCP_MAX_MESSAGE_BYTES";

/// JSON-RPC 2.0 error codes.
mod code {
    /// The line is not JSON.
    pub(super) const PARSE_ERROR: i64 = -32700;
    /// JSON, but not a request object (or a batch, or a message over the size limit).
    pub(super) const INVALID_REQUEST: i64 = -32600;
    /// A request whose `params` do not fit its method.
    pub(super) const INVALID_PARAMS: i64 = -32602;
}

/// How bad a line the reader logs is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Severity {
    /// A message was dropped or refused; the server goes on.
    Warning,
    /// Reading or writing failed.
    Error,
}

/// Where the reader's log lines go: the server sends them to stderr and to the client (this
/// file knows neither, so that the fuzz target can include it alone).
pub(crate) type LogSink = fn(Severity, std::fmt::Arguments<'_>);

/// How the stdio framing behaves.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StdioOptions {
    /// The largest message accepted, in bytes, not counting its line terminator.
    pub(crate) max_message_bytes: u64,
}

impl Default for StdioOptions {
    fn default() -> Self {
        StdioOptions {
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
        }
    }
}

/// The transport over this process's stdin and stdout, its log lines going to `log`. Must be
/// called inside a Tokio runtime with I/O enabled (the reader task starts at once).
pub(crate) fn stdio(options: StdioOptions, log: LogSink) -> LineTransport {
    let (read, write) = rmcp::transport::stdio_pipes();
    LineTransport::new(read, write, options, log)
}

/// The writer shared by the reader task (error replies) and rmcp (everything else); `None`
/// once rmcp has closed the transport.
type SharedWriter = Arc<Mutex<Option<Box<dyn AsyncWrite + Send + Unpin>>>>;

/// An rmcp server transport over a line-delimited byte stream pair, answering malformed input
/// itself (see the module docs).
pub(crate) struct LineTransport {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    writer: SharedWriter,
    reader: JoinHandle<()>,
}

impl LineTransport {
    /// Starts the reader task over `read`; replies go to `write`, log lines to `log`.
    pub(crate) fn new<R, W>(read: R, write: W, options: StdioOptions, log: LogSink) -> Self
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let writer: SharedWriter = Arc::new(Mutex::new(Some(Box::new(write))));
        // A short queue: the reader waits for rmcp rather than buffering messages without end.
        let (sender, incoming) = mpsc::channel(8);
        let reader = tokio::spawn(read_lines(read, sender, Arc::clone(&writer), options, log));
        LineTransport {
            incoming,
            writer,
            reader,
        }
    }
}

impl Drop for LineTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        "goldfish stdio".into()
    }

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = Arc::clone(&self.writer);
        async move {
            let mut line = serde_json::to_vec(&item)?;
            line.push(b'\n');
            write_line(&writer, &line).await
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        let taken = self.writer.lock().await.take();
        match taken {
            Some(mut write) => write.shutdown().await,
            None => Ok(()),
        }
    }
}

/// Writes one whole line and flushes it while holding the writer, so lines never interleave.
async fn write_line(writer: &SharedWriter, line: &[u8]) -> std::io::Result<()> {
    let mut guard = writer.lock().await;
    let Some(write) = guard.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "the MCP transport is closed",
        ));
    };
    write.write_all(line).await?;
    write.flush().await
}

/// What one input line calls for.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// A blank line: nothing.
    Skip,
    /// A message for rmcp.
    Pass(Box<ClientJsonRpcMessage>),
    /// Answer with this JSON-RPC error.
    Reply(ErrorReply),
    /// A notification or a response that cannot be used: log it, never answer it.
    Drop(String),
}

/// The reader task: reads `read` line by line until end of input, answers bad lines through
/// `writer`, hands good messages to `sender` and says what it drops to `log`. Ending drops `sender`, which tells rmcp the
/// client has gone.
async fn read_lines<R>(
    read: R,
    sender: mpsc::Sender<ClientJsonRpcMessage>,
    writer: SharedWriter,
    options: StdioOptions,
    log: LogSink,
) where
    R: AsyncRead + Unpin,
{
    let mut lines = BoundedLines::new(read, options.max_message_bytes);
    let mut session = Session::default();
    loop {
        let verdict = match lines.next().await {
            Ok(Line::Whole(line)) => classify(line),
            Ok(Line::Oversized { bytes, head }) => {
                oversized(bytes, options.max_message_bytes, head)
            }
            Ok(Line::End) => return,
            Err(e) => {
                log(Severity::Error, format_args!("cannot read stdin: {e}"));
                return;
            }
        };
        match verdict {
            Verdict::Skip => {}
            Verdict::Pass(message) => {
                if let Err(why) = session.admit(&message) {
                    log(Severity::Warning, format_args!("ignored a message: {why}"));
                    continue;
                }
                if sender.send(*message).await.is_err() {
                    // rmcp has stopped listening: nothing more to do.
                    return;
                }
            }
            Verdict::Reply(reply) => {
                log(
                    Severity::Warning,
                    format_args!("rejected a message: {}", reply.error.message),
                );
                let mut line = match serde_json::to_vec(&reply) {
                    Ok(line) => line,
                    Err(e) => {
                        log(Severity::Error, format_args!("cannot encode a reply: {e}"));
                        continue;
                    }
                };
                line.push(b'\n');
                if let Err(e) = write_line(&writer, &line).await {
                    log(Severity::Error, format_args!("cannot write to stdout: {e}"));
                    return;
                }
            }
            Verdict::Drop(why) => log(Severity::Warning, format_args!("ignored a message: {why}")),
        }
    }
}

/// Whether the session has started, as far as rmcp is concerned.
///
/// Until a client's first request that starts a session, rmcp stops the whole server when a
/// notification or a response arrives. A client that sends one too early is wrong, but one
/// stray line must not end the session, so such messages are dropped (and logged) until then.
///
/// This is the one place that knows the two protocol eras' ways in (see [`starts_session`]):
/// MCP 2025-11-25 and before start with `initialize`; the stateless 2026-07-28 has no
/// handshake, and its first request that carries its protocol version and capabilities in
/// `_meta` starts the session. rmcp answers the rest and keeps waiting: `ping`,
/// `server/discover`, and a request whose `_meta` is incomplete or names a version the server
/// does not speak (a stateless client then retries with another version, and may first
/// cancel the refused request with a notification, which must not stop the server).
#[derive(Debug, Default)]
struct Session {
    started: bool,
}

impl Session {
    /// `Ok` when `message` may go to rmcp; otherwise why it is dropped.
    fn admit(&mut self, message: &ClientJsonRpcMessage) -> Result<(), String> {
        if self.started {
            return Ok(());
        }
        match message {
            ClientJsonRpcMessage::Request(request) => {
                self.started = starts_session(&request.request);
                Ok(())
            }
            ClientJsonRpcMessage::Notification(_) => Err(
                "a notification before the session started (send `initialize`, or a request \
                     whose `_meta` names a supported protocol version, first)"
                    .into(),
            ),
            ClientJsonRpcMessage::Response(_) | ClientJsonRpcMessage::Error(_) => Err(
                "a response before the session started (the server has asked nothing yet)".into(),
            ),
        }
    }
}

/// Whether rmcp starts a session with `request` (see [`Session`]): `initialize`, or a request
/// other than `ping` and `server/discover` whose `_meta` has what 2026-07-28 requires, naming
/// a version the server speaks (rmcp's own list, the one it answers `server/discover` with).
fn starts_session(request: &ClientRequest) -> bool {
    match request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
        _ => {
            let meta = request.get_meta();
            meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty()
                && meta
                    .protocol_version()
                    .is_some_and(|v| ProtocolVersion::KNOWN_VERSIONS.contains(&v))
        }
    }
}

/// The answer to a message over the limit, and its line on stderr: with the request's id
/// when `head`, the start of the message, holds it (null otherwise, so the client at least
/// hears of it).
fn oversized(bytes: u64, limit: u64, head: &[u8]) -> Verdict {
    Verdict::Reply(error_reply(
        id_in_head(head).unwrap_or(Value::Null),
        code::INVALID_REQUEST,
        format!(
            "Invalid Request: a message of {bytes} bytes exceeds the limit of {limit} bytes and \
             was discarded (raise it with `goldfish mcp --max-message-bytes N` or \
             {MAX_MESSAGE_BYTES_ENV})"
        ),
        Some(json!({ "maxMessageBytes": limit, "messageBytes": bytes })),
    ))
}

/// The `id` of the JSON-RPC message whose text starts with `head` (the rest cut off), when
/// the head holds it whole among the object's first members and it is an id
/// [`classify_object`] would answer with (a string or an integer). The members before it are
/// skipped by a real JSON parser, so an `"id"` inside a string or a nested object is never
/// taken for it.
fn id_in_head(head: &[u8]) -> Option<Value> {
    /// Reads members until `id`, storing its value; stops there.
    struct Seeker<'a>(&'a mut Option<Value>);
    impl<'de> serde::de::Visitor<'de> for Seeker<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON-RPC message (an object)")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<String>()? {
                if key == "id" {
                    *self.0 = Some(map.next_value()?);
                    return Ok(());
                }
                map.next_value::<serde::de::IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut found = None;
    let mut parser = serde_json::Deserializer::from_slice(head);
    let read = serde::Deserializer::deserialize_map(&mut parser, Seeker(&mut found));
    // After the id the parser looks for the object's end: a `,` or `}` there (an error or
    // not) shows the id was whole; the end of the head right after it may have cut a number.
    if read.is_err_and(|e| e.is_eof()) {
        return None;
    }
    found.filter(|id| id.is_string() || id.as_i64().is_some())
}

/// A JSON-RPC error response, its members in the order rmcp writes them.
#[derive(Debug, Serialize)]
pub(crate) struct ErrorReply {
    jsonrpc: &'static str,
    id: Value,
    error: ErrorObject,
}

/// The `error` member of an [`ErrorReply`].
#[derive(Debug, Serialize)]
struct ErrorObject {
    code: i64,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
}

/// A JSON-RPC error response.
fn error_reply(id: Value, code: i64, message: String, data: Option<Value>) -> ErrorReply {
    ErrorReply {
        jsonrpc: "2.0",
        id,
        error: ErrorObject {
            code,
            message,
            data,
        },
    }
}

/// Decides what one line (without its `\n`) is. Pure: the reader task does the I/O. (The
/// fuzz target `mcp_line` includes this file to call it.)
pub(crate) fn classify(line: &[u8]) -> Verdict {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line); // RFC 8259 allows a BOM
    if line.trim_ascii().is_empty() {
        return Verdict::Skip;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => {
            return Verdict::Reply(error_reply(
                Value::Null,
                code::PARSE_ERROR,
                format!("Parse error: the line is not JSON ({e})"),
                None,
            ));
        }
    };
    let object = match value {
        Value::Object(object) => object,
        // JSON-RPC 2.0 batches were removed from MCP in revision 2025-06-18; answering the
        // whole array once is what JSON-RPC prescribes for a batch the server rejects.
        Value::Array(_) => {
            return Verdict::Reply(error_reply(
                Value::Null,
                code::INVALID_REQUEST,
                "Invalid Request: batches (JSON arrays) are not supported; MCP removed JSON-RPC \
                 batching in revision 2025-06-18, send one message per line"
                    .into(),
                None,
            ));
        }
        other => {
            return Verdict::Reply(error_reply(
                Value::Null,
                code::INVALID_REQUEST,
                format!(
                    "Invalid Request: a message must be a JSON object, not {}",
                    kind(&other)
                ),
                None,
            ));
        }
    };
    classify_object(object)
}

/// [`classify`] for a JSON object.
// Long on purpose: one check per JSON-RPC rule, in the order they are applied, read top down.
fn classify_object(object: Map<String, Value>) -> Verdict {
    let id = object.get("id").cloned();
    let method = object.get("method");
    // A notification is a request without an `id` member; it never gets a reply, even when
    // it is wrong. Anything else that is wrong is answered, with the id when it is usable.
    let notification = id.is_none() && method.is_some_and(Value::is_string);
    let invalid = |reply_id: Value, code: i64, message: String| {
        if notification {
            Verdict::Drop(message)
        } else {
            Verdict::Reply(error_reply(reply_id, code, message, None))
        }
    };
    let reply_id = match &id {
        None => Value::Null,
        Some(id @ Value::String(_)) => id.clone(),
        Some(id @ Value::Number(n)) => {
            if n.as_i64().is_none() {
                return invalid(
                    id.clone(),
                    code::INVALID_REQUEST,
                    format!(
                        "Invalid Request: id {n} is not supported; use a string or an integer \
                         between {} and {}",
                        i64::MIN,
                        i64::MAX
                    ),
                );
            }
            id.clone()
        }
        Some(other) => {
            return invalid(
                Value::Null,
                code::INVALID_REQUEST,
                format!(
                    "Invalid Request: `id` must be a string or an integer, not {}",
                    kind(other)
                ),
            );
        }
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(
            reply_id,
            code::INVALID_REQUEST,
            "Invalid Request: `jsonrpc` must be \"2.0\"".into(),
        );
    }
    let Some(method) = method else {
        if object.contains_key("result") || object.contains_key("error") {
            // A response to one of the server's own requests: JSON-RPC never answers a
            // response, so one that cannot be read is only logged.
            return match serde_json::from_value(Value::Object(object)) {
                Ok(message) => Verdict::Pass(Box::new(message)),
                Err(e) => Verdict::Drop(format!("an unreadable response ({e})")),
            };
        }
        return invalid(
            reply_id,
            code::INVALID_REQUEST,
            "Invalid Request: a request needs a `method`".into(),
        );
    };
    let Some(method) = method.as_str() else {
        return invalid(
            reply_id,
            code::INVALID_REQUEST,
            format!(
                "Invalid Request: `method` must be a string, not {}",
                kind(method)
            ),
        );
    };
    let method = method.to_owned();
    // `"params": null` is read as no params, as rmcp always has: clients send it.
    if let Some(params) = object
        .get("params")
        .filter(|p| !p.is_object() && !p.is_null())
    {
        return invalid(
            reply_id,
            code::INVALID_PARAMS,
            format!(
                "Invalid params for `{method}`: `params` must be an object (MCP passes \
                 parameters by name), not {}",
                kind(params)
            ),
        );
    }
    // rmcp reads a standard method whose params do not fit as a custom request and answers
    // it with "method not found"; reading it as its own type first gives the real error.
    if !notification && let Some(e) = standard_params_error(&method, &object) {
        return invalid(
            reply_id,
            code::INVALID_PARAMS,
            format!("Invalid params for `{method}`: {e}"),
        );
    }
    match serde_json::from_value(Value::Object(object)) {
        Ok(message) => Verdict::Pass(Box::new(message)),
        Err(e) => invalid(
            reply_id,
            code::INVALID_PARAMS,
            format!("Invalid params for `{method}`: {e}"),
        ),
    }
}

// Deprecated by rmcp for the 2026-07-28 revision (logging, resource subscriptions); the
// revisions before it send these requests.
#[allow(deprecated)]
/// Why `request`'s params do not fit `method`, when `method` is one of the MCP requests a
/// client sends to a server; `None` when they fit or the method is not one of them.
fn standard_params_error(method: &str, request: &Map<String, Value>) -> Option<String> {
    use rmcp::model::{
        CallToolRequest, CompleteRequest, GetPromptRequest, InitializeRequest, ListPromptsRequest,
        ListResourceTemplatesRequest, ListResourcesRequest, ListToolsRequest, PingRequest,
        ReadResourceRequest, SetLevelRequest, SubscribeRequest, UnsubscribeRequest,
    };
    fn check<T: serde::de::DeserializeOwned>(value: Value) -> Option<String> {
        serde_json::from_value::<T>(value)
            .err()
            .map(|e| e.to_string())
    }
    let mut value = Map::new();
    for key in ["method", "params"] {
        if let Some(v) = request.get(key) {
            value.insert(key.into(), v.clone());
        }
    }
    let value = Value::Object(value);
    match method {
        "initialize" => check::<InitializeRequest>(value),
        "ping" => check::<PingRequest>(value),
        "tools/list" => check::<ListToolsRequest>(value),
        "tools/call" => check::<CallToolRequest>(value),
        "prompts/list" => check::<ListPromptsRequest>(value),
        "prompts/get" => check::<GetPromptRequest>(value),
        "completion/complete" => check::<CompleteRequest>(value),
        "resources/list" => check::<ListResourcesRequest>(value),
        "resources/templates/list" => check::<ListResourceTemplatesRequest>(value),
        "resources/read" => check::<ReadResourceRequest>(value),
        "resources/subscribe" => check::<SubscribeRequest>(value),
        "resources/unsubscribe" => check::<UnsubscribeRequest>(value),
        // An unknown level is named by serde: "unknown variant `loud`, expected one of …".
        "logging/setLevel" => check::<SetLevelRequest>(value),
        _ => None,
    }
}

/// "an array", "a number", … for error messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// One read from [`BoundedLines`].
#[derive(Debug, PartialEq)]
enum Line<'a> {
    /// A line within the limit, without its `\n` (a final line may lack one).
    Whole(&'a [u8]),
    /// A line over the limit, already skipped; `bytes` is its length without the `\n`,
    /// `head` its first [`HEAD_BYTES`] bytes (fewer when it is shorter).
    Oversized { bytes: u64, head: &'a [u8] },
    /// End of input.
    End,
}

/// Splits a byte stream into `\n`-terminated lines, holding at most `limit` bytes of one
/// (and at most [`HEAD_BYTES`] of one over the limit).
struct BoundedLines<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    limit: u64,
}

impl<R: AsyncRead + Unpin> BoundedLines<R> {
    fn new(read: R, limit: u64) -> Self {
        BoundedLines {
            read: BufReader::with_capacity(64 * 1024, read),
            line: Vec::new(),
            limit,
        }
    }

    /// The next line. Not cancellation safe (the reader task never drops it half-way).
    async fn next(&mut self) -> std::io::Result<Line<'_>> {
        self.line.clear();
        // Bytes of the current line seen so far, kept or not.
        let mut seen: u64 = 0;
        let mut over = false;
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(match (over, seen) {
                    (true, bytes) => Line::Oversized {
                        bytes,
                        head: &self.line,
                    },
                    (false, 0) => Line::End,
                    (false, _) => Line::Whole(&self.line),
                });
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let content = &available[..newline.unwrap_or(available.len())];
            seen = seen.saturating_add(content.len() as u64);
            if !over && seen > self.limit {
                // Past the limit: keep only the head, give the rest of the memory back; the
                // rest of the line is counted and skipped as it arrives.
                over = true;
                self.line.truncate(HEAD_BYTES);
                self.line.shrink_to_fit();
            }
            if over {
                let room = HEAD_BYTES
                    .saturating_sub(self.line.len())
                    .min(content.len());
                self.line.extend_from_slice(&content[..room]);
            } else {
                self.line.extend_from_slice(content);
            }
            let consumed = newline.map_or(available.len(), |at| at + 1);
            self.read.consume(consumed);
            if newline.is_some() {
                return Ok(if over {
                    Line::Oversized {
                        bytes: seen,
                        head: &self.line,
                    }
                } else {
                    Line::Whole(&self.line)
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error code and id of a reply, or a description of what else came out.
    fn reply(line: &str) -> Result<(i64, Value), String> {
        match classify(line.as_bytes()) {
            Verdict::Reply(r) => Ok((r.error.code, r.id)),
            other => Err(format!("{line}: want a reply, got {other:?}")),
        }
    }

    #[test]
    fn bad_lines_get_the_json_rpc_error_with_the_readable_id() {
        let cases: &[(&str, i64, Value)] = &[
            ("{not json", -32700, Value::Null),
            ("\u{feff}{\"jsonrpc\":", -32700, Value::Null),
            ("42", -32600, Value::Null),
            ("\"x\"", -32600, Value::Null),
            ("null", -32600, Value::Null),
            ("[]", -32600, Value::Null),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                -32600,
                Value::Null,
            ),
            ("{}", -32600, Value::Null),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[]}"#,
                -32602,
                json!(7),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":"x"}"#,
                -32602,
                json!("a"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":8,"method":"tools/call"}"#,
                -32602,
                json!(8),
            ),
            (
                r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":5}}"#,
                -32602,
                json!(9),
            ),
            (
                r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
                -32600,
                json!(3),
            ),
            (r#"{"id":3,"method":"ping"}"#, -32600, json!(3)),
            (r#"{"jsonrpc":"2.0","id":4,"method":7}"#, -32600, json!(4)),
            (r#"{"jsonrpc":"2.0","method":7}"#, -32600, Value::Null),
            (r#"{"jsonrpc":"2.0","id":5}"#, -32600, json!(5)),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                -32600,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#,
                -32600,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                -32600,
                json!(1.5),
            ),
        ];
        for (line, want_code, want_id) in cases {
            assert_eq!(
                reply(line),
                Ok((*want_code, want_id.clone())),
                "line: {line}"
            );
        }
    }

    #[test]
    fn notifications_and_blank_lines_are_never_answered() {
        for line in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}"#,
            r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
            r#"{"method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","result":{"x":[1]}}"#,
        ] {
            assert!(
                matches!(
                    classify(line.as_bytes()),
                    Verdict::Drop(_) | Verdict::Pass(_)
                ),
                "{line}"
            );
        }
        for line in ["", "   ", "\r", "\u{feff}"] {
            assert!(
                matches!(classify(line.as_bytes()), Verdict::Skip),
                "{line:?}"
            );
        }
    }

    #[test]
    fn good_messages_pass_to_rmcp() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"s","method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method","params":{"a":1}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"progressToken":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"recall"}}"#,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"no"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\r",
        ] {
            assert!(
                matches!(classify(line.as_bytes()), Verdict::Pass(_)),
                "{line}"
            );
        }
    }

    #[test]
    fn nothing_but_requests_reaches_rmcp_before_the_session_starts() {
        let message = |line: &str| match classify(line.as_bytes()) {
            Verdict::Pass(message) => *message,
            other => panic!("{line}: want a message, got {other:?}"),
        };
        let notification = message(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let response = message(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#);
        let meta = |version: &str| {
            format!(
                r#"{{"io.modelcontextprotocol/protocolVersion":"{version}","io.modelcontextprotocol/clientCapabilities":{{}}}}"#
            )
        };
        // rmcp answers each of these and keeps waiting for a session to start.
        let not_starting = [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_string(),
            format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{{"_meta":{}}}}}"#,
                meta("2026-07-28")
            ),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#.to_string(),
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.to_string(),
            format!(
                r#"{{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{{"_meta":{}}}}}"#,
                meta("2099-01-01")
            ),
        ];
        let starting = [
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_string(),
            format!(
                r#"{{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{{"_meta":{}}}}}"#,
                meta("2026-07-28")
            ),
        ];
        for start in &starting {
            let mut session = Session::default();
            assert!(session.admit(&notification).is_err());
            assert!(session.admit(&response).is_err());
            for line in &not_starting {
                assert!(session.admit(&message(line)).is_ok(), "{line}");
                assert!(
                    session.admit(&notification).is_err(),
                    "{line} started a session"
                );
            }
            assert!(session.admit(&message(start)).is_ok());
            assert!(session.admit(&notification).is_ok(), "{start}");
            assert!(session.admit(&response).is_ok(), "{start}");
        }
    }

    #[test]
    fn the_oversized_reply_names_the_limit_and_the_setting() {
        let Verdict::Reply(reply) = oversized(20, 10, b"{\"method\":\"ping\",\"params\":{") else {
            panic!("want a reply")
        };
        let v = serde_json::to_value(&reply).expect("a reply always serialises");
        assert_eq!(v["id"], Value::Null);
        assert_eq!(v["error"]["code"], json!(-32600));
        assert_eq!(v["error"]["data"]["maxMessageBytes"], json!(10));
        let message = v["error"]["message"].as_str().unwrap_or_default();
        for needle in [
            "20 bytes",
            "limit of 10 bytes",
            "--max-message-bytes",
            MAX_MESSAGE_BYTES_ENV,
        ] {
            assert!(message.contains(needle), "{needle} in {message}");
        }
    }

    /// Every line of `input` as `BoundedLines` reads it with `limit`, through a reader that
    /// hands out `chunk` bytes at a time.
    async fn lines(input: &[u8], limit: u64, chunk: usize) -> Vec<String> {
        // A byte slice is an `AsyncRead`; the small buffer cuts it into `chunk`-byte reads.
        let mut lines = BoundedLines {
            read: BufReader::with_capacity(chunk, input),
            line: Vec::new(),
            limit,
        };
        let mut out = Vec::new();
        loop {
            match lines.next().await.expect("reading from memory cannot fail") {
                Line::Whole(l) => out.push(String::from_utf8_lossy(l).into_owned()),
                Line::Oversized { bytes, head } => out.push(format!(
                    "<{bytes} bytes: {}>",
                    String::from_utf8_lossy(head)
                )),
                Line::End => return out,
            }
        }
    }

    #[test]
    fn lines_over_the_limit_are_skipped_and_counted_and_reading_goes_on() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime without drivers always builds");
        let input = b"abc\nabcdefghijk\nabcd\n\nabcde\nxyz";
        for chunk in [1, 2, 3, 7, 64] {
            let got = runtime.block_on(lines(input, 4, chunk));
            assert_eq!(
                got,
                [
                    "abc",
                    "<11 bytes: abcdefghijk>",
                    "abcd",
                    "",
                    "<5 bytes: abcde>",
                    "xyz"
                ],
                "chunk {chunk}"
            );
        }
        let got = runtime.block_on(lines(b"abcdefgh", 4, 3));
        assert_eq!(got, ["<8 bytes: abcdefgh>"]);
    }

    #[test]
    fn the_id_is_read_from_the_head_of_an_oversized_message_when_it_is_whole_there() {
        let cases: &[(&str, Option<Value>)] = &[
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":"#,
                Some(json!(1)),
            ),
            (
                r#"{"id":"req-7","jsonrpc":"2.0","method":"tools/call","params":{"#,
                Some(json!("req-7")),
            ),
            (
                "\u{feff} { \"jsonrpc\" : \"2.0\" , \"id\" : -3 , \"par",
                Some(json!(-3)),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a\"b","method":"x","#,
                Some(json!("a\"b")),
            ),
            // After a member with nested values and an `"id"` that is only text.
            (
                r#"{"jsonrpc":"2.0","meta":{"id":9,"a":[1,{"id":8}]},"note":"\"id\":7","id":42,"p"#,
                Some(json!(42)),
            ),
            (r#"{"jsonrpc":"2.0","id":5}"#, Some(json!(5))),
            // The head ends inside or right after the id: the id may be longer.
            (r#"{"jsonrpc":"2.0","id":12"#, None),
            (r#"{"jsonrpc":"2.0","id":"abc"#, None),
            (r#"{"jsonrpc":"2.0","id":"#, None),
            // No id before the cut, or none a reply could carry.
            (
                r#"{"jsonrpc":"2.0","method":"tools/call","params":{"pad":"xxxx"#,
                None,
            ),
            (r#"{"jsonrpc":"2.0","id":null,"method":"x","#, None),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"x","#, None),
            (r#"{"jsonrpc":"2.0","id":{"n":1},"method":"x","#, None),
            (r#"[{"jsonrpc":"2.0","id":1,"#, None),
            ("not json at all", None),
            ("", None),
        ];
        for (head, want) in cases {
            assert_eq!(id_in_head(head.as_bytes()), *want, "head: {head}");
        }
    }

    #[test]
    fn a_long_line_read_in_many_chunks_is_counted_whole() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime without drivers always builds");
        let mut input = vec![b'x'; 1 << 20];
        input.extend_from_slice(b"\nok\n");
        runtime.block_on(async {
            let mut lines = BoundedLines {
                read: BufReader::with_capacity(4096, input.as_slice()),
                line: Vec::new(),
                limit: 10_000,
            };
            let first = lines.next().await.expect("memory");
            assert_eq!(
                first,
                Line::Oversized {
                    bytes: 1 << 20,
                    head: &[b'x'; HEAD_BYTES]
                }
            );
            assert_eq!(lines.next().await.expect("memory"), Line::Whole(b"ok"));
        });
    }
}
