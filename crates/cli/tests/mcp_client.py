"""Drives `goldfish mcp` with the official MCP Python SDK (a client that is not ours).

Usage: python mcp_client.py GOLDFISH_BINARY GOLDFISH_HOME ROOT_DIR

The first session also sets a log level and receives a log message, subscribes to a
resource and is told when another `goldfish` process changes it.

ROOT_DIR is offered as the client's MCP root in a second session: a checkpoint made there
must land in the workspace of ROOT_DIR, not in that of the server's working directory.

Run by tests/mcp.rs inside a venv holding the pinned `mcp` package. Prints one line per check
and `ALL OK` at the end; any failed check raises, and the process exits non-zero.
"""

import asyncio
import os
import pathlib
import subprocess
import sys

import jsonschema
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def check(cond, what, detail=""):
    if not cond:
        raise AssertionError(f"{what}: {detail}")
    print(f"ok: {what}", flush=True)


SCHEMAS = {}


def portable(schema, where):
    """No type arrays, no null types, only standard formats: what strict backends accept."""
    standard = {"date-time", "date", "time", "duration", "email", "idn-email", "hostname",
                "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference",
                "uuid", "uri-template", "regex"}
    if isinstance(schema, list):
        for i, item in enumerate(schema):
            portable(item, f"{where}/{i}")
    elif isinstance(schema, dict):
        t = schema.get("type")
        check(not isinstance(t, list) and t != "null", f"{where}: no type array or null", t)
        f = schema.get("format")
        check(f is None or f in standard, f"{where}: standard format", f)
        for k, v in schema.items():
            portable(v, f"{where}/{k}")


def structured(name, result):
    """Checks a successful result's structuredContent against the tool's outputSchema."""
    check(not result.is_error, f"{name} succeeds", text_of(result))
    check(result.structured_content is not None, f"{name} has structuredContent")
    jsonschema.Draft202012Validator(SCHEMAS[name]).validate(result.structured_content)
    print(f"ok: {name} structuredContent validates against its outputSchema", flush=True)
    return result.structured_content


# How long a notification may take before the client calls the server stuck (a guard, not a
# timing: the server sends it as soon as it knows).
HANG_GUARD_SECONDS = 120


class Inbox:
    """Log messages and resource updates as the session's callbacks receive them."""

    def __init__(self):
        self.logs = []
        self.updates = []
        self.changed = asyncio.Event()

    async def on_log(self, params):
        self.logs.append(params)
        self.changed.set()

    async def on_message(self, message):
        if isinstance(message, types.ResourceUpdatedNotification):
            self.updates.append(str(message.params.uri))
            self.changed.set()

    async def wait_for(self, what, ready):
        """Waits until `ready()` holds; each callback wakes it."""
        while not ready():
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), HANG_GUARD_SECONDS)
            except asyncio.TimeoutError:
                raise AssertionError(f"{what}: nothing came (logs {self.logs}, updates {self.updates})")


async def main(binary, home, root_dir):
    env = {
        "GOLDFISH_HOME": home,
        "GOLDFISH_WORKSPACE": "mcp-test",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", home),
    }
    params = StdioServerParameters(command=binary, args=["mcp"], env=env, cwd=home)
    inbox = Inbox()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, logging_callback=inbox.on_log,
                                 message_handler=inbox.on_message) as s:
            init = await s.initialize()
            caps = init.capabilities
            check(caps.logging is not None, "the server declares logging", caps)
            check(caps.resources is not None and caps.resources.subscribe, "the server declares resource subscriptions", caps)
            check("EXCELLENT at checkpointing" in (init.instructions or ""), "instructions: checkpointing")
            check("MANDATORY at session start" in (init.instructions or ""), "instructions: session start")

            tools = {t.name: t for t in (await s.list_tools()).tools}
            check(sorted(tools) == ["checkpoint", "forget", "plan", "recall"], "the four tools", sorted(tools))
            for name, tool in tools.items():
                check(tool.title, f"{name} has a title", tool.title)
                check(tool.output_schema is not None, f"{name} has an outputSchema")
                jsonschema.Draft202012Validator.check_schema(tool.output_schema)
                jsonschema.Draft202012Validator.check_schema(tool.input_schema)
                portable(tool.input_schema, f"{name} inputSchema")
                portable(tool.output_schema, f"{name} outputSchema")
                SCHEMAS[name] = tool.output_schema
                check(tool.annotations is not None, f"{name} has annotations")
                check(tool.annotations.open_world_hint is False, f"{name} closed world")
            a = tools["recall"].annotations
            check(a.read_only_hint is True and a.idempotent_hint is True, "recall: read-only, idempotent", a)
            a = tools["checkpoint"].annotations
            check(a.read_only_hint is False and a.destructive_hint is False, "checkpoint: not destructive", a)
            check(tools["plan"].annotations.destructive_hint is True, "plan: destructive (overwrites)")
            status = tools["plan"].input_schema["properties"]["status"]
            check(status.get("enum") == ["active", "completed", "archived"], "plan status is an enum", status)
            check("archive" in tools["plan"].input_schema["properties"]["action"]["enum"], "plan archive action")
            check("EXCELLENT at recognizing" in tools["checkpoint"].description, "checkpoint description")
            check("MANDATORY at session start" in tools["recall"].description, "recall description")
            check("HOURS of planning" in tools["plan"].description, "plan description")
            for name, props in [
                ("checkpoint", ["description", "tags", "workspace"]),
                ("recall", ["workspace", "days", "since", "from", "to", "search", "limit", "full"]),
                ("plan", ["action", "id", "title", "content", "status", "activate", "workspace"]),
            ]:
                have = tools[name].input_schema.get("properties", {})
                check(all(p in have for p in props), f"{name} schema properties", sorted(have))
            check(tools["checkpoint"].input_schema.get("required") == ["description"], "checkpoint requires description")

            prompts = sorted(p.name for p in (await s.list_prompts()).prompts)
            check(prompts == ["checkpoint", "plan-status", "recall", "standup"], "four prompts", prompts)

            # checkpoint, with tags sent as a JSON string the way some clients do.
            r = await s.call_tool("checkpoint", {
                "description": "Fixed the login timeout\nRefresh tokens now last 60 minutes.",
                "tags": "[\"bug-fix\", \"auth\"]",
            })
            t = text_of(r)
            check(not r.is_error, "checkpoint succeeds", t)
            check("Checkpoint saved" in t and "Fixed the login timeout" in t, "checkpoint text", t)
            c = structured("checkpoint", r)
            check(c["id"] in t, "checkpoint reply names the new id", t)
            check(c["workspace"] == "mcp-test" and c["tags"] == ["bug-fix", "auth"], "checkpoint structured", c)

            r = await s.call_tool("checkpoint", {"description": "Added OAuth2 support", "tags": "oauth, auth"})
            check(not r.is_error, "checkpoint with comma tags", text_of(r))

            # plan: save (activates by default), get, list, update, complete.
            r = await s.call_tool("plan", {
                "action": "save", "id": "auth-system", "title": "Auth system",
                "content": "## Progress\n- [x] JWT refresh\n- [ ] OAuth2",
            })
            t = text_of(r)
            check(not r.is_error and "auth-system" in t, "plan save", t)
            p = structured("plan", r)["plan"]
            check(p["id"] == "auth-system" and p["done"] == 1 and p["total"] == 2 and p["active"], "plan save structured", p)
            r = await s.call_tool("plan", {"action": "get"})
            t = text_of(r)
            check(not r.is_error and "Auth system" in t and "OAuth2" in t, "plan get (active)", t)
            structured("plan", r)
            r = await s.call_tool("plan", {"action": "list"})
            check(not r.is_error and "auth-system" in text_of(r), "plan list", text_of(r))
            check([p["id"] for p in structured("plan", r)["plans"]] == ["auth-system"], "plan list structured")
            r = await s.call_tool("plan", {"action": "update", "id": "auth-system", "content": "## Progress\n- [x] JWT refresh\n- [x] OAuth2"})
            check(not r.is_error, "plan update", text_of(r))
            check(structured("plan", r)["plan"]["done"] == 2, "plan update structured")
            r = await s.call_tool("plan", {"action": "save", "id": "old-idea", "title": "Old idea", "activate": False})
            structured("plan", r)
            r = await s.call_tool("plan", {"action": "archive", "id": "old-idea"})
            check(structured("plan", r)["plan"]["status"] == "archived", "plan archive", text_of(r))
            r = await s.call_tool("plan", {"action": "activate", "id": "auth-system"})
            structured("plan", r)

            # recall: both checkpoints and the active plan, as markdown (not a JSON dump).
            r = await s.call_tool("recall", {"days": "7"})
            t = text_of(r)
            check(not r.is_error, "recall succeeds", t)
            check("Fixed the login timeout" in t and "Added OAuth2 support" in t, "recall lists checkpoints", t)
            check("Auth system" in t, "recall shows the active plan", t)
            check(not t.lstrip().startswith("{"), "recall is markdown, not JSON", t[:80])
            rc = structured("recall", r)
            check(rc["total"] == 2 and rc["active_plan"]["id"] == "auth-system", "recall structured", rc)
            r = await s.call_tool("recall", {"search": "authentcation", "limit": 1})
            check(not r.is_error and "auth" in text_of(r).lower(), "recall search tolerates typos", text_of(r))

            # Malformed calls are tool errors, and the server keeps serving.
            for bad_name, bad_args, needle in [
                ("plan", {"action": "explode"}, "explode"),
                ("checkpoint", {"tags": ["x"]}, "description"),
                ("recall", {"days": "soon"}, "soon"),
                ("plan", {"action": "get", "id": "no-such-plan"}, "no-such-plan"),
                ("recall", {"workspace": "../etc"}, "workspace"),
            ]:
                r = await s.call_tool(bad_name, bad_args)
                check(r.is_error and needle in text_of(r), f"tool error for {bad_name} {bad_args}", text_of(r))
            r = await s.call_tool("plan", {"action": "complete", "id": "auth-system"})
            check(not r.is_error, "server still serves after errors", text_of(r))
            check(structured("plan", r)["plan"]["status"] == "completed", "plan complete structured")
            r = await s.call_tool("plan", {"action": "activate", "id": "auth-system"})
            structured("plan", r)

            # Resources: the active plan, recent checkpoints, plans by template.
            uris = [str(x.uri) for x in (await s.list_resources()).resources]
            check("goldfish://mcp-test/plan" in uris and "goldfish://mcp-test/checkpoints" in uris, "resources listed", uris)
            templates = [t.uri_template for t in (await s.list_resource_templates()).resource_templates]
            check("goldfish://{workspace}/plans/{id}" in templates, "plan template", templates)
            for uri, needle in [
                ("goldfish://mcp-test/plan", "Auth system"),
                ("goldfish://mcp-test/checkpoints", "Fixed the login timeout"),
                ("goldfish://mcp-test/plans/old-idea", "Old idea"),
            ]:
                res = await s.read_resource(uri)
                body = "\n".join(getattr(c, "text", "") for c in res.contents)
                check(needle in body, f"read {uri}", body[:200])
            try:
                await s.read_resource("goldfish://mcp-test/nothing-here")
                check(False, "an unknown resource is an error")
            except Exception as e:  # the SDK raises the JSON-RPC error
                check("goldfish://" in str(e), "an unknown resource is an error naming the scheme", e)

            # Logging: nothing before a level is set; a tool's error at `error` after.
            r = await s.call_tool("plan", {"action": "explode"})
            check(r.is_error, "a tool error before any level", text_of(r))
            # (An unknown level is refused by the SDK itself before it is sent; tests/mcp_notify.rs
            # sends one.)
            await s.set_logging_level("warning")
            r = await s.call_tool("plan", {"action": "explode-again"})
            await inbox.wait_for("a log message", lambda: inbox.logs)
            first = inbox.logs[0]
            check(first.level == "error" and first.logger == "goldfish", "a log message at error from goldfish", first)
            check("explode-again" in str(first.data), "the message is the second error, not the one before the level", first)

            # Subscriptions: a URI goldfish sends no update for is accepted with a warning; a
            # change by another goldfish process to a subscribed resource is told.
            await s.subscribe_resource("goldfish://mcp-test/nothing-here")
            await inbox.wait_for("the warning", lambda: any("nothing-here" in str(l.data) for l in inbox.logs))
            warned = [l for l in inbox.logs if "nothing-here" in str(l.data)]
            check(warned[0].level == "warning" and "no update will come" in str(warned[0].data),
                  "subscribing to a URI with no updates warns", warned[0])
            uri = "goldfish://mcp-test/checkpoints"
            await s.subscribe_resource(uri)
            cli_env = dict(env, GOLDFISH_WORKSPACE="mcp-test")
            subprocess.run([binary, "checkpoint", "Made by another process"], env=cli_env, cwd=home,
                           check=True, capture_output=True)
            await inbox.wait_for("an update of " + uri, lambda: uri in inbox.updates)
            res = await s.read_resource(uri)
            body = "\n".join(getattr(c, "text", "") for c in res.contents)
            check("Made by another process" in body, "the updated resource reads the change", body[:200])
            await s.unsubscribe_resource(uri)

            for name, args in [("recall", {}), ("checkpoint", {}), ("standup", {"days": "2"}), ("plan-status", {})]:
                p = await s.get_prompt(name, args)
                check(len(p.messages) >= 1 and p.messages[0].content.text.strip() != "", f"prompt {name}")
            p = await s.get_prompt("recall", {})
            check("Fixed the login timeout" in p.messages[0].content.text, "recall prompt embeds context")

    # Roots: a client that offers a root; the server was started elsewhere (in the store's
    # directory) and GOLDFISH_WORKSPACE is unset, so only the root can name the workspace.
    root = pathlib.Path(root_dir).resolve()

    async def list_roots(context):
        return types.ListRootsResult(roots=[types.Root(uri=root.as_uri(), name="project")])

    env.pop("GOLDFISH_WORKSPACE")
    params = StdioServerParameters(command=binary, args=["mcp"], env=env, cwd=home)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=list_roots) as s:
            await s.initialize()
            tools = {t.name: t for t in (await s.list_tools()).tools}
            for name, tool in tools.items():
                SCHEMAS[name] = tool.output_schema
            r = await s.call_tool("checkpoint", {"description": "Work in the rooted project"})
            c = structured("checkpoint", r)
            check(c["workspace"] == root.name, "the checkpoint lands in the root's workspace", c)
            check((pathlib.Path(home) / root.name).is_dir(), "the root's workspace is in the store")
            r = await s.call_tool("recall", {})
            check("Work in the rooted project" in text_of(r), "recall reads the root's workspace", text_of(r))
            uris = [str(x.uri) for x in (await s.list_resources()).resources]
            check(f"goldfish://{root.name}/checkpoints" in uris, "resources name the root's workspace", uris)
    print("ALL OK", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
