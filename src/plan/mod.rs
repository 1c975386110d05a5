//! Plans and the epic DAG: what rooms exist, which epic each runs, and who depends on whom.
//!
//! Sources, all merged into one graph ([`dag::Dag`]): plans registered through
//! `memory_register_plan` (stored as `.agents/plan/<plan_id>.json`), OSTwin plan markdown
//! (converted on registration by [`markdown`]), OSTwin room `config.json` files and the
//! war-rooms `DAG.json` ([`sources`]). The graph is derived state: rebuilt whenever any of
//! those files changes, never written back.

pub mod dag;
pub mod markdown;
pub mod sources;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::schema::Schema;
use crate::validate::{path_component, short_id};

/// Plan id given to OSTwin rooms and DAG nodes that name no plan.
pub const OSTWIN_PLAN: &str = "ostwin";

/// A plan as stored in `.agents/plan/<plan_id>.json` (schema `schemas/plan.schema.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Plan {
    /// Plan identifier (names the file: `[A-Za-z0-9._-]`, not starting with a dot).
    pub plan_id: String,
    /// Human title.
    #[serde(default)]
    pub title: String,
    /// When the plan was last registered (set by the server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registered_at: Option<String>,
    /// The room whose agent registered the plan (set by the server; absent when an
    /// operator — a caller without a room identity — registered it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registered_by: Option<String>,
    /// The epics.
    pub epics: Vec<Epic>,
}

/// One epic of a plan, run by one war-room.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Epic {
    /// Epic reference, unique within the plan (e.g. `EPIC-001`).
    #[serde(rename = "ref")]
    pub ref_: String,
    /// The war-room running it.
    pub room_id: String,
    /// Human title.
    #[serde(default)]
    pub title: String,
    /// Refs this epic depends on: `REF`, or `PLAN_ID/REF` for another plan's epic.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// Keywords of the epic's brief; rank the room's predecessor context.
    #[serde(default)]
    pub brief_keywords: Vec<String>,
    /// Roles staffed in the room.
    #[serde(default)]
    pub roles: Vec<String>,
    /// Its own words: objective, description, Definition of Done, Acceptance Criteria.
    #[serde(flatten)]
    pub purpose: Purpose,
}

pub use crate::api::plan::Purpose;

impl Plan {
    /// Parses and validates a plan given as JSON: schema first, then identifiers, then
    /// uniqueness of refs and rooms within the plan. Errors name the offending field.
    pub fn from_json(value: &serde_json::Value) -> Result<Plan> {
        Schema::Plan.check(value).map_err(|errs| {
            Error::invalid(
                "plan",
                format!(
                    "it does not match schemas/plan.schema.json: {}",
                    errs.join("; ")
                ),
                "see schemas/plan.schema.json: plan_id, epics[{ref, room_id, depends_on, …}]",
            )
        })?;
        let plan: Plan = serde_json::from_value(value.clone())
            .map_err(|e| Error::invalid("plan", e.to_string(), "see schemas/plan.schema.json"))?;
        plan.validate()?;
        Ok(plan)
    }

    /// Checks identifiers and uniqueness (shared by JSON and markdown plans).
    pub fn validate(&self) -> Result<()> {
        path_component("plan.plan_id", &self.plan_id)?;
        if self.epics.is_empty() {
            return Err(Error::invalid(
                "plan.epics",
                "the plan has no epics",
                "add at least one epic",
            ));
        }
        let mut refs: Vec<&str> = Vec::new();
        let mut rooms: Vec<&str> = Vec::new();
        for (i, e) in self.epics.iter().enumerate() {
            short_id(&format!("plan.epics[{i}].ref"), &e.ref_)?;
            if e.ref_.contains('/') {
                return Err(Error::invalid(
                    format!("plan.epics[{i}].ref"),
                    format!(
                        "`{}` contains `/`, which separates plan and ref in depends_on",
                        e.ref_
                    ),
                    "use a ref such as EPIC-001",
                ));
            }
            path_component(&format!("plan.epics[{i}].room_id"), &e.room_id)?;
            for (j, d) in e.depends_on.iter().enumerate() {
                short_id(&format!("plan.epics[{i}].depends_on[{j}]"), d)?;
            }
            if refs.contains(&e.ref_.as_str()) {
                return Err(Error::invalid(
                    format!("plan.epics[{i}].ref"),
                    format!("`{}` appears twice in the plan", e.ref_),
                    "give every epic its own ref",
                ));
            }
            if rooms.contains(&e.room_id.as_str()) {
                return Err(Error::invalid(
                    format!("plan.epics[{i}].room_id"),
                    format!("room `{}` runs two epics of this plan", e.room_id),
                    "give every epic its own war-room",
                ));
            }
            refs.push(&e.ref_);
            rooms.push(&e.room_id);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_plans_are_validated_with_field_names() {
        let ok = json!({"plan_id":"p1","epics":[{"ref":"EPIC-001","room_id":"room-001"}]});
        assert_eq!(Plan::from_json(&ok).unwrap().epics[0].room_id, "room-001");
        for (bad, want) in [
            (
                json!({"plan_id":"../x","epics":[{"ref":"E","room_id":"r"}]}),
                "plan_id",
            ),
            (
                json!({"plan_id":"p","epics":[{"ref":"E","room_id":"a/b"}]}),
                "room_id",
            ),
            (json!({"plan_id":"p","epics":[]}), "epics"),
            (
                json!({"plan_id":"p","epics":[{"ref":"E","room_id":"r"},{"ref":"E","room_id":"s"}]}),
                "twice",
            ),
            (
                json!({"plan_id":"p","epics":[{"ref":"E","room_id":"r"},{"ref":"F","room_id":"r"}]}),
                "two epics",
            ),
            (json!({"epics":[{"ref":"E","room_id":"r"}]}), "plan_id"),
            (json!({"plan_id":"p","epics":[{"ref":"E"}]}), "room_id"),
        ] {
            let e = Plan::from_json(&bad).unwrap_err().to_string();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }
}
