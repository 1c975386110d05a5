//! OSTwin plan markdown → [`Plan`].
//!
//! Recognised: a `# Title` (an optional `Plan:` prefix is dropped), an optional
//! `plan_id: …` line before the first epic, and epics headed `## EPIC-001 — Title`
//! (also `###`/`####`, `## Epic: EPIC-001 — Title`, and `–`, `-` or `:` as separator).
//! Inside an epic, lines `depends_on: [EPIC-…]`, `Roles: …`, `Objective: …`,
//! `Room: …` / `room_id: …` and `Keywords: …` / `brief_keywords: …` (optionally bulleted
//! or bold) fill the epic; a `Definition of Done` or `Acceptance Criteria` heading (`###`,
//! bold, or a line ending in `:`) starts a list whose lines, bullets and checkboxes
//! dropped, are its items until the next heading or field; every other line is the
//! epic's description. What is before the first epic is the plan's preamble, not kept.
//!
//! Defaults, as OSTwin assigns them: the room of `EPIC-007` is `room-007` (the ref's number,
//! three digits) unless a `Room:` line says otherwise; brief keywords come from the title and
//! objective when no `Keywords:` line is given.

use std::sync::OnceLock;

use regex::Regex;

use super::{Epic, Plan, Purpose};
use crate::error::{Error, Result};

fn header_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^#{2,4}\s+(?:[Ee]pic:\s*)?([A-Za-z][A-Za-z0-9_]*-[0-9]+[A-Za-z0-9_.-]*)\s*(?:[—–:-]+\s*(.*))?$")
            .expect("valid regex")
    })
}

fn field_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)^(?:[-*]\s+)?\**(plan[_ ]id|depends[_ ]on|dependencies|roles|objective|room[_ ]id|room|brief[_ ]keywords|keywords)\**\s*:\**\s*(.*)$")
            .expect("valid regex")
    })
}

fn section_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)^(?:#{1,6}\s*)?(?:[-*]\s+)?\**\s*(definition of done|acceptance criteria)\s*\**\s*:?\s*\**\s*(.*)$")
            .expect("valid regex")
    })
}

fn bullet_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s*)?").expect("valid regex")
    })
}

/// Which list an epic's lines go to.
#[derive(Clone, Copy, PartialEq)]
enum Section {
    Description,
    DefinitionOfDone,
    AcceptanceCriteria,
}

/// Adds one line of an epic's prose to `section`.
fn add_line(epic: &mut Epic, section: Section, line: &str) {
    let item = bullet_re().replace(line, "");
    let item = item.trim();
    if item.is_empty() {
        return;
    }
    match section {
        Section::Description => {
            let d = &mut epic.purpose.description;
            if !d.is_empty() {
                d.push('\n');
            }
            d.push_str(line);
        }
        Section::DefinitionOfDone => epic.purpose.definition_of_done.push(item.to_string()),
        Section::AcceptanceCriteria => epic.purpose.acceptance_criteria.push(item.to_string()),
    }
}

/// Splits `[A, "B", C]`, `A, B` or `none` into items.
fn list(value: &str) -> Vec<String> {
    let v = value.trim().trim_start_matches('[').trim_end_matches(']');
    if v.eq_ignore_ascii_case("none") || v.trim().is_empty() {
        return Vec::new();
    }
    v.split(',')
        .map(|s| {
            s.trim()
                .trim_matches(|c| c == '"' || c == '\'' || c == '`')
                .to_string()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

const STOP: &[&str] = &[
    "with", "from", "that", "this", "into", "their", "have", "will", "must", "should", "build",
    "make", "using", "each", "when", "then", "than", "also", "only", "over", "under", "about",
];

fn derive_keywords(title: &str, objective: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in format!("{title} {objective}").split(|c: char| !c.is_alphanumeric()) {
        let w = w.to_lowercase();
        if w.chars().count() >= 4 && !STOP.contains(&w.as_str()) && !out.contains(&w) {
            out.push(w);
        }
    }
    out.truncate(8);
    out
}

fn default_room(ref_: &str, ordinal: usize) -> String {
    let digits: String = ref_
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    match digits.parse::<u64>() {
        Ok(n) => format!("room-{n:03}"),
        Err(_) => format!("room-{ordinal:03}"),
    }
}

fn slug(title: &str) -> String {
    let s: String = title
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let mut out = String::new();
    for part in s.split('-').filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(part);
    }
    out.chars().take(64).collect()
}

/// Parses plan markdown. `plan_id` (the tool argument) wins over a `plan_id:` line, which
/// wins over a slug of the title.
pub fn parse(text: &str, plan_id: Option<&str>) -> Result<Plan> {
    let mut title = String::new();
    let mut id_line: Option<String> = None;
    let mut epics: Vec<Epic> = Vec::new();
    let mut explicit_room: Vec<bool> = Vec::new();
    let mut explicit_kw: Vec<bool> = Vec::new();
    let mut section = Section::Description;
    for line in text.lines() {
        let line = line.trim_end();
        if let Some(h) = line.strip_prefix("# ") {
            if title.is_empty() {
                title = h.trim().trim_start_matches("Plan:").trim().to_string();
            }
            continue;
        }
        if let Some(c) = header_re().captures(line) {
            let ref_ = c[1].to_string();
            epics.push(Epic {
                room_id: default_room(&ref_, epics.len() + 1),
                ref_,
                title: c.get(2).map_or("", |m| m.as_str()).trim().to_string(),
                depends_on: Vec::new(),
                brief_keywords: Vec::new(),
                roles: Vec::new(),
                purpose: Purpose::default(),
            });
            explicit_room.push(false);
            explicit_kw.push(false);
            section = Section::Description;
            continue;
        }
        let trimmed = line.trim();
        if let Some(epic) = epics.last_mut() {
            if let Some(c) = section_re().captures(trimmed) {
                section = if c[1].eq_ignore_ascii_case("definition of done") {
                    Section::DefinitionOfDone
                } else {
                    Section::AcceptanceCriteria
                };
                add_line(epic, section, c[2].trim());
                continue;
            }
            if trimmed.starts_with('#') {
                // Another heading inside the epic: what follows is description again.
                section = Section::Description;
                add_line(epic, section, trimmed.trim_start_matches('#').trim());
                continue;
            }
        }
        let Some(c) = field_re().captures(line.trim_start()) else {
            if let Some(epic) = epics.last_mut() {
                add_line(epic, section, trimmed);
            }
            continue;
        };
        section = Section::Description;
        let key = c[1].to_lowercase().replace(' ', "_");
        let value = c[2].trim().trim_end_matches("**").trim();
        let i = epics.len().wrapping_sub(1);
        let Some(epic) = epics.last_mut() else {
            if key == "plan_id" {
                id_line = Some(value.to_string());
            }
            continue;
        };
        match key.as_str() {
            "depends_on" | "dependencies" => epic.depends_on = list(value),
            "roles" => epic.roles = list(value),
            "objective" => epic.purpose.objective = value.to_string(),
            "room" | "room_id" => {
                epic.room_id = value.trim_matches('`').to_string();
                explicit_room[i] = true;
            }
            "brief_keywords" | "keywords" => {
                epic.brief_keywords = list(value);
                explicit_kw[i] = true;
            }
            _ => {}
        }
    }
    if epics.is_empty() {
        return Err(Error::invalid(
            "plan",
            "no epic headers found in the markdown",
            "head each epic `## EPIC-001 — Title`, with `depends_on: [EPIC-…]` lines below",
        ));
    }
    for (i, e) in epics.iter_mut().enumerate() {
        if !explicit_kw[i] {
            e.brief_keywords = derive_keywords(&e.title, &e.purpose.objective);
        }
    }
    let plan_id = plan_id
        .map(str::to_string)
        .or(id_line)
        .unwrap_or_else(|| slug(&title));
    if plan_id.is_empty() {
        return Err(Error::invalid(
            "plan_id",
            "the markdown has no title or plan_id line to name the plan",
            "pass `plan_id`, or add a `# Title` or `plan_id: …` line",
        ));
    }
    let plan = Plan {
        plan_id,
        title,
        registered_at: None,
        registered_by: None,
        epics,
    };
    // The same validator as a JSON plan's (the schema's bounds, then identifiers): what
    // is acknowledged is what every reload accepts.
    let value = serde_json::to_value(&plan)
        .map_err(|e| Error::invalid("plan", e.to_string(), "see schemas/plan.schema.json"))?;
    Plan::from_json(&value)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = "# Plan: Shopfront v2\n\nplan_id: shop-v2\n\nSome intro.\n\n\
## EPIC-005 — Wishlist API\nRoles: manager, engineer, qa\nObjective: Let users save products for later\n\
depends_on: [shop-v1/EPIC-002]\n\n## EPIC-006 – Wishlist emails\n- **Room**: room-wish-mail\n\
- **Keywords**: email, wishlist\ndepends_on: [\"EPIC-005\", EPIC-004]\n\n### EPIC-7: Cleanup\ndepends_on: none\n";

    #[test]
    fn parses_ostwin_markdown() {
        let p = parse(PLAN, None).unwrap();
        assert_eq!(
            (p.plan_id.as_str(), p.title.as_str()),
            ("shop-v2", "Shopfront v2")
        );
        assert_eq!(p.epics.len(), 3);
        let e = &p.epics[0];
        assert_eq!(
            (e.ref_.as_str(), e.room_id.as_str(), e.title.as_str()),
            ("EPIC-005", "room-005", "Wishlist API")
        );
        assert_eq!(e.roles, vec!["manager", "engineer", "qa"]);
        assert_eq!(e.depends_on, vec!["shop-v1/EPIC-002"]);
        assert!(
            e.brief_keywords.contains(&"wishlist".to_string()),
            "{:?}",
            e.brief_keywords
        );
        let e = &p.epics[1];
        assert_eq!(e.room_id, "room-wish-mail");
        assert_eq!(e.brief_keywords, vec!["email", "wishlist"]);
        assert_eq!(e.depends_on, vec!["EPIC-005", "EPIC-004"]);
        assert_eq!(
            (p.epics[2].ref_.as_str(), p.epics[2].room_id.as_str()),
            ("EPIC-7", "room-007")
        );
        assert!(p.epics[2].depends_on.is_empty());
    }

    #[test]
    fn an_epics_description_and_criteria_are_kept() {
        let md = "# Plan: Склад\n\nIntro, not kept.\n\n## EPIC-001 — Приёмка товара\n\
Objective: Принимать поставки по накладной\nСканер читает штрихкоды EAN-13.\n\n\
### Definition of Done\n- [ ] Накладная сверена с заказом\n- [x] Остатки обновлены\n\n\
**Acceptance Criteria:**\n1. Расхождение создаёт акт\n* Повторный скан не удваивает остаток\n\n\
### Notes\nПосле приёмки — маркировка.\ndepends_on: none\n";
        let p = parse(md, Some("wh")).unwrap();
        let e = &p.epics[0];
        assert_eq!(e.purpose.objective, "Принимать поставки по накладной");
        assert_eq!(
            e.purpose.description,
            "Сканер читает штрихкоды EAN-13.\nNotes\nПосле приёмки — маркировка."
        );
        assert_eq!(
            e.purpose.definition_of_done,
            vec!["Накладная сверена с заказом", "Остатки обновлены"]
        );
        assert_eq!(
            e.purpose.acceptance_criteria,
            vec![
                "Расхождение создаёт акт",
                "Повторный скан не удваивает остаток"
            ]
        );
        assert!(e.purpose.words().contains("акт"));
        assert!(!e.purpose.description.contains("Intro"));
    }

    #[test]
    fn plan_id_precedence_and_errors() {
        assert_eq!(parse(PLAN, Some("given")).unwrap().plan_id, "given");
        assert_eq!(
            parse("# My Big Plan!\n## EPIC-1 — A\n", None)
                .unwrap()
                .plan_id,
            "my-big-plan"
        );
        assert!(
            parse("# Title\nno epics here\n", None)
                .unwrap_err()
                .to_string()
                .contains("no epic headers")
        );
        let bad_room = "# T\n## EPIC-1 — A\nRoom: ../etc\n";
        assert!(
            parse(bad_room, None)
                .unwrap_err()
                .to_string()
                .contains("room_id")
        );
        assert!(
            parse("## EPIC-1 — A\n", None)
                .unwrap_err()
                .to_string()
                .contains("plan_id")
        );
    }
}
