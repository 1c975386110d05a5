//! warroom-memory: the shared, append-only memory of a multi-agent software team.
//!
//! Plans are split into epics; each epic runs in a war-room of agents; epics depend on each
//! other in a DAG. Agents publish what they decide, define, learn and warn about to one
//! append-only ledger (`.agents/ledger.jsonl`) and read each other's knowledge through
//! filtered views. See `ARCHITECTURE.md` for the code map and invariants.
//!
//! The core ([`memory::Memory`] and everything below it) is plain Rust: no MCP, no
//! terminal output, no wall clock. The edges — [`mcp`] and [`cli`] — translate protocols.

// The layers below the product, each a crate of its own (ARCHITECTURE.md § Crates and layers), named
// here as the product's modules always were: `crate::index`, `crate::entry`, … .
pub use warroom_base::{cancel, clock, error, fsx, par, text};
pub use warroom_index::{self as index, entry, validate};
pub use warroom_secrets as secrets;
pub use warroom_store::{self as store, chain};

#[cfg(test)]
mod any_script_tests;
pub mod api;
pub mod audit;
pub mod brief;
pub mod channel;
pub mod cli;
pub mod config;
pub mod conn;
pub mod console;
pub mod daemon;
pub mod layout;
pub mod ledger;
pub mod mcp;
pub mod memory;
pub mod overlap;
pub mod plan;
pub mod progress;
pub mod ratelog;
pub mod receipts;
pub mod render;
pub mod render_audit;
pub mod scenario;
pub mod schema;
pub mod semantic;
pub mod settle;
pub mod snapshot;
