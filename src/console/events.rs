//! `/events`: the live stream the pages use (Server-Sent Events). Parameters: `after`, the
//! entry position the page already shows; the timeline's filters; for a room page `room`
//! and `chan`, the number of its channel messages shown. Events: `entry` (a timeline row)
//! and `message` (a channel row), both HTML rendered by the pages' own code. Each event's
//! id is the position reached (`<entries>` or `<entries>.<messages>`), so a reconnecting
//! browser resumes with `Last-Event-ID` and misses nothing.
//!
//! Bounded: at most [`super::MAX_EVENT_CLIENTS`] streams (503 past it), a comment every
//! 15 s keeps idle connections open through proxies, the memory is polled every
//! [`POLL`] off the async workers, and every stream ends when the daemon stops.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream;

use super::shell::{entry_row, message_row, one_line};
use super::timeline::{TimelineQuery, passes};
use super::{Shared, read};
use crate::index::Filter;
use crate::memory::MAX_NEWS;

/// How often a stream looks for news.
pub const POLL: Duration = Duration::from_millis(300);

#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct EventsQuery {
    #[serde(default)]
    after: Option<u64>,
    #[serde(default)]
    chan: Option<usize>,
    #[serde(flatten)]
    filter: TimelineQuery,
}

struct Feed {
    c: Shared,
    filter: Filter,
    room: Option<String>,
    after: u64,
    chan: usize,
    queue: VecDeque<Event>,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

fn id(after: u64, room: bool, chan: usize) -> String {
    if room {
        format!("{after}.{chan}")
    } else {
        after.to_string()
    }
}

impl Feed {
    /// Reads what is new; false when the daemon is stopping.
    async fn poll(&mut self) -> bool {
        let (after, chan, room) = (self.after, self.chan, self.room.clone());
        let news = read(&self.c, move |m| {
            let (entries, reached) = m.entries_after(after)?;
            let messages = match &room {
                Some(r) => m.channel_after(r, Some(chan), MAX_NEWS)?,
                None => (Vec::new(), chan),
            };
            Ok((entries, reached, messages, m.now()))
        })
        .await;
        let Ok((entries, reached, (messages, total), now)) = news else {
            // A failed read (a file briefly unreadable) is retried at the next poll.
            return !self.c.stop.is_cancelled();
        };
        let room = self.room.is_some();
        let first = reached - entries.len() as u64;
        for (i, h) in entries.iter().enumerate() {
            let at = first + i as u64 + 1;
            if passes(&self.filter, h) {
                self.queue.push_back(
                    Event::default()
                        .event("entry")
                        .id(id(at, room, self.chan))
                        .data(one_line(entry_row(h, now))),
                );
            }
        }
        self.after = reached;
        if room {
            let from = self.chan.min(total);
            for (i, msg) in messages.iter().enumerate() {
                self.queue.push_back(
                    Event::default()
                        .event("message")
                        .id(id(self.after, true, from + i + 1))
                        .data(one_line(message_row(msg, now))),
                );
            }
            self.chan = from + messages.len();
        }
        !self.c.stop.is_cancelled()
    }
}

pub(crate) async fn stream(
    State(c): State<Shared>,
    headers: HeaderMap,
    Query(eq): Query<EventsQuery>,
) -> Response {
    let Ok(permit) = c.events.clone().try_acquire_owned() else {
        return super::shell::error_page(
            http::StatusCode::SERVICE_UNAVAILABLE,
            "Too many live pages",
            &format!(
                "{} live pages are open, the console's limit; close some. Pages still work \
                 without live updates.",
                super::MAX_EVENT_CLIENTS
            ),
        );
    };
    // Last-Event-ID (the browser's, on reconnecting) wins over the page's parameters.
    let resumed = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            let (a, ch) = v.split_once('.').unwrap_or((v, ""));
            (a.parse::<u64>().ok(), ch.parse::<usize>().ok())
        });
    let tq = eq.filter.clone();
    let filter = match read(&c, move |m| {
        let count = m.entry_count()?;
        Ok((tq.filter(m)?, count))
    })
    .await
    {
        Ok(f) => f,
        Err(r) => return r,
    };
    let (filter, count) = filter;
    let room = eq.filter.room.clone().filter(|r| !r.is_empty());
    let after = resumed
        .and_then(|r| r.0)
        .or(eq.after)
        .unwrap_or(count)
        .min(count);
    let chan = resumed.and_then(|r| r.1).or(eq.chan).unwrap_or(0);
    let feed = Feed {
        c,
        filter,
        room: if eq.chan.is_some() || resumed.is_some_and(|r| r.1.is_some()) {
            room
        } else {
            None
        },
        after,
        chan,
        queue: VecDeque::new(),
        _permit: permit,
    };
    let events = stream::unfold(feed, |mut f| async move {
        loop {
            if let Some(e) = f.queue.pop_front() {
                return Some((Ok::<Event, Infallible>(e), f));
            }
            let stop = f.c.stop.clone();
            tokio::select! {
                () = stop.cancelled() => return None,
                () = tokio::time::sleep(POLL) => {}
            }
            if !f.poll().await {
                return None;
            }
        }
    });
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}
