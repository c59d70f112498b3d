"""The typed shape of a database (only what is rendered is decoded), and a record mended to it.

A record the typed decode refuses is read as Spack's reader (Python's `json`) reads it, then
mended to this shape (`mended_record`): the reading that follows is the typed one either way.
"""

from __future__ import annotations

from typing import Any, TypeGuard

import msgspec

from cachetui.core.load.sources.spack_node import HeldNode, Node, fitting, unwrapped


class Record(msgspec.Struct):
    spec: Node
    in_buildcache: bool = False


class HeldRecord(msgspec.Struct):
    """A record as a big index is first read: what rendering a binary takes (`HeldNode`), and no more."""

    spec: HeldNode
    in_buildcache: bool = False


class _Database(msgspec.Struct):
    installs: dict[str, msgspec.Raw]  # each record decoded on its own: the whole tree never exists at once
    version: str | int = ""


class _Index(msgspec.Struct):
    database: _Database


class _Membership(msgspec.Struct):
    in_buildcache: bool = False


class _MembershipDatabase(msgspec.Struct):
    installs: dict[str, _Membership]
    version: str | int = ""


class _MembershipIndex(msgspec.Struct):
    database: _MembershipDatabase


INDEX_DECODER = msgspec.json.Decoder(_Index)
RECORD_DECODER = msgspec.json.Decoder(Record)
HELD_DECODER = msgspec.json.Decoder(HeldRecord)
MEMBERSHIP_DECODER = msgspec.json.Decoder(_MembershipIndex)
# What a typed decode of a record can raise: the record is then read the slow way, on its own.
DECODE_FAULTS = (msgspec.ValidationError, msgspec.DecodeError, UnicodeError, RecursionError)


def is_wrapped(spec: Any) -> TypeGuard[dict[str, Any]]:
    """DB 5 (specfile v1) wrapped each node in its name: `{"zlib": {...}}`."""
    return isinstance(spec, dict) and "name" not in spec and len(spec) == 1


def mended_record(record: dict[str, Any]) -> msgspec.Raw | None:
    """A record as Python's json read it, in the typed shape (fields of the wrong type left out); None
    without a node that has a name. DB 5's wrapped nodes and dependency mappings are unwrapped.

    Raises UnicodeEncodeError for text no UTF-8 can hold (a lone surrogate escaped in the JSON).
    """
    spec = unwrapped(record.get("spec"))
    if spec is None:
        return None
    shaped = {"spec": fitting(spec, Node), "in_buildcache": record.get("in_buildcache") is True}
    return msgspec.Raw(msgspec.json.encode(shaped))  # NaN and Infinity encode as null


def fits_typed_shape(record: dict[str, Any]) -> bool:
    """Whether the typed reading would take this record as it is (else: fields of the wrong type show empty)."""
    try:
        RECORD_DECODER.decode(msgspec.json.encode(record))  # NaN and Infinity encode as null
    except DECODE_FAULTS:
        return False
    return True
