"""A production server (no ``--dev``) as an attacker meets it: continue URLs, link domains, what sign-in tells
about an address, and who a password-guessing lock slows down behind a reverse proxy.

Each test starts its own ``hearth serve`` and talks to it with ``requests``, as any REST client would.
"""

from __future__ import annotations

import subprocess
import uuid

import requests

from hearth_process import hearth_binary, hearth_process

KEY = {"key": "any-api-key"}
PUBLIC = "https://accounts.example.test"


def _identity(base_url: str, op: str, body: dict, headers: dict | None = None) -> requests.Response:
    return requests.post(f"{base_url}/identitytoolkit.googleapis.com/v1/accounts:{op}", params=KEY, json=body,
                         headers=headers or {}, timeout=15)


def _error(resp: requests.Response) -> str:
    assert resp.status_code == 400, resp.text
    return resp.json()["error"]["message"]


def _address() -> str:
    return f"u-{uuid.uuid4().hex[:10]}@example.com"


def test_continue_urls_and_link_domains(tmp_path):
    args = ["--public-url", PUBLIC, "--authorized-domains", "app.example.test", "--link-domains", "https://go.example.test"]
    with hearth_process(args, tmp_path / "data", tmp_path / "server.log") as (base_url, _, _):
        def send(**fields):
            return _identity(base_url, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": _address(), **fields})

        # Read by a browser as evil.com, by Foundation as the authorized host: refused either way.
        for url in ["https://evil.com\\@app.example.test/", "https://evil.com\\@localhost/", "https://evil.com@app.example.test/"]:
            assert _error(send(continueUrl=url)) == "INVALID_CONTINUE_URI", url
        # localhost is authorized only when listed.
        assert _error(send(continueUrl="http://localhost:3000/finish")) == "UNAUTHORIZED_DOMAIN : Domain not allowlisted by project"
        assert send(continueUrl="https://app.example.test/finish").status_code == 200
        # linkDomain: the short-link domains and the public URL's host.
        assert _error(send(continueUrl="https://app.example.test/", linkDomain="evil.example")) == "INVALID_HOSTING_LINK_DOMAIN"
        for domain in ["go.example.test", "accounts.example.test"]:
            assert send(continueUrl="https://app.example.test/", linkDomain=domain).status_code == 200, domain


def test_email_enumeration_protection_is_on_by_default(tmp_path):
    with hearth_process([], tmp_path / "data", tmp_path / "server.log") as (base_url, _, _):
        address = _address()
        assert _identity(base_url, "signUp", {"email": address, "password": "right-pass"}).status_code == 200
        assert _error(_identity(base_url, "signInWithPassword", {"email": address, "password": "wrong-pass"})) == "INVALID_LOGIN_CREDENTIALS"
        assert _error(_identity(base_url, "signInWithPassword", {"email": _address(), "password": "wrong-pass"})) == "INVALID_LOGIN_CREDENTIALS"
        uri = _identity(base_url, "createAuthUri", {"identifier": address, "continueUri": "http://localhost"})
        assert uri.status_code == 200 and "registered" not in uri.json(), uri.text


def test_email_privacy_off_restores_the_old_answers(tmp_path):
    with hearth_process(["--email-privacy", "off"], tmp_path / "data", tmp_path / "server.log") as (base_url, _, _):
        address = _address()
        assert _identity(base_url, "signUp", {"email": address, "password": "right-pass"}).status_code == 200
        assert _error(_identity(base_url, "signInWithPassword", {"email": address, "password": "wrong-pass"})) == "INVALID_PASSWORD"
        assert _error(_identity(base_url, "signInWithPassword", {"email": _address(), "password": "wrong-pass"})) == "EMAIL_NOT_FOUND"
        uri = _identity(base_url, "createAuthUri", {"identifier": address, "continueUri": "http://localhost"})
        assert uri.json().get("registered") is True, uri.text


def test_behind_a_trusted_proxy_a_guesser_locks_only_himself(tmp_path):
    with hearth_process(["--trusted-proxies", "127.0.0.1,::1"], tmp_path / "data", tmp_path / "server.log") as (base_url, _, _):
        address = _address()
        assert _identity(base_url, "signUp", {"email": address, "password": "owner-pass"}).status_code == 200

        def sign_in(password: str, client: str) -> requests.Response:
            return _identity(base_url, "signInWithPassword", {"email": address, "password": password},
                             headers={"X-Forwarded-For": f"6.6.6.6, {client}"})

        for i in range(10):
            assert _error(sign_in(f"guess-{i}", "198.51.100.66")) == "INVALID_LOGIN_CREDENTIALS"
        assert _error(sign_in("owner-pass", "198.51.100.66")) == "TOO_MANY_ATTEMPTS_TRY_LATER"
        assert sign_in("owner-pass", "203.0.113.7").status_code == 200


def test_bad_hardening_settings_stop_the_server(tmp_path):
    for args, message in [(["--trusted-proxies", "10.0.0.0/40"], "--trusted-proxies"), (["--email-privacy", "maybe"], "on or off")]:
        result = subprocess.run([hearth_binary(), "serve", "--port", "0", "--data", str(tmp_path / "data"), *args],
                                capture_output=True, text=True, timeout=30)
        assert result.returncode == 6, result.stderr
        assert message in result.stderr, result.stderr
