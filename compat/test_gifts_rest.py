"""Gifts (Examples/Gifts): the app's original REST API, served by Hearth's HTTP functions from the same
rules-checked data as the realtime database. Every answer is checked against the OpenAPI document the server
serves (Examples/Gifts/openapi.json), and a realtime client (SSE) watches the REST changes live.
"""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path

import jsonschema
import pytest
import requests

from hearth_helpers import OWNER_HEADERS, SSEStream, apply_event, eventually
from hearth_process import hearth_process

EXAMPLE = Path(__file__).resolve().parent.parent / "Examples" / "Gifts"
DOC = json.loads((EXAMPLE / "openapi.json").read_text())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gifts-rest")
    with hearth_process(["--dev"], tmp / "data", tmp / "server.log", probe="/.json", probe_headers=OWNER_HEADERS,
                        binary="hearth-functions-example") as (url, _, _):
        r = requests.put(f"{url}/.settings/rules.json", data=(EXAMPLE / "rules.json").read_bytes(), headers=OWNER_HEADERS, timeout=10)
        assert r.status_code == 200, r.text
        yield url


def resolved(schema):
    """`schema` with its $refs inlined and OpenAPI's `nullable` turned into JSON Schema."""
    schema = copy.deepcopy(schema)
    if isinstance(schema, dict):
        if "$ref" in schema:
            name = schema["$ref"].split("/")[-1]
            return resolved(DOC["components"]["schemas"][name])
        if schema.pop("nullable", False) and "type" in schema:
            schema["type"] = [schema["type"], "null"]
        return {k: resolved(v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [resolved(v) for v in schema]
    return schema


def checked(response: requests.Response, path: str, method: str) -> requests.Response:
    """Fails unless the status is documented for the operation and the body matches its schema."""
    operation = DOC["paths"][path][method.lower()]
    status = str(response.status_code)
    assert status in operation["responses"], f"{method} {path} answered undocumented {status}: {response.text}"
    content = operation["responses"][status].get("content")
    if content:
        jsonschema.validate(response.json(), resolved(content["application/json"]["schema"]))
    else:
        assert response.text == "", response.text
    return response


def api(url, method, path, template, token=None, **kwargs):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return checked(requests.request(method, f"{url}{path}", headers=headers, timeout=10, **kwargs), template, method)


def register(url, login, first, last):
    r = api(url, "POST", "/api/v1/auth/register", "/api/v1/auth/register", json={"login": login, "password": "secret-123", "firstName": first, "lastName": last})
    assert r.status_code == 200, r.text
    return r.json()


def test_the_served_document_is_the_documented_one(server):
    r = requests.get(f"{server}/api/v1/openapi.json", timeout=10)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/json")
    assert r.json() == DOC


def test_the_whole_story_through_rest_with_a_realtime_client_watching(server):
    url = server
    alice = register(url, "alice", "Alice", "Smith")
    bob = register(url, "bob", "Bob", "Jones")
    carol = register(url, "carol", "Carol", "Király")
    # Logins are unique; a wrong password reads like an unknown login.
    r = api(url, "POST", "/api/v1/auth/register", "/api/v1/auth/register", json={"login": "alice", "password": "x-123456", "firstName": "A", "lastName": "B"})
    assert (r.status_code, r.json()) == (403, {"message": "Login is already used!"})
    r = api(url, "POST", "/api/v1/auth/login", "/api/v1/auth/login", json={"login": "alice", "password": "wrong-123"})
    assert (r.status_code, r.json()) == (403, {"message": "Invalid login or password!"})
    r = api(url, "POST", "/api/v1/auth/login", "/api/v1/auth/login", json={"login": "alice", "password": "secret-123"})
    assert r.status_code == 200 and r.json()["id"] == alice["id"]
    a, b, c = alice["id"], bob["id"], carol["id"]

    # Alice's realtime client watches her list while the REST API changes it.
    view = {"value": None}
    stream = SSEStream.open(f"{url}/wishes/{a}.json?auth={alice['token']}")
    assert stream.status_code == 200
    stop = threading.Event()

    def follow():
        while not stop.is_set():
            try:
                event = stream.next_event(timeout=0.5)
            except Exception:
                continue
            if event.event in ("put", "patch"):
                view["value"] = apply_event(view["value"], event)

    threading.Thread(target=follow, daemon=True).start()
    try:
        gifts = f"/api/v1/user/{a}/request"
        r = api(url, "POST", gifts, "/api/v1/user/{userId}/request", alice["token"], json={"name": "Lego Castle", "price": 59.9, "link": "https://shop.example/lego"})
        assert r.status_code == 201 and r.json()["reserved"] is False
        lego = r.json()["id"]
        r = api(url, "POST", gifts, "/api/v1/user/{userId}/request", alice["token"], json={"name": "Book"})
        book = r.json()["id"]
        assert api(url, "POST", gifts, "/api/v1/user/{userId}/request", bob["token"], json={"name": "Not mine"}).status_code == 403
        assert api(url, "POST", gifts, "/api/v1/user/{userId}/request", alice["token"], json={"name": ""}).status_code == 400
        assert api(url, "GET", gifts, "/api/v1/user/{userId}/request").status_code == 401
        eventually("the realtime client sees both REST wishes", lambda: set((view["value"] or {}).keys()) == {lego, book})

        # Bob and Carol race for the Lego: exactly one wins; the owner never learns who.
        reserve = f"/api/v1/user/{a}/reserve/{lego}"
        template = "/api/v1/user/{requesterId}/reserve/{giftId}"
        results = {}

        def race(who):
            results[who["id"]] = api(url, "PATCH", reserve, template, who["token"], params={"activeUserId": who["id"]})

        threads = [threading.Thread(target=race, args=(who,)) for who in (bob, carol)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        statuses = sorted(r.status_code for r in results.values())
        assert statuses == [200, 409], {k: v.text for k, v in results.items()}
        loser = next(r for r in results.values() if r.status_code == 409)
        assert loser.json() == {"message": "Gift is already reserved!"}
        winner = next(who for who in (bob, carol) if results[who["id"]].status_code == 200)
        other = carol if winner is bob else bob
        eventually("reserved, seen live", lambda: (view["value"] or {}).get(lego, {}).get("reserved") is True)
        listed = api(url, "GET", gifts, "/api/v1/user/{userId}/request", alice["token"]).json()
        assert [g["reserved"] for g in listed if g["id"] == lego] == [True]
        assert winner["id"] not in json.dumps(listed)
        assert requests.get(f"{url}/reservations/{a}/{lego}.json?auth={alice['token']}", timeout=10).status_code == 401
        # Own wish, activeUserId not the caller, unknown wish.
        assert api(url, "PATCH", f"/api/v1/user/{a}/reserve/{book}", template, alice["token"], params={"activeUserId": a}).status_code == 403
        assert api(url, "PATCH", f"/api/v1/user/{a}/reserve/{book}", template, bob["token"], params={"activeUserId": c}).status_code == 403
        assert api(url, "PATCH", f"/api/v1/user/{a}/reserve/nope", template, bob["token"], params={"activeUserId": b}).status_code == 404

        # The winner's reservations list names the wish and its owner; the other cannot cancel it.
        mine = f"/api/v1/user/{winner['id']}/reservation"
        eventually("the reservation listed", lambda: len(api(url, "GET", mine, "/api/v1/user/{userId}/reservation", winner["token"]).json()) == 1)
        entry = api(url, "GET", mine, "/api/v1/user/{userId}/reservation", winner["token"]).json()[0]
        assert entry == {"id": f"{a}_{lego}", "giftId": lego, "ownerId": a, "name": "Lego Castle", "ownerName": "Alice Smith"}
        assert api(url, "GET", mine, "/api/v1/user/{userId}/reservation", other["token"]).status_code == 403
        r = api(url, "DELETE", reserve, template, other["token"], params={"activeUserId": other["id"]})
        assert (r.status_code, r.json()) == (404, {"message": "Reservation not found!"})
        # Cancelling frees it for the other.
        assert api(url, "DELETE", reserve, template, winner["token"], params={"activeUserId": winner["id"]}).status_code == 204
        eventually("free again, seen live", lambda: (view["value"] or {}).get(lego, {}).get("reserved") is False)
        assert api(url, "PATCH", reserve, template, other["token"], params={"activeUserId": other["id"]}).status_code == 200

        # Received through the realtime database: the reservation goes, and the reserver's list with it.
        r = requests.put(f"{url}/wishes/{a}/{lego}/received.json?auth={alice['token']}", json=True, timeout=10)
        assert r.status_code == 200, r.text
        eventually("the received wish left the list",
                   lambda: api(url, "GET", f"/api/v1/user/{other['id']}/reservation", "/api/v1/user/{userId}/reservation", other["token"]).json() == [])

        # Top gifts: exact through creates and deletes.
        for who in (bob, carol):
            api(url, "POST", f"/api/v1/user/{who['id']}/request", "/api/v1/user/{userId}/request", who["token"], json={"name": "book "})
        rating = lambda: api(url, "GET", "/api/v1/gift/rating", "/api/v1/gift/rating", bob["token"]).json()
        eventually("three books", lambda: rating()[:1] == [{"name": rating()[0]["name"], "count": 3}] and rating()[0]["name"].strip().lower() == "book")
        assert api(url, "DELETE", f"/api/v1/user/{a}/request/{book}", "/api/v1/user/{userId}/request/{giftId}", alice["token"]).status_code == 204
        assert api(url, "DELETE", f"/api/v1/user/{a}/request/{book}", "/api/v1/user/{userId}/request/{giftId}", alice["token"]).status_code == 404
        eventually("two books", lambda: [g["count"] for g in rating() if g["name"].strip().lower() == "book"] == [2])
        eventually("deleted, seen live", lambda: book not in (view["value"] or {}))
    finally:
        stop.set()
        stream.close()
