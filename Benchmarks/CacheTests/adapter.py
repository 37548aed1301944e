#!/usr/bin/env python3
"""Plays a private HTTP cache for the cache-tests.fyi harness by running `lupine --cache`.

    adapter.py PORT ORIGIN LUPINE CACHE_DIR

Listens on 127.0.0.1:PORT. Each request the harness sends is sent again by one `lupine` process
(`lupine METHOD --cache CACHE_DIR --print hb ORIGIN/PATH Header:value ...`), and what `lupine`
prints (the response head and body, from the network or from its cache) is the answer. Redirects
are not followed (`--max-redirects 0`), as a cache in front of the harness would not follow them.
A method `lupine` has no command for is sent with `-X` (`lupine get -X M-SEARCH ...`). The harness's own
control requests (`/config/…`, which sets up a test, and `/state/…`, which reads what the server
saw) go straight to the server: they are not what is tested.
"""

import http.client
import http.server
import socketserver
import subprocess
import sys

PORT, ORIGIN, LUPINE, CACHE_DIR = int(sys.argv[1]), sys.argv[2].rstrip("/"), sys.argv[3], sys.argv[4]

COMMANDS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"}
# Hop-by-hop fields, the harness's own coding (lupine asks for its own), and what lupine sets.
NOT_FORWARDED = {"host", "connection", "keep-alive", "transfer-encoding", "content-length", "accept-encoding", "te", "upgrade"}
NOT_RETURNED = {"connection", "keep-alive", "transfer-encoding", "content-length"}


def header_item(name, value):
    """A `lupine` request item for one header field: `Name:value`, or `Name;` for an empty value."""
    if value == "":
        return f"{name};"
    return f"{name}:{value}"


def parse(output):
    """The status, fields and body of `lupine --print hb`'s output, or None without a head."""
    end = output.find(b"\n\n")
    if not output.startswith(b"HTTP/") or end < 0:
        return None
    lines = output[:end].decode("latin-1").split("\n")
    parts = lines[0].split(" ", 2)
    fields = []
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields.append((name.strip(), value.strip()))
    return int(parts[1]), (parts[2] if len(parts) > 2 else ""), fields, output[end + 2 :]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_one_request(self):
        # Every method, M-SEARCH included, comes here.
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if not self.raw_requestline or not self.parse_request():
                self.close_connection = True
                return
            self.relay()
            self.wfile.flush()
        except (ConnectionError, TimeoutError):
            self.close_connection = True

    def relay(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.startswith(("/config/", "/state/")):
            return self.pass_through(body)
        verb = [self.command.lower()] if self.command in COMMANDS else ["get", "-X", self.command]
        arguments = [LUPINE, *verb, "--cache", CACHE_DIR, "--print", "hb", "--max-redirects", "0", "--timeout", "20"]
        arguments.append(ORIGIN + self.path)
        for name, value in self.headers.items():
            if name.lower() not in NOT_FORWARDED:
                arguments.append(header_item(name, value))
        run = subprocess.run(arguments, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        parsed = parse(run.stdout)
        if parsed is None:
            return self.answer(502, "Bad Gateway", [], run.stderr or b"lupine printed no response\n")
        status, reason, fields, body = parsed
        # A HEAD answer keeps the length of the body it stands for.
        dropped = NOT_RETURNED - {"content-length"} if self.command == "HEAD" else NOT_RETURNED
        self.answer(status, reason, [(n, v) for n, v in fields if n.lower() not in dropped], body)

    def pass_through(self, body):
        host, _, port = ORIGIN.removeprefix("http://").partition(":")
        connection = http.client.HTTPConnection(host, int(port or 80), timeout=30)
        fields = {n: v for n, v in self.headers.items() if n.lower() not in NOT_FORWARDED}
        connection.request(self.command, self.path, body=body or None, headers=fields)
        response = connection.getresponse()
        content = response.read()
        connection.close()
        fields = [(n, v) for n, v in response.getheaders() if n.lower() not in NOT_RETURNED]
        self.answer(response.status, response.reason, fields, content)

    def answer(self, status, reason, fields, body):
        self.send_response_only(status, reason)
        for name, value in fields:
            self.send_header(name, value)
        if self.command == "HEAD":
            self.end_headers()
        elif status in (204, 304):
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


if __name__ == "__main__":
    Server(("127.0.0.1", PORT), Handler).serve_forever()
