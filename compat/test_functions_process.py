"""Server functions across crashes: trigger events are durable and delivered at least once, and a
function that uses the event id as its idempotency key has its effect exactly once.

Runs ``hearth-functions-fixture`` (Tests/Fixtures/FunctionsFixture), a server whose functions can be
told, through marker files, to hold before doing anything or to SIGKILL their own process after
their effect committed but before the outbox learned they finished.
"""

from __future__ import annotations

import concurrent.futures
import signal
import time
from pathlib import Path

import requests

from hearth_helpers import OWNER_HEADERS, eventually
from hearth_process import hearth_process

FIXTURE = "hearth-functions-fixture"
TIMEOUT = 15.0


def start(tmp_path: Path, name: str, port: int | None = None):
    fixture_dir = tmp_path / "fixture"
    fixture_dir.mkdir(exist_ok=True)
    return hearth_process(
        ["--dev"], tmp_path / "data", tmp_path / f"{name}.log", env={"FIXTURE_DIR": str(fixture_dir)},
        probe="/.json", probe_headers=OWNER_HEADERS, binary=FIXTURE, port=port,
    )


def runs(tmp_path: Path) -> list[str]:
    log = tmp_path / "fixture" / "runs.log"
    return log.read_text().splitlines() if log.exists() else []


def effects(url: str, job: str):
    r = requests.get(f"{url}/results/{job}/effects.json", headers=OWNER_HEADERS, timeout=5)
    assert r.status_code == 200, r.text
    return r.json()


def put_job(url: str, job: str):
    r = requests.put(f"{url}/jobs/{job}.json", json={"job": job}, headers=OWNER_HEADERS, timeout=5)
    assert r.status_code == 200, r.text


def killed(proc):
    proc.killed_on_purpose = True
    proc.wait(timeout=TIMEOUT)
    assert proc.returncode == -signal.SIGKILL, proc.returncode


def test_a_crash_after_the_effect_reruns_the_trigger_but_the_effect_happens_once(tmp_path):
    (tmp_path / "fixture").mkdir()
    (tmp_path / "fixture" / "crash-after-j1").touch()
    with start(tmp_path, "first") as (url, proc, _):
        port = int(url.rsplit(":", 1)[1])
        try:
            put_job(url, "j1")
        except requests.ConnectionError:
            pass  # the trigger can kill the server before the committed write's answer is sent
        # The function commits its effect, then kills the server before the outbox hears of it.
        killed(proc)
    assert runs(tmp_path) == ["run j1 1"]
    with start(tmp_path, "second", port=port) as (url, proc, _):
        # Delivered again after the restart (at least once) ...
        eventually("the rerun", lambda: len(runs(tmp_path)) >= 3)
        # ... and the idempotency key stopped the second effect.
        assert runs(tmp_path) == ["run j1 1", "run j1 1", "duplicate j1"]
        assert effects(url, "j1") == 1
        assert requests.get(f"{url}/jobs/j1.json", headers=OWNER_HEADERS, timeout=5).json() == {"job": "j1"}
        time.sleep(1.0)
        assert len(runs(tmp_path)) == 3, "the event was delivered again after it succeeded"


def test_a_crash_between_commit_and_the_trigger_loses_nothing(tmp_path):
    (tmp_path / "fixture").mkdir()
    (tmp_path / "fixture" / "hold-j2").touch()
    with start(tmp_path, "first") as (url, proc, _):
        port = int(url.rsplit(":", 1)[1])
        put_job(url, "j2")  # committed: answered only after the commit
        proc.send_signal(signal.SIGKILL)  # the trigger is still holding, it has done nothing
        killed(proc)
    assert runs(tmp_path) == []
    (tmp_path / "fixture" / "hold-j2").unlink()
    with start(tmp_path, "second", port=port) as (url, proc, _):
        eventually("the delivery after restart", lambda: effects(url, "j2") == 1)
        assert runs(tmp_path) == ["run j2 1"]
        r = requests.get(f"{url}/jobs/j2.json", headers=OWNER_HEADERS, timeout=5)
        assert r.json() == {"job": "j2"}


def test_many_writes_and_a_crash_each_trigger_takes_effect_exactly_once(tmp_path):
    (tmp_path / "fixture").mkdir()
    jobs = [f"m{i}" for i in range(60)]
    for crash in ("m7", "m31"):
        (tmp_path / "fixture" / f"crash-after-{crash}").touch()
    with start(tmp_path, "first") as (url, proc, _):
        port = int(url.rsplit(":", 1)[1])
        proc.killed_on_purpose = True
        committed = []

        def write(job):
            try:
                put_job(url, job)
                return job
            except (requests.RequestException, AssertionError):
                return None  # the server died first: this write may or may not have committed

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            committed = [j for j in pool.map(write, jobs) if j]
        # A crash marker's job killed the server while the others were being written and delivered.
        assert proc.wait(timeout=TIMEOUT) == -signal.SIGKILL
    assert committed, "no write committed before the crash"
    # Restart (the remaining crash marker may fire once more; restart again until the server stays up).
    for attempt in range(3):
        with start(tmp_path, f"restart{attempt}", port=port) as (url, proc, _):
            proc.killed_on_purpose = True
            try:
                eventually("every committed job", lambda: all(effects(url, j) == 1 for j in committed), timeout=10)
            except (AssertionError, requests.RequestException):
                if proc.poll() is not None:
                    continue  # it crashed on the second marker; start again
                raise
            r = requests.get(f"{url}/results.json", headers=OWNER_HEADERS, timeout=5)
            # Nothing ran twice to effect, including jobs whose write raced the crash.
            assert all(v == {"effects": 1} for v in r.json().values()), r.json()
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=TIMEOUT) == 0
            break
    else:
        raise AssertionError("the server did not stay up")


def test_failing_triggers_retry_with_backoff_then_become_dead_letters_an_admin_can_retry(tmp_path):
    with start(tmp_path, "only") as (url, proc, _):
        r = requests.put(f"{url}/flaky/f1.json", json=True, headers=OWNER_HEADERS, timeout=5)
        assert r.status_code == 200

        def dead():
            r = requests.get(f"{url}/.hearth/functions/deadLetters", headers=OWNER_HEADERS, timeout=5)
            assert r.status_code == 200, r.text
            return r.json()["deadLetters"]

        letters = eventually("the dead letter", dead)
        assert len(letters) == 1
        letter = letters[0]
        assert letter["function"] == "onValueCreated:/flaky/{id}"
        assert letter["queue"] == "db:demo"
        assert letter["attempts"] == 3
        assert letter["error"].startswith('flaky f1 failed on attempt 3'), letter["error"]
        assert letter["payload"]["path"] == "/flaky/f1" and letter["payload"]["after"] is True

        # Only admins see or retry dead letters.
        assert requests.get(f"{url}/.hearth/functions/deadLetters", timeout=5).status_code == 401
        # Retrying an id that is not a dead letter is a 404.
        r = requests.post(f"{url}/.hearth/functions/deadLetters/db:demo/999:retry", headers=OWNER_HEADERS, timeout=5)
        assert r.status_code == 404

        (tmp_path / "fixture" / "heal-f1").touch()
        r = requests.post(f"{url}/.hearth/functions/deadLetters/db:demo/{letter['id']}:retry", headers=OWNER_HEADERS, timeout=5)
        assert r.status_code == 200, r.text
        eventually("the healed run", lambda: requests.get(f"{url}/results/f1/healed.json", headers=OWNER_HEADERS, timeout=5).json() is True)
        assert dead() == []
