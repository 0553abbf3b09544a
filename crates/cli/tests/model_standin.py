#!/usr/bin/env python3
"""A stand-in for the Anthropic Messages API on loopback, for the real-client tests.

    python3 model_standin.py --script SCRIPT.json --record RECORD.json [--timeout SECS] \
        -- PROGRAM ARGS...

Serves POST /v1/messages (Anthropic Messages, Claude Code) and POST .../responses (OpenAI
Responses, Codex) on 127.0.0.1 (a free port), runs PROGRAM with ANTHROPIC_BASE_URL pointing
at it and `{STANDIN_URL}` in its arguments replaced by the server's URL, and when PROGRAM exits writes every request it received to RECORD.json
(a list of {"path": ..., "body": ...}) and exits with PROGRAM's code (124 when PROGRAM ran
longer than --timeout and was killed).

The model's side is scripted: SCRIPT.json is a list of turns, each {"tool": NAME,
"input": {...}} (the model calls that tool) or {"text": "..."} (the model answers and the
turn ends). A request that offers tools is a turn of the conversation: its reply is turn N,
where N is the number of assistant messages already in the request (so replies follow the
conversation, not the order or timing of requests); past the script's end the model says
"done". A request without tools (a title, a summary) is answered with a short text.
Replies are streamed as server-sent events when the request asks for a stream.

Python standard library only; the server listens on loopback only.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RECORDED = []
LOCK = threading.Lock()
SCRIPT = []
MODEL = "claude-standin"


def turn_for(body):
    """The scripted content blocks and stop reason answering `body`."""
    if not body.get("tools"):
        return [{"type": "text", "text": "ok"}], "end_turn"
    done = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
    if done >= len(SCRIPT):
        return [{"type": "text", "text": "done"}], "end_turn"
    step = SCRIPT[done]
    if "tool" in step:
        block = {
            "type": "tool_use",
            "id": "toolu_standin_%d" % done,
            "name": step["tool"],
            "input": step.get("input", {}),
        }
        return [block], "tool_use"
    return [{"type": "text", "text": step["text"]}], "end_turn"


def responses_turn(body):
    """The scripted output items answering a Responses API request `body` (Codex): turn N,
    where N is the number of function calls already in its input."""
    items = body.get("input") or []
    done = sum(1 for i in items if isinstance(i, dict) and i.get("type") == "function_call")
    if not body.get("tools") or done >= len(SCRIPT) or "tool" not in SCRIPT[done]:
        text = "done" if not body.get("tools") or done >= len(SCRIPT) else SCRIPT[done]["text"]
        return [{
            "type": "message", "id": "msg_standin_%d" % done, "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }]
    step = SCRIPT[done]
    call = {
        "type": "function_call", "id": "fc_standin_%d" % done, "status": "completed",
        "call_id": "call_standin_%d" % done, "name": step["tool"],
        "arguments": json.dumps(step.get("input", {})),
    }
    if "namespace" in step:
        call["namespace"] = step["namespace"]
    return [call]


def responses_stream(items, n):
    """The server-sent events of one streamed Responses API reply."""
    rid = "resp_standin_%d" % n
    out = [sse("response.created", {"type": "response.created",
                                    "response": {"id": rid, "status": "in_progress"}})]
    for i, item in enumerate(items):
        out.append(sse("response.output_item.added",
                       {"type": "response.output_item.added", "output_index": i, "item": item}))
        out.append(sse("response.output_item.done",
                       {"type": "response.output_item.done", "output_index": i, "item": item}))
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 15}
    out.append(sse("response.completed", {"type": "response.completed", "response": {
        "id": rid, "status": "completed", "output": items, "usage": usage}}))
    return b"".join(out)


def sse(event, data):
    return ("event: %s\ndata: %s\n\n" % (event, json.dumps(data))).encode()


def stream(blocks, stop, n):
    """The server-sent events of one streamed reply."""
    usage = {"input_tokens": 10, "output_tokens": 0}
    message = {
        "id": "msg_standin_%d" % n,
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    out = [sse("message_start", {"type": "message_start", "message": message})]
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        out.append(sse("content_block_start",
                       {"type": "content_block_start", "index": i, "content_block": start}))
        out.append(sse("content_block_delta",
                       {"type": "content_block_delta", "index": i, "delta": delta}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(sse("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": None},
        "usage": {"output_tokens": 5},
    }))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, code, body, content_type="application/json"):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        with LOCK:
            RECORDED.append({"method": "GET", "path": self.path, "body": None})
        self.reply(404, b'{"type":"error","error":{"type":"not_found_error","message":"stand-in"}}')

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = raw.decode("utf-8", "replace")
        with LOCK:
            n = len(RECORDED)
            RECORDED.append({"method": "POST", "path": self.path, "body": body})
        path = self.path.split("?")[0]
        if path.endswith("/responses") and isinstance(body, dict):
            self.reply(200, responses_stream(responses_turn(body), n), "text/event-stream")
            return
        if path.endswith("/v1/messages/count_tokens"):
            self.reply(200, b'{"input_tokens": 10}')
            return
        if not path.endswith("/v1/messages") or not isinstance(body, dict):
            self.reply(404, b'{"type":"error","error":{"type":"not_found_error","message":"stand-in"}}')
            return
        blocks, stop = turn_for(body)
        if body.get("stream"):
            self.reply(200, stream(blocks, stop, n), "text/event-stream")
        else:
            message = {
                "id": "msg_standin_%d" % n,
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": blocks,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5},
            }
            self.reply(200, json.dumps(message).encode())


def main():
    global SCRIPT
    parser = argparse.ArgumentParser()
    parser.add_argument("--script", required=True)
    parser.add_argument("--record", required=True)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no program to run after --")
    with open(args.script, encoding="utf-8") as f:
        SCRIPT = json.load(f)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = dict(os.environ)
    url = "http://127.0.0.1:%d" % server.server_address[1]
    env["ANTHROPIC_BASE_URL"] = url
    command = [arg.replace("{STANDIN_URL}", url) for arg in command]
    child = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL)
    try:
        code = child.wait(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        print("model_standin: %s ran longer than %ss and was killed" % (command[0], args.timeout),
              file=sys.stderr)
        code = 124
    server.shutdown()
    with LOCK, open(args.record, "w", encoding="utf-8") as f:
        json.dump(RECORDED, f, indent=1)
    sys.exit(code)


if __name__ == "__main__":
    main()
