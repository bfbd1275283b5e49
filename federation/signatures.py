"""HTTP signatures on ActivityPub requests: sign what we send, verify what we receive.

- draft-cavage-http-signatures-12, what Mastodon and nearly every ActivityPub server
  sends: `Signature: keyId="…",algorithm="rsa-sha256",headers="…",signature="…"`. No
  PyPI library for it is fit to keep: `httpsig` and `python-httpsig-socialhome` need
  pycryptodome and stop at Python 3.10; `apsig` drops the query from
  `(request-target)`, refuses `hs2019`, checks Date against the wall clock only, and
  pulls in pyld, aiohttp and authlib. So the signing string (draft §2.3) is built here
  in a few lines and signed with `cryptography` (RSA PKCS#1 v1.5, SHA-256), as Takahē
  does; the header's `key="value"` list is split by the standard library.
- RFC 9421 HTTP Message Signatures (`Signature-Input` + `Signature`), verified by the
  `http-message-signatures` library, RFC 9530 `Content-Digest` included.

Verification is policy on top of the cryptography: the signature must cover the
method and target, the host and, for a body, its digest, and its time must be within
12 hours of ours either way, the window Mastodon allows for clocks that drift.
"""

import base64
import binascii
import email.utils
import hashlib
import hmac
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit
from urllib.request import parse_http_list, parse_keqv_list

import http_sf
from cryptography.exceptions import InvalidSignature as InvalidCryptoSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from http_message_signatures import ContentDigest, HTTPMessageVerifier, InvalidSignature
from http_message_signatures import HTTPMessageSignaturesException as LibraryError
from http_message_signatures import HTTPSignatureAlgorithm as Algorithm
from http_message_signatures import algorithms as alg
from http_message_signatures.resolvers import MappingKeyResolver

from socialsite import clock

MAX_SKEW = timedelta(hours=12)
ACTIVITY_JSON = "application/activity+json"
# ActivityPub §3.2: a GET for an object asks for either media type.
AS_PROFILE = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'
DEFAULT_ACCEPT = f"{ACTIVITY_JSON}, {AS_PROFILE}"
# RFC 9421 algorithms we accept: the asymmetric ones of its registry (HMAC needs a
# shared secret, which servers that only know each other's actor documents lack).
RFC9421_ALGORITHMS: dict[str, type[Algorithm]] = {
    cls.algorithm_id: cls
    for cls in (alg.RSA_PSS_SHA512, alg.RSA_V1_5_SHA256, alg.ECDSA_P256_SHA256, alg.ED25519)
}
# What a verified RFC 9421 signature must cover: one of each set.
_RFC9421_REQUIRED = {
    "@method": {"@method"},
    "@target-uri or @path": {"@target-uri", "@path", "@request-target"},
    "@authority or host": {"@authority", "host"},
}
_LEGACY_DIGESTS: dict[str, Callable[[bytes], Any]] = {
    "sha-256": hashlib.sha256,
    "sha-512": hashlib.sha512,
}

PKCS8 = serialization.PrivateFormat.PKCS8
# The keys RFC 9421's algorithms take; ECDSA on P-256 (what Mastodon would use) only.
type PublicKey = rsa.RSAPublicKey | ec.EllipticCurvePublicKey | ed25519.Ed25519PublicKey


class SignatureError(Exception):
    """Why a request's signature was refused; the message goes to logs and the 401 body."""


def generate_key_pair() -> tuple[str, str]:
    """(private PEM, public PEM): an RSA 2048 key, what Mastodon makes for each actor and
    the only kind every server verifies."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = serialization.Encoding.PEM
    private = key.private_bytes(pem, PKCS8, serialization.NoEncryption())
    public = key.public_key().public_bytes(pem, serialization.PublicFormat.SubjectPublicKeyInfo)
    return private.decode(), public.decode()


def sign_request(
    *,
    method: str,
    url: str,
    body: bytes | None,
    key_id: str,
    private_key_pem: str,
    accept: str | None = None,
) -> dict[str, str]:
    """Headers to send: Host, Date (RFC 7231 format), Digest (when body), Content-Type
    application/activity+json (when body), Accept (GET), Signature.

    The covered headers are Mastodon's own: `(request-target) host date digest
    content-type` for a POST, `(request-target) host date accept` for a GET."""
    if '"' in key_id:
        raise ValueError("A keyId cannot contain a double quote")
    key = serialization.load_pem_private_key(private_key_pem.encode(), password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError("draft-cavage rsa-sha256 signing needs an RSA private key")
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    headers = {"Host": parts.netloc, "Date": email.utils.format_datetime(clock.now(), usegmt=True)}
    covered = ["(request-target)", "host", "date"]
    if body is not None:
        headers["Digest"] = "SHA-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode()
        headers["Content-Type"] = ACTIVITY_JSON
        covered += ["digest", "content-type"]
    if method.upper() == "GET":
        headers["Accept"] = accept or DEFAULT_ACCEPT
        covered.append("accept")
    elif accept:
        headers["Accept"] = accept
    lowered = {name.lower(): value for name, value in headers.items()}
    text = _signing_string(covered, lowered, {}, f"{method.lower()} {target}")
    signature = base64.b64encode(key.sign(text.encode(), padding.PKCS1v15(), hashes.SHA256()))
    headers["Signature"] = (
        f'keyId="{key_id}",algorithm="rsa-sha256",headers="{" ".join(covered)}",'
        f'signature="{signature.decode()}"'
    )
    return headers


def signature_key_id(headers: Mapping[str, str]) -> str:
    """The keyId of a cavage Signature, or of the first RFC 9421 Signature-Input entry."""
    lowered = _lowered(headers)
    if "signature-input" in lowered:
        _label, _components, params = _first_signature_input(lowered)
        return params["keyid"]
    return _cavage_params(lowered)["keyId"]


def verify_request(
    *,
    method: str,
    path: str,
    headers: Mapping[str, str],
    body: bytes,
    public_key_pem: str,
    now: datetime | None = None,
) -> None:
    """Raise SignatureError unless: a cavage or RFC 9421 signature verifies with the key;
    the signed components include (request-target)/@method+@target-uri-or-@path, host,
    date (cavage) and, for a body, digest/content-digest; Date within 12 hours of now
    (both directions); Digest (SHA-256) or Content-Digest (sha-256 / sha-512) matches
    the body. `path` includes the query string; `headers` may be Django's
    `request.headers` or a plain dict in any case."""
    lowered = _lowered(headers)
    now = now or clock.now()
    key = _load_public_key(public_key_pem)
    if "signature-input" in lowered:
        _verify_rfc9421_request(method, path, lowered, body, key, now)
    elif "signature" in lowered or lowered.get("authorization", "").startswith("Signature "):
        _verify_cavage(method, path, lowered, body, key, now)
    else:
        raise SignatureError("The request is not signed")


def verify_message_signature(
    *, method: str, url: str, headers: Mapping[str, str], public_key_pem: str, now: datetime
) -> dict[str, str]:
    """RFC 9421 only: check that the first Signature-Input entry's signature verifies with
    the key, was created within 12 hours of `now` and has not expired. Return what it
    covers (serialized component id → value); no coverage policy: see verify_request."""
    key = _load_public_key(public_key_pem)
    return _verify_rfc9421(method, url, _lowered(headers), key, now)


# draft-cavage-http-signatures-12


def _verify_cavage(
    method: str, path: str, h: dict[str, str], body: bytes, key: PublicKey, now: datetime
) -> None:
    params = _cavage_params(h)
    # hs2019 leaves the algorithm to the key (draft §2.1.3); Mastodon reads it as
    # rsa-sha256 for its RSA keys, and so do we.
    algorithm = params.get("algorithm", "hs2019").lower()
    if algorithm not in ("rsa-sha256", "hs2019"):
        raise SignatureError(f"Unsupported signature algorithm {algorithm!r}")
    if not isinstance(key, rsa.RSAPublicKey):
        raise SignatureError("draft-cavage signatures are verified with RSA keys only")
    covered = params.get("headers", "date").lower().split()
    for required in ("(request-target)", "host", "date"):
        if required not in covered:
            raise SignatureError(f"The signature does not cover {required}")
    try:
        signature = base64.b64decode(params["signature"], validate=True)
    except binascii.Error as error:
        raise SignatureError("The signature is not base64") from error
    # Mastodon before 4.3 signed the path without its query; it still accepts both.
    targets = [path] + ([path.split("?", 1)[0]] if "?" in path else [])
    for target in targets:
        text = _signing_string(covered, h, params, f"{method.lower()} {target}")
        try:
            key.verify(signature, text.encode(), padding.PKCS1v15(), hashes.SHA256())
            break
        except InvalidCryptoSignature:
            continue
    else:
        raise SignatureError("The signature does not match the request and key")
    _check_time(_parse_date(h["date"]), now, "Date")
    _check_body_digests(h, body, set(covered))


def _cavage_params(h: Mapping[str, str]) -> dict[str, str]:
    value = h.get("signature") or h.get("authorization", "").removeprefix("Signature ")
    if not value:
        raise SignatureError("The request has no Signature header")
    try:
        params = parse_keqv_list(parse_http_list(value))
    except ValueError as error:
        raise SignatureError("The Signature header is malformed") from error
    for name in ("keyId", "signature"):
        if not params.get(name):
            raise SignatureError(f"The Signature header has no {name}")
    return params


def _signing_string(
    covered: list[str], h: Mapping[str, str], params: Mapping[str, str], request_target: str
) -> str:
    """draft-cavage §2.3: one `name: value` line per covered header, in its order."""
    lines = []
    for name in covered:
        if name == "(request-target)":
            value = request_target
        elif name in ("(created)", "(expires)"):
            value = params.get(name.strip("()"), "")
        elif name in h:
            value = h[name].strip()
        else:
            raise SignatureError(f"The signed header {name} is missing")
        lines.append(f"{name}: {value}")
    return "\n".join(lines)


# RFC 9421 HTTP Message Signatures


class _Verifier(HTTPMessageVerifier):
    """The library's verifier with our clock and window for `created` / `expires`."""

    def __init__(self, *, now: datetime, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.now = now

    def validate_created_and_expires(self, sig_input: Any, max_age: Any = None) -> None:
        created, expires = sig_input.params.get("created"), sig_input.params.get("expires")
        if type(created) is not int:
            raise SignatureError('The signature has no "created" time')
        try:
            created_at = datetime.fromtimestamp(created, UTC)
            expired = type(expires) is int and datetime.fromtimestamp(expires, UTC) < self.now
        except (OverflowError, OSError, ValueError) as error:
            raise SignatureError("The signature's times are out of range") from error
        _check_time(created_at, self.now, "signature's created time")
        if expired:
            raise SignatureError("The signature has expired")


def _verify_rfc9421_request(
    method: str, path: str, h: dict[str, str], body: bytes, key: PublicKey, now: datetime
) -> None:
    if not h.get("host"):
        raise SignatureError("The request has no Host header")
    # The scheme is not in the request we are handed; behind a TLS proxy it is https.
    first_error: SignatureError | None = None
    for scheme in ("https", "http"):
        try:
            covered = _verify_rfc9421(method, f"{scheme}://{h['host']}{path}", h, key, now)
            break
        except SignatureError as error:
            first_error = first_error or error
    else:
        assert first_error is not None
        raise first_error
    names = {str(_sf(ident, "item")[0]) for ident in covered}
    for needed, any_of in _RFC9421_REQUIRED.items():
        if not names & any_of:
            raise SignatureError(f"The signature does not cover {needed}")
    if "date" in names:
        _check_time(_parse_date(h["date"]), now, "Date")
    _check_body_digests(h, body, names)


def _verify_rfc9421(
    method: str, url: str, h: dict[str, str], key: PublicKey, now: datetime
) -> dict[str, str]:
    label, components, params = _first_signature_input(h)
    signatures = _sf(h.get("signature", ""), "dictionary", "Signature")
    if not isinstance(signatures, dict) or label not in signatures:
        raise SignatureError(f"The Signature header has no signature {label!r}")
    # The library insists on one signature (or a signed tag); hand it the first alone.
    only = {
        **h,
        "signature-input": http_sf.ser({label: (components, params)}),
        "signature": http_sf.ser({label: signatures[label]}),
    }
    named = params.get("alg")
    if named is not None and named not in RFC9421_ALGORITHMS:
        raise SignatureError(f"Unsupported signature algorithm {named!r}")
    candidates = [RFC9421_ALGORITHMS[named]] if named else _algorithms_for(key)
    resolver = MappingKeyResolver(public_keys={params["keyid"]: key}, private_keys={})
    failure: Exception | None = None
    for algorithm in candidates:
        verifier = _Verifier(now=now, signature_algorithm=algorithm, key_resolver=resolver)
        try:
            message = SimpleNamespace(method=method.upper(), url=url, headers=only)
            result = verifier.verify(message, max_age=None)
        except LibraryError as error:
            failure = error
            continue
        return dict(result[0].covered_components)
    raise SignatureError(f"The signature does not verify: {failure or 'no algorithm fits'}")


def _first_signature_input(h: Mapping[str, str]) -> tuple[str, Any, dict[str, Any]]:
    inputs = _sf(h["signature-input"], "dictionary", "Signature-Input")
    if not isinstance(inputs, dict) or not inputs:
        raise SignatureError("The Signature-Input header is empty")
    label, (components, params) = next(iter(inputs.items()))
    if not isinstance(components, list) or not isinstance(params.get("keyid"), str):
        raise SignatureError(f"Signature-Input {label!r} has no keyid")
    return label, components, dict(params)


def _algorithms_for(key: PublicKey) -> list[type[Algorithm]]:
    """RFC 9421 §3.3.7: without `alg`, the key decides."""
    if isinstance(key, rsa.RSAPublicKey):
        return [alg.RSA_V1_5_SHA256, alg.RSA_PSS_SHA512]
    return [alg.ED25519 if isinstance(key, ed25519.Ed25519PublicKey) else alg.ECDSA_P256_SHA256]


# Shared


def _sf(value: str, kind: str, field: str = "component") -> Any:
    """A Structured Field (RFC 8941), the syntax of RFC 9421's headers."""
    try:
        return http_sf.parse(value.encode(), tltype=kind)
    except (http_sf.StructuredFieldError, ValueError, UnicodeError) as error:
        raise SignatureError(f"The {field} header is malformed") from error


def _lowered(headers: Mapping[str, str]) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


def _load_public_key(pem: str) -> PublicKey:
    try:
        key = serialization.load_pem_public_key(pem.encode())
    except (ValueError, TypeError) as error:
        raise SignatureError("The actor's public key is not a PEM public key") from error
    if not isinstance(key, PublicKey.__value__):
        raise SignatureError("The actor's public key is of an unsupported type")
    return key


def _parse_date(value: str) -> datetime:
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError) as error:
        raise SignatureError("The Date header is not an HTTP date") from error
    return clock.aware(parsed)


def _check_time(moment: datetime, now: datetime, what: str) -> None:
    if abs(now - moment) > MAX_SKEW:
        raise SignatureError(f"The {what} is more than 12 hours from ours")


def _check_body_digests(h: dict[str, str], body: bytes, covered: set[str]) -> None:
    """A signed Digest (RFC 3230) or Content-Digest (RFC 9530) must match the body, and a
    body must have one: otherwise the signature says nothing about what was sent."""
    if "digest" in covered:
        items = [item.partition("=") for item in parse_http_list(h["digest"])]
        known = [(name.strip().lower(), value.strip()) for name, _, value in items]
        known = [(name, value) for name, value in known if name in _LEGACY_DIGESTS]
        if not known:
            raise SignatureError("The Digest header has no SHA-256 digest")
        for name, value in known:
            expected = base64.b64encode(_LEGACY_DIGESTS[name](body).digest()).decode()
            if not hmac.compare_digest(value, expected):
                raise SignatureError("The Digest header does not match the body")
    if "content-digest" in covered:
        try:
            ContentDigest.verify(h["content-digest"], body)
        except InvalidSignature as error:
            raise SignatureError(str(error)) from error
    if body and not covered & {"digest", "content-digest"}:
        raise SignatureError("The signature does not cover a digest of the body")
