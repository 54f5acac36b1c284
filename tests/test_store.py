"""The store of what the public APIs keep between calls: bounded by count, bytes and time, scoped, oldest out."""

from __future__ import annotations

from emulator.state.kept import Bounds, Store

A, B = ("", "sk-a"), ("", "sk-b")


def test_a_value_is_kept_in_its_scope_until_its_time_is_up() -> None:
    store = Store(Bounds(ttl=10))
    store.put(A, "response:1", b"one", now=100)
    assert store.get(A, "response:1", now=109.9) == b"one"
    assert store.get(B, "response:1", now=100) is None  # another key's
    assert store.get(A, "response:1", now=110) is None  # expired, and forgotten
    assert len(store) == 0 and store.size == 0


def test_past_the_count_the_oldest_goes_first() -> None:
    store = Store(Bounds(entries=2))
    for i in range(3):
        store.put(A, str(i), b"x", now=i)
    assert [store.get(A, str(i), now=3) for i in range(3)] == [None, b"x", b"x"]


def test_past_the_bytes_the_oldest_go_until_the_new_value_fits() -> None:
    store = Store(Bounds(size=10))
    store.put(A, "old", b"12345", now=0)
    store.put(A, "older", b"1234", now=1)
    store.put(A, "new", b"123456", now=2)
    assert store.get(A, "old", now=3) is None and store.get(A, "older", now=3) == b"1234"
    assert store.size == 10
    assert not store.put(A, "huge", b"x" * 11, now=3)  # larger than the whole store: kept nowhere, nothing lost
    assert store.size == 10 and store.get(A, "huge", now=3) is None


def test_keeping_a_key_again_replaces_it_and_makes_it_the_newest() -> None:
    store = Store(Bounds(entries=2))
    store.put(A, "a", b"first", now=0)
    store.put(A, "b", b"b", now=1)
    store.put(A, "a", b"second", now=2)
    store.put(A, "c", b"c", now=3)  # "b" is now the oldest
    assert (store.get(A, "a", now=4), store.get(A, "b", now=4)) == (b"second", None)
    assert store.size == len(b"second") + len(b"c")


def test_expired_values_go_as_new_ones_come() -> None:
    store = Store(Bounds(ttl=5))
    store.put(A, "a", b"a", now=0)
    store.put(A, "b", b"b", now=10)
    assert len(store) == 1 and store.size == 1


def test_add_keeps_the_first_value_under_a_key() -> None:
    store = Store()
    assert store.add(A, "continued:m", b"mine", now=0) == b"mine"
    assert store.add(A, "continued:m", b"theirs", now=1) == b"mine"
    assert store.add(B, "continued:m", b"theirs", now=1) == b"theirs"


def test_delete_says_whether_there_was_a_value() -> None:
    store = Store(Bounds(ttl=5))
    store.put(A, "a", b"a", now=0)
    store.put(A, "b", b"b", now=0)
    assert store.delete(A, "a", now=1) and not store.delete(A, "a", now=1)
    assert not store.delete(A, "b", now=5)  # expired: as if it never was
    assert store.size == 0


def test_clear_forgets_one_test_or_all() -> None:
    store = Store()
    store.put(("t1", "k"), "a", b"a", now=0)
    store.put(("t2", "k"), "a", b"bb", now=0)
    store.clear("t1")
    assert store.get(("t1", "k"), "a", now=0) is None and store.get(("t2", "k"), "a", now=0) == b"bb"
    assert store.size == 2
    store.clear()
    assert len(store) == 0 and store.size == 0
