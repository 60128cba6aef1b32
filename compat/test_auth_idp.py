"""accounts:signInWithIdp (v3 verifyAssertion), as the Firebase SDKs send it.

On the shared ``--dev`` server a provider's ID token is read unchecked, as Firebase's emulator
reads it, so a test makes its own unsigned token. Outside ``--dev`` only providers given client
IDs are on; the checks that need Apple's or Google's published keys are covered by the Swift tests
(this machine has no route to them), so these process tests stop at what needs no network.
"""

from __future__ import annotations

import base64
import json
import uuid

import pytest
import requests
from firebase_admin import auth

from hearth_process import hearth_process

PROJECT = "demo"
TIMEOUT = 5.0
V1 = "/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key=compat"
V3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyAssertion?key=compat"


def unsigned_token(claims: dict) -> str:
    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()
    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."


def sign_in(base_url: str, post_body: str, path: str = V1, **extra) -> requests.Response:
    body = {"requestUri": "http://localhost", "postBody": post_body, "returnSecureToken": True,
            "returnIdpCredential": True, **extra}
    return requests.post(base_url + path, json=body, timeout=TIMEOUT)


@pytest.fixture
def auth_app(app_factory, ns, base_url, monkeypatch):
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", base_url.split("://", 1)[1])
    return app_factory(ns, projectId=PROJECT, httpTimeout=TIMEOUT)


def test_google_sign_in_makes_a_user_that_admin_finds_by_provider_uid(base_url, auth_app):
    sub = f"g-{uuid.uuid4().hex}"
    email = f"{sub}@gmail.test"
    token = unsigned_token({"sub": sub, "email": email, "email_verified": True, "name": "Gus",
                            "picture": "https://example.com/gus.png"})
    first = sign_in(base_url, f"id_token={token}&providerId=google.com")
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["kind"] == "identitytoolkit#VerifyAssertionResponse"
    assert body["isNewUser"] is True
    assert (body["providerId"], body["federatedId"], body["email"], body["emailVerified"]) == (
        "google.com", f"https://accounts.google.com/{sub}", email, True)
    assert body["displayName"] == "Gus" and body["oauthIdToken"] == token
    assert json.loads(body["rawUserInfo"])["sub"] == sub
    claims = auth.verify_id_token(body["idToken"], app=auth_app)
    assert claims["uid"] == body["localId"]
    assert claims["firebase"]["sign_in_provider"] == "google.com"
    assert claims["firebase"]["identities"]["google.com"] == [sub]

    # The v3 path reaches the same user, and firebase-admin finds them by the provider's uid.
    again = sign_in(base_url, f"id_token={token}&providerId=google.com", path=V3)
    assert again.status_code == 200 and again.json()["localId"] == body["localId"]
    assert again.json()["isNewUser"] is False
    found = auth.get_users([auth.ProviderIdentifier("google.com", sub)], app=auth_app)
    assert [u.uid for u in found.users] == [body["localId"]]
    assert found.users[0].provider_data[0].provider_id == "google.com"


def test_an_anonymous_user_links_apple_and_keeps_the_uid(base_url):
    signup = requests.post(f"{base_url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=compat",
                           json={"returnSecureToken": True}, timeout=TIMEOUT).json()
    sub = f"a-{uuid.uuid4().hex}"
    token = unsigned_token({"sub": sub, "email": f"{sub}@privaterelay.appleid.com", "email_verified": "true"})
    linked = sign_in(base_url, f"id_token={token}&providerId=apple.com", idToken=signup["idToken"])
    assert linked.status_code == 200, linked.text
    assert linked.json()["localId"] == signup["localId"]
    later = sign_in(base_url, f"id_token={token}&providerId=apple.com")
    assert later.json()["localId"] == signup["localId"]


def test_a_refused_link_returns_the_credential_when_asked(base_url):
    """The iOS SDK always sends returnIdpCredential and reads errorMessage from a 200 answer; without the flag the
    refusal is an ordinary error."""
    def anonymous() -> str:
        return requests.post(f"{base_url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=compat",
                             json={"returnSecureToken": True}, timeout=TIMEOUT).json()["idToken"]
    sub = f"a-{uuid.uuid4().hex}"
    token = unsigned_token({"sub": sub})
    assert sign_in(base_url, f"id_token={token}&providerId=apple.com").status_code == 200

    refused = sign_in(base_url, f"id_token={token}&providerId=apple.com", path=V3, idToken=anonymous())
    assert refused.status_code == 200, refused.text
    body = refused.json()
    assert body["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED"
    assert (body["providerId"], body["oauthIdToken"]) == ("apple.com", token)
    assert not {"localId", "idToken", "refreshToken", "expiresIn"} & body.keys()

    plain = requests.post(base_url + V1, json={"requestUri": "http://localhost", "returnSecureToken": True,
                                               "postBody": f"id_token={token}&providerId=apple.com",
                                               "idToken": anonymous()}, timeout=TIMEOUT)
    assert plain.status_code == 400 and plain.json()["error"]["message"] == "FEDERATED_USER_ID_ALREADY_LINKED", plain.text


def test_outside_dev_only_providers_with_client_ids_are_on(tmp_path):
    garbage = "id_token=not-a-jwt&providerId="
    with hearth_process([], tmp_path / "off", tmp_path / "off.log") as (base_url, _, _):
        for provider in ["apple.com", "google.com"]:
            resp = sign_in(base_url, garbage + provider)
            assert resp.status_code == 400 and resp.json()["error"]["message"].startswith("OPERATION_NOT_ALLOWED"), resp.text
    with hearth_process(["--apple-client-ids", "com.example.shake"], tmp_path / "apple", tmp_path / "apple.log",
                        env={"HEARTH_GOOGLE_CLIENT_IDS": "123.apps.googleusercontent.com"}) as (base_url, _, _):
        for provider in ["apple.com", "google.com"]:
            resp = sign_in(base_url, garbage + provider)
            assert resp.status_code == 400 and resp.json()["error"]["message"].startswith("INVALID_IDP_RESPONSE"), resp.text
        other = sign_in(base_url, garbage + "facebook.com")
        assert other.json()["error"]["message"].startswith("OPERATION_NOT_ALLOWED"), other.text
