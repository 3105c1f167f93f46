"""A loopback webhook for the `sync-logs notify` tests: an HTTP server on 127.0.0.1 that records
every POST and answers what each test scripts (429 and 500 before 200, ...)."""

import http.server
import json
import threading
import time
from contextlib import contextmanager

SECRET = "T000/B000/s3cr3t-w3bh00k-t0k3n"  # the URL's path: the tests check it is never shown


class Recorder:
    """Records (time, path, body) of every POST and answers from a script of (status, headers),
    then 200. Bounded: at most `limit` requests are answered."""

    def __init__(self, script=(), limit: int = 50):
        self.script = list(script)
        self.requests: list[tuple[float, str, dict]] = []
        self.limit = limit
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"null")
                recorder.requests.append((time.monotonic(), self.path, body))
                if len(recorder.requests) > recorder.limit:
                    status, headers = 410, {}
                else:
                    status, headers = recorder.script.pop(0) if recorder.script else (200, {})
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, format, *args):  # noqa: A002 - silent: the path is secret
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/services/{SECRET}"

    def bodies(self) -> list[dict]:
        return [body for _, _, body in self.requests]


@contextmanager
def webhook(script=(), limit: int = 50):
    """A running Recorder, shut down on exit."""
    recorder = Recorder(script, limit)
    thread = threading.Thread(target=recorder.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield recorder
    finally:
        recorder.server.shutdown()
        recorder.server.server_close()
        thread.join(timeout=5)
