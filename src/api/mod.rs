//! The operations' contract: argument and result types of every tool and command.
//!
//! Argument types derive `Deserialize` + `JsonSchema`: the MCP edge deserializes tool
//! arguments into them and publishes their schemas in `tools/list`; the CLI builds them from
//! flags. Result types derive `Serialize` + `JsonSchema` and are the tools'
//! `structuredContent` and `outputSchema`, and the CLI's `--json` output.

pub mod audit;
pub mod brief;
pub mod channel;
pub mod ledger;
pub mod plan;
