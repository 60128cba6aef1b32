"""The realtime WebSocket protocol, version 5 (spec rtdb.md §6), spoken by a raw client.

Every test opens real sockets to the session's ``hearth serve --dev`` and checks the frames the
server sends: the handshake, request/response pairs, ``d``/``m`` pushes (absolute paths, export
format, tags for ranged queries), frame splitting both ways, transactions by hash, onDisconnect,
rules (denials, revocations) and slow-client disconnection. Each wait is bounded.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import time
from typing import Any

import pytest
import requests
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from hearth_helpers import OWNER, OWNER_HEADERS, db_url, put_rules
from test_rules import user_token

WAIT = 5.0


class RealtimeClient:
    """A minimal protocol peer: sends requests, reassembles split messages, keeps pushes."""

    def __init__(self, base_url: str, ns: str) -> None:
        url = base_url.replace("http://", "ws://") + f"/.ws?v=5&ns={ns}"
        self.ws = connect(url, open_timeout=WAIT, max_size=None)
        self.next_id = 0
        self.pushes: list[dict[str, Any]] = []
        self.responses: dict[int, dict[str, Any]] = {}
        self.frames: list[str] = []
        self.handshake = self.read_message()
        assert self.handshake["t"] == "c" and self.handshake["d"]["t"] == "h"

    def close(self) -> None:
        self.ws.close()

    def read_message(self, timeout: float = WAIT) -> dict[str, Any]:
        frame = self.ws.recv(timeout=timeout)
        self.frames.append(frame)
        if len(frame) <= 6 and frame.isdigit():
            count = int(frame)
            assert count > 0, "the server must never send a bare 0"
            parts = []
            for _ in range(count):
                part = self.ws.recv(timeout=timeout)
                self.frames.append(part)
                parts.append(part)
            frame = "".join(parts)
        return json.loads(frame)

    def pump(self, timeout: float = WAIT) -> dict[str, Any]:
        """Reads one message; records it as a response or a push and returns it."""
        message = self.read_message(timeout)
        if message["t"] == "d":
            body = message["d"]
            if "r" in body:
                self.responses[body["r"]] = body["b"]
            elif "a" in body:
                self.pushes.append(body)
        return message

    def send(self, action: str, body: dict[str, Any]) -> int:
        self.next_id += 1
        self.ws.send(json.dumps({"t": "d", "d": {"r": self.next_id, "a": action, "b": body}}))
        return self.next_id

    def wait_response(self, rid: int, timeout: float = WAIT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while rid not in self.responses:
            self.pump(max(0.05, deadline - time.monotonic()))
        return self.responses[rid]

    def request(self, action: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.wait_response(self.send(action, body))

    def wait_push(self, predicate, timeout: float = WAIT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for p in self.pushes:
                if predicate(p):
                    self.pushes.remove(p)
                    return p
            self.pump(max(0.05, deadline - time.monotonic()))

    def no_push(self, seconds: float = 0.5) -> None:
        """Asserts that no push arrives within ``seconds``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                self.pump(deadline - time.monotonic())
            except TimeoutError:
                break
        assert self.pushes == [], f"unexpected pushes {self.pushes}"


@pytest.fixture
def clients(base_url, ns):
    opened: list[RealtimeClient] = []

    def make() -> RealtimeClient:
        c = RealtimeClient(base_url, ns)
        opened.append(c)
        return c

    yield make
    for c in opened:
        c.close()


@pytest.fixture
def admin(clients):
    c = clients()
    assert c.request("gauth", {"cred": OWNER})["s"] == "ok"
    return c


def rest(http, base_url, ns, method, path, body=None, headers=OWNER_HEADERS):
    kwargs = {"headers": headers}
    if body is not None:
        kwargs["data"] = json.dumps(body)
    resp = http.request(method, db_url(base_url, path, ns), **kwargs)
    assert resp.status_code == 200, resp.text
    return resp.json()


def rtdb_hash(value: Any, priority: Any = None) -> str:
    """The node hash of spec §1.7, for plain JSON values without priorities below the top."""
    if value is None or value == {}:
        return ""
    prefix = ""
    if priority is not None:
        prefix = "priority:" + _leaf_text(priority) + ":"
    if isinstance(value, dict):
        text = prefix
        for key in sorted(value, key=_key_order):
            child = rtdb_hash(value[key])
            if child:
                text += ":" + key + ":" + child
    else:
        text = prefix + _leaf_text(value)
    return base64.b64encode(hashlib.sha1(text.encode()).digest()).decode()


def _leaf_text(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean:" + ("true" if v else "false")
    if isinstance(v, (int, float)):
        return "number:" + struct.pack(">d", float(v)).hex()
    return "string:" + v


def _key_order(k: str):
    try:
        n = int(k)
        if str(n) == k and -(2**31) <= n < 2**31:
            return (0, n, "")
    except ValueError:
        pass
    return (1, 0, k)


# ---------------------------------------------------------------------------------------------
# Handshake, stats, keep-alive, ping


def test_handshake_names_time_version_host_and_session(clients):
    c = clients()
    h = c.handshake["d"]["d"]
    assert h["v"] == "5"
    assert abs(h["ts"] - time.time() * 1000) < 60_000
    assert h["h"].startswith("127.0.0.1:")
    assert isinstance(h["s"], str) and h["s"]


def test_stats_keepalive_and_ping(clients):
    c = clients()
    assert c.request("s", {"c": {"sdk.python.test": 1}}) == {"s": "ok", "d": ""}
    c.ws.send("0")  # the client's keep-alive: ignored
    c.ws.send(json.dumps({"t": "c", "d": {"t": "p", "d": {}}}))
    pong = c.pump()
    assert pong == {"t": "c", "d": {"t": "o", "d": None}}
    # The connection still works after both.
    assert c.request("s", {"c": {}})["s"] == "ok"


# ---------------------------------------------------------------------------------------------
# Listens and pushes


def test_listen_pushes_initial_data_before_ok_then_changes(admin, http, base_url, ns):
    rest(http, base_url, ns, "PUT", "/users/jack", {"name": "Jack"})
    rid = admin.send("q", {"p": "/users", "h": ""})
    first = admin.pump()  # the data comes first, then the ok
    assert first["d"] == {"a": "d", "b": {"p": "users", "d": {"jack": {"name": "Jack"}}}}
    assert rid not in admin.responses
    assert admin.wait_response(rid) == {"s": "ok", "d": {}}
    admin.pushes.clear()
    # A REST write below the listen arrives as a d push at its absolute path.
    rest(http, base_url, ns, "PUT", "/users/jill", {"name": "Jill"})
    push = admin.wait_push(lambda p: p["a"] == "d")
    assert push["b"] == {"p": "users/jill", "d": {"name": "Jill"}}
    # A PATCH arrives as an m push.
    rest(http, base_url, ns, "PATCH", "/users", {"jack/age": 30, "jill": None})
    merge = admin.wait_push(lambda p: p["a"] == "m")
    assert merge["b"] == {"p": "users", "d": {"jack/age": 30, "jill": None}}
    # A write above the listen delivers the listen's new value.
    rest(http, base_url, ns, "PUT", "/", {"users": {"bob": 1}, "other": 2})
    above = admin.wait_push(lambda p: p["a"] == "d")
    assert above["b"] == {"p": "users", "d": {"bob": 1}}
    # A write elsewhere delivers nothing.
    rest(http, base_url, ns, "PUT", "/other", 3)
    admin.no_push()


def test_unlisten_stops_pushes(admin, http, base_url, ns):
    admin.request("q", {"p": "/a", "h": ""})
    admin.wait_push(lambda p: p["b"]["p"] == "a")
    assert admin.request("n", {"p": "/a"}) == {"s": "ok", "d": ""}
    rest(http, base_url, ns, "PUT", "/a", 1)
    admin.no_push()


def test_pushes_use_export_format(admin, http, base_url, ns):
    rest(http, base_url, ns, "PUT", "/p", {"x": {".value": 1, ".priority": 5}})
    admin.request("q", {"p": "/p", "h": ""})
    push = admin.wait_push(lambda p: p["a"] == "d")
    assert push["b"]["d"] == {"x": {".value": 1, ".priority": 5}}


def test_write_from_one_client_reaches_another(clients):
    writer, reader = clients(), clients()
    for c in (writer, reader):
        assert c.request("gauth", {"cred": OWNER})["s"] == "ok"
    reader.request("q", {"p": "/chat", "h": ""})
    reader.wait_push(lambda p: p["b"]["p"] == "chat")
    assert writer.request("p", {"p": "/chat/m1", "d": {"text": "hi", "at": {".sv": "timestamp"}}})["s"] == "ok"
    push = reader.wait_push(lambda p: p["b"]["p"] == "chat/m1")
    assert push["b"]["d"]["text"] == "hi"
    assert abs(push["b"]["d"]["at"] - time.time() * 1000) < 60_000


def test_tagged_query_listen_sends_only_its_window(admin, http, base_url, ns):
    put_rules(http, base_url, ns, {"rules": {".read": True, ".write": True, "scores": {".indexOn": "v"}}})
    rest(http, base_url, ns, "PUT", "/scores", {"a": {"v": 1}, "b": {"v": 5}, "c": {"v": 3}})
    q = {"l": 2, "vf": "r", "i": "v"}
    rid = admin.send("q", {"p": "/scores", "q": q, "t": 7, "h": ""})
    first = admin.wait_push(lambda p: p["a"] == "d")
    assert first["b"] == {"p": "scores", "d": {"b": {"v": 5}, "c": {"v": 3}}, "t": 7}
    assert admin.wait_response(rid) == {"s": "ok", "d": {}}
    # A change that enters the window re-sends the window with the tag.
    rest(http, base_url, ns, "PUT", "/scores/d", {"v": 9})
    push = admin.wait_push(lambda p: p["a"] == "d")
    assert push["b"] == {"p": "scores", "d": {"b": {"v": 5}, "d": {"v": 9}}, "t": 7}
    # A change outside the window sends nothing.
    rest(http, base_url, ns, "PUT", "/scores/a", {"v": 0})
    admin.no_push()
    # Unlisten with the same query and tag.
    assert admin.request("n", {"p": "/scores", "q": q, "t": 7})["s"] == "ok"
    rest(http, base_url, ns, "PUT", "/scores/e", {"v": 100})
    admin.no_push()


def test_unindexed_query_listen_warns_no_index(admin, http, base_url, ns):
    rest(http, base_url, ns, "PUT", "/items", {"a": {"h": 2}, "b": {"h": 1}})
    rid = admin.send("q", {"p": "/items", "q": {"l": 1, "vf": "l", "i": "h"}, "t": 1, "h": ""})
    push = admin.wait_push(lambda p: p["a"] == "d")
    assert push["b"] == {"p": "items", "d": {"b": {"h": 1}}, "t": 1}
    assert admin.wait_response(rid) == {"s": "ok", "d": {"w": ["no_index"]}}


def test_start_after_and_end_before_on_the_wire(admin, http, base_url, ns):
    rest(http, base_url, ns, "PUT", "/k", {"a": 1, "b": 2, "c": 3, "d": 4})
    q = {"sp": "a", "sin": False, "ep": "d", "ein": False, "i": ".key"}
    admin.request("q", {"p": "/k", "q": q, "t": 3, "h": ""})
    push = next(p for p in admin.pushes if p["a"] == "d")
    assert push["b"]["d"] == {"b": 2, "c": 3}


def test_get_answers_with_value_and_queries(admin, http, base_url, ns):
    rest(http, base_url, ns, "PUT", "/g", {"a": 1, "b": 2, "c": 3})
    assert admin.request("g", {"p": "/g"}) == {"s": "ok", "d": {"a": 1, "b": 2, "c": 3}}
    assert admin.request("g", {"p": "/g", "q": {"l": 1, "vf": "r", "i": ".key"}}) == {"s": "ok", "d": {"c": 3}}
    assert admin.request("g", {"p": "/missing"}) == {"s": "ok", "d": None}
    # An unindexed child query is refused like REST (this server enforces indexes).
    denied = admin.request("g", {"p": "/g", "q": {"l": 1, "vf": "l", "i": "height"}})
    assert denied["s"] != "ok" and "Index not defined" in denied["d"]


# ---------------------------------------------------------------------------------------------
# Writes


def test_put_merge_and_server_values(admin, http, base_url, ns):
    assert admin.request("p", {"p": "/n", "d": 5}) == {"s": "ok", "d": ""}
    assert admin.request("p", {"p": "/n", "d": {".sv": {"increment": 2}}})["s"] == "ok"
    assert rest(http, base_url, ns, "GET", "/n") == 7
    assert admin.request("m", {"p": "/o", "d": {"x/y": 1, "z": 2}})["s"] == "ok"
    assert rest(http, base_url, ns, "GET", "/o") == {"x": {"y": 1}, "z": 2}
    # Overlapping merge paths are refused and nothing is written.
    bad = admin.request("m", {"p": "/o", "d": {"a": 1, "a/b": 2}})
    assert bad["s"] != "ok"
    assert rest(http, base_url, ns, "GET", "/o") == {"x": {"y": 1}, "z": 2}
    # Priority writes through the .priority child.
    assert admin.request("p", {"p": "/o/.priority", "d": 3})["s"] == "ok"
    exported = http.get(db_url(base_url, "/o", ns, format="export"), headers=OWNER_HEADERS).json()
    assert exported[".priority"] == 3


def test_invalid_data_is_refused_without_writing(admin, http, base_url, ns):
    bad = admin.request("p", {"p": "/v", "d": {"a.b": 1}})
    assert bad["s"] != "ok"
    assert rest(http, base_url, ns, "GET", "/v") is None


def test_transaction_put_by_hash(admin, http, base_url, ns):
    # Empty location: the client's hash is "".
    assert admin.request("p", {"p": "/counter", "d": 1, "h": ""}) == {"s": "ok", "d": ""}
    # Stale hash (still "" but the value is now 1): refused, nothing written.
    stale = admin.request("p", {"p": "/counter", "d": 99, "h": ""})
    assert stale == {"s": "datastale", "d": "Transaction hash does not match"}
    assert rest(http, base_url, ns, "GET", "/counter") == 1
    # The hash of the current value (spec §1.7): accepted.
    assert admin.request("p", {"p": "/counter", "d": 2, "h": rtdb_hash(1)})["s"] == "ok"
    assert rest(http, base_url, ns, "GET", "/counter") == 2
    rest(http, base_url, ns, "PUT", "/obj", {"a": 4, "b": "x"})
    assert admin.request("p", {"p": "/obj", "d": {"a": 5}, "h": rtdb_hash({"a": 4, "b": "x"})})["s"] == "ok"
    assert rest(http, base_url, ns, "GET", "/obj") == {"a": 5}


def test_spec_hash_vector_matches_server(admin, http, base_url, ns):
    # From the spec's test vectors: leaf 4 hashes to eVih19a6ZDz3NL32uVBtg9KSgQY=.
    rest(http, base_url, ns, "PUT", "/h", 4)
    assert admin.request("p", {"p": "/h", "d": 5, "h": "eVih19a6ZDz3NL32uVBtg9KSgQY="})["s"] == "ok"


# ---------------------------------------------------------------------------------------------
# onDisconnect


def test_on_disconnect_runs_when_the_socket_closes(clients, http, base_url, ns):
    c = clients()
    c.request("gauth", {"cred": OWNER})
    c.request("p", {"p": "/presence/me", "d": True})
    assert c.request("o", {"p": "/presence/me", "d": None})["s"] == "ok"
    assert c.request("om", {"p": "/status", "d": {"me/online": False, "me/seen": {".sv": "timestamp"}}})["s"] == "ok"
    assert c.request("o", {"p": "/cancelled/x", "d": "should not appear"})["s"] == "ok"
    assert c.request("oc", {"p": "/cancelled", "d": None})["s"] == "ok"
    assert rest(http, base_url, ns, "GET", "/presence/me") is True
    c.close()
    # The operations run one after another, each its own write: wait for the last one.
    deadline = time.monotonic() + WAIT
    while (status := rest(http, base_url, ns, "GET", "/status/me")) is None:
        assert time.monotonic() < deadline, "onDisconnect merge did not run"
        time.sleep(0.05)
    assert rest(http, base_url, ns, "GET", "/presence/me") is None, "the put registered first ran first"
    assert status["online"] is False and abs(status["seen"] - time.time() * 1000) < 60_000
    assert rest(http, base_url, ns, "GET", "/cancelled") is None


# ---------------------------------------------------------------------------------------------
# Auth and rules


def test_rules_apply_to_listens_writes_and_on_disconnect(clients, http, base_url, ns):
    put_rules(http, base_url, ns, {"rules": {
        "public": {".read": True},
        "users": {"$uid": {".read": "auth.uid === $uid", ".write": "auth.uid === $uid"}},
    }})
    rest(http, base_url, ns, "PUT", "/users/alice", {"n": 1})
    c = clients()
    # Signed out: private data is refused, public is readable.
    assert c.request("q", {"p": "/users/alice", "h": ""}) == {"s": "permission_denied", "d": "Permission denied"}
    assert not [p for p in c.pushes if p["b"]["p"] == "users/alice"]
    assert c.request("q", {"p": "/public", "h": ""})["s"] == "ok"
    assert c.request("p", {"p": "/users/alice/n", "d": 2})["s"] == "permission_denied"
    # As alice.
    ok = c.request("auth", {"cred": user_token("alice")})
    assert ok["s"] == "ok" and ok["d"]["auth"]["sub"] == "alice"
    assert c.request("q", {"p": "/users/alice", "h": ""})["s"] == "ok"
    assert c.request("p", {"p": "/users/alice/n", "d": 2})["s"] == "ok"
    assert c.request("p", {"p": "/users/bob/n", "d": 2})["s"] == "permission_denied"
    assert c.request("o", {"p": "/users/bob", "d": None})["s"] == "permission_denied"
    # Signing out revokes the listen the client may no longer read.
    c.pushes.clear()
    assert c.request("unauth", {})["s"] == "ok"
    revoked = c.wait_push(lambda p: p["a"] == "c")
    assert revoked["b"]["p"] == "users/alice"


def test_rules_change_revokes_listens(admin, clients, http, base_url, ns):
    put_rules(http, base_url, ns, {"rules": {"open": {".read": True}}})
    c = clients()
    assert c.request("q", {"p": "/open", "h": ""})["s"] == "ok"
    put_rules(http, base_url, ns, {"rules": {"open": {".read": False}}})
    revoked = c.wait_push(lambda p: p["a"] == "c")
    assert revoked["b"] == {"p": "open"}


def test_invalid_token_is_refused(clients):
    c = clients()
    answer = c.request("auth", {"cred": "not-a-token"})
    assert answer["s"] == "invalid_token"


def test_admin_auth_override(clients, http, base_url, ns):
    put_rules(http, base_url, ns, {"rules": {"mine": {"$uid": {".write": "auth.uid === $uid"}}}})
    c = clients()
    assert c.request("gauth", {"cred": OWNER, "authvar": {"uid": "u1"}})["s"] == "ok"
    assert c.request("p", {"p": "/mine/u1", "d": 1})["s"] == "ok"
    assert c.request("p", {"p": "/mine/u2", "d": 1})["s"] == "permission_denied"


# ---------------------------------------------------------------------------------------------
# Framing and limits


def test_large_messages_are_split_both_ways(admin, http, base_url, ns):
    big = "x" * 50_000
    message = json.dumps({"t": "d", "d": {"r": 99, "a": "p", "b": {"p": "/big", "d": big}}})
    chunks = [message[i:i + 16384] for i in range(0, len(message), 16384)]
    admin.ws.send(str(len(chunks)))
    for chunk in chunks:
        admin.ws.send(chunk)
    assert admin.wait_response(99)["s"] == "ok"
    assert rest(http, base_url, ns, "GET", "/big") == big
    admin.frames.clear()
    admin.request("q", {"p": "/big", "h": ""})
    push = admin.wait_push(lambda p: p["a"] == "d")
    assert push["b"]["d"] == big
    # The server split it: a count frame followed by frames of at most 16384 characters.
    assert admin.frames[0].isdigit() and int(admin.frames[0]) >= 4
    assert all(len(f) <= 16384 for f in admin.frames)


def test_slow_client_is_disconnected(admin, clients, http, base_url, ns):
    slow = clients()
    slow.request("gauth", {"cred": OWNER})
    slow.request("q", {"p": "/flood", "h": ""})
    chunk = "y" * 1_000_000
    # The slow client never reads while 40 MB of changes are written.
    for i in range(40):
        resp = http.put(db_url(base_url, f"/flood/{i}", ns), data=json.dumps(chunk), headers=OWNER_HEADERS)
        assert resp.status_code == 200
    # The server gave up on it: reading drains what was sent, then the socket closes.
    received = 0
    with pytest.raises(ConnectionClosed):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            received += len(slow.ws.recv(timeout=5))
    assert received < 40_000_000, "everything was delivered: the client was not cut off"
    # Other clients are unaffected.
    assert admin.request("s", {"c": {}})["s"] == "ok"


def test_expired_token_is_revoked_while_idle(clients, http, base_url, ns):
    put_rules(http, base_url, ns, {"rules": {"users": {"$uid": {".read": "auth.uid === $uid"}}}})
    c = clients()
    answer = c.request("auth", {"cred": user_token("alice", exp=int(time.time()) + 2)})
    assert answer["s"] == "ok" and isinstance(answer["d"]["expires"], int)
    assert c.request("q", {"p": "/users/alice", "h": ""})["s"] == "ok"
    # Nothing is sent by the client; the server notices the expiry by itself.
    revoked = c.wait_push(lambda p: p["a"] == "ac", timeout=6)
    assert revoked["b"]["s"] == "expired_token"
    cancelled = c.wait_push(lambda p: p["a"] == "c")
    assert cancelled["b"]["p"] == "users/alice"
