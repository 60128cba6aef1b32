"""Rewards (Examples/Rewards): its database rules, checked case by case with ``hearth rules test`` and
installed on a real server, where a signed-in client tries to mint coins and fails.
"""

from __future__ import annotations

from pathlib import Path

import requests

from hearth_helpers import OWNER_HEADERS
from hearth_process import assert_rules_cases_pass, hearth_process

EXAMPLE = Path(__file__).resolve().parent.parent / "Examples" / "Rewards"


def test_the_rules_cases_pass_with_hearth_rules_test():
    assert_rules_cases_pass(EXAMPLE)


def test_a_client_cannot_mint_coins_on_a_live_server(tmp_path):
    with hearth_process(["--dev"], tmp_path / "data", tmp_path / "server.log", probe="/.json", probe_headers=OWNER_HEADERS) as (url, _, _):
        r = requests.put(f"{url}/.settings/rules.json", data=(EXAMPLE / "rules.json").read_bytes(), headers=OWNER_HEADERS, timeout=10)
        assert r.status_code == 200, r.text
        r = requests.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", json={"returnSecureToken": True}, timeout=10)
        uid, token = r.json()["localId"], r.json()["idToken"]
        assert requests.put(f"{url}/wallets/{uid}.json", json={"coins": 7}, headers=OWNER_HEADERS, timeout=10).ok
        for path, value in [(f"wallets/{uid}/coins", 10**6), (f"ledger/{uid}/x", {"amount": 10**6}), (f"tiers/{uid}/tier", "pro")]:
            assert requests.put(f"{url}/{path}.json?auth={token}", json=value, timeout=10).status_code == 401, path
        assert requests.get(f"{url}/wallets/{uid}.json?auth={token}", timeout=10).json() == {"coins": 7}
        assert requests.put(f"{url}/profiles/{uid}.json?auth={token}", json={"gender": "female"}, timeout=10).status_code == 200
        assert requests.get(f"{url}/campaignProofs.json?auth={token}", timeout=10).status_code == 401
