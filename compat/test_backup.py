"""``hearth backup``: an online backup of a serving, writing server's data folder, restored into a new
folder, answers the same REST export, accounts, signing keys and files; a corrupt backup file is named by
``verify``; a backup killed with SIGKILL is never taken for a complete one."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import requests

from hearth_process import hearth_binary, hearth_process

ADMIN = {"Authorization": "Bearer owner"}


def backup(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([hearth_binary(), "backup", *args], capture_output=True, text=True, timeout=timeout)


def export(base: str, ns: str) -> object:
    resp = requests.get(f"{base}/.json", params={"ns": ns}, headers=ADMIN, timeout=10)
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_backup_while_writing_restores_the_same_data(tmp_path: Path) -> None:
    data, backups, restored = tmp_path / "data", tmp_path / "backups", tmp_path / "restored"
    with hearth_process(["--dev"], data, tmp_path / "live.log") as (base, _, _):
        assert requests.put(f"{base}/items.json", json={"a": 1, "b": {"c": "x"}}, headers=ADMIN, timeout=10).ok
        assert requests.put(f"{base}/other.json", params={"ns": "second"}, json={"n": 5}, headers=ADMIN, timeout=10).ok
        signup = requests.post(
            f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
            json={"email": "ada@example.com", "password": "secret123", "returnSecureToken": True}, timeout=30,
        ).json()
        upload = requests.post(
            f"{base}/v0/b/demo.appspot.com/o", params={"name": "notes/hello.txt"}, data=b"hello backup",
            headers={**ADMIN, "Content-Type": "text/plain"}, timeout=10,
        )
        assert upload.status_code == 200, upload.text

        # One writer puts /load/0, /load/1, … in order while the backup runs.
        stop = threading.Event()
        acked: list[int] = []

        def write() -> None:
            n = 0
            while not stop.is_set() and n < 5000:
                if requests.put(f"{base}/load/{n}.json", json=n, headers=ADMIN, timeout=10).ok:
                    acked.append(n)
                n += 1

        writer = threading.Thread(target=write)
        writer.start()
        deadline = time.monotonic() + 10
        while len(acked) < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        made = backup("create", "--data", str(data), "--to", str(backups))
        stop.set()
        writer.join(timeout=30)
        assert made.returncode == 0, made.stdout + made.stderr
        assert made.stdout.startswith("backup "), made.stdout
        live = {ns: export(base, ns) for ns in ("demo", "second")}
        live_keys = requests.get(f"{base}/.well-known/jwks.json", timeout=10).json()

    checked = backup("verify", "--backups", str(backups))
    assert checked.returncode == 0 and ": ok, " in checked.stdout, checked.stdout + checked.stderr
    done = backup("restore", "--backups", str(backups), "--to", str(restored))
    assert done.returncode == 0, done.stdout + done.stderr

    with hearth_process(["--dev"], restored, tmp_path / "restored.log") as (base, _, _):
        got = {ns: export(base, ns) for ns in ("demo", "second")}
        # Everything written before the backup is there exactly; of the writes during it, a consistent
        # snapshot holds the first m (none missing in between), at least those acknowledged before it began.
        load = got["demo"].pop("load")
        live_load = live["demo"].pop("load")
        assert got == live
        assert isinstance(load, list), load
        assert load == list(range(len(load))) and len(load) >= 20 and len(load) <= len(live_load)
        assert requests.get(f"{base}/.well-known/jwks.json", timeout=10).json() == live_keys
        signin = requests.post(
            f"{base}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", params={"key": "k"},
            json={"email": "ada@example.com", "password": "secret123", "returnSecureToken": True}, timeout=30,
        ).json()
        assert signin.get("localId") == signup["localId"], signin
        blob = requests.get(f"{base}/v0/b/demo.appspot.com/o/notes%2Fhello.txt", params={"alt": "media"}, headers=ADMIN, timeout=10)
        assert blob.status_code == 200 and blob.content == b"hello backup"

    # Restore refuses a folder that is not empty.
    again = backup("restore", "--backups", str(backups), "--to", str(restored))
    assert again.returncode != 0 and "not empty" in again.stderr


def test_verify_names_a_corrupt_file(tmp_path: Path) -> None:
    data, backups = tmp_path / "data", tmp_path / "backups"
    with hearth_process(["--dev"], data, tmp_path / "live.log") as (base, _, _):
        assert requests.put(f"{base}/items.json", json={"a": 1}, headers=ADMIN, timeout=10).ok
        made = backup("create", "--data", str(data), "--to", str(backups))
        assert made.returncode == 0, made.stderr
    manifest = next(backups.glob("*/manifest.json")).read_text()
    import json

    entry = next(e for e in json.loads(manifest)["files"] if e["path"] == "demo.sqlite")
    stored = backups / "blobs" / entry["sha256"][:2] / entry["sha256"]
    raw = bytearray(stored.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    stored.write_bytes(bytes(raw))
    checked = backup("verify", "--backups", str(backups))
    assert checked.returncode == 8, checked.stdout + checked.stderr
    assert "demo.sqlite corrupt" in checked.stdout and "DAMAGED" in checked.stdout, checked.stdout
    restored = backup("restore", "--backups", str(backups), "--to", str(tmp_path / "restored"))
    assert restored.returncode == 8 and "demo.sqlite is corrupt" in restored.stderr, restored.stderr


def test_kill_during_backup_leaves_no_complete_backup(tmp_path: Path) -> None:
    data, backups = tmp_path / "data", tmp_path / "backups"
    data.mkdir()
    (data / "hearth.json").write_text("{}")
    first = backup("create", "--data", str(data), "--to", str(backups))
    assert first.returncode == 0, first.stderr
    # A large file makes the next backup take long enough to be killed in the middle.
    with open(data / "big.bin", "wb") as f:
        block = os.urandom(1 << 20)
        for _ in range(256):
            f.write(block)
    proc = subprocess.Popen([hearth_binary(), "backup", "create", "--data", str(data), "--to", str(backups)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and proc.poll() is None:
        scratch = list((backups / "tmp").glob("*")) if (backups / "tmp").exists() else []
        if any(p.stat().st_size > 0 for p in scratch):
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the backup ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    listed = backup("list", "--backups", str(backups))
    lines = listed.stdout.splitlines()
    assert len(lines) == 2 and "complete " in lines[0] and "incomplete" in lines[1], listed.stdout
    checked = backup("verify", "--backups", str(backups))
    assert checked.returncode == 8 and "incomplete" in checked.stdout, checked.stdout
    # Restore takes the newest complete backup; the next backup succeeds and cleans the scratch files.
    restored = backup("restore", "--backups", str(backups), "--to", str(tmp_path / "restored"))
    assert restored.returncode == 0, restored.stderr
    assert not (tmp_path / "restored" / "big.bin").exists()
    again = backup("create", "--data", str(data), "--to", str(backups), "--keep", "1")
    assert again.returncode == 0, again.stderr
    assert not (backups / "tmp").exists()
    final = backup("list", "--backups", str(backups)).stdout.splitlines()
    assert len(final) == 1 and "complete " in final[0], final


def test_scheduled_backups_keep_the_newest(tmp_path: Path) -> None:
    data, backups = tmp_path / "data", tmp_path / "backups"
    args = ["--dev", "--backup-every", "1s", "--backup-keep", "2", "--backup-dir", str(backups)]
    with hearth_process(args, data, tmp_path / "live.log") as (base, _, log):
        deadline = time.monotonic() + 20
        made = 0
        n = 0
        while time.monotonic() < deadline and made < 4:
            assert requests.put(f"{base}/tick.json", json=n, headers=ADMIN, timeout=10).ok
            n += 1
            made = log.read_text().count("backup made")
            time.sleep(0.1)
        assert made >= 4, log.read_text()[-2000:]
        listed = backup("list", "--backups", str(backups)).stdout.splitlines()
        complete = [line for line in listed if " complete " in line]
        assert 1 <= len(complete) <= 3 and len(listed) <= 3, listed
    checked = backup("verify", "--backups", str(backups))
    assert checked.returncode == 0, checked.stdout
    assert len([line for line in checked.stdout.splitlines() if line.endswith("files checked")]) == 2, checked.stdout
    bad = subprocess.run([hearth_binary(), "serve", "--data", str(tmp_path / "x"), "--backup-every", "soon"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode != 0 and "--backup-every must be" in bad.stderr, bad.stderr
