"""The functions example (Examples/Functions) end to end over plain HTTP: the rewards app's invite
flow across short links and callables, a phone upgrade and the tier it earns; coins minted only by the
server, each with its ledger entry; a stay's reservation holding its nights and opening a conversation,
two guests racing for one night, and an exact rating summary; an exact top-gifts count.
"""

from __future__ import annotations

import json
import time

import pytest
import requests

from hearth_helpers import OWNER_HEADERS, eventually
from hearth_process import hearth_process

EXAMPLE = "hearth-functions-example"
JSON = {"Content-Type": "application/json"}
LINK_DOMAIN = "https://go.rewards.test"
V1 = "identitytoolkit.googleapis.com/v1"


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("functions-example")
    args = ["--dev", "--link-domains", LINK_DOMAIN]
    with hearth_process(args, tmp / "data", tmp / "server.log", probe="/.json", probe_headers=OWNER_HEADERS, binary=EXAMPLE) as (url, _, _):
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


def link_phone(url: str, token: str) -> str:
    """Links a new phone number to the account of ``token`` with the code --dev keeps; returns the new ID token."""
    phone = "+1555" + str(time.time_ns())[-7:]
    r = requests.post(f"{url}/{V1}/accounts:sendVerificationCode?key=k", json={"phoneNumber": phone}, timeout=5)
    assert r.status_code == 200, r.text
    session = r.json()["sessionInfo"]
    codes = requests.get(f"{url}/emulator/v1/projects/demo/verificationCodes", timeout=5).json()["verificationCodes"]
    code = next(c["code"] for c in codes if c["sessionInfo"] == session)
    r = requests.post(f"{url}/{V1}/accounts:signInWithPhoneNumber?key=k", json={"sessionInfo": session, "code": code, "idToken": token}, timeout=5)
    assert r.status_code == 200, r.text
    return r.json()["idToken"]


def ledger_sum(url: str, uid: str) -> int:
    return sum(e["amount"] for e in (admin_get(url, f"ledger/{uid}") or {}).values())


def test_an_invite_link_rewards_both_sides_once(example):
    url = example
    inviter, inviter_token = sign_up(url)
    eventually("the inviter's wallet", lambda: admin_get(url, f"wallets/{inviter}"))
    # The inviter's short link carries their uid, and is the same link every time.
    r = call(url, "createInvite", {}, inviter_token)
    assert r.status_code == 200, r.text
    link = r.json()["result"]["shortLink"]
    assert link.startswith(LINK_DOMAIN + "/")
    assert call(url, "createInvite", {}, inviter_token).json()["result"]["shortLink"] == link

    # The invitee installs the app, starts a trial, and the app resolves the link it was opened with.
    invitee, invitee_token = sign_up(url)
    r = requests.post(f"{url}/v1/reopenAttribution?key=k", json={"requestedLink": link, "bundle_id": "com.example.rewards"}, timeout=5)
    assert r.status_code == 200, r.text
    assert r.json()["deepLink"] == f"https://rewards.example.com/invite?inviter={inviter}"
    assert r.json()["invitationId"] == inviter
    # A trial account costs nothing to make: an invite pays once the invitee verified a phone number.
    r = call(url, "redeemInvite", {"inviter": inviter}, invitee_token)
    assert r.status_code == 403, r.text
    assert r.json()["error"]["details"] == {"reason": "tierTooLow", "minTier": "signed"}
    invitee_token = link_phone(url, invitee_token)
    r = requests.put(f"{url}/profiles/{invitee}.json", json={"gender": "female"}, headers=OWNER_HEADERS, timeout=5)
    assert r.status_code == 200
    r = call(url, "redeemInvite", {"inviter": inviter}, invitee_token)
    assert r.status_code == 200, r.text
    assert r.json() == {"result": {"awarded": 50, "balance": 50}}
    assert admin_get(url, f"tiers/{invitee}")["tier"] == "signed"
    assert admin_get(url, f"invites/{invitee}")["inviter"] == inviter

    # Once per invitee, whatever link; never to oneself; never to a signed-out caller; never to an account older
    # than the invite link (the inviter's own friend from before).
    r = call(url, "redeemInvite", {"inviter": inviter}, invitee_token)
    assert r.status_code == 400 and r.json()["error"]["details"]["reason"] == "alreadyRedeemed", r.text
    assert call(url, "redeemInvite", {"inviter": invitee}, invitee_token).json()["error"]["status"] == "INVALID_ARGUMENT"
    assert call(url, "redeemInvite", {"inviter": inviter}).status_code == 401
    other, other_token = sign_up(url)
    call(url, "createInvite", {}, other_token)
    r = call(url, "redeemInvite", {"inviter": other}, invitee_token)
    assert r.status_code == 400 and r.json()["error"]["details"]["reason"] == "notNew", r.text
    for uid in (inviter, invitee):
        assert admin_get(url, f"wallets/{uid}/coins") == 50
        assert ledger_sum(url, uid) == 50


def test_an_invite_names_exactly_one_user(example):
    # The inviter becomes a path segment: "victim/coins" once overwrote the victim's balance with {"coins": 50},
    # and "me/" redeemed an invite from oneself.
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
    assert admin_get(url, f"wallets/{victim}") == before
    assert admin_get(url, f"invites/{attacker}") is None


def put_campaign(url: str, campaign_id: str, **fields) -> requests.Response:
    now = int(time.time() * 1000)
    body = {
        "context": "tv", "title": "Cola ad", "coins": 5, "cooldownSeconds": 60, "dailyLimitPerUser": 3, "budget": 1000,
        "startsAt": now - 60_000, "endsAt": now + 3_600_000, "minTier": "trial", "proof": {"watermarks": ["wm-cola"]},
    }
    body.update(fields)
    return requests.put(f"{url}/rewards-admin/campaigns/{campaign_id}", json=body, headers=OWNER_HEADERS, timeout=5)


def test_coins_come_from_the_shake_callable_once_per_cooldown(example):
    url = example
    assert put_campaign(url, "cola").status_code == 200
    # The proof never reaches the readable campaign.
    assert "proof" not in admin_get(url, "campaigns/cola")
    assert admin_get(url, "campaignProofs/cola") == {"watermarks": ["wm-cola"]}
    assert admin_get(url, "campaignStats/cola") == {"spent": 0, "awards": 0}
    uid, token = sign_up(url)
    r = call(url, "shake", {"campaignId": "cola", "proof": {"watermark": "wm-cola"}}, token)
    assert r.status_code == 200, r.text
    assert r.json() == {"result": {"awarded": 5, "balance": 5}}
    r = call(url, "shake", {"campaignId": "cola", "proof": {"watermark": "wm-cola"}}, token)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["status"] == "FAILED_PRECONDITION" and error["details"]["reason"] == "cooldown"
    assert 55 <= error["details"]["retryAfterSeconds"] <= 60
    assert call(url, "shake", {"campaignId": "cola", "proof": {"watermark": "wm-pepsi"}}, token).json()["error"]["status"] == "INVALID_ARGUMENT"
    assert call(url, "shake", {"campaignId": "cola", "proof": {}}, token).json()["error"]["status"] == "INVALID_ARGUMENT"
    assert call(url, "shake", {"campaignId": "nope", "proof": {"watermark": "wm-cola"}}, token).json()["error"]["status"] == "NOT_FOUND"
    assert call(url, "shake", {"campaignId": "a/b", "proof": {"watermark": "wm-cola"}}, token).json()["error"]["status"] == "INVALID_ARGUMENT"
    assert call(url, "shake", {"campaignId": "cola", "proof": {"watermark": "wm-cola"}}).status_code == 401
    assert admin_get(url, f"wallets/{uid}/coins") == 5
    assert ledger_sum(url, uid) == 5
    assert admin_get(url, "campaignStats/cola") == {"spent": 5, "awards": 1}
    # A bad campaign document is refused whole, with what is wrong.
    r = put_campaign(url, "bad", context="radio")
    assert r.status_code == 400 and "context" in r.text
    r = put_campaign(url, "bad", context="scan", proof={"products": ["4006381333932"]})
    assert r.status_code == 400 and "EAN-13" in r.text
    assert admin_get(url, "campaigns/bad") is None
    r = requests.put(f"{url}/rewards-admin/campaigns/cola", json={}, headers={"Authorization": f"Bearer {token}"}, timeout=5)
    assert r.status_code == 403


def test_redeeming_moves_stock_and_coins_together(example):
    url = example
    assert requests.put(f"{url}/catalog/mug.json", json={"title": "Mug", "price": 30, "stock": 1}, headers=OWNER_HEADERS, timeout=5).ok
    rich, rich_token = sign_up(url)
    poor, poor_token = sign_up(url)
    eventually("the wallets", lambda: admin_get(url, f"wallets/{rich}") and admin_get(url, f"wallets/{poor}"))
    r = requests.post(f"{url}/rewards-admin/adjust", json={"uid": rich, "amount": 40, "reason": "welcome bonus"}, headers=OWNER_HEADERS, timeout=5)
    assert r.status_code == 200, r.text
    r = call(url, "redeem", {"itemId": "mug"}, poor_token)
    assert r.status_code == 400 and r.json()["error"]["details"]["reason"] == "insufficientCoins", r.text
    r = call(url, "redeem", {"itemId": "mug"}, rich_token)
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert result["balance"] == 10
    assert admin_get(url, f"redemptions/{rich}/{result['redemptionId']}")["itemId"] == "mug"
    r = call(url, "redeem", {"itemId": "mug"}, rich_token)
    assert r.status_code == 400 and r.json()["error"]["details"]["reason"] == "outOfStock", r.text
    assert admin_get(url, "catalog/mug/stock") == 0
    assert call(url, "redeem", {"itemId": "nothing"}, rich_token).json()["error"]["status"] == "NOT_FOUND"
    assert admin_get(url, f"wallets/{rich}/coins") == 10 == ledger_sum(url, rich)
    assert admin_get(url, f"wallets/{poor}/coins") == 0 == ledger_sum(url, poor)
    r = requests.post(f"{url}/rewards-admin/adjust", json={"uid": poor, "amount": -1, "reason": "oops"}, headers=OWNER_HEADERS, timeout=5)
    assert r.status_code == 409, r.text


def days_from_today(n: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(time.time() + n * 86400))


def test_a_reservation_holds_its_nights_and_opens_a_conversation(example):
    url = example
    host, host_token = sign_up(url)
    guest, guest_token = sign_up(url)
    couch = {"hostId": host, "title": "Sunny couch", "address": "Alexanderplatz 1, Berlin", "city": "Berlin",
             "location": {"lat": 52.5219, "lng": 13.4132}, "capacity": 2, "createdAt": {".sv": "timestamp"}}
    assert requests.put(f"{url}/couches/sunny.json", json=couch, headers=OWNER_HEADERS, timeout=5).ok
    location = eventually("the couch's GeoFire entry", lambda: admin_get(url, "couchLocations/sunny"))
    assert location["l"] == [52.5219, 13.4132] and location["g"].startswith("u33d")
    exported = requests.get(f"{url}/couchLocations/sunny.json?format=export", headers=OWNER_HEADERS, timeout=5).json()
    assert exported[".priority"] == location["g"]  # as GeoFire clients write it

    stay = {"couchId": "sunny", "from": days_from_today(10), "to": days_from_today(12), "guests": 2}
    r = call(url, "reserve", stay, guest_token)
    assert r.status_code == 200, r.text
    reservation_id = r.json()["result"]["reservationId"]
    assert r.json()["result"]["conversationId"] == reservation_id
    reservation = admin_get(url, f"reservations/{reservation_id}")
    assert reservation["guestId"] == guest and reservation["hostId"] == host and reservation["status"] == "confirmed"
    assert admin_get(url, "reservedNights/sunny") == {days_from_today(10): reservation_id, days_from_today(11): reservation_id}
    conversation = admin_get(url, f"conversations/{reservation_id}")
    assert conversation["members"] == {guest: True, host: True}
    assert conversation["lastMessage"]["from"] == guest and "2 guests" in conversation["lastMessage"]["text"]
    assert list(admin_get(url, f"messages/{reservation_id}").values())[0]["text"] == conversation["lastMessage"]["text"]
    for uid in (guest, host):
        assert admin_get(url, f"userConversations/{uid}") == {reservation_id: True}

    def refused(body, token=guest_token):
        r = call(url, "reserve", dict(stay, **body), token)
        assert r.status_code == 400, r.text
        return r.json()["error"]["details"]["reason"]

    assert refused({"from": days_from_today(11), "to": days_from_today(13)}) == "overlap"
    assert refused({"guests": 3}) == "capacity"
    assert refused({"from": days_from_today(-2), "to": days_from_today(1)}) == "past"
    assert refused({"from": days_from_today(20), "to": days_from_today(51)}) == "tooLong"
    assert refused({}, host_token) == "ownCouch"
    assert call(url, "reserve", dict(stay, to=stay["from"]), guest_token).json()["error"]["status"] == "INVALID_ARGUMENT"
    assert call(url, "reserve", dict(stay, couchId="nope"), guest_token).json()["error"]["status"] == "NOT_FOUND"

    # Cancelling frees the nights for the next guest.
    r = call(url, "cancelReservation", {"reservationId": reservation_id}, host_token)
    assert r.json() == {"result": {"cancelled": True}}
    assert admin_get(url, "reservedNights/sunny") is None
    assert call(url, "reserve", dict(stay, guests=1), guest_token).status_code == 200


def test_two_guests_racing_for_a_night_one_wins(example):
    import concurrent.futures
    url = example
    host, _ = sign_up(url)
    couch = {"hostId": host, "title": "Race couch", "address": "Rue 1, Lyon", "city": "Lyon",
             "location": {"lat": 45.76, "lng": 4.83}, "capacity": 1, "createdAt": {".sv": "timestamp"}}
    assert requests.put(f"{url}/couches/race.json", json=couch, headers=OWNER_HEADERS, timeout=5).ok
    guests = [sign_up(url)[1] for _ in range(8)]
    stay = {"couchId": "race", "from": days_from_today(30), "to": days_from_today(31), "guests": 1}
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        statuses = sorted(pool.map(lambda token: call(url, "reserve", stay, token).status_code, guests))
    assert statuses == [200] + [400] * 7
    assert len(admin_get(url, "reservedNights/race")) == 1


def test_ratings_keep_an_exact_summary(example):
    url = example
    for i, stars in enumerate([5, 4, 4, 1]):
        r = requests.put(f"{url}/ratings/rated/u{i}.json", json={"stars": stars, "at": 1, "reservationId": f"x{i}"}, headers=OWNER_HEADERS, timeout=5)
        assert r.ok
    summary = eventually("the summary", lambda: (admin_get(url, "ratingSummaries/rated") or {}).get("count") == 4 and admin_get(url, "ratingSummaries/rated"))
    assert summary["average"] == 3.5
    distribution = summary["distribution"]
    counts = {str(k): v for k, v in (enumerate(distribution) if isinstance(distribution, list) else distribution.items()) if v}
    assert counts == {"1": 1, "4": 2, "5": 1}


def test_wish_names_keep_an_exact_top_gifts_count(example):
    url = example
    wish = lambda name, **kw: dict({"name": name, "createdAt": 1, "received": False}, **kw)
    for owner, name in [("ann", "Lego  Castle"), ("bob", "lego castle"), ("cid", "Kindle"), ("dan", "Légo Castle")]:
        assert requests.put(f"{url}/wishes/{owner}/w1.json", json=wish(name), headers=OWNER_HEADERS, timeout=5).ok
    eventually("the ranking", lambda: (admin_get(url, "topGifts/lego castle") or {}).get("count") == 3)
    # Renaming moves the count, deleting takes it away, and a name at zero disappears.
    requests.put(f"{url}/wishes/bob/w1/name.json", json="Kindle", headers=OWNER_HEADERS, timeout=5)
    requests.delete(f"{url}/wishes/cid/w1.json", headers=OWNER_HEADERS, timeout=5)
    eventually("the moved counts", lambda: admin_get(url, "topGifts/lego castle/count") == 2 and admin_get(url, "topGifts/kindle/count") == 1)
    requests.delete(f"{url}/wishes/ann/w1.json", headers=OWNER_HEADERS, timeout=5)
    requests.delete(f"{url}/wishes/dan/w1.json", headers=OWNER_HEADERS, timeout=5)
    eventually("a name at zero gone", lambda: admin_get(url, "topGifts/lego castle") is None)


def test_a_profile_earns_its_tier_and_a_future_birth_date_is_taken_out(example):
    url = example
    uid, token = sign_up(url)
    eventually("the trial tier", lambda: (admin_get(url, f"tiers/{uid}") or {}).get("tier") == "trial")
    token = link_phone(url, token)
    profile = {"gender": "male", "firstName": "Bo", "lastName": "Diddley", "birthDate": "2999-01-01"}
    assert requests.put(f"{url}/profiles/{uid}.json", json=profile, headers=OWNER_HEADERS, timeout=5).ok
    eventually("the future birth date removed", lambda: "birthDate" not in admin_get(url, f"profiles/{uid}"))
    eventually("the signed tier", lambda: admin_get(url, f"tiers/{uid}")["tier"] == "signed")
    assert requests.put(f"{url}/profiles/{uid}/birthDate.json", json="1941-12-30", headers=OWNER_HEADERS, timeout=5).ok
    eventually("the pro tier", lambda: admin_get(url, f"tiers/{uid}")["tier"] == "pro")
    # The claim follows: a refreshed ID token carries tier "pro" for the rules (auth.token.tier).
    r = call(url, "refreshTier", {}, token)
    assert r.json() == {"result": {"tier": "pro"}}
    r = requests.post(f"{url}/{V1}/accounts:lookup?key=k", json={"idToken": token}, timeout=5)
    assert json.loads(r.json()["users"][0]["customAttributes"]) == {"tier": "pro"}


def test_a_linked_google_account_makes_a_trial_user_pro(example):
    url = example
    uid, token = sign_up(url)
    assert call(url, "refreshTier", {}, token).json() == {"result": {"tier": "trial"}}
    # What linking Sign in with Google leaves on the account (here linked by the admin API, as a real Google token
    # cannot be made in a test).
    r = requests.post(f"{url}/{V1}/projects/demo/accounts:update", headers=OWNER_HEADERS, timeout=5,
                      json={"localId": uid, "linkProviderUserInfo": {"providerId": "google.com", "rawId": f"g-{uid}"}})
    assert r.status_code == 200, r.text
    assert call(url, "refreshTier", {}, token).json() == {"result": {"tier": "pro"}}
    assert admin_get(url, f"tiers/{uid}")["tier"] == "pro"
