"""`visibility=direct` on `POST /api/v1/statuses` (docs/api.md#statuses).

Our private words are messages (docs/api.md#how-our-concepts-map), not
posts: until a status can be mapped onto a conversation, a direct status
is refused with the endpoint that sends one."""

from django.http import HttpRequest

from api.http import ApiError
from api.params import Params


def create(request: HttpRequest, params: Params) -> dict:
    raise ApiError(
        422,
        "Validation failed: direct statuses are messages here; "
        "send them with /api/v1/conversations",
    )
