"""The realtime connection's life over raw sockets, each test on its own server: how it ends (the
client closes its socket, sends a close frame, or ignores the server's at shutdown), fragmented
messages, and upgrades the server refuses or redirects."""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import struct
import subprocess
import time

import requests

from hearth_helpers import OWNER, OWNER_HEADERS, eventually
from hearth_process import hearth_process


def upgrade_request(host: str, port: str, query: str = "v=5&ns=demo") -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET /.ws?{query} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


def read_head(sock: socket.socket) -> bytes:
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        assert chunk, f"server closed during the response head: {head!r}"
        head += chunk
    return head


def raw_websocket(base_url: str) -> socket.socket:
    """Upgrades a plain socket to the realtime protocol (the caller reads, or never does)."""
    host, port = base_url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5)
    sock.sendall(upgrade_request(host, port))
    head = read_head(sock)
    assert head.startswith(b"HTTP/1.1 101"), head[:100]
    return sock


def client_frame(payload: bytes, opcode: int = 0x1, fin: bool = True) -> bytes:
    """One masked client frame."""
    mask = os.urandom(4)
    first = (0x80 if fin else 0) | opcode
    n = len(payload)
    length = bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n)
    return bytes([first]) + length + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_frame(sock: socket.socket) -> tuple[int, bytes] | None:
    """(opcode, payload) of the next server frame, or None at end of stream."""
    head = sock.recv(2, socket.MSG_WAITALL)
    if len(head) < 2:
        return None
    assert head[1] & 0x80 == 0, "server frames are never masked"
    n = head[1] & 0x7F
    if n == 126:
        n = struct.unpack(">H", sock.recv(2, socket.MSG_WAITALL))[0]
    elif n == 127:
        n = struct.unpack(">Q", sock.recv(8, socket.MSG_WAITALL))[0]
    return head[0] & 0x0F, sock.recv(n, socket.MSG_WAITALL) if n else b""


def next_message(sock: socket.socket) -> dict:
    while True:
        frame = read_frame(sock)
        assert frame is not None, "server closed the connection"
        if frame[0] == 0x1:
            return json.loads(frame[1])


def request(sock: socket.socket, r: int, action: str, body: dict) -> dict:
    """Sends request ``r`` and returns its response (pushes before it are skipped)."""
    sock.sendall(client_frame(json.dumps({"t": "d", "d": {"r": r, "a": action, "b": body}}).encode()))
    while True:
        message = next_message(sock)
        if message.get("d", {}).get("r") == r:
            return message["d"]["b"]


def realtime_connections(url: str) -> int:
    return requests.get(f"{url}/.well-known/hearth/health", timeout=5).json()["connections"]


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


def test_a_client_that_drops_its_socket_is_forgotten_and_its_on_disconnect_runs(tmp_path):
    with hearth_process(["--dev"], tmp_path / "data", tmp_path / "server.log", probe="/.json", probe_headers=OWNER_HEADERS) as (url, _, _):
        sock = raw_websocket(url)
        assert next_message(sock)["d"]["t"] == "h"  # handshake
        assert request(sock, 1, "gauth", {"cred": OWNER})["s"] == "ok"
        assert request(sock, 2, "o", {"p": "/presence/a", "d": "gone"})["s"] == "ok"
        assert realtime_connections(url) == 1
        sock.close()  # no close frame
        eventually("the server to forget the connection", lambda: realtime_connections(url) == 0, timeout=5)
        eventually("the onDisconnect write", lambda: requests.get(f"{url}/presence/a.json", headers=OWNER_HEADERS, timeout=5).json() == "gone", timeout=5)


def test_a_close_frame_is_answered_with_the_same_code_and_the_socket_closes(tmp_path):
    with hearth_process(["--dev"], tmp_path / "data", tmp_path / "server.log", probe="/.json", probe_headers=OWNER_HEADERS) as (url, _, _):
        sock = raw_websocket(url)
        next_message(sock)
        sock.sendall(client_frame(struct.pack(">H", 1000) + b"bye", opcode=0x8))
        assert read_frame(sock) == (0x8, struct.pack(">H", 1000))
        assert read_frame(sock) is None  # then the server closes the socket
        eventually("the server to forget the connection", lambda: realtime_connections(url) == 0, timeout=5)


def test_close_frames_without_a_code_or_with_a_reserved_one(tmp_path):
    with hearth_process(["--dev"], tmp_path / "data", tmp_path / "server.log", probe="/.json", probe_headers=OWNER_HEADERS) as (url, _, _):
        sock = raw_websocket(url)
        next_message(sock)
        sock.sendall(client_frame(b"", opcode=0x8))
        assert read_frame(sock) == (0x8, b"")  # no code given, none echoed
        assert read_frame(sock) is None
        sock = raw_websocket(url)
        next_message(sock)
        sock.sendall(client_frame(struct.pack(">H", 1005), opcode=0x8))  # only for reporting, never sent
        frame = read_frame(sock)
        assert frame is not None and frame[0] == 0x8 and frame[1][:2] == struct.pack(">H", 1002)
        assert read_frame(sock) is None


def test_fragmented_messages_are_joined_and_pings_answered(tmp_path):
    with hearth_process(["--dev"], tmp_path / "data", tmp_path / "server.log", probe="/.json", probe_headers=OWNER_HEADERS) as (url, _, _):
        sock = raw_websocket(url)
        next_message(sock)
        message = json.dumps({"t": "d", "d": {"r": 1, "a": "gauth", "b": {"cred": OWNER}}}).encode()
        sock.sendall(client_frame(message[:10], fin=False))
        sock.sendall(client_frame(b"ping!", opcode=0x9))  # a control frame between fragments
        sock.sendall(client_frame(message[10:20], opcode=0x0, fin=False))
        sock.sendall(client_frame(message[20:], opcode=0x0))
        assert read_frame(sock) == (0xA, b"ping!")
        assert next_message(sock)["d"]["b"]["s"] == "ok"
        assert request(sock, 2, "q", {"p": "/after", "h": ""})["s"] == "ok"
        # A continuation with no message started is a protocol error: close 1002.
        sock.sendall(client_frame(b"{}", opcode=0x0))
        frame = read_frame(sock)
        while frame is not None and frame[0] == 0x1:  # pushes written before the close frame
            frame = read_frame(sock)
        assert frame is not None and frame[0] == 0x8 and frame[1][:2] == struct.pack(">H", 1002)
        # Nothing follows the close frame, not even a change to the listened path; the server
        # closes the socket when the client does not answer (3 s).
        requests.put(f"{url}/after.json", headers=OWNER_HEADERS, data='"x"', timeout=5).raise_for_status()
        assert read_frame(sock) is None


def test_refused_and_late_upgrades(tmp_path):
    with hearth_process(["--dev"], tmp_path / "data", tmp_path / "server.log", probe="/.json", probe_headers=OWNER_HEADERS) as (url, _, _):
        host, port = url.removeprefix("http://").split(":")
        # A namespace name the server does not accept: 400, no upgrade.
        sock = socket.create_connection((host, int(port)), timeout=5)
        sock.sendall(upgrade_request(host, port, query="v=5&ns=no.dots"))
        assert read_head(sock).startswith(b"HTTP/1.1 400")
        sock.close()
        # An upgrade after a plain request on the same connection is redirected to a new one.
        sock = socket.create_connection((host, int(port)), timeout=5)
        sock.sendall(f"GET /.json?access_token={OWNER} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        head = read_head(sock)
        assert head.startswith(b"HTTP/1.1 200")
        length = int([line for line in head.decode().split("\r\n") if line.lower().startswith("content-length:")][0].split(":")[1])
        sock.recv(length, socket.MSG_WAITALL)
        sock.sendall(upgrade_request(host, port))
        head = read_head(sock).decode()
        assert head.startswith("HTTP/1.1 307"), head
        assert "location: /.ws?v=5&ns=demo" in head.lower()
        sock.close()
