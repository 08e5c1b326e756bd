from tabletop.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WatchMatchRequest(_message.Message):
    __slots__ = ("match_id", "seat_token", "from_version", "after_seq", "omit_views")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    FROM_VERSION_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    OMIT_VIEWS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    from_version: int
    after_seq: int
    omit_views: bool
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., from_version: _Optional[int] = ..., after_seq: _Optional[int] = ..., omit_views: _Optional[bool] = ...) -> None: ...

class WatchEvent(_message.Message):
    __slots__ = ("version", "snapshot", "transition", "seat_acted", "seq", "at_ms")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    TRANSITION_FIELD_NUMBER: _ClassVar[int]
    SEAT_ACTED_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    AT_MS_FIELD_NUMBER: _ClassVar[int]
    version: int
    snapshot: _types_pb2.MatchView
    transition: Transition
    seat_acted: SeatActed
    seq: int
    at_ms: int
    def __init__(self, version: _Optional[int] = ..., snapshot: _Optional[_Union[_types_pb2.MatchView, _Mapping]] = ..., transition: _Optional[_Union[Transition, _Mapping]] = ..., seat_acted: _Optional[_Union[SeatActed, _Mapping]] = ..., seq: _Optional[int] = ..., at_ms: _Optional[int] = ...) -> None: ...

class ListEventsRequest(_message.Message):
    __slots__ = ("match_id", "seat_token", "after_seq", "from_version", "page_size", "include_views")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    FROM_VERSION_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_VIEWS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    after_seq: int
    from_version: int
    page_size: int
    include_views: bool
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., after_seq: _Optional[int] = ..., from_version: _Optional[int] = ..., page_size: _Optional[int] = ..., include_views: _Optional[bool] = ...) -> None: ...

class ListEventsResponse(_message.Message):
    __slots__ = ("events", "last_seq")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[WatchEvent]
    last_seq: int
    def __init__(self, events: _Optional[_Iterable[_Union[WatchEvent, _Mapping]]] = ..., last_seq: _Optional[int] = ...) -> None: ...

class Transition(_message.Message):
    __slots__ = ("event_json", "view")
    EVENT_JSON_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    event_json: str
    view: _types_pb2.MatchView
    def __init__(self, event_json: _Optional[str] = ..., view: _Optional[_Union[_types_pb2.MatchView, _Mapping]] = ...) -> None: ...

class SeatActed(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...
