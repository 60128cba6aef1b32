"""Plain-HTTP wire details of the REST and streaming API (spec rtdb.md §1, §2, §3.5, §4).

Requests are made with ``requests`` directly so the exact status codes, headers and bodies
can be checked. Bodies are sent as raw bytes without a Content-Type unless a test says
otherwise (the server must not require one, §2.3).
"""

from __future__ import annotations

import json
import time

import pytest

from hearth_helpers import (
    apply_event,
    db_url,
    error_message,
    media_type,
    new_namespace,
    normalised,
    put_rules,
    qs,
)

JSON_UTF8 = "application/json;charset=utf-8"
PARSE_ERROR = "Invalid data; couldn't parse JSON object, array, or value. Perhaps you're using invalid characters in your key names."
PATCH_NOT_OBJECT = (
    "Invalid data; couldn't parse JSON object. Are you sending a JSON object with valid key names?"
)
NO_DATA = "No data supplied."
ORDER_BY_REQUIRED = "orderBy must be defined when other query parameters are defined"


def body(value) -> bytes:
    return json.dumps(value).encode("utf-8")


def nested(levels: int, leaf=1):
    value = leaf
    for _ in range(levels):
        value = {"k": value}
    return value


@pytest.fixture
def rest(http, base_url, ns):
    """Small wrapper: ``rest.get('a/b', print='silent')`` etc. against namespace ``ns``."""

    class Rest:
        def url(self, path: str, **params) -> str:
            return db_url(base_url, path, ns, **params)

        def get(self, path: str, headers=None, **params):
            return http.get(self.url(path, **params), headers=headers)

        def put(self, path: str, value, headers=None, raw: bytes | None = None, **params):
            return http.put(self.url(path, **params), data=body(value) if raw is None else raw,
                            headers=headers)

        def post(self, path: str, value=None, headers=None, raw: bytes | None = None, **params):
            data = raw if raw is not None else (b"" if value is None else body(value))
            return http.post(self.url(path, **params), data=data, headers=headers)

        def patch(self, path: str, value, headers=None, raw: bytes | None = None, **params):
            return http.patch(self.url(path, **params), data=body(value) if raw is None else raw,
                              headers=headers)

        def delete(self, path: str, headers=None, **params):
            return http.delete(self.url(path, **params), headers=headers)

        def value(self, path: str = ""):
            resp = self.get(path)
            assert resp.status_code == 200, (resp.status_code, resp.text)
            return resp.json()

        def export(self, path: str = ""):
            resp = self.get(path, format="export")
            assert resp.status_code == 200, (resp.status_code, resp.text)
            return resp.json()

        def seed(self, path: str, value) -> None:
            resp = self.put(path, value)
            assert resp.status_code == 200, (resp.status_code, resp.text)

    return Rest()


# ------------------------------------------------------------------------------------------
# Basic methods (§2.3)


def test_get_missing_is_json_null(rest):
    resp = rest.get("nope")
    assert resp.status_code == 200
    assert media_type(resp) == JSON_UTF8
    assert resp.json() is None


def test_put_get_round_trip(rest):
    value = {"name": "Jack", "age": 30, "tags": ["a", "b"]}
    resp = rest.put("u/jack", value)
    assert resp.status_code == 200
    assert media_type(resp) == JSON_UTF8
    assert resp.json() == value
    assert rest.value("u/jack") == value
    assert rest.value("u/jack/tags") == ["a", "b"]
    assert rest.value("u/jack/age") == 30


def test_path_normalisation(rest):
    """§2.1/§1.2: a slash before .json and empty segments are ignored."""
    rest.seed("u/jack/name", "Jack")
    for path in ("u/jack/name/", "u//jack/name", "/u/jack//name/"):
        resp = rest.get(path)
        assert resp.status_code == 200 and resp.json() == "Jack", path


def test_put_without_content_type_and_with_form_type(rest, http):
    """§2.3: the Content-Type of the request body is not required (curl sends a form type)."""
    resp = http.put(rest.url("ct"), data=b'{"a":1}',
                    headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert resp.status_code == 200
    assert rest.value("ct") == {"a": 1}


def test_post_creates_push_id(rest):
    resp = rest.post("log", {"user_id": "jack", "text": "Ahoy!"})
    assert resp.status_code == 200
    assert media_type(resp) == JSON_UTF8
    reply = resp.json()
    assert set(reply) == {"name"}
    key = reply["name"]
    assert len(key) == 20 and key.startswith("-")
    assert rest.value(f"log/{key}") == {"user_id": "jack", "text": "Ahoy!"}
    second = rest.post("log", "").json()["name"]
    assert second > key
    assert rest.value(f"log/{second}") == ""


def test_delete_returns_null(rest):
    rest.seed("d", {"a": 1, "b": 2})
    resp = rest.delete("d/a")
    assert resp.status_code == 200
    assert resp.json() is None
    assert rest.value("d") == {"b": 2}


def test_patch_semantics(rest):
    """§2.4: relative slash paths, replace-not-merge, null deletes, untouched siblings."""
    rest.seed("p", {"x": {"y": 1, "z": 2}, "keep": True, "gone": 1})
    resp = rest.patch("p", {"x": {"y": 5}, "n/m": 3, "gone": None})
    assert resp.status_code == 200
    assert media_type(resp) == JSON_UTF8
    assert rest.value("p") == {"x": {"y": 5}, "n": {"m": 3}, "keep": True}


def test_patch_null_body_deletes(rest):
    """§2.3: a PATCH body of JSON null deletes the location (firebase-tools relies on it)."""
    rest.seed("p", {"a": 1})
    rest.seed("q", 1)
    resp = rest.patch("p", None)
    assert resp.status_code == 200
    assert rest.value("") == {"q": 1}


def test_patch_empty_object_is_noop(rest):
    rest.seed("p", {"a": 1})
    resp = rest.patch("p", {})
    assert resp.status_code == 200
    assert rest.value("p") == {"a": 1}


def test_patch_priority_segment(rest):
    """§2.4: .priority is allowed as the final segment of a PATCH key."""
    rest.seed("p", {"a": {"v": 1}})
    resp = rest.patch("p", {"a/.priority": 3})
    assert resp.status_code == 200
    assert rest.export("p") == {"a": {".priority": 3, "v": 1}}


# ------------------------------------------------------------------------------------------
# Errors (§2.3, §2.9, §1.2)


@pytest.mark.parametrize("raw", [b"{bad", b'{"a":}', b"[1,", b"NaN", b"'single'", b'{"a":1}}'],
                         ids=["brace", "missing-value", "open-array", "nan", "single-quotes",
                              "trailing"])
def test_unparsable_json_is_400(rest, raw):
    rest.seed("j", "keep")
    resp = rest.put("j", None, raw=raw)
    assert resp.status_code == 400
    assert media_type(resp) == JSON_UTF8
    assert error_message(resp).startswith(PARSE_ERROR)
    assert rest.value("j") == "keep"


@pytest.mark.parametrize(
    "key",
    ["a.b", "a$b", "a#b", "a[b", "a]b", "a/b", "a\u0001b", "a\u007fb", ".foo", ""],
    ids=["dot", "dollar", "hash", "lbracket", "rbracket", "slash", "ctrl-01", "del-7f",
         "leading-dot", "empty"],
)
def test_invalid_key_in_body_is_400(rest, key):
    rest.seed("k", "keep")
    resp = rest.put("k", {"ok": 1, key: 1})
    assert resp.status_code == 400
    message = error_message(resp)
    if key == "a.b":
        assert message.startswith(PARSE_ERROR)
    assert rest.value("k") == "keep"


@pytest.mark.parametrize(
    "path",
    ["a$b", "a.b", "a%23b", "a%5Bb", "a%5Db", "a%2Fb", "a%01b", "ok/x%24y"],
    ids=["dollar", "dot", "hash", "lbracket", "rbracket", "encoded-slash", "ctrl", "nested"],
)
def test_invalid_key_in_url_is_400(rest, path):
    resp = rest.put(path, 1)
    assert resp.status_code == 400
    error_message(resp)
    assert rest.value("") is None


def test_depth_limit(rest):
    """§1.2: depth = write path depth + value nesting; 32 allowed, 33 rejected."""
    resp = rest.put("d", nested(32))  # leaf at /d/k*32 -> depth 33
    assert resp.status_code == 400
    error_message(resp)
    resp = rest.put("a/b", nested(31))  # leaf at /a/b/k*31 -> depth 33
    assert resp.status_code == 400
    assert rest.value("") is None
    resp = rest.put("d", nested(31))  # depth 32
    assert resp.status_code == 200
    assert rest.value("d") == nested(31)


def test_key_length_limit(rest):
    """§1.2: keys up to 768 UTF-8 bytes; 769 -> 400 in the body and in the URL."""
    ok_key = "é" * 384  # 768 bytes
    long_key = ok_key + "a"  # 769 bytes
    resp = rest.put("k", {long_key: 1})
    assert resp.status_code == 400
    resp = rest.put("k/" + "%C3%A9" * 384 + "a", 1)
    assert resp.status_code == 400
    assert rest.value("") is None
    resp = rest.put("k", {ok_key: 1})
    assert resp.status_code == 200
    assert rest.value("k") == {ok_key: 1}


@pytest.mark.parametrize("method", ["put", "post", "patch"])
def test_missing_body_is_400(rest, http, method):
    resp = http.request(method.upper(), rest.url("nb"), data=b"")
    assert resp.status_code == 400
    assert error_message(resp) == NO_DATA
    assert rest.value("") is None


@pytest.mark.parametrize("raw", [b"5", b'"text"', b"true"], ids=["number", "string", "bool"])
def test_patch_non_object_is_400(rest, raw):
    rest.seed("p", {"a": 1})
    resp = rest.patch("p", None, raw=raw)
    assert resp.status_code == 400
    assert error_message(resp) == PATCH_NOT_OBJECT
    assert rest.value("p") == {"a": 1}


@pytest.mark.parametrize(
    "update",
    [
        {"good": 1, "bad.key": 2},
        {"good": 1, "x": {"a$b": 1}},
        {"good": 1, "deep": nested(40)},
        {"good": 1, "sv": {".sv": "bogus"}},
    ],
    ids=["bad-key", "bad-nested-key", "too-deep", "bad-server-value"],
)
def test_multi_path_patch_is_atomic(rest, update):
    """§2.4: one bad entry rejects the whole update; nothing is written."""
    rest.seed("m", {"keep": 1})
    resp = rest.patch("m", update)
    assert resp.status_code == 400
    error_message(resp)
    assert rest.value("m") == {"keep": 1}


@pytest.mark.parametrize(
    "update",
    [{"a": 1, "a/b": 2}, {"a/b": 1, "a/b/c": 2}, {"x/y/z": 1, "x/y": {"q": 1}}],
    ids=["parent-child", "deep", "reverse-order"],
)
def test_overlapping_patch_paths_are_400(rest, update):
    rest.seed("o", {"a": {"c": 0}, "x": 1})
    resp = rest.patch("o", update)
    assert resp.status_code == 400
    error_message(resp)
    assert rest.value("o") == {"a": {"c": 0}, "x": 1}


@pytest.mark.parametrize("path", ["foo", "a/b"])
def test_missing_json_suffix_is_404(http, base_url, ns, path):
    resp = http.get(f"{base_url}/{path}?{qs({'ns': ns})}")
    assert resp.status_code == 404
    error_message(resp)


# ------------------------------------------------------------------------------------------
# Identity (§2.2). A request without credentials is signed out (auth == null); with rules that
# require sign-in it is refused with 401 and changes nothing. (Rules in depth: test_rules.py.)

SIGNED_IN_RULES = {"rules": {".read": "auth != null", ".write": "auth != null"}}


@pytest.mark.parametrize("method", ["GET", "PUT", "PATCH", "POST", "DELETE"])
def test_request_without_credentials_is_401(rest, http, anon_http, base_url, ns, method):
    put_rules(http, base_url, ns, SIGNED_IN_RULES)
    rest.seed("secret", {"v": 1})
    data = None if method in ("GET", "DELETE") else body({"v": 2})
    resp = anon_http.request(method, rest.url("secret"), data=data)
    assert resp.status_code == 401
    assert resp.json() == {"error": "Permission denied"}
    assert rest.value("secret") == {"v": 1}


@pytest.mark.parametrize("method", ["GET", "PUT", "PATCH", "POST", "DELETE"])
def test_request_without_credentials_under_default_dev_rules(rest, anon_http, method):
    # --dev starts new databases open, as the Firebase emulator does.
    rest.seed("open", {"v": 1})
    data = None if method in ("GET", "DELETE") else body({"v": 2})
    resp = anon_http.request(method, rest.url("open"), data=data)
    assert resp.status_code == 200
    if method == "GET":
        assert resp.json() == {"v": 1}
    elif method == "DELETE":
        assert rest.value("open") is None
    elif method == "POST":
        assert "v" in rest.value("open") and len(rest.value("open")) == 2
    else:
        assert rest.value("open") == {"v": 2}


@pytest.mark.parametrize("param", ["auth", "access_token"])
def test_owner_token_as_query_parameter(rest, anon_http, base_url, ns, param):
    rest.seed("v", 7)
    resp = anon_http.get(f"{base_url}/v.json?{qs({'ns': ns, param: 'owner'})}")
    assert resp.status_code == 200
    assert resp.json() == 7


# ------------------------------------------------------------------------------------------
# print / format / shallow (§2.5, §1.6)


def test_print_silent(rest):
    rest.seed("s", {"a": 1})
    resp = rest.get("s", print="silent")
    assert resp.status_code == 204 and resp.content == b""
    resp = rest.put("s/b", 2, print="silent")
    assert resp.status_code == 204 and resp.content == b""
    resp = rest.patch("s", {"c": 3}, print="silent")
    assert resp.status_code == 204 and resp.content == b""
    resp = rest.post("s/list", "x", print="silent")
    assert resp.status_code == 204 and resp.content == b""
    value = rest.value("s")
    assert value["a"] == 1 and value["b"] == 2 and value["c"] == 3
    assert list(value["list"].values()) == ["x"]
    resp = rest.delete("s", print="silent")
    assert resp.status_code == 204 and resp.content == b""
    assert rest.value("s") is None


def test_print_pretty(rest):
    value = {"a": {"b": [1, 2]}, "c": "x"}
    rest.seed("pp", value)
    resp = rest.get("pp", print="pretty")
    assert resp.status_code == 200
    assert "\n" in resp.text.strip(), "pretty output should be indented over several lines"
    assert json.loads(resp.text) == value


def test_format_export_with_priorities(rest):
    """§2.10 worked example: .priority on an object, no array-ification in export."""
    rest.seed("u/jack", {"name": "Jack", "age": 30, "tags": ["a", "b"]})
    resp = rest.put("u/jack/.priority", 7)
    assert resp.status_code == 200
    assert rest.export("u") == {
        "jack": {".priority": 7, "age": 30, "name": "Jack", "tags": {"0": "a", "1": "b"}}}
    assert rest.value("u") == {"jack": {"age": 30, "name": "Jack", "tags": ["a", "b"]}}


def test_leaf_priorities(rest):
    rest.seed("l", {".value": 5, ".priority": 1})
    assert rest.value("l") == 5
    assert rest.export("l") == {".value": 5, ".priority": 1}
    assert rest.put("l/.priority", "str").status_code == 200
    assert rest.export("l") == {".value": 5, ".priority": "str"}
    assert rest.put("l/.priority", None).status_code == 200
    assert rest.export("l") == 5
    rest.seed("o", {"a": 1, ".priority": "x"})
    assert rest.export("o") == {"a": 1, ".priority": "x"}
    assert rest.value("o") == {"a": 1}


def test_priority_on_missing_node_is_noop(rest):
    resp = rest.put("ghost/.priority", 3)
    assert resp.status_code == 200
    assert rest.export("") is None


def test_value_with_children_is_400(rest):
    resp = rest.put("vc", {".value": 1, "a": 2})
    assert resp.status_code == 400
    assert rest.value("") is None


def test_order_by_priority(rest):
    """§1.5: no priority < numbers < strings; ties by key."""
    rest.seed("pr", {
        "a": {".value": 1, ".priority": "z"},
        "b": {".value": 2, ".priority": 10},
        "c": {".value": 3, ".priority": 2},
        "d": 4,
    })
    resp = rest.get("pr", orderBy='"$priority"', limitToFirst=2)
    assert resp.status_code == 200 and resp.json() == {"d": 4, "c": 3}
    resp = rest.get("pr", orderBy='"$priority"', limitToLast=1)
    assert resp.status_code == 200 and resp.json() == {"a": 1}


def test_shallow(rest):
    rest.seed("u/jack", {"name": "Jack", "age": 30, "tags": ["a", "b"]})
    resp = rest.get("u/jack", shallow="true")
    assert resp.status_code == 200
    assert resp.json() == {"age": True, "name": True, "tags": True}
    assert rest.get("u/jack/age", shallow="true").json() == 30
    assert rest.get("none", shallow="true").json() is None


# ------------------------------------------------------------------------------------------
# Arrays (§1.4)


@pytest.mark.parametrize(
    "stored, rendered",
    [
        ({"0": "a", "1": "b", "2": "c"}, ["a", "b", "c"]),
        ({"0": "a", "2": "c"}, ["a", None, "c"]),
        ({"1": "a"}, [None, "a"]),
        ({"5": "a"}, {"5": "a"}),
        ({"01": "a"}, {"01": "a"}),
        ({"0": "a", "3": "b"}, ["a", None, None, "b"]),
        ({"0": "a", "4": "b"}, {"0": "a", "4": "b"}),
        ({"0": "a", "-1": "b"}, {"0": "a", "-1": "b"}),
        ({"0": "a", "x": "b"}, {"0": "a", "x": "b"}),
        ({"x": {"0": {"0": 1}}}, {"x": [[1]]}),
        ([1, None, 3], [1, None, 3]),
        ({"0": "a", "1": {"b": None}}, ["a"]),
    ],
    ids=["dense", "hole", "leading-hole", "sparse-5", "leading-zero", "max-below-2n",
         "max-equals-2n", "negative", "mixed", "nested", "list-with-null", "empty-child"],
)
def test_array_rendering(rest, stored, rendered):
    rest.seed("arr", stored)
    assert rest.value("arr") == rendered


def test_export_never_renders_arrays(rest):
    rest.seed("arr", [1, None, 3])
    assert rest.export("arr") == {"0": 1, "2": 3}


# ------------------------------------------------------------------------------------------
# ETags (§2.6)


def test_etag_flow(rest):
    """The §2.10 sequence: GET with ETag, conditional PUTs, 412 with body, 304."""
    rest.seed("u/jack/age", 30)
    resp = rest.get("u/jack/age", headers={"X-Firebase-ETag": "true"})
    assert resp.status_code == 200 and resp.json() == 30
    e1 = resp.headers.get("ETag")
    assert e1 and e1 != "null_etag" and not e1.startswith('"')

    resp = rest.put("u/jack/age", 31, headers={"if-match": e1})
    assert resp.status_code == 200
    e2 = resp.headers.get("ETag")
    assert e2 and e2 != e1
    assert rest.value("u/jack/age") == 31

    resp = rest.put("u/jack/age", 32, headers={"if-match": e1})
    assert resp.status_code == 412
    assert resp.headers.get("ETag") == e2
    assert resp.json() == 31
    assert rest.value("u/jack/age") == 31

    resp = rest.get("u/jack/age", headers={"if-none-match": e2})
    assert resp.status_code == 304
    assert resp.content == b""

    resp = rest.get("u/jack/age", headers={"if-none-match": e1})
    assert resp.status_code == 200
    assert resp.json() == 31
    assert resp.headers.get("ETag") == e2


def test_null_etag(rest):
    resp = rest.get("nothing", headers={"X-Firebase-ETag": "true"})
    assert resp.status_code == 200
    assert resp.json() is None
    assert resp.headers.get("ETag") == "null_etag"

    resp = rest.put("nothing", {"v": 1}, headers={"if-match": "null_etag"})
    assert resp.status_code == 200
    assert resp.headers.get("ETag") not in (None, "", "null_etag")

    resp = rest.put("nothing", {"v": 2}, headers={"if-match": "null_etag"})
    assert resp.status_code == 412
    assert resp.json() == {"v": 1}
    assert resp.headers.get("ETag") not in (None, "", "null_etag")
    assert rest.value("nothing") == {"v": 1}


def test_412_body_is_current_object(rest):
    current = {"name": "Edward Cope", "since": 1800}
    rest.seed("dino", current)
    etag = rest.get("dino", headers={"X-Firebase-ETag": "true"}).headers["ETag"]
    resp = rest.put("dino", {"x": 1}, headers={"if-match": "bogus"})
    assert resp.status_code == 412
    assert resp.json() == current
    assert resp.headers.get("ETag") == etag


def test_conditional_delete(rest):
    rest.seed("cd", {"a": 1})
    etag = rest.get("cd", headers={"X-Firebase-ETag": "true"}).headers["ETag"]
    resp = rest.delete("cd", headers={"if-match": "stale"})
    assert resp.status_code == 412
    assert resp.headers.get("ETag") == etag
    assert resp.json() == {"a": 1}
    assert rest.value("cd") == {"a": 1}
    resp = rest.delete("cd", headers={"if-match": etag})
    assert resp.status_code == 200
    assert rest.value("cd") is None


def test_etag_changes_with_value_only(rest):
    rest.seed("ev", {"a": 1})
    e1 = rest.get("ev", headers={"X-Firebase-ETag": "true"}).headers["ETag"]
    e1_again = rest.get("ev", headers={"X-Firebase-ETag": "true"}).headers["ETag"]
    assert e1 == e1_again
    rest.seed("ev", {"a": 2})
    e2 = rest.get("ev", headers={"X-Firebase-ETag": "true"}).headers["ETag"]
    assert e2 != e1


# ------------------------------------------------------------------------------------------
# Method override (§2.3)


def test_method_override_header(rest, http):
    rest.seed("mo", {"a": 1, "b": 2})
    resp = http.post(rest.url("mo"), data=body({"c": 3}),
                     headers={"X-HTTP-Method-Override": "PUT"})
    assert resp.status_code == 200
    assert rest.value("mo") == {"c": 3}

    resp = http.post(rest.url("mo"), data=body({"d": 4}),
                     headers={"X-HTTP-Method-Override": "PATCH"})
    assert resp.status_code == 200
    assert rest.value("mo") == {"c": 3, "d": 4}

    resp = http.post(rest.url("mo"), headers={"X-HTTP-Method-Override": "DELETE"})
    assert resp.status_code == 200
    assert rest.value("mo") is None


def test_method_override_query_parameter(rest, http):
    rest.seed("mo", {"a": 1})
    rest.seed("keep", 1)
    resp = http.post(rest.url("mo", **{"x-http-method-override": "DELETE"}))
    assert resp.status_code == 200
    assert rest.value("") == {"keep": 1}


# ------------------------------------------------------------------------------------------
# Server values (§2.7)


def test_server_timestamp_values(rest):
    before = time.time() * 1000
    resp = rest.put("ts", {"a": {".sv": "timestamp"}, "b": {"c": {".sv": "timestamp"}}, "x": 1})
    after = time.time() * 1000
    assert resp.status_code == 200
    stored = rest.value("ts")
    a, c = stored["a"], stored["b"]["c"]
    assert type(a) is int and before - 5000 <= a <= after + 5000
    assert a == c, "all placeholders of one write get the same timestamp"
    assert stored["x"] == 1

    key = rest.post("log", {"t": {".sv": "timestamp"}}).json()["name"]
    t = rest.value(f"log/{key}/t")
    assert type(t) is int and t >= a


def test_server_increment_values(rest):
    rest.seed("n", 5)
    assert rest.put("n", {".sv": {"increment": 2}}).status_code == 200
    assert rest.value("n") == 7
    assert rest.put("n", {".sv": {"increment": 0.5}}).status_code == 200
    assert rest.value("n") == 7.5
    assert rest.put("missing", {".sv": {"increment": 2}}).status_code == 200
    assert rest.value("missing") == 2
    rest.seed("s", "text")
    assert rest.put("s", {".sv": {"increment": 3}}).status_code == 200
    assert rest.value("s") == 3


def test_patch_with_server_values(rest):
    """§2.10 worked example: increment inside a multi-path PATCH."""
    rest.seed("u/jack/age", 31)
    resp = rest.patch("u", {"jack/age": {".sv": {"increment": 1}}, "jill": {"name": "Jill"}})
    assert resp.status_code == 200
    assert rest.value("u") == {"jack": {"age": 32}, "jill": {"name": "Jill"}}


@pytest.mark.parametrize(
    "value",
    [{".sv": "bogus"}, {".sv": {"increment": "x"}}, {".sv": {"foo": 1}},
     {".sv": {"increment": 1, "extra": 2}}, {"a": {".sv": 5}}],
    ids=["unknown-string", "non-number-increment", "unknown-op", "extra-key", "number"],
)
def test_invalid_server_value_is_400(rest, value):
    rest.seed("sv", "keep")
    resp = rest.put("sv", value)
    assert resp.status_code == 400
    error_message(resp)
    assert rest.value("sv") == "keep"


# ------------------------------------------------------------------------------------------
# Queries over REST (§3.1, §3.2, §3.5)

DINOSAURS = {
    "bruhathkayosaurus": {"height": 25},
    "lambeosaurus": {"height": 2.1},
    "linhenykus": {"height": 0.6},
    "pterodactyl": {"height": 0.6},
    "stegosaurus": {"height": 4},
    "triceratops": {"height": 3},
}


def test_query_without_order_by_is_400(rest):
    rest.seed("u", {"a": 1})
    resp = rest.get("u", limitToFirst=1)
    assert resp.status_code == 400
    assert error_message(resp) == ORDER_BY_REQUIRED


def test_query_order_by_not_json(rest):
    rest.seed("u", {"a": 1})
    resp = rest.get("u", orderBy="height")
    assert resp.status_code == 400
    assert error_message(resp) == "orderBy must be a valid JSON encoded path"


def test_query_bound_not_json_primitive(rest):
    rest.seed("u", {"a": 1})
    resp = rest.get("u", orderBy='"$key"', equalTo="abc")
    assert resp.status_code == 400
    assert error_message(resp) == "Constraint index field must be a JSON primitive"


@pytest.mark.parametrize(
    "params",
    [{"limitToFirst": 1, "limitToLast": 1}, {"limitToFirst": -1}, {"limitToFirst": "x"}],
    ids=["both-limits", "negative", "not-a-number"],
)
def test_query_bad_limits(rest, params):
    rest.seed("u", {"a": 1})
    resp = rest.get("u", orderBy='"$key"', **params)
    assert resp.status_code == 400
    error_message(resp)


@pytest.mark.parametrize("path", ["x", "a/b"])
def test_index_not_defined_message(rest, path):
    rest.seed(path, DINOSAURS)
    resp = rest.get(path, orderBy='"height"', limitToFirst=1)
    assert resp.status_code == 400
    assert error_message(resp) == (
        f'Index not defined, add ".indexOn": "height", for path "/{path}", to the rules'
    )


def test_limit_zero_is_null(rest):
    rest.seed("u", {"a": 1, "b": 2})
    resp = rest.get("u", orderBy='"$key"', limitToFirst=0)
    assert resp.status_code == 200
    assert resp.json() is None


@pytest.mark.parametrize(
    "params, expected",
    [
        ({"startAt": '0.6,"pterodactyl"', "endAt": "2.1"}, ["pterodactyl", "lambeosaurus"]),
        ({"startAfter": "0.6"}, ["lambeosaurus", "triceratops", "stegosaurus",
                                 "bruhathkayosaurus"]),
        ({"startAfter": '0.6,"linhenykus"', "limitToFirst": 2}, ["pterodactyl", "lambeosaurus"]),
        ({"endBefore": "3"}, ["linhenykus", "pterodactyl", "lambeosaurus"]),
        ({"endAt": '0.6,"linhenykus"'}, ["linhenykus"]),
        ({"equalTo": "0.6", "limitToLast": 1}, ["pterodactyl"]),
        ({"startAt": '"a"'}, []),
        ({"endAt": "true"}, []),
    ],
    ids=["startAt-key", "startAfter", "startAfter-key", "endBefore", "endAt-key",
         "equalTo-last", "strings-above-numbers", "booleans-below-numbers"],
)
def test_query_bounds(rest, http, base_url, ns, params, expected):
    """§3.1/§3.2: key tie-breakers, startAfter/endBefore and cross-type bounds."""
    put_rules(http, base_url, ns, {"rules": {".read": True, ".write": True,
                                             "dinosaurs": {".indexOn": "height"}}})
    rest.seed("dinosaurs", DINOSAURS)
    resp = rest.get("dinosaurs", orderBy='"height"', **params)
    assert resp.status_code == 200, resp.text
    result = resp.json()
    assert (result or {}) == {name: DINOSAURS[name] for name in expected}


def test_query_literal_plus_in_raw_query_string(rest, http, base_url, ns):
    """Issue 30 §1: a raw '+' in a query value is a space, as Firebase's servers read it; '%2B' is a plus."""
    rest.seed("keys", {"a+b": 1, "a b": 2})
    resp = http.get(f"{base_url}/keys.json?orderBy=%22$key%22&equalTo=%22a+b%22&ns={ns}")
    assert resp.status_code == 200
    assert resp.json() == {"a b": 2}
    resp = http.get(f"{base_url}/keys.json?orderBy=%22$key%22&equalTo=%22a%2Bb%22&ns={ns}")
    assert resp.status_code == 200
    assert resp.json() == {"a+b": 1}


# ------------------------------------------------------------------------------------------
# Other parameters (§2.1, §2.5)


def test_unknown_and_tooling_parameters_are_accepted(rest, http, base_url, ns):
    """firebase-tools import: disableTriggers and writeSizeLimit=unlimited; X-Firebase-Decoding."""
    url = f"{base_url}/.json?{qs({'ns': ns, 'disableTriggers': 'true', 'writeSizeLimit': 'unlimited', 'whatever': '1'})}"
    resp = http.put(url, data=body({"imported": True}))
    assert resp.status_code == 200
    resp = http.get(rest.url("imported"), headers={"X-Firebase-Decoding": "1"})
    assert resp.status_code == 200 and resp.json() is True


def test_bad_write_size_limit_is_400(rest):
    resp = rest.put("w", 1, writeSizeLimit="enormous")
    assert resp.status_code == 400
    assert rest.value("") is None


# ------------------------------------------------------------------------------------------
# Namespaces (§0)


def test_namespace_isolation(http, base_url, ns):
    other = new_namespace()
    for name, value in ((ns, "A"), (other, "B")):
        resp = http.put(db_url(base_url, "same/path", name), data=body(value))
        assert resp.status_code == 200
    assert http.get(db_url(base_url, "same/path", ns)).json() == "A"
    assert http.get(db_url(base_url, "same/path", other)).json() == "B"
    assert http.delete(db_url(base_url, "same", ns)).status_code == 200
    assert http.get(db_url(base_url, "", ns)).json() is None
    assert http.get(db_url(base_url, "", other)).json() == {"same": {"path": "B"}}

    put_rules(http, base_url, ns, {"rules": {".read": True, ".write": True,
                                             "h": {".indexOn": "v"}}})
    for name in (ns, other):
        http.put(db_url(base_url, "h", name), data=body({"x": {"v": 2}, "y": {"v": 1}}))
    resp = http.get(db_url(base_url, "h", ns, orderBy='"v"', limitToFirst=1))
    assert resp.status_code == 200 and resp.json() == {"y": {"v": 1}}
    resp = http.get(db_url(base_url, "h", other, orderBy='"v"', limitToFirst=1))
    assert resp.status_code == 400
    assert error_message(resp).startswith('Index not defined, add ".indexOn": "v"')


# ------------------------------------------------------------------------------------------
# Rules document endpoint (§2.8)

RULES_SOURCE = """// Rules with comments, as the CLI uploads them verbatim.
{
  /* block comment */
  "rules": {
    ".read": true,   // trailing comment
    ".write": true,
    "users": {
      "$uid": {
        ".read": "auth != null && auth.uid == $uid",
        ".write": "auth != null && auth.uid == $uid",
        ".validate": "newData.isString() && newData.val() != 'http://x/* y */'"
      }
    },
    "dinosaurs": { ".indexOn": ["height", "ratings/pos"] }
  }
}
"""
RULES_STRICT = {
    "rules": {
        ".read": True,
        ".write": True,
        "users": {
            "$uid": {
                ".read": "auth != null && auth.uid == $uid",
                ".write": "auth != null && auth.uid == $uid",
                ".validate": "newData.isString() && newData.val() != 'http://x/* y */'",
            }
        },
        "dinosaurs": {".indexOn": ["height", "ratings/pos"]},
    }
}


def rules_url(base_url: str, ns: str, **params) -> str:
    params["ns"] = ns
    return f"{base_url}/.settings/rules.json?{qs(params)}"


def test_default_rules_in_dev_are_open(http, base_url, ns):
    # In --dev a new database starts open, as the Firebase emulator does (outside --dev it
    # requires sign-in; see the Swift router tests).
    resp = http.get(rules_url(base_url, ns, format="strict"))
    assert resp.status_code == 200
    assert resp.json() == {"rules": {".read": True, ".write": True}}


def test_rules_round_trip_with_comments(http, base_url, ns):
    resp = http.put(rules_url(base_url, ns), data=RULES_SOURCE.encode("utf-8"))
    assert 200 <= resp.status_code < 300, resp.text
    resp = http.get(rules_url(base_url, ns, format="strict"))
    assert resp.status_code == 200
    assert resp.json() == RULES_STRICT
    resp = http.get(rules_url(base_url, ns))
    assert resp.status_code == 200
    assert '"rules"' in resp.text

    replacement = {"rules": {".read": True, ".write": True, "x": {".indexOn": ".value"}}}
    put_rules(http, base_url, ns, replacement)
    assert http.get(rules_url(base_url, ns, format="strict")).json() == replacement


def test_rules_endpoint_requires_admin(http, anon_http, base_url, ns):
    put_rules(http, base_url, ns, RULES_STRICT)
    resp = anon_http.put(rules_url(base_url, ns), data=body({"rules": {".read": True}}))
    assert resp.status_code == 401
    assert resp.json() == {"error": "Permission denied"}
    resp = anon_http.get(rules_url(base_url, ns, format="strict"))
    assert resp.status_code == 401
    assert http.get(rules_url(base_url, ns, format="strict")).json() == RULES_STRICT


# ------------------------------------------------------------------------------------------
# Streaming (§4)

SENTINEL = "zz_sentinel"


def stream_url(base_url: str, ns: str, path: str, **params) -> str:
    return db_url(base_url, path, ns, **params)


def assert_wire_format(stream) -> None:
    """§4.2/§4.3: every block is exactly 'event: <type>' + one 'data: <compact JSON>' line."""
    for event in stream.history:
        assert len(event.lines) == 2, f"unexpected SSE block lines: {event.lines!r}"
        assert event.lines[0].startswith("event:"), event.lines
        assert event.lines[1].startswith("data:"), event.lines
        json.loads(event.data)


def test_stream_headers_and_initial_event(rest, sse, base_url, ns):
    value = {"a": {"x": 1}, "b": "José 🐵"}
    rest.seed("s", value)
    stream = sse(stream_url(base_url, ns, "s"))
    assert stream.status_code == 200
    assert media_type(stream.response) == "text/event-stream;charset=utf-8"
    first = stream.next_event()
    assert first.summary() == ("put", "/", value)
    assert_wire_format(stream)


def test_stream_on_missing_location(sse, base_url, ns):
    stream = sse(stream_url(base_url, ns, "nothing/here"))
    assert stream.next_event().summary() == ("put", "/", None)


def test_stream_requires_credentials(rest, sse, http, base_url, ns):
    put_rules(http, base_url, ns, SIGNED_IN_RULES)
    rest.seed("s", 1)
    stream = sse(stream_url(base_url, ns, "s"), headers={})
    assert stream.status_code == 401
    assert stream.response.json() == {"error": "Permission denied"}


# (id, initial data at the root, listened path, operations, expected events after the initial put)
STREAM_CASES = [
    ("put-at", {"s": {"a": 1}}, "s",
     [("PUT", "s", {"b": 2})],
     [("put", "/", {"b": 2})]),
    ("put-below", {"s": {"a": {"x": 1}}}, "s",
     [("PUT", "s/a/x", 5)],
     [("put", "/a/x", 5)]),
    ("put-below-new-branch", {"s": {"a": 1}}, "s",
     [("PUT", "s/n/m", {"k": True})],
     [("put", "/n/m", {"k": True})]),
    ("put-above", {"s": {"a": 1}, "t": 1}, "s",
     [("PUT", "", {"s": {"z": 1}, "t": 2})],
     [("put", "/", {"z": 1})]),
    ("put-above-removes", {"p": {"s": 1}}, "p/s",
     [("PUT", "p", {"q": 1})],
     [("put", "/", None)]),
    # A write above the listener that leaves its value unchanged: Hearth does not keep the old value
    # per listener, so it re-sends the (equal) value; applying it leaves the client's view unchanged.
    ("put-above-unchanged", {"s": {"a": 1}, "t": 1}, "s",
     [("PUT", "", {"s": {"a": 1}, "t": 2})],
     [("put", "/", {"a": 1})]),
    ("delete-at", {"s": {"a": 1}, "t": 1}, "s",
     [("DELETE", "s", None)],
     [("put", "/", None)]),
    ("delete-below", {"s": {"a": 1, "b": 2}}, "s",
     [("DELETE", "s/a", None)],
     [("put", "/a", None)]),
    ("delete-above", {"s": {"a": 1}}, "s",
     [("DELETE", "", None)],
     [("put", "/", None)]),
    ("patch-at", {"s": {"a": 1, "b": {"c": 1, "d": 1}}}, "s",
     [("PATCH", "s", {"a": 2, "b/c": 3})],
     [("patch", "/", {"a": 2, "b/c": 3})]),
    ("patch-at-with-null", {"s": {"a": 1, "b": 2}}, "s",
     [("PATCH", "s", {"a": None})],
     [("patch", "/", {"a": None})]),
    ("patch-below", {"s": {"b": {"c": 1}}}, "s",
     [("PATCH", "s/b", {"d": 4})],
     [("patch", "/b", {"d": 4})]),
    ("patch-above-under", {"s": {"a": 1}, "o": 1}, "s",
     [("PATCH", "", {"s/a": 2, "s/n/m": 3, "o": 5})],
     [("patch", "/", {"a": 2, "n/m": 3})]),
    ("patch-above-covering", {"s": {"a": 1}}, "s",
     [("PATCH", "", {"s": {"z": 9}, "o": 1})],
     [("put", "/", {"z": 9})]),
    ("patch-above-ancestor", {"p": {"s": {"a": 1}}}, "p/s",
     [("PATCH", "", {"p": {"s": 5}})],
     [("put", "/", 5)]),
    ("patch-above-null", {"s": {"a": 1}, "t": 1}, "s",
     [("PATCH", "", {"s": None})],
     [("put", "/", None)]),
    ("unrelated-writes", {"s": {"a": 1}, "t": 1}, "s",
     [("PUT", "t", 2), ("PATCH", "", {"t": 3, "u/v": 1}), ("DELETE", "t", None),
      ("PUT", "st", 1), ("POST", "sx", 1)],
     []),
    ("sequence", {"s": {"a": 1}}, "s",
     [("PUT", "s/a", 2), ("PATCH", "s", {"b": 1}), ("DELETE", "s/a", None), ("PUT", "s", 7)],
     [("put", "/a", 2), ("patch", "/", {"b": 1}), ("put", "/a", None), ("put", "/", 7)]),
]


@pytest.mark.parametrize("initial, path, operations, expected",
                         [case[1:] for case in STREAM_CASES],
                         ids=[case[0] for case in STREAM_CASES])
def test_stream_events(rest, http, sse, base_url, ns, initial, path, operations, expected):
    """§4.3: one event per relevant commit, shaped by where the write is relative to the stream.

    After the operations a sentinel write below the stream proves no extra event was sent.
    """
    rest.seed("", initial)
    stream = sse(stream_url(base_url, ns, path))
    initial_value = initial
    for segment in path.split("/"):
        initial_value = initial_value.get(segment) if isinstance(initial_value, dict) else None
    assert stream.next_event().summary() == ("put", "/", initial_value)

    for method, target, value in operations:
        data = None if method == "DELETE" else body(value)
        resp = http.request(method, rest.url(target), data=data)
        assert resp.status_code == 200, (method, target, resp.status_code, resp.text)

    for want in expected:
        assert stream.next_event().summary() == want

    assert rest.put(f"{path}/{SENTINEL}", "end").status_code == 200
    assert stream.next_event().summary() == ("put", f"/{SENTINEL}", "end")
    assert_wire_format(stream)


def test_stream_post_below(rest, sse, base_url, ns):
    """§4.3 rule 2: a POST under the stream arrives as put /<child>/<push id>."""
    rest.seed("s", {"seed": 1})
    stream = sse(stream_url(base_url, ns, "s"))
    assert stream.next_event().summary() == ("put", "/", {"seed": 1})
    key = rest.post("s/users", "").json()["name"]
    assert stream.next_event().summary() == ("put", f"/users/{key}", "")


def test_stream_delivers_commits_in_order(rest, sse, base_url, ns):
    stream = sse(stream_url(base_url, ns, "c"))
    assert stream.next_event().summary() == ("put", "/", None)
    for i in range(20):
        assert rest.put("c/n", i).status_code == 200
    for i in range(20):
        assert stream.next_event().summary() == ("put", "/n", i)


def test_stream_server_values_are_resolved(rest, sse, base_url, ns):
    rest.seed("sv", {"n": 1})
    stream = sse(stream_url(base_url, ns, "sv"))
    stream.next_event()
    resp = rest.patch("sv", {"n": {".sv": {"increment": 2}}, "t": {".sv": "timestamp"}})
    assert resp.status_code == 200
    event = stream.next_event()
    assert event.event == "patch" and event.path == "/"
    assert event.value["n"] == 3
    assert type(event.value["t"]) is int
    assert rest.value("sv/t") == event.value["t"]


def test_stream_unicode(rest, sse, base_url, ns):
    stream = sse(stream_url(base_url, ns, "u"))
    stream.next_event()
    text = "José Ñ 🐵 ✓"
    assert rest.put("u/name", text).status_code == 200
    assert stream.next_event().summary() == ("put", "/name", text)


def test_stream_survives_other_clients_disconnecting(rest, sse, base_url, ns):
    first = sse(stream_url(base_url, ns, "d"))
    first.next_event()
    first.close()
    second = sse(stream_url(base_url, ns, "d"))
    second.next_event()
    assert rest.put("d/x", 1).status_code == 200
    assert second.next_event().summary() == ("put", "/x", 1)


def test_query_stream_skips_results_that_read_the_same(rest, sse, base_url, ns):
    """§4.2: no event when the listened value is unchanged; a priority is invisible in the plain format."""
    rest.seed("qs", {"a": {"h": 1}, "b": {"h": 2}})
    stream = sse(stream_url(base_url, ns, "qs", orderBy='"$key"', limitToFirst=2))
    assert stream.next_event().summary() == ("put", "/", {"a": {"h": 1}, "b": {"h": 2}})
    assert rest.put("qs/a/.priority", 9).status_code == 200
    assert rest.put("qs/b/h", 3).status_code == 200
    # The next event is the real change: nothing was sent for the priority alone.
    assert stream.next_event().summary() == ("put", "/", {"a": {"h": 1}, "b": {"h": 3}})


def test_query_stream_reports_only_its_window(rest, sse, base_url, ns):
    """§4.3: a stream with orderBy="$key"&limitToFirst=2 only ever shows its window."""
    rest.seed("q", {"a": 1, "b": 2, "c": 3})
    stream = sse(stream_url(base_url, ns, "q", orderBy='"$key"', limitToFirst=2))
    first = stream.next_event()
    assert first.summary() == ("put", "/", {"a": 1, "b": 2})
    view = apply_event(None, first)

    def wait_for(expected, timeout=5.0):
        nonlocal view
        deadline = time.monotonic() + timeout
        while view != normalised(expected):
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"view {view} never became {expected}; {stream.history}"
            view = apply_event(view, stream.next_event(timeout=remaining))
            assert "c" not in (view or {}), f"key outside the window leaked: {stream.history}"

    rest.put("q/c", 30)  # outside the window: must not be reported
    rest.put("q/b", 20)
    wait_for({"a": 1, "b": 20})
    rest.put("q/0", 0)  # "0" sorts first: the window becomes {0, a}
    wait_for({"0": 0, "a": 1})
    rest.delete("q/a")  # window becomes {0, b}
    wait_for({"0": 0, "b": 20})
    assert all("30" not in event.data for event in stream.history), stream.history
