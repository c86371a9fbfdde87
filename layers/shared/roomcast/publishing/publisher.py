"""Publishing messages into a room: route, store each message with its first delivery records in
one write, then send one envelope per destination (roomcast.publishing.first_sends). A single
publish is a batch of one. Used by the publish function, and by every function that reports
operational events (roomcast.operations.events).

A publish request that dies between storing and sending cannot leave a message unsent: before it
stores anything it sends the outbox a delayed check naming the messages it may store, and once
every first envelope is sent (or left to the outbox) it records the request done. A check that
finds no such record sends what was stored (docs/decisions/0028-every-delivery-ends.md). Keyed
messages follow roomcast.publishing.keyed_messages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import KW_ONLY, dataclass, replace

from roomcast.catalog import Room, Subscription
from roomcast.event_types import SchemaGate
from roomcast.messages import Message, MessageExists, Publication
from roomcast.ordering import KeyNumberRecords, number_in_lines, numbers_wanted, waiting_items
from roomcast.outbox import PublishCheck
from roomcast.platform import RoomcastError, after_answer, ids, logger, now_ms
from roomcast.publishing import keyed_messages
from roomcast.publishing.first_sends import MessageSending, Routed
from roomcast.publishing.keyed_messages import Anew, Resume, Taken
from roomcast.publishing.plans import BatchPlan, Planned, first_records, plan_batch, still_there

# The publish check is sent while the room is read (both before anything is stored).
_CHECKS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="publish-check")


def internal_error() -> RoomcastError:
    """What a message of a batch answers when AWS failed it (the request as a whole went on)."""
    return RoomcastError(
        "internal error; this message may be retried", code="internal_error", http_status=500
    )


@dataclass
class Publisher(MessageSending):
    clock: Callable[[], int] = now_ms
    # The event-type catalog's checks: the publish API's messages only (not roomcast's own events).
    schemas: SchemaGate | None = None
    _: KW_ONLY
    numbers: KeyNumberRecords  # the ordering keys' numbers a keyed publish takes
    # The publish API's: the sends-done mark and the delivery log's records written together (one
    # wait for both), after the answer where the platform allows (roomcast.platform.after_answer:
    # no publisher waits for them; a crash before them only makes the check send again).
    mark_after_answer: bool = False

    def publish_message(self, tenant_id: str, room_id: str, publication: Publication) -> Message:
        """One message, as a batch of one; raises what the batch answers for it."""
        (answer,) = self.publish_batch(tenant_id, room_id, [publication])
        if isinstance(answer, RoomcastError):
            raise answer
        return answer

    def publish_batch(
        self, tenant_id: str, room_id: str, publications: Sequence[Publication]
    ) -> list[Message | RoomcastError]:
        """Publish messages to one room, each routed and answered on its own (a message or why it
        was refused, in order), with the work of one: the room and its subscriptions read once,
        keyless messages stored 25 per BatchWriteItem, keyed ones each with a conditional PutItem,
        and all envelopes sent together (10 per SQS call, the calls in parallel)."""
        request_id = ids.new_publish_request_id()
        message_ids = [keyed_messages.message_id(tenant_id, room_id, p.idempotency_key) for p in publications]
        # Read what the plan needs: the catalog's event types beside the room and its subscriptions.
        gate = self.schemas
        declared = _CHECKS.submit(gate.event_types, tenant_id, publications) if gate is not None else None
        room, subscriptions, direct = self._routing_with_check(
            tenant_id, room_id, request_id, list(dict.fromkeys(message_ids))
        )
        admissions = gate.admit(room, publications, declared.result()) if gate and declared else None
        # Plan (pure), then number the ordered messages in their keys' lines.
        now = self.clock()
        plan = plan_batch(request_id, message_ids, room, subscriptions, publications, admissions, now)
        wanted = numbers_wanted(plan.messages)
        last = self.numbers.take_ordering_numbers(tenant_id, room_id, wanted) if wanted else {}
        plan = plan.with_messages(number_in_lines(plan.messages, last))
        # Store, send, record.
        results = plan.results
        to_send, complete, anew = self._store(tenant_id, plan, publications, subscriptions, direct, now)
        answered = self.first_sends().send([p.routed for p in to_send], direct, request_id, now)
        for planned, ok in zip(to_send, answered, strict=True):
            results[planned.index] = planned.routed.message if ok else internal_error()
        if direct and complete and all(answered):
            resumed = [p.routed.message.id for p in to_send if p.routed.message.request_id != request_id]
            units = [request_id, *resumed]
            if self.mark_after_answer:  # the log's lines packed first: then both calls at once
                after_answer.later(lambda: self.log.flush(beside=lambda: self._record_sent(tenant_id, units)))
            else:
                self._record_sent(tenant_id, units)
        # Keyed messages whose key named a message past the key's window: published anew, new ids.
        if anew:
            keyless = [replace(publications[index], idempotency_key=None) for index in anew]
            for index, again in zip(anew, self.publish_batch(tenant_id, room_id, keyless), strict=True):
                results[index] = again
        for index, first in plan.repeats:
            same = publications[index] == publications[first]
            results[index] = results[first] if same else keyed_messages.key_reused()
        return [result if result is not None else internal_error() for result in results]

    def _store(
        self,
        tenant_id: str,
        plan: BatchPlan,
        publications: Sequence[Publication],
        subscriptions: Sequence[Subscription],
        direct: bool,
        now: int,
    ) -> tuple[list[Planned], bool, list[int]]:
        """Store the planned messages (before anything is sent: a message is never on a queue
        without its record); those to send, whether every one was stored or answered (a write
        that failed may still have stored part of a batch: only the check can find that), and the
        indexes of keyed messages to publish anew (their key's window is over)."""
        planned, results = plan.planned, plan.results
        failed = self.messages.put_messages(
            [(p.routed.message, first_records(p.routed)) for p in planned if not p.keyed],
            left_to_outbox=not direct,
            places=waiting_items,
        )
        failed |= self.messages.put_messages(
            [(p.routed.message, first_records(p.routed)) for p in planned if p.keyed],
            if_new=True,
            left_to_outbox=not direct,
            places=waiting_items,
        )
        to_send: list[Planned] = []
        taken: list[tuple[Planned, Message | None]] = []
        anew: list[int] = []
        complete = True
        for one in planned:
            error = failed.get(one.routed.message.id)
            if error is None:
                to_send.append(one)
            elif isinstance(error, MessageExists):
                taken.append((one, error.stored))
            else:
                logger.error("storing a message failed", exc_info=error)
                results[one.index] = internal_error()
                complete = False
        missing = [one.routed.message.id for one, stored in taken if stored is None]
        reread = self.messages.get_messages(tenant_id, missing) if missing else {}
        asked = [
            Taken(
                one.routed.message,
                publications[one.index].correlation_id,
                stored or reread.get(one.routed.message.id),
            )
            for one, stored in taken
        ]
        for (one, _), answer in zip(
            taken, keyed_messages.answer_taken(self.marks, tenant_id, asked, now), strict=True
        ):
            if isinstance(answer, Resume):
                routed = Routed(answer.stored, still_there(answer.stored, subscriptions))
                to_send.append(Planned(one.index, routed, True))
            elif isinstance(answer, Anew):
                anew.append(one.index)
            else:
                results[one.index] = answer
        return to_send, complete, anew

    def _routing_with_check(
        self, tenant_id: str, room_id: str, request_id: str, message_ids: Sequence[str]
    ) -> tuple[Room, list[Subscription], bool]:
        """The room's routing view, read while the publish check naming ``message_ids`` is sent
        (both before anything is stored), and whether the check was sent. Without it (SQS is
        failing) nothing is sent directly: the messages are stored marked for the outbox, which
        the table's stream triggers from their insertion, so a crash cannot lose them either."""
        check = PublishCheck(tenant_id, room_id, request_id, tuple(message_ids))
        sent: Future[None] = _CHECKS.submit(self.outbox.after_settling, check)
        try:
            room, subscriptions = self.catalog.routing_view(tenant_id, room_id)
        finally:
            try:
                sent.result()
                checked = True
            except Exception:
                logger.warning(
                    "the publish check could not be sent; the outbox sends this publish", exc_info=True
                )
                checked = False
        return room, subscriptions, checked

    def _record_sent(self, tenant_id: str, units: Sequence[str]) -> None:
        """These publish units' first sends are done (the request, and each stored message it
        finished for a dead earlier try). If this write fails the check sends them again:
        duplicates, never a loss, and the publish is still answered."""
        try:
            self.marks.mark_sends_done(tenant_id, units)
        except Exception:
            logger.exception("recording a publish's sends done failed", extra={"units": list(units)})
