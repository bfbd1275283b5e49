"""The client API's writes that race, through the real driver (scripts/test's
second pass; docs/api.md#logging-in): an authorization code is single-use
because taking it is one `find_one_and_delete`, which a server runs
atomically however many exchanges arrive at once; and a token's read is one
round trip with its person, on a server as in the emulator.
"""

import threading

from api.documents import OAuthCode, OAuthToken
from tests.api.conftest import BASE, consent, session_for
from tests.api.test_oauth import authorize_path, code_from, exchange

EXCHANGES = 4


def test_one_code_exchanged_at_once_by_several_clients_gives_one_token(ann_web, app_credentials):
    _, client_id, secret = app_credentials
    code = code_from(consent(ann_web, BASE + authorize_path(client_id)))
    start = threading.Barrier(EXCHANGES)
    answers: list[tuple[int, dict]] = []

    def exchange_it() -> None:
        session = session_for()  # a client (and Django test client) per thread
        start.wait()
        answer = exchange(session, client_id, code, client_secret=secret)
        answers.append((answer.status_code, answer.json()))

    threads = [threading.Thread(target=exchange_it) for _ in range(EXCHANGES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(status for status, _ in answers) == [200] + [400] * (EXCHANGES - 1)
    assert all(body["error"] == "invalid_grant" for status, body in answers if status == 400)
    assert OAuthToken.objects(user="ann").count() == 1
    assert OAuthCode.objects.count() == 0


def test_a_token_and_its_person_are_one_round_trip_through_the_driver(ann_api, round_trips):
    ann_api.account_verify_credentials()  # the first use may note `last_used`
    with round_trips() as trips:
        me = ann_api.account_verify_credentials()
    assert me.id == "ann" and trips.total == 1
