//! `token`: per-agent credentials for the daemon's HTTP edge. `token issue` prints a
//! token once (only its hash is kept); a session using it acts as exactly that room and
//! role. `token list` shows what was issued, `token revoke ID` ends one at its next request.

use clap::Subcommand;
use serde::Serialize;

use super::Global;
use super::out::{Outcome, emit, note};
use crate::daemon;

/// What `token` does.
#[derive(Debug, Subcommand)]
pub enum TokenCmd {
    /// Issue a token bound to one room and role; printed once, never shown again. Give it
    /// to the agent's MCP client as `Authorization: Bearer <token>`.
    Issue {
        /// The room the token acts as.
        #[arg(long)]
        room: String,
        /// The role the token acts as (manager, engineer, qa, architect, …).
        #[arg(long)]
        role: String,
    },
    /// List issued tokens (ids, identities, when issued and revoked; never the tokens).
    List,
    /// Revoke a token by its id (from `token list`); it stops working at its next request.
    Revoke {
        /// The token's id.
        id: String,
    },
}

#[derive(Serialize)]
struct Issued<'a> {
    id: &'a str,
    room: &'a str,
    role: &'a str,
    token: &'a str,
}

impl TokenCmd {
    pub(super) fn run(self, g: &Global) -> anyhow::Result<Outcome> {
        let (paths, _, _) = g.layout()?;
        let env = |k: &str| std::env::var(k).ok();
        let store = daemon::place(&paths.root, &env)?.credentials;
        let now = g.clock().now().to_rfc3339();
        match self {
            TokenCmd::Issue { room, role } => {
                crate::validate::path_component("--room", &room)?;
                crate::validate::short_id("--role", &role)?;
                let (rec, token) = store.issue(&room, &role, &now)?;
                let out = Issued {
                    id: &rec.id,
                    room: &rec.room,
                    role: &rec.role,
                    token: &token,
                };
                emit(g.json, &out, |o| o.token.to_string());
                note(&format!(
                    "token {} acts as room {} / role {}; it is shown only now. Revoke it with \
                     `warroom-memory token revoke {}`",
                    rec.id, rec.room, rec.role, rec.id
                ));
                Ok(Outcome::Ok)
            }
            TokenCmd::List => {
                let tokens = store.list()?;
                emit(g.json, &tokens, |ts| {
                    if ts.is_empty() {
                        return "no agent tokens issued".to_string();
                    }
                    ts.iter()
                        .map(|t| {
                            format!(
                                "{}  {} / {}  issued {}{}",
                                t.id,
                                t.room,
                                t.role,
                                t.issued,
                                t.revoked
                                    .as_ref()
                                    .map(|r| format!("  REVOKED {r}"))
                                    .unwrap_or_default()
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                });
                Ok(Outcome::Ok)
            }
            TokenCmd::Revoke { id } => {
                if store.revoke(&id, &now)? {
                    note(&format!("token {id} revoked"));
                    Ok(Outcome::Ok)
                } else {
                    note(&format!(
                        "no live token has id {id} (see `warroom-memory token list`)"
                    ));
                    Ok(Outcome::NothingFound)
                }
            }
        }
    }
}
