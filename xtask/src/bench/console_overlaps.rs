//! `bench console`'s `/overlaps` rows: the page's first view (the whole-ledger pass) and
//! what an agent's publish over MCP costs while that pass runs — the pass reads the whole
//! index, and a publish must not wait for it — then a view of the kept pairs, one room's
//! view, and the view after one new entry.

use std::time::{Duration, Instant};

use super::console::PageReport;
use super::measure::Micros;

/// An MCP session on the daemon at `url` as an engineer of `room`.
struct Agent {
    conn: xtask::http_client::Conn,
    headers: Vec<(String, String)>,
}

impl Agent {
    fn open(url: &str, bearer: &str, room: &str) -> anyhow::Result<Agent> {
        let who = [
            ("X-Warroom-Room", room),
            ("X-Warroom-Role", "engineer"),
            ("Authorization", bearer),
        ];
        Ok(Agent {
            conn: xtask::http_client::Conn::open(url)?,
            headers: xtask::http_client::open_session(url, &who)?,
        })
    }

    /// Publishes a decision; returns how long the call took.
    fn publish(&mut self, summary: &str) -> anyhow::Result<Duration> {
        let req = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "memory_publish",
                       "arguments": {"kind": "decision", "summary": summary}}});
        let h: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let t = Instant::now();
        let reply = self.conn.post(&h, &req.to_string())?;
        let took = t.elapsed();
        let msg = reply
            .message()
            .ok_or_else(|| anyhow::anyhow!("HTTP {}: no answer", reply.status))?;
        anyhow::ensure!(
            msg["result"]["isError"] != serde_json::json!(true),
            "publish failed: {msg}"
        );
        Ok(took)
    }
}

/// The `/overlaps` rows on the daemon at `url`, `rounds` samples each: the first view
/// (its pass; the page says it is running until the pairs are there, so it is asked
/// again every 100 ms) with an agent publishing every 100 ms meanwhile, then views with
/// nothing new, of one room, and after one new entry (whose pass is paced: the kept
/// pairs are shown).
pub fn measure(
    url: &str,
    bearer: &str,
    entries: usize,
    rounds: usize,
    get: &mut dyn FnMut(&str) -> anyhow::Result<(String, Duration)>,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<Vec<PageReport>> {
    let row = |page: &str, samples: Vec<Duration>, body: &str| PageReport {
        entries,
        page: page.to_string(),
        time: Micros::of(samples),
        bytes: body.len(),
    };
    let mut out = Vec::new();
    progress(&format!(
        "{entries} entries: overlaps, first view, publishing meanwhile"
    ));
    let mut agent = Agent::open(url, bearer, "room-001")?;
    let (u, b) = (url.to_string(), bearer.to_string());
    let first = std::thread::spawn(move || -> anyhow::Result<(String, Duration)> {
        let mut c = xtask::http_client::Conn::open(&u)?;
        let t = Instant::now();
        loop {
            let r = c.get("/overlaps", &[("Authorization", b.as_str())])?;
            anyhow::ensure!(r.status == 200, "GET /overlaps: {}", r.status);
            if !r.body.contains("id=\"pass-pending\"") {
                return Ok((r.body, t.elapsed()));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let mut during = Vec::new();
    let mut i = 0;
    while !first.is_finished() {
        std::thread::sleep(Duration::from_millis(100));
        during.push(agent.publish(&format!("overlaps bench: published meanwhile {i}"))?);
        i += 1;
    }
    let (body, took) = first
        .join()
        .map_err(|_| anyhow::anyhow!("the page thread panicked"))??;
    anyhow::ensure!(body.contains("id=\"verdict\""), "not the overlaps page");
    out.push(row(
        "overlaps, first view until its pass is shown",
        vec![took],
        &body,
    ));
    out.push(row("publish over MCP while that pass runs", during, ""));

    let mut again = Vec::with_capacity(rounds);
    let mut room = Vec::with_capacity(rounds);
    let mut room_body = String::new();
    for _ in 0..rounds {
        again.push(get("/overlaps")?.1);
        let (b, t) = get("/overlaps?room=room-007")?;
        room.push(t);
        room_body = b;
    }
    out.push(row("overlaps, kept pairs", again, &body));
    out.push(row("overlaps, one room", room, &room_body));

    // One new entry a round, published by an agent, then the page (its pass paced).
    progress(&format!("{entries} entries: overlaps after one new entry"));
    let mut after = Vec::with_capacity(rounds);
    let mut body = String::new();
    for i in 0..rounds.min(10) {
        agent.publish(&format!("overlaps bench: queue retries back off {i} times"))?;
        let (b, t) = get("/overlaps")?;
        after.push(t);
        body = b;
    }
    out.push(row("overlaps after one new entry", after, &body));
    Ok(out)
}
