"""Shutdown with realtime clients that misbehave: SIGTERM must not wait on them for long."""

from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import time

from hearth_helpers import OWNER_HEADERS
from hearth_process import hearth_process


def raw_websocket(base_url: str) -> socket.socket:
    """Upgrades a plain socket to the realtime protocol and then never reads or answers again."""
    host, port = base_url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /.ws?v=5&ns=demo HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, "server closed during the upgrade"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head[:100]
    return sock


def test_sigterm_does_not_wait_long_for_clients_that_ignore_the_close(tmp_path):
    with hearth_process(["--dev"], tmp_path / "data", tmp_path / "server.log", probe="/.json", probe_headers=OWNER_HEADERS) as (url, proc, log):
        sockets = [raw_websocket(url) for _ in range(5)]
        proc.killed_on_purpose = True
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=12)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError("hearth still running 12 s after SIGTERM with silent realtime clients")
        elapsed = time.monotonic() - started
        for s in sockets:
            s.close()
        assert code == 0
        # The close handshake gives up after 3 s (it used to wait 15 s per the WebSocket default).
        assert elapsed < 10, f"shutdown took {elapsed:.1f} s"
