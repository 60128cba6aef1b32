"""Databases (namespaces) on a real ``hearth serve``: outside --dev an unknown ``?ns=`` is a 404 that
opens nothing (it used to open a new SQLite file per name until the process ran out of file
descriptors), the admin creates databases, and in --dev the number open at once stays bounded."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import subprocess

import requests

from hearth_helpers import eventually
from hearth_process import create_namespace, hearth_binary, hearth_process

NOT_FOUND = {"error": "Firebase error. Please ensure that you spelled the name of your Firebase correctly"}


def open_fds(proc: subprocess.Popen) -> int:
    return len(os.listdir(f"/proc/{proc.pid}/fd"))


def sqlite_files(data_dir) -> set[str]:
    return {p.name for p in data_dir.iterdir() if p.name.endswith(".sqlite")}


def test_unknown_namespaces_open_nothing_and_the_admin_creates_them(tmp_path):
    data_dir = tmp_path / "data"
    with hearth_process([], data_dir, tmp_path / "log") as (url, proc, _):
        token = (data_dir / "admin-token").read_text().strip()
        admin = {"Authorization": f"Bearer {token}"}
        before_files = sqlite_files(data_dir)
        before_fds = open_fds(proc)
        with requests.Session() as http:
            for i in range(300):
                r = http.put(f"{url}/x.json?ns=probe{i}", data="1", headers=admin if i % 2 else {})
                assert r.status_code == 404 and r.json() == NOT_FOUND, r.text
            stream = http.get(f"{url}/x.json?ns=probe1", headers={"Accept": "text/event-stream"}, timeout=5)
            assert stream.status_code == 404 and stream.json() == NOT_FOUND
        assert sqlite_files(data_dir) == before_files
        assert open_fds(proc) < before_fds + 20
        # The project's database works as before.
        assert requests.put(f"{url}/a.json", data="1", headers=admin).status_code == 200

        create_namespace(url, "orders", token)
        assert "orders.sqlite" in sqlite_files(data_dir)
        assert requests.get(f"{url}/a.json?ns=orders").status_code == 401  # created locked
        assert requests.put(f"{url}/a.json?ns=orders", data="2", headers=admin).status_code == 200
        assert requests.get(f"{url}/a.json?ns=orders", headers=admin).json() == 2

        # Created offline while the server runs: the server finds it.
        cli = subprocess.run(
            [hearth_binary(), "namespaces", "create", "--data", str(data_dir), "offline"], capture_output=True, text=True, timeout=60)
        assert cli.returncode == 0, cli.stderr
        eventually("the offline database", lambda: requests.get(f"{url}/a.json?ns=offline", headers=admin).status_code == 200)
        listed = subprocess.run(
            [hearth_binary(), "namespaces", "list", "--data", str(data_dir)], capture_output=True, text=True, timeout=60)
        assert listed.stdout.split("\n")[:3] == ["demo\t(default)", "offline", "orders"], listed.stdout

        r = requests.delete(f"{url}/.settings/namespaces/orders.json", headers=admin)
        assert r.status_code == 200, r.text
        assert requests.get(f"{url}/a.json?ns=orders", headers=admin).status_code == 404
        assert "orders.sqlite" not in sqlite_files(data_dir)


def test_the_websocket_to_an_unknown_namespace_gets_firebases_shutdown(tmp_path):
    with hearth_process([], tmp_path / "data", tmp_path / "log") as (url, _, _):
        host, port = url.removeprefix("http://").split(":")
        sock = socket.create_connection((host, int(port)), timeout=5)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            f"GET /.ws?v=5&ns=nope HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(1)
            assert chunk
            head += chunk
        assert head.startswith(b"HTTP/1.1 101"), head
        frames = []
        while True:
            h = sock.recv(2, socket.MSG_WAITALL)
            if len(h) < 2:
                break
            n = h[1] & 0x7F
            if n == 126:
                n = struct.unpack(">H", sock.recv(2, socket.MSG_WAITALL))[0]
            frames.append((h[0] & 0x0F, sock.recv(n, socket.MSG_WAITALL) if n else b""))
            if frames[-1][0] == 0x8:
                break
        texts = [json.loads(p) for op, p in frames if op == 0x1]
        assert texts == [{"t": "c", "d": {"t": "s", "d": NOT_FOUND["error"]}}]
        assert frames[-1][0] == 0x8
        sock.close()


def test_dev_keeps_creating_on_first_use_with_a_bounded_number_open(tmp_path):
    data_dir = tmp_path / "data"
    with hearth_process(["--dev", "--max-open-databases", "8"], data_dir, tmp_path / "log") as (url, proc, _):
        with requests.Session() as http:
            for i in range(8):
                assert http.put(f"{url}/v.json?ns=d{i}", data=str(i)).status_code == 200
            with_eight = open_fds(proc)
            for i in range(8, 120):
                r = http.put(f"{url}/v.json?ns=d{i}", data=str(i))
                assert r.status_code == 200, r.text
            assert open_fds(proc) <= with_eight + 10
            # Closed ones open again with their data.
            for i in (0, 57, 119):
                assert http.get(f"{url}/v.json?ns=d{i}").json() == i
        assert {f for f in sqlite_files(data_dir) if f[1:-len(".sqlite")].isdigit()} == {f"d{i}.sqlite" for i in range(120)}
