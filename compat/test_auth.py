"""Firebase Auth: Identity Toolkit v1 + Secure Token (spec auth-storage-links.md §0, §A.1-A.7, §E).

The server under test serves Auth on the database's port:

* client endpoints ``/identitytoolkit.googleapis.com/v1/accounts:<op>?key=<any>`` (signUp,
  signInWithPassword, lookup, update, delete) and their legacy v3 aliases under
  ``/www.googleapis.com/identitytoolkit/v3/relyingparty/``;
* ``/securetoken.googleapis.com/v1/token`` (refresh; form or JSON body, snake_case response);
* admin endpoints ``/identitytoolkit.googleapis.com/v1/projects/demo/accounts[:op]`` with
  ``Authorization: Bearer owner`` (what firebase-admin sends in emulator mode);
* the ID-token public keys at ``/.well-known/jwks.json``.

ID tokens are RS256 JWTs signed by the server. The Realtime Database on the same server accepts
them in ``?auth=`` / ``Authorization: Bearer`` and exposes their claims to security rules.

Business errors are HTTP 400 with the Google envelope
``{"error":{"code":400,"message":"CODE[ : detail]","errors":[{"message","domain":"global",
"reason":"invalid"}]}}`` and no ``status`` key.

The server is shared by the whole session, so every test uses fresh emails / uids (uuid4).
Password hashing is deliberately slow (scrypt); tests keep password operations few, and users
that need no password are created through the admin API without one.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import time
import uuid
from typing import Any

import pytest
import requests
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicNumbers
from firebase_admin import auth

from hearth_helpers import OWNER_HEADERS, db_url, put_rules, run_threads

PROJECT = "demo"
TIMEOUT = 5.0
API_KEY = "hearth-compat-key"
ISSUER = f"https://securetoken.google.com/{PROJECT}"
MISSING_KEY_MESSAGE = "The request is missing a valid API key."
WEAK_PASSWORD = "WEAK_PASSWORD : Password should be at least 6 characters"
PASSWORD = "secret-pw-1"
ALNUM28 = re.compile(r"^[A-Za-z0-9]{28}$")


# ------------------------------------------------------------------------------------------
# Helpers


def unique(prefix: str = "u") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def new_email(prefix: str = "user") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}@example.com"


def new_phone() -> str:
    return "+1555" + str(uuid.uuid4().int)[:7]


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url_encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode_jwt(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(header, payload)`` of a compact JWT (no verification)."""
    parts = token.split(".")
    assert len(parts) == 3, f"an ID token must have 3 dot-separated parts: {token!r}"
    return json.loads(b64url_decode(parts[0])), json.loads(b64url_decode(parts[1]))


def claims_of(token: str) -> dict[str, Any]:
    return decode_jwt(token)[1]


class AuthAPI:
    """Raw Identity Toolkit / Secure Token requests against the test server."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.v1 = f"{base_url}/identitytoolkit.googleapis.com/v1"
        self.v3 = f"{base_url}/www.googleapis.com/identitytoolkit/v3/relyingparty"
        self.admin_base = f"{self.v1}/projects/{PROJECT}"
        self.token_url = f"{base_url}/securetoken.googleapis.com/v1/token"

    # -- raw calls ------------------------------------------------------------------------

    def client(self, op: str, body: Any, key: str | None = API_KEY,
               headers: dict[str, str] | None = None) -> requests.Response:
        params = {"key": key} if key is not None else {}
        return requests.post(f"{self.v1}/accounts:{op}", params=params, json=body,
                             headers=headers or {}, timeout=TIMEOUT)

    def legacy(self, name: str, body: Any) -> requests.Response:
        return requests.post(f"{self.v3}/{name}", params={"key": API_KEY}, json=body,
                             timeout=TIMEOUT)

    def admin(self, op: str | None, body: Any, token: str = "owner") -> requests.Response:
        url = f"{self.admin_base}/accounts" + (f":{op}" if op else "")
        return requests.post(url, json=body, headers={"Authorization": f"Bearer {token}"},
                             timeout=TIMEOUT)

    def batch_get(self, token: str = "owner", **params: Any) -> requests.Response:
        return requests.get(f"{self.admin_base}/accounts:batchGet", params=params,
                            headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT)

    def refresh_raw(self, form: dict[str, str] | None = None, json_body: Any = None,
                    key: str | None = API_KEY) -> requests.Response:
        params = {"key": key} if key is not None else {}
        if json_body is not None:
            return requests.post(self.token_url, params=params, json=json_body, timeout=TIMEOUT)
        return requests.post(self.token_url, params=params, data=form or {}, timeout=TIMEOUT)

    # -- checked calls --------------------------------------------------------------------

    def ok(self, op: str, body: Any) -> dict[str, Any]:
        return ok_json(self.client(op, body))

    def admin_ok(self, op: str | None, body: Any) -> dict[str, Any]:
        return ok_json(self.admin(op, body))

    def sign_up(self, email: str | None = None, password: str | None = PASSWORD,
                **extra: Any) -> dict[str, Any]:
        body: dict[str, Any] = {"returnSecureToken": True, **extra}
        if email is not None:
            body.update(email=email, password=password)
        return self.ok("signUp", body)

    def sign_in(self, email: str, password: str = PASSWORD) -> dict[str, Any]:
        return self.ok("signInWithPassword",
                       {"email": email, "password": password, "returnSecureToken": True})

    def refresh(self, refresh_token: str) -> dict[str, Any]:
        return ok_json(self.refresh_raw(
            form={"grant_type": "refresh_token", "refresh_token": refresh_token}))

    def lookup(self, id_token: str) -> dict[str, Any]:
        body = self.ok("lookup", {"idToken": id_token})
        assert body.get("kind") == "identitytoolkit#GetAccountInfoResponse", body
        assert isinstance(body.get("users"), list) and len(body["users"]) == 1, body
        return body["users"][0]

    def admin_create(self, **fields: Any) -> str:
        body = self.admin_ok(None, fields)
        return body["localId"]

    def admin_lookup(self, **query: Any) -> list[dict[str, Any]]:
        body = self.admin_ok("lookup", query)
        assert body.get("kind") == "identitytoolkit#GetAccountInfoResponse", body
        return body.get("users", [])


def ok_json(resp: requests.Response) -> dict[str, Any]:
    assert resp.status_code == 200, f"expected 200, got {resp.status_code} {resp.text!r}"
    body = resp.json()
    assert isinstance(body, dict), body
    return body


def auth_error(resp: requests.Response, message: str) -> None:
    """HTTP 400 Identity Toolkit business error whose ``error.message`` is exactly ``message``."""
    assert resp.status_code == 400, (
        f"expected 400 {message}, got {resp.status_code} {resp.text!r}")
    body = resp.json()
    err = body.get("error")
    assert isinstance(err, dict), body
    assert err.get("code") == 400, body
    assert err.get("message") == message, f"expected {message!r}, got {err.get('message')!r}"
    assert err.get("errors") == [{"message": message, "domain": "global", "reason": "invalid"}], body
    assert "status" not in err, f"business errors carry no RPC status: {body}"


def platform_error(resp: requests.Response, status: int, rpc_status: str,
                   message: str | None = None) -> dict[str, Any]:
    assert resp.status_code == status, f"expected {status}, got {resp.status_code} {resp.text!r}"
    err = resp.json().get("error")
    assert isinstance(err, dict), resp.text
    assert err.get("code") == status, err
    assert err.get("status") == rpc_status, err
    if message is not None:
        assert err.get("message") == message, err
    assert isinstance(err.get("errors"), list) and err["errors"], err
    return err


def assert_token_trio(body: dict[str, Any]) -> None:
    assert isinstance(body.get("idToken"), str) and body["idToken"].count(".") == 2, body
    assert isinstance(body.get("refreshToken"), str) and body["refreshToken"], body
    assert body.get("expiresIn") == "3600", f"expiresIn must be the string '3600': {body}"


def assert_base_claims(claims: dict[str, Any], uid: str, provider: str) -> None:
    """Spec A.5: iss/aud/sub/user_id/iat/exp/auth_time/firebase.sign_in_provider."""
    now = time.time()
    assert claims["iss"] == ISSUER, claims
    assert claims["aud"] == PROJECT, claims
    assert claims["sub"] == uid and claims["user_id"] == uid, claims
    assert isinstance(claims["iat"], int) and abs(claims["iat"] - now) < 60, claims
    assert claims["exp"] == claims["iat"] + 3600, claims
    assert isinstance(claims["auth_time"], int) and claims["auth_time"] <= claims["iat"], claims
    assert claims["firebase"]["sign_in_provider"] == provider, claims
    assert isinstance(claims["firebase"]["identities"], dict), claims


def tamper(token: str, **changes: Any) -> str:
    """Same header and signature, payload changed: the signature no longer matches."""
    head, _, sig = token.split(".")
    payload = claims_of(token)
    payload.update(changes)
    return f"{head}.{b64url_encode(json.dumps(payload).encode())}.{sig}"


def wait_next_second(since: float) -> None:
    """validSince has 1-second granularity: make sure the current second is after ``since``."""
    remaining = (int(since) + 1.1) - time.time()
    if remaining > 0:
        time.sleep(remaining)


@pytest.fixture(scope="module")
def api(base_url) -> AuthAPI:
    return AuthAPI(base_url)


@pytest.fixture
def auth_app(app_factory, ns, base_url, monkeypatch):
    """A firebase-admin app in Auth emulator mode pointed at the test server (project demo)."""
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", base_url.split("://", 1)[1])
    return app_factory(ns, projectId=PROJECT, httpTimeout=TIMEOUT)


def _db_request(method: str, base_url: str, ns: str, path: str, token: str | None, via: str,
                data: str | None = None) -> requests.Response:
    """A database request carrying an ID token in ``?auth=`` (via="query") or as a Bearer."""
    params: dict[str, Any] = {}
    headers: dict[str, str] = {}
    if token is not None and via == "query":
        params["auth"] = token
    elif token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return requests.request(method, db_url(base_url, path, ns, **params), data=data, headers=headers,
                            timeout=TIMEOUT)


def db_get(base_url: str, ns: str, path: str, token: str | None = None,
           via: str = "query") -> requests.Response:
    return _db_request("GET", base_url, ns, path, token, via)


def db_put(base_url: str, ns: str, path: str, value: Any, token: str | None = None,
           via: str = "query") -> requests.Response:
    return _db_request("PUT", base_url, ns, path, token, via, data=json.dumps(value))


def admin_put(base_url: str, ns: str, path: str, value: Any) -> None:
    resp = requests.put(db_url(base_url, path, ns), data=json.dumps(value), headers=OWNER_HEADERS,
                        timeout=TIMEOUT)
    assert resp.status_code == 200, resp.text


# ------------------------------------------------------------------------------------------
# 1. accounts:signUp (client)


def test_signup_anonymous_issues_tokens_and_claims(api):
    """Scenario 1: ``{"returnSecureToken":true}`` creates an anonymous user: kind, a 28-char
    alphanumeric localId, the token trio with ``expiresIn`` as the string "3600", no email;
    the ID token has provider_id/sign_in_provider "anonymous", iss/aud of project demo,
    sub == user_id == localId, exp = iat + 3600, empty identities and no email claim."""
    body = api.sign_up()
    assert body.get("kind") == "identitytoolkit#SignupNewUserResponse", body
    uid = body["localId"]
    assert ALNUM28.match(uid), f"auto uid must be 28 [A-Za-z0-9]: {uid!r}"
    assert_token_trio(body)
    assert not body.get("email"), body
    claims = claims_of(body["idToken"])
    assert_base_claims(claims, uid, "anonymous")
    assert claims.get("provider_id") == "anonymous", claims
    assert claims["firebase"]["identities"] == {}, claims
    assert "email" not in claims and "email_verified" not in claims, claims
    # A second anonymous sign-up is a different user.
    assert api.sign_up()["localId"] != uid


def test_signup_empty_body_is_anonymous(api):
    """``{}`` (no returnSecureToken) is also an anonymous sign-up and still returns tokens;
    lookup of the new user shows no email and no providers."""
    body = api.ok("signUp", {})
    assert ALNUM28.match(body["localId"]), body
    assert_token_trio(body)
    user = api.lookup(body["idToken"])
    assert user["localId"] == body["localId"]
    assert "email" not in user, user
    assert user.get("providerUserInfo", []) == [], user


def test_id_token_is_rs256_signed_with_published_key(api, base_url):
    """ID tokens are RS256 JWTs whose header ``kid`` names a key of
    ``GET /.well-known/jwks.json`` (``{"keys":[{kty,alg,use,kid,n,e}]}``); the signature
    verifies with that key and fails once the payload is altered."""
    token = api.sign_up()["idToken"]
    header, _ = decode_jwt(token)
    assert header.get("alg") == "RS256", header
    assert header.get("typ") == "JWT", header
    assert isinstance(header.get("kid"), str) and header["kid"], header

    resp = requests.get(f"{base_url}/.well-known/jwks.json", timeout=TIMEOUT)
    assert resp.status_code == 200, resp.text
    assert "json" in resp.headers.get("Content-Type", ""), resp.headers
    keys = resp.json().get("keys")
    assert isinstance(keys, list) and keys, resp.text
    matching = [k for k in keys if k.get("kid") == header["kid"]]
    assert len(matching) == 1, f"kid {header['kid']!r} not in JWKS {keys}"
    jwk = matching[0]
    assert jwk.get("kty") == "RSA" and jwk.get("alg") == "RS256" and jwk.get("use") == "sig", jwk
    public_key = RSAPublicNumbers(
        int.from_bytes(b64url_decode(jwk["e"]), "big"),
        int.from_bytes(b64url_decode(jwk["n"]), "big"),
    ).public_key()

    def verify(tok: str) -> None:
        head, payload, sig = tok.split(".")
        public_key.verify(b64url_decode(sig), f"{head}.{payload}".encode("ascii"),
                          padding.PKCS1v15(), hashes.SHA256())

    verify(token)
    with pytest.raises(InvalidSignature):
        verify(tamper(token, sub="someone-else"))


def test_signup_email_password_claims_and_email_exists(api):
    """Scenario 2: sign-up with a mixed-case email stores it lower-cased; the token has
    email (lower case), email_verified false, identities.email == [email], sign_in_provider
    "password" and no provider_id. Repeating (in any letter case) → 400 EMAIL_EXISTS."""
    email = new_email("Mixed")
    mixed = email.replace("mixed", "MiXeD").replace("example", "Example")
    body = api.sign_up(mixed)
    assert body.get("kind") == "identitytoolkit#SignupNewUserResponse", body
    assert body.get("email") == email.lower(), body
    assert_token_trio(body)
    claims = claims_of(body["idToken"])
    assert_base_claims(claims, body["localId"], "password")
    assert claims["email"] == email.lower(), claims
    assert claims["email_verified"] is False, claims
    assert claims["firebase"]["identities"] == {"email": [email.lower()]}, claims
    assert "provider_id" not in claims, claims

    auth_error(api.client("signUp", {"email": mixed, "password": PASSWORD}), "EMAIL_EXISTS")
    auth_error(api.client("signUp", {"email": email.upper(), "password": PASSWORD}),
               "EMAIL_EXISTS")


def test_signup_validation_errors_in_firebase_order(api):
    """Scenario 3 and spec A.4 check order MISSING_EMAIL, MISSING_PASSWORD, INVALID_EMAIL,
    EMAIL_EXISTS, WEAK_PASSWORD: a 5-char password → ``WEAK_PASSWORD : Password should be at
    least 6 characters``; ``nope`` → INVALID_EMAIL; email only → MISSING_PASSWORD; password
    only or empty email → MISSING_EMAIL; empty email and password → INVALID_EMAIL (not an
    anonymous sign-up); an invalid email beats a weak password. None of them creates a user."""
    email = new_email()
    auth_error(api.client("signUp", {"email": email, "password": "12345"}), WEAK_PASSWORD)
    auth_error(api.client("signUp", {"email": "nope", "password": PASSWORD}), "INVALID_EMAIL")
    auth_error(api.client("signUp", {"email": "nope", "password": "123"}), "INVALID_EMAIL")
    auth_error(api.client("signUp", {"email": email}), "MISSING_PASSWORD")
    auth_error(api.client("signUp", {"password": PASSWORD}), "MISSING_EMAIL")
    auth_error(api.client("signUp", {"email": "", "password": "x"}), "MISSING_EMAIL")
    auth_error(api.client("signUp", {"email": "", "password": ""}), "INVALID_EMAIL")
    # Nothing was created for the email that only failed validation.
    auth_error(api.client("signInWithPassword", {"email": email, "password": PASSWORD}),
               "EMAIL_NOT_FOUND")


def test_signup_existing_email_wins_over_weak_password(api):
    """Spec A.4 order: EMAIL_EXISTS is checked before WEAK_PASSWORD, so signing up again with
    a taken email and a 5-char password answers EMAIL_EXISTS (the Auth emulator's order)."""
    email = new_email()
    api.admin_create(email=email)
    auth_error(api.client("signUp", {"email": email, "password": "12345"}), "EMAIL_EXISTS")


def test_concurrent_signups_with_one_email_create_one_user(api):
    """Emails are unique even under concurrency: 4 simultaneous sign-ups with the same email
    give exactly one 200 and three 400 EMAIL_EXISTS, and the email then belongs to the one
    created uid."""
    email = new_email()

    def attempt(_: int) -> requests.Response:
        return api.client("signUp", {"email": email, "password": PASSWORD,
                                     "returnSecureToken": True})

    responses = run_threads(attempt, 4, timeout=30.0)
    winners = [r for r in responses if r.status_code == 200]
    assert len(winners) == 1, [(r.status_code, r.text[:120]) for r in responses]
    for resp in responses:
        if resp.status_code != 200:
            auth_error(resp, "EMAIL_EXISTS")
    users = api.admin_lookup(email=[email])
    assert [u["localId"] for u in users] == [winners[0].json()["localId"]], users


def test_signup_rejects_local_id_without_privilege(api):
    """A ``localId`` in an unprivileged sign-up body → ``UNEXPECTED_PARAMETER : User ID``
    (only admin requests may choose the uid), for anonymous and email sign-ups alike."""
    auth_error(api.client("signUp", {"localId": unique("uid")}), "UNEXPECTED_PARAMETER : User ID")
    auth_error(api.client("signUp", {"localId": unique("uid"), "email": new_email(),
                                     "password": PASSWORD}),
               "UNEXPECTED_PARAMETER : User ID")


def test_missing_api_key_is_403(api):
    """Client endpoints need an API key (``?key=`` or ``X-Goog-Api-Key``); without one →
    403 with message "The request is missing a valid API key." and status PERMISSION_DENIED.
    Any non-empty key is accepted, in the query or in the header."""
    for op, body in [("signUp", {}), ("signInWithPassword",
                                      {"email": new_email(), "password": PASSWORD}),
                     ("lookup", {"idToken": "x"}), ("update", {"idToken": "x"}),
                     ("delete", {"idToken": "x"})]:
        platform_error(api.client(op, body, key=None), 403, "PERMISSION_DENIED",
                       MISSING_KEY_MESSAGE)
    platform_error(api.refresh_raw(form={"grant_type": "refresh_token", "refresh_token": "x"},
                                   key=None), 403, "PERMISSION_DENIED", MISSING_KEY_MESSAGE)
    body = ok_json(api.client("signUp", {}, key=None, headers={"X-Goog-Api-Key": "anything"}))
    assert_token_trio(body)
    assert_token_trio(ok_json(api.client("signUp", {}, key="another-key")))


# ------------------------------------------------------------------------------------------
# 2. accounts:signInWithPassword


def test_sign_in_with_password_success_and_errors(api):
    """Scenario 4: correct credentials (email in any case) → kind VerifyPasswordResponse,
    registered true, the sign-up's localId, lower-case email, displayName, tokens with
    sign_in_provider "password"; lastLoginAt advances. Wrong password → INVALID_PASSWORD,
    unknown email → EMAIL_NOT_FOUND, email absent → MISSING_EMAIL, password absent →
    MISSING_PASSWORD, malformed email → INVALID_EMAIL."""
    email = new_email()
    created = api.sign_up(email, displayName="Ann")
    uid = created["localId"]
    before = int(api.lookup(created["idToken"])["lastLoginAt"])
    time.sleep(0.01)

    body = api.sign_in(email.upper())
    assert body.get("kind") == "identitytoolkit#VerifyPasswordResponse", body
    assert body.get("registered") is True, body
    assert body["localId"] == uid
    assert body["email"] == email
    assert body.get("displayName") == "Ann", body
    assert_token_trio(body)
    claims = claims_of(body["idToken"])
    assert_base_claims(claims, uid, "password")
    assert claims["email"] == email and claims["name"] == "Ann", claims
    user = api.lookup(body["idToken"])
    assert int(user["lastLoginAt"]) > before, (before, user)
    assert claims["auth_time"] == int(user["lastLoginAt"]) // 1000, (claims, user)

    auth_error(api.client("signInWithPassword", {"email": email, "password": "wrong-pass"}),
               "INVALID_PASSWORD")
    auth_error(api.client("signInWithPassword", {"email": new_email(), "password": PASSWORD}),
               "EMAIL_NOT_FOUND")
    auth_error(api.client("signInWithPassword", {"password": PASSWORD}), "MISSING_EMAIL")
    auth_error(api.client("signInWithPassword", {"email": email}), "MISSING_PASSWORD")
    auth_error(api.client("signInWithPassword", {"email": "nope", "password": PASSWORD}),
               "INVALID_EMAIL")


def test_sign_in_to_account_without_password_is_invalid_password(api):
    """An account that has an email but no password (admin-created) cannot sign in with a
    password: INVALID_PASSWORD (not EMAIL_NOT_FOUND)."""
    email = new_email()
    api.admin_create(email=email)
    auth_error(api.client("signInWithPassword", {"email": email, "password": PASSWORD}),
               "INVALID_PASSWORD")


def test_too_many_failed_sign_ins_lock_the_email(api):
    """After 10 failed password attempts for one email within 5 minutes, further attempts —
    even with the right password — answer TOO_MANY_ATTEMPTS_TRY_LATER; other emails are not
    affected."""
    email = new_email()
    api.admin_create(email=email, password=PASSWORD)
    for i in range(10):
        auth_error(api.client("signInWithPassword", {"email": email, "password": f"bad-pw-{i}"}),
                   "INVALID_PASSWORD")
    auth_error(api.client("signInWithPassword", {"email": email, "password": "bad-pw-x"}),
               "TOO_MANY_ATTEMPTS_TRY_LATER")
    auth_error(api.client("signInWithPassword", {"email": email, "password": PASSWORD}),
               "TOO_MANY_ATTEMPTS_TRY_LATER")
    auth_error(api.client("signInWithPassword", {"email": new_email(), "password": PASSWORD}),
               "EMAIL_NOT_FOUND")


# ------------------------------------------------------------------------------------------
# 3. Secure Token refresh


def test_refresh_token_form_and_json(api):
    """Scenario 5: form ``grant_type=refresh_token&refresh_token=R`` → 200 snake_case
    ``{access_token, expires_in:"3600", token_type:"Bearer", refresh_token, id_token, user_id,
    project_id}`` with access_token == id_token, a fresh ID token for the same uid keeping
    sign_in_provider "password"; JSON ``{grantType, refreshToken}`` works too; the returned
    refresh token can be used again."""
    email = new_email()
    created = api.sign_up(email)
    uid = created["localId"]
    body = api.refresh(created["refreshToken"])
    for key in ("access_token", "expires_in", "token_type", "refresh_token", "id_token",
                "user_id", "project_id"):
        assert key in body, f"{key} missing from {body}"
    assert body["expires_in"] == "3600", body
    assert body["token_type"] == "Bearer", body
    assert body["user_id"] == uid, body
    assert isinstance(body["project_id"], str) and body["project_id"], body
    assert body["access_token"] == body["id_token"], body
    assert isinstance(body["refresh_token"], str) and body["refresh_token"], body
    claims = claims_of(body["id_token"])
    assert_base_claims(claims, uid, "password")
    assert claims["email"] == email, claims
    assert api.lookup(body["id_token"])["localId"] == uid

    body2 = ok_json(api.refresh_raw(json_body={"grantType": "refresh_token",
                                               "refreshToken": body["refresh_token"]}))
    assert body2["user_id"] == uid, body2
    assert claims_of(body2["id_token"])["sub"] == uid


def test_refresh_token_errors(api):
    """Scenario 5 errors: garbage token → INVALID_REFRESH_TOKEN; ``grant_type=password`` →
    INVALID_GRANT_TYPE; no grant_type → MISSING_GRANT_TYPE; no refresh_token →
    MISSING_REFRESH_TOKEN (form and JSON bodies alike)."""
    auth_error(api.refresh_raw(form={"grant_type": "refresh_token",
                                     "refresh_token": "not-a-refresh-token"}),
               "INVALID_REFRESH_TOKEN")
    auth_error(api.refresh_raw(json_body={"grantType": "refresh_token",
                                          "refreshToken": "garbage"}),
               "INVALID_REFRESH_TOKEN")
    auth_error(api.refresh_raw(form={"grant_type": "password", "refresh_token": "x"}),
               "INVALID_GRANT_TYPE")
    auth_error(api.refresh_raw(form={"refresh_token": "x"}), "MISSING_GRANT_TYPE")
    auth_error(api.refresh_raw(form={"grant_type": "refresh_token"}), "MISSING_REFRESH_TOKEN")
    auth_error(api.refresh_raw(json_body={"grantType": "refresh_token"}), "MISSING_REFRESH_TOKEN")


def test_refresh_keeps_anonymous_provider(api):
    """A refreshed token of an anonymous session keeps sign_in_provider and provider_id
    "anonymous" and the same uid."""
    created = api.sign_up()
    body = api.refresh(created["refreshToken"])
    claims = claims_of(body["id_token"])
    assert_base_claims(claims, created["localId"], "anonymous")
    assert claims.get("provider_id") == "anonymous", claims


# ------------------------------------------------------------------------------------------
# 4. Linking an anonymous user to email/password


def test_link_anonymous_with_update_keeps_uid(api):
    """Scenario 6 (iOS/Android/REST form): ``accounts:update {idToken, email, password,
    returnSecureToken}`` on an anonymous user keeps its localId, returns new tokens with
    sign_in_provider "password" and the email; lookup then shows a ``password`` provider and
    the email/password sign-in reaches the same uid."""
    anon = api.sign_up()
    uid = anon["localId"]
    email = new_email()
    body = api.ok("update", {"idToken": anon["idToken"], "email": email, "password": PASSWORD,
                             "returnSecureToken": True})
    assert body.get("kind") == "identitytoolkit#SetAccountInfoResponse", body
    assert body["localId"] == uid, body
    assert body.get("email") == email, body
    assert_token_trio(body)
    claims = claims_of(body["idToken"])
    assert_base_claims(claims, uid, "password")
    assert claims["email"] == email and "provider_id" not in claims, claims
    user = api.lookup(body["idToken"])
    assert [p["providerId"] for p in user["providerUserInfo"]] == ["password"], user
    assert user["providerUserInfo"][0]["rawId"] == email, user
    assert api.sign_in(email)["localId"] == uid


def test_link_anonymous_with_signup_keeps_uid(api):
    """Scenario 6 (JS SDK linkWithCredential): ``accounts:signUp {idToken, email, password}``
    keeps the anonymous uid and returns tokens with sign_in_provider "password"; lookup shows
    the email and a ``password`` provider."""
    anon = api.sign_up()
    uid = anon["localId"]
    email = new_email()
    body = api.ok("signUp", {"idToken": anon["idToken"], "email": email, "password": PASSWORD,
                             "returnSecureToken": True})
    assert body["localId"] == uid, body
    assert body.get("email") == email, body
    assert_token_trio(body)
    assert_base_claims(claims_of(body["idToken"]), uid, "password")
    user = api.lookup(body["idToken"])
    assert user["email"] == email and user["emailVerified"] is False, user
    assert [p["providerId"] for p in user["providerUserInfo"]] == ["password"], user
    # The email is now taken.
    auth_error(api.client("signUp", {"email": email, "password": PASSWORD}), "EMAIL_EXISTS")


# ------------------------------------------------------------------------------------------
# 5. accounts:update (client)


def test_update_profile_and_delete_attribute(api):
    """Scenario 7: ``update {idToken, displayName, photoUrl}`` → response and lookup show
    them; a refreshed token has name/picture. ``deleteAttribute:["DISPLAY_NAME"]`` removes the
    display name (lookup and next refreshed token lack it) while photoUrl stays. A profile
    change does not revoke the current ID token."""
    created = api.sign_up(new_email())
    id_token, refresh_token = created["idToken"], created["refreshToken"]
    body = api.ok("update", {"idToken": id_token, "displayName": "Ann",
                             "photoUrl": "http://x/p.png"})
    assert body.get("kind") == "identitytoolkit#SetAccountInfoResponse", body
    assert body["localId"] == created["localId"]
    assert body.get("displayName") == "Ann" and body.get("photoUrl") == "http://x/p.png", body
    user = api.lookup(id_token)
    assert user["displayName"] == "Ann" and user["photoUrl"] == "http://x/p.png", user
    claims = claims_of(api.refresh(refresh_token)["id_token"])
    assert claims.get("name") == "Ann" and claims.get("picture") == "http://x/p.png", claims

    body = api.ok("update", {"idToken": id_token, "deleteAttribute": ["DISPLAY_NAME"]})
    assert "displayName" not in body, body
    user = api.lookup(id_token)
    assert "displayName" not in user and user["photoUrl"] == "http://x/p.png", user
    claims = claims_of(api.refresh(refresh_token)["id_token"])
    assert "name" not in claims and claims.get("picture") == "http://x/p.png", claims

    api.ok("update", {"idToken": id_token, "deleteAttribute": ["PHOTO_URL"]})
    assert "photoUrl" not in api.lookup(id_token)


def test_password_change_revokes_old_tokens(api):
    """Scenario 8: a password change bumps validSince: the response carries new tokens; the
    old ID token (issued in an earlier second) is rejected by lookup with TOKEN_EXPIRED and the
    old refresh token by the token endpoint with TOKEN_EXPIRED; the new tokens work; the old
    password no longer signs in and the new one does."""
    email = new_email()
    created = api.sign_up(email)
    wait_next_second(claims_of(created["idToken"])["iat"])
    body = api.ok("update", {"idToken": created["idToken"], "password": "new-secret-2",
                             "returnSecureToken": True})
    assert body["localId"] == created["localId"]
    assert_token_trio(body)
    assert body["idToken"] != created["idToken"]

    auth_error(api.client("lookup", {"idToken": created["idToken"]}), "TOKEN_EXPIRED")
    auth_error(api.refresh_raw(form={"grant_type": "refresh_token",
                                     "refresh_token": created["refreshToken"]}),
               "TOKEN_EXPIRED")
    assert api.lookup(body["idToken"])["localId"] == created["localId"]
    assert api.refresh(body["refreshToken"])["user_id"] == created["localId"]
    auth_error(api.client("signInWithPassword", {"email": email, "password": PASSWORD}),
               "INVALID_PASSWORD")
    assert api.sign_in(email, "new-secret-2")["localId"] == created["localId"]


def test_email_change_revokes_old_tokens_and_checks_conflicts(api):
    """Changing the email (stored lower-cased, emailVerified reset to false) bumps validSince:
    new tokens in the response carry the new email; the old ID token → TOKEN_EXPIRED. The old
    email no longer exists (EMAIL_NOT_FOUND); the new one signs in. Changing to another user's
    email → EMAIL_EXISTS; a malformed email → INVALID_EMAIL."""
    email = new_email()
    created = api.sign_up(email)
    other = new_email()
    api.admin_create(email=other)
    auth_error(api.client("update", {"idToken": created["idToken"], "email": other}),
               "EMAIL_EXISTS")
    auth_error(api.client("update", {"idToken": created["idToken"], "email": "nope"}),
               "INVALID_EMAIL")

    wait_next_second(claims_of(created["idToken"])["iat"])
    new = new_email("Changed")
    body = api.ok("update", {"idToken": created["idToken"], "email": new.upper(),
                             "returnSecureToken": True})
    assert body.get("email") == new.lower(), body
    assert body.get("emailVerified") is False, body
    assert_token_trio(body)
    claims = claims_of(body["idToken"])
    assert claims["email"] == new.lower() and claims["email_verified"] is False, claims
    auth_error(api.client("lookup", {"idToken": created["idToken"]}), "TOKEN_EXPIRED")
    assert api.lookup(body["idToken"])["email"] == new.lower()
    auth_error(api.client("signInWithPassword", {"email": email, "password": PASSWORD}),
               "EMAIL_NOT_FOUND")
    assert api.sign_in(new)["localId"] == created["localId"]


def test_update_errors(api):
    """Unprivileged update errors: no idToken (nor oobCode) → ``INVALID_REQ_TYPE : Unsupported
    request parameters.``; a bad idToken → INVALID_ID_TOKEN; a 5-char password →
    WEAK_PASSWORD; ``customAttributes`` → INSUFFICIENT_PERMISSION; ``disableUser`` →
    OPERATION_NOT_ALLOWED. None of these changes the user."""
    created = api.sign_up()
    id_token = created["idToken"]
    auth_error(api.client("update", {"displayName": "x"}),
               "INVALID_REQ_TYPE : Unsupported request parameters.")
    auth_error(api.client("update", {"idToken": "not.a.token", "displayName": "x"}),
               "INVALID_ID_TOKEN")
    auth_error(api.client("update", {"idToken": id_token, "password": "12345"}), WEAK_PASSWORD)
    auth_error(api.client("update", {"idToken": id_token, "customAttributes": '{"admin":true}'}),
               "INSUFFICIENT_PERMISSION")
    auth_error(api.client("update", {"idToken": id_token, "disableUser": True}),
               "OPERATION_NOT_ALLOWED")
    user = api.lookup(id_token)
    assert "displayName" not in user and "customAttributes" not in user, user
    assert user["disabled"] is False, user


# ------------------------------------------------------------------------------------------
# 6. accounts:lookup and accounts:delete (client)


def test_lookup_user_info_shape(api):
    """Lookup with an ID token → ``{kind:"identitytoolkit#GetAccountInfoResponse",
    users:[UserInfo]}``: localId, lower-case email, emailVerified false, displayName,
    validSince / createdAt / lastLoginAt as digit strings, passwordUpdatedAt a number,
    ``disabled`` false, a ``password`` provider entry with rawId = email; no plain password."""
    email = new_email()
    created = api.sign_up(email, displayName="Bob")
    user = api.lookup(created["idToken"])
    assert user["localId"] == created["localId"]
    assert user["email"] == email and user["emailVerified"] is False, user
    assert user["displayName"] == "Bob", user
    for key in ("validSince", "createdAt", "lastLoginAt"):
        assert isinstance(user.get(key), str) and user[key].isdigit(), f"{key}: {user}"
    assert abs(int(user["createdAt"]) / 1000 - time.time()) < 60, user
    assert abs(int(user["validSince"]) - time.time()) < 60, user
    assert isinstance(user.get("passwordUpdatedAt"), (int, float)), user
    assert user["disabled"] is False, user
    providers = user["providerUserInfo"]
    assert len(providers) == 1 and providers[0]["providerId"] == "password", user
    assert providers[0]["rawId"] == email and providers[0]["email"] == email, user
    assert PASSWORD not in json.dumps(user), "lookup must never reveal the password"


def test_lookup_rejects_bad_id_tokens(api):
    """Lookup without idToken → MISSING_ID_TOKEN; a non-JWT → INVALID_ID_TOKEN; a real token
    whose payload was altered (signature no longer matches) → INVALID_ID_TOKEN."""
    created = api.sign_up()
    auth_error(api.client("lookup", {}), "MISSING_ID_TOKEN")
    auth_error(api.client("lookup", {"idToken": "garbage"}), "INVALID_ID_TOKEN")
    other = api.sign_up()
    forged = tamper(created["idToken"], sub=other["localId"], user_id=other["localId"])
    auth_error(api.client("lookup", {"idToken": forged}), "INVALID_ID_TOKEN")


def test_delete_account_with_id_token(api):
    """Scenario 12: ``accounts:delete {idToken}`` → kind DeleteAccountResponse; afterwards
    sign-in → EMAIL_NOT_FOUND, lookup with the old token → USER_NOT_FOUND, deleting again →
    USER_NOT_FOUND, refreshing the old refresh token → USER_NOT_FOUND (production: the user
    of the refresh token was deleted); the email can be registered again (new uid)."""
    email = new_email()
    created = api.sign_up(email)
    body = api.ok("delete", {"idToken": created["idToken"]})
    assert body.get("kind") == "identitytoolkit#DeleteAccountResponse", body
    auth_error(api.client("signInWithPassword", {"email": email, "password": PASSWORD}),
               "EMAIL_NOT_FOUND")
    auth_error(api.client("lookup", {"idToken": created["idToken"]}), "USER_NOT_FOUND")
    auth_error(api.client("delete", {"idToken": created["idToken"]}), "USER_NOT_FOUND")
    again = api.sign_up(email)
    assert again["localId"] != created["localId"]
    auth_error(api.refresh_raw(form={"grant_type": "refresh_token",
                                     "refresh_token": created["refreshToken"]}),
               "USER_NOT_FOUND")


def test_v3_legacy_aliases(api):
    """Legacy v3 relyingparty names map to the v1 handlers: signupNewUser (sign-up),
    verifyPassword (sign-in), getAccountInfo (lookup), setAccountInfo (update),
    deleteAccount (delete), with the same kinds and results."""
    email = new_email()
    up = ok_json(api.legacy("signupNewUser", {"email": email, "password": PASSWORD,
                                              "returnSecureToken": True}))
    assert up.get("kind") == "identitytoolkit#SignupNewUserResponse", up
    assert_token_trio(up)
    uid = up["localId"]
    signed = ok_json(api.legacy("verifyPassword", {"email": email, "password": PASSWORD,
                                                   "returnSecureToken": True}))
    assert signed.get("kind") == "identitytoolkit#VerifyPasswordResponse", signed
    assert signed["localId"] == uid and signed["registered"] is True, signed
    info = ok_json(api.legacy("getAccountInfo", {"idToken": signed["idToken"]}))
    assert info.get("kind") == "identitytoolkit#GetAccountInfoResponse", info
    assert [u["localId"] for u in info["users"]] == [uid], info
    upd = ok_json(api.legacy("setAccountInfo", {"idToken": signed["idToken"],
                                                "displayName": "Legacy"}))
    assert upd.get("kind") == "identitytoolkit#SetAccountInfoResponse", upd
    assert upd["localId"] == uid and upd["displayName"] == "Legacy", upd
    assert api.lookup(signed["idToken"])["displayName"] == "Legacy"
    gone = ok_json(api.legacy("deleteAccount", {"idToken": signed["idToken"]}))
    assert gone.get("kind") == "identitytoolkit#DeleteAccountResponse", gone
    auth_error(api.legacy("verifyPassword", {"email": email, "password": PASSWORD}),
               "EMAIL_NOT_FOUND")


# ------------------------------------------------------------------------------------------
# 7. Admin REST endpoints (Bearer owner)


def test_admin_endpoints_reject_other_bearer_tokens(api):
    """Admin endpoints need the admin credential: any other Bearer value → 401
    UNAUTHENTICATED (reason authError) for create, lookup, update, delete and batchGet, and
    nothing is created."""
    uid = unique("nobody")
    err = platform_error(api.admin(None, {"localId": uid}, token="not-owner"), 401,
                         "UNAUTHENTICATED")
    assert err["errors"][0].get("reason") == "authError", err
    platform_error(api.admin("lookup", {"localId": [uid]}, token="not-owner"), 401,
                   "UNAUTHENTICATED")
    platform_error(api.admin("update", {"localId": uid, "disableUser": True}, token="x"), 401,
                   "UNAUTHENTICATED")
    platform_error(api.admin("delete", {"localId": uid}, token="x"), 401, "UNAUTHENTICATED")
    platform_error(api.batch_get(token="x", maxResults=1), 401, "UNAUTHENTICATED")
    assert api.admin_lookup(localId=[uid]) == []


def test_admin_create_lookup_and_conflicts_rest(api):
    """Privileged POST ``accounts`` with localId/email/displayName/photoUrl/phoneNumber/
    emailVerified → ``{kind, localId, email, displayName}`` and NO tokens; lookup by localId,
    email and phoneNumber lists returns each match once (missing ones skipped); a lookup that
    matches nothing has no ``users`` key. Reusing the uid → DUPLICATE_LOCAL_ID, the email →
    EMAIL_EXISTS, the phone → PHONE_NUMBER_EXISTS. Without localId a 28-char uid is made."""
    uid, email, phone = unique("adm"), new_email(), new_phone()
    body = api.admin_ok(None, {"localId": uid, "email": email.upper(), "displayName": "Adm",
                               "photoUrl": "http://x/a.png", "phoneNumber": phone,
                               "emailVerified": True})
    assert body.get("kind") == "identitytoolkit#SignupNewUserResponse", body
    assert body["localId"] == uid and body.get("email") == email, body
    assert "idToken" not in body and "refreshToken" not in body, body

    users = api.admin_lookup(localId=[uid, unique("missing")], email=[email],
                             phoneNumber=[phone])
    assert len(users) == 1, users
    user = users[0]
    assert user["localId"] == uid and user["email"] == email, user
    assert user["emailVerified"] is True and user["displayName"] == "Adm", user
    assert user["photoUrl"] == "http://x/a.png" and user["phoneNumber"] == phone, user
    assert [p["providerId"] for p in user["providerUserInfo"]] == ["phone"], user
    assert user["providerUserInfo"][0]["rawId"] == phone, user

    body = api.admin_ok("lookup", {"localId": [unique("missing")], "email": [new_email()]})
    assert body.get("kind") == "identitytoolkit#GetAccountInfoResponse", body
    assert "users" not in body, f"an empty lookup must omit `users`: {body}"

    auth_error(api.admin(None, {"localId": uid}), "DUPLICATE_LOCAL_ID")
    auth_error(api.admin(None, {"email": email}), "EMAIL_EXISTS")
    auth_error(api.admin(None, {"phoneNumber": phone}), "PHONE_NUMBER_EXISTS")
    auto = api.admin_ok(None, {})
    assert ALNUM28.match(auto["localId"]), auto


def test_admin_update_rest_fields_and_validation(api):
    """Privileged ``accounts:update {localId, ...}``: displayName, emailVerified, phoneNumber,
    customAttributes (string; ``"{}"`` clears), deleteAttribute and deleteProvider:["phone"]
    apply and the response has kind + localId. Errors: no localId → MISSING_LOCAL_ID; unknown
    uid → USER_NOT_FOUND; reserved claim → ``FORBIDDEN_CLAIM : sub``; > 1000 chars →
    CLAIMS_TOO_LARGE; not a JSON object → INVALID_CLAIMS; another user's phone →
    PHONE_NUMBER_EXISTS."""
    uid = api.admin_create(localId=unique("upd"), displayName="Old", photoUrl="http://x/o.png")
    body = api.admin_ok("update", {"localId": uid, "displayName": "New", "emailVerified": True,
                                   "phoneNumber": (phone := new_phone()),
                                   "customAttributes": '{"role":"editor","level":3}'})
    assert body.get("kind") == "identitytoolkit#SetAccountInfoResponse", body
    assert body["localId"] == uid, body
    [user] = api.admin_lookup(localId=[uid])
    assert user["displayName"] == "New" and user["emailVerified"] is True, user
    assert user["phoneNumber"] == phone, user
    assert json.loads(user["customAttributes"]) == {"role": "editor", "level": 3}, user

    api.admin_ok("update", {"localId": uid, "deleteAttribute": ["DISPLAY_NAME", "PHOTO_URL"],
                            "deleteProvider": ["phone"], "customAttributes": "{}"})
    [user] = api.admin_lookup(localId=[uid])
    for gone in ("displayName", "photoUrl", "phoneNumber"):
        assert gone not in user, f"{gone} should be deleted: {user}"
    assert json.loads(user.get("customAttributes", "{}")) == {}, user
    assert user["providerUserInfo"] == [], user

    auth_error(api.admin("update", {"displayName": "x"}), "MISSING_LOCAL_ID")
    auth_error(api.admin("update", {"localId": unique("missing"), "displayName": "x"}),
               "USER_NOT_FOUND")
    auth_error(api.admin("update", {"localId": uid, "customAttributes": '{"sub":"x"}'}),
               "FORBIDDEN_CLAIM : sub")
    auth_error(api.admin("update", {"localId": uid, "customAttributes": '{"firebase":{}}'}),
               "FORBIDDEN_CLAIM : firebase")
    big = json.dumps({"k": "x" * 1000})
    auth_error(api.admin("update", {"localId": uid, "customAttributes": big}), "CLAIMS_TOO_LARGE")
    auth_error(api.admin("update", {"localId": uid, "customAttributes": "not json"}),
               "INVALID_CLAIMS")
    taken = new_phone()
    api.admin_create(phoneNumber=taken)
    auth_error(api.admin("update", {"localId": uid, "phoneNumber": taken}), "PHONE_NUMBER_EXISTS")
    [user] = api.admin_lookup(localId=[uid])
    assert "phoneNumber" not in user and "customAttributes" not in user, user


def test_admin_update_rest_valid_since_revokes_tokens(api):
    """Privileged update with ``validSince`` (seconds, as firebase-admin's revoke sends it)
    revokes tokens issued before it: old ID token → TOKEN_EXPIRED on lookup, old refresh
    token → TOKEN_EXPIRED; lookup reports the new validSince as a string."""
    created = api.sign_up()
    uid = created["localId"]
    wait_next_second(claims_of(created["idToken"])["iat"])
    now = int(time.time())
    api.admin_ok("update", {"localId": uid, "validSince": now})
    [user] = api.admin_lookup(localId=[uid])
    assert user["validSince"] == str(now), user
    auth_error(api.client("lookup", {"idToken": created["idToken"]}), "TOKEN_EXPIRED")
    auth_error(api.refresh_raw(form={"grant_type": "refresh_token",
                                     "refresh_token": created["refreshToken"]}),
               "TOKEN_EXPIRED")


def test_admin_disable_blocks_sign_in_refresh_and_lookup(api):
    """``disableUser:true`` → sign-in (even with a wrong password) → USER_DISABLED, refresh →
    USER_DISABLED, lookup with an existing ID token → USER_DISABLED; ``disableUser:false``
    restores access."""
    email = new_email()
    created = api.sign_up(email)
    uid = created["localId"]
    api.admin_ok("update", {"localId": uid, "disableUser": True})
    [user] = api.admin_lookup(localId=[uid])
    assert user["disabled"] is True, user
    auth_error(api.client("signInWithPassword", {"email": email, "password": PASSWORD}),
               "USER_DISABLED")
    auth_error(api.client("signInWithPassword", {"email": email, "password": "wrong-pass"}),
               "USER_DISABLED")
    auth_error(api.refresh_raw(form={"grant_type": "refresh_token",
                                     "refresh_token": created["refreshToken"]}),
               "USER_DISABLED")
    auth_error(api.client("lookup", {"idToken": created["idToken"]}), "USER_DISABLED")
    api.admin_ok("update", {"localId": uid, "disableUser": False})
    assert api.lookup(created["idToken"])["localId"] == uid
    assert api.refresh(created["refreshToken"])["user_id"] == uid


def test_admin_delete_rest(api):
    """Privileged ``accounts:delete {localId}`` → kind DeleteAccountResponse and the user is
    gone; no localId → MISSING_LOCAL_ID; unknown uid → USER_NOT_FOUND."""
    uid = api.admin_create(localId=unique("del"), email=new_email())
    body = api.admin_ok("delete", {"localId": uid})
    assert body.get("kind") == "identitytoolkit#DeleteAccountResponse", body
    assert api.admin_lookup(localId=[uid]) == []
    auth_error(api.admin("delete", {}), "MISSING_LOCAL_ID")
    auth_error(api.admin("delete", {"localId": uid}), "USER_NOT_FOUND")


def test_admin_batch_get_rest_paging(api):
    """GET ``accounts:batchGet?maxResults=N[&nextPageToken=T]`` → ``{kind:
    "identitytoolkit#DownloadAccountResponse", users, nextPageToken?}``: users sorted by
    localId ascending, at most N per page, following tokens visits every user exactly once
    and the last page has no (or an empty) token. Without maxResults at most 20 come back."""
    prefix = unique("bg")
    uids = [api.admin_create(localId=f"{prefix}-{i}") for i in range(5)]
    seen: list[str] = []
    token = None
    for _ in range(1000):
        params: dict[str, Any] = {"maxResults": 7}
        if token:
            params["nextPageToken"] = token
        body = ok_json(api.batch_get(**params))
        assert body.get("kind") == "identitytoolkit#DownloadAccountResponse", body
        page = [u["localId"] for u in body.get("users", [])]
        assert len(page) <= 7, page
        seen += page
        token = body.get("nextPageToken")
        if not token:
            break
        assert len(page) == 7, f"a non-final page must be full: {body}"
    else:
        pytest.fail("batchGet paging did not end")
    assert seen == sorted(seen), "batchGet must list users sorted by localId"
    assert len(seen) == len(set(seen)), "a user appeared on two pages"
    assert set(uids) <= set(seen), "created users missing from batchGet"
    default = ok_json(api.batch_get())
    assert 0 < len(default["users"]) <= 20, len(default["users"])


# ------------------------------------------------------------------------------------------
# 8. firebase-admin (emulator mode)


def test_sdk_create_and_get_user(api, auth_app):
    """Scenario 14/15: ``create_user(uid, email, password, display_name, phone_number)``
    returns a UserRecord with those fields (email lower-cased); get_user, get_user_by_email
    and get_user_by_phone_number find it; provider_data ids are {"password","phone"};
    emailVerified/disabled default to False; creation time is now; tokens_valid_after is set."""
    uid, email, phone = unique("sdk"), new_email(), new_phone()
    record = auth.create_user(uid=uid, email=email, password=PASSWORD, display_name="Sdk User",
                              phone_number=phone, app=auth_app)
    assert record.uid == uid and record.email == email, record._data
    assert record.display_name == "Sdk User" and record.phone_number == phone, record._data
    assert record.email_verified is False and record.disabled is False, record._data
    assert {p.provider_id for p in record.provider_data} == {"password", "phone"}, record._data
    assert abs(record.user_metadata.creation_timestamp / 1000 - time.time()) < 60
    assert record.tokens_valid_after_timestamp > 0
    assert record.custom_claims is None

    for fetched in (auth.get_user(uid, app=auth_app),
                    auth.get_user_by_email(email, app=auth_app),
                    auth.get_user_by_phone_number(phone, app=auth_app)):
        assert fetched.uid == uid and fetched.email == email, fetched._data
        assert fetched.display_name == "Sdk User", fetched._data
    # The password works for the client API.
    assert api.sign_in(email)["localId"] == uid

    auto = auth.create_user(app=auth_app)
    assert ALNUM28.match(auto.uid), auto.uid


def test_sdk_create_user_conflicts(auth_app):
    """``create_user`` with a taken uid → UidAlreadyExistsError, a taken email →
    EmailAlreadyExistsError, a taken phone number → PhoneNumberAlreadyExistsError."""
    uid, email, phone = unique("dup"), new_email(), new_phone()
    auth.create_user(uid=uid, email=email, phone_number=phone, app=auth_app)
    with pytest.raises(auth.UidAlreadyExistsError):
        auth.create_user(uid=uid, app=auth_app)
    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.create_user(email=email, app=auth_app)
    with pytest.raises(auth.PhoneNumberAlreadyExistsError):
        auth.create_user(phone_number=phone, app=auth_app)


def test_sdk_update_user(auth_app):
    """Scenario 16: ``update_user(uid, display_name=..., disabled=True, email_verified=True,
    photo_url=...)`` is reflected by the returned record and get_user;
    changing the email to another user's → EmailAlreadyExistsError;
    ``display_name=DELETE_ATTRIBUTE`` / ``phone_number=DELETE_ATTRIBUTE`` remove them;
    ``disabled=False`` re-enables."""
    uid = unique("upd")
    auth.create_user(uid=uid, email=new_email(), display_name="Before",
                     phone_number=new_phone(), app=auth_app)
    record = auth.update_user(uid, display_name="After", disabled=True, email_verified=True,
                              photo_url="http://x/after.png", app=auth_app)
    assert record.display_name == "After" and record.disabled is True, record._data
    assert record.email_verified is True and record.photo_url == "http://x/after.png"
    fetched = auth.get_user(uid, app=auth_app)
    assert fetched.display_name == "After" and fetched.disabled is True, fetched._data

    taken = new_email()
    auth.create_user(email=taken, app=auth_app)
    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.update_user(uid, email=taken, app=auth_app)

    record = auth.update_user(uid, display_name=auth.DELETE_ATTRIBUTE,
                              phone_number=auth.DELETE_ATTRIBUTE, disabled=False, app=auth_app)
    assert record.display_name is None and record.phone_number is None, record._data
    assert record.disabled is False
    assert "phone" not in {p.provider_id for p in record.provider_data}, record._data


def test_sdk_delete_user(auth_app):
    """Scenario 16: ``delete_user(uid)`` then ``get_user(uid)`` raises UserNotFoundError; the
    freed email, phone number and uid can be used again."""
    uid, email, phone = unique("gone"), new_email(), new_phone()
    auth.create_user(uid=uid, email=email, phone_number=phone, app=auth_app)
    auth.delete_user(uid, app=auth_app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(uid, app=auth_app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_email(email, app=auth_app)
    assert auth.create_user(email=email, app=auth_app).uid != uid
    assert auth.create_user(phone_number=phone, app=auth_app).phone_number == phone
    assert auth.create_user(uid=uid, app=auth_app).email is None


def test_sdk_missing_users_raise_user_not_found(auth_app):
    """Scenario 15/16: get_user / get_user_by_email / get_user_by_phone_number / update_user /
    delete_user on a missing user raise UserNotFoundError; get_user's message is
    ``No user record found for the provided user ID: <uid>.``"""
    missing = unique("nope")
    with pytest.raises(auth.UserNotFoundError) as excinfo:
        auth.get_user(missing, app=auth_app)
    assert str(excinfo.value) == f"No user record found for the provided user ID: {missing}."
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_email(new_email(), app=auth_app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_phone_number(new_phone(), app=auth_app)
    with pytest.raises(auth.UserNotFoundError):
        auth.update_user(missing, display_name="x", app=auth_app)
    with pytest.raises(auth.UserNotFoundError):
        auth.delete_user(missing, app=auth_app)


def test_sdk_custom_claims_in_tokens_and_rules(api, auth_app, base_url, ns, http):
    """Scenario 17: ``set_custom_user_claims(uid, {"admin": True})`` → get_user().custom_claims
    == {"admin": True}; tokens minted afterwards (refresh of an older refresh token, or a new
    sign-in) have ``admin: true`` at top level, and database rules
    ``auth.token.admin === true`` let them read while a token minted before the claims is
    denied. ``set_custom_user_claims(uid, None)`` clears them and the next refresh lacks them."""
    uid, email = unique("claims"), new_email()
    auth.create_user(uid=uid, email=email, password=PASSWORD, app=auth_app)
    first = api.sign_in(email)
    assert "admin" not in claims_of(first["idToken"])

    auth.set_custom_user_claims(uid, {"admin": True, "tier": "gold"}, app=auth_app)
    assert auth.get_user(uid, app=auth_app).custom_claims == {"admin": True, "tier": "gold"}
    refreshed = api.refresh(first["refreshToken"])["id_token"]
    claims = claims_of(refreshed)
    assert claims.get("admin") is True and claims.get("tier") == "gold", claims
    assert_base_claims(claims, uid, "password")
    signed_in = api.sign_in(email)["idToken"]
    assert claims_of(signed_in).get("admin") is True

    put_rules(http, base_url, ns, {"rules": {
        "secret": {".read": "auth != null && auth.token.admin === true"},
        "tier": {".read": "auth.token.tier == 'gold' && auth.uid == '" + uid + "'"},
    }})
    admin_put(base_url, ns, "secret", {"v": 1})
    admin_put(base_url, ns, "tier", "ok")
    for token, via in ((refreshed, "query"), (signed_in, "bearer")):
        resp = db_get(base_url, ns, "secret", token, via)
        assert resp.status_code == 200 and resp.json() == {"v": 1}, resp.text
        resp = db_get(base_url, ns, "tier", token, via)
        assert resp.status_code == 200 and resp.json() == "ok", resp.text
    resp = db_get(base_url, ns, "secret", first["idToken"])
    assert resp.status_code == 401, f"a token without the claim must be denied: {resp.text}"
    assert db_get(base_url, ns, "secret").status_code == 401

    auth.set_custom_user_claims(uid, None, app=auth_app)
    assert auth.get_user(uid, app=auth_app).custom_claims is None
    claims = claims_of(api.refresh(first["refreshToken"])["id_token"])
    assert "admin" not in claims and "tier" not in claims, claims


def test_sdk_list_users_paging(auth_app):
    """Scenario 21: ``list_users(max_results=10)`` pages through every user: each page has at
    most 10 users (full pages while has_next_page), users come sorted by uid across pages, no
    user appears twice, all 25 users created here are listed; ``iterate_all()`` yields the same
    sequence. A password user has a non-None password_hash."""
    prefix = unique("list")
    uids = [f"{prefix}-{i:02d}" for i in range(25)]
    for uid in uids:
        auth.create_user(uid=uid, app=auth_app)
    with_password = f"{prefix}-pw"
    auth.create_user(uid=with_password, email=new_email(), password=PASSWORD, app=auth_app)

    listed: list[str] = []
    page = auth.list_users(max_results=10, app=auth_app)
    pages = 0
    while page is not None:
        pages += 1
        assert pages < 1000, "list_users paging did not end"
        batch = [u.uid for u in page.users]
        assert len(batch) <= 10, batch
        if page.has_next_page:
            assert len(batch) == 10, f"non-final page must be full: {batch}"
        listed += batch
        for user in page.users:
            if user.uid == with_password:
                assert user.password_hash is not None, user._data
        page = page.get_next_page()
    assert pages >= 3, f"26+ users over pages of 10 need at least 3 pages, got {pages}"
    assert listed == sorted(listed), "users must be sorted by uid"
    assert len(listed) == len(set(listed)), "a user appeared twice"
    ours = [u for u in listed if u.startswith(prefix)]
    assert ours == sorted(uids + [with_password]), ours

    everything = [u.uid for u in auth.list_users(max_results=10, app=auth_app).iterate_all()]
    assert [u for u in everything if u.startswith(prefix)] == ours
    assert set(listed) <= set(everything)


def test_sdk_verify_id_token(api, auth_app):
    """Scenario 18/19: ``verify_id_token`` on a token from signInWithPassword returns its
    claims with ``uid`` == the user's uid, email and firebase.sign_in_provider "password";
    ``check_revoked=True`` passes for a valid, enabled user. An anonymous user's token also
    verifies. A token of another project would be rejected client-side, so not tested here."""
    uid, email = unique("verify"), new_email()
    auth.create_user(uid=uid, email=email, password=PASSWORD, app=auth_app)
    token = api.sign_in(email)["idToken"]
    claims = auth.verify_id_token(token, app=auth_app)
    assert claims["uid"] == uid and claims["sub"] == uid, claims
    assert claims["email"] == email, claims
    assert claims["firebase"]["sign_in_provider"] == "password", claims
    assert auth.verify_id_token(token, check_revoked=True, app=auth_app)["uid"] == uid

    anon = api.sign_up()
    claims = auth.verify_id_token(anon["idToken"], check_revoked=True, app=auth_app)
    assert claims["uid"] == anon["localId"], claims
    assert claims["firebase"]["sign_in_provider"] == "anonymous", claims


def test_sdk_revoke_refresh_tokens(api, auth_app):
    """Scenario 19: sign in, wait past the second, ``revoke_refresh_tokens(uid)`` →
    tokens_valid_after_timestamp increases; ``verify_id_token(t)`` still passes but
    ``verify_id_token(t, check_revoked=True)`` raises RevokedIdTokenError; the old refresh token
    → 400 TOKEN_EXPIRED; a new sign-in gives a token that passes check_revoked."""
    uid, email = unique("revoke"), new_email()
    auth.create_user(uid=uid, email=email, password=PASSWORD, app=auth_app)
    session = api.sign_in(email)
    token = session["idToken"]
    before = auth.get_user(uid, app=auth_app).tokens_valid_after_timestamp
    wait_next_second(claims_of(token)["iat"])

    auth.revoke_refresh_tokens(uid, app=auth_app)
    after = auth.get_user(uid, app=auth_app).tokens_valid_after_timestamp
    assert after > before, (before, after)
    assert after // 1000 > claims_of(token)["iat"]
    assert auth.verify_id_token(token, app=auth_app)["uid"] == uid
    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(token, check_revoked=True, app=auth_app)
    auth_error(api.refresh_raw(form={"grant_type": "refresh_token",
                                     "refresh_token": session["refreshToken"]}),
               "TOKEN_EXPIRED")
    auth_error(api.client("lookup", {"idToken": token}), "TOKEN_EXPIRED")

    fresh = api.sign_in(email)["idToken"]
    assert auth.verify_id_token(fresh, check_revoked=True, app=auth_app)["uid"] == uid


def test_sdk_disabled_user(api, auth_app):
    """Scenario 20: ``update_user(uid, disabled=True)`` → ``verify_id_token(t,
    check_revoked=True)`` raises UserDisabledError; client sign-in → USER_DISABLED; refresh →
    USER_DISABLED."""
    uid, email = unique("disabled"), new_email()
    auth.create_user(uid=uid, email=email, password=PASSWORD, app=auth_app)
    session = api.sign_in(email)
    auth.update_user(uid, disabled=True, app=auth_app)
    with pytest.raises(auth.UserDisabledError):
        auth.verify_id_token(session["idToken"], check_revoked=True, app=auth_app)
    auth_error(api.client("signInWithPassword", {"email": email, "password": PASSWORD}),
               "USER_DISABLED")
    auth_error(api.refresh_raw(form={"grant_type": "refresh_token",
                                     "refresh_token": session["refreshToken"]}),
               "USER_DISABLED")


# ------------------------------------------------------------------------------------------
# 9. ID tokens on the Realtime Database


def test_id_tokens_authenticate_database_requests(api, base_url, ns, http):
    """An ID token in ``?auth=`` or ``Authorization: Bearer`` makes rules see ``auth.uid`` (=
    the user's uid), ``auth.token.email`` / ``email_verified`` and ``auth.provider`` (the
    sign-in provider): a user may write and read its own node only; an anonymous session is
    ``auth.provider == 'anonymous'``; no token means ``auth == null`` (denied)."""
    email = new_email()
    user = api.sign_up(email)
    anon = api.sign_up()
    put_rules(http, base_url, ns, {"rules": {
        "users": {"$uid": {".read": "auth != null && auth.uid === $uid",
                           ".write": "auth != null && auth.uid === $uid"}},
        "mail": {".read": "auth.token.email === '" + email + "' && "
                          "auth.token.email_verified === false && auth.provider === 'password'"},
        "guests": {".read": "auth.provider === 'anonymous'"},
    }})
    admin_put(base_url, ns, "mail", "m")
    admin_put(base_url, ns, "guests", "g")
    uid = user["localId"]
    for via in ("query", "bearer"):
        resp = db_put(base_url, ns, f"users/{uid}", {"via": via}, user["idToken"], via)
        assert resp.status_code == 200, resp.text
        resp = db_get(base_url, ns, f"users/{uid}", user["idToken"], via)
        assert resp.status_code == 200 and resp.json() == {"via": via}, resp.text
        resp = db_put(base_url, ns, f"users/{anon['localId']}", 1, user["idToken"], via)
        assert resp.status_code == 401, resp.text
        assert db_get(base_url, ns, "mail", user["idToken"], via).json() == "m"
        assert db_get(base_url, ns, "mail", anon["idToken"], via).status_code == 401
        assert db_get(base_url, ns, "guests", anon["idToken"], via).json() == "g"
        assert db_get(base_url, ns, "guests", user["idToken"], via).status_code == 401
    assert db_get(base_url, ns, f"users/{uid}").status_code == 401
    # A refreshed token works the same way.
    refreshed = api.refresh(user["refreshToken"])["id_token"]
    assert db_get(base_url, ns, f"users/{uid}", refreshed).json() == {"via": "bearer"}


# ------------------------------------------------------------------------------------------
# Scenario: the rewards app's trial → signed-up path (issue 4)


def test_trial_user_links_email_and_keeps_coins_under_owner_rules(api, base_url, ns, http):
    """An anonymous trial user earns coins under owner-only rules, links an email and password
    (same uid), signs out, signs in again with the password and still owns the same data; another
    user and a signed-out client can neither read nor write it."""
    put_rules(http, base_url, ns, {"rules": {"users": {"$uid": {
        ".read": "auth != null && auth.uid === $uid",
        ".write": "auth != null && auth.uid === $uid",
        "coins": {".validate": "newData.isNumber() && newData.val() >= 0"}}}}})
    trial = api.sign_up()
    uid = trial["localId"]
    assert claims_of(trial["idToken"])["firebase"]["sign_in_provider"] == "anonymous"
    assert db_put(base_url, ns, f"users/{uid}/coins", 3, token=trial["idToken"]).status_code == 200
    assert db_put(base_url, ns, f"users/{uid}/coins", -1, token=trial["idToken"]).status_code == 401

    email = new_email("trial")
    linked = api.ok("signUp", {"idToken": trial["idToken"], "email": email, "password": PASSWORD,
                               "returnSecureToken": True})
    assert linked["localId"] == uid
    assert db_put(base_url, ns, f"users/{uid}/coins", 5, token=linked["idToken"]).status_code == 200

    again = api.sign_in(email)
    assert again["localId"] == uid
    assert claims_of(again["idToken"])["firebase"]["sign_in_provider"] == "password"
    resp = db_get(base_url, ns, f"users/{uid}", token=again["idToken"], via="bearer")
    assert resp.status_code == 200 and resp.json() == {"coins": 5}

    other = api.sign_up()
    assert db_get(base_url, ns, f"users/{uid}", token=other["idToken"]).status_code == 401
    assert db_put(base_url, ns, f"users/{uid}/coins", 999, token=other["idToken"]).status_code == 401
    assert db_get(base_url, ns, f"users/{uid}").status_code == 401
    assert db_get(base_url, ns, f"users/{uid}", token=again["idToken"]).json() == {"coins": 5}


# ------------------------------------------------------------------------------------------
# firebase-admin: links, session cookies, bulk delete and import, custom tokens


def test_sdk_generate_password_reset_link_then_reset(api, auth_app):
    """generate_password_reset_link returns an out-of-band link (not mailed) whose oobCode
    resets the password through accounts:resetPassword; the code is single-use."""
    email = new_email("reset")
    api.sign_up(email)
    link = auth.generate_password_reset_link(email, app=auth_app)
    assert "mode=resetPassword" in link and "oobCode=" in link
    code = re.search(r"oobCode=([^&]+)", link).group(1)
    assert api.ok("resetPassword", {"oobCode": code})["requestType"] == "PASSWORD_RESET"
    api.ok("resetPassword", {"oobCode": code, "newPassword": "brand-new-pw"})
    auth_error(api.client("resetPassword", {"oobCode": code, "newPassword": "brand-new-pw"}),
               "INVALID_OOB_CODE")
    auth_error(api.client("signInWithPassword", {"email": email, "password": PASSWORD}),
               "INVALID_PASSWORD")
    assert api.sign_in(email, "brand-new-pw")["email"] == email


def test_sdk_email_verification_link(api, auth_app):
    """generate_email_verification_link, then accounts:update {oobCode} marks the email verified."""
    email = new_email("verify")
    user = api.sign_up(email)
    link = auth.generate_email_verification_link(email, app=auth_app)
    code = re.search(r"oobCode=([^&]+)", link).group(1)
    api.ok("update", {"oobCode": code})
    assert auth.get_user(user["localId"], app=auth_app).email_verified is True


def test_sdk_session_cookie_round_trip(api, auth_app):
    """create_session_cookie mints a cookie that verify_session_cookie accepts (issuer
    https://session.firebase.google.com/demo, same uid); a too-short duration is refused."""
    import datetime
    email = new_email("cookie")
    user = api.sign_up(email)
    cookie = auth.create_session_cookie(user["idToken"], expires_in=datetime.timedelta(minutes=10),
                                        app=auth_app)
    claims = auth.verify_session_cookie(cookie, app=auth_app)
    assert claims["uid"] == user["localId"]
    assert claims["iss"] == f"https://session.firebase.google.com/{PROJECT}"
    assert claims_of(cookie)["exp"] - claims_of(cookie)["iat"] == 600
    with pytest.raises(ValueError):
        auth.create_session_cookie(user["idToken"], expires_in=datetime.timedelta(seconds=10),
                                   app=auth_app)


def test_sdk_delete_users_and_import_users(api, auth_app):
    """delete_users removes existing users and ignores unknown uids; import_users with Firebase's
    scrypt parameters keeps the imported password working (the published example user)."""
    uids = [api.admin_create(localId=unique("bulk")) for _ in range(3)]
    result = auth.delete_users(uids + [unique("missing")], app=auth_app)
    assert result.success_count == 4 and result.failure_count == 0
    assert api.admin_lookup(localId=uids) == []

    uid = unique("imported")
    email = new_email("imported")
    hash_alg = auth.UserImportHash.scrypt(
        key=base64.b64decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="),
        rounds=8, memory_cost=14, salt_separator=base64.b64decode("Bw=="))
    users = [auth.ImportUserRecord(
        uid=uid, email=email,
        password_hash=base64.b64decode("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="),
        password_salt=base64.b64decode("42xEC+ixf3L2lw=="))]
    imported = auth.import_users(users, hash_alg=hash_alg, app=auth_app)
    assert imported.success_count == 1 and imported.failure_count == 0, imported.errors
    assert api.sign_in(email, "user1password")["localId"] == uid
    auth_error(api.client("signInWithPassword", {"email": email, "password": "user1passworD"}),
               "INVALID_PASSWORD")


def test_sdk_import_users_from_other_backends_keeps_passwords(api, auth_app):
    """Users moving from a Vapor or Spring server (bcrypt, made here by pyca/bcrypt) or from a
    PBKDF2 or standard-scrypt system sign in with their old passwords; after the first sign-in
    Hearth holds its own hash and the password still works. Algorithms Hearth cannot check are
    refused instead of stored."""
    import bcrypt
    cases = []
    for prefix in ("$2b$", "$2a$"):
        email = new_email("bcrypt")
        stored = bcrypt.hashpw(b"vapor-pass", bcrypt.gensalt(rounds=4, prefix=prefix.strip("$").encode()))
        cases.append((auth.UserImportHash.bcrypt(), email, stored, b"", "vapor-pass"))
    salt = os.urandom(16)
    cases.append((auth.UserImportHash.pbkdf2_sha256(rounds=1000), new_email("pbkdf2"),
                  hashlib.pbkdf2_hmac("sha256", b"spring-pass", salt, 1000, 32), salt, "spring-pass"))
    cases.append((auth.UserImportHash.standard_scrypt(memory_cost=1024, parallelization=1, block_size=8, derived_key_length=64),
                  new_email("scrypt"), hashlib.scrypt(b"scrypt-pass", salt=salt, n=1024, r=8, p=1, dklen=64), salt, "scrypt-pass"))
    for hash_alg, email, stored, user_salt, password in cases:
        uid = unique("moved")
        record = auth.ImportUserRecord(uid=uid, email=email, password_hash=stored, password_salt=user_salt or None)
        imported = auth.import_users([record], hash_alg=hash_alg, app=auth_app)
        assert imported.success_count == 1, (hash_alg.to_dict(), [e.reason for e in imported.errors])
        auth_error(api.client("signInWithPassword", {"email": email, "password": password + "!"}), "INVALID_PASSWORD")
        assert api.sign_in(email, password)["localId"] == uid, hash_alg.to_dict()
        assert api.sign_in(email, password)["localId"] == uid, "after the switch to Hearth's own hash"

    # A bcrypt import whose hash is not bcrypt fails for that user only; HMAC is refused whole.
    bad = auth.import_users([auth.ImportUserRecord(uid=unique("bad"), password_hash=b"not a bcrypt hash")],
                            hash_alg=auth.UserImportHash.bcrypt(), app=auth_app)
    assert bad.failure_count == 1 and "not a BCRYPT hash" in bad.errors[0].reason
    with pytest.raises(Exception) as refused:
        auth.import_users([auth.ImportUserRecord(uid=unique("hmac"), password_hash=b"x", password_salt=b"y")],
                          hash_alg=auth.UserImportHash.hmac_sha256(key=b"k"), app=auth_app)
    assert "INVALID_HASH_ALGORITHM" in str(refused.value)


def test_sdk_import_users_keeps_linked_providers(api, auth_app):
    """import_users with provider_data (a Google-linked user from another project) keeps the linked
    provider: get_user lists it next to the derived password entry, and tokens carry it in
    firebase.identities."""
    uid = unique("fed")
    email = new_email("fed")
    google = auth.UserProvider(uid="g-" + uid, provider_id="google.com", email=email,
                               display_name="Fed User", photo_url="http://x.test/a.png")
    users = [auth.ImportUserRecord(uid=uid, email=email, provider_data=[google])]
    imported = auth.import_users(users, app=auth_app)
    assert imported.success_count == 1, imported.errors
    user = auth.get_user(uid, app=auth_app)
    linked = {p.provider_id: p for p in user.provider_data}
    assert set(linked) == {"google.com"}
    assert linked["google.com"].uid == "g-" + uid
    assert linked["google.com"].display_name == "Fed User"
    token = auth.create_custom_token(uid, app=auth_app)
    token = token.decode() if isinstance(token, bytes) else token
    body = api.ok("signInWithCustomToken", {"token": token, "returnSecureToken": True})
    identities = claims_of(body["idToken"])["firebase"]["identities"]
    assert identities["google.com"] == ["g-" + uid]
    # get_users by provider uid finds the user through federatedUserId.
    found = auth.get_users([auth.ProviderIdentifier("google.com", "g-" + uid)], app=auth_app)
    assert [u.uid for u in found.users] == [uid]


def test_admin_update_links_providers_and_sets_account_history(api, auth_app):
    """Privileged accounts:update takes linkProviderUserInfo (one provider account per user),
    createdAt and lastLoginAt, as migrations from another system send them."""
    first, second = api.admin_create(localId=unique("lnk")), api.admin_create(localId=unique("lnk"))
    link = {"providerId": "apple.com", "rawId": "a-" + first, "email": "a@x.test"}
    api.admin_ok("update", {"localId": first, "linkProviderUserInfo": link,
                            "createdAt": "1000", "lastLoginAt": 2000})
    user = auth.get_user(first, app=auth_app)
    assert [(p.provider_id, p.uid) for p in user.provider_data] == [("apple.com", "a-" + first)]
    assert user.user_metadata.creation_timestamp == 1000
    assert user.user_metadata.last_sign_in_timestamp == 2000
    auth_error(api.admin("update", {"localId": second, "linkProviderUserInfo": link}),
               "FEDERATED_USER_ID_ALREADY_LINKED")
    resp = api.admin("update", {"localId": second, "linkProviderUserInfo": {"providerId": "phone", "rawId": "+1555"}})
    assert resp.status_code == 400 and resp.json()["error"]["message"].startswith("INVALID_PROVIDER_ID")
    assert auth.get_user(second, app=auth_app).provider_data == []


def test_sdk_custom_token_exchange(api, auth_app):
    """create_custom_token (unsigned in emulator mode) exchanged at signInWithCustomToken (served
    in --dev) gives an ID token for that uid with the developer claims and provider "custom"."""
    uid = unique("custom")
    token = auth.create_custom_token(uid, {"premium": True}, app=auth_app)
    token = token.decode() if isinstance(token, bytes) else token
    body = api.ok("signInWithCustomToken", {"token": token, "returnSecureToken": True})
    claims = claims_of(body["idToken"])
    assert claims["sub"] == uid and claims["premium"] is True
    assert claims["firebase"]["sign_in_provider"] == "custom"
    assert auth.verify_id_token(body["idToken"], app=auth_app)["uid"] == uid


def test_x509_public_keys_verify_id_tokens(api, base_url):
    """The Google-compatible x509 map {kid: PEM certificate} carries the key that signed the ID
    token (what verifiers configured with Google's x509 URL use)."""
    from cryptography import x509
    resp = requests.get(f"{base_url}/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
                        timeout=TIMEOUT)
    assert resp.status_code == 200
    certificates = resp.json()
    token = api.sign_up()["idToken"]
    header, _ = decode_jwt(token)
    assert header["kid"] in certificates
    cert = x509.load_pem_x509_certificate(certificates[header["kid"]].encode())
    signing_input, signature = token.rsplit(".", 1)
    cert.public_key().verify(b64url_decode(signature), signing_input.encode(), padding.PKCS1v15(),
                             hashes.SHA256())
    with pytest.raises(InvalidSignature):
        cert.public_key().verify(b64url_decode(signature), signing_input.encode() + b"x",
                                 padding.PKCS1v15(), hashes.SHA256())
