//! Arguments and results of `memory_register_plan` and of `plan show`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Arguments of `memory_register_plan`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct RegisterPlanArgs {
    /// {plan_id, title, epics: [{ref, room_id, title, depends_on, brief_keywords, roles}]};
    /// depend on another plan's epic as "PLAN_ID/REF".
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub plan: Option<serde_json::Value>,
    /// Or the plan as text: OSTwin markdown or JSON.
    #[serde(default)]
    pub markdown: Option<String>,
    /// Plan id (overrides the plan's own).
    #[serde(default)]
    pub plan_id: Option<String>,
}

/// One epic in a plan result.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct EpicOut {
    /// Plan.
    pub plan_id: String,
    /// Ref.
    #[serde(rename = "ref")]
    pub ref_: String,
    /// War-room.
    pub room_id: String,
    /// Title.
    pub title: String,
    /// Upstream epics as PLAN_ID/REF.
    pub depends_on: Vec<String>,
    /// Brief keywords.
    pub brief_keywords: Vec<String>,
}

/// The project's epic DAG (all plans), as `plan show` prints it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DagOut {
    /// Every epic.
    pub epics: Vec<EpicOut>,
    /// Edges [upstream, downstream] as PLAN_ID/REF.
    pub edges: Vec<[String; 2]>,
    /// A topological order of the epics (PLAN_ID/REF); epics on a cycle are left out.
    pub topological_order: Vec<String>,
    /// Dependency cycles, each as the epics on it.
    pub cycles: Vec<Vec<String>>,
    /// Unknown dependencies and unreadable plan files.
    pub problems: Vec<String>,
}

/// Result of `memory_register_plan`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RegisterPlanOutput {
    /// The registered plan's id.
    pub plan_id: String,
    /// Its title.
    pub title: String,
    /// Its epics.
    pub epics: Vec<EpicOut>,
    /// Its war-rooms.
    pub rooms: Vec<String>,
    /// Edges touching its epics, [upstream, downstream] as PLAN_ID/REF.
    pub edges: Vec<[String; 2]>,
    /// Its epics in dependency order (PLAN_ID/REF).
    pub topological_order: Vec<String>,
    /// Where it is stored, relative to the project root.
    pub file: String,
    /// True if a plan with this id was already registered and was replaced.
    pub replaced: bool,
    /// Not done after the write, which is kept: do not retry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}
