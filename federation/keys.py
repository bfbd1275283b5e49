"""Our people's signing keys (docs/federation.md#signatures): an RSA pair
per person, made the first time anything needs it, and the instance's own
pair for the fetches no person asks for."""

import contextlib
from collections.abc import Callable

from pymongo.errors import DuplicateKeyError

from federation import signatures, uris
from federation.documents import ActorKey

#: The key of the instance actor (`/actor`), which signs fetches.
INSTANCE = "~instance"

Signer = Callable[[str, str, bytes | None], dict[str, str]]


def key_for(handle: str) -> ActorKey:
    """The person's key pair; two requests making the first one at once
    insert on the same `_id`, and the loser reads the winner's."""
    found = ActorKey.objects(handle=handle).first()
    if found is not None:
        return found
    private_pem, public_pem = signatures.generate_key_pair()
    with contextlib.suppress(DuplicateKeyError):
        ActorKey._get_collection().insert_one(
            {"_id": handle, "private_pem": private_pem, "public_pem": public_pem}
        )
    found = ActorKey.objects(handle=handle).first()
    assert found is not None
    return found


def public_pem(handle: str) -> str:
    return key_for(handle).public_pem


def instance_key_id() -> str:
    return uris.absolute("/actor") + "#main-key"


def signer(handle: str = INSTANCE) -> Signer:
    """Sign a request as `handle` (or as the instance)."""
    key = key_for(handle)
    key_id = instance_key_id() if handle == INSTANCE else uris.key_id(handle)

    def sign(method: str, url: str, body: bytes | None) -> dict[str, str]:
        return signatures.sign_request(
            method=method, url=url, body=body, key_id=key_id, private_key_pem=key.private_pem
        )

    return sign
