//! Tool profiles: which table a server lists and accepts (`serve --tools`, `--profile`,
//! `daemon --tools`). The one place that knows both tables ([`super::tools::TOOLS`] and
//! [`super::ostwin::TOOLS`]).

use rmcp::model::Tool;

use super::registry::ToolDef;

/// Which tools a server lists and accepts (`serve --tools`, `serve --profile`).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ToolSet {
    /// Every tool.
    #[default]
    All,
    /// The basics an agent needs: publish, query, search, get, get_context.
    Core,
    /// OSTwin's tool names and shapes (`serve --profile ostwin`).
    #[value(skip)]
    Ostwin,
}

/// The tools of [`ToolSet::Core`].
pub const CORE_TOOLS: [&str; 5] = [
    "memory_publish",
    "memory_query",
    "memory_search",
    "memory_get",
    "memory_get_context",
];

impl ToolSet {
    /// True if the set has the tool `name`.
    pub fn includes(self, name: &str) -> bool {
        match self {
            ToolSet::All => true,
            ToolSet::Core => CORE_TOOLS.contains(&name),
            ToolSet::Ostwin => super::ostwin::TOOLS.iter().any(|t| t.name == name),
        }
    }

    fn table(self) -> &'static [ToolDef] {
        match self {
            ToolSet::Ostwin => &super::ostwin::TOOLS,
            _ => super::tools::TOOLS,
        }
    }
}

/// Looks a tool of `set` up by name.
pub fn find(set: ToolSet, name: &str) -> Option<&'static ToolDef> {
    set.table()
        .iter()
        .find(|t| t.name == name && set.includes(t.name))
}

/// The `tools/list` descriptions of `set`.
pub fn list(set: ToolSet) -> Vec<Tool> {
    set.table()
        .iter()
        .filter(|t| set.includes(t.name))
        .map(|t| (t.describe)(t))
        .collect()
}
