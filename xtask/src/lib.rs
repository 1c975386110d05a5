//! The part of the developer tools that the product's tests use too: [`http_client`], a
//! minimal loopback HTTP/1.1 client for MCP over Streamable HTTP (one request per
//! connection, or a kept-alive [`http_client::Conn`]). The benchmarks themselves are the
//! `xtask` binary (src/main.rs).

pub mod http_client;
