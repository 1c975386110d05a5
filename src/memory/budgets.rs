//! What one identity may make the memory keep: appends (entries and channel posts) and
//! plan registrations a minute, bytes appended a minute. Each is a sliding window of 60
//! seconds per caller — an agent token when the session presented one, else the room and
//! role a process runs as — so no 60 seconds anywhere hold more than the limit, and one
//! agent's burst cannot make another agent's call fail or wait. An operator (no room
//! identity) is not metered. A call is charged before it writes; a refusal writes
//! nothing and says which limit, its figure, and when to retry.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use crate::config::{Identity, IdentityLimits};
use crate::error::{Error, Result};

/// What a call spends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Meter {
    /// An entry published or a channel message posted, with its bytes.
    Append,
    /// A plan registered.
    Plan,
}

/// Most callers remembered; past it, windows that have emptied are forgotten first.
const MAX_CALLERS: usize = 16_384;

/// One caller's calls of one meter in the last 60 seconds: (second, bytes), oldest first.
type Window = VecDeque<(i64, u64)>;

/// The windows of every caller.
#[derive(Default)]
pub(crate) struct Budgets {
    windows: Mutex<HashMap<(String, Meter), Window>>,
}

impl Budgets {
    /// Charges one call of `who` at `now` (seconds) that spends `bytes`, or refuses it
    /// when the 60 seconds up to `now` already hold the limit's count or bytes.
    pub(crate) fn charge(
        &self,
        who: &Identity,
        meter: Meter,
        now: i64,
        bytes: u64,
        limits: &IdentityLimits,
    ) -> Result<()> {
        if who.room_id.is_none() {
            return Ok(()); // an operator
        }
        let (count_cap, bytes_cap) = match meter {
            Meter::Append => (
                limits.appends_per_minute,
                limits.append_mib_per_minute.saturating_mul(1 << 20),
            ),
            Meter::Plan => (limits.plans_per_minute, u64::MAX),
        };
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if windows.len() >= MAX_CALLERS {
            windows.retain(|_, w| w.back().is_some_and(|&(t, _)| t > now - 60));
            if windows.len() >= MAX_CALLERS {
                windows.clear(); // a bound, not a policy: the oldest minute is forgotten
            }
        }
        let w = windows.entry((who.caller(), meter)).or_default();
        while w.front().is_some_and(|&(t, _)| t <= now - 60) {
            w.pop_front();
        }
        let spent: u64 = w.iter().map(|&(_, b)| b).sum();
        let over_count = w.len() >= count_cap as usize;
        let over_bytes = spent.saturating_add(bytes) > bytes_cap && !w.is_empty();
        if over_count || over_bytes {
            // The earliest second at which enough of the window has aged out.
            let retry = w.front().map_or(1, |&(t, _)| (t + 60 - now).max(1));
            let (what, key, figure) = match (meter, over_count) {
                (Meter::Append, true) => (
                    "entries and channel messages",
                    "appends_per_minute",
                    count_cap.to_string(),
                ),
                (Meter::Append, false) => (
                    "MiB of entries and channel messages",
                    "append_mib_per_minute",
                    limits.append_mib_per_minute.to_string(),
                ),
                (Meter::Plan, _) => (
                    "plan registrations",
                    "plans_per_minute",
                    count_cap.to_string(),
                ),
            };
            return Err(Error::Refused(format!(
                "{} may send at most {figure} {what} in any minute ({key} in \
                 .agents/warroom.yaml), and this call would pass it; nothing was written. \
                 Fix: retry in {retry} s",
                who.caller()
            )));
        }
        w.push_back((now, bytes));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(room: &str, credential: Option<&str>) -> Identity {
        Identity {
            room_id: Some(room.into()),
            role: Some("engineer".into()),
            credential: credential.map(str::to_string),
        }
    }

    fn limits() -> IdentityLimits {
        IdentityLimits {
            appends_per_minute: 3,
            append_mib_per_minute: 1,
            plans_per_minute: 2,
            plans_per_identity: 5,
        }
    }

    #[test]
    fn a_window_holds_the_count_and_forgets_after_sixty_seconds() {
        let b = Budgets::default();
        let a = who("room-a", None);
        for t in 0..3 {
            b.charge(&a, Meter::Append, t, 10, &limits()).unwrap();
        }
        let e = b.charge(&a, Meter::Append, 30, 10, &limits()).unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains("appends_per_minute") && e.contains("retry in 30 s"),
            "{e}"
        );
        // Another identity, and another meter, are their own.
        b.charge(&who("room-b", None), Meter::Append, 30, 10, &limits())
            .unwrap();
        b.charge(&a, Meter::Plan, 30, 0, &limits()).unwrap();
        // Sixty seconds after the first, one place is free again.
        b.charge(&a, Meter::Append, 60, 10, &limits()).unwrap();
        assert!(b.charge(&a, Meter::Append, 60, 10, &limits()).is_err());
    }

    #[test]
    fn bytes_are_bounded_but_one_call_always_fits_an_empty_window() {
        let b = Budgets::default();
        let a = who("room-a", None);
        b.charge(&a, Meter::Append, 0, 2 << 20, &limits()).unwrap();
        let e = b.charge(&a, Meter::Append, 1, 1, &limits()).unwrap_err();
        assert!(e.to_string().contains("append_mib_per_minute"), "{e}");
    }

    #[test]
    fn tokens_of_one_identity_are_metered_apart_and_operators_not_at_all() {
        let b = Budgets::default();
        let (x, y) = (who("room-a", Some("t1")), who("room-a", Some("t2")));
        for t in 0..3 {
            b.charge(&x, Meter::Append, t, 1, &limits()).unwrap();
        }
        assert!(b.charge(&x, Meter::Append, 3, 1, &limits()).is_err());
        b.charge(&y, Meter::Append, 3, 1, &limits()).unwrap();
        let op = Identity::default();
        for t in 0..100 {
            b.charge(&op, Meter::Append, t, 1 << 20, &limits()).unwrap();
        }
    }
}
