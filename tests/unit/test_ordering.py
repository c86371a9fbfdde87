"""The ordering-key rule (roomcast.ordering.model), pure: examples of each event, then a model of
one key driven by random publishes, endings, operator resumes and stream records handed back
(duplicates, and crashes between a claim and its send), checking that a key sends its messages
one at a time, in publish order, and never stalls."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from hypothesis import given, settings, strategies as st

from roomcast.catalog.model import OnDeadKey
from roomcast.messages.model import DeliveryStatus
from roomcast.ordering.model import (
    Arrived,
    Ended,
    KeyEvent,
    KeyHead,
    KeyPlan,
    KeyRef,
    KeyState,
    Resumed,
    is_ordering_key,
    plan,
    releases_alone,
    trigger_of,
)

HEAD = KeyHead(KeyRef("acme", "room_1", "sub_1", "order-1"))


def test_a_message_arriving_at_a_free_key_claims_the_oldest_waiting_one() -> None:
    assert plan(None, ["m1", "m2"], Arrived("m2"), OnDeadKey.PAUSE) == KeyPlan(claim="m1", queued=True)


def test_a_message_arriving_at_a_busy_or_paused_key_waits() -> None:
    busy = replace(HEAD, in_flight="m1", claimed_by="arrived:m1")
    paused = replace(HEAD, state=KeyState.PAUSED, dead_message_id="m1")
    # a message behind the one in flight is marked queued on the head, once
    assert plan(busy, ["m1", "m2"], Arrived("m2"), OnDeadKey.PAUSE) == KeyPlan(queued=True)
    assert plan(replace(busy, queued=True), ["m1", "m2"], Arrived("m2"), OnDeadKey.PAUSE) == KeyPlan()
    assert plan(paused, ["m1", "m2"], Arrived("m2"), OnDeadKey.PAUSE) == KeyPlan()


def test_the_trigger_that_claimed_a_message_sends_it_again_when_seen_again() -> None:
    claimed = replace(HEAD, in_flight="m1", claimed_by="arrived:m1")
    assert plan(claimed, ["m1"], Arrived("m1"), OnDeadKey.PAUSE) == KeyPlan(resend="m1")


def test_an_ending_forgets_the_message_releases_the_key_and_claims_the_next() -> None:
    head = replace(HEAD, in_flight="m1", claimed_by="arrived:m1")
    for status in (DeliveryStatus.DELIVERED, DeliveryStatus.EXPIRED, DeliveryStatus.CLEARED):
        assert plan(head, ["m1", "m2"], Ended("m1", status), OnDeadKey.PAUSE) == KeyPlan(
            forget="m1", release="m1", claim="m2", queued=False
        )
        assert plan(head, ["m1", "m2", "m3"], Ended("m1", status), OnDeadKey.PAUSE).queued is True


def test_a_waiting_message_cleared_leaves_the_one_in_flight_alone() -> None:
    head = replace(HEAD, in_flight="m1", claimed_by="arrived:m1")
    cleared = plan(head, ["m1", "m2"], Ended("m2", DeliveryStatus.CLEARED), OnDeadKey.PAUSE)
    assert cleared == KeyPlan(forget="m2")


def test_a_dead_message_pauses_its_key_or_is_skipped() -> None:
    head = replace(HEAD, in_flight="m1", claimed_by="arrived:m1")
    dead = Ended("m1", DeliveryStatus.DEAD, "HTTP 500")
    assert plan(head, ["m1", "m2"], dead, OnDeadKey.PAUSE) == KeyPlan(
        release="m1", pause="m1", reason="HTTP 500", queued=True
    )
    skipped = plan(head, ["m1", "m2"], dead, OnDeadKey.SKIP)
    assert skipped == KeyPlan(forget="m1", release="m1", claim="m2", queued=False)


def test_a_dead_ending_seen_again_leaves_the_paused_key_on_its_message() -> None:
    paused = replace(HEAD, state=KeyState.PAUSED, dead_message_id="m1")
    again = plan(paused, ["m1", "m2"], Ended("m1", DeliveryStatus.DEAD, "HTTP 500"), OnDeadKey.PAUSE)
    assert again == KeyPlan()


def test_a_paused_keys_dead_message_replayed_and_delivered_lets_the_key_go_on() -> None:
    paused = replace(HEAD, state=KeyState.PAUSED, dead_message_id="m1")
    delivered = plan(paused, ["m1", "m2"], Ended("m1", DeliveryStatus.DELIVERED), OnDeadKey.PAUSE)
    assert delivered == KeyPlan(forget="m1", unpause=True, claim="m2", queued=False)


def test_a_message_handed_to_the_failover_does_not_pause_its_key() -> None:
    head = replace(HEAD, in_flight="m1", claimed_by="arrived:m1")
    handed = Ended("m1", DeliveryStatus.DEAD, "HTTP 500", failed_over=True)
    assert plan(head, ["m1", "m2"], handed, OnDeadKey.PAUSE) == KeyPlan(
        forget="m1", release="m1", claim="m2", queued=False
    )


def test_a_resume_replays_the_dead_message_first_or_skips_it() -> None:
    paused = replace(HEAD, state=KeyState.PAUSED, dead_message_id="m1", paused_reason="HTTP 500")
    assert plan(paused, ["m1", "m2"], Resumed(skip=False, at_ms=5), OnDeadKey.PAUSE) == KeyPlan(
        unpause=True, replay="m1", queued=True
    )
    assert plan(paused, ["m1", "m2"], Resumed(skip=True, at_ms=5), OnDeadKey.PAUSE) == KeyPlan(
        forget="m1", unpause=True, claim="m2", queued=False
    )
    assert plan(HEAD, ["m1"], Resumed(skip=True, at_ms=5), OnDeadKey.PAUSE) == KeyPlan()


def test_a_paused_key_sends_nothing_when_a_waiting_message_ends() -> None:
    paused = replace(HEAD, state=KeyState.PAUSED, dead_message_id="m1")
    cleared = plan(paused, ["m1", "m2", "m3"], Ended("m2", DeliveryStatus.CLEARED), OnDeadKey.PAUSE)
    assert cleared == KeyPlan(forget="m2")


def test_ordering_keys_are_short_url_safe_text() -> None:
    assert is_ordering_key("order-42")
    assert is_ordering_key("acct:7@eu.1")
    assert is_ordering_key("a" * 128)
    assert not any(is_ordering_key(k) for k in ("", "a" * 129, "a/b", "a b", "a#b", "é", "a?b"))


# --- a model of one key --------------------------------------------------------------------------


@dataclass
class _Key:
    """The head and the waiting line as the store keeps them, with the store's conditions: a
    release only of the message still held, a claim only of a free key."""

    on_dead: OnDeadKey
    head: KeyHead | None = None
    waiting: list[str] = field(default_factory=list)
    published: list[str] = field(default_factory=list)
    ended: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)
    sent: list[str] = field(default_factory=list)
    seen: list[KeyEvent] = field(default_factory=list)
    crashed: list[KeyEvent] = field(default_factory=list)  # their records come back (stream retries)

    def apply(self, event: KeyEvent, *, crash_before_send: bool = False) -> None:
        self.seen.append(event)
        if isinstance(event, Ended) and releases_alone(event, self.on_dead):
            # roomcast.ordering.steps: released without a read while the head holds it, flows, and
            # has nothing queued behind it; then out of line by its number, a deletion held back
            # that a crash may lose (``crash_before_send``): the place stays, of a message ended
            alone = self.head
            if (
                alone is not None
                and alone.in_flight == event.message_id
                and not (alone.paused or alone.queued)
            ):
                self.head = replace(alone, in_flight=None, claimed_by=None)
                if event.message_id in self.waiting and not crash_before_send:
                    self.waiting.remove(event.message_id)
                return
        steps = plan(self.head, list(self.waiting), event, self.on_dead)
        head = self.head or HEAD
        if steps.forget in self.waiting:
            self.waiting.remove(steps.forget)
            if isinstance(event, Resumed):
                self.skipped.add(steps.forget)
        if steps.release is not None and head.in_flight == steps.release:
            head = replace(head, in_flight=None, claimed_by=None)
        if steps.pause is not None:
            head = replace(head, state=KeyState.PAUSED, dead_message_id=steps.pause)
        if steps.unpause:
            head = replace(head, state=KeyState.FLOWING, dead_message_id=None)
        claimed = steps.claim or steps.replay
        if claimed is not None:
            if head.in_flight is not None:
                self.head = head
                return  # the claim's condition failed: someone else holds the key
            head = replace(head, in_flight=claimed, claimed_by=trigger_of(event))
        if steps.queued is not None:
            head = replace(head, queued=steps.queued)
        self.head = head
        assert steps.sends is None or not head.paused, ("sent while paused", steps, head)
        if steps.claim is not None and steps.claim in self.ended:
            # roomcast.ordering.sends: a claimed message whose record had ended is not sent; its
            # ending moves the key on at once
            self.apply(Ended(steps.claim, DeliveryStatus.DELIVERED))
            return
        if steps.sends is not None and crash_before_send:
            self.crashed.append(event)
        elif steps.sends is not None:
            self.sent.append(steps.sends)

    def check(self) -> None:
        """Each send is the key's oldest message not yet ended, or one sent already (again)."""
        for position, message in enumerate(self.sent):
            before = self.sent[:position]
            if message in before:
                continue
            earlier = self.published[: self.published.index(message)]
            assert all(m in self.ended or m in self.skipped for m in earlier), (message, self.sent)
            assert all(m in self.ended or m in self.skipped for m in before), (message, self.sent)


_STATUSES = st.sampled_from(
    [DeliveryStatus.DELIVERED, DeliveryStatus.DEAD, DeliveryStatus.EXPIRED, DeliveryStatus.CLEARED]
)
_STEP = st.one_of(
    st.just(("publish",)),
    st.tuples(st.just("end"), _STATUSES),
    st.tuples(st.just("clear-waiting"), st.integers(0, 5)),
    st.tuples(st.just("stream"), st.integers(0, 50), st.booleans()),
    st.tuples(st.just("again"), st.integers(0, 50)),
    st.tuples(st.just("resume"), st.booleans()),
)


@settings(max_examples=600, deadline=None)
@given(on_dead=st.sampled_from(list(OnDeadKey)), steps=st.lists(_STEP, max_size=40))
def test_a_key_sends_one_message_at_a_time_in_publish_order_whatever_happens(
    on_dead: OnDeadKey, steps: list[tuple[object, ...]]
) -> None:
    key = _Key(on_dead)
    pending: list[KeyEvent] = []  # written to the table, not yet seen by the stream's reader
    for step in steps:
        kind = step[0]
        if kind == "publish":
            message = f"m{len(key.published)}"
            key.published.append(message)
            key.waiting.append(message)
            pending.append(Arrived(message))
        elif kind == "end" and key.head is not None and key.head.in_flight in key.sent:
            message = key.head.in_flight
            status = step[1]
            assert isinstance(status, DeliveryStatus)
            if any(isinstance(e, Ended) and e.message_id == message for e in pending):
                continue  # its ending is written already
            if status is not DeliveryStatus.DEAD or on_dead is OnDeadKey.SKIP:
                key.ended.add(message)
            pending.append(Ended(message, status, "failed"))
        elif kind == "clear-waiting" and key.waiting:
            message = key.waiting[int(str(step[1])) % len(key.waiting)]
            held = () if key.head is None else (key.head.in_flight, key.head.dead_message_id)
            if message not in held and message not in key.ended:  # a dead one is not owed
                key.ended.add(message)
                pending.append(Ended(message, DeliveryStatus.CLEARED))
        elif kind == "stream" and pending:
            # the stream's records come in any order across messages; a crash may cut one short
            event = pending.pop(int(str(step[1])) % len(pending))
            key.apply(event, crash_before_send=bool(step[2]))
        elif kind == "again" and key.seen:
            key.apply(key.seen[int(str(step[1])) % len(key.seen)])
        elif kind == "resume":
            key.apply(Resumed(skip=bool(step[1]), at_ms=len(key.seen)))
        key.check()
    # and it never stalls: once every record is read, and the ones cut short read again (the stream
    # retries a failed batch), the oldest message not ended is in flight and sent, unless paused
    while pending or key.crashed:
        key.apply(pending.pop(0) if pending else key.crashed.pop(0))
        key.check()
    open_messages = [m for m in key.published if m not in key.ended and m not in key.skipped]
    if open_messages and not (key.head is not None and key.head.paused):
        assert key.head is not None
        assert key.head.in_flight == open_messages[0]
        assert open_messages[0] in key.sent


def test_a_place_left_behind_by_a_release_without_a_read_does_not_stall_its_key() -> None:
    # Given: m0 delivered and its key released without a read, the deletion of its place lost
    key = _Key(OnDeadKey.PAUSE, published=["m0"], waiting=["m0"])
    key.apply(Arrived("m0"))
    key.published.append("m1")  # published while m0 is in flight, its arrival not read yet
    key.waiting.append("m1")
    key.ended.add("m0")
    key.apply(Ended("m0", DeliveryStatus.DELIVERED), crash_before_send=True)
    assert key.waiting == ["m0", "m1"]
    assert key.head is not None
    assert key.head.in_flight is None
    # When: m1 arrives, and the line's oldest place is the ended m0
    key.apply(Arrived("m1"))
    # Then: m0's ending moves the key on at once, and m1 is sent
    assert key.head.in_flight == "m1"
    assert key.sent == ["m0", "m1"]
    assert key.waiting == ["m1"]


def test_keyed_messages_with_ordered_destinations_are_numbered_per_key_in_request_order() -> None:
    from roomcast.messages.model import Message
    from roomcast.ordering.model import number_in_lines, numbers_wanted

    def message(number: int, key: str | None, ordered: bool) -> Message:
        return Message(
            f"m{number}", "acme", "room_1", "e", "1", "c", {}, "2026-11-22T10:00:00.000Z", 0, None, ("s",),
            ordering_key=key, ordered_to=("s",) if ordered else (),
        )  # fmt: skip

    taken: list[tuple[str, int]] = []

    def take(counts: Mapping[str, int]) -> dict[str, int]:
        taken.extend(counts.items())
        return {key: {"a": 10, "b": 3}[key] for key in counts}

    messages = [
        message(0, "a", True),
        message(1, "b", True),
        message(2, "a", True),
        message(3, "a", False),
        message(4, None, False),
    ]
    numbered = number_in_lines(messages, take(numbers_wanted(messages)))
    assert sorted(taken) == [("a", 2), ("b", 1)]
    assert [m.ordering_number for m in numbered] == [9, 3, 10, None, None]
