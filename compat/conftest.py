"""Fixtures for the Hearth compatibility suite.

One ``hearth serve --dev`` process is started for the whole session (binary from
``$HEARTH_BIN``, default ``/work/main/.build/debug/hearth``) on a free loopback port with a
temporary data folder. Each test gets its own namespace, so tests never see each other's data.

With ``HEARTH_COMPAT_URL`` set (e.g. ``http://127.0.0.1:9000``, nginx in front of
``scripts/cluster start -- --dev --index-policy enforce``), the session uses that running server
instead. Tests that start their own ``hearth`` processes still do.
"""

from __future__ import annotations

import faulthandler
import os
import uuid

import pytest
import requests

import firebase_admin

from hearth_helpers import HTTP_TIMEOUT, OWNER_HEADERS, AdminListener, SSEStream, new_namespace
from hearth_process import hearth_process

# Last-resort guard: a test still running after this many seconds aborts the whole run
# (with a traceback of every thread) instead of hanging CI. Every wait in the tests has its
# own, much shorter bound; this only catches a wait that was missed.
TEST_HARD_LIMIT = float(os.environ.get("HEARTH_COMPAT_TEST_LIMIT", "180"))


class _TimeoutSession(requests.Session):
    """A ``requests.Session`` whose requests are always bounded by a timeout."""

    def request(self, method, url, **kwargs):  # type: ignore[override]
        kwargs.setdefault("timeout", HTTP_TIMEOUT)
        return super().request(method, url, **kwargs)


# A running server (or a cluster's proxy) to test instead of starting one; it must run with
# --dev --index-policy enforce, as the session server below does.
COMPAT_URL = os.environ.get("HEARTH_COMPAT_URL", "").rstrip("/")


@pytest.fixture(scope="session")
def hearth_server(tmp_path_factory):
    """Starts ``hearth serve --dev``; yields ``(base_url, process)``; stops it with SIGTERM.

    With ``HEARTH_COMPAT_URL`` set, yields ``(that URL, None)`` once it answers."""
    if COMPAT_URL:
        try:
            resp = requests.get(COMPAT_URL + "/.json?ns=probe", headers=OWNER_HEADERS, timeout=HTTP_TIMEOUT)
        except requests.RequestException as exc:
            pytest.fail(f"HEARTH_COMPAT_URL={COMPAT_URL} does not answer: {exc}", pytrace=False)
        if resp.status_code != 200:
            pytest.fail(f"HEARTH_COMPAT_URL={COMPAT_URL} answered GET /.json?ns=probe with "
                        f"{resp.status_code}: {resp.text[:200]!r} (is it running with --dev?)", pytrace=False)
        yield COMPAT_URL, None
        return
    data_dir = tmp_path_factory.mktemp("hearth-data")
    log_path = tmp_path_factory.mktemp("hearth-log") / "server.log"
    # Firebase answers unindexed REST queries with 400; --dev alone would scan instead.
    args = ["--dev", "--index-policy", "enforce"]
    with hearth_process(args, data_dir, log_path, probe="/.json?ns=probe", probe_headers=OWNER_HEADERS) as (url, proc, _):
        yield url, proc


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
