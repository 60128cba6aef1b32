"""Firebase Dynamic Links (REST, plain HTTP) against a real ``hearth serve``: create in both forms,
dedupe, errors, redirects per user agent, preview pages, app-association files,
reopenAttribution, stats, and the offline ``hearth links`` commands.

The module starts its own server: link domains and association files come from a config file in
the data folder (``hearth.json``), and ``--dev`` also accepts the server's own origin.
"""

from __future__ import annotations

import json
import subprocess
import urllib.parse
from pathlib import Path

import pytest
import requests

from hearth_helpers import HTTP_TIMEOUT
from hearth_process import hearth_binary, hearth_process

KEY = {"key": "any-api-key"}
AASA = {"applinks": {"details": [{"appIDs": ["TEAM.com.example.app"], "components": [{"/": "/*"}]}]}}
ASSET_LINKS = [{"relation": ["delegate_permission/common.handle_all_urls"],
                "target": {"namespace": "android_app", "package_name": "com.example.app",
                           "sha256_cert_fingerprints": ["AA:BB"]}}]
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"
IPAD = "Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36"
DESKTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36"
CRAWLERS = ["facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "Twitterbot/1.0",
            "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "WhatsApp/2.23.20.0 A",
            "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", "TelegramBot (like TwitterBot)"]


def write_config(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "assetlinks.json").write_text(json.dumps(ASSET_LINKS))
    (data_dir / "hearth.json").write_text(json.dumps({"links": {
        "domains": ["https://demo.page.link", "https://example.com/links"],
        "appleAppSiteAssociation": AASA, "assetLinks": "assetlinks.json"}}))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("links-data")
    write_config(data_dir)
    log = tmp_path_factory.mktemp("links-log") / "server.log"
    with hearth_process(["--dev"], data_dir, log, probe="/.well-known/apple-app-site-association") as (url, proc, _):
        yield url, data_dir


@pytest.fixture(scope="module")
def base(server) -> str:
    return server[0]


def create(base: str, body, **kwargs) -> requests.Response:
    return requests.post(f"{base}/v1/shortLinks", params=KEY, json=body, timeout=HTTP_TIMEOUT, **kwargs)


def make(base: str, body) -> dict:
    resp = create(base, body)
    assert resp.status_code == 200, resp.text
    return resp.json()


def local_path(short_link: str) -> str:
    parts = urllib.parse.urlsplit(short_link)
    return parts.path


def get(base: str, path: str, ua: str | None = None, host: str | None = None, **params) -> requests.Response:
    headers = {"User-Agent": ua} if ua else {"User-Agent": ""}
    if host:
        headers["Host"] = host
    return requests.get(base + path, params=params, headers=headers, allow_redirects=False, timeout=HTTP_TIMEOUT)


def unique_link(tag: str) -> str:
    import uuid
    return f"https://app.example.com/{tag}/{uuid.uuid4().hex}"


# --- create ---------------------------------------------------------------------------------

def test_long_link_form_short_suffix_and_dedupe(base):
    deep = unique_link("short")
    long = f"https://demo.page.link/?link={urllib.parse.quote(deep, safe='')}&apn=com.example.android&ibi=com.example.ios"
    made = make(base, {"longDynamicLink": long, "suffix": {"option": "SHORT"}})
    short = made["shortLink"]
    assert short.startswith("https://demo.page.link/")
    suffix = short.rsplit("/", 1)[1]
    assert len(suffix) >= 4 and suffix.isalnum()
    assert made["previewLink"] == short + "?d=1"
    assert "warning" not in made
    # Same request → same link; the same link written differently → same link too.
    assert make(base, {"longDynamicLink": long, "suffix": {"option": "SHORT"}})["shortLink"] == short
    reordered = f"https://demo.page.link?ibi=com.example.ios&apn=com.example.android&link={deep}"
    assert make(base, {"longDynamicLink": reordered, "suffix": {"option": "SHORT"}})["shortLink"] == short
    # Another option is another link.
    unguessable = make(base, {"longDynamicLink": long})["shortLink"]
    assert unguessable != short and len(unguessable.rsplit("/", 1)[1]) == 17


def test_dynamic_link_info_form_unguessable(base):
    made = make(base, {"dynamicLinkInfo": {
        "domainUriPrefix": "https://demo.page.link", "link": unique_link("info"),
        "androidInfo": {"androidPackageName": "com.example.android"},
        "iosInfo": {"iosBundleId": "com.example.ios", "iosAppStoreId": "123456789"},
        "socialMetaTagInfo": {"socialTitle": "Hi", "socialDescription": "There"},
    }, "suffix": {"option": "UNGUESSABLE"}})
    suffix = made["shortLink"].rsplit("/", 1)[1]
    assert len(suffix) == 17 and suffix.isalnum()


def test_deprecated_dynamic_link_domain_and_snake_case(base):
    made = make(base, {"dynamic_link_info": {"dynamic_link_domain": "demo.page.link", "link": unique_link("dld")}})
    assert made["shortLink"].startswith("https://demo.page.link/")


def test_form_encoded_long_dynamic_link(base):
    long = f"https://demo.page.link/?link={urllib.parse.quote(unique_link('form'), safe='')}"
    resp = requests.post(f"{base}/v1/shortLinks", params=KEY, data={"longDynamicLink": long}, timeout=HTTP_TIMEOUT)
    assert resp.status_code == 200, resp.text
    assert resp.json()["shortLink"].startswith("https://demo.page.link/")


def test_prefix_with_a_path_and_the_api_host_alias(base):
    resp = requests.post(f"{base}/firebasedynamiclinks.googleapis.com/v1/shortLinks", params=KEY,
                         json={"dynamicLinkInfo": {"domainUriPrefix": "https://example.com/links", "link": unique_link("p")}},
                         timeout=HTTP_TIMEOUT)
    assert resp.status_code == 200, resp.text
    short = resp.json()["shortLink"]
    assert short.startswith("https://example.com/links/")
    served = get(base, local_path(short), DESKTOP)
    assert served.status_code == 302


def test_dev_mode_accepts_the_servers_own_origin(base):
    deep = unique_link("dev")
    made = make(base, {"dynamicLinkInfo": {"domainUriPrefix": base, "link": deep}, "suffix": {"option": "SHORT"}})
    assert made["shortLink"].startswith(base + "/")
    # The short link works as-is against the server.
    resp = requests.get(made["shortLink"], headers={"User-Agent": DESKTOP}, allow_redirects=False, timeout=HTTP_TIMEOUT)
    assert resp.status_code == 302 and resp.headers["Location"] == deep


@pytest.mark.parametrize("extra, code", [
    ("&foo=bar", "UNRECOGNIZED_PARAM"),
    ("&ibi=c.d&isi=12ab", "NOT_NUMERIC_IOS_APP_STORE_ID"),
    ("&apn=a.b&afl=ftp%3A%2F%2Fx.com%2Ff", "BAD_URI_SCHEME_ANDROID_FALLBACK_LINK"),
    ("&ibi=c.d&ifl=not-a-uri", "NOT_URI_IOS_FALLBACK_LINK"),
    ("&si=not-a-uri", "NOT_URI_SOCIAL_IMAGE_LINK"),
    ("&amv=12", "UNNECESSARY_ANDROID_PACKAGE_MIN_VERSION"),
    ("#frag", "LINK_WITH_FRAGMENTS"),
])
def test_warnings(base, extra, code):
    long = f"https://demo.page.link/?link={urllib.parse.quote(unique_link('warn'), safe='')}{extra}"
    made = make(base, {"longDynamicLink": long})
    codes = [w["warningCode"] for w in made["warning"]]
    assert code in codes, made
    assert all(w["warningMessage"] for w in made["warning"])


@pytest.mark.parametrize("body, fragment", [
    ({}, "Exactly one"),
    ({"longDynamicLink": "https://demo.page.link/?link=https://e.com/", "dynamicLinkInfo": {"link": "https://e.com/"}}, "Exactly one"),
    ({"longDynamicLink": "https://demo.page.link/?apn=a.b"}, "link"),
    ({"longDynamicLink": "https://demo.page.link/?link=notaurl"}, "link"),
    ({"longDynamicLink": "https://demo.page.link/?link=https%3A%2F%2Fdemo.page.link%2Fabcd"}, "dynamic link"),
    ({"longDynamicLink": "https://evil.page.link/?link=https://e.com/"}, "does not own"),
    ({"dynamicLinkInfo": {"domainUriPrefix": "https://example.com/other", "link": "https://e.com/"}}, "does not own"),
    ({"dynamicLinkInfo": {"link": "https://e.com/"}}, "domainUriPrefix"),
    ({"dynamicLinkInfo": {"domainUriPrefix": "https://demo.page.link", "link": "https://e.com/", "bogus": 1}}, "bogus"),
    ({"longDynamicLink": "https://demo.page.link/?link=https://e.com/", "suffix": {"option": "WRONG"}}, "suffix.option"),
])
def test_bad_requests_are_400_invalid_argument(base, body, fragment):
    resp = create(base, body)
    assert resp.status_code == 400, resp.text
    error = resp.json()["error"]
    assert error["code"] == 400 and error["status"] == "INVALID_ARGUMENT"
    assert fragment in error["message"]


def test_missing_api_key_is_403_and_bad_json_is_400(base):
    resp = requests.post(f"{base}/v1/shortLinks", json={"longDynamicLink": "https://demo.page.link/?link=https://e.com/"},
                         timeout=HTTP_TIMEOUT)
    assert resp.status_code == 403 and resp.json()["error"]["status"] == "PERMISSION_DENIED"
    resp = requests.post(f"{base}/v1/shortLinks", params=KEY, data="{nope", headers={"Content-Type": "application/json"},
                         timeout=HTTP_TIMEOUT)
    assert resp.status_code == 400 and resp.json()["error"]["status"] == "INVALID_ARGUMENT"
    resp = requests.post(f"{base}/v1/shortLinks", params=KEY, data=b"x" * (70 * 1024), timeout=HTTP_TIMEOUT)
    assert resp.status_code == 413


# --- serving --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def full_link(base) -> tuple[str, str]:
    deep = unique_link("full")
    made = make(base, {"dynamicLinkInfo": {
        "domainUriPrefix": "https://demo.page.link", "link": deep,
        "androidInfo": {"androidPackageName": "com.example.android"},
        "iosInfo": {"iosBundleId": "com.example.ios", "iosAppStoreId": "123456789", "iosIpadFallbackLink": "https://example.com/ipad"},
        "desktopInfo": {"desktopFallbackLink": "https://example.com/desktop"},
        "socialMetaTagInfo": {"socialTitle": "Title <b>&", "socialDescription": "Desc \"q\"",
                              "socialImageLink": "https://example.com/i.png"},
    }, "suffix": {"option": "SHORT"}})
    return local_path(made["shortLink"]), deep


def test_desktop_android_and_other_redirects(base, full_link):
    path, deep = full_link
    r = get(base, path, DESKTOP)
    assert r.status_code == 302 and r.headers["Location"] == "https://example.com/desktop"
    r = get(base, path, ANDROID)
    assert r.status_code == 302
    assert r.headers["Location"] == "https://play.google.com/store/apps/details?id=com.example.android"
    r = get(base, path, "curl/8.5.0")
    assert r.status_code == 302 and r.headers["Location"] == "https://example.com/desktop"


def test_android_fallback_and_plain_link(base):
    deep = unique_link("afl")
    made = make(base, {"dynamicLinkInfo": {"domainUriPrefix": "https://demo.page.link", "link": deep,
                                           "androidInfo": {"androidPackageName": "a.b", "androidFallbackLink": "https://example.com/afl"}}})
    assert get(base, local_path(made["shortLink"]), ANDROID).headers["Location"] == "https://example.com/afl"
    plain = make(base, {"dynamicLinkInfo": {"domainUriPrefix": "https://demo.page.link", "link": deep}})
    for ua in (ANDROID, DESKTOP, IPHONE):
        r = get(base, local_path(plain["shortLink"]), ua)
        if ua == IPHONE:
            assert r.status_code == 200  # interstitial
        else:
            assert r.status_code == 302 and r.headers["Location"] == deep


def test_ios_interstitial_and_forced_redirect(base, full_link):
    path, deep = full_link
    r = get(base, path, IPHONE)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/html")
    assert 'href="https://apps.apple.com/app/id123456789"' in r.text
    assert "com.example.ios://google/link/?deep_link_id=" + urllib.parse.quote(deep, safe="") in r.text
    assert "default-src 'none'" in r.headers["Content-Security-Policy"]
    deep2 = unique_link("efr")
    forced = make(base, {"dynamicLinkInfo": {"domainUriPrefix": "https://demo.page.link", "link": deep2,
                                             "iosInfo": {"iosBundleId": "c.d", "iosAppStoreId": "42", "iosIpadFallbackLink": "https://example.com/ipad"},
                                             "navigationInfo": {"enableForcedRedirect": True}}})
    fpath = local_path(forced["shortLink"])
    r = get(base, fpath, IPHONE)
    assert r.status_code == 302 and r.headers["Location"] == "https://apps.apple.com/app/id42"
    r = get(base, fpath, IPAD)
    assert r.status_code == 302 and r.headers["Location"] == "https://example.com/ipad"


@pytest.mark.parametrize("ua", CRAWLERS)
def test_crawlers_get_the_preview_with_escaped_tags(base, full_link, ua):
    path, _ = full_link
    r = get(base, path, ua)
    assert r.status_code == 200
    assert '<meta property="og:title" content="Title &lt;b&gt;&amp;">' in r.text
    assert '<meta property="og:description" content="Desc &quot;q&quot;">' in r.text
    assert '<meta property="og:image" content="https://example.com/i.png">' in r.text
    assert "<b>" not in r.text


def test_debug_preview_escapes_hostile_values(base):
    made = make(base, {"dynamicLinkInfo": {
        "domainUriPrefix": "https://demo.page.link", "link": unique_link("xss") + "?q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E",
        "socialMetaTagInfo": {"socialTitle": "<script>alert('t')</script>", "socialDescription": "\"><img src=x onerror=alert(1)>",
                              "socialImageLink": "javascript:alert(1)"},
    }})
    r = get(base, local_path(made["shortLink"]), DESKTOP, d="1")
    assert r.status_code == 200
    assert "<script>" not in r.text and "<img src=x" not in r.text
    assert "&lt;script&gt;alert(&#39;t&#39;)&lt;/script&gt;" in r.text
    assert "javascript:" not in r.text


def test_unknown_suffix_is_404_and_database_paths_still_work(base):
    assert get(base, "/NoSuchLinkHere", DESKTOP).status_code == 404
    assert get(base, "/links/NoSuchLinkHere", DESKTOP).status_code == 404
    r = requests.get(f"{base}/somewhere.json", headers={"Authorization": "Bearer owner"}, timeout=HTTP_TIMEOUT)
    assert r.status_code == 200 and r.json() is None


def test_long_form_link_is_served(base):
    deep = unique_link("longform")
    r = get(base, "/", DESKTOP, link=deep, ofl="https://example.com/o")
    assert r.status_code == 302 and r.headers["Location"] == "https://example.com/o"
    r = get(base, "/", ANDROID, link=deep)
    assert r.status_code == 302 and r.headers["Location"] == deep
    r = get(base, "/", DESKTOP, link=deep, st="<x>", d="1")
    assert r.status_code == 200 and "&lt;x&gt;" in r.text
    assert get(base, "/", DESKTOP, link="javascript:alert(1)").status_code == 400


def test_app_association_files(base):
    r = requests.get(f"{base}/.well-known/apple-app-site-association", timeout=HTTP_TIMEOUT)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/json") and r.json() == AASA
    r = requests.get(f"{base}/apple-app-site-association", timeout=HTTP_TIMEOUT)
    assert r.status_code == 200 and r.json() == AASA
    r = requests.get(f"{base}/.well-known/assetlinks.json", timeout=HTTP_TIMEOUT)
    assert r.status_code == 200 and r.json() == ASSET_LINKS


def test_app_association_files_are_404_when_not_configured(tmp_path):
    with hearth_process(["--dev"], tmp_path / "data", tmp_path / "log") as (url, _, _):
        for path in ("/.well-known/apple-app-site-association", "/.well-known/assetlinks.json", "/apple-app-site-association"):
            assert requests.get(url + path, timeout=HTTP_TIMEOUT).status_code == 404, path


# --- attribution and stats ------------------------------------------------------------------

def test_reopen_attribution_returns_the_deep_link_and_inviter(base):
    deep = "https://app.example.com/invite?inviter=uid-42"
    made = make(base, {"dynamicLinkInfo": {
        "domainUriPrefix": "https://demo.page.link", "link": deep, "inviter": "uid-42",
        "iosInfo": {"iosBundleId": "com.example.ios", "iosMinimumVersion": "1.5"},
        "analyticsInfo": {"googlePlayAnalytics": {"utmSource": "friends", "utmMedium": "app", "utmCampaign": "invite"}},
    }})
    for body in ({"requestedLink": made["shortLink"], "bundle_id": "com.example.ios", "sdk_version": "10.0.0"},
                 {"requestedLink": made["shortLink"], "bundleId": "com.example.ios", "sdkVersion": "10.0.0"}):
        r = requests.post(f"{base}/firebasedynamiclinks.googleapis.com/v1/reopenAttribution", params=KEY, json=body,
                          headers={"X-Ios-Bundle-Identifier": "com.example.ios"}, timeout=HTTP_TIMEOUT)
        assert r.status_code == 200, r.text
        got = r.json()
        assert got["deepLink"] == deep
        assert got["invitationId"] == "uid-42"
        assert got["iosMinAppVersion"] == "1.5"
        assert (got["utmSource"], got["utmMedium"], got["utmCampaign"]) == ("friends", "app", "invite")
        assert "utmContent" not in got and "utmTerm" not in got
        assert got["resolvedLink"].startswith("https://demo.page.link/?link=")
    # A long link resolves without the store.
    r = requests.post(f"{base}/v1/reopenAttribution", params=KEY,
                      json={"requestedLink": f"https://demo.page.link/?link={urllib.parse.quote(deep, safe='')}&imv=3"}, timeout=HTTP_TIMEOUT)
    assert r.status_code == 200 and r.json()["deepLink"] == deep and "invitationId" not in r.json()
    assert requests.post(f"{base}/v1/reopenAttribution", json={"requestedLink": made["shortLink"]}, timeout=HTTP_TIMEOUT).status_code == 403
    r = requests.post(f"{base}/v1/reopenAttribution", params=KEY, json={"requestedLink": "https://demo.page.link/Nope1"}, timeout=HTTP_TIMEOUT)
    assert r.status_code == 404 and r.json()["error"]["status"] == "NOT_FOUND"
    r = requests.post(f"{base}/v1/reopenAttribution", params=KEY, json={}, timeout=HTTP_TIMEOUT)
    assert r.status_code == 400
    r = requests.post(f"{base}/v1/installAttribution", params=KEY, json={"bundleId": "c.d"}, timeout=HTTP_TIMEOUT)
    assert r.status_code == 200 and "deepLink" not in r.json()


def stats(base: str, short: str, days: int = 7, token: str | None = "owner") -> requests.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.get(f"{base}/v1/{urllib.parse.quote(short, safe='')}/linkStats", params={"durationDays": days},
                        headers=headers, timeout=HTTP_TIMEOUT)


def test_stats_count_clicks_by_platform_and_event(base):
    made = make(base, {"dynamicLinkInfo": {"domainUriPrefix": "https://demo.page.link", "link": unique_link("stats"),
                                           "iosInfo": {"iosBundleId": "c.d"}}})
    short, path = made["shortLink"], local_path(made["shortLink"])
    assert stats(base, short).json() == {}
    for _ in range(3):
        get(base, path, DESKTOP)
    get(base, path, ANDROID)
    get(base, path, IPHONE)            # interstitial: a click, no redirect
    get(base, path, CRAWLERS[0])       # previews are not clicks
    get(base, path, DESKTOP, d="1")
    requests.post(f"{base}/v1/reopenAttribution", params=KEY, json={"requestedLink": short}, timeout=HTTP_TIMEOUT)
    r = stats(base, short)
    assert r.status_code == 200, r.text
    rows = {(s["platform"], s["event"]): s["count"] for s in r.json()["linkEventStats"]}
    assert rows == {("DESKTOP", "CLICK"): "3", ("DESKTOP", "REDIRECT"): "3", ("ANDROID", "CLICK"): "1",
                    ("ANDROID", "REDIRECT"): "1", ("IOS", "CLICK"): "1", ("IOS", "APP_RE_OPEN"): "1"}
    # The API-host alias, and the credential checks.
    alias = requests.get(f"{base}/firebasedynamiclinks.googleapis.com/v1/{urllib.parse.quote(short, safe='')}/linkStats",
                         params={"durationDays": 1}, headers={"Authorization": "Bearer owner"}, timeout=HTTP_TIMEOUT)
    assert alias.status_code == 200 and len(alias.json()["linkEventStats"]) == 6
    assert stats(base, short, token=None).status_code == 401
    assert stats(base, short, token="not-admin").status_code == 403
    assert stats(base, short, days=0).status_code == 400
    assert stats(base, "https://demo.page.link/Missing1").status_code == 404


# --- CLI and durability of counts -------------------------------------------------------------

def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([hearth_binary(), "links", *args], capture_output=True, text=True, timeout=60)


def test_counts_survive_a_restart_and_the_cli_reads_them(tmp_path):
    data_dir = tmp_path / "data"
    write_config(data_dir)
    # Outside --dev links may point only at the link domains' and authorized domains' hosts.
    with hearth_process(["--authorized-domains", "app.example.com"], data_dir, tmp_path / "first.log",
                        probe="/.well-known/assetlinks.json") as (url, _, _):
        body = {"dynamicLinkInfo": {"domainUriPrefix": "https://example.com/links", "link": "https://app.example.com/cli",
                                    "inviter": "u7"}, "suffix": {"option": "SHORT"}}
        # Outside --dev an API key alone may not make links: the admin (or a signed-in user) does.
        assert create(url, body).status_code == 401
        admin = {"Authorization": "Bearer " + (data_dir / "admin-token").read_text().strip()}
        resp = create(url, body, headers=admin)
        assert resp.status_code == 200, resp.text
        made = resp.json()
        refused = create(url, {"dynamicLinkInfo": {"domainUriPrefix": "https://example.com/links", "link": "https://evil.example/"}},
                         headers=admin)
        assert refused.status_code == 400 and refused.json()["error"]["status"] == "INVALID_ARGUMENT"
        # The long-link form on the link domain no longer redirects off the allowed hosts.
        bounced = get(url, "/links/", DESKTOP, host="example.com", link="https://app.example.com/x", ofl="https://evil.example/")
        assert bounced.status_code == 400 and "Location" not in bounced.headers
        path = local_path(made["shortLink"])
        for _ in range(4):
            assert get(url, path, DESKTOP, host="example.com").status_code == 302
        get(url, path, ANDROID, host="example.com")
        # Outside --dev a link answers only on its own domain: any other Host is the database's 404,
        # and so is a long link (an open redirect otherwise) on a host that is no link domain.
        assert get(url, path, DESKTOP).status_code == 404
        assert get(url, path, DESKTOP, host="evil.example").status_code == 404
        assert get(url, "/links/", DESKTOP, host="evil.example", link="https://evil.example/x").status_code == 404
        long = get(url, "/links/", DESKTOP, host="EXAMPLE.com:443", link="https://app.example.com/long")
        assert long.status_code == 302 and long.headers["Location"] == "https://app.example.com/long"
    # SIGTERM flushed the buffered counts.
    suffix = made["shortLink"].rsplit("/", 1)[1]
    out = run_cli("stats", suffix, "--data", str(data_dir))
    assert out.returncode == 0, out.stderr
    assert "DESKTOP\tCLICK\t4" in out.stdout and "ANDROID\tREDIRECT\t1" in out.stdout
    listed = run_cli("list", "--data", str(data_dir))
    assert listed.returncode == 0 and made["shortLink"] in listed.stdout and "\tu7\t" in listed.stdout
    created = run_cli("create", "--data", str(data_dir), "--short",
                      "https://example.com/links/?link=https%3A%2F%2Fapp.example.com%2Foffline&foo=1")
    assert created.returncode == 0, created.stderr
    offline = created.stdout.strip()
    assert offline.startswith("https://example.com/links/") and "UNRECOGNIZED_PARAM" in created.stderr
    # The server serves a link made offline.
    with hearth_process(["--authorized-domains", "app.example.com"], data_dir, tmp_path / "second.log",
                        probe="/.well-known/assetlinks.json") as (url, _, _):
        r = get(url, local_path(offline), DESKTOP, host="example.com")
        assert r.status_code == 302 and r.headers["Location"] == "https://app.example.com/offline"
        token = (data_dir / "admin-token").read_text().strip()
        r = stats(url, made["shortLink"], token=token)
        assert r.status_code == 200, r.text
        rows = {(s["platform"], s["event"]): s["count"] for s in r.json()["linkEventStats"]}
        assert rows[("DESKTOP", "CLICK")] == "4" and rows[("ANDROID", "REDIRECT")] == "1"
    bad = run_cli("create", "--data", str(data_dir), "https://example.com/links/?apn=a.b")
    assert bad.returncode != 0 and "link" in bad.stderr
    assert run_cli("stats", "Nope1", "--data", str(data_dir)).returncode != 0
