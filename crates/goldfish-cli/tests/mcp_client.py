"""Drives `goldfish mcp` with the official MCP Python SDK (a client that is not ours).

Usage: python mcp_client.py GOLDFISH_BINARY GOLDFISH_HOME

Run by tests/mcp.rs inside a venv holding the pinned `mcp` package. Prints one line per check
and `ALL OK` at the end; any failed check raises, and the process exits non-zero.
"""

import asyncio
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def check(cond, what, detail=""):
    if not cond:
        raise AssertionError(f"{what}: {detail}")
    print(f"ok: {what}", flush=True)


async def main(binary, home):
    env = {
        "GOLDFISH_HOME": home,
        "GOLDFISH_WORKSPACE": "mcp-test",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", home),
    }
    params = StdioServerParameters(command=binary, args=["mcp"], env=env, cwd=home)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            check("EXCELLENT at checkpointing" in (init.instructions or ""), "instructions: checkpointing")
            check("MANDATORY at session start" in (init.instructions or ""), "instructions: session start")

            tools = {t.name: t for t in (await s.list_tools()).tools}
            check(sorted(tools) == ["checkpoint", "plan", "recall"], "exactly three tools", sorted(tools))
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

            r = await s.call_tool("checkpoint", {"description": "Added OAuth2 support", "tags": "oauth, auth"})
            check(not r.is_error, "checkpoint with comma tags", text_of(r))

            # plan: save (activates by default), get, list, update, complete.
            r = await s.call_tool("plan", {
                "action": "save", "id": "auth-system", "title": "Auth system",
                "content": "## Progress\n- [x] JWT refresh\n- [ ] OAuth2",
            })
            t = text_of(r)
            check(not r.is_error and "auth-system" in t, "plan save", t)
            r = await s.call_tool("plan", {"action": "get"})
            t = text_of(r)
            check(not r.is_error and "Auth system" in t and "OAuth2" in t, "plan get (active)", t)
            r = await s.call_tool("plan", {"action": "list"})
            check(not r.is_error and "auth-system" in text_of(r), "plan list", text_of(r))
            r = await s.call_tool("plan", {"action": "update", "id": "auth-system", "content": "## Progress\n- [x] JWT refresh\n- [x] OAuth2"})
            check(not r.is_error, "plan update", text_of(r))

            # recall: both checkpoints and the active plan, as markdown (not a JSON dump).
            r = await s.call_tool("recall", {"days": "7"})
            t = text_of(r)
            check(not r.is_error, "recall succeeds", t)
            check("Fixed the login timeout" in t and "Added OAuth2 support" in t, "recall lists checkpoints", t)
            check("Auth system" in t, "recall shows the active plan", t)
            check(not t.lstrip().startswith("{"), "recall is markdown, not JSON", t[:80])
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

            for name, args in [("recall", {}), ("checkpoint", {}), ("standup", {"days": "2"}), ("plan-status", {})]:
                p = await s.get_prompt(name, args)
                check(len(p.messages) >= 1 and p.messages[0].content.text.strip() != "", f"prompt {name}")
            p = await s.get_prompt("recall", {})
            check("Fixed the login timeout" in p.messages[0].content.text, "recall prompt embeds context")
    print("ALL OK", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
