"""Small helpers shared by the compatibility tests.

Everything here is written for this suite: a minimal Server-Sent Events reader on top of a
``requests`` streaming response, query-string building that never turns spaces into ``+``,
bounded waits for admin-SDK listeners, and a tiny model of a listener's view of the data
(applying ``put``/``patch`` events) used to check query streams.

Every blocking call in this module takes a timeout; nothing here can wait forever.
"""

from __future__ import annotations

import codecs
import json
import queue
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable
from urllib.parse import quote

import requests

OWNER = "owner"
OWNER_HEADERS = {"Authorization": f"Bearer {OWNER}"}

# Default bound for one HTTP request made by the tests (connect + each read).
HTTP_TIMEOUT = 15.0
# Default bound for waiting for one realtime event.
EVENT_TIMEOUT = 5.0

PUSH_ALPHABET = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"

_MISSING = object()


def eventually(what: str, check, timeout: float = 15.0, interval: float = 0.05):
    """Polls ``check()`` until it returns something truthy (returned); fails after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def new_namespace() -> str:
    """A fresh, unique namespace name: ``t-`` + 12 lowercase hex digits."""
    return f"t-{uuid.uuid4().hex[:12]}"


# --------------------------------------------------------------------------------------------
# URLs and query strings


def qs(params: dict[str, Any] | Iterable[tuple[str, Any]]) -> str:
    """Builds a query string, percent-encoding every reserved character (space -> %20, + -> %2B).

    Values are used as given (strings) or ``str()``-ed; pass JSON-encoded strings for query
    constraints, e.g. ``{"orderBy": '"height"'}``.
    """
    items = params.items() if isinstance(params, dict) else params
    return "&".join(f"{quote(str(k), safe='')}={quote(str(v), safe='')}" for k, v in items)


def db_url(base_url: str, path: str, ns: str, **params: Any) -> str:
    """``<base>/<path>.json?<params>&ns=<ns>``; ``path`` is used verbatim (already encoded)."""
    path = path.strip("/")
    query = dict(params)
    query["ns"] = ns
    return f"{base_url}/{path}.json?{qs(query)}" if path else f"{base_url}/.json?{qs(query)}"


def put_rules(http: requests.Session, base_url: str, ns: str, rules: Any) -> requests.Response:
    """Installs a rules document for ``ns`` (dict -> JSON text; str -> sent verbatim)."""
    body = rules if isinstance(rules, str) else json.dumps(rules)
    resp = http.put(f"{base_url}/.settings/rules.json?{qs({'ns': ns})}", data=body.encode("utf-8"))
    assert 200 <= resp.status_code < 300, (
        f"installing rules for ns={ns} failed: {resp.status_code} {resp.text!r}"
    )
    return resp


def error_message(resp: requests.Response) -> str:
    """Returns the ``error`` string of a ``{"error": "..."}`` body, asserting that shape."""
    try:
        body = resp.json()
    except ValueError as exc:  # pragma: no cover - reported as an assertion
        raise AssertionError(f"error body is not JSON: {resp.status_code} {resp.text!r}") from exc
    assert isinstance(body, dict) and isinstance(body.get("error"), str), (
        f"error body must be {{\"error\": \"...\"}}, got {resp.status_code} {body!r}"
    )
    return body["error"]


def media_type(resp: requests.Response) -> str:
    """Content-Type normalised for comparison: lower case, no blanks."""
    return resp.headers.get("Content-Type", "").lower().replace(" ", "")


def push_id_millis(key: str) -> int:
    """Decodes the timestamp encoded in the first 8 characters of a push id."""
    millis = 0
    for ch in key[:8]:
        millis = millis * 64 + PUSH_ALPHABET.index(ch)
    return millis


# --------------------------------------------------------------------------------------------
# Server-Sent Events


@dataclass
class SSEEvent:
    """One SSE block: ``event`` name, raw ``data`` text and the raw lines it came from."""

    event: str
    data: str
    lines: list[str] = field(default_factory=list)

    @property
    def payload(self) -> Any:
        return json.loads(self.data)

    @property
    def path(self) -> str:
        return self.payload["path"]

    @property
    def value(self) -> Any:
        return self.payload["data"]

    def summary(self) -> tuple[str, str, Any]:
        """``(event, path, data)`` for put/patch events, convenient for equality checks."""
        return (self.event, self.path, self.value)

    def __repr__(self) -> str:  # keeps assertion messages readable
        return f"SSEEvent({self.event!r}, {self.data!r})"


class _EndOfStream:
    def __init__(self, reason: str):
        self.reason = reason


class SSEStream:
    """A minimal SSE reader over a ``requests`` streaming response.

    A daemon thread reads the body as bytes arrive (``read1``), decodes UTF-8 incrementally,
    splits blocks on blank lines and queues parsed events. Consumers wait on the queue with
    a timeout, so a silent server fails a test instead of hanging it.
    """

    def __init__(self, response: requests.Response):
        self.response = response
        self.status_code = response.status_code
        self.headers = response.headers
        self._queue: queue.Queue = queue.Queue()
        self._closed = False
        self._ended: str | None = None
        self.history: list[SSEEvent] = []
        self._thread = threading.Thread(target=self._read_loop, name="sse-reader", daemon=True)
        self._thread.start()

    @classmethod
    def open(
        cls,
        url: str,
        headers: dict[str, str] | None = None,
        connect_timeout: float = 5.0,
        read_timeout: float = 20.0,
    ) -> "SSEStream":
        """Issues ``GET url`` with ``Accept: text/event-stream`` and returns once headers arrive.

        ``read_timeout`` bounds the wait for the response headers and for every later read of
        the body (after that long without a byte the stream counts as ended).
        """
        hdrs = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        hdrs.update(headers or {})
        resp = requests.get(url, headers=hdrs, stream=True, timeout=(connect_timeout, read_timeout))
        return cls(resp)

    # -- reading ------------------------------------------------------------------------------

    def _read_loop(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
        buf = ""
        reason = "end of stream"
        try:
            if self.status_code != 200:
                reason = f"HTTP {self.status_code}"
                return
            raw = self.response.raw
            while True:
                chunk = raw.read1(4096, decode_content=True)
                if not chunk:
                    break
                buf += decoder.decode(chunk)
                buf = buf.replace("\r\n", "\n")
                while "\n\n" in buf:
                    block, buf = buf.split("\n\n", 1)
                    self._emit(block)
        except Exception as exc:  # noqa: BLE001 - any read failure ends the stream
            reason = "closed" if self._closed else f"{type(exc).__name__}: {exc}"
        finally:
            self._queue.put(_EndOfStream(reason))

    def _emit(self, block: str) -> None:
        lines = block.split("\n")
        event = "message"
        data_lines: list[str] = []
        for line in lines:
            if line.startswith(":"):
                # Comment line; recorded in ``lines`` so tests can assert none are sent.
                continue
            name, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if name == "event":
                event = value
            elif name == "data":
                data_lines.append(value)
        self._queue.put(SSEEvent(event=event, data="\n".join(data_lines), lines=lines))

    # -- consuming ----------------------------------------------------------------------------

    def next_raw(self, timeout: float = EVENT_TIMEOUT) -> SSEEvent:
        """Next SSE block of any type (keep-alive included)."""
        if self._ended is not None:
            raise AssertionError(f"SSE stream already ended ({self._ended}); history={self.history}")
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no SSE event within {timeout}s; events so far: {self.history}"
            ) from None
        if isinstance(item, _EndOfStream):
            self._ended = item.reason
            raise AssertionError(f"SSE stream ended ({item.reason}); events so far: {self.history}")
        self.history.append(item)
        return item

    def next_event(self, timeout: float = EVENT_TIMEOUT) -> SSEEvent:
        """Next data event, skipping ``keep-alive`` blocks; fails after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no SSE data event within {timeout}s; history={self.history}")
            ev = self.next_raw(timeout=remaining)
            if ev.event != "keep-alive":
                return ev

    def wait_ended(self, timeout: float = EVENT_TIMEOUT) -> str:
        """Waits until the server ends the stream; returns the reason text."""
        deadline = time.monotonic() + timeout
        while self._ended is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"SSE stream still open after {timeout}s")
            try:
                item = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if isinstance(item, _EndOfStream):
                self._ended = item.reason
            else:
                self.history.append(item)
        return self._ended

    def close(self) -> None:
        """Interrupts the reader (socket shutdown) and closes the response; bounded."""
        self._closed = True
        try:
            self.response.raw.shutdown()
        except Exception:  # noqa: BLE001 - already released / not supported
            pass
        try:
            self.response.close()
        except Exception:  # noqa: BLE001
            pass
        self._thread.join(timeout=5.0)

    def __enter__(self) -> "SSEStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# --------------------------------------------------------------------------------------------
# A listener's materialised view (put/patch application)


def _split(path: str) -> list[str]:
    return [seg for seg in path.split("/") if seg]


def _normalise(value: Any) -> Any:
    """Empty containers are null; arrays become objects with string index keys."""
    if isinstance(value, list):
        value = {str(i): v for i, v in enumerate(value)}
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = _normalise(v)
            if v is not None:
                out[k] = v
        return out or None
    return value


def _set_at(tree: Any, segments: list[str], value: Any) -> Any:
    if not segments:
        return _normalise(value)
    node = tree if isinstance(tree, dict) else {}
    node = dict(node)
    child = _set_at(node.get(segments[0]), segments[1:], value)
    if child is None:
        node.pop(segments[0], None)
    else:
        node[segments[0]] = child
    return node or None


def apply_event(view: Any, event: SSEEvent) -> Any:
    """Returns ``view`` after applying one ``put`` or ``patch`` event (normalised form)."""
    view = _normalise(view)
    base = _split(event.path)
    if event.event == "put":
        return _set_at(view, base, event.value)
    if event.event == "patch":
        assert isinstance(event.value, dict), f"patch data must be an object: {event!r}"
        for rel, val in event.value.items():
            view = _set_at(view, base + _split(rel), val)
        return view
    raise AssertionError(f"unexpected event type {event.event!r}")


def normalised(value: Any) -> Any:
    """The normalised form used by :func:`apply_event` (for comparing with expectations)."""
    return _normalise(value)


# --------------------------------------------------------------------------------------------
# firebase-admin listeners with bounded waits


class AdminListener:
    """Wraps ``Reference.listen`` so that starting, receiving and closing are all bounded."""

    def __init__(self, ref: Any, start_timeout: float = 10.0):
        self.events: queue.Queue = queue.Queue()
        self.received: list[tuple[str, str, Any]] = []
        self.registration = None
        result: dict[str, Any] = {}

        def callback(event: Any) -> None:
            self.events.put((event.event_type, event.path, event.data))

        def start() -> None:
            try:
                result["registration"] = ref.listen(callback)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the test thread
                result["error"] = exc

        starter = threading.Thread(target=start, name="admin-listen-start", daemon=True)
        starter.start()
        starter.join(timeout=start_timeout)
        if starter.is_alive():
            raise AssertionError(f"Reference.listen() did not return within {start_timeout}s")
        if "error" in result:
            raise result["error"]
        self.registration = result["registration"]

    def next(self, timeout: float = EVENT_TIMEOUT) -> tuple[str, str, Any]:
        try:
            item = self.events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no listen() event within {timeout}s; received so far: {self.received}"
            ) from None
        self.received.append(item)
        return item

    def close(self, timeout: float = 10.0, wake: Callable[[], Any] | None = None) -> float:
        """Closes the registration; returns the seconds ``close()`` took.

        firebase-admin's ``ListenerRegistration.close()`` closes the response from the calling
        thread while its reader thread is blocked in ``recv``; on Linux that does not wake the
        reader, so ``close()`` only returns once the server sends another byte on the stream.
        With ``wake`` (e.g. a write to the listened location) the public ``close()`` is started
        first and ``wake()`` is called while it waits. Without it, the stream's socket is shut
        down (private attributes of the SDK) so teardown never depends on server traffic.
        """
        if self.registration is None:
            return 0.0
        registration, self.registration = self.registration, None
        if wake is None:
            _shutdown_admin_stream(registration)
        started = time.monotonic()
        closer = threading.Thread(target=registration.close, name="admin-listen-close", daemon=True)
        closer.start()
        if wake is not None:
            wake()
        closer.join(timeout=timeout)
        elapsed = time.monotonic() - started
        if closer.is_alive():
            raise AssertionError(f"ListenerRegistration.close() did not return within {timeout}s")
        return elapsed


def _shutdown_admin_stream(registration: Any) -> None:
    """Stops an admin SSE client's reconnect loop and interrupts its blocked read."""
    try:
        sse = registration._sse  # noqa: SLF001 - SDK internals, teardown only
        sse.should_connect = False
        sse.retry = 0
        sse.resp.raw.shutdown()
    except Exception:  # noqa: BLE001 - best effort; close() still runs afterwards
        pass


def run_threads(target: Callable[[int], Any], count: int, timeout: float = 60.0) -> list[Any]:
    """Runs ``target(i)`` for i in range(count) on ``count`` threads started together.

    Returns the results in index order; re-raises the first exception; fails if any thread
    is still running after ``timeout`` seconds.
    """
    barrier = threading.Barrier(count)
    results: list[Any] = [_MISSING] * count
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=timeout)
            results[i] = target(i)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(count)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    alive = sum(t.is_alive() for t in threads)
    if alive:
        raise AssertionError(f"{alive} of {count} threads still running after {timeout}s")
    if errors:
        raise errors[0]
    return results
