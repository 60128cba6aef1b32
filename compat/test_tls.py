"""HTTPS for ``hearth serve --tls-cert/--tls-key``: certificates made here by a test CA, REST over
HTTP/1.1 and HTTP/2 (ALPN), an SSE stream over HTTP/2, the realtime protocol over wss, the
certificate swapped on SIGHUP without dropping open connections, a broken file on SIGHUP keeping
the old certificate, HSTS, and the start-up errors for bad TLS settings."""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import ipaddress
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import httpx
import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from websockets.sync.client import connect as ws_connect

from hearth_helpers import eventually
from hearth_process import STARTUP_TIMEOUT, SHUTDOWN_TIMEOUT, _die_with_parent, free_port, hearth_binary, log_tail

BAD_CONFIGURATION = 6


# --- certificates -------------------------------------------------------------------------------


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _pem_key(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


class PKI:
    """A test CA and leaf certificates for 127.0.0.1 and localhost, signed by it."""

    def __init__(self, folder: Path):
        self.folder = folder
        now = datetime.datetime.now(datetime.timezone.utc)
        self.ca_key = ec.generate_private_key(ec.SECP256R1())
        self.ca_cert = (
            x509.CertificateBuilder()
            .subject_name(_name("Hearth test CA"))
            .issuer_name(_name("Hearth test CA"))
            .public_key(self.ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .sign(self.ca_key, hashes.SHA256())
        )
        self.ca_file = folder / "ca.pem"
        self.ca_file.write_bytes(self.ca_cert.public_bytes(serialization.Encoding.PEM))

    def leaf(self, name: str) -> tuple[Path, Path, str]:
        """(chain file: leaf then CA, key file, SHA-256 fingerprint of the leaf) for a new certificate."""
        now = datetime.datetime.now(datetime.timezone.utc)
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (
            x509.CertificateBuilder()
            .subject_name(_name(f"hearth {name}"))
            .issuer_name(self.ca_cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(self.ca_key, hashes.SHA256())
        )
        chain = self.folder / f"{name}.crt"
        chain.write_bytes(cert.public_bytes(serialization.Encoding.PEM) + self.ca_cert.public_bytes(serialization.Encoding.PEM))
        key_file = self.folder / f"{name}.key"
        key_file.write_bytes(_pem_key(key))
        return chain, key_file, cert.fingerprint(hashes.SHA256()).hex()

    def context(self, alpn: list[str] | None = None) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=str(self.ca_file))
        if alpn:
            ctx.set_alpn_protocols(alpn)
        return ctx


@pytest.fixture
def pki(tmp_path) -> PKI:
    folder = tmp_path / "pki"
    folder.mkdir()
    return PKI(folder)


# --- the server ---------------------------------------------------------------------------------


@contextlib.contextmanager
def tls_server(tmp_path: Path, pki: PKI, args: list[str]) -> Iterator[tuple[str, subprocess.Popen, Path]]:
    """``hearth serve --dev *args`` on a free port, ready when its health answers over HTTPS (verified
    against the test CA); stopped with SIGTERM, which must exit 0."""
    port = free_port()
    log_path = tmp_path / "server.log"
    cmd = [hearth_binary(), "serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(tmp_path / "data"), "--dev", *args]
    log_file = open(log_path, "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        cmd, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True,
        preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
    base = f"https://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            assert proc.poll() is None, f"hearth exited with {proc.returncode} at start\n{log_tail(log_path)}"
            try:
                if requests.get(f"{base}/.well-known/hearth/health", verify=str(pki.ca_file), timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert time.monotonic() < deadline, f"hearth did not answer over HTTPS\n{log_tail(log_path)}"
            time.sleep(0.1)
        yield base, proc, log_path
        assert proc.poll() is None, f"hearth died during the test with {proc.returncode}\n{log_tail(log_path)}"
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=SHUTDOWN_TIMEOUT)
        assert code == 0, f"hearth exited with {code} after SIGTERM\n{log_tail(log_path)}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=SHUTDOWN_TIMEOUT)
        log_file.close()


def served_fingerprint(base: str, pki: PKI) -> str:
    """SHA-256 of the certificate a new connection is given (verified against the test CA)."""
    host, port = base.removeprefix("https://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as raw:
        with pki.context().wrap_socket(raw, server_hostname=host) as tls:
            return hashlib.sha256(tls.getpeercert(binary_form=True)).hexdigest()


def negotiated_alpn(base: str, pki: PKI, offer: list[str]) -> str | None:
    host, port = base.removeprefix("https://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as raw:
        with pki.context(offer).wrap_socket(raw, server_hostname=host) as tls:
            return tls.selected_alpn_protocol()


def http1_exchange(tls: ssl.SSLSocket, request: bytes) -> tuple[bytes, bytes]:
    """Sends one HTTP/1.1 request on a kept-alive socket and reads the (Content-Length) response."""
    tls.sendall(request)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = tls.recv(4096)
        assert chunk, f"connection closed during the response head: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        chunk = tls.recv(4096)
        assert chunk, "connection closed during the body"
        body += chunk
    return head, body


def sse_events(lines: Iterator[str]) -> Iterator[tuple[str, str]]:
    """(event, data) pairs from an SSE line iterator."""
    event = None
    for line in lines:
        if line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and event is not None:
            yield event, line.split(":", 1)[1].strip()
            event = None


def next_put(events: Iterator[tuple[str, str]]) -> dict:
    for event, data in events:
        if event in ("put", "patch"):
            return json.loads(data)
    raise AssertionError("the stream ended")


# --- tests --------------------------------------------------------------------------------------


def test_rest_over_https_http1_and_http2(tmp_path, pki):
    cert, key, _ = pki.leaf("a")
    with tls_server(tmp_path, pki, ["--tls-cert", str(cert), "--tls-key", str(key)]) as (base, _, _):
        # HTTP/1.1 (requests offers no ALPN): write and read back, verified against the test CA.
        written = requests.put(f"{base}/tls/one.json", json={"n": 1}, verify=str(pki.ca_file), timeout=10)
        assert written.status_code == 200, written.text
        assert requests.get(f"{base}/tls/one.json", verify=str(pki.ca_file), timeout=10).json() == {"n": 1}
        # ALPN: h2 is chosen when offered, http/1.1 when only it is.
        assert negotiated_alpn(base, pki, ["h2", "http/1.1"]) == "h2"
        assert negotiated_alpn(base, pki, ["http/1.1"]) == "http/1.1"
        with httpx.Client(http2=True, verify=pki.context(), timeout=30) as client:
            r = client.put(f"{base}/tls/two.json", json={"via": "h2"})
            assert r.http_version == "HTTP/2", r.http_version
            assert r.status_code == 200, r.text
            assert client.get(f"{base}/tls/one.json").json() == {"n": 1}
            # A large body both ways over HTTP/2 (flow control across many frames and windows).
            big = "x" * (3 * 1024 * 1024)
            assert client.put(f"{base}/tls/big.json", json=big).status_code == 200
            back = client.get(f"{base}/tls/big.json")
            assert back.http_version == "HTTP/2"
            assert back.json() == big
            # Many streams on the one connection.
            for i in range(20):
                assert client.get(f"{base}/tls/two.json").json() == {"via": "h2"}


def test_sse_stream_over_http2_receives_a_change(tmp_path, pki):
    cert, key, _ = pki.leaf("a")
    with tls_server(tmp_path, pki, ["--tls-cert", str(cert), "--tls-key", str(key)]) as (base, _, _):
        with httpx.Client(http2=True, verify=pki.context(), timeout=15) as client:
            with client.stream("GET", f"{base}/feed.json", headers={"Accept": "text/event-stream"}) as stream:
                assert stream.http_version == "HTTP/2"
                assert stream.headers["content-type"].startswith("text/event-stream")
                events = sse_events(stream.iter_lines())
                assert next_put(events) == {"path": "/", "data": None}
                # The write goes on its own stream of the same HTTP/2 connection.
                assert client.put(f"{base}/feed/a.json", json="hello").status_code == 200
                assert next_put(events) == {"path": "/a", "data": "hello"}


def test_realtime_websocket_over_wss(tmp_path, pki):
    cert, key, _ = pki.leaf("a")
    with tls_server(tmp_path, pki, ["--tls-cert", str(cert), "--tls-key", str(key)]) as (base, _, _):
        url = base.replace("https://", "wss://") + "/.ws?v=5&ns=demo"
        with ws_connect(url, ssl=pki.context(), open_timeout=10) as ws:
            hello = json.loads(ws.recv(timeout=10))
            assert hello["t"] == "c" and hello["d"]["t"] == "h", hello
            ws.send(json.dumps({"t": "d", "d": {"r": 1, "a": "p", "b": {"p": "/rt", "d": 42}}}))
            while True:
                message = json.loads(ws.recv(timeout=10))
                if message.get("d", {}).get("r") == 1:
                    assert message["d"]["b"]["s"] == "ok", message
                    break
        assert requests.get(f"{base}/rt.json", verify=str(pki.ca_file), timeout=10).json() == 42


def test_sighup_swaps_the_certificate_and_keeps_open_connections(tmp_path, pki):
    cert_a, key_a, fingerprint_a = pki.leaf("a")
    cert_b, key_b, fingerprint_b = pki.leaf("b")
    cert, key = tmp_path / "server.crt", tmp_path / "server.key"
    cert.write_bytes(cert_a.read_bytes())
    key.write_bytes(key_a.read_bytes())
    with tls_server(tmp_path, pki, ["--tls-cert", str(cert), "--tls-key", str(key)]) as (base, proc, log):
        assert served_fingerprint(base, pki) == fingerprint_a
        host, port = base.removeprefix("https://").split(":")
        request = f"GET /.well-known/hearth/health HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
        # Open before the reload: a kept-alive HTTP/1.1 connection, an SSE stream over HTTP/2, a realtime WebSocket.
        kept = pki.context().wrap_socket(socket.create_connection((host, int(port)), timeout=10), server_hostname=host)
        head, _ = http1_exchange(kept, request)
        assert head.startswith(b"HTTP/1.1 200"), head
        h2 = httpx.Client(http2=True, verify=pki.context(), timeout=15)
        ws = ws_connect(base.replace("https://", "wss://") + "/.ws?v=5&ns=demo", ssl=pki.context(), open_timeout=10)
        try:
            with h2.stream("GET", f"{base}/swap.json", headers={"Accept": "text/event-stream"}) as stream:
                events = sse_events(stream.iter_lines())
                assert next_put(events)["data"] is None
                assert json.loads(ws.recv(timeout=10))["t"] == "c"

                cert.write_bytes(cert_b.read_bytes())
                key.write_bytes(key_b.read_bytes())
                proc.send_signal(signal.SIGHUP)
                eventually("the reload logged", lambda: "TLS certificate reloaded" in log.read_text(errors="replace"))
                assert proc.poll() is None, "SIGHUP stopped the server"

                # New connections get the new certificate.
                assert served_fingerprint(base, pki) == fingerprint_b
                # The kept-alive connection still answers, with the certificate it started with.
                head, _ = http1_exchange(kept, request)
                assert head.startswith(b"HTTP/1.1 200"), head
                assert hashlib.sha256(kept.getpeercert(binary_form=True)).hexdigest() == fingerprint_a
                # The SSE stream gets a change written after the reload (over a new connection).
                with httpx.Client(http2=True, verify=pki.context(), timeout=15) as writer:
                    assert writer.put(f"{base}/swap/x.json", json=7).status_code == 200
                assert next_put(events) == {"path": "/x", "data": 7}
                # The realtime WebSocket still works.
                ws.send(json.dumps({"t": "d", "d": {"r": 1, "a": "p", "b": {"p": "/swap/y", "d": 8}}}))
                while True:
                    message = json.loads(ws.recv(timeout=10))
                    if message.get("d", {}).get("r") == 1:
                        assert message["d"]["b"]["s"] == "ok", message
                        break
        finally:
            ws.close()
            h2.close()
            kept.close()


def test_a_broken_file_on_sighup_keeps_the_old_certificate(tmp_path, pki):
    cert_a, key_a, fingerprint_a = pki.leaf("a")
    _, key_other, _ = pki.leaf("other")
    cert, key = tmp_path / "server.crt", tmp_path / "server.key"
    cert.write_bytes(cert_a.read_bytes())
    key.write_bytes(key_a.read_bytes())
    with tls_server(tmp_path, pki, ["--tls-cert", str(cert), "--tls-key", str(key)]) as (base, proc, log):
        # Garbage in the certificate file.
        cert.write_bytes(b"-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")
        proc.send_signal(signal.SIGHUP)
        eventually("the failed reload logged", lambda: log.read_text(errors="replace").count("TLS certificate not reloaded") == 1)
        assert proc.poll() is None
        assert served_fingerprint(base, pki) == fingerprint_a
        # A valid certificate with a key that is not its own.
        cert.write_bytes(cert_a.read_bytes())
        key.write_bytes(key_other.read_bytes())
        proc.send_signal(signal.SIGHUP)
        eventually("the second failed reload logged", lambda: log.read_text(errors="replace").count("TLS certificate not reloaded") == 2)
        assert served_fingerprint(base, pki) == fingerprint_a
        assert requests.get(f"{base}/.well-known/hearth/health", verify=str(pki.ca_file), timeout=10).status_code == 200
        text = log.read_text(errors="replace")
        assert "PRIVATE KEY" not in text and key_other.read_text().splitlines()[1] not in text


def test_hsts_header_when_set(tmp_path, pki):
    cert, key, _ = pki.leaf("a")
    with tls_server(tmp_path, pki, ["--tls-cert", str(cert), "--tls-key", str(key), "--hsts-max-age", "31536000"]) as (base, _, _):
        requests.put(f"{base}/h.json", json=1, verify=str(pki.ca_file), timeout=10)
        # HTTP/1.1: a routed response, a small read (answered inline) and a 404.
        for path in ["/.well-known/hearth/health", "/h.json", "/no/such/route"]:
            r = requests.get(f"{base}{path}", verify=str(pki.ca_file), timeout=10)
            assert r.headers.get("strict-transport-security") == "max-age=31536000", (path, r.status_code, r.headers)
        with httpx.Client(http2=True, verify=pki.context(), timeout=10) as client:
            r = client.get(f"{base}/h.json")
            assert r.http_version == "HTTP/2"
            assert r.headers.get("strict-transport-security") == "max-age=31536000"


def test_no_hsts_header_by_default(tmp_path, pki):
    cert, key, _ = pki.leaf("a")
    with tls_server(tmp_path, pki, ["--tls-cert", str(cert), "--tls-key", str(key)]) as (base, _, _):
        r = requests.get(f"{base}/.well-known/hearth/health", verify=str(pki.ca_file), timeout=10)
        assert r.status_code == 200 and "strict-transport-security" not in r.headers
        with httpx.Client(http2=True, verify=pki.context(), timeout=10) as client:
            r = client.get(f"{base}/.well-known/hearth/health")
            assert r.http_version == "HTTP/2" and "strict-transport-security" not in r.headers


def test_http2_settings_are_bounded_and_an_oversized_head_is_refused(tmp_path, pki):
    import h2.connection
    import h2.events
    import h2.settings

    cert, key, _ = pki.leaf("a")
    with tls_server(tmp_path, pki, ["--tls-cert", str(cert), "--tls-key", str(key)]) as (base, _, _):
        host, port = base.removeprefix("https://").split(":")
        # The server's SETTINGS: a bounded number of concurrent streams and a bounded header list.
        with socket.create_connection((host, int(port)), timeout=10) as raw:
            with pki.context(["h2"]).wrap_socket(raw, server_hostname=host) as tls:
                assert tls.selected_alpn_protocol() == "h2"
                conn = h2.connection.H2Connection()
                conn.initiate_connection()
                tls.sendall(conn.data_to_send())
                settings = None
                while settings is None:
                    data = tls.recv(65536)
                    assert data, "server closed before its SETTINGS"
                    for event in conn.receive_data(data):
                        if isinstance(event, h2.events.RemoteSettingsChanged):
                            settings = {k: v.new_value for k, v in event.changed_settings.items()}
                assert 0 < settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS] <= 1000, settings
                max_list = settings[h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE]
                assert 0 < max_list <= 64 * 1024, settings
        # A client that ignores the advertised header list size loses its connection, not the server.
        with httpx.Client(http2=True, verify=pki.context(), timeout=10) as client:
            with pytest.raises(httpx.RemoteProtocolError):
                client.get(f"{base}/{'a' * (max_list + 1024)}.json")
        with httpx.Client(http2=True, verify=pki.context(), timeout=10) as client:
            r = client.get(f"{base}/.well-known/hearth/health")
            assert r.http_version == "HTTP/2" and r.status_code == 200


def start_fails(tmp_path: Path, args: list[str], env: dict[str, str] | None = None) -> str:
    """Runs ``hearth serve`` expecting the bad-configuration exit; returns its output."""
    cmd = [hearth_binary(), "serve", "--host", "127.0.0.1", "--port", str(free_port()), "--data", str(tmp_path / "data"), "--dev", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=30, env={**os.environ, **(env or {})})
    assert done.returncode == BAD_CONFIGURATION, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    return done.stderr


def test_bad_tls_configurations_stop_the_start(tmp_path, pki):
    cert, key, _ = pki.leaf("a")
    _, other_key, _ = pki.leaf("other")
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("this is not PEM\n")
    assert "both a certificate and a key" in start_fails(tmp_path, ["--tls-cert", str(cert)])
    assert "both a certificate and a key" in start_fails(tmp_path, [], env={"HEARTH_TLS_KEY": str(key)})
    assert "cannot read the TLS certificate file" in start_fails(tmp_path, ["--tls-cert", str(tmp_path / "missing.pem"), "--tls-key", str(key)])
    assert "no valid PEM certificate" in start_fails(tmp_path, ["--tls-cert", str(garbage), "--tls-key", str(key)])
    assert "no valid unencrypted PEM private key" in start_fails(tmp_path, ["--tls-cert", str(cert), "--tls-key", str(garbage)])
    mismatch = start_fails(tmp_path, ["--tls-cert", str(cert), "--tls-key", str(other_key)])
    assert "does not belong to the certificate" in mismatch and "PRIVATE KEY" not in mismatch
    assert "needs TLS" in start_fails(tmp_path, ["--hsts-max-age", "60"])
    config = tmp_path / "hearth.json"
    config.write_text(json.dumps({"tls": {"cert": str(cert), "kee": str(key)}}))
    assert 'unknown or mistyped setting "tls.kee"' in start_fails(tmp_path, ["--config", str(config)])


def test_tls_from_the_config_file(tmp_path, pki):
    cert, key, fingerprint = pki.leaf("a")
    config = tmp_path / "hearth.json"
    config.write_text(json.dumps({"tls": {"cert": str(cert), "key": str(key), "hstsMaxAge": 120}}))
    with tls_server(tmp_path, pki, ["--config", str(config)]) as (base, _, _):
        assert served_fingerprint(base, pki) == fingerprint
        r = requests.get(f"{base}/.well-known/hearth/health", verify=str(pki.ca_file), timeout=10)
        assert r.headers.get("strict-transport-security") == "max-age=120"


def test_a_client_that_never_finishes_the_handshake_is_closed(tmp_path, pki):
    cert, key, _ = pki.leaf("a")
    with tls_server(tmp_path, pki, ["--tls-cert", str(cert), "--tls-key", str(key), "--header-timeout", "1"]) as (base, _, _):
        host, port = base.removeprefix("https://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as raw:
            started = time.monotonic()
            assert raw.recv(1) == b"", "the server sent something to a client that never said hello"
            assert time.monotonic() - started < 9


def test_sigterm_with_an_open_http2_event_stream_exits_cleanly(tmp_path, pki):
    cert, key, _ = pki.leaf("a")
    port = free_port()
    log_path = tmp_path / "server.log"
    cmd = [hearth_binary(), "serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(tmp_path / "data"), "--dev",
           "--tls-cert", str(cert), "--tls-key", str(key)]
    with open(log_path, "wb") as log_file:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            base = f"https://127.0.0.1:{port}"
            eventually("the server to answer", lambda: _answers(base, pki), timeout=STARTUP_TIMEOUT)
            with httpx.Client(http2=True, verify=pki.context(), timeout=15) as client:
                with client.stream("GET", f"{base}/bye.json", headers={"Accept": "text/event-stream"}) as stream:
                    events = sse_events(stream.iter_lines())
                    assert next_put(events)["data"] is None
                    proc.send_signal(signal.SIGTERM)
                    # The stream ends (the server closes it for the shutdown) rather than hanging.
                    with contextlib.suppress(httpx.HTTPError):
                        for _ in events:
                            pass
                    assert proc.wait(timeout=SHUTDOWN_TIMEOUT) == 0, log_tail(log_path)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=SHUTDOWN_TIMEOUT)


def _answers(base: str, pki: PKI) -> bool:
    try:
        return requests.get(f"{base}/.well-known/hearth/health", verify=str(pki.ca_file), timeout=2).status_code == 200
    except requests.RequestException:
        return False


def test_max_connections_counts_tls_connections_of_both_protocols(tmp_path, pki):
    """``--max-connections`` holds behind TLS for HTTP/2 as for HTTP/1.1: the connection over the maximum is closed
    before its handshake, and once others close there is room again."""
    cert, key, _ = pki.leaf("a")
    with tls_server(tmp_path, pki, ["--tls-cert", str(cert), "--tls-key", str(key), "--max-connections", "4"]) as (base, _, _):
        host, port = base.removeprefix("https://").split(":")
        time.sleep(0.5)  # the start-up probe's connections are let go

        def connect(offer: list[str]) -> ssl.SSLSocket | None:
            raw = socket.create_connection((host, int(port)), timeout=5)
            try:
                return pki.context(offer).wrap_socket(raw, server_hostname=host)
            except (ssl.SSLError, OSError):
                raw.close()
                return None

        held = [connect(["h2"]), connect(["h2"]), connect(["http/1.1"]), connect(["h2"])]
        assert all(held), "the first four connections are within the maximum"
        assert [c.selected_alpn_protocol() for c in held] == ["h2", "h2", "http/1.1", "h2"]
        assert connect(["h2"]) is None, "a fifth HTTP/2 connection is refused"
        assert connect(["http/1.1"]) is None, "a fifth HTTP/1.1 connection is refused"
        for c in held:
            c.close()
        page = eventually("room again once the others closed", lambda: _metrics_page(base, pki))
        refused = [line for line in page.splitlines() if line.startswith("hearth_connections_refused_total")]
        assert refused and float(refused[0].split()[-1]) == 2, refused


def _metrics_page(base: str, pki: PKI) -> str | None:
    try:
        r = requests.get(f"{base}/metrics", headers={"Authorization": "Bearer owner"}, verify=str(pki.ca_file), timeout=2)
        return r.text if r.status_code == 200 else None
    except requests.RequestException:
        return None
