"""Fixtures for the Hearth compatibility suite.

One ``hearth serve --dev`` process is started for the whole session (binary from
``$HEARTH_BIN``, default ``/work/main/.build/debug/hearth``) on a free loopback port with a
temporary data folder. Each test gets its own namespace, so tests never see each other's data.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import requests

import firebase_admin

from hearth_helpers import HTTP_TIMEOUT, OWNER_HEADERS, AdminListener, SSEStream, new_namespace

DEFAULT_BIN = "/work/main/.build/debug/hearth"
STARTUP_TIMEOUT = 30.0
SHUTDOWN_TIMEOUT = 10.0
# Last-resort guard: a test still running after this many seconds aborts the whole run
# (with a traceback of every thread) instead of hanging CI. Every wait in the tests has its
# own, much shorter bound; this only catches a wait that was missed.
TEST_HARD_LIMIT = float(os.environ.get("HEARTH_COMPAT_TEST_LIMIT", "180"))


def _free_port() -> int:
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


def _log_tail(log_path: Path, limit: int = 4000) -> str:
    try:
        text = log_path.read_text(errors="replace")
    except OSError:
        return "<no server log>"
    return text[-limit:]


class _TimeoutSession(requests.Session):
    """A ``requests.Session`` whose requests are always bounded by a timeout."""

    def request(self, method, url, **kwargs):  # type: ignore[override]
        kwargs.setdefault("timeout", HTTP_TIMEOUT)
        return super().request(method, url, **kwargs)


@pytest.fixture(scope="session")
def hearth_server(tmp_path_factory):
    """Starts ``hearth serve --dev``; yields ``(base_url, process)``; stops it with SIGTERM."""
    binary = os.environ.get("HEARTH_BIN", DEFAULT_BIN)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        pytest.fail(
            f"Hearth binary not found or not executable: {binary!r} "
            "(build it with `swift build`, or set HEARTH_BIN)",
            pytrace=False,
        )
    data_dir = tmp_path_factory.mktemp("hearth-data")
    log_path = tmp_path_factory.mktemp("hearth-log") / "server.log"
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}"
    cmd = [binary, "serve", "--host", "127.0.0.1", "--port", str(port),
           "--data", str(data_dir), "--dev",
           # Firebase answers unindexed REST queries with 400; --dev alone would scan instead.
           "--index-policy", "enforce"]

    log_file = open(log_path, "wb")  # noqa: SIM115 - closed in the finally below
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
    )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        last = "no answer yet"
        ready = False
        with _TimeoutSession() as probe:
            while time.monotonic() < deadline:
                if proc.poll() is not None:
                    pytest.fail(
                        f"hearth exited during startup with code {proc.returncode}\n"
                        f"command: {' '.join(cmd)}\nlog:\n{_log_tail(log_path)}",
                        pytrace=False,
                    )
                try:
                    resp = probe.get(f"{base_url}/.json", params={"ns": "probe"},
                                     headers=OWNER_HEADERS, timeout=2)
                    if resp.status_code == 200:
                        ready = True
                        break
                    last = f"HTTP {resp.status_code}: {resp.text[:200]!r}"
                except requests.RequestException as exc:
                    last = f"{type(exc).__name__}"
                time.sleep(0.1)
        if not ready:
            pytest.fail(
                f"hearth did not answer GET /.json?ns=probe with 200 within {STARTUP_TIMEOUT}s "
                f"(last: {last})\ncommand: {' '.join(cmd)}\nlog:\n{_log_tail(log_path)}",
                pytrace=False,
            )

        yield base_url, proc

        # Graceful shutdown must work and report success.
        assert proc.poll() is None, (
            f"hearth died during the test session with code {proc.returncode}\n"
            f"log:\n{_log_tail(log_path)}"
        )
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=SHUTDOWN_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=SHUTDOWN_TIMEOUT)
            pytest.fail(
                f"hearth did not exit within {SHUTDOWN_TIMEOUT}s of SIGTERM (killed)\n"
                f"log:\n{_log_tail(log_path)}",
                pytrace=False,
            )
        assert code == 0, f"hearth exited with code {code} after SIGTERM\nlog:\n{_log_tail(log_path)}"
    finally:
        if proc.poll() is None:
            proc.kill()
            try:
                proc.wait(timeout=SHUTDOWN_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass
        log_file.close()


@pytest.fixture(scope="session")
def base_url(hearth_server) -> str:
    """``http://127.0.0.1:<port>`` of the running server."""
    return hearth_server[0]


@pytest.fixture
def ns() -> str:
    """A fresh namespace for this test (lowercase letters, digits, hyphen)."""
    return new_namespace()


@pytest.fixture
def http():
    """A ``requests.Session`` authenticated as admin (``Authorization: Bearer owner``)."""
    with _TimeoutSession() as session:
        session.headers.update(OWNER_HEADERS)
        yield session


@pytest.fixture
def anon_http():
    """A ``requests.Session`` with no credentials at all."""
    with _TimeoutSession() as session:
        yield session


@pytest.fixture
def app_factory(base_url):
    """Creates firebase-admin apps bound to a namespace; every app is deleted after the test."""
    apps = []

    def make(namespace: str, **options):
        opts = {"databaseURL": f"{base_url}/?ns={namespace}", "httpTimeout": HTTP_TIMEOUT}
        opts.update(options)
        app = firebase_admin.initialize_app(options=opts, name=f"hearth-{uuid.uuid4().hex}")
        apps.append(app)
        return app

    yield make
    for app in apps:
        firebase_admin.delete_app(app)


@pytest.fixture
def admin_app(app_factory, ns):
    """A firebase-admin app whose database is namespace ``ns`` of the test server."""
    return app_factory(ns)


@pytest.fixture
def sse():
    """Opens SSE streams (``sse(url, headers=...)``); all are closed after the test.

    Admin credentials are sent unless ``headers`` is given explicitly.
    """
    streams = []

    def open_stream(url: str, headers: dict | None = None, **kwargs) -> SSEStream:
        stream = SSEStream.open(url, headers=OWNER_HEADERS if headers is None else headers,
                                **kwargs)
        streams.append(stream)
        return stream

    yield open_stream
    for stream in streams:
        stream.close()


@pytest.fixture
def listen():
    """Starts firebase-admin listeners (``listen(ref)``) with bounded waits; closed after."""
    listeners = []

    def start(ref) -> AdminListener:
        listener = AdminListener(ref)
        listeners.append(listener)
        return listener

    yield start
    for listener in listeners:
        listener.close()


@pytest.fixture(autouse=True)
def _hard_time_limit():
    """Aborts the run (dumping all thread stacks) if one test exceeds TEST_HARD_LIMIT."""
    faulthandler.dump_traceback_later(TEST_HARD_LIMIT, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
