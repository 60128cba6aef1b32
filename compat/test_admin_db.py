"""firebase-admin ``db`` module against Hearth (spec rtdb.md §7 and §9).

Scenario numbers in the docstrings refer to the list in §9. Scenarios that need security-rule
enforcement (19, 20's invalid-expression part, 21, 22, 24) belong to a later issue and are not
here. Query results from firebase-admin are re-sorted on the client, so wherever a test means
to prove the *server's* order it looks at limited windows (``limit_to_first(n)``), which only
the server can compute.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from firebase_admin import db, exceptions

from hearth_helpers import (
    PUSH_ALPHABET,
    db_url,
    new_namespace,
    push_id_millis,
    put_rules,
    run_threads,
)


def ref(app, path: str = "/"):
    return db.reference(path, app=app)


def nested(levels: int, leaf=1):
    """``{"k": {"k": ... leaf}}`` with ``levels`` keys from the outermost to the leaf."""
    value = leaf
    for _ in range(levels):
        value = {"k": value}
    return value


def assert_server_order(make_query, expected: list[str]) -> None:
    """Proves the server orders children as ``expected`` by checking every first-n window."""
    for n in range(1, len(expected) + 1):
        result = make_query().limit_to_first(n).get()
        assert result is not None, f"limit_to_first({n}) returned nothing"
        assert set(result.keys()) == set(expected[:n]), (
            f"limit_to_first({n}) returned {sorted(result.keys())}, expected {expected[:n]}"
        )


# ------------------------------------------------------------------------------------------
# 1-3: values


@pytest.mark.parametrize(
    "value",
    ["foo", 0, 1, 1.2, True, False, "", -42, -3.5, "ünïcødé ✓ 🐵"],
    ids=["str", "zero", "one", "float", "true", "false", "empty-str", "neg-int", "neg-float",
         "unicode"],
)
def test_primitive_round_trip(admin_app, value):
    """§9.1: set then get returns the identical value and JSON type."""
    node = ref(admin_app, "prim")
    node.set(value)
    got = node.get()
    assert got == value
    assert type(got) is type(value), f"type changed: wrote {value!r}, read {got!r}"


def test_missing_child_and_fresh_root_are_none(admin_app):
    """§9.2: absent data reads as None, at a deep path and at the root of a new namespace."""
    assert ref(admin_app).get() is None
    assert ref(admin_app, "missing/child").get() is None


def test_read_through_a_leaf_is_none(admin_app):
    """§1.1: reading a path below a leaf yields null."""
    ref(admin_app, "a").set(5)
    assert ref(admin_app, "a/b").get() is None
    assert ref(admin_app, "a").get() == 5


def test_empty_containers_vanish(admin_app):
    """§9.3: {} and [] are empty; writing only empties deletes the node."""
    node = ref(admin_app, "node")
    node.set("before")
    node.set({"a": {"b": {}}, "c": []})
    assert node.get() is None
    assert ref(admin_app).get() is None


def test_deleting_last_child_prunes_ancestors(admin_app):
    """§1.1: removing the only leaf removes the now-empty parents up to the root."""
    ref(admin_app).set({"a": {"b": 1}})
    ref(admin_app, "a/b").delete()
    assert ref(admin_app, "a").get() is None
    assert ref(admin_app).get() is None


@pytest.mark.parametrize(
    "written, expected",
    [
        ([1, 2, 3], [1, 2, 3]),
        ({"0": "a", "2": "c"}, ["a", None, "c"]),
        ({"5": "x"}, {"5": "x"}),
        ({"0": "a", "1": "b"}, ["a", "b"]),
    ],
    ids=["list", "sparse", "not-array-like", "dense-object"],
)
def test_array_rendering(admin_app, written, expected):
    """§9.3 / §1.4: objects with array-like keys read back as lists."""
    node = ref(admin_app, "arr")
    node.set(written)
    assert node.get() == expected


# ------------------------------------------------------------------------------------------
# 4-6: push and update


def test_push_ids_are_chronological(admin_app):
    """§9.4 / §1.8: 20-char ids over the push alphabet, timestamp prefix, strictly increasing."""
    parent = ref(admin_app, "items")
    before = int(time.time() * 1000)
    children = [parent.push({"name": name}) for name in "ABC"]
    after = int(time.time() * 1000)
    keys = [child.key for child in children]
    for key in keys:
        assert len(key) == 20 and key[0] == "-", key
        assert all(ch in PUSH_ALPHABET for ch in key), key
        assert before - 5000 <= push_id_millis(key) <= after + 5000, (
            f"push id {key} encodes {push_id_millis(key)}, outside [{before}, {after}]"
        )
    assert all(a < b for a, b in zip(keys, keys[1:])), f"not strictly increasing: {keys}"
    assert [child.get() for child in children] == [{"name": "A"}, {"name": "B"}, {"name": "C"}]
    listed = children[0].parent.order_by_key().get()
    assert list(listed.keys()) == keys
    assert list(parent.order_by_key().limit_to_first(1).get().keys()) == keys[:1]
    assert list(parent.order_by_key().limit_to_last(1).get().keys()) == keys[-1:]


def test_push_default_value_is_empty_string(admin_app):
    """§7.3: push() without a value stores the empty string, a real value."""
    child = ref(admin_app, "items").push()
    assert child.get() == ""
    assert ref(admin_app, "items").get() == {child.key: ""}


def test_update_deletes_and_creates_nested(admin_app):
    """§9.5: update with None deletes; slash keys create nested data; siblings untouched."""
    node = ref(admin_app, "u")
    node.set({"temp": 1, "keep": "k", "x": {"old": 1}})
    node.update({"temp": None})
    assert node.get() == {"keep": "k", "x": {"old": 1}}
    node.update({"x/y": 1, "z": 2})
    assert node.get() == {"keep": "k", "x": {"old": 1, "y": 1}, "z": 2}


def test_update_replaces_each_location(admin_app):
    """§2.4: each update key replaces its location entirely (no deep merge)."""
    node = ref(admin_app, "u")
    node.set({"x": {"y": 1, "z": 2}, "w": 3})
    node.update({"x": {"y": 5}})
    assert node.get() == {"x": {"y": 5}, "w": 3}


def test_update_grandchildren(admin_app):
    """§7.3: update({'k1/since': ..., 'k2/since': ...}) touches only those grandchildren."""
    node = ref(admin_app, "people")
    node.set({"k1": {"name": "Cope", "since": 1800}, "k2": {"name": "Marsh", "since": 1900}})
    node.update({"k1/since": 1840, "k2/since": 1946})
    assert node.get() == {"k1": {"name": "Cope", "since": 1840},
                          "k2": {"name": "Marsh", "since": 1946}}


def test_update_with_overlapping_paths_is_rejected(admin_app):
    """§9.6: overlapping update paths -> InvalidArgumentError and nothing written."""
    node = ref(admin_app, "o")
    node.set({"a": {"c": 0}})
    with pytest.raises(exceptions.InvalidArgumentError):
        node.update({"a": 1, "a/b": 2})
    assert node.get() == {"a": {"c": 0}}


# ------------------------------------------------------------------------------------------
# 7-10: ETags and transactions


def test_null_etag_and_create_if_absent(admin_app):
    """§9.7: missing data has ETag null_etag; set_if_unchanged('null_etag') creates once."""
    node = ref(admin_app, "e")
    assert node.get(etag=True) == (None, "null_etag")
    ok, value, etag = node.set_if_unchanged("null_etag", 5)
    assert ok is True and value == 5
    assert isinstance(etag, str) and etag and etag != "null_etag"
    assert node.get(etag=True) == (5, etag)
    ok, current, current_etag = node.set_if_unchanged("null_etag", 6)
    assert ok is False and current == 5 and current_etag == etag
    assert node.get() == 5


def test_set_if_unchanged_with_stale_etag(admin_app):
    """§9.8: a wrong ETag returns the current value and ETag; retrying with it succeeds."""
    node = ref(admin_app, "dino")
    original = {"name": "Edward Cope", "since": 1800}
    node.set(original)
    _, etag0 = node.get(etag=True)
    ok, current, etag = node.set_if_unchanged("bogus", {"name": "x"})
    assert ok is False
    assert current == original
    assert isinstance(etag, str) and etag == etag0
    assert node.get() == original
    updated = {"name": "Othniel Marsh", "since": 1850}
    ok, value, new_etag = node.set_if_unchanged(etag, updated)
    assert ok is True and value == updated
    assert isinstance(new_etag, str) and new_etag != etag
    assert node.get(etag=True) == (updated, new_etag)


def test_get_if_changed(admin_app):
    """§9.9: get_if_changed is (False, None, None) for the current ETag, fresh data otherwise."""
    node = ref(admin_app, "g")
    node.set({"v": 1})
    data, etag = node.get(etag=True)
    assert data == {"v": 1}
    assert node.get_if_changed(etag) == (False, None, None)
    assert node.get_if_changed("wrong_etag") == (True, {"v": 1}, etag)
    node.set({"v": 2})
    changed, new_data, new_etag = node.get_if_changed(etag)
    assert changed is True and new_data == {"v": 2}
    assert isinstance(new_etag, str) and new_etag != etag
    assert node.get_if_changed(new_etag) == (False, None, None)


def test_transaction_on_number_missing_and_dict(admin_app):
    """§7.3: transactions via GET+conditional PUT on a number, a missing node and a dict."""
    num = ref(admin_app, "num")
    num.set(42)
    assert num.transaction(lambda x: x + 1 if x else 1) == 43
    assert num.get() == 43

    missing = ref(admin_app, "missing")
    assert missing.transaction(lambda x: x + 1 if x else 1) == 1
    assert missing.get() == 1

    obj = ref(admin_app, "obj")
    obj.set({"count": 1, "name": "x"})
    assert obj.transaction(lambda d: {**d, "count": d["count"] + 1}) == {"count": 2, "name": "x"}
    assert obj.get() == {"count": 2, "name": "x"}


def test_concurrent_transactions(admin_app):
    """§9.10: ten threads incrementing one counter by transaction end at exactly 10."""
    counter = ref(admin_app, "counter")
    results = run_threads(lambda _: counter.transaction(lambda x: (x or 0) + 1), 10, timeout=90)
    assert counter.get() == 10
    # Every committed transaction saw a distinct predecessor: no lost or duplicated update.
    assert sorted(results) == list(range(1, 11))


# ------------------------------------------------------------------------------------------
# 11-13: server values, shallow


def test_server_timestamp(admin_app):
    """§9.11: {'.sv': 'timestamp'} becomes the server's integer milliseconds."""
    node = ref(admin_app, "ts")
    before = time.time() * 1000
    node.set({".sv": "timestamp"})
    after = time.time() * 1000
    value = node.get()
    assert type(value) is int, f"timestamp should be an int, got {value!r}"
    assert before - 5000 <= value <= after + 5000


def test_server_increment(admin_app):
    """§9.12: increment adds to numbers; missing or non-numeric targets become the delta."""
    num = ref(admin_app, "n")
    num.set(5)
    num.set({".sv": {"increment": 2}})
    value = num.get()
    assert value == 7 and type(value) is int

    num.set({".sv": {"increment": -10}})
    assert num.get() == -3

    missing = ref(admin_app, "missing")
    missing.set({".sv": {"increment": 2}})
    assert missing.get() == 2

    text = ref(admin_app, "s")
    text.set("text")
    text.set({".sv": {"increment": 2}})
    assert text.get() == 2

    parent = ref(admin_app, "p")
    parent.set({"n": 1, "other": "o"})
    parent.update({"n": {".sv": {"increment": 1.5}}})
    assert parent.get() == {"n": 2.5, "other": "o"}


def test_shallow_get(admin_app):
    """§9.13: shallow reads list child keys as True; a leaf reads as itself."""
    node = ref(admin_app, "sh")
    node.set({"a": {"x": 1}, "b": 2})
    assert node.get(shallow=True) == {"a": True, "b": True}
    assert node.child("b").get(shallow=True) == 2
    assert ref(admin_app, "nothing").get(shallow=True) is None


# ------------------------------------------------------------------------------------------
# 14-18: queries

DINOSAURS = {
    "bruhathkayosaurus": {"height": 25, "length": 44, "ratings": {"pos": 2}},
    "lambeosaurus": {"height": 2.1, "length": 12.5, "ratings": {"pos": 3}},
    "linhenykus": {"height": 0.6, "length": 1, "ratings": {"pos": 1}},
    "pterodactyl": {"height": 0.6, "length": 0.8, "ratings": {"pos": 4}},
    "stegosaurus": {"height": 4, "length": 9, "ratings": {"pos": 6}},
    "triceratops": {"height": 3, "length": 8, "ratings": {"pos": 5}},
}
SCORES = {"bruhathkayosaurus": 55, "lambeosaurus": 21, "linhenykus": 80,
          "pterodactyl": 93, "stegosaurus": 5, "triceratops": 22}
DINO_RULES = {
    "rules": {
        ".read": True,
        ".write": True,
        "dinosaurs": {".indexOn": ["height", "ratings/pos", ".value"]},
        "scores": {".indexOn": ".value"},
    }
}
BY_HEIGHT = ["linhenykus", "pterodactyl", "lambeosaurus", "triceratops", "stegosaurus",
             "bruhathkayosaurus"]
BY_KEY = sorted(DINOSAURS)
BY_POS = ["linhenykus", "bruhathkayosaurus", "lambeosaurus", "pterodactyl", "triceratops",
          "stegosaurus"]
BY_SCORE = ["stegosaurus", "lambeosaurus", "triceratops", "bruhathkayosaurus", "linhenykus",
            "pterodactyl"]


@pytest.fixture
def dino_app(admin_app, http, base_url, ns):
    put_rules(http, base_url, ns, DINO_RULES)
    ref(admin_app).set({"dinosaurs": DINOSAURS, "scores": SCORES})
    return admin_app


DINO_QUERIES = [
    ("height", lambda r: r.order_by_child("height"), BY_HEIGHT),
    ("height-startAt", lambda r: r.order_by_child("height").start_at(3.5),
     ["stegosaurus", "bruhathkayosaurus"]),
    ("height-endAt", lambda r: r.order_by_child("height").end_at(3.5), BY_HEIGHT[:4]),
    ("height-range", lambda r: r.order_by_child("height").start_at(2.5).end_at(5),
     ["triceratops", "stegosaurus"]),
    ("height-equalTo", lambda r: r.order_by_child("height").equal_to(0.6),
     ["linhenykus", "pterodactyl"]),
    ("height-limitToFirst", lambda r: r.order_by_child("height").limit_to_first(3),
     ["linhenykus", "pterodactyl", "lambeosaurus"]),
    ("height-limitToLast", lambda r: r.order_by_child("height").limit_to_last(2),
     ["stegosaurus", "bruhathkayosaurus"]),
    ("height-startAt-limitToFirst",
     lambda r: r.order_by_child("height").start_at(1).limit_to_first(2),
     ["lambeosaurus", "triceratops"]),
    ("height-endAt-limitToLast",
     lambda r: r.order_by_child("height").end_at(3.5).limit_to_last(2),
     ["lambeosaurus", "triceratops"]),
    ("key", lambda r: r.order_by_key(), BY_KEY),
    ("key-startAt", lambda r: r.order_by_key().start_at("p"),
     ["pterodactyl", "stegosaurus", "triceratops"]),
    ("key-endAt", lambda r: r.order_by_key().end_at("m"),
     ["bruhathkayosaurus", "lambeosaurus", "linhenykus"]),
    ("key-equalTo", lambda r: r.order_by_key().equal_to("stegosaurus"), ["stegosaurus"]),
    ("key-limitToLast", lambda r: r.order_by_key().limit_to_last(2),
     ["stegosaurus", "triceratops"]),
    ("ratings-pos", lambda r: r.order_by_child("ratings/pos"), BY_POS),
    ("ratings-pos-startAt", lambda r: r.order_by_child("ratings/pos").start_at(4),
     ["pterodactyl", "triceratops", "stegosaurus"]),
    ("ratings-pos-limitToFirst", lambda r: r.order_by_child("ratings/pos").limit_to_first(2),
     ["linhenykus", "bruhathkayosaurus"]),
]


@pytest.mark.parametrize("make, expected", [q[1:] for q in DINO_QUERIES],
                         ids=[q[0] for q in DINO_QUERIES])
def test_dinosaur_queries(dino_app, make, expected):
    """§9.14 / §3.2: child, key and nested-child queries return exactly the expected children."""
    result = make(ref(dino_app, "dinosaurs")).get()
    assert list(result.keys()) == expected
    assert dict(result) == {name: DINOSAURS[name] for name in expected}


SCORE_QUERIES = [
    ("value", lambda r: r.order_by_value(), BY_SCORE),
    ("value-limitToFirst", lambda r: r.order_by_value().limit_to_first(3), BY_SCORE[:3]),
    ("value-limitToLast", lambda r: r.order_by_value().limit_to_last(2), BY_SCORE[-2:]),
    ("value-startAt", lambda r: r.order_by_value().start_at(50),
     ["bruhathkayosaurus", "linhenykus", "pterodactyl"]),
    ("value-endAt", lambda r: r.order_by_value().end_at(21), ["stegosaurus", "lambeosaurus"]),
    ("value-range", lambda r: r.order_by_value().start_at(20).end_at(60),
     ["lambeosaurus", "triceratops", "bruhathkayosaurus"]),
    ("value-equalTo", lambda r: r.order_by_value().equal_to(22), ["triceratops"]),
]


@pytest.mark.parametrize("make, expected", [q[1:] for q in SCORE_QUERIES],
                         ids=[q[0] for q in SCORE_QUERIES])
def test_score_queries(dino_app, make, expected):
    """§9.14 / §3.2: value queries over the scores."""
    result = make(ref(dino_app, "scores")).get()
    assert list(result.keys()) == expected
    assert dict(result) == {name: SCORES[name] for name in expected}


@pytest.mark.parametrize(
    "location, make, expected",
    [
        ("dinosaurs", lambda r: r.order_by_child("height"), BY_HEIGHT),
        ("dinosaurs", lambda r: r.order_by_child("ratings/pos"), BY_POS),
        ("dinosaurs", lambda r: r.order_by_key(), BY_KEY),
        ("scores", lambda r: r.order_by_value(), BY_SCORE),
    ],
    ids=["height", "ratings-pos", "key", "value"],
)
def test_dinosaur_server_order(dino_app, location, make, expected):
    """§3.2: the server's own order (first-n windows), not just the client's re-sort."""
    assert_server_order(lambda: make(ref(dino_app, location)), expected)


def test_shallow_root_of_dinosaur_db(dino_app):
    """§7.3: shallow read of the loaded database lists its two top-level children."""
    assert ref(dino_app).get(shallow=True) == {"dinosaurs": True, "scores": True}


def test_query_without_index_is_rejected(admin_app):
    """§9.15 / §3.4: child and value queries need .indexOn; key queries do not."""
    node = ref(admin_app, "x")
    node.set(DINOSAURS)
    with pytest.raises(exceptions.InvalidArgumentError) as info:
        node.order_by_child("height").get()
    assert str(info.value) == (
        'Index not defined, add ".indexOn": "height", for path "/x", to the rules'
    )
    with pytest.raises(exceptions.InvalidArgumentError) as info:
        node.order_by_child("ratings/pos").limit_to_first(1).get()
    assert str(info.value) == (
        'Index not defined, add ".indexOn": "ratings/pos", for path "/x", to the rules'
    )
    with pytest.raises(exceptions.InvalidArgumentError) as info:
        node.order_by_value().get()
    assert str(info.value) == (
        'Index not defined, add ".indexOn": ".value", for path "/x", to the rules'
    )
    assert list(node.order_by_key().get().keys()) == BY_KEY
    assert list(node.order_by_key().limit_to_first(2).get().keys()) == BY_KEY[:2]


def test_index_is_per_location(admin_app, http, base_url, ns):
    """§3.4: an index on /dinosaurs does not cover /x; a wildcard rule node does."""
    put_rules(http, base_url, ns, DINO_RULES)
    ref(admin_app, "x").set(DINOSAURS)
    with pytest.raises(exceptions.InvalidArgumentError) as info:
        ref(admin_app, "x").order_by_child("height").get()
    assert str(info.value).startswith('Index not defined, add ".indexOn": "height", for path "/x"')

    put_rules(http, base_url, ns, {"rules": {".read": True, ".write": True,
                                             "$any": {".indexOn": "height"}}})
    result = ref(admin_app, "x").order_by_child("height").limit_to_first(2).get()
    assert list(result.keys()) == BY_HEIGHT[:2]


MIXED = {"a": True, "b": 0, "c": "foo", "d": False, "e": {"x": 1}, "f": "bar"}
MIXED_ORDER = ["d", "a", "b", "f", "c", "e"]


def test_cross_type_value_ordering(admin_app, http, base_url, ns):
    """§9.16 / §1.5: false < true < numbers < strings < objects."""
    put_rules(http, base_url, ns, {"rules": {".read": True, ".write": True,
                                             "mixed": {".indexOn": ".value"}}})
    node = ref(admin_app, "mixed")
    node.set(MIXED)
    assert list(node.order_by_value().get().keys()) == MIXED_ORDER
    assert list(node.order_by_value().limit_to_first(2).get().keys()) == ["d", "a"]
    assert list(node.order_by_value().limit_to_last(1).get().keys()) == ["e"]
    assert dict(node.order_by_value().start_at("bar").get()) == {
        "f": "bar", "c": "foo", "e": {"x": 1}}
    assert_server_order(lambda: node.order_by_value(), MIXED_ORDER)


INT_KEYS = {"1": "one", "2": "two", "10": "ten", "-1": "minus one", "007": "seven",
            "a": "A", "b": "B"}
INT_KEY_ORDER = ["-1", "1", "2", "007", "10", "a", "b"]


def test_integer_like_key_ordering(admin_app):
    """§9.17 / §1.3: integer-like keys sort numerically and before other keys (server side).

    firebase-admin re-sorts $key results as plain strings, so the order is checked through
    limited windows and key ranges, which only the server can compute.
    """
    node = ref(admin_app, "ik")
    node.set(INT_KEYS)
    assert dict(node.order_by_key().get()) == INT_KEYS
    assert set(node.order_by_key().limit_to_first(3).get().keys()) == {"-1", "1", "2"}
    assert_server_order(lambda: node.order_by_key(), INT_KEY_ORDER)
    assert set(node.order_by_key().start_at("2").get().keys()) == {"2", "007", "10", "a", "b"}
    assert set(node.order_by_key().end_at("007").get().keys()) == {"-1", "1", "2", "007"}
    assert set(node.order_by_key().limit_to_last(2).get().keys()) == {"a", "b"}


def test_key_range_queries(admin_app):
    """§9.18: start_at / end_at / equal_to on order_by_key."""
    node = ref(admin_app, "k")
    node.set({"a": 1, "b": 2, "c": 3})
    assert dict(node.order_by_key().start_at("b").get()) == {"b": 2, "c": 3}
    assert dict(node.order_by_key().end_at("b").get()) == {"a": 1, "b": 2}
    assert dict(node.order_by_key().equal_to("b").get()) == {"b": 2}
    assert node.order_by_key().equal_to("zz").get() is None


# ------------------------------------------------------------------------------------------
# 23: listen()


# After close() the SDK's reader thread may die on the response it had closed under it
# (AttributeError in http.client); that is client-side noise, not a server fault.
@pytest.mark.filterwarnings(
    r"ignore:(?s)Exception in thread .*_start_listen.*NoneType. object has no attribute .read."
    ":pytest.PytestUnhandledThreadExceptionWarning"
)
def test_listen_events(admin_app, listen):
    """§9.23: initial put, push under the listener, update -> patch, child delete -> put None."""
    node = ref(admin_app, "root")
    node.set({"seed": "x"})
    listener = listen(node)
    assert listener.next() == ("put", "/", {"seed": "x"})

    pushed = node.child("users").push()
    assert listener.next() == ("put", f"/users/{pushed.key}", "")

    node.update({"a": 1})
    assert listener.next() == ("patch", "/", {"a": 1})

    node.child("seed").delete()
    assert listener.next() == ("put", "/seed", None)

    # Sentinel: the next event is the next commit, so nothing extra was sent before it.
    node.child("zz").set(1)
    assert listener.next() == ("put", "/zz", 1)

    # close() only returns once the stream delivers another byte (client limitation, see
    # AdminListener.close); the write made while it waits must succeed and wake it.
    elapsed = listener.close(timeout=10.0, wake=lambda: node.set({"after": True}))
    assert elapsed < 5.0, f"registration.close() took {elapsed:.1f}s after a write"
    assert node.get() == {"after": True}
    node.child("later").set(2)
    assert node.get() == {"after": True, "later": 2}


def test_listen_on_missing_location_and_above_writes(admin_app, listen):
    """§4.3: a listener on an empty path starts with put / None; writes above it arrive as put /."""
    node = ref(admin_app, "a/b")
    listener = listen(node)
    assert listener.next() == ("put", "/", None)
    ref(admin_app, "a").set({"b": {"c": 1}, "other": 2})
    assert listener.next() == ("put", "/", {"c": 1})
    ref(admin_app, "a/b/c").set(2)
    assert listener.next() == ("put", "/c", 2)


# ------------------------------------------------------------------------------------------
# 25-30


def test_unicode_and_special_characters_in_paths(admin_app, http, base_url, ns):
    """§9.25: unicode, spaces, '+' and '@' in keys round-trip through the SDK and raw HTTP."""
    node = ref(admin_app, "uni").child("José Ñ 🐵/a+b@c")
    value = {"v": "ünïcødé 🐵"}
    node.set(value)
    assert node.get() == value
    assert ref(admin_app, "uni").get() == {"José Ñ 🐵": {"a+b@c": value}}
    assert ref(admin_app, "uni").get(shallow=True) == {"José Ñ 🐵": True}
    resp = http.get(db_url(base_url, "uni/Jos%C3%A9%20%C3%91%20%F0%9F%90%B5/a%2Bb%40c", ns))
    assert resp.status_code == 200 and resp.json() == value


def test_literal_plus_in_query_values(admin_app, http, base_url, ns):
    """§9.25 / §2.1, issue 30 §1: firebase-admin sends '+' unencoded, and Firebase's servers read a query's '+'
    as a space (firebase-admin-python #189); Hearth reads it as they do. A plus sent as %2B stays a plus."""
    put_rules(http, base_url, ns, {"rules": {".read": True, ".write": True,
                                             "people": {".indexOn": "email"}}})
    people = ref(admin_app, "people")
    people.set({"p1": {"email": "a+b@c"}, "p2": {"email": "a b@c"}, "p3": {"email": "ab@c"}})
    assert dict(people.order_by_child("email").equal_to("a+b@c").get()) == {
        "p2": {"email": "a b@c"}}
    encoded = http.get(db_url(base_url, "people", ns, orderBy='"email"', equalTo='"a+b@c"'))  # qs() sends %2B
    assert encoded.status_code == 200 and encoded.json() == {"p1": {"email": "a+b@c"}}
    keys = ref(admin_app, "keys")
    keys.set({"a+b@c": 1, "a b@c": 2})
    assert dict(keys.order_by_key().equal_to("a+b@c").get()) == {"a b@c": 2}


@pytest.mark.parametrize(
    "value",
    [
        {"a.b": 1},
        {"ok": {"a$b": 1}},
        nested(32),  # written at /v (depth 1): the leaf would sit at depth 33
        {"é" * 384 + "a": 1},  # 769 UTF-8 bytes
    ],
    ids=["dot-key", "dollar-key-nested", "depth-33", "key-769-bytes"],
)
def test_invalid_data_is_rejected(admin_app, value):
    """§9.26: invalid keys, depth 33 and over-long keys -> InvalidArgumentError, nothing written."""
    node = ref(admin_app, "v")
    node.set("keep")
    with pytest.raises(exceptions.InvalidArgumentError):
        node.set(value)
    assert node.get() == "keep"


@pytest.mark.parametrize(
    "value",
    [nested(31), {"é" * 384: 1}],
    ids=["depth-32", "key-768-bytes"],
)
def test_limits_are_inclusive(admin_app, value):
    """§1.2: depth 32 and a 768-byte key are still allowed."""
    node = ref(admin_app, "v")
    node.set(value)
    assert node.get() == value


def test_priority_export_and_print_silent(admin_app, http, base_url, ns):
    """§9.27: priorities show only in format=export; print=silent GET -> 204 with no body."""
    ref(admin_app, "pri").set({".value": 1, ".priority": 5})
    assert ref(admin_app, "pri").get() == 1
    resp = http.get(db_url(base_url, "pri", ns, format="export"))
    assert resp.status_code == 200
    assert resp.json() == {".value": 1, ".priority": 5}
    resp = http.get(db_url(base_url, "pri", ns, print="silent"))
    assert resp.status_code == 204
    assert resp.content == b""


def test_namespace_isolation(admin_app, app_factory, http, base_url, ns):
    """§9.28: two namespaces keep independent data and independent rules."""
    other_ns = new_namespace()
    other_app = app_factory(other_ns)
    ref(admin_app, "same/path").set("A")
    ref(other_app, "same/path").set("B")
    assert ref(admin_app, "same/path").get() == "A"
    assert ref(other_app, "same/path").get() == "B"

    put_rules(http, base_url, ns, {"rules": {".read": True, ".write": True,
                                             "h": {".indexOn": "v"}}})
    for app in (admin_app, other_app):
        ref(app, "h").set({"x": {"v": 2}, "y": {"v": 1}})
    assert list(ref(admin_app, "h").order_by_child("v").limit_to_first(1).get()) == ["y"]
    with pytest.raises(exceptions.InvalidArgumentError):
        ref(other_app, "h").order_by_child("v").limit_to_first(1).get()

    ref(admin_app, "same").delete()
    assert ref(admin_app, "same/path").get() is None
    assert ref(other_app, "same/path").get() == "B"


def test_method_override_delete(admin_app, http, base_url, ns):
    """§9.29: POST with X-HTTP-Method-Override: DELETE removes the node."""
    ref(admin_app).set({"x": {"a": 1}, "y": 2})
    resp = http.post(db_url(base_url, "x", ns), headers={"X-HTTP-Method-Override": "DELETE"})
    assert resp.status_code == 200
    assert ref(admin_app, "x").get() is None
    assert ref(admin_app).get() == {"y": 2}


def test_parallel_pushes(admin_app, listen):
    """§9.30: 50 parallel pushes -> 50 distinct readable keys; key order == commit order."""
    parent = ref(admin_app, "pushes")
    listener = listen(parent)
    assert listener.next() == ("put", "/", None)

    with ThreadPoolExecutor(max_workers=10) as pool:
        futures = [pool.submit(parent.push, {"i": i}) for i in range(50)]
        children = [f.result(timeout=60) for f in futures]
    keys = [child.key for child in children]
    assert len(set(keys)) == 50

    stored = parent.get()
    assert stored == {child.key: {"i": i} for i, child in enumerate(children)}

    commit_order = []
    for _ in range(50):
        event_type, path, data = listener.next(timeout=10)
        assert event_type == "put"
        key = path.lstrip("/")
        assert stored[key] == data
        commit_order.append(key)
    assert commit_order == sorted(keys), "push ids are not ordered like their commits"
