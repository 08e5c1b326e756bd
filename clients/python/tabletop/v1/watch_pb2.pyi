from tabletop.v1 import types_pb2 as _types_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WatchMatchRequest(_message.Message):
    __slots__ = ("match_id", "seat_token", "from_version")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    FROM_VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    from_version: int
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., from_version: _Optional[int] = ...) -> None: ...

class WatchEvent(_message.Message):
    __slots__ = ("version", "snapshot", "transition", "seat_acted")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    TRANSITION_FIELD_NUMBER: _ClassVar[int]
    SEAT_ACTED_FIELD_NUMBER: _ClassVar[int]
    version: int
    snapshot: _types_pb2.MatchView
    transition: Transition
    seat_acted: SeatActed
    def __init__(self, version: _Optional[int] = ..., snapshot: _Optional[_Union[_types_pb2.MatchView, _Mapping]] = ..., transition: _Optional[_Union[Transition, _Mapping]] = ..., seat_acted: _Optional[_Union[SeatActed, _Mapping]] = ...) -> None: ...

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
