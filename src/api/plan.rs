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
    /// Objective, description, Definition of Done, Acceptance Criteria (left out of the
    /// output schema for tools/list's byte budget).
    #[serde(flatten)]
    #[schemars(skip)]
    pub purpose: Purpose,
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

/// An epic's own words beyond its title: what `plan show` and the console print, and
/// what its brief searches with the keywords.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Purpose {
    /// What the epic must achieve.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub objective: String,
    /// What it is about.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Its Definition of Done.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub definition_of_done: Vec<String>,
    /// Its Acceptance Criteria.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acceptance_criteria: Vec<String>,
}

impl Purpose {
    /// True when the plan says none of it.
    pub fn is_empty(&self) -> bool {
        self.words().is_empty()
    }

    /// Every line of it, trimmed, blank lines dropped, joined by newlines.
    pub fn words(&self) -> String {
        let mut lines: Vec<&str> = Vec::new();
        for t in [&self.objective, &self.description] {
            lines.extend(t.lines().map(str::trim).filter(|l| !l.is_empty()));
        }
        for item in self
            .definition_of_done
            .iter()
            .chain(&self.acceptance_criteria)
        {
            lines.push(item.trim());
        }
        lines.join("\n")
    }
}
