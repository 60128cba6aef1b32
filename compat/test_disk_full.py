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


def _fill(folder) -> int:
    """Writes a filler file into ``folder`` until the disk refuses more; returns the bytes it took."""
    written = 0
    with open(folder / "filler", "wb") as f:
        chunk = b"\0" * 65536
        try:
            while True:
                f.write(chunk)
                f.flush()
                written += len(chunk)
        except OSError:
            pass
    return written


def test_accounts_and_storage_answer_a_full_disk_with_507_and_recover(small_disk, tmp_path):
    with hearth_process(["--password-cost", "12"], small_disk / "data", tmp_path / "server.log", env={"HEARTH_ADMIN_TOKEN": ADMIN},
                        probe="/.json", probe_headers=HEADERS) as (url, _, _):
        def sign_up(i: int) -> requests.Response:
            return requests.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
                                 json={"email": f"user{i}@example.com", "password": "secret123", "returnSecureToken": True},
                                 timeout=30)

        def upload(name: str, size: int) -> requests.Response:
            return requests.post(f"{url}/v0/b/demo.appspot.com/o", params={"name": name}, data=b"u" * size,
                                 headers={**HEADERS, "Content-Type": "application/octet-stream"}, timeout=30)

        # Both stores exist and work before the disk fills.
        assert sign_up(0).status_code == 200
        assert upload("before.bin", 1000).status_code == 200
        assert _fill(small_disk) > 0

        # An upload's bytes cannot be stored: a plain 507 in Firebase's error shape, no object left behind.
        refused = upload("during.bin", 200_000)
        assert refused.status_code == 507, refused.text
        assert "disk is full" in refused.json()["error"]["message"]
        assert requests.get(f"{url}/v0/b/demo.appspot.com/o/during.bin", headers=HEADERS, timeout=30).status_code == 404

        # Sign-ups until the account store runs out of room (SQLite may still fit a few in pages it already has):
        # every answer is a success or a plain 507, never an internal error.
        statuses = []
        created = []
        for i in range(1, 60):
            r = sign_up(i)
            statuses.append(r.status_code)
            if r.status_code == 200:
                created.append(i)
            else:
                assert r.status_code == 507, r.text
                assert "disk is full" in r.json()["error"]["message"]
                break
        assert 507 in statuses, f"the account store never ran out of room: {statuses}"

        # Space returns: both work again without a restart, and every acknowledged account signs in.
        (small_disk / "filler").unlink()
        assert sign_up(100).status_code == 200
        assert upload("after.bin", 200_000).status_code == 200
        for i in [0, *created, 100]:
            r = requests.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", params={"key": "k"},
                              json={"email": f"user{i}@example.com", "password": "secret123", "returnSecureToken": True},
                              timeout=30)
            assert r.status_code == 200, (i, r.text)
