//! `goldfish mcp`: the MCP server on stdio.
//!
//! Four tools (`checkpoint`, `recall`, `plan`, and `forget` for what must not be kept) with
//! behavioural descriptions that tell agents when to call them, titles and annotations, and four prompts (`recall`,
//! `checkpoint`, `standup`, `plan-status`) that clients offer as slash commands. A tool's
//! reply is compact markdown (what agents read: JSON costs them tokens) with the same facts as
//! `structuredContent`, described by the tool's `outputSchema`. Input and output schemas are
//! portable ([`schema`]): no type arrays, no non-standard formats. Resources
//! (`goldfish://{workspace}/plan`, `…/checkpoints`, `…/plans/{id}`) expose the same memory
//! for clients that attach context themselves. When the client offers MCP roots, the first
//! `file://` root is the directory the workspace and git context come from, instead of the
//! server's working directory. Every failure, including malformed arguments, is an MCP tool error (`isError`)
//! with a message saying what to do; the server never exits because of a bad call.
//! Stdout is the protocol, so logs go to stderr, and to the client as log messages once it
//! sets a level (`logging/setLevel`); a client may subscribe to the plan and checkpoints
//! resources and is told when the store changes them ([`outgoing`]).
//!
//! Each tool is an adapter: its parameters become the same library options the CLI builds
//! (`CheckpointInput`, `RecallOptions`, `PlanAction`), one library call does the work, and a
//! renderer writes the reply. Nothing here imports the CLI's `commands`.

mod checkpoint;
mod forget;
mod outgoing;
mod params;
mod plan;
mod prompts;
mod recall;
mod replies;
mod resources;
mod schema;
pub(crate) mod stdio;
mod watch;

use std::sync::Arc;

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ListResourceTemplatesResult,
    ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ResourceContents, ServerCapabilities, ServerConfig,
};
// Deprecated by rmcp for the 2026-07-28 revision; the revisions before it send these requests.
#[allow(deprecated)]
use rmcp::model::{SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, Peer, RoleServer};
use rmcp::{ServerHandler, ServiceExt as _, prompt_handler, tool};
use rmcp::{tool_handler, tool_router};
use serde::de::DeserializeOwned;

use crate::context::Context;
use checkpoint::{CHECKPOINT_DESCRIPTION, checkpoint_tool};
use forget::{FORGET_DESCRIPTION, ForgetOut, ForgetParams, forget_tool};
use outgoing::Level;
use params::{CheckpointParams, PlanParams, RecallParams};
use plan::{PLAN_DESCRIPTION, plan_tool};
use recall::{RECALL_DESCRIPTION, recall_tool};
use replies::{CheckpointOut, PlanToolOut, RecallOut, Reply};

/// The server's instructions, sent at initialisation.
pub(crate) const INSTRUCTIONS: &str = "\
Goldfish is your durable memory across sessions: checkpoints of what you did, plans, and recall.

You are EXCELLENT at checkpointing. Checkpoint proactively, WITHOUT asking permission, whenever \
you complete a task, make a discovery, reach a decision, or after about 10 exchanges. Lost \
context costs hours; a checkpoint takes 2 seconds.

recall() is MANDATORY at session start: call it as your FIRST action in EVERY session, then \
continue the work IMMEDIATELY based on what it returns. Trust the recalled context.

Plans represent hours of work: save a plan within one exchange of finishing it (e.g. after \
ExitPlanMode), and update it as you make progress.";

/// The MCP server.
#[derive(Debug, Clone)]
pub(crate) struct GoldfishServer {
    ctx: Arc<Context>,
    /// The directory of the client's first `file://` root, once asked (`None` inside: the
    /// client offers no usable root). Forgotten when the client says its roots changed.
    roots: Arc<tokio::sync::Mutex<Option<Option<std::path::PathBuf>>>>,
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

/// `goldfish mcp --verbose`: lifecycle lines and tool errors go to stderr too. Set once by
/// [`serve`] before the server starts.
static VERBOSE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes `goldfish mcp: {line}` to stderr with `--verbose` only: what the client is told
/// anyway (a tool's error) or needs not know (the server started). Clients log every stderr
/// line of a server as an error, so a normal session writes none. A client that asked for
/// log messages at `level` gets the line as one, `--verbose` or not: it chose to.
fn verbose_line(level: Level, line: std::fmt::Arguments<'_>) {
    if VERBOSE.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("goldfish mcp: {line}");
    }
    outgoing::to_client(level, line.to_string());
}

/// The stdin reader's log lines: to stderr and, at their level, to the client.
fn stdio_log(severity: crate::mcp::stdio::Severity, line: std::fmt::Arguments<'_>) {
    let level = match severity {
        crate::mcp::stdio::Severity::Warning => Level::Warning,
        crate::mcp::stdio::Severity::Error => Level::Error,
    };
    outgoing::log(level, line);
}

/// Runs the server on stdin/stdout until the client disconnects; `verbose` as
/// `--verbose` (see [`verbose_line`]).
pub(crate) fn serve(
    ctx: Context,
    stdio: crate::mcp::stdio::StdioOptions,
    verbose: bool,
) -> anyhow::Result<()> {
    VERBOSE.store(verbose, std::sync::atomic::Ordering::Relaxed);
    // Held until the server stops: file-system events refresh the recall indexes early.
    let _watch = ctx
        .open_store()
        .ok()
        .and_then(|store| crate::mcp::watch::start(store, ctx.recall_cache.clone()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // Opened before the session starts: nothing is sent on it before the client asks.
    let outgoing = outgoing::queue();
    runtime.block_on(async move {
        verbose_line(
            Level::Info,
            format_args!("serving on stdio (store {})", ctx.home.display()),
        );
        let service = GoldfishServer::new(ctx)
            .serve(crate::mcp::stdio::stdio(stdio, stdio_log))
            .await?;
        tokio::spawn(outgoing::run(outgoing, service.peer().clone()));
        let reason = service.waiting().await?;
        verbose_line(Level::Info, format_args!("stopped ({reason:?})"));
        Ok(())
    })
}

/// Deserializes tool arguments, naming the tool in the error.
fn parse_args<T: DeserializeOwned>(tool: &str, args: JsonObject) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::Object(args))
        .map_err(|e| format!("invalid arguments for `{tool}`: {e}. See the tool's input schema."))
}

/// Turns a reply or an error into a tool result.
fn to_result(result: Result<Reply, String>) -> CallToolResult {
    match result {
        Ok(reply) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(reply.text)]);
            result.structured_content = Some(reply.structured);
            result
        }
        Err(message) => {
            verbose_line(Level::Error, format_args!("tool error: {message}"));
            CallToolResult::error(vec![ContentBlock::text(format!("Error: {message}"))])
        }
    }
}

fn run_tool<T: DeserializeOwned>(
    tool: &str,
    args: JsonObject,
    f: impl FnOnce(T) -> anyhow::Result<Reply>,
) -> CallToolResult {
    to_result(parse_args(tool, args).and_then(|a| {
        // A bug in a library must not leave the client waiting for an answer that never
        // comes: a panic becomes a tool error and the server keeps serving.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(a))) {
            Ok(result) => result.map_err(|e| format!("{e:#}")),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_string());
                Err(format!(
                    "internal error in the `{tool}` tool ({what}); this is a goldfish bug, please report it"
                ))
            }
        }
    }))
}

#[tool_router]
impl GoldfishServer {
    /// A server over the store described by `ctx`.
    pub(crate) fn new(ctx: Context) -> Self {
        GoldfishServer {
            ctx: Arc::new(ctx),
            roots: Arc::default(),
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
        }
    }

    #[tool(
        name = "checkpoint",
        title = "Checkpoint",
        description = CHECKPOINT_DESCRIPTION,
        input_schema = crate::mcp::schema::input::<CheckpointParams>(),
        output_schema = crate::mcp::schema::output::<CheckpointOut>(),
        annotations(
            title = "Checkpoint",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn checkpoint(&self, peer: Peer<RoleServer>, args: JsonObject) -> CallToolResult {
        let ctx = self.context(&peer).await;
        // Who saves: the client as it introduced itself, under the environment's word.
        let info = peer.peer_info();
        let client = info.as_ref().map(|i| &i.client_info);
        let actor = crate::actor::observed(client.map(|c| (c.name.as_str(), c.version.as_str())));
        run_tool("checkpoint", args, |p| checkpoint_tool(&ctx, p, actor))
    }

    #[tool(
        name = "recall",
        title = "Recall",
        description = RECALL_DESCRIPTION,
        input_schema = crate::mcp::schema::input::<RecallParams>(),
        output_schema = crate::mcp::schema::output::<RecallOut>(),
        annotations(
            title = "Recall",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn recall(&self, peer: Peer<RoleServer>, args: JsonObject) -> CallToolResult {
        let ctx = self.context(&peer).await;
        run_tool("recall", args, |p| recall_tool(&ctx, p))
    }

    // One tool for every plan action: agents find one `plan` tool more easily than seven.
    // Annotations describe the tool as a whole, so it is marked destructive (save with an
    // existing id and update replace a plan's text); its description says which actions only
    // read.
    #[tool(
        name = "plan",
        title = "Plan",
        description = PLAN_DESCRIPTION,
        input_schema = crate::mcp::schema::input::<PlanParams>(),
        output_schema = crate::mcp::schema::output::<PlanToolOut>(),
        annotations(
            title = "Plan",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn plan(&self, peer: Peer<RoleServer>, args: JsonObject) -> CallToolResult {
        let ctx = self.context(&peer).await;
        run_tool("plan", args, |p| plan_tool(&ctx, p))
    }

    #[tool(
        name = "forget",
        title = "Forget",
        description = FORGET_DESCRIPTION,
        input_schema = crate::mcp::schema::input::<ForgetParams>(),
        output_schema = crate::mcp::schema::output::<ForgetOut>(),
        annotations(
            title = "Forget",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn forget(&self, peer: Peer<RoleServer>, args: JsonObject) -> CallToolResult {
        let ctx = self.context(&peer).await;
        let info = peer.peer_info();
        let client = info.as_ref().map(|i| &i.client_info);
        let by = crate::actor::forgetter(client.map(|c| (c.name.as_str(), c.version.as_str())));
        run_tool("forget", args, |p| forget_tool(&ctx, p, &by))
    }
}

impl GoldfishServer {
    /// The context of a call: the server's, with the working directory replaced by the
    /// client's first `file://` root when the client offers roots.
    // Roots are deprecated in a draft of the next protocol version; today's clients send them.
    #[allow(deprecated)]
    async fn context(&self, peer: &Peer<RoleServer>) -> Arc<Context> {
        let offers_roots = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !offers_roots {
            return self.ctx.clone();
        }
        let mut cached = self.roots.lock().await;
        if cached.is_none() {
            let listed = peer.list_roots().await;
            let dir = match listed {
                Ok(list) => list.roots.iter().find_map(|r| file_uri_path(&r.uri)),
                Err(e) => {
                    outgoing::log(
                        Level::Warning,
                        format_args!("cannot list the client's roots: {e}"),
                    );
                    None
                }
            };
            *cached = Some(dir);
        }
        match cached.as_ref().and_then(Option::as_ref) {
            Some(dir) => {
                let mut ctx = (*self.ctx).clone();
                ctx.cwd = dir.clone();
                ctx.cwd_is_client_root = true;
                Arc::new(ctx)
            }
            None => self.ctx.clone(),
        }
    }
}

/// The local path of a `file://` URI (`file:///home/me/x`, `file://localhost/…`), with
/// percent-escapes decoded; `None` for another scheme, a remote host or a relative path.
pub(crate) fn file_uri_path(uri: &str) -> Option<std::path::PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    // A `%` not followed by two hex digits stays as it is; escapes that decode to something
    // other than UTF-8 are no path of ours.
    let path = percent_encoding::percent_decode_str(rest)
        .decode_utf8()
        .ok()?;
    Some(std::path::PathBuf::from(path.into_owned()))
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for GoldfishServer {
    #[allow(deprecated)] // `enable_logging`: see `set_level`
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_logging()
                .build(),
        )
        .with_server_info(Implementation::new("goldfish", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        *self.roots.lock().await = None;
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        // Clients list resources before the first model request and retry a failed listing,
        // so a store that cannot be read lists nothing at once: the tools report the problem
        // with their error, and `goldfish doctor` with its fix.
        let ctx = self.context(&context.peer).await;
        let resources = crate::mcp::resources::list(&ctx).unwrap_or_else(|e| {
            verbose_line(Level::Warning, format_args!("no resources to list: {e:#}"));
            Vec::new()
        });
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            crate::mcp::resources::templates(),
        ))
    }

    // rmcp marks these deprecated: the 2026-07-28 revision replaces them with
    // `subscriptions/listen`, but clients of the revisions before it (the ones in use) send them.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // An unknown level never gets here: the stdin reader answers it with "invalid params"
        // naming the level.
        outgoing::set_level(request.level.into());
        Ok(())
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let ctx = self.context(&context.peer).await;
        outgoing::subscribe(crate::mcp::resources::subscribable(&ctx, &request.uri)?);
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let ctx = self.context(&context.peer).await;
        outgoing::unsubscribe(&crate::mcp::resources::subscribable(&ctx, &request.uri)?);
        Ok(())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let ctx = self.context(&context.peer).await;
        let uri = request.uri;
        let text = crate::mcp::resources::read(&ctx, &uri)?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, uri).with_mime_type("text/markdown"),
        ])
        .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_tools_with_schemas_and_descriptions() {
        let server = GoldfishServer::new(Context::new(Some("/nonexistent".into()), None).unwrap());
        let mut names: Vec<_> = server
            .tool_router
            .list_all()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        names.sort();
        assert_eq!(names, ["checkpoint", "forget", "plan", "recall"]);
        for tool in server.tool_router.list_all() {
            let props = tool
                .input_schema
                .get("properties")
                .and_then(|p| p.as_object());
            assert!(
                props.is_some_and(|p| !p.is_empty()),
                "{} has no properties",
                tool.name
            );
        }
        let schema =
            serde_json::Value::Object((*crate::mcp::schema::input::<PlanParams>()).clone());
        let text = schema.to_string();
        for action in [
            "save", "get", "list", "activate", "update", "complete", "archive",
        ] {
            assert!(
                text.contains(&format!("\"{action}\"")),
                "{action} missing from {text}"
            );
        }
        assert!(INSTRUCTIONS.contains("EXCELLENT at checkpointing"));
        assert!(INSTRUCTIONS.contains("MANDATORY at session start"));
        assert!(CHECKPOINT_DESCRIPTION.contains("✅ Complete any task → checkpoint NOW"));
    }

    #[test]
    fn every_schema_is_portable_and_every_tool_annotated() {
        let server = GoldfishServer::new(Context::new(Some("/nonexistent".into()), None).unwrap());
        for tool in server.tool_router.list_all() {
            let name = tool.name.to_string();
            let output = tool
                .output_schema
                .clone()
                .expect("every tool has an output schema");
            for (which, schema) in [("input", tool.input_schema.clone()), ("output", output)] {
                let value = serde_json::Value::Object((*schema).clone());
                assert_eq!(value["type"], "object", "{name} {which}");
                let mut found = Vec::new();
                crate::mcp::schema::problems(&value, "", &mut found);
                assert!(
                    found.is_empty(),
                    "{name} {which} schema: {found:?}\n{value:#}"
                );
            }
            assert!(tool.title.is_some(), "{name} has no title");
            let a = tool.annotations.clone().expect("annotations");
            assert_eq!(a.open_world_hint, Some(false), "{name}");
            match name.as_str() {
                "recall" => {
                    assert_eq!(a.read_only_hint, Some(true));
                    assert_eq!(a.idempotent_hint, Some(true));
                }
                "checkpoint" => {
                    assert_eq!(a.read_only_hint, Some(false));
                    assert_eq!(a.destructive_hint, Some(false));
                }
                "plan" => assert_eq!(a.destructive_hint, Some(true)),
                "forget" => {
                    assert_eq!(a.destructive_hint, Some(true));
                    assert_eq!(a.idempotent_hint, Some(true));
                }
                other => panic!("unexpected tool {other}"),
            }
        }
        let plan = serde_json::Value::Object((*crate::mcp::schema::input::<PlanParams>()).clone());
        assert_eq!(
            plan["properties"]["status"]["enum"],
            serde_json::json!(["active", "completed", "archived"])
        );
        assert!(PLAN_DESCRIPTION.contains("destructive"));
    }

    #[test]
    fn instructions_fit_what_clients_show() {
        let chars = INSTRUCTIONS.chars().count();
        assert!(chars <= 2_000, "{chars} characters");
        assert!(INSTRUCTIONS.contains("EXCELLENT at checkpointing"));
        assert!(INSTRUCTIONS.contains("MANDATORY at session start"));
    }

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_uri_path("file:///home/me/my%20project"),
            Some("/home/me/my project".into())
        );
        assert_eq!(
            file_uri_path("file://localhost/srv/x"),
            Some("/srv/x".into())
        );
        assert_eq!(file_uri_path("https://example.com/x"), None);
        assert_eq!(file_uri_path("file://remote-host/x"), None);
        assert_eq!(
            file_uri_path("file:///srv/caf%C3%A9/100%25/%zz"),
            Some("/srv/café/100%/%zz".into())
        );
        assert_eq!(file_uri_path("file:///srv/%FF"), None);
    }

    #[test]
    fn bad_arguments_become_clear_messages() {
        let cases = [
            (serde_json::json!({}), "missing field `description`"),
            (
                serde_json::json!({"description": "x", "colour": 1}),
                "unknown field `colour`",
            ),
            (serde_json::json!({"description": 5}), "invalid type"),
        ];
        for (args, want) in cases {
            let serde_json::Value::Object(obj) = args else {
                unreachable!()
            };
            let err = parse_args::<CheckpointParams>("checkpoint", obj).unwrap_err();
            assert!(err.contains(want) && err.contains("`checkpoint`"), "{err}");
        }
        let serde_json::Value::Object(obj) = serde_json::json!({"action": "explode"}) else {
            unreachable!()
        };
        let err = parse_args::<PlanParams>("plan", obj).unwrap_err();
        assert!(err.contains("explode") && err.contains("save"), "{err}");
    }
}
