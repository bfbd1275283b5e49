"""HTTP signatures on ActivityPub requests (federation/signatures.py): what we sign is
what Mastodon sends and verifies, what we verify is refused unless it covers the
request, its host, its time and its body; RFC 9421's published examples verify."""

import base64
import email.utils
import hashlib
import re
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from django.test import RequestFactory
from http_message_signatures import HTTPMessageSigner, MappingKeyResolver
from http_message_signatures.algorithms import ECDSA_P256_SHA256, RSA_V1_5_SHA256

from federation import signatures
from federation.signatures import (
    SignatureError,
    generate_key_pair,
    sign_request,
    signature_key_id,
    verify_message_signature,
    verify_request,
)
from socialsite import clock

KEY_ID = "https://social.example/users/ann#main-key"
INBOX = "https://remote.example/users/bob/inbox"
BODY = b'{"type":"Follow","actor":"https://social.example/users/ann"}'


@pytest.fixture(scope="module")
def keys():
    return generate_key_pair()


@pytest.fixture(scope="module")
def other_keys():
    return generate_key_pair()


def _post(keys, body=BODY, url=INBOX):
    return sign_request(method="POST", url=url, body=body, key_id=KEY_ID, private_key_pem=keys[0])


def _verify(keys, headers, *, method="POST", path="/users/bob/inbox", body=BODY, now=None):
    verify_request(
        method=method, path=path, headers=headers, body=body, public_key_pem=keys[1], now=now
    )


def _date(headers):
    return email.utils.parsedate_to_datetime(headers["Date"])


def _cavage(keys, *, method, target, headers, covered, algorithm="rsa-sha256"):
    """A cavage Signature made here, independently of the module: draft-cavage-12 §2.3."""
    lowered = {name.lower(): value for name, value in headers.items()}
    lines = [
        f"{name}: {f'{method.lower()} {target}' if name == '(request-target)' else lowered[name]}"
        for name in covered
    ]
    key = load_pem_private_key(keys[0].encode(), password=None)
    raw = key.sign("\n".join(lines).encode(), padding.PKCS1v15(), hashes.SHA256())
    return (
        f'keyId="{KEY_ID}",algorithm="{algorithm}",headers="{" ".join(covered)}",'
        f'signature="{base64.b64encode(raw).decode()}"'
    )


# --- draft-cavage, as Mastodon sends it --------------------------------------


def test_key_pair_is_rsa_2048_pem(keys):
    private, public = keys
    assert private.startswith("-----BEGIN PRIVATE KEY-----")
    assert public.startswith("-----BEGIN PUBLIC KEY-----")
    assert load_pem_private_key(private.encode(), password=None).key_size == 2048


def test_a_signed_post_verifies_and_has_mastodons_headers(keys):
    headers = _post(keys)
    assert headers["Host"] == "remote.example"
    assert headers["Content-Type"] == "application/activity+json"
    assert (
        headers["Digest"] == "SHA-256=" + base64.b64encode(hashlib.sha256(BODY).digest()).decode()
    )
    assert abs(_date(headers) - clock.now()) < timedelta(seconds=5)
    assert headers["Signature"].startswith(
        f'keyId="{KEY_ID}",algorithm="rsa-sha256",'
        'headers="(request-target) host date digest content-type",signature="'
    )
    _verify(keys, headers)


def test_a_signed_get_covers_accept_and_the_query(keys):
    url = "https://remote.example/users/bob/outbox?page=true"
    headers = sign_request(
        method="GET", url=url, body=None, key_id=KEY_ID, private_key_pem=keys[0]
    )
    assert "Digest" not in headers and "Content-Type" not in headers
    assert headers["Accept"].startswith("application/activity+json")
    assert 'headers="(request-target) host date accept"' in headers["Signature"]
    _verify(keys, headers, method="GET", path="/users/bob/outbox?page=true", body=b"")
    with pytest.raises(SignatureError, match="does not match"):
        _verify(keys, headers, method="GET", path="/users/bob/outbox?page=false", body=b"")


def test_headers_in_any_case_and_djangos_request_headers(keys):
    headers = _post(keys)
    _verify(keys, {name.upper(): value for name, value in headers.items()})
    request = RequestFactory().post(
        "/users/bob/inbox",
        data=BODY,
        content_type=headers["Content-Type"],
        headers={k: v for k, v in headers.items() if k != "Content-Type"},
    )
    verify_request(
        method=request.method,
        path=request.get_full_path(),
        headers=request.headers,
        body=request.body,
        public_key_pem=keys[1],
    )


def test_a_fixed_mastodon_shaped_request_verifies(keys, monkeypatch):
    """Signed at a frozen time, checked line by line against the signing string
    Mastodon builds (draft-cavage-12 §2.3), then verified at that time."""
    frozen = datetime(2024, 3, 1, 12, 0, 0, tzinfo=UTC)
    monkeypatch.setattr(clock, "now", lambda: frozen)
    headers = _post(keys)
    assert headers["Date"] == "Fri, 01 Mar 2024 12:00:00 GMT"
    expected = _cavage(
        keys,
        method="POST",
        target="/users/bob/inbox",
        headers=headers,
        covered=["(request-target)", "host", "date", "digest", "content-type"],
    )
    assert headers["Signature"] == expected  # PKCS#1 v1.5 is deterministic
    _verify(keys, headers)  # `now` defaults to the (frozen) clock
    with pytest.raises(SignatureError, match="12 hours"):
        _verify(keys, headers, now=datetime(2024, 3, 2, 12, 0, 0, tzinfo=UTC))


def test_unsigned_is_refused(keys):
    headers = _post(keys)
    del headers["Signature"]
    with pytest.raises(SignatureError, match="not signed"):
        _verify(keys, headers)


def test_another_key_is_refused(keys, other_keys):
    with pytest.raises(SignatureError, match="does not match"):
        _verify(other_keys, _post(keys))


def test_a_changed_body_is_refused(keys):
    with pytest.raises(SignatureError, match="Digest header does not match the body"):
        _verify(keys, _post(keys), body=BODY.replace(b"Follow", b"Block"))


def test_a_missing_digest_is_refused(keys):
    headers = _post(keys)
    del headers["Digest"]
    with pytest.raises(SignatureError, match="digest is missing"):
        _verify(keys, headers)


def test_a_body_whose_digest_is_not_signed_is_refused(keys):
    headers = _post(keys)
    headers["Signature"] = _cavage(
        keys,
        method="POST",
        target="/users/bob/inbox",
        headers=headers,
        covered=["(request-target)", "host", "date"],
    )
    with pytest.raises(SignatureError, match="does not cover a digest"):
        _verify(keys, headers)


@pytest.mark.parametrize("hours", [13, -13])
def test_a_date_13_hours_off_is_refused(keys, hours):
    headers = _post(keys)
    with pytest.raises(SignatureError, match="more than 12 hours"):
        _verify(keys, headers, now=_date(headers) + timedelta(hours=hours))


@pytest.mark.parametrize("hours", [11, -11])
def test_a_date_11_hours_off_is_accepted(keys, hours):
    headers = _post(keys)
    _verify(keys, headers, now=_date(headers) + timedelta(hours=hours))


@pytest.mark.parametrize("left_out", ["date", "(request-target)", "host"])
def test_a_signature_must_cover_target_host_and_date(keys, left_out):
    headers = _post(keys)
    covered = [
        name
        for name in ["(request-target)", "host", "date", "digest", "content-type"]
        if name != left_out
    ]
    headers["Signature"] = _cavage(
        keys, method="POST", target="/users/bob/inbox", headers=headers, covered=covered
    )
    with pytest.raises(SignatureError, match=re.escape(f"does not cover {left_out}")):
        _verify(keys, headers)


def test_hs2019_with_an_rsa_key_is_rsa_sha256(keys):
    headers = _post(keys)
    headers["Signature"] = _cavage(
        keys,
        method="POST",
        target="/users/bob/inbox",
        headers=headers,
        covered=["(request-target)", "host", "date", "digest"],
        algorithm="hs2019",
    )
    _verify(keys, headers)


def test_an_older_mastodons_target_without_the_query_verifies(keys):
    """Mastodon before 4.3 left the query out of (request-target); it accepts both."""
    headers = sign_request(
        method="GET", url=INBOX, body=None, key_id=KEY_ID, private_key_pem=keys[0]
    )
    _verify(keys, headers, method="GET", path="/users/bob/inbox?page=1", body=b"")


def test_garbage_is_refused_with_a_reason(keys):
    headers = _post(keys)
    headers["Signature"] = 'keyId="x",headers="(request-target) host date",signature="no!"'
    with pytest.raises(SignatureError, match="base64"):
        _verify(keys, headers)
    with pytest.raises(SignatureError, match="PEM"):
        verify_request(
            method="POST", path="/", headers=_post(keys), body=BODY, public_key_pem="nope"
        )


# --- RFC 9421 ------------------------------------------------------------------

# RFC 9421 Appendix B.1.2 (test-key-rsa-pss), B.1.3 (test-key-ecc-p256) and B.1.4
# (test-key-ed25519), and the request of Appendix B.2.
RSA_PSS_PUBLIC = """-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAr4tmm3r20Wd/PbqvP1s2
+QEtvpuRaV8Yq40gjUR8y2Rjxa6dpG2GXHbPfvMs8ct+Lh1GH45x28Rw3Ry53mm+
oAXjyQ86OnDkZ5N8lYbggD4O3w6M6pAvLkhk95AndTrifbIFPNU8PPMO7OyrFAHq
gDsznjPFmTOtCEcN2Z1FpWgchwuYLPL+Wokqltd11nqqzi+bJ9cvSKADYdUAAN5W
Utzdpiy6LbTgSxP7ociU4Tn0g5I6aDZJ7A8Lzo0KSyZYoA485mqcO0GVAdVw9lq4
aOT9v6d+nb4bnNkQVklLQ3fVAvJm+xdDOp9LCNCN48V2pnDOkFV6+U9nV5oyc6XI
2wIDAQAB
-----END PUBLIC KEY-----
"""
ECC_P256_PRIVATE = """-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIFKbhfNZfpDsW43+0+JjUr9K+bTeuxopu653+hBaXGA7oAoGCCqGSM49
AwEHoUQDQgAEqIVYZVLCrPZHGHjP17CTW0/+D9Lfw0EkjqF7xB4FivAxzic30tMM
4GF+hR6Dxh71Z50VGGdldkkDXZCnTNnoXQ==
-----END EC PRIVATE KEY-----
"""
ECC_P256_PUBLIC = """-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqIVYZVLCrPZHGHjP17CTW0/+D9Lf
w0EkjqF7xB4FivAxzic30tMM4GF+hR6Dxh71Z50VGGdldkkDXZCnTNnoXQ==
-----END PUBLIC KEY-----
"""
ED25519_PUBLIC = """-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=
-----END PUBLIC KEY-----
"""
RFC_PATH = "/foo?param=Value&Pet=dog"
RFC_BODY = b'{"hello": "world"}'
RFC_HEADERS = {
    "Host": "example.com",
    "Date": "Tue, 20 Apr 2021 02:07:55 GMT",
    "Content-Type": "application/json",
    "Content-Digest": "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7"
    "BNNyealdVLvRwEmTHWXvJwew==:",
    "Content-Length": "18",
}
BODY_FIELDS = ["content-type", "content-digest", "content-length"]
RFC_NOW = datetime(2021, 4, 20, 2, 8, 0, tzinfo=UTC)  # created=1618884473 is 02:07:53
B21 = {
    "Signature-Input": 'sig-b21=();created=1618884473;keyid="test-key-rsa-pss"'
    ';nonce="b3k2pp5k7z-50gnwp.yemd"',
    "Signature": "sig-b21=:d2pmTvmbncD3xQm8E9ZV2828BjQWGgiwAaw5bAkgibUopemLJcWDy/lkbbHAve4cRAtx31"
    "Iq786U7it++wgGxbtRxf8Udx7zFZsckzXaJMkA7ChG52eSkFxykJeNqsrWH5S+oxNFlD4dzVuwe8DhTSja8xxbR/Z2c"
    "OGdCbzR72rgFWhzx2VjBqJzsPLMIQKhO4DGezXehhWwE56YCE+O6c0mKZsfxVrogUvA4HELjVKWmAvtl6UnCh8jYzu"
    "VG5WSb/QEVPnP5TmcAnLH1g+s++v6d4s8m0gCw1fV5/SITLq9mhho8K3+7EPYTU8IU1bLhdxO5Nyt8C8ssinQ98Xw9"
    "Q==:",
}
B23 = {
    "Signature-Input": 'sig-b23=("date" "@method" "@path" "@query" "@authority" "content-type" '
    '"content-digest" "content-length");created=1618884473;keyid="test-key-rsa-pss"',
    "Signature": "sig-b23=:bbN8oArOxYoyylQQUU6QYwrTuaxLwjAC9fbY2F6SVWvh0yBiMIRGOnMYwZ/5MR6fb0Kh1r"
    "IRASVxFkeGt683+qRpRRU5p2voTp768ZrCUb38K0fUxN0O0iC59DzYx8DFll5GmydPxSmme9v6ULbMFkl+V5B1TP/y"
    "PViV7KsLNmvKiLJH1pFkh/aYA2HXXZzNBXmIkoQoLd7YfW91kE9o/CCoC1xMy7JA1ipwvKvfrs65ldmlu9bpG6A9Bm"
    "zhuzF8Eim5f8ui9eH8LZH896+QIF61ka39VBrohr9iyMUJpvRX2Zbhl5ZJzSRxpJyoEZAFL2FUo5fTIztsDZKEgM4c"
    "UA==:",
}
B26 = {
    "Signature-Input": 'sig-b26=("date" "@method" "@path" "@authority" "content-type" '
    '"content-length");created=1618884473;keyid="test-key-ed25519"',
    "Signature": "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6v"
    "uQv5lIp5WPpBKRCw==:",
}


def _rfc_message(signature, key, *, path=RFC_PATH, **changes):
    return verify_message_signature(
        method="POST",
        url=f"https://example.com{path}",
        headers={**RFC_HEADERS, **signature, **changes},
        public_key_pem=key,
        now=RFC_NOW,
    )


@pytest.mark.parametrize(
    ("vector", "key", "covered"),
    [
        (B21, RSA_PSS_PUBLIC, []),
        (B23, RSA_PSS_PUBLIC, ["date", "@method", "@path", "@query", "@authority", *BODY_FIELDS]),
        (B26, ED25519_PUBLIC, ["date", "@method", "@path", "@authority", *BODY_FIELDS[::2]]),
    ],
    ids=["B.2.1-rsa-pss-minimal", "B.2.3-rsa-pss-full", "B.2.6-ed25519"],
)
def test_rfc9421_examples_verify_and_tampering_fails(vector, key, covered):
    components = _rfc_message(vector, key)
    assert [c.strip('"') for c in components][:-1] == covered
    assert components['"@signature-params"'] in vector["Signature-Input"]
    tampered = [{"Date": "Tue, 20 Apr 2021 02:07:56 GMT"}, {"path": "/bar?param=Value&Pet=dog"}]
    for change in tampered if vector is not B21 else []:
        with pytest.raises(SignatureError, match="does not verify"):
            _rfc_message(vector, key, **change)
    flipped = vector["Signature"].replace("=:d2p", "=:D2p").replace("=:bbN", "=:BbN")
    flipped = flipped.replace("=:wqc", "=:Wqc")
    with pytest.raises(SignatureError, match="does not verify"):
        _rfc_message({**vector, "Signature": flipped}, key)


def test_rfc9421_full_coverage_example_passes_verify_request():
    """B.2.3 covers the method, path, authority, date and a sha-512 Content-Digest."""
    headers = {**RFC_HEADERS, **B23}
    verify_request(
        method="POST",
        path=RFC_PATH,
        headers=headers,
        body=RFC_BODY,
        public_key_pem=RSA_PSS_PUBLIC,
        now=RFC_NOW,
    )
    with pytest.raises(SignatureError, match="does not match the message body"):
        verify_request(
            method="POST",
            path=RFC_PATH,
            headers=headers,
            body=b'{"hello": "world!"}',
            public_key_pem=RSA_PSS_PUBLIC,
            now=RFC_NOW,
        )
    with pytest.raises(SignatureError, match="12 hours"):
        verify_request(
            method="POST",
            path=RFC_PATH,
            headers=headers,
            body=RFC_BODY,
            public_key_pem=RSA_PSS_PUBLIC,
            now=RFC_NOW + timedelta(hours=13),
        )


def test_rfc9421_examples_that_leave_out_the_method_or_digest_are_refused():
    for vector, key, reason in [
        (B21, RSA_PSS_PUBLIC, "does not cover @method"),
        (B26, ED25519_PUBLIC, "does not cover a digest"),
    ]:
        with pytest.raises(SignatureError, match=reason):
            verify_request(
                method="POST",
                path=RFC_PATH,
                headers={**RFC_HEADERS, **vector},
                body=RFC_BODY,
                public_key_pem=key,
                now=RFC_NOW,
            )


def _rfc9421_signed(algorithm, private_key, *, created, url=INBOX, body=BODY):
    """An inbox POST signed by the library's own signer, as an RFC 9421 server would."""
    date = email.utils.format_datetime(created)
    message = SimpleNamespace(
        method="POST", url=url, headers={"Host": "remote.example", "Date": date}
    )
    HTTPMessageSigner(
        signature_algorithm=algorithm,
        key_resolver=MappingKeyResolver(public_keys={}, private_keys={KEY_ID: private_key}),
    ).sign(
        message,
        key_id=KEY_ID,
        created=created,
        covered_component_ids=("@method", "@target-uri", "@authority", "date"),
        body=body,
    )
    return message.headers


@pytest.mark.parametrize("kind", ["ecdsa-p256 (RFC 9421 B.1.3 key)", "rsa-v1_5 (ours)"])
def test_rfc9421_signed_inbox_posts_verify(keys, kind):
    created = clock.now().replace(microsecond=0)
    if kind.startswith("ecdsa"):
        private, public, algorithm = ECC_P256_PRIVATE, ECC_P256_PUBLIC, ECDSA_P256_SHA256
    else:
        private, public, algorithm = keys[0], keys[1], RSA_V1_5_SHA256
    key = load_pem_private_key(private.encode(), password=None)
    headers = _rfc9421_signed(algorithm, key, created=created)
    assert "content-digest" in headers["Signature-Input"]
    _verify((private, public), headers)
    with pytest.raises(SignatureError, match="created time is more than 12 hours"):
        _verify((private, public), headers, now=created + timedelta(hours=13))
    with pytest.raises(SignatureError, match="does not match the message body"):
        _verify((private, public), headers, body=BODY + b" ")


# --- keyId ---------------------------------------------------------------------


def test_signature_key_id_of_both_kinds(keys):
    assert signature_key_id(_post(keys)) == KEY_ID
    assert signature_key_id({"SIGNATURE": f'keyId="{KEY_ID}",signature="x"'}) == KEY_ID
    assert signature_key_id(B23) == "test-key-rsa-pss"
    both = {
        "signature-input": B26["Signature-Input"] + ", " + B23["Signature-Input"],
        "signature": B26["Signature"] + ", " + B23["Signature"],
    }
    assert signature_key_id(both) == "test-key-ed25519"
    for headers in [{}, {"Signature": "nonsense"}, {"Signature-Input": "sig=(("}]:
        with pytest.raises(SignatureError):
            signature_key_id(headers)


def test_rfc9421_first_of_several_signatures_is_the_one_verified():
    headers = {
        **RFC_HEADERS,
        "Signature-Input": B26["Signature-Input"] + ", " + B23["Signature-Input"],
        "Signature": B26["Signature"] + ", " + B23["Signature"],
    }
    covered = verify_message_signature(
        method="POST",
        url=f"https://example.com{RFC_PATH}",
        headers=headers,
        public_key_pem=ED25519_PUBLIC,
        now=RFC_NOW,
    )
    assert 'keyid="test-key-ed25519"' in covered['"@signature-params"']
    assert timedelta(hours=12) == signatures.MAX_SKEW
