"""The Error entity (docs.joinmastodon.org/entities/Error)."""


def error(message: str, description: str | None = None) -> dict:
    data = {"error": message}
    if description is not None:
        data["error_description"] = description
    return data
