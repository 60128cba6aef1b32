"""Metrics and health on a real ``hearth serve`` (docs/operations.md): ``/metrics`` in Prometheus' text format for the
admin or the metrics token, ``/healthz`` and ``/readyz`` for anyone, a request id in every response's ``X-Request-Id``
and in the JSON log lines (``--log-format json``) written while that request was answered."""

from __future__ import annotations

import json
import os
import time

import requests

from hearth_process import hearth_process

PORT = 9471


def sample(page: str, name: str) -> float:
    """The value of the sample written exactly as ``name`` (with its labels), 0 when absent."""
    for line in page.splitlines():
        if line.startswith(name + " "):
            return float(line[len(name) + 1:])
    return 0.0


def test_metrics_health_request_ids_and_json_logs(tmp_path):
    data_dir = tmp_path / "data"
    token_file = tmp_path / "metrics-token"
    token_file.write_text("scrape-secret\n")
    log = tmp_path / "log"
    args = ["--log-format", "json", "--index-policy", "scan"]
    env = {"HEARTH_METRICS_TOKEN_FILE": str(token_file)}
    with hearth_process(args, data_dir, log, env=env, probe="/healthz", port=PORT) as (url, proc, _):
        admin = {"Authorization": "Bearer " + (data_dir / "admin-token").read_text().strip()}
        scraper = {"Authorization": "Bearer scrape-secret"}
        with requests.Session() as http:
            # Who may read what.
            assert http.get(f"{url}/metrics").status_code == 401
            assert http.get(f"{url}/metrics", headers={"Authorization": "Bearer scrape-secreT"}).status_code == 401
            assert http.put(f"{url}/x.json", data="1", headers=scraper).status_code == 401  # the token is not the admin's
            r = http.get(f"{url}/healthz")
            assert (r.status_code, r.text) == (200, "ok\n")
            r = http.get(f"{url}/readyz")
            assert (r.status_code, r.text) == (200, "ready\n")

            before = http.get(f"{url}/metrics", headers=scraper)
            assert before.status_code == 200
            assert before.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
            for i in range(4):
                assert http.put(f"{url}/items/i{i}.json", json={"n": i}, headers=admin).status_code == 200
            for _ in range(3):
                assert http.get(f"{url}/items.json").status_code == 401  # locked rules, no credential
            after = http.get(f"{url}/metrics", headers=admin).text

            def delta(name: str) -> float:
                return sample(after, name) - sample(before.text, name)

            assert delta('hearth_http_requests_total{route="database",status="2xx"}') == 4
            assert delta('hearth_http_requests_total{route="database",status="4xx"}') == 3  # the GETs without a credential
            assert delta('hearth_http_request_duration_seconds_count{route="database"}') == 7
            assert delta("hearth_database_writes_total") == 4
            fds = len(os.listdir(f"/proc/{proc.pid}/fd"))
            assert abs(sample(after, "process_open_fds") - fds) <= 3, (sample(after, "process_open_fds"), fds)
            assert sample(after, "process_resident_memory_bytes") > 5_000_000

            # Request ids: a sane one comes back as sent (on answers made on the event loop too); others are replaced.
            assert http.get(f"{url}/items.json", headers={"X-Request-Id": "edge-42"}).headers["X-Request-Id"] == "edge-42"
            replaced = http.get(f"{url}/items.json", headers={"X-Request-Id": "no spaces allowed"}).headers["X-Request-Id"]
            assert replaced and " " not in replaced
            assert http.get(f"{url}/healthz").headers["X-Request-Id"] != http.get(f"{url}/healthz").headers["X-Request-Id"]

            # A query without an index is answered by a logged scan: its log line names the request.
            r = http.get(f"{url}/items.json", params={"orderBy": '"n"', "equalTo": "2"}, headers={**admin, "X-Request-Id": "scan-req-1"})
            assert r.status_code == 200 and r.json() == {"i2": {"n": 2}}

        deadline = time.monotonic() + 5
        while True:
            # Standard error holds the log; the one line on standard output is the first start's admin token notice.
            lines = [line for line in log.read_text().splitlines() if line.strip() and not line.startswith("Generated admin token")]
            records = [json.loads(line) for line in lines]
            if any(rec["metadata"].get("hearth.request.id") == "scan-req-1" for rec in records) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        for rec in records:
            assert {"time", "level", "label", "message", "metadata", "source"} <= rec.keys(), rec
        scans = [rec for rec in records if rec["metadata"].get("hearth.request.id") == "scan-req-1"]
        assert scans and "scanning" in scans[0]["message"], records
        assert scans[0]["metadata"]["hearth.path"] == "/items"
