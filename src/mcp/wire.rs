//! The stdio wire: newline-delimited JSON-RPC, read and written by us so that every line a
//! client sends gets an answer that says what was wrong.
//!
//! rmcp's own line transport drops unparseable lines silently (the client then waits for
//! an answer that never comes) and answers a malformed message with -32600 and no `id`.
//! This transport answers, as JSON-RPC 2.0 says:
//! - a line that is not UTF-8 or not JSON (garbage, a lone surrogate, nesting deeper than
//!   serde's limit of 128): `-32700 Parse error`, `"id": null`;
//! - a line over [`super::MAX_MESSAGE_BYTES`]: dropped unread (never buffered whole), then
//!   `-32600`, `"id": null`;
//! - JSON that is no MCP message: `-32600` with the message's `id` when it has one;
//! - a request before any lifecycle began: [`NOT_INITIALIZED`] naming the fix. Both MCP
//!   lifecycles open a session: 2025-11-25's `initialize` handshake, and 2026-07-28's
//!   handshake-free one (`server/discover` is answered at any time; a request whose `_meta`
//!   names its protocol version starts it). Notifications sent before either have nobody
//!   to answer and are dropped (logged).
//!
//! Every error written, ours or rmcp's, is screened first ([`super::echo`]: client strings
//! scanned and clipped). Everything else is handed to rmcp unchanged. Writes go through one mutex so the error
//! answers written here never interleave with rmcp's responses.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ClientRequest, GetMeta, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// JSON-RPC error code for "request before initialize" (the code LSP uses).
pub const NOT_INITIALIZED: i64 = -32002;

/// Newline-delimited JSON-RPC over any reader and writer (stdin/stdout for `serve`).
pub struct LineTransport<R, W> {
    reader: BufReader<R>,
    writer: Arc<Mutex<W>>,
    max_line: usize,
    initialized: bool,
    /// The lifecycle began with a request carrying its own protocol version (2026-07-28):
    /// a later `initialize` is refused, not half-applied.
    per_request: bool,
    /// The line read so far. It lives here, not in the reading future, because rmcp polls
    /// `receive` inside a `select!` and drops it whenever another branch wins: state
    /// kept in the future would lose the bytes already consumed.
    partial: Vec<u8>,
    /// True while the rest of an over-long line is being skipped.
    discarding: bool,
    /// Error answers written here, each its own task: rmcp drops `receive` whenever
    /// another branch of its `select!` wins, and an answer awaited inside it (waiting
    /// for the writer while a response is written) was lost with it — the line already
    /// consumed, the client waiting for ever. Drained before end of input is reported.
    pending: tokio::task::JoinSet<()>,
}

enum Line {
    Eof,
    TooLong,
    Bytes(Vec<u8>),
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport reading messages of at most `max_line` bytes from `reader`.
    pub fn new(reader: R, writer: W, max_line: usize) -> Self {
        LineTransport {
            reader: BufReader::new(reader),
            writer: Arc::new(Mutex::new(writer)),
            max_line,
            initialized: false,
            per_request: false,
            partial: Vec::new(),
            discarding: false,
            pending: tokio::task::JoinSet::new(),
        }
    }

    /// The next line without its newline; an over-long line is consumed, not kept.
    /// Cancel-safe: the only await is `fill_buf`, and progress is kept in `self`.
    async fn read_line(&mut self) -> std::io::Result<Line> {
        loop {
            let avail = self.reader.fill_buf().await?;
            if avail.is_empty() {
                let partial = std::mem::take(&mut self.partial);
                return Ok(
                    match (std::mem::take(&mut self.discarding), partial.is_empty()) {
                        (true, _) => Line::TooLong,
                        (false, true) => Line::Eof,
                        (false, false) => Line::Bytes(partial),
                    },
                );
            }
            let (take, done) = match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (avail.len(), false),
            };
            if !self.discarding {
                if self.partial.len() + take > self.max_line {
                    self.discarding = true;
                    self.partial = Vec::new();
                } else {
                    self.partial.extend_from_slice(&avail[..take]);
                }
            }
            self.reader.consume(take + usize::from(done));
            if done {
                let line = std::mem::take(&mut self.partial);
                return Ok(if std::mem::take(&mut self.discarding) {
                    Line::TooLong
                } else {
                    Line::Bytes(line)
                });
            }
        }
    }

    /// Answers a message rmcp never sees, in a task of its own (see `pending`): the
    /// answer is written even if the caller's future is dropped.
    fn answer(&mut self, id: Value, code: i64, message: String) {
        while self.pending.try_join_next().is_some() {}
        self.pending.spawn(self.answer_error(id, code, message));
    }

    /// The answer's writing. Holds only the writer (not `self`), so the future stays
    /// `Send` and `'static` whatever the reader is.
    fn answer_error(
        &self,
        id: Value,
        code: i64,
        message: String,
    ) -> impl Future<Output = ()> + Send + 'static {
        let writer = self.writer.clone();
        let message = super::echo::message(&message);
        async move {
            let reply =
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
            let mut line = reply.to_string().into_bytes();
            line.push(b'\n');
            let mut w = writer.lock().await;
            if let Err(e) = async {
                w.write_all(&line).await?;
                w.flush().await
            }
            .await
            {
                tracing::warn!("could not answer a bad message: {e}");
            }
        }
    }

    /// Turns one line into a message for rmcp, or answers it here and returns `None`.
    async fn classify(&mut self, bytes: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t.trim(),
            Err(e) => {
                let msg = format!("Parse error: the message is not UTF-8 ({e})");
                self.answer(Value::Null, -32700, msg);
                return None;
            }
        };
        if text.is_empty() {
            return None;
        }
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                let msg = format!("Parse error: {e}. Send one JSON-RPC object per line");
                self.answer(Value::Null, -32700, msg);
                return None;
            }
        };
        let id = value
            .get("id")
            .filter(|i| i.is_string() || i.is_number())
            .cloned()
            .unwrap_or(Value::Null);
        let msg: RxJsonRpcMessage<RoleServer> = match serde_json::from_value(value) {
            Ok(m) => m,
            Err(e) => {
                let msg = format!(
                    "Invalid request: {e}. Send a JSON-RPC 2.0 request, notification or response"
                );
                self.answer(id, -32600, msg);
                return None;
            }
        };
        if self.per_request
            && let JsonRpcMessage::Request(r) = &msg
            && matches!(r.request, ClientRequest::InitializeRequest(_))
        {
            let msg = "this stream already speaks MCP 2026-07-28 (a request carried \
                       `io.modelcontextprotocol/protocolVersion` in `_meta`), so `initialize` \
                       is refused; go on with per-request `_meta`, or open a new stream for \
                       the 2025-11-25 handshake"
                .to_string();
            self.answer(id, -32600, msg);
            return None;
        }
        if !self.initialized {
            match &msg {
                JsonRpcMessage::Request(r) => match opening(&r.request) {
                    Opening::Starts => {
                        self.initialized = true;
                        self.per_request =
                            !matches!(r.request, ClientRequest::InitializeRequest(_));
                    }
                    Opening::Probe => {}
                    Opening::Refused => {
                        let msg = format!(
                            "not initialized: send `initialize` first (MCP 2025-11-25), or \
                             `server/discover` and requests whose `_meta` carries \
                             `io.modelcontextprotocol/protocolVersion` (MCP 2026-07-28); `{}` \
                             was not run",
                            r.request.method()
                        );
                        self.answer(id, NOT_INITIALIZED, msg);
                        return None;
                    }
                },
                _ => {
                    tracing::info!("dropped a message sent before `initialize`");
                    return None;
                }
            }
        }
        Some(msg)
    }
}

/// What a request sent before any lifecycle began does to it.
enum Opening {
    /// `initialize` (2025-11-25) or a request carrying its own protocol version in `_meta`
    /// (2026-07-28, no handshake): the session's lifecycle starts; rmcp checks the rest.
    Starts,
    /// `server/discover` and `ping`: answered without starting a lifecycle.
    Probe,
    /// Anything else: answered here with [`NOT_INITIALIZED`].
    Refused,
}

fn opening(request: &ClientRequest) -> Opening {
    match request {
        ClientRequest::InitializeRequest(_) => Opening::Starts,
        ClientRequest::DiscoverRequest(_) | ClientRequest::PingRequest(_) => Opening::Probe,
        r if r.get_meta().protocol_version().is_some() => Opening::Starts,
        _ => Opening::Refused,
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        mut item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Error(e) = &mut item {
            super::echo::screen(&mut e.error);
        }
        let writer = self.writer.clone();
        async move {
            let mut line = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            line.push(b'\n');
            let mut w = writer.lock().await;
            w.write_all(&line).await?;
            w.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            // Answers in the order of their lines: the last one's is written before the
            // next line is read (cancel-safe: a dropped wait leaves the task running).
            while self.pending.join_next().await.is_some() {}
            let bytes = match self.read_line().await {
                Ok(Line::Bytes(b)) => b,
                Ok(Line::TooLong) => {
                    let msg = format!(
                        "Invalid request: a message over {} bytes was dropped unread. Send smaller messages",
                        self.max_line
                    );
                    self.answer(Value::Null, -32600, msg);
                    continue;
                }
                Ok(Line::Eof) => {
                    // Every answer written before the end is reported (cancel-safe: a
                    // dropped wait leaves the rest in the set for the next call).
                    while self.pending.join_next().await.is_some() {}
                    return None;
                }
                Err(e) => {
                    tracing::info!("stdin closed: {e}");
                    while self.pending.join_next().await.is_some() {}
                    return None;
                }
            };
            if let Some(msg) = self.classify(&bytes).await {
                return Some(msg);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        while self.pending.join_next().await.is_some() {}
        self.writer.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// An error answer survives the drop of the `receive` that wrote it: rmcp drops
    /// `receive` whenever another branch of its `select!` wins, here while the writer is
    /// busy with another response. The line is consumed; its answer must still come.
    #[tokio::test]
    async fn an_error_answer_is_written_even_if_receive_is_dropped() {
        let (mut client, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, mut client_out) = tokio::io::duplex(1 << 16);
        let mut t = LineTransport::new(server_in, server_out, 1024);
        client
            .write_all(b"not json, \xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82\n")
            .await
            .unwrap();
        // Another response holds the writer.
        let busy = t.writer.clone();
        let guard = busy.lock().await;
        // `receive` reads the line and then waits for more input; drop it as rmcp's
        // select would, once it has made its progress.
        let dropped = tokio::time::timeout(std::time::Duration::from_millis(50), t.receive()).await;
        assert!(dropped.is_err(), "nothing for rmcp in a parse error");
        drop(guard);
        let mut got = Vec::new();
        let mut buf = [0u8; 512];
        while !got.contains(&b'\n') {
            let n =
                tokio::time::timeout(std::time::Duration::from_secs(5), client_out.read(&mut buf))
                    .await
                    .expect("the parse error's answer came")
                    .unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        let v: Value = serde_json::from_slice(&got[..got.len() - 1]).unwrap();
        assert_eq!(v["error"]["code"], -32700, "{v}");
        assert_eq!(v["id"], Value::Null);
    }
}
