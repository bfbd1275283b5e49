"""The random values the API hands out, and the digests it keeps of them."""

import hashlib
import secrets


def new_secret() -> str:
    """A client secret, a code or a token: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def digest(value: str) -> str:
    """What is stored and looked up instead of the secret itself."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
