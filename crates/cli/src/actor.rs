//! Who is saving, as this process observes it: the environment the client started it with
//! and, under `goldfish mcp`, the client's own `clientInfo`. Never what an agent writes in a
//! tool call. The store adds the git user and e-mail and cleans every value.

use goldfish_store::Actor;

/// Names the client (agent harness) saving; wins over the MCP client's `clientInfo`.
pub(crate) const HARNESS_ENV: &str = "GOLDFISH_HARNESS";
/// Names the model saving.
pub(crate) const MODEL_ENV: &str = "GOLDFISH_MODEL";
/// Names the client's session.
pub(crate) const SESSION_ENV: &str = "GOLDFISH_SESSION";
/// Names this machine, over its host name (a machine whose host name changes, or a test
/// that plays another machine).
pub(crate) const HOST_ENV: &str = "GOLDFISH_HOST";

/// A set, non-blank environment variable.
fn var(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

/// The OS user: `USER` on Unix, `USERNAME` on Windows, `LOGNAME` where only the login name
/// is set.
fn os_user() -> Option<String> {
    var("USER")
        .or_else(|| var("USERNAME"))
        .or_else(|| var("LOGNAME"))
}

/// This machine's name: `GOLDFISH_HOST`, else the host name (`uname`'s node name on Unix,
/// `COMPUTERNAME` on Windows).
fn host() -> Option<String> {
    var(HOST_ENV).or_else(system_host)
}

#[cfg(unix)]
fn system_host() -> Option<String> {
    let name = rustix::system::uname();
    let name = name.nodename().to_string_lossy().trim().to_string();
    (!name.is_empty()).then_some(name)
}

#[cfg(not(unix))]
fn system_host() -> Option<String> {
    var("COMPUTERNAME")
}

/// This machine and user, as a save records them: what tells a memory saved here from one
/// that came from elsewhere when it is shown to an agent.
pub(crate) fn here() -> goldfish_store::frame::Here {
    goldfish_store::frame::Here::new(host(), os_user())
}

/// The actor of a save: `GOLDFISH_HARNESS`, `GOLDFISH_MODEL`, `GOLDFISH_SESSION`, the OS
/// user and this machine's name ([`here`]) from the environment, over `client`, the MCP
/// client's name and version.
pub(crate) fn observed(client: Option<(&str, &str)>) -> Actor {
    let mut from_env = Actor::default();
    from_env.harness = var(HARNESS_ENV);
    from_env.model = var(MODEL_ENV);
    from_env.session = var(SESSION_ENV);
    from_env.user = os_user();
    from_env.host = host();
    let mut from_client = Actor::default();
    from_client.harness =
        client
            .filter(|(name, _)| !name.trim().is_empty())
            .map(|(name, version)| {
                if version.trim().is_empty() {
                    name.to_string()
                } else {
                    format!("{name} {version}")
                }
            });
    from_env.or(from_client)
}

/// Who is forgetting, as a tombstone records it: the [`observed`] actor's fields on one line
/// (`harness=claude-code user=dev`), or `unknown`.
pub(crate) fn forgetter(client: Option<(&str, &str)>) -> String {
    observed(client)
        .cleaned()
        .summary()
        .unwrap_or_else(|| "unknown".to_string())
}
