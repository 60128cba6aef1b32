"""Starting and stopping a ``hearth serve`` process for the compatibility suites.

``hearth_process(binary, args, tmp)`` starts the binary on a free loopback port with a fresh
data folder, waits until it answers, yields ``(base_url, process, log_path)`` and stops it with
SIGTERM, failing the test if it does not exit 0 (unless the test set ``proc.killed_on_purpose``).
Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest
import requests

DEFAULT_BIN = "/work/main/.build/debug/hearth"
STARTUP_TIMEOUT = 30.0
SHUTDOWN_TIMEOUT = 10.0


def hearth_binary(name: str = "hearth") -> str:
    """The ``hearth`` binary (``$HEARTH_BIN``), or another product built next to it."""
    binary = os.environ.get("HEARTH_BIN", DEFAULT_BIN)
    if name != "hearth":
        binary = os.path.join(os.path.dirname(binary), name)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        pytest.fail(
            f"Hearth binary not found or not executable: {binary!r} "
            "(build it with `swift build`, or set HEARTH_BIN)",
            pytrace=False,
        )
    return binary


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """Linux: have the server receive SIGTERM if the pytest process dies abruptly."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except Exception:  # noqa: BLE001 - best effort only
        pass


def log_tail(log_path: Path, limit: int = 4000) -> str:
    try:
        text = log_path.read_text(errors="replace")
    except OSError:
        return "<no server log>"
    return text[-limit:]


@contextlib.contextmanager
def hearth_process(
    args: list[str], data_dir: Path, log_path: Path, env: dict[str, str] | None = None,
    probe: str = "/.well-known/jwks.json", probe_headers: dict[str, str] | None = None,
    binary: str = "hearth", port: int | None = None,
) -> Iterator[tuple[str, subprocess.Popen, Path]]:
    """Runs ``<binary> serve --host 127.0.0.1 --port P --data DIR *args`` for the ``with`` block
    (``binary`` is ``hearth`` or another executable product built next to it, such as a server
    with functions; ``port`` reuses a port, e.g. for a restart)."""
    port = port or free_port()
    base_url = f"http://127.0.0.1:{port}"
    cmd = [hearth_binary(binary), "serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(data_dir), *args]
    log_file = open(log_path, "wb")  # noqa: SIM115 - closed in the finally below
    proc = subprocess.Popen(
        cmd, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, **(env or {})},
        preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
    )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        last = "no answer yet"
        ready = False
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(
                    f"hearth exited during startup with code {proc.returncode}\n"
                    f"command: {' '.join(cmd)}\nlog:\n{log_tail(log_path)}",
                    pytrace=False,
                )
            try:
                resp = requests.get(base_url + probe, headers=probe_headers or {}, timeout=2)
                if resp.status_code == 200:
                    ready = True
                    break
                last = f"HTTP {resp.status_code}: {resp.text[:200]!r}"
            except requests.RequestException as exc:
                last = f"{type(exc).__name__}"
            time.sleep(0.1)
        if not ready:
            pytest.fail(
                f"hearth did not answer GET {probe} with 200 within {STARTUP_TIMEOUT}s "
                f"(last: {last})\ncommand: {' '.join(cmd)}\nlog:\n{log_tail(log_path)}",
                pytrace=False,
            )

        yield base_url, proc, log_path

        if getattr(proc, "killed_on_purpose", False):
            return
        # Graceful shutdown must work and report success.
        assert proc.poll() is None, (
            f"hearth died during the test with code {proc.returncode}\nlog:\n{log_tail(log_path)}"
        )
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=SHUTDOWN_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=SHUTDOWN_TIMEOUT)
            pytest.fail(
                f"hearth did not exit within {SHUTDOWN_TIMEOUT}s of SIGTERM (killed)\nlog:\n{log_tail(log_path)}",
                pytrace=False,
            )
        assert code == 0, f"hearth exited with code {code} after SIGTERM\nlog:\n{log_tail(log_path)}"
    finally:
        if proc.poll() is None:
            proc.kill()
            try:
                proc.wait(timeout=SHUTDOWN_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass
        log_file.close()


def create_namespace(base_url: str, name: str, admin_token: str, rules: str | None = None) -> None:
    """Creates the database ``name`` on a server outside ``--dev``, where only the project's default
    database exists until the admin creates others (``PUT /.settings/namespaces/<name>.json``).
    Without ``rules`` it starts locked (only the admin reads and writes)."""
    resp = requests.put(
        f"{base_url}/.settings/namespaces/{name}.json", data=(rules or "").encode("utf-8"),
        headers={"Authorization": f"Bearer {admin_token}"}, timeout=10,
    )
    assert resp.status_code == 200, f"creating namespace {name} failed: {resp.status_code} {resp.text!r}"


def assert_rules_cases_pass(example: Path) -> None:
    """Runs ``hearth rules test`` on an example's ``rules.json`` and ``rules-cases.json`` and fails unless every case
    came out as expected (and the count printed is the file's)."""
    import json

    out = subprocess.run(
        [hearth_binary(), "rules", "test", str(example / "rules.json"), str(example / "rules-cases.json")],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    cases = json.loads((example / "rules-cases.json").read_text())["cases"]
    assert f"{len(cases)} of {len(cases)} cases as expected" in out.stdout, out.stdout
