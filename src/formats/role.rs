//! The shared field vocabulary: every capture group and JSON field mapping in
//! a format definition names one of these roles, so the parser never needs to
//! know what a particular source called its fields.

use serde::Deserialize;
use std::fmt;

/// A field's meaning. Capture names and `fields` keys in definitions use the
/// snake_case spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The event's time.
    Ts,
    /// When a repeated event was first seen (Kubernetes `firstTimestamp`).
    FirstTs,
    /// `GET /path HTTP/1.1`, split into method and path by the parser.
    Request,
    Method,
    /// Path, possibly with a query string; folded into a route.
    Path,
    Status,
    Bytes,
    /// Time taken, in the definition's `duration_unit`.
    Duration,
    Client,
    User,
    Referer,
    UserAgent,
    Tenant,
    /// An API key id or client id (hashed before it goes anywhere).
    ApiKey,
    Instance,
    RequestId,
    Level,
    Message,
    /// Orchestrator event reason (`Unhealthy`, `Killing`, ...).
    Reason,
    /// The object an orchestrator event is about.
    Object,
    Count,
    Metric,
    Value,
    /// A metric series' identity (name and labels).
    Series,
    /// CRI's tag: `P` when the line continues in the next record.
    Partial,
}

impl Role {
    pub const ALL: [Role; 25] = [
        Role::Ts,
        Role::FirstTs,
        Role::Request,
        Role::Method,
        Role::Path,
        Role::Status,
        Role::Bytes,
        Role::Duration,
        Role::Client,
        Role::User,
        Role::Referer,
        Role::UserAgent,
        Role::Tenant,
        Role::ApiKey,
        Role::Instance,
        Role::RequestId,
        Role::Level,
        Role::Message,
        Role::Reason,
        Role::Object,
        Role::Count,
        Role::Metric,
        Role::Value,
        Role::Series,
        Role::Partial,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Role::Ts => "ts",
            Role::FirstTs => "first_ts",
            Role::Request => "request",
            Role::Method => "method",
            Role::Path => "path",
            Role::Status => "status",
            Role::Bytes => "bytes",
            Role::Duration => "duration",
            Role::Client => "client",
            Role::User => "user",
            Role::Referer => "referer",
            Role::UserAgent => "user_agent",
            Role::Tenant => "tenant",
            Role::ApiKey => "api_key",
            Role::Instance => "instance",
            Role::RequestId => "request_id",
            Role::Level => "level",
            Role::Message => "message",
            Role::Reason => "reason",
            Role::Object => "object",
            Role::Count => "count",
            Role::Metric => "metric",
            Role::Value => "value",
            Role::Series => "series",
            Role::Partial => "partial",
        }
    }

    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Index into a fixed-size field table.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_index_is_dense() {
        for (i, role) in Role::ALL.into_iter().enumerate() {
            assert_eq!(Role::from_name(role.name()), Some(role));
            assert_eq!(role.index(), i);
        }
        assert_eq!(Role::from_name("no_such_role"), None);
    }
}
