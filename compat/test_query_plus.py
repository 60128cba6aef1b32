"""Issue 30 §1: a `+` in a query string is a space, as Firebase's servers read it.

Python's `requests` (and so google-cloud-storage and any form-encoding client) sends a space in a
query parameter as `+`; a literal plus goes out as `%2B`. These tests send queries the way those
clients do, unmodified, and check Hearth reads them as Firebase does (firebase-admin-python #189:
`equalTo=%22+123456789%22` matched nothing on production because the server read a space).
"""

from __future__ import annotations

import json
import uuid

import pytest
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage

from hearth_helpers import put_rules


def _seed_people(http, base_url, ns):
    put_rules(http, base_url, ns, {"rules": {".read": False, ".write": False, "people": {".indexOn": ["name"]}}})
    people = {"a": {"name": "Alice Smith"}, "b": {"name": "Bob"}, "c": {"name": "a+b"}, "d": {"name": " 123"}}
    assert http.put(f"{base_url}/people.json", params={"ns": ns}, data=json.dumps(people)).status_code == 200


def test_equal_to_with_a_space_sent_by_requests(http, base_url, ns):
    _seed_people(http, base_url, ns)
    resp = http.get(f"{base_url}/people.json", params={"ns": ns, "orderBy": '"name"', "equalTo": '"Alice Smith"'})
    assert "equalTo=%22Alice+Smith%22" in resp.request.url  # what requests really sent
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"a": {"name": "Alice Smith"}}
    # The report's own case: a leading space, sent as `+`.
    resp = http.get(f"{base_url}/people.json", params={"ns": ns, "orderBy": '"name"', "equalTo": '" 123"'})
    assert "equalTo=%22+123%22" in resp.request.url
    assert resp.json() == {"d": {"name": " 123"}}


def test_a_literal_plus_is_percent_encoded(http, base_url, ns):
    _seed_people(http, base_url, ns)
    resp = http.get(f"{base_url}/people.json", params={"ns": ns, "orderBy": '"name"', "equalTo": '"a+b"'})
    assert "%22a%2Bb%22" in resp.request.url
    assert resp.json() == {"c": {"name": "a+b"}}
    # A raw `+` is a space, so this asks for "a b", which nobody has.
    raw = http.get(f'{base_url}/people.json?ns={ns}&orderBy=%22name%22&equalTo=%22a+b%22')
    assert raw.status_code == 200 and not raw.json()


def test_auth_variable_override_with_default_json_separators(http, base_url, ns):
    put_rules(http, base_url, ns, {"rules": {"users": {"$uid": {".read": "auth.uid === $uid", ".write": "auth.uid === $uid"}}}})
    override = json.dumps({"uid": "alice", "token": {"admin": False}})  # `{"uid": "alice", ...}`: spaces → `+`
    resp = http.put(f"{base_url}/users/alice.json", params={"ns": ns, "auth_variable_override": override}, data="1")
    assert "auth_variable_override=%7B%22uid%22%3A+%22alice%22" in resp.request.url
    assert resp.status_code == 200, resp.text
    denied = http.put(f"{base_url}/users/bob.json", params={"ns": ns, "auth_variable_override": override}, data="1")
    assert denied.status_code == 401


def test_list_blobs_with_a_space_in_the_prefix(base_url, monkeypatch):
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", base_url)
    client = storage.Client(project="demo", credentials=AnonymousCredentials())
    bucket = client.create_bucket(f"b-{uuid.uuid4().hex[:12]}")
    bucket.blob("odd dir/one.txt").upload_from_string("1")
    bucket.blob("odd dir/two+three.txt").upload_from_string("2")
    bucket.blob("odd/other.txt").upload_from_string("3")
    names = sorted(b.name for b in client.list_blobs(bucket, prefix="odd dir/"))
    assert names == ["odd dir/one.txt", "odd dir/two+three.txt"]
    assert [b.name for b in client.list_blobs(bucket, prefix="odd dir/two+")] == ["odd dir/two+three.txt"]
    assert bucket.get_blob("odd dir/two+three.txt").download_as_bytes() == b"2"
