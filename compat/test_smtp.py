"""Auth emails through a real SMTP server (aiosmtpd) in production mode (no ``--dev``).

Each test starts its own ``hearth serve`` with ``--smtp-*`` flags and a public URL, asks for a
password reset or a sign-in link over Identity Toolkit, reads the mail the SMTP server received
and follows the link the way a user would: the page at ``/__/auth/action`` (form + POST) or
``signInWithEmailLink`` with the mailed code. TLS uses a throwaway CA made here.
"""

from __future__ import annotations

import datetime
import email
import email.policy
import ipaddress
import queue
import re
import ssl
import subprocess
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from hearth_process import free_port, hearth_binary, hearth_process, log_tail

PUBLIC = "https://accounts.example.test"
KEY = {"key": "any-api-key"}
MAIL_TIMEOUT = 20.0


class Inbox:
    """aiosmtpd handler: every accepted message, with whether the session was TLS and authenticated."""

    def __init__(self) -> None:
        self.messages: queue.Queue = queue.Queue()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's hook name
        self.messages.put({
            "from": envelope.mail_from, "to": list(envelope.rcpt_tos), "tls": session.ssl is not None,
            "authenticated": bool(session.authenticated), "message": email.message_from_bytes(envelope.content, policy=email.policy.default),
        })
        return "250 Message accepted for delivery"

    def next(self, timeout: float = MAIL_TIMEOUT) -> dict:
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no mail arrived within {timeout}s", pytrace=False)


def _authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login == b"hearth" and auth_data.password == b"s3cret pass"
    return AuthResult(success=ok, handled=False)


def _tls_files(tmp_path):
    """A CA and a server certificate for localhost/127.0.0.1 signed by it; returns (ca.pem, ssl context)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Hearth test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    ca_pem = tmp_path / "ca.pem"
    ca_pem.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "server.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "server.key").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(tmp_path / "server.pem", tmp_path / "server.key")
    return ca_pem, context


@pytest.fixture
def smtp_server():
    """Starts aiosmtpd on a free port; ``smtp_server(**controller_options)`` → (inbox, port)."""
    controllers = []

    def start(**options):
        inbox = Inbox()
        port = free_port()
        controller = Controller(inbox, hostname="127.0.0.1", port=port, **options)
        controller.start()
        controllers.append(controller)
        return inbox, port

    yield start
    for controller in controllers:
        controller.stop()


def _identity(base_url: str, op: str, body: dict) -> requests.Response:
    return requests.post(f"{base_url}/identitytoolkit.googleapis.com/v1/accounts:{op}", params=KEY, json=body, timeout=15)


def _mailed_link(message) -> str:
    body = message.get_body(preferencelist=("plain",)).get_content()
    links = re.findall(r"https?://\S+", body)
    assert len(links) == 1, body
    return links[0]


def _serve(tmp_path, *args: str, env: dict[str, str] | None = None):
    return hearth_process(["--public-url", PUBLIC, *args], tmp_path / "data", tmp_path / "server.log", env=env)


def test_password_reset_mail_over_plain_smtp_resets_the_password(tmp_path, smtp_server):
    inbox, port = smtp_server()
    smtp = ["--smtp-host", "127.0.0.1", "--smtp-port", str(port), "--smtp-security", "none", "--smtp-from", "Zoë's App <no-reply@example.test>"]
    with _serve(tmp_path, *smtp) as (base_url, _, _):
        address = f"reset-{uuid.uuid4().hex[:8]}@example.com"
        assert _identity(base_url, "signUp", {"email": address, "password": "first-pass"}).status_code == 200
        resp = _identity(base_url, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": address})
        assert resp.status_code == 200, resp.text
        assert resp.json() == {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": address}

        mail = inbox.next()
        assert mail["from"] == "no-reply@example.test" and mail["to"] == [address]
        message = mail["message"]
        assert message["To"] == address
        assert message["Subject"] == "Reset your password"
        assert str(message["From"]) == "Zoë's App <no-reply@example.test>"
        link = _mailed_link(message)
        assert link.startswith(PUBLIC + "/__/auth/action?mode=resetPassword&"), link
        query = parse_qs(urlsplit(link).query)
        code = query["oobCode"][0]

        # The user opens the link (on this server) and submits the form.
        local = base_url + link[len(PUBLIC):]
        page = requests.get(local, timeout=15)
        assert page.status_code == 200 and 'name="newPassword"' in page.text and address in page.text
        done = requests.post(f"{base_url}/__/auth/action",
                             data={"mode": "resetPassword", "oobCode": code, "newPassword": "second pass"}, timeout=15)
        assert done.status_code == 200 and "Password changed" in done.text
        assert _identity(base_url, "signInWithPassword", {"email": address, "password": "second pass"}).status_code == 200
        old = _identity(base_url, "signInWithPassword", {"email": address, "password": "first-pass"})
        # Email-enumeration protection is on outside --dev: a wrong password gets the same answer as an unknown email.
        assert old.status_code == 400 and old.json()["error"]["message"] == "INVALID_LOGIN_CREDENTIALS"


def test_sign_in_link_over_starttls_with_auth(tmp_path, smtp_server):
    ca_pem, context = _tls_files(tmp_path)
    inbox, port = smtp_server(tls_context=context, require_starttls=True, auth_require_tls=True,
                              auth_required=True, authenticator=_authenticator)
    (tmp_path / "smtp-password").write_text("s3cret pass\n")
    smtp = ["--smtp-host", "localhost", "--smtp-port", str(port), "--smtp-security", "starttls", "--smtp-username", "hearth",
            "--smtp-password-file", str(tmp_path / "smtp-password"), "--smtp-from", "no-reply@example.test",
            "--smtp-ca-file", str(ca_pem)]
    with _serve(tmp_path, *smtp, "--authorized-domains", "app.example.test") as (base_url, _, log_path):
        address = f"link-{uuid.uuid4().hex[:8]}@example.com"
        refused = _identity(base_url, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": address,
                                                      "continueUrl": "https://elsewhere.example/finish"})
        assert refused.status_code == 400
        assert refused.json()["error"]["message"] == "UNAUTHORIZED_DOMAIN : Domain not allowlisted by project"

        resp = _identity(base_url, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": address,
                                                   "continueUrl": "https://app.example.test/finish"})
        assert resp.status_code == 200, resp.text
        mail = inbox.next()
        assert mail["tls"] and mail["authenticated"], mail
        link = _mailed_link(mail["message"])
        assert link.startswith(PUBLIC + "/__/auth/action?mode=signIn&"), link
        code = parse_qs(urlsplit(link).query)["oobCode"][0]

        # Opening the link hands it to the app's continue URL; the app then signs in with the code.
        hop = requests.get(base_url + link[len(PUBLIC):], allow_redirects=False, timeout=15)
        assert hop.status_code == 303 and hop.headers["Location"].startswith("https://app.example.test/finish?mode=signIn&")
        signed = _identity(base_url, "signInWithEmailLink", {"email": address, "oobCode": code})
        assert signed.status_code == 200, signed.text
        assert signed.json()["email"] == address and signed.json()["idToken"]
        assert "s3cret" not in log_tail(log_path), "the SMTP password never reaches the log"


def test_starttls_is_required_when_configured(tmp_path, smtp_server):
    """A server that does not offer STARTTLS gets nothing: no silent downgrade to plain text."""
    inbox, port = smtp_server()
    smtp = ["--smtp-host", "127.0.0.1", "--smtp-port", str(port), "--smtp-security", "starttls",
            "--smtp-username", "hearth", "--smtp-from", "no-reply@example.test"]
    with _serve(tmp_path, *smtp, env={"HEARTH_SMTP_PASSWORD": "s3cret pass"}) as (base_url, _, log_path):
        address = f"tls-{uuid.uuid4().hex[:8]}@example.com"
        assert _identity(base_url, "signUp", {"email": address, "password": "first-pass"}).status_code == 200
        # As Firebase, the request succeeds; the failure is the operator's to see.
        assert _identity(base_url, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": address}).status_code == 200
        with pytest.raises(queue.Empty):
            inbox.messages.get(timeout=2)
        log = log_tail(log_path, 20000)
        assert "could not send email (PASSWORD_RESET)" in log and "does not offer STARTTLS" in log, log
        assert "oobCode" not in log and address not in log and "s3cret" not in log


def test_untrusted_certificates_are_refused(tmp_path, smtp_server):
    _, context = _tls_files(tmp_path)
    inbox, port = smtp_server(tls_context=context)
    smtp = ["--smtp-host", "localhost", "--smtp-port", str(port), "--smtp-from", "no-reply@example.test"]
    with _serve(tmp_path, *smtp) as (base_url, _, log_path):
        address = f"ca-{uuid.uuid4().hex[:8]}@example.com"
        assert _identity(base_url, "signUp", {"email": address, "password": "first-pass"}).status_code == 200
        assert _identity(base_url, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": address}).status_code == 200
        with pytest.raises(queue.Empty):
            inbox.messages.get(timeout=2)
        assert "could not send email (PASSWORD_RESET)" in log_tail(log_path, 20000)


@pytest.mark.parametrize("args, message", [
    (["--smtp-host", "127.0.0.1"], "needs a sender address"),
    (["--smtp-host", "127.0.0.1", "--smtp-from", "bad\r\naddress@x.y"], "cannot set up SMTP"),
    (["--smtp-host", "127.0.0.1", "--smtp-from", "a@b.c", "--smtp-security", "ssl3"], "starttls, tls or none"),
    (["--smtp-host", "127.0.0.1", "--smtp-from", "a@b.c", "--smtp-username", "u"], "both a username and a password"),
    (["--public-url", "https://example.test/path"], "public URL"),
])
def test_bad_mail_settings_stop_the_server_with_a_clear_message(tmp_path, args, message):
    result = subprocess.run(
        [hearth_binary(), "serve", "--port", "0", "--data", str(tmp_path / "data"), *args],
        capture_output=True, text=True, timeout=30)
    assert result.returncode == 6, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
