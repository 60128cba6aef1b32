"""Rate limits and connection limits on a real ``hearth serve`` (docs/operations.md, "Rate limits and connection
limits"): ``429`` with ``Retry-After`` per client address and per signed-in user, in each API's error shape; the
admin exempt; recovery after the wait; small GETs answered on the event loop limited as well; realtime requests
counted against the same buckets; connections over ``--max-connections`` closed at accept; listens over
``--max-listeners-per-connection`` refused; and the counters in ``/metrics``."""

from __future__ import annotations

import socket
import time

import requests

from hearth_helpers import OWNER_HEADERS, eventually
from hearth_process import hearth_process
from test_realtime_process import raw_websocket, request


def sample(page: str, name: str) -> float:
    """The value of the sample written exactly as ``name`` (with its labels); fails when absent."""
    for line in page.splitlines():
        if line.startswith(name + " "):
            return float(line[len(name) + 1:])
    raise AssertionError(f"{name} not in /metrics")


def metrics(url: str) -> str:
    r = requests.get(f"{url}/metrics", headers=OWNER_HEADERS, timeout=10)
    assert r.status_code == 200, r.text
    return r.text


def exhaust(http: requests.Session, url: str, limit: int = 40) -> requests.Response:
    """GETs a small value until the first 429 (at most ``limit`` tries) and returns it."""
    for _ in range(limit):
        r = http.get(f"{url}/limited/value.json", timeout=10)
        if r.status_code == 429:
            return r
        assert r.status_code == 200, r.text
    raise AssertionError(f"no 429 in {limit} requests")


def sign_up(url: str, email: str) -> tuple[str, str]:
    r = requests.post(
        f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
        json={"email": email, "password": "secret-pass-1", "returnSecureToken": True}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["idToken"], r.json()["localId"]


def test_ip_limit_answers_429_with_retry_after_in_each_shape(tmp_path):
    args = ["--dev", "--rate-limit-ip", "1/s,burst=5"]
    with hearth_process(args, tmp_path / "data", tmp_path / "log", probe="/healthz") as (url, _, _):
        assert requests.put(f"{url}/limited/value.json", json=1, headers=OWNER_HEADERS, timeout=10).status_code == 200
        with requests.Session() as http:
            first = exhaust(http, url)  # small GETs are answered on the event loop: limited there too
            assert first.headers["Retry-After"] == "1"
            assert first.json()["error"].startswith("Too many requests")
            # Everything from the address is refused now, in its API's shape.
            put = http.put(f"{url}/limited/other.json", json=2, timeout=10)  # answered through the responder
            assert put.status_code == 429 and "error" in put.json()
            auth = http.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", json={}, timeout=10)
            assert auth.status_code == 429
            assert auth.json()["error"]["code"] == 429 and auth.json()["error"]["message"] == "TOO_MANY_ATTEMPTS_TRY_LATER"
            storage = http.get(f"{url}/v0/b/demo.appspot.com/o/a.txt", timeout=10)
            assert storage.status_code == 429 and storage.json()["error"]["code"] == 429
            assert storage.headers["Retry-After"] == "1"
            # The admin is not limited.
            assert http.get(f"{url}/limited/value.json", headers=OWNER_HEADERS, timeout=10).status_code == 200
            # A forged marker does not bypass or trigger anything: it is removed and the limit decides.
            time.sleep(float(first.headers["Retry-After"]) + 0.1)
            ok = http.get(f"{url}/limited/value.json", headers={"X-Hearth-Rate-Limited": "ip;1"}, timeout=10)
            assert ok.status_code == 200 and ok.json() == 1
            refused = 4  # `first`, then the put, the sign-up and the storage read
            refused_now = exhaust(http, url)
            assert refused_now.status_code == 429

            # Realtime requests count against the same address bucket: `unavailable` once it is empty.
            time.sleep(5.2)
            sock = raw_websocket(url)
            statuses = [request(sock, r, "g", {"p": "/limited/value", "q": {}})["s"] for r in range(1, 12)]
            sock.close()
            assert statuses[0] == "ok" and "unavailable" in statuses, statuses
            page = metrics(url)
            assert sample(page, 'hearth_rate_limited_total{scope="ip"}') == refused + 1 + statuses.count("unavailable")
            assert sample(page, 'hearth_rate_limited_total{scope="user"}') == 0
            assert sample(page, 'hearth_limit_requests_per_second{scope="ip"}') == 1
            assert sample(page, 'hearth_limit_request_burst{scope="ip"}') == 5
            assert sample(page, 'hearth_limit_requests_per_second{scope="user"}') == 0


def test_user_limit_counts_each_user_apart(tmp_path):
    args = ["--dev", "--rate-limit-user", "1/m,burst=3"]
    with hearth_process(args, tmp_path / "data", tmp_path / "log", probe="/healthz") as (url, _, _):
        assert requests.put(f"{url}/limited/value.json", json=1, headers=OWNER_HEADERS, timeout=10).status_code == 200
        alice, alice_uid = sign_up(url, "alice@example.com")
        bob, _ = sign_up(url, "bob@example.com")
        with requests.Session() as http:
            for _ in range(3):
                assert http.get(f"{url}/limited/value.json", params={"auth": alice}, timeout=10).status_code == 200
            over = http.get(f"{url}/limited/value.json", params={"auth": alice}, timeout=10)
            assert over.status_code == 429
            assert 50 <= int(over.headers["Retry-After"]) <= 60  # a token a minute
            # The same user with the token in the Authorization header is the same bucket.
            assert http.get(f"{url}/limited/value.json", headers={"Authorization": f"Bearer {alice}"}, timeout=10).status_code == 429
            # Another user, the signed-out and the admin are not affected.
            for _ in range(3):
                assert http.get(f"{url}/limited/value.json", params={"auth": bob}, timeout=10).status_code == 200
            for _ in range(10):
                assert http.get(f"{url}/limited/value.json", timeout=10).status_code == 200
                assert http.get(f"{url}/limited/value.json", headers=OWNER_HEADERS, timeout=10).status_code == 200
            # Over realtime, once signed in, the user's requests take from the same bucket.
            sock = raw_websocket(url)
            assert request(sock, 1, "auth", {"cred": alice})["s"] == "ok"
            answer = request(sock, 2, "g", {"p": "/limited/value", "q": {}})
            sock.close()
            assert answer["s"] == "unavailable" and "retry after" in answer["d"], answer
        page = metrics(url)
        assert sample(page, 'hearth_rate_limited_total{scope="user"}') == 3
        assert sample(page, 'hearth_rate_limited_total{scope="ip"}') == 0
        assert sample(page, 'hearth_limit_requests_per_second{scope="user"}') == 1 / 60
        assert alice_uid


def test_listen_limit_and_max_connections(tmp_path):
    args = ["--dev", "--max-listeners-per-connection", "3", "--max-connections", "6"]
    with hearth_process(args, tmp_path / "data", tmp_path / "log", probe="/healthz") as (url, _, _):
        sock = raw_websocket(url)
        for i in range(3):
            assert request(sock, i + 1, "q", {"p": f"/l/{i}", "h": ""})["s"] == "ok"
        over = request(sock, 10, "q", {"p": "/l/3", "h": ""})
        assert over["s"] == "failed" and "Too many listens" in over["d"], over
        # Listening again to a path already listened is no new listen; after an unlisten there is room again.
        assert request(sock, 11, "q", {"p": "/l/0", "h": ""})["s"] == "ok"
        assert request(sock, 12, "n", {"p": "/l/1"})["s"] == "ok"
        assert request(sock, 13, "q", {"p": "/l/3", "h": ""})["s"] == "ok"
        # The listens kept work: a write reaches them.
        assert request(sock, 14, "p", {"p": "/l/3", "d": 7})["s"] == "ok"

        # Connections: count those open now (the WebSocket, and any the test's client keeps alive) with a scrape whose
        # connection the server closes, then fill up to the maximum and open one more: the server closes one at once
        # (which one depends on the order the event loops set them up in, so any of the new ones may be it).
        open_now = int(sample(_scrape_and_close(url), "hearth_connections_open")) - 1  # less the scrape's own
        assert open_now >= 1  # the WebSocket
        time.sleep(0.3)  # the scrape's connection is let go
        host, port = url.removeprefix("http://").split(":")
        fresh = [socket.create_connection((host, int(port)), timeout=5) for _ in range(6 - open_now + 1)]
        closed = eventually("one connection closed by the server", lambda: [s for s in fresh if _closed_by_server(s)], timeout=5)
        time.sleep(0.3)
        assert len([s for s in fresh if _closed_by_server(s)]) == 1, "exactly the one over the maximum is closed"
        assert closed
        for s in fresh:
            s.close()
        page = eventually("room for a metrics request", lambda: _try_metrics(url))
        assert sample(page, "hearth_connections_refused_total") >= 1
        assert sample(page, "hearth_listens_refused_total") == 1
        assert sample(page, "hearth_limit_max_connections") == 6
        assert sample(page, "hearth_limit_max_listeners_per_connection") == 3
        sock.close()


def _scrape_and_close(url: str) -> str:
    """``/metrics`` over a connection the server closes after answering (``Connection: close``), read to its end."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(f"GET /metrics HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer owner\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head[:100]
    return body.decode()


def _closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (end of stream or reset), without waiting."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True
    finally:
        sock.setblocking(True)


def _try_metrics(url: str) -> str | None:
    try:
        r = requests.get(f"{url}/metrics", headers=OWNER_HEADERS, timeout=5)
    except requests.RequestException:
        return None
    return r.text if r.status_code == 200 else None


def test_ip_limit_applies_over_http2(tmp_path):
    """Over TLS, HTTP/2 requests (which no connection pipeline handler sees) are limited by the responder itself."""
    import httpx

    from test_tls import PKI, tls_server

    folder = tmp_path / "pki"
    folder.mkdir()
    pki = PKI(folder)
    cert, key, _ = pki.leaf("a")
    with tls_server(tmp_path, pki, ["--tls-cert", str(cert), "--tls-key", str(key), "--rate-limit-ip", "1/m,burst=4"]) as (base, _, _):
        with httpx.Client(http2=True, verify=pki.context(), timeout=30) as client:
            statuses = []
            for _ in range(8):
                r = client.get(f"{base}/h2/value.json")
                assert r.http_version == "HTTP/2", r.http_version
                statuses.append(r.status_code)
            assert 429 in statuses and statuses[0] == 200, statuses
            refused = client.get(f"{base}/h2/value.json")
            assert refused.status_code == 429 and 1 <= int(refused.headers["retry-after"]) <= 60
            assert client.get(f"{base}/h2/value.json", headers=OWNER_HEADERS).status_code == 200  # the admin is exempt
