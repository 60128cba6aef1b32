"""The product series of ``/metrics`` (docs/operations.md) on a real ``hearth serve``: rule denials, group-commit
batch sizes, sign-ins by method and outcome, stored bytes, the function outboxes' waiting events and dead letters,
and ``--metrics-listen``, a second address serving only the operations endpoints without a credential."""

from __future__ import annotations

import concurrent.futures
import socket
from pathlib import Path

import requests

from hearth_helpers import OWNER_HEADERS, eventually
from hearth_process import hearth_process
from test_realtime_process import raw_websocket, request

BUCKET = "demo.appspot.com"
KEY = {"key": "any-api-key"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sample(page: str, name: str) -> float:
    """The value of the sample written exactly as ``name`` (with its labels), 0 when absent."""
    for line in page.splitlines():
        if line.startswith(name + " "):
            return float(line[len(name) + 1:])
    return 0.0


def has_family(page: str, name: str, kind: str) -> bool:
    return f"# TYPE {name} {kind}" in page.splitlines() and any(line.startswith(f"# HELP {name} ") for line in page.splitlines())


def test_denials_commits_sign_ins_storage_bytes_and_the_metrics_listener(tmp_path):
    data_dir = tmp_path / "data"
    metrics_port = free_port()
    args = ["--metrics-listen", f"127.0.0.1:{metrics_port}"]
    with hearth_process(args, data_dir, tmp_path / "log", probe="/healthz") as (url, _, _):
        admin = {"Authorization": "Bearer " + (data_dir / "admin-token").read_text().strip()}
        internal = f"http://127.0.0.1:{metrics_port}"
        with requests.Session() as http:
            # The internal address: the three operations endpoints without a credential, nothing else.
            before = http.get(f"{internal}/metrics", timeout=10)
            assert before.status_code == 200, before.text
            assert before.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
            assert (http.get(f"{internal}/healthz").status_code, http.get(f"{internal}/readyz").status_code) == (200, 200)
            assert http.get(f"{internal}/items.json").status_code == 404
            assert http.put(f"{internal}/items.json", data="1").status_code == 404
            assert http.get(f"{internal}/.hearth/console").status_code == 404
            # The main port keeps its rule.
            assert http.get(f"{url}/metrics").status_code == 401
            assert http.get(f"{url}/metrics", headers=admin).status_code == 200

            # Rule denials: locked database rules, default storage rules (sign-in needed).
            for _ in range(3):
                assert http.get(f"{url}/items.json").status_code == 401
            for _ in range(2):
                assert http.put(f"{url}/items/x.json", data="1").status_code == 401
            r = http.post(f"{url}/v0/b/{BUCKET}/o", params={"name": "anon.txt"}, data=b"x", headers={"Content-Type": "text/plain"})
            assert r.status_code == 403, r.text
            rest_denied = http.get(f"{internal}/metrics").text
            # The realtime protocol: two listens, a set and an onDisconnect registration, all refused.
            sock = raw_websocket(url)
            try:
                assert request(sock, 1, "q", {"p": "/items", "h": ""})["s"] == "permission_denied"
                assert request(sock, 2, "q", {"p": "/other", "h": ""})["s"] == "permission_denied"
                assert request(sock, 3, "p", {"p": "/items/y", "d": 1})["s"] == "permission_denied"
                assert request(sock, 4, "o", {"p": "/items/z", "d": 1})["s"] == "permission_denied"
            finally:
                sock.close()
            realtime_denied = http.get(f"{internal}/metrics").text

            # Sign-ins: an anonymous account, its refresh (answered on the event loop), a wrong password, a bad refresh.
            r = http.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp", params=KEY, json={"returnSecureToken": True})
            assert r.status_code == 200, r.text
            refresh_token = r.json()["refreshToken"]
            r = http.post(f"{url}/securetoken.googleapis.com/v1/token", params=KEY,
                          data={"grant_type": "refresh_token", "refresh_token": refresh_token})
            assert r.status_code == 200, r.text
            r = http.post(f"{url}/securetoken.googleapis.com/v1/token", params=KEY,
                          data={"grant_type": "refresh_token", "refresh_token": "not-a-token"})
            assert r.status_code == 400, r.text
            r = http.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", params=KEY,
                          json={"email": "nobody@example.com", "password": "wrong-password", "returnSecureToken": True})
            assert r.status_code == 400, r.text

            # Storage bytes: 1000 bytes up, then deleted.
            r = http.post(f"{url}/v0/b/{BUCKET}/o", params={"name": "k.bin"}, data=b"k" * 1000,
                          headers={**admin, "Content-Type": "application/octet-stream"})
            assert r.status_code == 200, r.text
            assert http.get(f"{url}/v0/b/{BUCKET}/o/k.bin", params={"alt": "media"}).status_code == 403  # no sign-in
            uploaded = http.get(f"{internal}/metrics").text

            # A burst of concurrent writes: each reaches the database writer once.
            with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
                statuses = list(pool.map(
                    lambda i: requests.put(f"{url}/burst/w{i}.json", json=i, headers=admin, timeout=15).status_code, range(64)))
            assert statuses == [200] * 64
            after = http.get(f"{internal}/metrics").text

            assert http.delete(f"{url}/v0/b/{BUCKET}/o/k.bin", headers=admin).status_code in (200, 204)
            deleted = http.get(f"{internal}/metrics").text

        def delta(page: str, name: str, start: str = before.text) -> float:
            return sample(page, name) - sample(start, name)

        assert delta(rest_denied, 'hearth_rule_denials_total{product="database",op="read"}') == 3
        assert delta(rest_denied, 'hearth_rule_denials_total{product="database",op="write"}') == 2
        assert delta(rest_denied, 'hearth_rule_denials_total{product="storage",op="write"}') == 1
        assert delta(rest_denied, 'hearth_rule_denials_total{product="storage",op="read"}') == 0
        assert delta(realtime_denied, 'hearth_rule_denials_total{product="database",op="read"}', rest_denied) == 2
        assert delta(realtime_denied, 'hearth_rule_denials_total{product="database",op="write"}', rest_denied) == 2
        assert delta(after, 'hearth_rule_denials_total{product="database",op="read"}', realtime_denied) == 0
        assert delta(after, 'hearth_rule_denials_total{product="storage",op="read"}', realtime_denied) == 1
        assert delta(after, 'hearth_auth_sign_ins_total{method="anonymous",outcome="success"}') == 1
        assert delta(after, 'hearth_auth_sign_ins_total{method="refresh",outcome="success"}') == 1
        assert delta(after, 'hearth_auth_sign_ins_total{method="refresh",outcome="failure"}') == 1
        assert delta(after, 'hearth_auth_sign_ins_total{method="password",outcome="failure"}') == 1
        assert delta(after, 'hearth_auth_sign_ins_total{method="password",outcome="success"}') == 0

        assert delta(uploaded, "hearth_storage_bytes") == 1000
        assert delta(uploaded, "hearth_storage_objects") == 1
        assert delta(deleted, "hearth_storage_bytes") == 0
        assert delta(deleted, "hearth_storage_objects") == 0

        # Group commits: the burst's 64 writes are in the batches' sum; the buckets add up to the batch count, and
        # batches are at least one write, at most the burst.
        assert has_family(after, "hearth_database_commit_batch_writes", "histogram")
        batches = delta(after, "hearth_database_commit_batch_writes_count", uploaded)
        assert delta(after, "hearth_database_commit_batch_writes_sum", uploaded) == 64
        assert 1 <= batches <= 64
        assert delta(after, 'hearth_database_commit_batch_writes_bucket{le="+Inf"}', uploaded) == batches
        assert delta(after, 'hearth_database_commit_batch_writes_bucket{le="64"}', uploaded) == batches
        # The denied PUT and realtime set went to the writer too (the rules are checked in the commit); the
        # onDisconnect registration was refused before.
        assert delta(after, "hearth_database_commit_batch_writes_sum") == 64 + 2 + 1
        for family, kind in [("hearth_rule_denials_total", "counter"), ("hearth_auth_sign_ins_total", "counter"),
                             ("hearth_storage_bytes", "gauge"), ("hearth_storage_objects", "gauge")]:
            assert has_family(after, family, kind), family


FIXTURE = "hearth-functions-fixture"


def test_outbox_waiting_events_and_dead_letters(tmp_path: Path):
    fixture_dir = tmp_path / "fixture"
    fixture_dir.mkdir()
    metrics_port = free_port()
    with hearth_process(
        ["--dev", "--metrics-listen", f"127.0.0.1:{metrics_port}"], tmp_path / "data", tmp_path / "log",
        env={"FIXTURE_DIR": str(fixture_dir)}, probe="/.json", probe_headers=OWNER_HEADERS, binary=FIXTURE,
    ) as (url, _, _):
        internal = f"http://127.0.0.1:{metrics_port}/metrics"

        def outbox(state: str) -> float:
            return sample(requests.get(internal, timeout=10).text, f'hearth_functions_outbox_events{{queue="db:demo",state="{state}"}}')

        assert (outbox("waiting"), outbox("dead")) == (0, 0)
        # A job held for 5 s stays in the outbox while its function runs.
        (fixture_dir / "hold-m1").touch()
        assert requests.put(f"{url}/jobs/m1.json", json={"job": "m1"}, headers=OWNER_HEADERS, timeout=5).status_code == 200
        assert outbox("waiting") == 1
        eventually("the held job to finish", lambda: outbox("waiting") == 0, timeout=20)
        # A function that always fails (3 attempts, 100-200 ms apart) ends as a dead letter.
        assert requests.put(f"{url}/flaky/m2.json", json=True, headers=OWNER_HEADERS, timeout=5).status_code == 200
        eventually("the dead letter", lambda: outbox("dead") == 1)
        assert outbox("waiting") == 0
