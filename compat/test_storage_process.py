"""The storage parts that involve the process itself: a crash in the middle of an upload, and
installing rules with ``hearth storage rules set`` while the server runs."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import requests

from hearth_process import hearth_binary, hearth_process

BUCKET = "demo.appspot.com"


def _upload(base_url: str, name: str, data: bytes, headers: dict[str, str] | None = None) -> requests.Response:
    return requests.post(f"{base_url}/v0/b/{BUCKET}/o", params={"name": name}, data=data,
                         headers={"Content-Type": "text/plain", **(headers or {})}, timeout=15)


def test_a_crash_during_an_upload_leaves_no_object_and_no_temporary_file(tmp_path):
    data_dir = tmp_path / "data"
    with hearth_process(["--dev"], data_dir, tmp_path / "first.log") as (base_url, proc, _):
        host, port = base_url.removeprefix("http://").split(":")
        # Half of a 10 MB body, then the server dies before the rest arrives.
        sock = socket.create_connection((host, int(port)), timeout=10)
        sock.sendall((f"POST /v0/b/{BUCKET}/o?name=half.bin HTTP/1.1\r\nHost: {base_url[7:]}\r\n"
                      "Authorization: Bearer owner\r\nContent-Type: application/octet-stream\r\n"
                      "Content-Length: 10000000\r\n\r\n").encode() + os.urandom(5_000_000))
        deadline = time.monotonic() + 10
        temporary = data_dir / "storage" / "tmp"
        while time.monotonic() < deadline and not any(temporary.iterdir()):
            time.sleep(0.05)
        assert any(temporary.iterdir()), "the upload is being written to a temporary file"
        proc.killed_on_purpose = True
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        sock.close()
    with hearth_process(["--dev"], data_dir, tmp_path / "second.log") as (base_url, _, _):
        headers = {"Authorization": "Bearer owner"}
        assert requests.get(f"{base_url}/v0/b/{BUCKET}/o/half.bin", headers=headers, timeout=15).status_code == 404
        assert list((data_dir / "storage" / "tmp").iterdir()) == [], "left-over temporary files are removed at start"
        listing = requests.get(f"{base_url}/v0/b/{BUCKET}/o", headers=headers, timeout=15).json()
        assert listing["items"] == []
        assert _upload(base_url, "after.txt", b"fine", headers).status_code == 200


OPEN = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /public/{file} { allow read, write: if true; }
  }
}
"""


def test_rules_set_from_the_command_line_reach_the_running_server(tmp_path):
    data_dir = tmp_path / "data"
    with hearth_process(["--dev"], data_dir, tmp_path / "server.log") as (base_url, _, log_path):
        assert _upload(base_url, "public/a.txt", b"x").status_code == 403, "default rules need sign-in"
        rules = tmp_path / "storage.rules"
        rules.write_text(OPEN)
        check = subprocess.run([hearth_binary(), "storage", "rules", "check", str(rules)], capture_output=True, text=True, timeout=30)
        assert check.returncode == 0 and "ok" in check.stdout
        result = subprocess.run([hearth_binary(), "storage", "rules", "set", str(rules), "--data", str(data_dir)],
                                capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stderr
        deadline = time.monotonic() + 5
        status = 403
        while time.monotonic() < deadline and status != 200:
            time.sleep(0.2)
            status = _upload(base_url, "public/a.txt", b"x").status_code
        assert status == 200, "the server picked up the new rules"
        assert _upload(base_url, "private/a.txt", b"x").status_code == 403

        broken = tmp_path / "broken.rules"
        broken.write_text("rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o { allow read: if ; }\n}\n")
        refused = subprocess.run([hearth_binary(), "storage", "rules", "set", str(broken), "--data", str(data_dir)],
                                 capture_output=True, text=True, timeout=30)
        assert refused.returncode == 7
        assert "line 3, column" in refused.stderr
        assert (data_dir / "storage.rules").read_text() == OPEN, "a broken file is never installed"
        time.sleep(1.2)
        assert _upload(base_url, "public/b.txt", b"x").status_code == 200


def test_a_broken_rules_file_stops_the_server_at_start(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "storage.rules").write_text("service firebase.storage { match /b/{bucket}/o { allow read: if (; } }")
    result = subprocess.run([hearth_binary(), "serve", "--port", "0", "--data", str(data_dir)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 6
    assert "storage.rules" in result.stderr and "column" in result.stderr
