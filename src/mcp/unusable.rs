//! The server of a project whose memory cannot be opened (its ledger a FIFO, unreadable,
//! a directory…): it answers `initialize` and lists its tools like the real one, and every
//! tool call returns why, once, with the fix — so an agent sees the reason where an MCP
//! client would only show "server failed to start".

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::profiles::{self, ToolSet};
use super::registry;

/// A server that cannot serve: `reason` is the opening's error, screened as every error.
#[derive(Clone)]
pub struct Unusable {
    reason: String,
    tools: ToolSet,
}

impl Unusable {
    /// The server for `reason` (the error's whole chain, said once), listing `tools`.
    pub fn new(reason: &str, tools: ToolSet) -> Unusable {
        Unusable {
            reason: super::echo::message(&format!(
                "warroom-memory cannot open this project's memory: {reason}. The server \
                 stays up to say so; restart it once fixed"
            )),
            tools,
        }
    }
}

impl ServerHandler for Unusable {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "warroom-memory",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(self.reason.clone())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(profiles::list(self.tools)))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        Ok(registry::tool_error(self.reason.clone()).into())
    }
}
