"""The functions example (Examples/Functions) end to end over plain HTTP: the rewards app's invite
flow across short links, a callable and a trigger; coins minted only by the server; a reservation
opening a chat.
"""

from __future__ import annotations

import time

import pytest
import requests

from hearth_helpers import OWNER_HEADERS, eventually
from hearth_process import hearth_process

EXAMPLE = "hearth-functions-example"
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("functions-example")
    with hearth_process(["--dev"], tmp / "data", tmp / "server.log", probe="/.json", probe_headers=OWNER_HEADERS, binary=EXAMPLE) as (url, _, _):
        yield url


def sign_up(url: str) -> tuple[str, str]:
    r = requests.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", json={"returnSecureToken": True}, timeout=5)
    assert r.status_code == 200, r.text
    return r.json()["localId"], r.json()["idToken"]


def call(url: str, name: str, data, token: str | None = None):
    headers = dict(JSON)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return requests.post(f"{url}/functions/{name}", json={"data": data}, headers=headers, timeout=5)


def admin_get(url: str, path: str):
    r = requests.get(f"{url}/{path}.json", headers=OWNER_HEADERS, timeout=5)
    assert r.status_code == 200, r.text
    return r.json()


def test_an_invite_link_rewards_both_sides_once(example):
    url = example
    inviter, _ = sign_up(url)
    # Every new account gets a wallet from the onUserCreated trigger.
    eventually("the inviter's wallet", lambda: admin_get(url, f"wallets/{inviter}"))
    # The inviter shares a short link that carries their uid (the server's own origin is a link domain in --dev).
    r = requests.post(
        f"{url}/v1/shortLinks?key=k",
        json={"dynamicLinkInfo": {"domainUriPrefix": url, "link": "https://app.example.com/invite", "inviter": inviter}, "suffix": {"option": "SHORT"}},
        timeout=5,
    )
    assert r.status_code == 200, r.text
    short_link = r.json()["shortLink"]

    # The invitee installs the app, signs up, and the app resolves the link it was opened with.
    invitee, invitee_token = sign_up(url)
    eventually("the invitee's wallet", lambda: admin_get(url, f"wallets/{invitee}"))
    r = requests.post(f"{url}/v1/reopenAttribution?key=k", json={"requestedLink": short_link, "bundle_id": "com.example.rewards"}, timeout=5)
    assert r.status_code == 200, r.text
    assert r.json()["deepLink"] == "https://app.example.com/invite"
    assert r.json()["invitationId"] == inviter

    r = call(url, "redeemInvite", {"inviter": r.json()["invitationId"]}, invitee_token)
    assert r.status_code == 200, r.text
    assert r.json() == {"result": {"invited": True}}
    eventually("both rewards", lambda: admin_get(url, f"wallets/{inviter}/coins") == 50 and admin_get(url, f"wallets/{invitee}/coins") == 50)
    assert admin_get(url, f"invites/{invitee}")["rewarded"] is True

    # A second redeem is refused and pays nothing.
    r = call(url, "redeemInvite", {"inviter": inviter}, invitee_token)
    assert r.status_code == 409
    assert r.json()["error"]["status"] == "ALREADY_EXISTS"
    # Nobody can invite themselves, and signed-out callers cannot redeem.
    assert call(url, "redeemInvite", {"inviter": invitee}, invitee_token).json()["error"]["status"] == "INVALID_ARGUMENT"
    assert call(url, "redeemInvite", {"inviter": inviter}).status_code == 401
    time.sleep(0.5)
    assert admin_get(url, f"wallets/{inviter}/coins") == 50
    assert admin_get(url, f"wallets/{invitee}/coins") == 50


def test_an_invite_names_exactly_one_user(example):
    # The inviter becomes a path segment in the reward: "victim/coins" once overwrote the victim's balance
    # with {"coins": 50}, and "me/" redeemed an invite from oneself that could never be rewarded.
    url = example
    victim, _ = sign_up(url)
    eventually("the victim's wallet", lambda: admin_get(url, f"wallets/{victim}"))
    attacker, attacker_token = sign_up(url)
    eventually("the attacker's wallet", lambda: admin_get(url, f"wallets/{attacker}"))
    before = admin_get(url, f"wallets/{victim}")
    for inviter in [f"{victim}/coins", f"{attacker}/", "a.b", "", f"{victim}#x"]:
        r = call(url, "redeemInvite", {"inviter": inviter}, attacker_token)
        assert r.status_code == 400, (inviter, r.text)
        assert r.json()["error"]["status"] == "INVALID_ARGUMENT", (inviter, r.text)
    time.sleep(0.5)
    assert admin_get(url, f"wallets/{victim}") == before
    assert admin_get(url, f"invites/{attacker}") is None


def test_coins_come_from_the_shake_callable_at_most_once_per_interval(example):
    url = example
    uid, token = sign_up(url)
    eventually("the wallet", lambda: admin_get(url, f"wallets/{uid}"))
    r = call(url, "shake", {"context": "cafe"}, token)
    assert r.status_code == 200, r.text
    assert r.json() == {"result": {"coins": 1}}
    r = call(url, "shake", {"context": "cafe"}, token)
    assert r.status_code == 429
    assert r.json()["error"] == {
        "status": "RESOURCE_EXHAUSTED", "message": "Shake again in a few seconds", "details": {"retryAfterSeconds": 5}
    }
    assert call(url, "shake", {"context": ""}, token).json()["error"]["status"] == "INVALID_ARGUMENT"
    assert call(url, "shake", {"place": "cafe"}, token).json()["error"]["status"] == "INVALID_ARGUMENT"
    assert admin_get(url, f"wallets/{uid}/coins") == 1


def test_a_reservation_opens_a_chat_between_guest_and_host(example):
    url = example
    r = requests.put(
        f"{url}/reservations/r77.json", json={"listingId": "l1", "guestId": "g7", "hostId": "h7"}, headers=OWNER_HEADERS, timeout=5
    )
    assert r.status_code == 200
    chat = eventually("the chat", lambda: admin_get(url, "chats/r77"))
    assert chat["members"] == {"g7": "guest", "h7": "host"}
    assert chat["listingId"] == "l1"
    assert isinstance(chat["createdAt"], int)
    assert admin_get(url, "userChats/g7") == {"r77": True}
    assert admin_get(url, "userChats/h7") == {"r77": True}


def test_wishlist_titles_keep_a_top_gifts_count(example):
    url = example
    for owner, title in [("ann", "Lego  Castle"), ("bob", "lego castle"), ("cid", "Kindle")]:
        requests.put(f"{url}/wishlists/{owner}/w1.json", json={"title": title}, headers=OWNER_HEADERS, timeout=5)
    eventually("the ranking", lambda: (admin_get(url, "topGifts/lego-castle") or {}).get("count") == 2)
    # Renaming moves the count; deleting removes it.
    requests.put(f"{url}/wishlists/bob/w1/title.json", json="Kindle", headers=OWNER_HEADERS, timeout=5)
    requests.delete(f"{url}/wishlists/cid/w1.json", headers=OWNER_HEADERS, timeout=5)
    eventually("the moved counts", lambda: admin_get(url, "topGifts/lego-castle/count") == 1 and admin_get(url, "topGifts/kindle/count") == 1)
