//! A plan's epic DAG drawn as inline SVG: our own layered placement, because the graphs
//! are small (tens of epics) and a layout crate would bring far more than it saves.
//!
//! Columns are depths (the longest path from an epic without upstream), so every edge
//! points right; within a column epics are ordered by the mean row of their upstream
//! epics (one barycentre pass), which keeps most edges short and uncrossed. Epics on a
//! cycle are placed in the first column. Every node links to its room.

use maud::{Markup, html};

use super::shell::{plain, q};

const W: i64 = 196;
const H: i64 = 58;
const GAP_X: i64 = 64;
const GAP_Y: i64 = 18;
const PAD: i64 = 12;

/// One epic to draw.
pub(crate) struct Node {
    pub reference: String,
    pub title: String,
    pub room: String,
    /// The latest lifecycle message type of its room, if any.
    pub status: Option<String>,
}

/// Where each node goes: (column, row).
fn place(n: usize, edges: &[(usize, usize)]) -> Vec<(i64, i64)> {
    let mut parents: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in edges {
        parents[b].push(a);
    }
    // Longest-path depth in topological order (Kahn); epics on or behind a cycle are
    // never freed and stay in the first column.
    let mut indegree = vec![0usize; n];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in edges {
        indegree[b] += 1;
        children[a].push(b);
    }
    let mut depth = vec![0i64; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
    while let Some(a) = ready.pop() {
        for &b in &children[a] {
            depth[b] = depth[b].max(depth[a] + 1);
            indegree[b] -= 1;
            if indegree[b] == 0 {
                ready.push(b);
            }
        }
    }
    for i in 0..n {
        if indegree[i] > 0 {
            depth[i] = 0;
        }
    }
    let columns = depth.iter().copied().max().map_or(0, |d| d + 1);
    let mut row = vec![0i64; n];
    for col in 0..columns {
        let mut members: Vec<usize> = (0..n).filter(|&i| depth[i] == col).collect();
        let key = |i: usize| -> f64 {
            let ps: Vec<f64> = parents[i]
                .iter()
                .filter(|&&p| depth[p] < col)
                .map(|&p| row[p] as f64)
                .collect();
            if ps.is_empty() {
                i as f64 / n as f64
            } else {
                ps.iter().sum::<f64>() / ps.len() as f64
            }
        };
        members.sort_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
        for (r, &i) in members.iter().enumerate() {
            row[i] = r as i64;
        }
    }
    depth.into_iter().zip(row).collect()
}

/// How far above a row's middle the control points of an edge spanning `s` columns lie:
/// its curve then clears the tops of the nodes it passes (a cubic's middle is 3/4 of the
/// way to its control points), each longer span in a lane of its own.
fn lane(s: i64) -> i64 {
    if s <= 1 {
        0
    } else {
        (H / 2 + 6) * 4 / 3 + 10 * (s - 2)
    }
}

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max - 1).collect();
    s.push('…');
    s
}

/// The drawing; `edges` are (upstream, downstream) indexes into `nodes`.
pub(crate) fn draw(nodes: &[Node], edges: &[(usize, usize)]) -> Markup {
    let at = place(nodes.len(), edges);
    let cols = at.iter().map(|p| p.0).max().map_or(1, |c| c + 1);
    let rows = at.iter().map(|p| p.1).max().map_or(1, |r| r + 1);
    // Edges that skip a column arch over the nodes between, in lanes above the row: the
    // longest span sets how much room the top needs.
    let span = |&(a, b): &(usize, usize)| (at[b].0 - at[a].0).max(1);
    let rise = |s: i64| (lane(s) * 3 / 4 - H / 2 + 4).max(0);
    let top = PAD + edges.iter().map(span).max().map_or(0, rise);
    let width = PAD * 2 + cols * W + (cols - 1) * GAP_X;
    let height = top + PAD + rows * H + (rows - 1) * GAP_Y;
    let xy = |i: usize| (PAD + at[i].0 * (W + GAP_X), top + at[i].1 * (H + GAP_Y));
    html! {
        svg xmlns="http://www.w3.org/2000/svg" width=(width) height=(height)
            viewBox={ "0 0 " (width) " " (height) } role="img" aria-label="epic dependency graph" {
            defs {
                marker #arrow viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse" {
                    path d="M 0 0 L 10 5 L 0 10 z" fill="#98a2b3" {}
                }
            }
            @for &(a, b) in edges {
                @let ((ax, ay), (bx, by)) = (xy(a), xy(b));
                @let (x1, y1, x2, y2) = (ax + W, ay + H / 2, bx, by + H / 2);
                @let mid = (x1 + x2) / 2;
                @let s = span(&(a, b));
                @let d = if s > 1 {
                    let y = ay.min(by) + H / 2 - lane(s);
                    format!("M {x1} {y1} C {} {y}, {} {y}, {} {y2}", x1 + GAP_X, x2 - GAP_X, x2 - 2)
                } else {
                    format!("M {x1} {y1} C {mid} {y1}, {mid} {y2}, {} {y2}", x2 - 2)
                };
                path.edge data-from=(nodes[a].reference) data-to=(nodes[b].reference)
                    d=(d) marker-end="url(#arrow)" {}
            }
            @for (i, n) in nodes.iter().enumerate() {
                @let (x, y) = xy(i);
                @let status = n.status.as_deref().unwrap_or("");
                a href={ "/room/" (q(&n.room)) } {
                    g class={ "node s-" (status) } data-ref=(n.reference) transform={ "translate(" (x) "," (y) ")" } {
                        title { (plain(&n.reference)) " — " (plain(&n.title)) " (room " (plain(&n.room)) ")" }
                        rect width=(W) height=(H) rx="8" {}
                        text.ref x="10" y="18" { (cut(&plain(&n.reference), 24)) }
                        text x="10" y="34" { (cut(&plain(&n.title), 28)) }
                        text.room x="10" y="50" { (cut(&plain(&n.room), 18)) }
                        @if !status.is_empty() {
                            text.status x=(W - 10) y="50" text-anchor="end" { (cut(&plain(status), 10)) }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::place;

    #[test]
    fn every_edge_points_right_and_no_two_nodes_share_a_cell() {
        // a → b → d, a → c → d, e alone, and a cycle f ⇄ g.
        let edges = [(0, 1), (1, 3), (0, 2), (2, 3), (5, 6), (6, 5)];
        let at = place(7, &edges);
        for &(a, b) in &edges[..4] {
            assert!(at[a].0 < at[b].0, "{a}→{b}: {:?} {:?}", at[a], at[b]);
        }
        let mut cells: Vec<_> = at.clone();
        cells.sort();
        cells.dedup();
        assert_eq!(cells.len(), 7, "{at:?}");
        assert_eq!(at[3].0, 2, "d is two steps from a");
        assert_eq!(
            (at[5].0, at[6].0),
            (0, 0),
            "a cycle stays in the first column"
        );
    }
}
