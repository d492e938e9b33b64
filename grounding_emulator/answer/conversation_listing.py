"""``ListConversations``: its filter, its ordering and its pages; pure.

``ListConversationsRequest`` (v1 reference): the filter's "supported features are:
user_pseudo_id, state. Example: "user_pseudo_id = some_id""; ``order_by`` is "A
comma-separated list of fields to order by, sorted in ascending order. Use "desc" after a field
name for descending. Supported fields: update_time, create_time, conversation_name";
``page_size`` "If unspecified, defaults to 50. Max allowed value is 1000".

The filter is AIP-160, parsed as ``ListSessions``' is (``session_listing.list_page``): a term
is ``user_pseudo_id`` or ``state`` with ``=`` (or ``:``) or ``!=`` and a quoted string or a
bare word (``state`` one of ``STATE_UNSPECIFIED``, ``IN_PROGRESS``, ``COMPLETED``); ``NOT`` or
``-`` negates, ``AND`` and ``OR`` combine. Any other field or operator is ``INVALID_ARGUMENT``
naming it. Ties, and no ``order_by``, keep creation order (Google does not document its
default order); ``next_page_token`` is opaque and bound to the parent, filter and ordering.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from grounding_emulator.answer.conversations import STATES, Conversation
from grounding_emulator.answer.session_listing import Predicate, list_page
from grounding_emulator.errors import InvalidArgument

__all__ = ["FILTER_FIELDS", "ORDER_FIELDS", "ConversationPage", "list_conversations"]

FILTER_FIELDS = ("user_pseudo_id", "state")
ORDER_FIELDS = ("update_time", "create_time", "conversation_name")


def _term(name: str, op: str, value: str) -> Predicate:
    """One ``field op value`` as a predicate (checked against the documented fields)."""
    if name not in FILTER_FIELDS:
        raise InvalidArgument(
            f"filter: {name!r} is not a field to filter conversations by "
            f"({', '.join(FILTER_FIELDS)})",
            field="filter",
        )
    if op not in ("=", "!=", ":"):
        raise InvalidArgument(f"filter: {name} takes = or !=, got {op!r}", field="filter")
    if name == "state" and value not in STATES:
        raise InvalidArgument(
            f"filter: state takes {', '.join(STATES)}, got {value!r}", field="filter"
        )
    wanted = op != "!="
    return lambda c: (getattr(c, name) == value) == wanted


def _sort_value(conversation: Conversation, name: str) -> Any:
    if name == "update_time":
        return conversation.update_time
    if name == "create_time":
        return conversation.start_time
    return conversation.name


@dataclass(frozen=True, slots=True)
class ConversationPage:
    """One page of conversations; ``next_page_token`` is empty on the last page."""

    conversations: tuple[Conversation, ...]
    next_page_token: str = ""


def list_conversations(
    conversations: Sequence[Conversation],
    *,
    scope: str,
    filter_: str = "",
    order_by: str = "",
    page_size: int = 0,
    page_token: str = "",
) -> ConversationPage:
    """One page of ``conversations`` (in creation order) that pass ``filter_``, ordered by
    ``order_by`` (``scope``, the parent, is bound into page tokens)."""
    page, token = list_page(
        conversations,
        scope=scope,
        filter_=filter_,
        order_by=order_by,
        page_size=page_size,
        page_token=page_token,
        term=_term,
        order_fields=ORDER_FIELDS,
        sort_value=_sort_value,
        size_of=lambda conversation: conversation.size,
    )
    return ConversationPage(page, token)
