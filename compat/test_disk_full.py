"""Running out of disk under write load: writes are refused with 507 and a clear message, every acknowledged
write stays readable, and writes work again once space returns. The data folder is a small tmpfs, so the test
needs root; without it the test is skipped and says why."""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from hearth_process import hearth_process

ADMIN = "disk-full-admin"
HEADERS = {"Authorization": f"Bearer {ADMIN}"}


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mount)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_refuses_writes_plainly_keeps_what_was_acknowledged_and_recovers(small_disk, tmp_path):
    with hearth_process([], small_disk / "data", tmp_path / "server.log", env={"HEARTH_ADMIN_TOKEN": ADMIN},
                        probe="/.json", probe_headers=HEADERS) as (url, _, _):
        acked: dict[str, int] = {}
        refusals: list[requests.Response] = []

        def put(i: int) -> None:
            r = requests.put(f"{url}/fill/k{i}.json", json={"pad": "x" * 4000, "i": i}, headers=HEADERS, timeout=30)
            if r.status_code == 200:
                acked[f"k{i}"] = i
            else:
                refusals.append(r)

        # Four writers at once until well past the point where the disk is full.
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(put, range(2500)))
        assert acked, "nothing was written before the disk filled"
        assert refusals, "the disk never filled"
        assert {r.status_code for r in refusals} == {507}, {r.status_code: r.text[:200] for r in refusals}
        assert "disk is full" in refusals[0].json()["error"]

        # Everything acknowledged is there, while the disk is still full.
        stored = requests.get(f"{url}/fill.json", headers=HEADERS, timeout=30).json()
        assert {k: v["i"] for k, v in stored.items()} == acked

        # Space returns: writes work again, without a restart.
        subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
        r = requests.put(f"{url}/after.json", json={"ok": True}, headers=HEADERS, timeout=30)
        assert r.status_code == 200, r.text
        stored = requests.get(f"{url}/fill.json", headers=HEADERS, timeout=30).json()
        assert {k: v["i"] for k, v in stored.items()} == acked
