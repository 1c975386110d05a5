//! `memory_register_plan` and the plan view: the DAG kept in step with the plan files.
//!
//! The DAG is rebuilt whenever the fingerprint of the plan sources (registered plans, OSTwin
//! `config.json` and `DAG.json`) changes, so a plan written by another process or by OSTwin
//! is noticed on the next call, without a restart.

use super::Memory;
use crate::api::plan::{DagOut, EpicOut, RegisterPlanArgs, RegisterPlanOutput};
use crate::config::Identity;
use crate::error::{Error, Result};
use crate::plan::dag::Dag;
use crate::plan::sources::{self, Fingerprint};
use crate::plan::{OSTWIN_PLAN, Plan, markdown};
use crate::store::{Backend, Keys, Source, Stream};
use crate::validate::path_component;

/// Largest plan accepted (markdown text or JSON), in bytes.
pub const MAX_PLAN_BYTES: usize = 256 * 1024;

/// The DAG and the fingerprint of the files it was built from.
#[derive(Debug, Default)]
pub(crate) struct PlanState {
    fingerprint: Option<Fingerprint>,
    pub(crate) dag: Dag,
    /// With a database: the registered plans' stream and the plans read from it (newest
    /// registration of each id), instead of `<plans>/*.json`.
    registered: Option<Registered>,
}

#[derive(Debug)]
struct Registered {
    source: Source,
    plans: Vec<Plan>,
}

impl PlanState {
    /// Plans registered in `backend`: files under `<plans>/`, or the database's stream.
    pub(crate) fn new(backend: &Backend) -> PlanState {
        PlanState {
            registered: backend.is_database().then(|| Registered {
                source: backend.source(Stream::Plans, Default::default(), None),
                plans: Vec::new(),
            }),
            ..PlanState::default()
        }
    }

    /// The current fingerprint of the plan sources (file stats; no lock needed).
    pub(crate) fn fingerprint(paths: &crate::config::Paths) -> sources::Fingerprint {
        sources::fingerprint(paths)
    }

    /// True if the DAG was built from sources with fingerprint `fp` and, with a
    /// database, nothing was registered since (one small query).
    pub(crate) fn is_current(&self, fp: &sources::Fingerprint) -> Result<bool> {
        if self.fingerprint.as_ref() != Some(fp) {
            return Ok(false);
        }
        match &self.registered {
            Some(r) => Ok(!r.source.may_have_news().map_err(|e| Error::Io {
                context: format!("checking {}", r.source.label()),
                source: e,
            })?),
            None => Ok(true),
        }
    }

    /// [`PlanState::is_current`] given the database's heads (no query of its own).
    pub(crate) fn is_current_with(
        &self,
        fp: &sources::Fingerprint,
        heads: &crate::store::pg::Heads,
    ) -> bool {
        self.fingerprint.as_ref() == Some(fp)
            && self
                .registered
                .as_ref()
                .is_none_or(|r| !r.source.behind(heads))
    }

    /// The registered plans, as the DAG's sources should see them.
    pub(crate) fn sources(&self, paths: &crate::config::Paths) -> sources::Sources {
        sources::load_with(paths, self.registered.as_ref().map(|r| &r.plans[..]))
    }

    /// Rebuilds the DAG if any plan source changed; a plan that does not load is reported
    /// once per process (its name, why, clipped), not at every reload.
    pub(crate) fn refresh(&mut self, paths: &crate::config::Paths) -> Result<()> {
        let mut changed = false;
        if let Some(r) = &mut self.registered {
            loop {
                let plans = &mut r.plans;
                let poll = r
                    .source
                    .poll(|line| {
                        changed = true;
                        let value: std::result::Result<serde_json::Value, String> =
                            serde_json::from_slice(line.bytes).map_err(|e| e.to_string());
                        let name = value.as_ref().ok().and_then(|v| {
                            v.get("plan_id")
                                .and_then(|n| n.as_str())
                                .map(|n| crate::validate::printable(crate::text::prefix(n, 128)))
                        });
                        match value.and_then(|v| Plan::from_json(&v).map_err(|e| e.to_string())) {
                            Ok(p) => {
                                plans.retain(|old| old.plan_id != p.plan_id);
                                plans.push(p);
                            }
                            Err(e) => warn_once(&format!(
                                "registered plan `{}` (line {} of the plans' ledger) no longer \
                                 loads and is left out: {e}. Fix: register it again within the \
                                 limits of schemas/plan.schema.json",
                                name.as_deref().unwrap_or("?"),
                                line.line_no
                            )),
                        }
                    })
                    .map_err(|e| Error::Io {
                        context: format!("reading {}", r.source.label()),
                        source: e,
                    })?;
                match poll {
                    crate::store::jsonl::Poll::Reset(_) => {
                        r.plans.clear();
                        changed = true;
                    }
                    _ => break,
                }
            }
        }
        let fp = sources::fingerprint(paths);
        if !changed && self.fingerprint.as_ref() == Some(&fp) {
            return Ok(());
        }
        let s = self.sources(paths);
        self.dag = Dag::build(&s);
        for p in &self.dag.problems {
            warn_once(&format!("plans: {p}"));
        }
        self.fingerprint = Some(fp);
        Ok(())
    }

    /// The plan to stamp on an entry published from `room`, if the room runs an epic of a
    /// named plan.
    pub(crate) fn stamp(&self, room: &str) -> Option<String> {
        let n = self.dag.node_for_room(room, None)?;
        let plan = &self.dag.nodes[n].plan_id;
        (plan != OSTWIN_PLAN).then(|| plan.clone())
    }
}

fn epic_out(dag: &Dag, n: usize) -> EpicOut {
    let node = &dag.nodes[n];
    EpicOut {
        plan_id: node.plan_id.clone(),
        ref_: node.ref_.clone(),
        room_id: node.room_id.clone(),
        title: node.title.clone(),
        depends_on: dag
            .parents(n)
            .iter()
            .map(|&p| dag.nodes[p].label())
            .collect(),
        brief_keywords: node.brief_keywords.clone(),
        purpose: node.purpose.clone(),
    }
}

/// Parses a plan argument: a JSON object, or text that is a JSON object or OSTwin markdown.
pub fn parse_plan(args: &RegisterPlanArgs) -> Result<Plan> {
    let plan = match (&args.plan, &args.markdown) {
        (Some(_), Some(_)) => {
            return Err(Error::invalid(
                "markdown",
                "both `plan` and `markdown` were given",
                "pass the plan once: a JSON object in `plan`, or text in `markdown`",
            ));
        }
        (Some(p), None) => p.clone(),
        (None, Some(text)) => match serde_json::from_str::<serde_json::Value>(
            text.strip_prefix('\u{feff}').unwrap_or(text),
        ) {
            // JSON sent as text is JSON, not markdown.
            Ok(v @ serde_json::Value::Object(_)) => v,
            _ => serde_json::Value::String(text.clone()),
        },
        (None, None) => {
            return Err(Error::invalid(
                "plan",
                "no plan was given",
                "pass a JSON object in `plan`, or OSTwin plan markdown in `markdown`",
            ));
        }
    };
    let size = match &plan {
        serde_json::Value::String(s) => s.len(),
        v => v.to_string().len(),
    };
    if size > MAX_PLAN_BYTES {
        return Err(Error::invalid(
            "plan",
            format!("it is {size} bytes, over the limit of {MAX_PLAN_BYTES}"),
            "split it into several plans (a later plan may depend on an earlier one's epics)",
        ));
    }
    if let Some(id) = &args.plan_id {
        path_component("plan_id", id)?;
    }
    match &plan {
        serde_json::Value::String(md) => markdown::parse(
            md.strip_prefix('\u{feff}').unwrap_or(md),
            args.plan_id.as_deref(),
        ),
        serde_json::Value::Object(_) => {
            let mut v = plan.clone();
            if let Some(id) = &args.plan_id {
                v["plan_id"] = serde_json::Value::String(id.clone());
            }
            Plan::from_json(&v)
        }
        other => Err(Error::invalid(
            "plan",
            format!(
                "got {}, expected a JSON object or a markdown string",
                json_type(other)
            ),
            "pass {\"plan_id\": …, \"epics\": […]} or the plan markdown as a string",
        )),
    }
}

fn json_type(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

impl Memory {
    /// Validates a plan against every other plan (unknown refs, cycles), then stores it as
    /// `<plans>/<plan_id>.json`. Nothing is written when a check fails.
    pub fn register_plan(
        &self,
        args: RegisterPlanArgs,
        who: &Identity,
    ) -> Result<RegisterPlanOutput> {
        let mut plan = parse_plan(&args)?;
        let redacted = self.guard_plan(&mut plan)?;
        if !redacted.is_empty() {
            tracing::warn!(plan = %plan.plan_id, kinds = ?redacted, "secrets redacted from a plan");
        }
        plan.registered_at = Some(self.write_now().to_rfc3339());
        plan.registered_by = who.room_id.clone();
        // In a database, registrations from every host serialise on the plans' lock,
        // taken before the state (the lock order of every write).
        let lock = match self.backend() {
            Backend::Postgres(_) => Some(
                self.backend()
                    .lock(&Stream::Plans, &self.paths().plans, self.append_opts())
                    .map_err(|e| Error::Io {
                        context: "locking the registered plans".into(),
                        source: e,
                    })?,
            ),
            Backend::Files => None,
        };
        let mut state = self.fresh()?;
        let mut sources = state.plans.sources(self.paths());
        self.may_register(&plan, &sources, who)?;
        let replaced = sources.plans.iter().any(|p| p.plan_id == plan.plan_id);
        sources.plans.retain(|p| p.plan_id != plan.plan_id);
        sources.plans.push(plan.clone());
        let dag = Dag::build(&sources);
        let mine: Vec<usize> = (0..dag.nodes.len())
            .filter(|&n| dag.nodes[n].plan_id == plan.plan_id)
            .collect();
        let mut errors: Vec<String> = Vec::new();
        for &n in &mine {
            for d in &dag.nodes[n].depends_on {
                if let Err(e) = dag.resolve(n, d)
                    && !crate::plan::dag::is_gate(d)
                {
                    errors.push(e);
                }
            }
        }
        for cycle in &dag.cycles {
            if cycle
                .iter()
                .any(|l| l.starts_with(&format!("{}/", plan.plan_id)))
            {
                errors.push(format!(
                    "dependency cycle through every one of: {}",
                    cycle.join(" → ")
                ));
            }
        }
        if !errors.is_empty() {
            return Err(Error::invalid(
                "plan",
                errors.join("; "),
                "fix depends_on (use PLAN_ID/REF for another plan's epic) and register again; nothing was stored",
            ));
        }
        let path = self.paths().plans.join(format!("{}.json", plan.plan_id));
        let file = match lock {
            Some(mut lock) => {
                let line = serde_json::to_string(&plan).expect("plans serialize");
                let keys = Keys {
                    id: Some(&plan.plan_id),
                    supersedes: None,
                };
                lock.append(&line, keys, self.append_opts())
                    .map_err(|e| Error::Io {
                        context: "registering the plan (nothing was stored)".into(),
                        source: e,
                    })?;
                format!(
                    "{} plan {}",
                    self.backend().label(&Stream::Plans, &path),
                    plan.plan_id
                )
            }
            None => {
                self.paths().confine(&path)?;
                write_atomically(
                    &path,
                    &serde_json::to_string_pretty(&plan).expect("plans serialize"),
                )?;
                path.strip_prefix(&self.paths().root)
                    .unwrap_or(&path)
                    .display()
                    .to_string()
            }
        };
        // After the commit point: a plan not read back is still registered.
        let warnings: Vec<String> = crate::error::after_commit("reading the plans back", || {
            state.plans.refresh(self.paths())
        })
        .err()
        .into_iter()
        .collect();
        let label = |n: usize| dag.nodes[n].label();
        let edges: Vec<[String; 2]> = dag
            .edges()
            .into_iter()
            .filter(|(a, b)| mine.contains(a) || mine.contains(b))
            .map(|(a, b)| [label(a), label(b)])
            .collect();
        Ok(RegisterPlanOutput {
            plan_id: plan.plan_id.clone(),
            title: plan.title.clone(),
            epics: mine.iter().map(|&n| epic_out(&dag, n)).collect(),
            rooms: mine.iter().map(|&n| dag.nodes[n].room_id.clone()).collect(),
            edges,
            topological_order: dag
                .order
                .iter()
                .filter(|n| mine.contains(n))
                .map(|&n| label(n))
                .collect(),
            file,
            replaced,
            warnings,
        })
    }

    /// Every text of a plan through the secret scanner: identifiers (plan id, refs, rooms,
    /// dependencies, roles) are refused, prose (titles, objectives, keywords) follows the
    /// policy. Returns the kinds redacted.
    fn guard_plan(&self, plan: &mut Plan) -> Result<Vec<String>> {
        let mut found = Vec::new();
        self.guard_id("plan_id", &plan.plan_id)?;
        plan.title = self.guard_secrets("title", std::mem::take(&mut plan.title), &mut found)?;
        for (i, e) in plan.epics.iter_mut().enumerate() {
            let at = |f: &str| format!("epics[{i}].{f}");
            self.guard_id(&at("ref"), &e.ref_)?;
            self.guard_id(&at("room_id"), &e.room_id)?;
            for (j, d) in e.depends_on.iter().enumerate() {
                self.guard_id(&format!("epics[{i}].depends_on[{j}]"), d)?;
            }
            for (j, r) in e.roles.iter().enumerate() {
                self.guard_id(&format!("epics[{i}].roles[{j}]"), r)?;
            }
            e.title = self.guard_secrets(&at("title"), std::mem::take(&mut e.title), &mut found)?;
            let p = &mut e.purpose;
            p.objective = self.guard_secrets(
                &at("objective"),
                std::mem::take(&mut p.objective),
                &mut found,
            )?;
            p.description = self.guard_secrets(
                &at("description"),
                std::mem::take(&mut p.description),
                &mut found,
            )?;
            for (field, items) in [
                ("definition_of_done", &mut p.definition_of_done),
                ("acceptance_criteria", &mut p.acceptance_criteria),
            ] {
                for (j, item) in items.iter_mut().enumerate() {
                    *item = self.guard_secrets(
                        &format!("epics[{i}].{field}[{j}]"),
                        std::mem::take(item),
                        &mut found,
                    )?;
                }
            }
            for (j, k) in e.brief_keywords.iter_mut().enumerate() {
                *k = self.guard_secrets(
                    &format!("epics[{i}].brief_keywords[{j}]"),
                    std::mem::take(k),
                    &mut found,
                )?;
            }
        }
        Ok(found)
    }

    /// Authorship of plans: an operator (no room identity) may register or replace any
    /// plan. An agent may replace only a plan its own room registered, and may not claim
    /// a room that already exists elsewhere (a war-room directory, or a room of another
    /// plan) other than its own — or it could put another team's room upstream of itself
    /// and read that room's channel through predecessor context.
    fn may_register(&self, plan: &Plan, sources: &sources::Sources, who: &Identity) -> Result<()> {
        let Some(own) = &who.room_id else {
            return Ok(());
        };
        if let Some(old) = sources.plans.iter().find(|p| p.plan_id == plan.plan_id)
            && old.registered_by.as_deref() != Some(own.as_str())
        {
            return Err(Error::Refused(format!(
                "plan `{}` was registered by {}; room `{own}` may replace only plans it \
                 registered. Fix: register under a new plan_id, or ask the operator",
                plan.plan_id,
                old.registered_by
                    .as_deref()
                    .map_or("the operator".to_string(), |r| format!("room `{r}`"))
            )));
        }
        // A dependency on another plan's epic would put that plan's rooms upstream of
        // this one: their `done` messages in its briefs, their `downstream` entries in
        // its reads. Only the operator links plans.
        for epic in &plan.epics {
            if let Some(dep) = epic.depends_on.iter().find(|d| {
                d.split_once('/')
                    .is_some_and(|(p, _)| p != plan.plan_id.as_str())
            }) {
                return Err(Error::Refused(format!(
                    "epic `{}` depends on `{}`, an epic of another plan; room `{own}` may not \
                     link plans (it would read that plan's rooms as their downstream). Fix: \
                     depend only on this plan's epics, or ask the operator to register the \
                     plan (`warroom-memory plan register`)",
                    epic.ref_,
                    crate::validate::printable(dep)
                )));
            }
        }
        for epic in &plan.epics {
            if epic.room_id == *own {
                continue;
            }
            let elsewhere = sources.plans.iter().any(|p| {
                p.plan_id != plan.plan_id && p.epics.iter().any(|e| e.room_id == epic.room_id)
            });
            let dir = self.paths().war_rooms.join(&epic.room_id);
            if elsewhere || dir.exists() {
                return Err(Error::Refused(format!(
                    "epic `{}` names room `{}`, which already exists outside this plan; room \
                     `{own}` may not claim another team's room. Fix: use a new room id, or ask \
                     the operator to register the plan",
                    epic.ref_, epic.room_id
                )));
            }
        }
        // What one room may keep registered, and how often it may register.
        let cap = self.settings.limits.plans_per_identity;
        let kept = sources
            .plans
            .iter()
            .filter(|p| p.plan_id != plan.plan_id && p.registered_by.as_deref() == Some(own))
            .count();
        if kept >= cap as usize {
            return Err(Error::Refused(format!(
                "room `{own}` has registered {kept} plans, the most one room may keep \
                 (plans_per_identity in .agents/warroom.yaml); nothing was stored. Fix: \
                 register again under one of its plan ids to replace that plan, or ask the \
                 operator"
            )));
        }
        self.budgets.charge(
            who,
            super::budgets::Meter::Plan,
            self.write_now().0,
            0,
            &self.settings.limits,
        )
    }

    /// The whole project's epic DAG.
    pub fn plan_view(&self) -> Result<DagOut> {
        let state = self.fresh_read()?;
        let dag = &state.plans.dag;
        let label = |n: usize| dag.nodes[n].label();
        Ok(DagOut {
            epics: (0..dag.nodes.len()).map(|n| epic_out(dag, n)).collect(),
            edges: dag
                .edges()
                .into_iter()
                .map(|(a, b)| [label(a), label(b)])
                .collect(),
            topological_order: dag.order.iter().map(|&n| label(n)).collect(),
            cycles: dag.cycles.clone(),
            problems: dag.problems.clone(),
        })
    }
}

fn write_atomically(path: &std::path::Path, text: &str) -> Result<()> {
    let dir = path.parent().expect("plan files live in a directory");
    std::fs::create_dir_all(dir).map_err(|e| Error::io("creating directory", dir, e))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("plan"),
        std::process::id()
    ));
    std::fs::write(&tmp, format!("{text}\n")).map_err(|e| Error::io("writing", &tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io("renaming into place", path, e)
    })
}

/// Logs a plan problem the first time this process meets it, clipped: a stored plan that
/// no longer loads is said once, with its name and the fix, never its whole text.
fn warn_once(message: &str) {
    use std::sync::{Mutex, OnceLock};
    static SAID: OnceLock<Mutex<std::collections::HashSet<u64>>> = OnceLock::new();
    let key = {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(message)
    };
    let mut said = SAID
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    // Bounded: past 4,096 distinct problems, each is said again rather than remembered.
    if said.len() >= 4096 {
        said.clear();
    }
    if said.insert(key) {
        tracing::warn!(
            "{}",
            crate::text::clip_within(message, crate::schema::MAX_ERROR_BYTES)
        );
    }
}
