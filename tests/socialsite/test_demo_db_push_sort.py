"""The demo database's `$push` `$sort` fast path orders exactly as the BSON sort."""

from datetime import UTC, datetime, timedelta

from bson import ObjectId
from hypothesis import given
from hypothesis import strategies as st

from embedded_mongo.push_sort import _bson_sort, _native_sort

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
entries = st.lists(
    st.fixed_dictionaries(
        {
            "ts": st.integers(0, 5).map(lambda ms: EPOCH + timedelta(milliseconds=ms)),
            "id": st.binary(min_size=12, max_size=12).map(ObjectId),
            "by": st.text(max_size=3),
        }
    ),
    max_size=30,
)


@given(entries, st.sampled_from([-1, 1]))
def test_the_native_sort_agrees_with_the_bson_sort(items, direction):
    order = {"ts": direction, "id": direction}
    native, bson = [dict(i) for i in items], [dict(i) for i in items]
    assert _native_sort(native, order)
    _bson_sort(bson, order)
    assert native == bson


def test_mixed_types_or_directions_fall_back_to_the_bson_sort():
    mixed = [{"ts": 1, "id": "a"}, {"ts": "2", "id": "b"}]
    assert not _native_sort(mixed, {"ts": -1, "id": -1})
    assert not _native_sort([{"ts": 1, "id": 2}], {"ts": -1, "id": 1})
    assert not _native_sort([{"ts": True, "id": 2}], {"ts": -1, "id": -1})
