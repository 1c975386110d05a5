//! A minimal HTTP/1.1 client for loopback MCP over Streamable HTTP, used by `bench daemon
//! --load` and the daemon tests: [`post`] sends one request per connection (`Connection:
//! close`); [`Conn`] keeps one connection alive for many requests, the way MCP clients
//! talk (and the way a missing `TCP_NODELAY` shows: ~40 ms per later request). Each
//! returns the status, the headers and the de-chunked body. Not a general client: it
//! exists so that measuring and testing the daemon's HTTP edge needs no HTTP stack of its
//! own.

use std::io::{BufRead, BufReader, Read, Write};
use std::time::Duration;

/// A response: status code, header block, body (chunked encoding undone).
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status code.
    pub status: u16,
    /// The status line and headers as received.
    pub head: String,
    /// The body.
    pub body: String,
}

impl Reply {
    /// A header's value (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<String> {
        let want = format!("{}:", name.to_ascii_lowercase());
        self.head.lines().find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with(&want)
                .then(|| l.get(want.len()..).unwrap_or_default().trim().to_string())
        })
    }

    /// The last JSON-RPC message of the body (an SSE `data:` line or a JSON body).
    pub fn message(&self) -> Option<serde_json::Value> {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .rfind(|d| d.starts_with('{'))
            .or_else(|| Some(self.body.trim()).filter(|b| b.starts_with('{')))
            .and_then(|d| serde_json::from_str(d).ok())
    }
}

/// POSTs `body` to `url` (`http://HOST:PORT/PATH`) with MCP's content negotiation headers.
pub fn post(url: &str, headers: &[(&str, &str)], body: &str) -> std::io::Result<Reply> {
    request("POST", url, headers, body)
}

/// GETs `url` (one connection per request).
pub fn get(url: &str, headers: &[(&str, &str)]) -> std::io::Result<Reply> {
    request("GET", url, headers, "")
}

/// Sends one request with `method` on its own connection and reads the whole response.
pub fn request(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> std::io::Result<Reply> {
    let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| bad("not an http:// url"))?;
    let (authority, path) = rest.split_once('/').ok_or_else(|| bad("no path in url"))?;
    let mut s = std::net::TcpStream::connect(authority)?;
    // Long enough for a whole-ledger page at 1M entries (the overlaps pass).
    s.set_read_timeout(Some(Duration::from_secs(300)))?;
    let has = |name: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    let mut req = format!("{method} /{path} HTTP/1.1\r\nConnection: close\r\n");
    if !has("host") {
        req.push_str(&format!("Host: {authority}\r\n"));
    }
    if !has("accept") {
        req.push_str("Accept: application/json, text/event-stream\r\n");
    }
    if method != "GET" {
        req.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes())?;
    read_reply(&mut BufReader::new(s), true)
}

/// One kept-alive connection: requests go out one after another on the same socket.
pub struct Conn {
    authority: String,
    path: String,
    stream: BufReader<std::net::TcpStream>,
}

impl Conn {
    /// Connects to `url` (`http://HOST:PORT/PATH`).
    pub fn open(url: &str) -> std::io::Result<Conn> {
        let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| bad("not an http:// url"))?;
        let (authority, path) = rest.split_once('/').ok_or_else(|| bad("no path in url"))?;
        let s = std::net::TcpStream::connect(authority)?;
        // Long enough for a whole-ledger page at 1M entries (the overlaps pass).
        s.set_read_timeout(Some(Duration::from_secs(300)))?;
        Ok(Conn {
            authority: authority.to_string(),
            path: path.to_string(),
            stream: BufReader::new(s),
        })
    }

    /// POSTs `body` on this connection and reads the whole response (by its
    /// `Content-Length`, or chunk by chunk), leaving the connection open.
    pub fn post(&mut self, headers: &[(&str, &str)], body: &str) -> std::io::Result<Reply> {
        let path = format!("/{}", self.path);
        self.send("POST", &path, headers, body)
    }

    /// GETs `path` (`/…`) of the same host on this connection.
    pub fn get(&mut self, path: &str, headers: &[(&str, &str)]) -> std::io::Result<Reply> {
        self.send("GET", path, headers, "")
    }

    fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> std::io::Result<Reply> {
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.authority,
            body.len()
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        self.stream.get_mut().write_all(req.as_bytes())?;
        read_reply(&mut self.stream, false)
    }
}

/// Reads one response: the head, then the body by its `Content-Length`, chunk by chunk,
/// or (when `to_close` and neither is given) to the end of the connection.
fn read_reply(
    stream: &mut BufReader<std::net::TcpStream>,
    to_close: bool,
) -> std::io::Result<Reply> {
    let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if stream.read_line(&mut line)? == 0 {
            return Err(bad("connection closed in the response head"));
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let reply = Reply {
        status: head
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| bad("no status line"))?,
        head,
        body: String::new(),
    };
    let mut body = Vec::new();
    if let Some(n) = reply.header("content-length") {
        let n: usize = n.parse().map_err(|_| bad("bad content-length"))?;
        body.resize(n, 0);
        stream.read_exact(&mut body)?;
    } else if reply
        .header("transfer-encoding")
        .is_some_and(|t| t.contains("chunked"))
    {
        loop {
            let mut len = String::new();
            stream.read_line(&mut len)?;
            let n = usize::from_str_radix(len.trim(), 16).map_err(|_| bad("bad chunk"))?;
            let mut chunk = vec![0; n + 2];
            stream.read_exact(&mut chunk)?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else if to_close {
        stream.read_to_end(&mut body)?;
    }
    Ok(Reply {
        body: String::from_utf8_lossy(&body).into_owned(),
        ..reply
    })
}

/// The initialize request every session starts with.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"warroom-bench","version":"1"}}}"#;

/// Opens an MCP session as `who` (header pairs); returns the headers later requests need.
pub fn open_session(url: &str, who: &[(&str, &str)]) -> std::io::Result<Vec<(String, String)>> {
    let reply = post(url, who, INITIALIZE)?;
    let sid = reply
        .header("mcp-session-id")
        .ok_or_else(|| std::io::Error::other(format!("no session id (status {})", reply.status)))?;
    let mut headers: Vec<(String, String)> = who
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    headers.push(("mcp-session-id".into(), sid));
    headers.push(("MCP-Protocol-Version".into(), "2025-06-18".into()));
    let refs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    post(
        url,
        &refs,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )?;
    Ok(headers)
}
