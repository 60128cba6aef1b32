"""Point-in-time recovery (``hearth backup restore --at``): the write log kept in each realtime database
between backups brings a restored backup forward to any moment of the window. Each restore is compared
with the state the test recorded at that moment; a point the log cannot reach is refused with the
window; a server killed with SIGKILL while writing leaves a log that matches its data."""

from __future__ import annotations

import datetime
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


def export(base: str, ns: str | None = None) -> object:
    params = {"format": "export", **({"ns": ns} if ns else {})}
    resp = requests.get(f"{base}/.json", params=params, headers=ADMIN, timeout=10)
    assert resp.status_code == 200, resp.text
    return resp.json()


def iso(t: float) -> str:
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def mark() -> float:
    """A moment between two groups of writes: no commit within 300 ms either side."""
    time.sleep(0.3)
    t = time.time()
    time.sleep(0.3)
    return t


def restored_state(tmp_path: Path, data: Path, backups: Path, at: str, name: str, namespaces: list[str | None]) -> list[object]:
    target = tmp_path / name
    result = backup("restore", "--data", str(data), "--backups", str(backups), "--to", str(target), "--at", at)
    assert result.returncode == 0, result.stdout + result.stderr
    with hearth_process(["--dev"], target, tmp_path / f"{name}.log") as (base, _, _):
        return [export(base, ns) for ns in namespaces]


def test_restore_at_points_between_and_after_backups(tmp_path: Path) -> None:
    data, backups = tmp_path / "data", tmp_path / "backups"
    states: list[tuple[float, object, object]] = []
    with hearth_process(["--dev", "--write-log"], data, tmp_path / "live.log") as (base, _, _):
        before_any = mark()

        def put(path: str, value: object, ns: str | None = None) -> None:
            params = {"ns": ns} if ns else {}
            if value is None:
                resp = requests.delete(f"{base}/{path}.json", params=params, headers=ADMIN, timeout=10)
            else:
                resp = requests.put(f"{base}/{path}.json", params=params, json=value, headers=ADMIN, timeout=10)
            assert resp.ok, resp.text

        def patch(path: str, value: object) -> None:
            resp = requests.patch(f"{base}/{path}.json", json=value, headers=ADMIN, timeout=10)
            assert resp.ok, resp.text

        def record() -> None:
            t = mark()
            states.append((t, export(base), export(base, "second")))

        put("users/ada", {"name": "Ada", "age": 36, "tags": {"x": True}})
        put("counter", 1)
        put("other", {"n": 1}, "second")
        record()  # 0: before the first backup
        result = backup("create", "--data", str(data), "--backups", str(backups))
        assert result.returncode == 0, result.stderr
        put("counter", 2)
        patch("users", {"ada/age": 37, "bob": {"name": "Bob", ".priority": 3}, "ada/tags": None})
        put("other/n", 2, "second")
        record()  # 1: between the backups
        put("users/ada", None)
        requests.post(f"{base}/list.json", json={"pushed": 1}, headers=ADMIN, timeout=10).raise_for_status()
        record()  # 2: between the backups
        result = backup("create", "--data", str(data), "--backups", str(backups))
        assert result.returncode == 0, result.stderr
        patch("", {"counter": 3, "users/cy": {"deep": {"er": [1, 2]}}})
        put("other", None, "second")
        record()  # 3: after the newest backup: from the live folder
        put("counter", 4)
        time.sleep(1.2)  # past the one-second margin for commits in flight

        listing = backup("list", "--data", str(data), "--backups", str(backups))
        assert listing.returncode == 0, listing.stderr
        assert "point-in-time window: from" in listing.stdout, listing.stdout
        assert "about now" in listing.stdout, listing.stdout

        for i, (t, main, second) in enumerate(states):
            got = restored_state(tmp_path, data, backups, iso(t), f"at{i}", [None, "second"])
            assert got == [main, second], f"point {i} ({iso(t)}): {got} != {[main, second]}"

        # Unix seconds work too.
        t, main, _ = states[2]
        assert restored_state(tmp_path, data, backups, f"{t:.3f}", "unix", [None]) == [main]

        # Before the first backup's data was written: no base, refused with the window.
        early = tmp_path / "early"
        refused = backup("restore", "--data", str(data), "--backups", str(backups), "--to", str(early), "--at", iso(before_any))
        assert refused.returncode != 0
        assert "no backup was taken at or before" in refused.stderr and "window" in refused.stderr, refused.stderr
        assert not early.exists()
        # In the future: refused.
        future = backup("restore", "--data", str(data), "--backups", str(backups), "--to", str(tmp_path / "f"), "--at", iso(time.time() + 3600))
        assert future.returncode != 0 and "future" in future.stderr, future.stderr
        bad = backup("restore", "--data", str(data), "--backups", str(backups), "--to", str(tmp_path / "b"), "--at", "yesterday")
        assert bad.returncode != 0 and "ISO 8601" in bad.stderr, bad.stderr


def test_old_manifests_still_restore_and_the_environment_turns_the_log_on(tmp_path: Path) -> None:
    import json
    import sqlite3

    data, backups = tmp_path / "data", tmp_path / "backups"
    with hearth_process(["--dev"], data, tmp_path / "env.log", env={"HEARTH_WRITE_LOG": "true"}) as (base, _, _):
        assert requests.put(f"{base}/a.json", json={"b": 1}, headers=ADMIN, timeout=10).ok
        assert backup("create", "--data", str(data), "--backups", str(backups)).returncode == 0
        live = export(base)
    con = sqlite3.connect(data / "demo.sqlite")
    assert con.execute("SELECT COUNT(*) FROM write_log").fetchone() == (1,)
    con.close()
    # A format 1 manifest (made before point-in-time recovery) restores as before; --at cannot use it.
    manifest_path = next(backups.glob("2*/manifest.json"))
    manifest = json.loads(manifest_path.read_text())
    manifest["format"] = 1
    for f in manifest["files"]:
        for k in ("sequence", "snapshotMillis", "snapshotStartMillis", "sequenceMillis", "logFirst"):
            f.pop(k, None)
    manifest_path.write_text(json.dumps(manifest))
    plain = backup("restore", "--data", str(data), "--backups", str(backups), "--to", str(tmp_path / "plain"))
    assert plain.returncode == 0, plain.stderr
    with hearth_process(["--dev"], tmp_path / "plain", tmp_path / "plain.log") as (base, _, _):
        assert export(base) == live
    refused = backup("restore", "--data", str(data), "--backups", str(backups), "--to", str(tmp_path / "at"), "--at", iso(time.time()))
    assert refused.returncode != 0 and "no backup with sequence numbers" in refused.stderr, refused.stderr


def test_a_gap_in_the_log_is_refused_with_the_window(tmp_path: Path) -> None:
    data, backups = tmp_path / "data", tmp_path / "backups"
    with hearth_process(["--dev", "--no-write-log"], data, tmp_path / "off.log") as (base, _, _):
        assert requests.put(f"{base}/a.json", json=1, headers=ADMIN, timeout=10).ok
        assert backup("create", "--data", str(data), "--backups", str(backups)).returncode == 0
        assert requests.put(f"{base}/a.json", json=2, headers=ADMIN, timeout=10).ok  # not logged
    with hearth_process(["--dev", "--write-log"], data, tmp_path / "on.log") as (base, _, _):
        assert requests.put(f"{base}/a.json", json=3, headers=ADMIN, timeout=10).ok
        t = time.time()
        time.sleep(1.2)
        result = backup("restore", "--data", str(data), "--backups", str(backups), "--to", str(tmp_path / "r"), "--at", iso(t))
        assert result.returncode != 0
        assert "does not hold every change after sequence 1" in result.stderr, result.stderr
        assert "point-in-time window: from" in result.stderr, result.stderr
        assert not (tmp_path / "r").exists()


def test_scheduled_backups_turn_the_log_on_and_prune_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with hearth_process(["--dev", "--backup-every", "1s", "--backup-keep", "2"], data, tmp_path / "sched.log") as (base, _, _):
        for i in range(30):
            assert requests.put(f"{base}/n/{i}.json", json=i, headers=ADMIN, timeout=10).ok
            time.sleep(0.1)
        time.sleep(2.5)
        t = time.time()
        time.sleep(1.2)
        listing = backup("list", "--data", str(data))
        # Two kept; a third may be under way ("incomplete") or just finished and not pruned yet.
        assert sum("  complete  " in line for line in listing.stdout.splitlines()) in (2, 3), listing.stdout
        got = restored_state(tmp_path, data, data / "backups", iso(t), "sched", [None])
        assert got == [{"n": list(range(30))}] or got == [{"n": {str(i): i for i in range(30)}}], got
    # The live log kept only what the oldest kept backup needs: fewer rows than writes.
    import sqlite3

    con = sqlite3.connect(data / "demo.sqlite")
    rows = con.execute("SELECT COUNT(*), MIN(seq) FROM write_log").fetchone()
    con.close()
    assert rows[0] < 30 and (rows[1] is None or rows[1] > 1), rows


def test_kill_while_writing_leaves_a_log_that_matches_the_data(tmp_path: Path) -> None:
    data, backups = tmp_path / "data", tmp_path / "backups"
    with hearth_process(["--dev", "--write-log"], data, tmp_path / "k1.log") as (base, proc, _):
        assert requests.put(f"{base}/start.json", json=True, headers=ADMIN, timeout=10).ok
        assert backup("create", "--data", str(data), "--backups", str(backups)).returncode == 0
        stop = threading.Event()

        def write(k: int) -> None:
            n = 0
            while not stop.is_set():
                try:
                    requests.patch(f"{base}/w{k}.json", json={str(n): {"v": n}, "last": n}, headers=ADMIN, timeout=5)
                except requests.RequestException:
                    return
                n += 1

        writers = [threading.Thread(target=write, args=(k,)) for k in range(3)]
        for w in writers:
            w.start()
        time.sleep(1.5)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        proc.killed_on_purpose = True  # type: ignore[attr-defined]
        stop.set()
        for w in writers:
            w.join(timeout=10)
    with hearth_process(["--dev", "--write-log"], data, tmp_path / "k2.log") as (base, _, _):
        live = export(base)
        t = time.time()
        time.sleep(1.2)
        got = restored_state(tmp_path, data, backups, iso(t), "now", [None])
    assert got == [live]
    assert isinstance(live, dict) and len(live.get("w0", {})) > 2
