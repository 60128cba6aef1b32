"""Security-rules enforcement (spec rtdb.md §2.2, §2.9, §3.6, §4, §5; §9 scenarios 19-24).

Identities used below:

* admin: ``Authorization: Bearer owner`` (or ``auth=owner`` / ``access_token=owner``): bypasses
  every rule, ``.validate`` included.
* override: the admin credential plus ``auth_variable_override=<JSON>``; rules are evaluated as
  if ``auth`` were exactly that JSON (``null`` = signed out). firebase-admin sends it for apps
  initialised with ``databaseAuthVariableOverride``.
* token: an unsigned ID token (``alg: none``, empty signature, as the Auth emulator makes) in
  ``?auth=`` or ``Authorization: Bearer``; ``auth.uid`` = ``sub`` (or ``user_id``),
  ``auth.token`` = all claims, ``auth.provider`` = ``firebase.sign_in_provider``.
* anonymous: no credential at all, ``auth == null``.

A denial is HTTP 401 with body exactly ``{"error":"Permission denied"}``; firebase-admin raises
``UnauthenticatedError`` whose message is ``Permission denied``. The suite runs the server with
``--dev``, where a denial also carries ``X-Hearth-Rule`` naming the rule that decided (or saying
that no rule granted); successful responses never carry it.

Every test uses its own namespace and installs its rules as admin. Every network wait here is
bounded by at most a few seconds.
"""

from __future__ import annotations

import base64
import json
import re
import time
from typing import Any

import pytest
import requests
from firebase_admin import db, exceptions

from hearth_helpers import OWNER, OWNER_HEADERS, db_url, error_message, new_namespace, put_rules, qs

TIMEOUT = 5.0
PERMISSION_DENIED = {"error": "Permission denied"}
BAD_TOKEN = {"error": "Could not parse auth token."}
RULE_HEADER = "X-Hearth-Rule"
_NO_BODY = object()

# After close() the SDK's reader thread may die on the response it had closed under it; that is
# client-side noise, not a server fault (same filter as test_admin_db.py).
IGNORE_LISTENER_THREAD_NOISE = pytest.mark.filterwarnings(
    r"ignore:(?s)Exception in thread .*_start_listen.*NoneType. object has no attribute .read."
    ":pytest.PytestUnhandledThreadExceptionWarning"
)


# ------------------------------------------------------------------------------------------
# Helpers


def ref(app, path: str = "/"):
    return db.reference(path, app=app)


def _b64url(obj: Any) -> str:
    raw = json.dumps(obj, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def unsigned_jwt(claims: dict[str, Any]) -> str:
    """``base64url(header).base64url(payload).`` with header ``{"alg":"none","typ":"JWT"}``."""
    return f"{_b64url({'alg': 'none', 'typ': 'JWT'})}.{_b64url(claims)}."


def id_token_claims(uid: str | None, provider: str = "custom", **extra: Any) -> dict[str, Any]:
    """Claims shaped like an Auth-emulator ID token for ``uid`` (``sub`` and ``user_id``)."""
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": "https://securetoken.google.com/demo-hearth",
        "aud": "demo-hearth",
        "auth_time": now,
        "iat": now,
        "exp": now + 3600,
        "firebase": {"identities": {}, "sign_in_provider": provider},
    }
    if uid is not None:
        claims["sub"] = uid
        claims["user_id"] = uid
    claims.update(extra)
    return claims


def user_token(uid: str, **extra: Any) -> str:
    return unsigned_jwt(id_token_claims(uid, **extra))


def assert_denied(resp: requests.Response) -> None:
    """401, body exactly ``{"error":"Permission denied"}``, non-empty ``X-Hearth-Rule`` (--dev)."""
    assert resp.status_code == 401, f"expected 401, got {resp.status_code} {resp.text!r}"
    assert resp.json() == PERMISSION_DENIED, resp.text
    rule = resp.headers.get(RULE_HEADER)
    assert rule is not None and rule.strip(), (
        f"a denial in --dev must carry a non-empty {RULE_HEADER} header; headers={dict(resp.headers)}"
    )


def assert_ok(resp: requests.Response) -> requests.Response:
    """200 and no ``X-Hearth-Rule`` header (it only explains denials)."""
    assert resp.status_code == 200, f"expected 200, got {resp.status_code} {resp.text!r}"
    assert RULE_HEADER not in resp.headers, (
        f"{RULE_HEADER} must not be sent on success: {resp.headers.get(RULE_HEADER)!r}"
    )
    return resp


def assert_sdk_denied(excinfo) -> None:
    assert str(excinfo.value) == "Permission denied"
    response = excinfo.value.http_response
    assert response is not None and response.status_code == 401


class Caller:
    """Raw REST requests against one namespace as one identity (headers + extra params)."""

    def __init__(self, base_url: str, ns: str, headers: dict[str, str] | None = None,
                 params: dict[str, str] | None = None):
        self.base_url = base_url
        self.ns = ns
        self.headers = dict(headers or {})
        self.params = dict(params or {})

    def url(self, path: str, **params: Any) -> str:
        return db_url(self.base_url, path, self.ns, **{**self.params, **params})

    def request(self, method: str, path: str, value: Any = _NO_BODY,
                headers: dict[str, str] | None = None, **params: Any) -> requests.Response:
        data = None if value is _NO_BODY else json.dumps(value).encode("utf-8")
        hdrs = {**self.headers, **(headers or {})}
        return requests.request(method, self.url(path, **params), data=data, headers=hdrs,
                                timeout=TIMEOUT)

    def get(self, path: str, **params: Any) -> requests.Response:
        return self.request("GET", path, **params)

    def put(self, path: str, value: Any, **params: Any) -> requests.Response:
        return self.request("PUT", path, value, **params)

    def patch(self, path: str, value: Any, **params: Any) -> requests.Response:
        return self.request("PATCH", path, value, **params)

    def post(self, path: str, value: Any, **params: Any) -> requests.Response:
        return self.request("POST", path, value, **params)

    def delete(self, path: str, **params: Any) -> requests.Response:
        return self.request("DELETE", path, **params)

    def value(self, path: str = "") -> Any:
        return assert_ok(self.get(path)).json()

    def seed(self, path: str, value: Any) -> None:
        assert_ok(self.put(path, value))

    def stream(self, sse, path: str, **params: Any):
        # Explicit headers (possibly {}) so the sse fixture does not add the owner credential.
        return sse(self.url(path, **params), headers=dict(self.headers),
                   connect_timeout=TIMEOUT, read_timeout=TIMEOUT)


class Callers:
    def __init__(self, base_url: str, ns: str):
        self.base_url = base_url
        self.ns = ns
        self.admin = Caller(base_url, ns, headers=OWNER_HEADERS)
        self.anon = Caller(base_url, ns)

    def override(self, auth: Any) -> Caller:
        """Admin credential + ``auth_variable_override`` (``None`` -> ``null`` = signed out)."""
        return Caller(self.base_url, self.ns, headers=OWNER_HEADERS,
                      params={"auth_variable_override": json.dumps(auth, separators=(",", ":"))})

    def token(self, token: str, via: str = "query") -> Caller:
        """An ID token in ``?auth=`` (via="query") or ``Authorization: Bearer`` (via="bearer")."""
        if via == "query":
            return Caller(self.base_url, self.ns, params={"auth": token})
        assert via == "bearer"
        return Caller(self.base_url, self.ns, headers={"Authorization": f"Bearer {token}"})


@pytest.fixture
def client(base_url, ns) -> Callers:
    return Callers(base_url, ns)


@pytest.fixture
def rules(http, base_url, ns):
    """``rules({...})`` installs a rules document for this test's namespace (as admin)."""

    def install(document: Any) -> None:
        put_rules(http, base_url, ns, document)

    return install


@pytest.fixture
def admin(app_factory, ns):
    """firebase-admin app with admin rights on ``ns`` (short HTTP timeout)."""
    return app_factory(ns, httpTimeout=TIMEOUT)


@pytest.fixture
def user_app(app_factory, ns):
    """``user_app({"uid": "user1"})`` / ``user_app(None)``: apps with databaseAuthVariableOverride."""

    def make(auth: Any):
        assert auth != {}, "{} means 'no override' to firebase-admin"
        return app_factory(ns, httpTimeout=TIMEOUT, databaseAuthVariableOverride=auth)

    return make


def rules_url(base_url: str, ns: str, **params: Any) -> str:
    params["ns"] = ns
    return f"{base_url}/.settings/rules.json?{qs(params)}"


def next_data_event(stream, timeout: float = TIMEOUT):
    """Next SSE event other than keep-alive."""
    return stream.next_event(timeout=timeout)


def assert_cancelled_and_closed(stream) -> None:
    """Next event is ``cancel`` with JSON data ``"Permission denied"``; then the server closes."""
    event = next_data_event(stream)
    assert event.event == "cancel", f"expected a cancel event, got {event!r}"
    assert json.loads(event.data) == "Permission denied", event.data
    cancel_index = len(stream.history)
    reason = stream.wait_ended(timeout=TIMEOUT)
    assert "timed out" not in reason.lower() and reason != "closed", (
        f"stream did not end because the server closed it: {reason}"
    )
    after = [ev for ev in stream.history[cancel_index:] if ev.event != "keep-alive"]
    assert after == [], f"events after cancel: {after}"


# ------------------------------------------------------------------------------------------
# 1. Admin bypass


def test_admin_bypasses_rules_with_every_owner_form(client, rules):
    """Admin (Bearer owner, ?auth=owner, ?access_token=owner) ignores .read/.write/.validate."""
    rules({"rules": {".read": False, ".write": False, "v": {".validate": False}}})
    owner_forms = [
        client.admin,
        Caller(client.base_url, client.ns, params={"auth": OWNER}),
        Caller(client.base_url, client.ns, params={"access_token": OWNER}),
    ]
    for i, caller in enumerate(owner_forms):
        assert_ok(caller.put("v", {"i": i}))
        assert assert_ok(caller.get("v")).json() == {"i": i}
        assert_ok(caller.patch("", {f"w/k{i}": i}))
        assert_ok(caller.post("log", i))
    assert_ok(client.admin.delete("log"))
    assert client.admin.value("") == {"v": {"i": 2}, "w": {"k0": 0, "k1": 1, "k2": 2}}
    # The same requests without the owner credential are denied.
    assert_denied(client.anon.get("v"))
    assert_denied(client.anon.put("v", 1))
    assert client.admin.value("v") == {"i": 2}


def test_admin_sdk_without_override_bypasses_rules(admin, rules):
    """firebase-admin with no databaseAuthVariableOverride acts as admin under closed rules."""
    rules({"rules": {".read": False, ".write": False}})
    ref(admin, "x").set({"a": 1})
    assert ref(admin, "x").get() == {"a": 1}
    ref(admin, "x").update({"b": 2})
    assert ref(admin).get() == {"x": {"a": 1, "b": 2}}


# ------------------------------------------------------------------------------------------
# 2. auth_variable_override; scenarios 19, 21, 22

ADMINSDK_RULES = {
    "rules": {
        "_adminsdk": {
            "python": {
                "dinodb": {
                    "dinosaurs": {".indexOn": ["height", "ratings/pos"]},
                    "scores": {".indexOn": ".value"},
                },
                "protected": {"$uid": {".read": "auth != null", ".write": "$uid === auth.uid"}},
                "admin": {".read": "false", ".write": "false"},
                "public": {".read": "true"},
            }
        }
    }
}


@pytest.fixture
def adminsdk(admin, rules):
    """§5.6 rules installed and 'test' written at admin, protected/user1, protected/user2, public."""
    rules(ADMINSDK_RULES)
    for path in ("admin", "protected/user1", "protected/user2", "public"):
        node = ref(admin, f"_adminsdk/python/{path}")
        node.set("test")
        assert node.get() == "test"
    return admin


def test_scenario19_no_access_to_admin(adminsdk, user_app):
    """§9.19: override {'uid':'user1'} can neither read nor write _adminsdk/python/admin."""
    user_ref = ref(user_app({"uid": "user1"}), "_adminsdk/python/admin")
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        user_ref.get()
    assert_sdk_denied(info)
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        user_ref.set("test2")
    assert_sdk_denied(info)
    assert ref(adminsdk, "_adminsdk/python/admin").get() == "test"


def test_scenario19_read_only_on_other_users_node(adminsdk, user_app):
    """§9.19: user1 may read protected/user2 (auth != null) but not write it ($uid !== uid)."""
    user_ref = ref(user_app({"uid": "user1"}), "_adminsdk/python/protected/user2")
    assert user_ref.get() == "test"
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        user_ref.set("test2")
    assert_sdk_denied(info)
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        user_ref.delete()
    assert_sdk_denied(info)
    assert ref(adminsdk, "_adminsdk/python/protected/user2").get() == "test"


def test_scenario19_read_write_on_own_node(adminsdk, user_app):
    """§9.19: user1 reads and writes protected/user1."""
    user_ref = ref(user_app({"uid": "user1"}), "_adminsdk/python/protected/user1")
    assert user_ref.get() == "test"
    user_ref.set("test2")
    assert user_ref.get() == "test2"
    user_ref.set({"a": 1})
    user_ref.update({"deep/x": 2})
    assert ref(adminsdk, "_adminsdk/python/protected/user1").get() == {"a": 1, "deep": {"x": 2}}


def test_scenario19_query_on_unreadable_parent(adminsdk, user_app):
    """§9.19 / §3.6: a query on protected (no .read there) is denied although children are readable."""
    user_ref = ref(user_app({"uid": "user1"}), "_adminsdk/python/protected")
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        user_ref.order_by_key().limit_to_first(2).get()
    assert_sdk_denied(info)
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        user_ref.get()
    assert_sdk_denied(info)


def test_scenario19_none_override_is_signed_out(adminsdk, user_app):
    """§9.19: override None (auth_variable_override=null) can read only public."""
    app = user_app(None)
    assert ref(app, "_adminsdk/python/public").get() == "test"
    for path in ("protected/user1", "protected/user2", "admin"):
        with pytest.raises(exceptions.UnauthenticatedError) as info:
            ref(app, f"_adminsdk/python/{path}").get()
        assert_sdk_denied(info)
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        ref(app, "_adminsdk/python/public").set("changed")
    assert_sdk_denied(info)
    assert ref(adminsdk, "_adminsdk/python/public").get() == "test"


def test_override_over_raw_rest(client, rules):
    """§2.2: raw auth_variable_override with the owner credential; the override is exactly `auth`."""
    rules({"rules": {
        "whoami": {"$uid": {".read": "auth.uid === $uid", ".write": "auth.uid === $uid"}},
        "staff": {".read": "auth.token.admin === true"},
        "out": {".read": "auth == null"},
    }})
    client.admin.seed("", {"whoami": {"u1": "one", "u2": "two"}, "staff": "s", "out": "o"})
    u1 = client.override({"uid": "u1"})
    assert assert_ok(u1.get("whoami/u1")).json() == "one"
    assert_denied(u1.get("whoami/u2"))
    assert_ok(u1.put("whoami/u1", "uno"))
    assert_denied(u1.put("whoami/u2", "dos"))
    # No `token` in the override -> auth.token.admin is null (null-safe access) -> denied.
    assert_denied(u1.get("staff"))
    assert_denied(u1.get("out"))
    claims = client.override({"uid": "u9", "token": {"admin": True}})
    assert assert_ok(claims.get("staff")).json() == "s"
    signed_out = client.override(None)
    assert assert_ok(signed_out.get("out")).json() == "o"
    assert_denied(signed_out.get("whoami/u1"))
    assert client.admin.value("whoami") == {"u1": "uno", "u2": "two"}


VALIDATE_ITEMS_RULES = {
    "rules": {"items": {"$id": {".validate": "newData.hasChildren(['name'])", ".write": True}}}
}


def test_scenario21_validate_has_children_and_delete(admin, user_app, rules):
    """§9.21: .validate hasChildren(['name']); a failing set is 401; a delete skips .validate."""
    rules(VALIDATE_ITEMS_RULES)
    item = ref(user_app({"uid": "user1"}), "items/i1")
    item.set({"name": "x"})
    assert ref(admin, "items/i1").get() == {"name": "x"}
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        item.set({"age": 1})
    assert_sdk_denied(info)
    assert ref(admin, "items/i1").get() == {"name": "x"}
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        item.set("just a string")
    assert_sdk_denied(info)
    item.delete()
    assert ref(admin, "items/i1").get() is None


def test_scenario22_ancestor_validate(admin, user_app, rules):
    """§9.22: a deep write is checked against an ancestor's .validate on the merged tree."""
    rules({"rules": {"p": {".write": "auth != null", ".validate": "newData.hasChildren(['x'])"}}})
    user = user_app({"uid": "user1"})
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        ref(user, "p/sub/k").set(1)
    assert_sdk_denied(info)
    assert ref(admin, "p").get() is None
    ref(admin, "p/x").set(True)
    ref(user, "p/sub/k").set(1)
    assert ref(admin, "p").get() == {"x": True, "sub": {"k": 1}}
    # Removing x would leave p without it -> the ancestor .validate fails.
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        ref(user, "p/x").delete()
    assert_sdk_denied(info)
    # Signed out: .write 'auth != null' is false.
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        ref(user_app(None), "p/sub/k").set(2)
    assert_sdk_denied(info)
    assert ref(admin, "p").get() == {"x": True, "sub": {"k": 1}}


def test_validate_runs_on_merged_multi_path_update(client, rules):
    """§2.4 / §5.5: .validate sees the tree after all paths of a PATCH."""
    rules({"rules": {"p": {".write": True, ".validate": "newData.hasChildren(['x', 'y'])"}}})
    user = client.override({"uid": "u"})
    assert_denied(user.patch("p", {"x": 1}))
    assert client.admin.value("p") is None
    assert_ok(user.patch("p", {"x": 1, "y": 2}))
    assert client.admin.value("p") == {"x": 1, "y": 2}


def test_admin_skips_validate(client, rules):
    """§5.5: admin (no override) skips .validate as well as .write."""
    rules(VALIDATE_ITEMS_RULES)
    assert_ok(client.admin.put("items/i1", {"age": 1}))
    assert client.admin.value("items/i1") == {"age": 1}
    assert_denied(client.override({"uid": "u"}).put("items/i2", {"age": 1}))
    assert client.admin.value("items") == {"i1": {"age": 1}}


# ------------------------------------------------------------------------------------------
# 3. Identity from credentials: none, unsigned ID tokens, unparseable tokens

USERS_RULES = {
    "rules": {"users": {"$uid": {".read": "auth.uid === $uid", ".write": "auth.uid === $uid"}}}
}


def test_no_credential_is_signed_out(client, rules):
    """§2.2: a request without any credential evaluates with auth == null."""
    rules({"rules": {"out": {".read": "auth == null"}, "in": {".read": "auth != null"}}})
    client.admin.seed("", {"out": 1, "in": 2})
    assert assert_ok(client.anon.get("out")).json() == 1
    assert_denied(client.anon.get("in"))
    alice = client.token(user_token("alice"))
    assert assert_ok(alice.get("in")).json() == 2
    assert_denied(alice.get("out"))


@pytest.mark.parametrize("via", ["query", "bearer"])
def test_unsigned_id_token_identifies_user(client, rules, via):
    """§2.2: an alg:none token (?auth= or Bearer) is a user with auth.uid == sub."""
    rules(USERS_RULES)
    client.admin.seed("users", {"alice": {"name": "A"}, "bob": {"name": "B"}})
    alice = client.token(user_token("alice"), via=via)
    assert assert_ok(alice.get("users/alice")).json() == {"name": "A"}
    assert_ok(alice.put("users/alice/name", "Alice"))
    assert_ok(alice.patch("users/alice", {"age": 30}))
    assert_denied(alice.get("users/bob"))
    assert_denied(alice.put("users/bob/name", "hacked"))
    assert_denied(alice.delete("users/bob"))
    assert_denied(alice.get("users"))
    assert_denied(client.anon.get("users/alice"))
    assert client.admin.value("users") == {"alice": {"name": "Alice", "age": 30},
                                           "bob": {"name": "B"}}


def test_user_id_claim_when_sub_is_absent(client, rules):
    """§2.2: without `sub`, auth.uid comes from the `user_id` claim."""
    rules(USERS_RULES)
    client.admin.seed("users/carol", "C")
    token = unsigned_jwt(id_token_claims(None, user_id="carol"))
    carol = client.token(token)
    assert assert_ok(carol.get("users/carol")).json() == "C"
    assert_denied(carol.get("users/alice"))


def test_token_claims_are_auth_token(client, rules):
    """§5.3: auth.token holds every claim: email_verified, custom claims, nested firebase claims."""
    rules({"rules": {
        "verified": {".read": "auth.token.email_verified === true"},
        "staff": {".read": "auth.token.admin === true"},
        "mail": {".read": "auth.token.email === 'alice@example.com'"},
        "nested": {".read": "auth.token.firebase.sign_in_provider === 'password'"},
    }})
    client.admin.seed("", {"verified": "v", "staff": "s", "mail": "m", "nested": "n"})
    verified = client.token(user_token("alice", provider="password", email="alice@example.com",
                                       email_verified=True))
    unverified = client.token(user_token("bob", email="bob@example.com", email_verified=False))
    staff = client.token(user_token("carol", admin=True))
    assert assert_ok(verified.get("verified")).json() == "v"
    assert assert_ok(verified.get("mail")).json() == "m"
    assert assert_ok(verified.get("nested")).json() == "n"
    assert_denied(verified.get("staff"))
    assert_denied(unverified.get("verified"))
    assert_denied(unverified.get("mail"))
    assert_denied(unverified.get("nested"))
    assert assert_ok(staff.get("staff")).json() == "s"
    assert_denied(staff.get("verified"))
    # A claim of the wrong type is not coerced: "true" (string) !== true.
    stringly = client.token(user_token("dave", admin="true"))
    assert_denied(stringly.get("staff"))
    assert_denied(client.anon.get("staff"))


def test_auth_provider_from_sign_in_provider(client, rules):
    """§2.2: auth.provider is the firebase.sign_in_provider claim."""
    rules({"rules": {"p": {".read": "auth.provider === 'password'"}}})
    client.admin.seed("p", 1)
    assert assert_ok(client.token(user_token("a", provider="password")).get("p")).json() == 1
    assert_denied(client.token(user_token("b", provider="anonymous")).get("p"))


def _jwt_shaped_garbage() -> str:
    header = _b64url({"alg": "none", "typ": "JWT"})
    not_json = base64.urlsafe_b64encode(b"this is not json").rstrip(b"=").decode("ascii")
    return f"{header}.{not_json}."


@pytest.mark.parametrize("via", ["query", "bearer"])
@pytest.mark.parametrize(
    "token",
    ["not-a-jwt", "a.b.c", _jwt_shaped_garbage()],
    ids=["no-dots", "bad-base64", "payload-not-json"],
)
def test_unparseable_token_is_401(client, rules, via, token):
    """§2.2: an undecodable token -> 401 {"error":"Could not parse auth token."}, even if open."""
    rules({"rules": {".read": True, ".write": True}})
    client.admin.seed("x", "before")
    caller = client.token(token, via=via)
    resp = caller.get("x")
    assert resp.status_code == 401, resp.text
    assert resp.json() == BAD_TOKEN
    resp = caller.put("x", "after")
    assert resp.status_code == 401, resp.text
    assert resp.json() == BAD_TOKEN
    assert client.admin.value("x") == "before"


# ------------------------------------------------------------------------------------------
# 4. Denial shape and the --dev X-Hearth-Rule header


def test_denial_body_and_rule_header(client, rules):
    """§2.9: 401 {"error":"Permission denied"}; --dev names the deciding rule in X-Hearth-Rule."""
    rules(USERS_RULES)
    client.admin.seed("users/bob", "B")
    alice = client.token(user_token("alice"))

    resp = alice.put("users/bob", "x")
    assert_denied(resp)
    header = resp.headers[RULE_HEADER]
    assert "/users/$uid" in header and ".write" in header, header

    assert_denied(alice.get("users/bob"))
    # No rule at all covers /elsewhere: the header still explains the denial.
    assert_denied(alice.get("elsewhere"))
    assert_denied(client.anon.put("elsewhere", 1))

    # Successful responses (user or admin) carry no X-Hearth-Rule.
    assert_ok(alice.put("users/alice", "A"))
    assert_ok(alice.get("users/alice"))
    assert_ok(client.admin.get("users/bob"))
    assert client.admin.value("users") == {"alice": "A", "bob": "B"}


def test_denial_through_sdk_carries_rule_header(admin, user_app, rules):
    """The SDK surfaces the 401; the underlying response carries X-Hearth-Rule in --dev."""
    rules({"rules": {"locked": {".read": False}}})
    ref(admin, "locked").set(1)
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        ref(user_app({"uid": "u"}), "locked").get()
    assert_sdk_denied(info)
    assert info.value.http_response.headers.get(RULE_HEADER, "").strip()


# ------------------------------------------------------------------------------------------
# 5. Rules are not filters; cascading


def test_rules_are_not_filters(client, rules):
    """§3.6 / §5.5: readable children do not make the parent readable (GET, query, shallow)."""
    rules({"rules": {"items": {"$id": {".read": True}}}})
    client.admin.seed("items", {"a": 1, "b": 2})
    assert assert_ok(client.anon.get("items/a")).json() == 1
    assert_denied(client.anon.get("items"))
    assert_denied(client.anon.get("items", orderBy='"$key"', limitToFirst=1))
    assert_denied(client.anon.get("items", orderBy='"$key"', equalTo='"a"'))
    assert_denied(client.anon.get("items", shallow="true"))
    assert_denied(client.anon.get(""))


def test_rules_are_not_filters_through_sdk(admin, user_app, rules):
    """§3.6: the same through firebase-admin (override user)."""
    rules({"rules": {"items": {"$id": {".read": True}}}})
    ref(admin, "items").set({"a": 1, "b": 2})
    user = user_app({"uid": "u"})
    assert ref(user, "items/a").get() == 1
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        ref(user, "items").get()
    assert_sdk_denied(info)
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        ref(user, "items").order_by_key().limit_to_first(1).get()
    assert_sdk_denied(info)


def test_grants_cascade_down(client, rules):
    """§5.5: a .read/.write true on an ancestor cannot be revoked by a deeper false."""
    rules({"rules": {"pub": {".read": True, ".write": True,
                             "inner": {".read": False, ".write": False}}}})
    client.admin.seed("pub/inner", "secret?")
    assert assert_ok(client.anon.get("pub/inner")).json() == "secret?"
    assert_ok(client.anon.put("pub/inner", "overwritten"))
    assert client.admin.value("pub") == {"inner": "overwritten"}


def test_write_rules_below_do_not_grant_a_write_above(client, rules):
    """§5.5: only /users/$uid has .write, so PUT /users is denied while PATCH /users/{uid/..} passes."""
    rules(USERS_RULES)
    alice = client.token(user_token("alice"))
    assert_denied(alice.put("users", {"alice": {"name": "A"}}))
    assert client.admin.value("users") is None
    assert_ok(alice.patch("users", {"alice/name": "A"}))
    assert client.admin.value("users") == {"alice": {"name": "A"}}


# ------------------------------------------------------------------------------------------
# 6. Query-based rules

MSG_RULES = {
    "rules": {"msgs": {".read": "query.orderByChild === 'ts' && query.limitToLast <= 10",
                       ".indexOn": "ts"}}
}
MSGS = {f"m{i:02d}": {"ts": i, "text": f"message {i}"} for i in range(1, 21)}


@pytest.fixture
def msgs(client, rules):
    rules(MSG_RULES)
    client.admin.seed("msgs", MSGS)


def test_query_rules_over_rest(client, msgs):
    """§3.6 / §5.3: .read may require a particular query shape (orderByChild ts, limitToLast <= 10)."""
    user = client.override({"uid": "u"})
    resp = assert_ok(user.get("msgs", orderBy='"ts"', limitToLast=5))
    assert resp.json() == {f"m{i:02d}": MSGS[f"m{i:02d}"] for i in range(16, 21)}
    assert_ok(user.get("msgs", orderBy='"ts"', limitToLast=10))
    assert_denied(user.get("msgs", orderBy='"ts"', limitToLast=11))
    assert_denied(user.get("msgs", orderBy='"ts"', limitToLast=50))
    assert_denied(user.get("msgs", orderBy='"ts"', limitToFirst=5))
    assert_denied(user.get("msgs", orderBy='"$key"', limitToLast=5))
    assert_denied(user.get("msgs"))


def test_query_rules_through_sdk(admin, user_app, msgs):
    """§3.6: firebase-admin order_by_child('ts').limit_to_last(5) passes the same rule."""
    user = user_app({"uid": "u"})
    result = ref(user, "msgs").order_by_child("ts").limit_to_last(5).get()
    assert dict(result) == {f"m{i:02d}": MSGS[f"m{i:02d}"] for i in range(16, 21)}
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        ref(user, "msgs").order_by_child("ts").limit_to_last(50).get()
    assert_sdk_denied(info)
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        ref(user, "msgs").get()
    assert_sdk_denied(info)


# ------------------------------------------------------------------------------------------
# 7. Multi-path PATCH is all-or-nothing


def test_multi_path_patch_all_or_nothing(client, rules):
    """§2.4 / §5.5: every PATCH path is its own write; one denied path rejects the whole update."""
    rules({"rules": {"a": {".write": "auth != null"}}})
    client.admin.seed("", {"a": {"old": 0}, "b": {"old": 0}})
    user = client.override({"uid": "u"})
    assert_denied(user.patch("", {"a/x": 1, "b/y": 2}))
    assert client.admin.value("") == {"a": {"old": 0}, "b": {"old": 0}}
    assert_ok(user.patch("", {"a/x": 1}))
    assert client.admin.value("") == {"a": {"old": 0, "x": 1}, "b": {"old": 0}}


def test_multi_path_patch_per_user_paths(client, rules):
    """§5.5: PATCH /users {alice/.., bob/..} as alice is denied as a whole; own paths pass."""
    rules(USERS_RULES)
    client.admin.seed("users", {"alice": {"n": 0}, "bob": {"n": 0}})
    alice = client.token(user_token("alice"))
    assert_denied(alice.patch("users", {"alice/n": 1, "bob/n": 1}))
    assert client.admin.value("users") == {"alice": {"n": 0}, "bob": {"n": 0}}
    assert_ok(alice.patch("users", {"alice/n": 2, "alice/m": 3}))
    assert client.admin.value("users") == {"alice": {"n": 2, "m": 3}, "bob": {"n": 0}}


def test_multi_path_update_through_sdk(admin, user_app, rules):
    """§2.4: firebase-admin update() with one forbidden path raises and writes nothing."""
    rules({"rules": {"a": {".write": True}}})
    ref(admin).set({"a": {"old": 0}, "b": {"old": 0}})
    user = ref(user_app({"uid": "u"}))
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        user.update({"a/x": 1, "b/y": 2})
    assert_sdk_denied(info)
    assert ref(admin).get() == {"a": {"old": 0}, "b": {"old": 0}}


# ------------------------------------------------------------------------------------------
# 8. Server values are resolved before newData


def test_server_timestamp_resolved_before_rules(admin, user_app, rules):
    """§2.7 / §5.3: newData sees the resolved timestamp, which equals `now` for that write."""
    rules({"rules": {"t": {".write": True, ".validate": "newData.val() == now"}}})
    user = ref(user_app({"uid": "u"}), "t")
    before = int(time.time() * 1000)
    user.set({".sv": "timestamp"})
    after = int(time.time() * 1000)
    stored = ref(admin, "t").get()
    assert type(stored) is int and before - 5000 <= stored <= after + 5000, stored
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        user.set(123)
    assert_sdk_denied(info)
    assert ref(admin, "t").get() == stored


def test_server_increment_resolved_before_rules(client, rules):
    """§2.7: newData holds the incremented number, not the {".sv": ...} placeholder."""
    rules({"rules": {"n": {".write": True, ".validate": "newData.isNumber() && newData.val() <= 3"}}})
    client.admin.seed("n", 1)
    user = client.override({"uid": "u"})
    assert_ok(user.put("n", {".sv": {"increment": 2}}))
    assert client.admin.value("n") == 3
    assert_denied(user.put("n", {".sv": {"increment": 1}}))
    assert client.admin.value("n") == 3


# ------------------------------------------------------------------------------------------
# 9. Default rules in --dev


def test_new_namespace_is_open_in_dev(base_url):
    """A brand-new namespace in --dev is open (like the emulator): signed-out reads and writes work."""
    fresh = Callers(base_url, new_namespace())
    assert assert_ok(fresh.anon.get("anything")).json() is None
    assert_ok(fresh.anon.put("anything", {"v": 1}))
    assert assert_ok(fresh.anon.get("anything")).json() == {"v": 1}
    key = assert_ok(fresh.anon.post("list", "x")).json()["name"]
    user = fresh.token(user_token("alice"))
    assert_ok(user.patch("", {"other": 2}))
    assert fresh.admin.value("") == {"anything": {"v": 1}, "list": {key: "x"}, "other": 2}


# ------------------------------------------------------------------------------------------
# 10. Rules upload errors and access

PREVIOUS_RULES_SOURCE = """{
  // marker-comment-previous-rules
  "rules": {
    "pub": { ".read": true }
  }
}
"""
PREVIOUS_RULES = {"rules": {"pub": {".read": True}}}

# (id, source, 1-based line of the error, whether the message must give line and column)
BAD_RULES = [
    ("json-syntax", '{\n  "rules": {\n    ".read" true\n  }\n}\n', 3, True),
    ("expression-syntax",
     '{\n  "rules": {\n    ".read": true,\n    "x": { ".read": "auth.uid ===" }\n  }\n}\n', 4, True),
    ("non-boolean",
     '{\n  "rules": {\n    ".read": true,\n    "x": { ".read": "7" }\n  }\n}\n', 4, True),
    ("string-literal",
     '{\n  "rules": {\n    ".read": true,\n    "x": { ".write": "\'foo\'" }\n  }\n}\n', 4, True),
    ("undeclared-wildcard",
     '{\n  "rules": {\n    ".read": true,\n    "x": { ".read": "$nope == \'a\'" }\n  }\n}\n', 4,
     False),
]


@pytest.mark.parametrize("source, line, positioned", [c[1:] for c in BAD_RULES],
                         ids=[c[0] for c in BAD_RULES])
def test_bad_rules_are_rejected_and_previous_rules_stay(http, client, base_url, ns, source, line,
                                                        positioned):
    """§2.8 / §5.1: a bad rules document -> 400 with line/column; the old rules stay in force."""
    put_rules(http, base_url, ns, PREVIOUS_RULES_SOURCE)
    client.admin.seed("", {"pub": "p", "secret": "s"})

    resp = http.put(rules_url(base_url, ns), data=source.encode("utf-8"), timeout=TIMEOUT)
    assert resp.status_code == 400, f"{resp.status_code} {resp.text!r}"
    message = error_message(resp)
    if positioned:
        lowered = message.lower()
        assert "line" in lowered and "column" in lowered, message
        assert re.search(rf"\b{line}\b", message), f"line {line} not mentioned: {message!r}"

    # Behaviour: the bad document (which would open the root) did not replace the old rules.
    assert assert_ok(client.anon.get("pub")).json() == "p"
    assert_denied(client.anon.get("secret"))
    # Source: the previous document, comment included; strict form is the same rules.
    resp = http.get(rules_url(base_url, ns), timeout=TIMEOUT)
    assert resp.status_code == 200
    assert "marker-comment-previous-rules" in resp.text
    resp = http.get(rules_url(base_url, ns, format="strict"), timeout=TIMEOUT)
    assert resp.status_code == 200 and resp.json() == PREVIOUS_RULES


def test_rules_endpoint_is_admin_only(http, client, base_url, ns):
    """§2.8: non-admin GET/PUT of /.settings/rules.json -> 401 Permission denied; rules unchanged."""
    put_rules(http, base_url, ns, PREVIOUS_RULES)
    opened = json.dumps({"rules": {".read": True, ".write": True}}).encode("utf-8")
    outsiders = {
        "anonymous": {},
        "token-query": {"params": {"auth": user_token("alice", admin=True)}},
        "token-bearer": {"headers": {"Authorization": f"Bearer {user_token('alice', admin=True)}"}},
    }
    for name, how in outsiders.items():
        url = rules_url(base_url, ns, **how.get("params", {}))
        headers = how.get("headers", {})
        resp = requests.put(url, data=opened, headers=headers, timeout=TIMEOUT)
        assert resp.status_code == 401, (name, resp.status_code, resp.text)
        assert resp.json() == PERMISSION_DENIED, (name, resp.text)
        resp = requests.get(url, headers=headers, timeout=TIMEOUT)
        assert resp.status_code == 401, (name, resp.status_code, resp.text)
        assert resp.json() == PERMISSION_DENIED, (name, resp.text)
    resp = http.get(rules_url(base_url, ns, format="strict"), timeout=TIMEOUT)
    assert resp.json() == PREVIOUS_RULES
    assert_denied(client.anon.put("x", 1))


# ------------------------------------------------------------------------------------------
# 11. Streams (SSE); scenario 24


def test_stream_on_unreadable_path_is_401(client, rules, sse):
    """§4.1: the read check comes first; a denied stream is a plain 401 JSON error, not a stream."""
    rules({"rules": {"open": {".read": True}}})
    client.admin.seed("", {"open": 1, "closed": 2})
    for caller in (client.anon, client.override({"uid": "u"}), client.token(user_token("u"))):
        stream = caller.stream(sse, "closed")
        assert stream.status_code == 401
        assert stream.response.json() == PERMISSION_DENIED
        assert stream.headers.get(RULE_HEADER, "").strip()


@IGNORE_LISTENER_THREAD_NOISE
def test_scenario24_listen_without_permission_raises(admin, user_app, rules, listen):
    """§9.24: listen() as an override user without .read raises UnauthenticatedError."""
    rules({"rules": {"s": {".read": False}, "ok": {".read": "auth.uid === 'u'"}}})
    ref(admin).set({"s": 1, "ok": 2})
    user = user_app({"uid": "u"})
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        listen(ref(user, "s"))
    assert str(info.value) == "Permission denied"
    listener = listen(ref(user, "ok"))
    assert listener.next() == ("put", "/", 2)


STREAM_IDENTITIES = ["anonymous", "override", "token"]


def _stream_caller(client: Callers, identity: str) -> Caller:
    if identity == "anonymous":
        return client.anon
    if identity == "override":
        return client.override({"uid": "alice"})
    return client.token(user_token("alice"))


@pytest.mark.parametrize("identity", STREAM_IDENTITIES)
def test_rule_change_cancels_stream(client, rules, sse, identity):
    """§4.2 / §5.5: when new rules make a listened path unreadable the stream gets cancel, then closes.

    A second stream whose path stays readable keeps receiving events.
    """
    rules({"rules": {"feed": {".read": True}, "keep": {".read": True}}})
    client.admin.seed("", {"feed": {"a": 1}, "keep": {"b": 1}})
    caller = _stream_caller(client, identity)
    feed = caller.stream(sse, "feed")
    keep = caller.stream(sse, "keep")
    assert feed.status_code == 200 and keep.status_code == 200
    assert RULE_HEADER not in feed.headers
    assert next_data_event(feed).summary() == ("put", "/", {"a": 1})
    assert next_data_event(keep).summary() == ("put", "/", {"b": 1})

    rules({"rules": {"keep": {".read": True}}})
    assert_cancelled_and_closed(feed)

    # The still-readable stream is unaffected: the next write arrives (no cancel on the way).
    assert_ok(client.admin.put("keep/c", 2))
    deadline = time.monotonic() + TIMEOUT
    while True:
        event = next_data_event(keep, timeout=max(0.1, deadline - time.monotonic()))
        assert event.event != "cancel", f"readable stream was cancelled: {keep.history}"
        if event.event == "put" and event.path == "/c":
            assert event.value == 2
            break
    # And a new stream on the now-unreadable path is refused.
    refused = caller.stream(sse, "feed")
    assert refused.status_code == 401 and refused.response.json() == PERMISSION_DENIED


def test_data_change_cancels_stream_before_delivering_it(client, rules, sse):
    """§5.5: a write that makes the listened data unreadable yields cancel (not the new data), then close."""
    rules({"rules": {"docs": {"$id": {".read": "data.child('public').val() === true"}}}})
    client.admin.seed("docs/d1", {"public": True, "body": "hello"})
    stream = client.anon.stream(sse, "docs/d1")
    assert stream.status_code == 200
    assert next_data_event(stream).summary() == ("put", "/", {"public": True, "body": "hello"})

    # Still readable after this change: delivered normally.
    assert_ok(client.admin.put("docs/d1/body", "world"))
    assert next_data_event(stream).summary() == ("put", "/body", "world")

    assert_ok(client.admin.put("docs/d1/public", False))
    assert_cancelled_and_closed(stream)
    leaked = [ev for ev in stream.history if ev.event in ("put", "patch") and "public" in ev.data
              and "false" in ev.data]
    assert leaked == [], f"the unreadable value was delivered: {leaked}"
    assert client.admin.value("docs/d1") == {"public": False, "body": "world"}
    assert_denied(client.anon.get("docs/d1"))


@IGNORE_LISTENER_THREAD_NOISE
def test_sdk_listener_as_override_user(admin, user_app, rules, listen):
    """§4.4: listen() with an override user sees the initial put and later writes on a readable path."""
    rules({"rules": {"users": {"$uid": {".read": "auth.uid === $uid"}}}})
    ref(admin, "users/alice").set({"n": 1})
    listener = listen(ref(user_app({"uid": "alice"}), "users/alice"))
    assert listener.next() == ("put", "/", {"n": 1})
    ref(admin, "users/alice/n").set(2)
    assert listener.next() == ("put", "/n", 2)


# ------------------------------------------------------------------------------------------
# 12. POST (push) is checked at the new child's path

PUSH_RULES = {
    "rules": {
        "items": {
            "$id": {
                ".write": "auth != null && $id.length == 20 && $id.beginsWith('-')",
                ".validate": "newData.hasChildren(['name'])",
            }
        }
    }
}


def test_post_is_checked_at_the_new_child(client, rules):
    """§5.5: POST /items is a write at /items/<push id>; $id binds the generated key."""
    rules(PUSH_RULES)
    user = client.override({"uid": "u"})
    resp = assert_ok(user.post("items", {"name": "a"}))
    key = resp.json()["name"]
    assert client.admin.value("items") == {key: {"name": "a"}}

    assert_denied(user.post("items", {"age": 1}))  # .validate at $id fails
    assert_denied(client.anon.post("items", {"name": "b"}))  # .write at $id needs auth
    assert_denied(user.put("items", {"k": {"name": "c"}}))  # no .write at /items itself
    assert client.admin.value("items") == {key: {"name": "a"}}

    alice = client.token(user_token("alice"))
    key2 = assert_ok(alice.post("items", {"name": "d"})).json()["name"]
    assert client.admin.value("items") == {key: {"name": "a"}, key2: {"name": "d"}}


def test_push_through_sdk_is_checked_at_the_new_child(admin, user_app, rules):
    """§5.5: firebase-admin push() as an override user obeys the $id rules."""
    rules(PUSH_RULES)
    items = ref(user_app({"uid": "u"}), "items")
    child = items.push({"name": "x"})
    assert ref(admin, f"items/{child.key}").get() == {"name": "x"}
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        items.push({"nope": 1})
    assert_sdk_denied(info)
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        ref(user_app(None), "items").push({"name": "y"})
    assert_sdk_denied(info)
    assert ref(admin, "items").get() == {child.key: {"name": "x"}}
