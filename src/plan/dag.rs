//! The epic DAG across every plan, built with petgraph.
//!
//! Nodes are keyed by (plan_id, ref): the same ref may exist in two plans, and the same
//! room id may run epics of two plans. An edge `a → b` means b depends on a (a is
//! upstream). A dependency written `REF` resolves inside the epic's own plan first, then to
//! the single other plan that has that ref; `PLAN/REF` names another plan's epic exactly.

use std::collections::{BTreeSet, HashMap, VecDeque};

use petgraph::Direction;
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};

use super::OSTWIN_PLAN;
use super::sources::Sources;

/// One epic in the graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Plan the epic belongs to.
    pub plan_id: String,
    /// Epic ref.
    pub ref_: String,
    /// War-room running it.
    pub room_id: String,
    /// Title.
    pub title: String,
    /// Brief keywords.
    pub brief_keywords: Vec<String>,
    /// What the epic must achieve and how it is judged done (empty for OSTwin files).
    pub purpose: crate::plan::Purpose,
    /// Dependencies as written.
    pub depends_on: Vec<String>,
    /// True if the node comes from a registered plan (not only from OSTwin files).
    pub registered: bool,
}

impl Node {
    /// `plan/REF`.
    pub fn label(&self) -> String {
        format!("{}/{}", self.plan_id, self.ref_)
    }
}

/// The merged graph of every plan source.
#[derive(Debug, Default)]
pub struct Dag {
    graph: DiGraph<usize, ()>,
    /// Nodes, in insertion order (plans by registration, then OSTwin files).
    pub nodes: Vec<Node>,
    keys: HashMap<(String, String), usize>,
    /// Each cycle, as the sorted labels of its epics.
    pub cycles: Vec<Vec<String>>,
    /// Unknown or ambiguous dependency refs, unreadable files.
    pub problems: Vec<String>,
    /// Topological order (node indices); epics on or below a cycle are left out.
    pub order: Vec<usize>,
    /// Registration order of plans (plan ids), oldest first.
    pub plan_order: Vec<String>,
}

/// OSTwin's plan gates: dependencies every epic may carry that are not epics of the plan
/// (`PLAN-REVIEW`, the review every plan passes first, run in `room-000`). A dependency on a
/// gate with no epic of that ref is satisfied, not an error; with such an epic (a room
/// `config.json` whose `task_ref` is the gate) it is an ordinary edge.
pub const GATES: [&str; 1] = ["PLAN-REVIEW"];

/// True if `dep` (`REF` or `PLAN/REF`) names a gate.
pub fn is_gate(dep: &str) -> bool {
    GATES.contains(&dep.rsplit('/').next().unwrap_or(dep))
}

impl Dag {
    fn add(&mut self, node: Node) -> usize {
        let key = (node.plan_id.clone(), node.ref_.clone());
        if let Some(&i) = self.keys.get(&key) {
            let existing = &mut self.nodes[i];
            for d in node.depends_on {
                if !existing.depends_on.contains(&d) {
                    existing.depends_on.push(d);
                }
            }
            return i;
        }
        let i = self.nodes.len();
        self.graph.add_node(i);
        self.keys.insert(key, i);
        self.nodes.push(node);
        i
    }

    /// Builds the graph from all sources.
    pub fn build(sources: &Sources) -> Dag {
        let mut dag = Dag {
            problems: sources.problems.clone(),
            ..Dag::default()
        };
        for plan in &sources.plans {
            dag.plan_order.push(plan.plan_id.clone());
            for e in &plan.epics {
                dag.add(Node {
                    plan_id: plan.plan_id.clone(),
                    ref_: e.ref_.clone(),
                    room_id: e.room_id.clone(),
                    title: e.title.clone(),
                    brief_keywords: e.brief_keywords.clone(),
                    purpose: e.purpose.clone(),
                    depends_on: e.depends_on.clone(),
                    registered: true,
                });
            }
        }
        // Nodes that name their plan (room `config.json`) before those that do not
        // (`DAG.json`), so a DAG.json node joins its room's plan instead of starting a
        // second one: OSTwin writes both for the same epics.
        let mut foreign: Vec<_> = sources.foreign.iter().collect();
        foreign.sort_by_key(|f| f.plan_id.is_none());
        for f in foreign {
            let plan_id = f.plan_id.clone().unwrap_or_else(|| {
                dag.nodes
                    .iter()
                    .find(|n| n.room_id == f.room_id && n.ref_ == f.ref_)
                    .map_or(OSTWIN_PLAN.to_string(), |n| n.plan_id.clone())
            });
            dag.add(Node {
                plan_id,
                ref_: f.ref_.clone(),
                room_id: f.room_id.clone(),
                title: String::new(),
                brief_keywords: Vec::new(),
                purpose: Default::default(),
                depends_on: f.depends_on.clone(),
                registered: false,
            });
        }
        dag.link();
        dag.find_cycles();
        dag.sort();
        dag
    }

    /// Resolves a dependency written on `node`.
    /// The epic `dep` names, as seen from `node` (a gate such as `PLAN-REVIEW` with no epic
    /// of that ref is an error here; callers skip it with [`is_gate`]).
    pub fn resolve(&self, node: usize, dep: &str) -> Result<usize, String> {
        let me = &self.nodes[node];
        if let Some((plan, r)) = dep.split_once('/') {
            return self
                .keys
                .get(&(plan.to_string(), r.to_string()))
                .copied()
                .ok_or_else(|| format!("{} depends on unknown epic `{dep}`", me.label()));
        }
        if let Some(&i) = self.keys.get(&(me.plan_id.clone(), dep.to_string())) {
            return Ok(i);
        }
        let others: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].ref_ == dep)
            .collect();
        match others.as_slice() {
            [i] => Ok(*i),
            [] => Err(format!("{} depends on unknown epic `{dep}`", me.label())),
            many => Err(format!(
                "{} depends on `{dep}`, which is ambiguous ({}); write PLAN/REF",
                me.label(),
                many.iter()
                    .map(|&i| self.nodes[i].label())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    fn link(&mut self) {
        // Dependencies on gates without an epic of their own add no edge.
        for n in 0..self.nodes.len() {
            for dep in self.nodes[n].depends_on.clone() {
                match self.resolve(n, &dep) {
                    Ok(up) => {
                        let (a, b) = (NodeIndex::new(up), NodeIndex::new(n));
                        if self.graph.find_edge(a, b).is_none() {
                            self.graph.add_edge(a, b, ());
                        }
                    }
                    Err(_) if is_gate(&dep) => {}
                    Err(e) => self.problems.push(e),
                }
            }
        }
    }

    fn find_cycles(&mut self) {
        for scc in tarjan_scc(&self.graph) {
            let looped = scc.len() > 1 || self.graph.find_edge(scc[0], scc[0]).is_some();
            if looped {
                let mut labels: Vec<String> =
                    scc.iter().map(|i| self.nodes[i.index()].label()).collect();
                labels.sort();
                self.problems
                    .push(format!("dependency cycle: {}", labels.join(" → ")));
                self.cycles.push(labels);
            }
        }
        self.cycles.sort();
    }

    /// Kahn's algorithm, smallest node index first, so the order is deterministic.
    fn sort(&mut self) {
        let mut indegree: Vec<usize> = self
            .graph
            .node_indices()
            .map(|n| {
                self.graph
                    .neighbors_directed(n, Direction::Incoming)
                    .count()
            })
            .collect();
        let mut ready: BTreeSet<usize> =
            (0..indegree.len()).filter(|&i| indegree[i] == 0).collect();
        while let Some(i) = ready.pop_first() {
            self.order.push(i);
            for next in self
                .graph
                .neighbors_directed(NodeIndex::new(i), Direction::Outgoing)
            {
                indegree[next.index()] -= 1;
                if indegree[next.index()] == 0 {
                    ready.insert(next.index());
                }
            }
        }
    }

    /// Edges as (upstream, downstream) node indices, sorted.
    pub fn edges(&self) -> Vec<(usize, usize)> {
        let mut e: Vec<(usize, usize)> = self
            .graph
            .edge_indices()
            .filter_map(|e| self.graph.edge_endpoints(e))
            .map(|(a, b)| (a.index(), b.index()))
            .collect();
        e.sort();
        e
    }

    /// The node of `room`: in `plan` if given, else in the most recently registered plan
    /// that has the room (OSTwin-only nodes last).
    pub fn node_for_room(&self, room: &str, plan: Option<&str>) -> Option<usize> {
        let rank = |n: &Node| {
            self.plan_order
                .iter()
                .position(|p| *p == n.plan_id)
                .map_or(0, |p| p + 1)
        };
        (0..self.nodes.len())
            .filter(|&i| self.nodes[i].room_id == room)
            .filter(|&i| plan.is_none_or(|p| self.nodes[i].plan_id == p))
            .max_by_key(|&i| (rank(&self.nodes[i]), i))
    }

    /// Direct predecessors of `node`, in node order.
    pub fn parents(&self, node: usize) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .graph
            .neighbors_directed(NodeIndex::new(node), Direction::Incoming)
            .map(|n| n.index())
            .collect();
        v.sort();
        v
    }

    /// The rooms that run beside `node`'s: epics of its plan that are neither upstream nor
    /// downstream of it (nor it), sorted, each once.
    pub fn sibling_rooms(&self, node: usize) -> Vec<String> {
        let mut related: std::collections::HashSet<usize> =
            self.ancestors(node).into_iter().map(|(n, _)| n).collect();
        let mut queue = VecDeque::from([node]);
        while let Some(n) = queue.pop_front() {
            for c in self
                .graph
                .neighbors_directed(NodeIndex::new(n), Direction::Outgoing)
            {
                if related.insert(c.index()) {
                    queue.push_back(c.index());
                }
            }
        }
        let own = &self.nodes[node];
        let mut rooms: Vec<String> = (0..self.nodes.len())
            .filter(|&i| i != node && !related.contains(&i))
            .filter(|&i| {
                self.nodes[i].plan_id == own.plan_id && self.nodes[i].room_id != own.room_id
            })
            .map(|i| self.nodes[i].room_id.clone())
            .collect();
        rooms.sort();
        rooms.dedup();
        rooms
    }

    /// Every ancestor of `node` with its distance (1 = direct predecessor), nearest first.
    pub fn ancestors(&self, node: usize) -> Vec<(usize, u32)> {
        let mut dist: HashMap<usize, u32> = HashMap::new();
        let mut queue = VecDeque::from([(node, 0u32)]);
        while let Some((n, d)) = queue.pop_front() {
            for p in self.parents(n) {
                if p != node && !dist.contains_key(&p) {
                    dist.insert(p, d + 1);
                    queue.push_back((p, d + 1));
                }
            }
        }
        let mut v: Vec<(usize, u32)> = dist.into_iter().collect();
        v.sort_by_key(|&(n, d)| (d, n));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::sources::ForeignNode;
    use crate::plan::{Epic, Plan};

    fn epic(r: &str, room: &str, deps: &[&str]) -> Epic {
        Epic {
            ref_: r.into(),
            room_id: room.into(),
            title: String::new(),
            depends_on: deps.iter().map(|d| d.to_string()).collect(),
            brief_keywords: vec![],
            roles: vec![],
            purpose: Default::default(),
        }
    }

    fn plan(id: &str, at: &str, epics: Vec<Epic>) -> Plan {
        Plan {
            plan_id: id.into(),
            title: String::new(),
            registered_at: Some(at.into()),
            registered_by: None,
            epics,
        }
    }

    #[test]
    fn cross_plan_dependencies_and_ancestors() {
        let s = Sources {
            plans: vec![
                plan(
                    "p1",
                    "1",
                    vec![epic("E1", "r1", &[]), epic("E2", "r2", &["E1"])],
                ),
                plan(
                    "p2",
                    "2",
                    vec![epic("E1", "r1", &["p1/E2"]), epic("E3", "r3", &["E1"])],
                ),
            ],
            ..Sources::default()
        };
        let dag = Dag::build(&s);
        assert!(dag.problems.is_empty(), "{:?}", dag.problems);
        let r3 = dag.node_for_room("r3", None).unwrap();
        let anc: Vec<(String, u32)> = dag
            .ancestors(r3)
            .iter()
            .map(|&(n, d)| (dag.nodes[n].label(), d))
            .collect();
        assert_eq!(
            anc,
            vec![
                ("p2/E1".into(), 1),
                ("p1/E2".into(), 2),
                ("p1/E1".into(), 3)
            ]
        );
        // The same room id in two plans: the latest registration wins unless a plan is named.
        assert_eq!(
            dag.nodes[dag.node_for_room("r1", None).unwrap()].plan_id,
            "p2"
        );
        assert_eq!(
            dag.nodes[dag.node_for_room("r1", Some("p1")).unwrap()].plan_id,
            "p1"
        );
        let order: Vec<String> = dag.order.iter().map(|&n| dag.nodes[n].label()).collect();
        assert_eq!(order, vec!["p1/E1", "p1/E2", "p2/E1", "p2/E3"]);
    }

    #[test]
    fn cycles_name_every_epic_and_unknown_refs_are_reported() {
        let s = Sources {
            plans: vec![plan(
                "p",
                "1",
                vec![
                    epic("A", "ra", &["C"]),
                    epic("B", "rb", &["A"]),
                    epic("C", "rc", &["B"]),
                    epic("D", "rd", &["NOPE"]),
                ],
            )],
            ..Sources::default()
        };
        let dag = Dag::build(&s);
        assert_eq!(dag.cycles, vec![vec!["p/A", "p/B", "p/C"]]);
        assert!(
            dag.problems
                .iter()
                .any(|p| p.contains("unknown epic `NOPE`"))
        );
        assert_eq!(
            dag.order
                .iter()
                .map(|&n| dag.nodes[n].label())
                .collect::<Vec<_>>(),
            vec!["p/D"]
        );
    }

    #[test]
    fn ostwin_files_join_registered_plans_or_form_their_own() {
        let s = Sources {
            plans: vec![plan("p", "1", vec![epic("EPIC-001", "room-001", &[])])],
            foreign: vec![
                ForeignNode {
                    room_id: "room-002".into(),
                    ref_: "EPIC-002".into(),
                    plan_id: None,
                    depends_on: vec!["EPIC-001".into()],
                    source: "cfg".into(),
                },
                ForeignNode {
                    room_id: "room-001".into(),
                    ref_: "EPIC-001".into(),
                    plan_id: None,
                    depends_on: vec![],
                    source: "dag".into(),
                },
            ],
            problems: vec![],
        };
        let dag = Dag::build(&s);
        assert_eq!(dag.nodes.len(), 2, "room-001 merges into the plan's node");
        let n2 = dag.node_for_room("room-002", None).unwrap();
        assert_eq!(dag.nodes[n2].plan_id, OSTWIN_PLAN);
        assert_eq!(
            dag.parents(n2),
            vec![dag.node_for_room("room-001", None).unwrap()]
        );
    }
}
