"""A test helper: the MCP streamable HTTP transport in front of a stdio MCP server.

Usage: python3 mcp_http_bridge.py COMMAND [ARGS...]

Listens on 127.0.0.1 (a free port, printed as `PORT n` on the first line of stdout) at
`/mcp`. Each `initialize` POSTed without a session starts a new COMMAND process and a session
(`Mcp-Session-Id`); each later POST writes its JSON-RPC message as one line to that process's
stdin. A request is answered with a `text/event-stream` holding every line the process wrote
up to and including the request's response (notifications sent before it come first, in
order); a notification or a response is answered `202 Accepted`. GET has no stream to offer
(405, as the transport allows), and DELETE ends the session and its process.

Only what the official conformance suite needs, and not a goldfish feature: run by
tests/mcp_official_suite.rs. Python standard library only.
"""

import http.server
import json
import queue
import subprocess
import sys
import threading
import uuid

# How long a request may wait for its response before the bridge calls the server hung (a
# guard, not a timing: a loaded machine answers in well under a second).
HANG_GUARD_SECONDS = 120


class Session:
    """One COMMAND process: its stdin, and its stdout lines arriving on a queue."""

    def __init__(self, command):
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
        )
        self.lines = queue.Queue()
        # One exchange at a time: a response is matched to its request by id, and the lines
        # before it belong to whoever is waiting.
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            line = line.strip()
            if line:
                self.lines.put(line)
        self.lines.put(None)

    def write(self, body):
        self.proc.stdin.write(json.dumps(body).encode() + b"\n")
        self.proc.stdin.flush()

    def until_response(self, request_id):
        """Every line up to and including the response to `request_id`."""
        out = []
        while True:
            line = self.lines.get(timeout=HANG_GUARD_SECONDS)
            if line is None:
                raise EOFError("the server closed its stdout")
            out.append(line)
            message = json.loads(line)
            if message.get("id") == request_id and ("result" in message or "error" in message):
                return out

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        self.proc.wait(timeout=HANG_GUARD_SECONDS)


SESSIONS = {}
SESSIONS_LOCK = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # What to run per session (not `command`: the base class keeps the HTTP method there).
    server_command = None

    def log_message(self, format, *args):  # the suite's output is what matters
        pass

    def reply(self, status, body=b"", content_type=None, session_id=None):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        if session_id:
            self.send_header("Mcp-Session-Id", session_id)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def session(self):
        sid = self.headers.get("Mcp-Session-Id")
        with SESSIONS_LOCK:
            return sid, SESSIONS.get(sid)

    def do_POST(self):
        if self.path.split("?")[0] != "/mcp":
            return self.reply(404)
        length = int(self.headers.get("Content-Length", "0"))
        try:
            body = json.loads(self.rfile.read(length))
        except ValueError:
            return self.reply(400, b"not JSON", "text/plain")
        if not isinstance(body, dict):
            return self.reply(400, b"one JSON-RPC message per POST", "text/plain")
        sid, session = self.session()
        if body.get("method") == "initialize" and session is None:
            sid = uuid.uuid4().hex
            session = Session(self.server_command)
            with SESSIONS_LOCK:
                SESSIONS[sid] = session
        if session is None:
            return self.reply(404, b"no such session", "text/plain")
        is_request = "method" in body and "id" in body
        with session.lock:
            session.write(body)
            if not is_request:
                return self.reply(202, session_id=sid)
            try:
                lines = session.until_response(body["id"])
            except (EOFError, queue.Empty) as e:
                return self.reply(502, str(e).encode(), "text/plain")
        stream = b"".join(b"event: message\ndata: " + line + b"\n\n" for line in lines)
        self.reply(200, stream, "text/event-stream", sid)

    def do_GET(self):
        self.reply(405)

    def do_DELETE(self):
        sid, session = self.session()
        if session is None:
            return self.reply(404)
        with SESSIONS_LOCK:
            SESSIONS.pop(sid, None)
        session.close()
        self.reply(200)


def main():
    Handler.server_command = sys.argv[1:]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    finally:
        with SESSIONS_LOCK:
            for session in SESSIONS.values():
                session.close()


if __name__ == "__main__":
    main()
