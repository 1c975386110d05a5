//! Signing a browser in to the console: one-time codes traded for sessions of their own.
//!
//! The address `warroom-memory console` prints carries a **code**, never the operator
//! token: `<expiry>.<nonce>.<mac>`, where the MAC is BLAKE3 keyed with a key derived from
//! the operator token, so only someone holding the token can make one (the command reads
//! it from the daemon's token file). The daemon accepts a code once (its nonce is kept
//! until it expires) and only before its expiry, at most [`CODE_LIFETIME`] ahead — a code
//! left in the browser's history or a terminal's scrollback opens nothing later.
//!
//! A redeemed code opens a **session**: 32 random bytes in an `HttpOnly; SameSite=Strict`
//! cookie, held by the daemon only as a digest. A session ends after `idle` without a
//! request, `max_age` after it began, on `/logout`, and when the daemon stops — which is
//! how the operator token rotates (a new token file, a restarted daemon), so a new token
//! leaves no old session alive. Sessions are counted: past [`MAX_SESSIONS`] the oldest
//! ends.
//!
//! The residual risk (docs/security.md): browsers send a cookie to every port of the
//! host, so a program of another local user listening on a port this browser visits can
//! read the session cookie and use it until it ends (idle or absolute expiry, `/logout`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a printed sign-in code stays good.
pub const CODE_LIFETIME: Duration = Duration::from_secs(60);
/// Default: a session without a request for this long ends.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(30 * 60);
/// Default: a session ends this long after it began, however busy.
pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(12 * 3600);
/// Most console sessions at once; a new one past it ends the oldest.
pub const MAX_SESSIONS: usize = 64;

/// The key that makes and checks sign-in codes, derived from the operator token.
fn code_key(operator_token: &str) -> [u8; 32] {
    blake3::derive_key(
        "warroom-memory 2026 console sign-in code",
        operator_token.as_bytes(),
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn random_hex(n: usize) -> String {
    let mut buf = vec![0u8; n];
    // No randomness at all is not something a sign-in can do without.
    getrandom::fill(&mut buf).expect("the OS gives random bytes");
    hex(&buf)
}

/// The MAC over a code's expiry, nonce and the daemon's address (`host:port`,
/// lower-cased): a code is good at the one daemon it was printed for, even when two
/// daemons share an operator token.
fn mac(key: &[u8; 32], expiry: u64, nonce: &str, authority: &str) -> blake3::Hash {
    blake3::keyed_hash(
        key,
        format!("{expiry}.{nonce}.{}", authority.to_ascii_lowercase()).as_bytes(),
    )
}

/// A sign-in code for the daemon holding `operator_token` at `authority` (`host:port`, as
/// the printed address names it), good until `now_unix` + [`CODE_LIFETIME`] (the command
/// line's clock: it is an edge).
pub fn mint_code(operator_token: &str, authority: &str, now_unix: u64) -> String {
    let expiry = now_unix + CODE_LIFETIME.as_secs();
    let nonce = random_hex(16);
    let m = mac(&code_key(operator_token), expiry, &nonce, authority);
    format!("{expiry}.{nonce}.{}", m.to_hex())
}

/// Why a code was not accepted (shown to the person, never logged with the code).
#[derive(Debug, PartialEq, Eq)]
pub enum CodeRefused {
    /// Not a code this daemon made (another token, or garbled).
    Wrong,
    /// Past its expiry.
    Expired,
    /// Already used once.
    Used,
}

struct Live {
    began: Instant,
    seen: Instant,
}

/// The daemon's sign-in state: used codes and live sessions.
pub(crate) struct SignIn {
    key: [u8; 32],
    idle: Duration,
    max_age: Duration,
    /// Nonces of redeemed codes, with their expiry (unix seconds), until they expire.
    used: Mutex<HashMap<String, u64>>,
    /// Live sessions by the BLAKE3 digest of their cookie value.
    sessions: Mutex<HashMap<[u8; 32], Live>>,
}

impl SignIn {
    pub(crate) fn new(operator_token: &str, idle: Duration, max_age: Duration) -> SignIn {
        SignIn {
            key: code_key(operator_token),
            idle,
            max_age,
            used: Mutex::new(HashMap::new()),
            sessions: Mutex::new(HashMap::new()),
        }
    }

    /// How long the cookie may live in the browser (the absolute expiry).
    pub(crate) fn max_age(&self) -> Duration {
        self.max_age
    }

    /// Accepts `code` once, before its expiry, when it was made for `authority` (the
    /// request's `Host`).
    pub(crate) fn redeem(
        &self,
        code: &str,
        authority: &str,
        now_unix: u64,
    ) -> Result<(), CodeRefused> {
        let mut parts = code.trim().splitn(3, '.');
        let (Some(expiry), Some(nonce), Some(given)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(CodeRefused::Wrong);
        };
        let Ok(expiry) = expiry.parse::<u64>() else {
            return Err(CodeRefused::Wrong);
        };
        // blake3::Hash compares in constant time.
        let want = mac(&self.key, expiry, nonce, authority);
        if nonce.len() != 32 || blake3::Hash::from_hex(given).ok() != Some(want) {
            return Err(CodeRefused::Wrong);
        }
        // A code dated further ahead than one lifetime was not made by our command.
        if expiry < now_unix || expiry > now_unix + CODE_LIFETIME.as_secs() + 5 {
            return Err(CodeRefused::Expired);
        }
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        used.retain(|_, &mut e| e >= now_unix);
        if used.insert(nonce.to_string(), expiry).is_some() {
            return Err(CodeRefused::Used);
        }
        Ok(())
    }

    /// A new session; returns the cookie value.
    pub(crate) fn open(&self, now: Instant) -> String {
        let value = random_hex(32);
        let mut s = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        self.expire(&mut s, now);
        if s.len() >= MAX_SESSIONS
            && let Some(oldest) = s.iter().min_by_key(|(_, l)| l.began).map(|(k, _)| *k)
        {
            s.remove(&oldest);
        }
        s.insert(
            digest(&value),
            Live {
                began: now,
                seen: now,
            },
        );
        value
    }

    /// True if `value` is a live session (and marks it used now).
    pub(crate) fn check(&self, value: &str, now: Instant) -> bool {
        let mut s = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        self.expire(&mut s, now);
        match s.get_mut(&digest(value)) {
            Some(l) => {
                l.seen = now;
                true
            }
            None => false,
        }
    }

    /// Ends the session `value` (nothing if it is not one).
    pub(crate) fn end(&self, value: &str) {
        let mut s = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        s.remove(&digest(value));
    }

    fn expire(&self, s: &mut HashMap<[u8; 32], Live>, now: Instant) {
        s.retain(|_, l| {
            now.duration_since(l.seen) < self.idle && now.duration_since(l.began) < self.max_age
        });
    }
}

fn digest(value: &str) -> [u8; 32] {
    *blake3::hash(value.as_bytes()).as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signin() -> SignIn {
        SignIn::new(
            "operator-token-0123456789",
            Duration::from_secs(60),
            Duration::from_secs(600),
        )
    }

    #[test]
    fn a_code_is_good_once_and_only_before_its_expiry() {
        let s = signin();
        let at = "127.0.0.1:7391";
        let code = mint_code("operator-token-0123456789", at, 1000);
        assert_eq!(s.redeem(&code, at, 1001), Ok(()));
        assert_eq!(s.redeem(&code, at, 1002), Err(CodeRefused::Used));
        let late = mint_code("operator-token-0123456789", at, 1000);
        assert_eq!(s.redeem(&late, at, 1061), Err(CodeRefused::Expired));
        let other = mint_code("another-token-0123456789", at, 1000);
        assert_eq!(s.redeem(&other, at, 1001), Err(CodeRefused::Wrong));
        let mut forged = mint_code("operator-token-0123456789", at, 1000);
        forged.replace_range(0..4, "9999");
        assert_eq!(s.redeem(&forged, at, 1001), Err(CodeRefused::Wrong));
        assert_eq!(s.redeem("garbage", at, 1001), Err(CodeRefused::Wrong));
    }

    #[test]
    fn a_code_is_good_only_at_the_daemon_it_was_printed_for() {
        // Two daemons sharing one operator token: the code printed for one opens nothing
        // at the other, so it stays good once, not once per daemon.
        let (a, b) = (signin(), signin());
        let code = mint_code("operator-token-0123456789", "127.0.0.1:7391", 1000);
        assert_eq!(
            b.redeem(&code, "127.0.0.1:7392", 1001),
            Err(CodeRefused::Wrong)
        );
        assert_eq!(a.redeem(&code, "127.0.0.1:7391", 1001), Ok(()));
        let upper = mint_code("operator-token-0123456789", "LOCALHOST:7391", 1000);
        assert_eq!(a.redeem(&upper, "localhost:7391", 1001), Ok(()));
    }

    #[test]
    fn sessions_end_when_idle_when_old_and_on_logout() {
        let s = signin();
        let t0 = Instant::now();
        let a = s.open(t0);
        assert!(s.check(&a, t0 + Duration::from_secs(59)));
        assert!(
            s.check(&a, t0 + Duration::from_secs(118)),
            "a request renews it"
        );
        assert!(!s.check(&a, t0 + Duration::from_secs(179)), "idle for 61 s");
        let b = s.open(t0);
        for m in 1..=10 {
            assert!(s.check(&b, t0 + Duration::from_secs(m * 55)), "minute {m}");
        }
        assert!(!s.check(&b, t0 + Duration::from_secs(601)), "past max age");
        let c = s.open(t0);
        s.end(&c);
        assert!(!s.check(&c, t0));
        assert!(!s.check("not-a-session", t0));
    }

    #[test]
    fn the_oldest_session_ends_past_the_cap() {
        let s = signin();
        let t0 = Instant::now();
        let first = s.open(t0);
        for i in 1..=MAX_SESSIONS as u64 {
            s.open(t0 + Duration::from_millis(i));
        }
        assert!(!s.check(&first, t0 + Duration::from_secs(1)));
    }
}
