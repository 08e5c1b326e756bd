from tabletop.v1 import matches_pb2 as _matches_pb2
from tabletop.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OutReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OUT_REASON_UNSPECIFIED: _ClassVar[OutReason]
    OUT_REASON_CLOCK: _ClassVar[OutReason]
    OUT_REASON_RESIGNED: _ClassVar[OutReason]
    OUT_REASON_ABSENT: _ClassVar[OutReason]
    OUT_REASON_RULE: _ClassVar[OutReason]
    OUT_REASON_DIRECTOR: _ClassVar[OutReason]
OUT_REASON_UNSPECIFIED: OutReason
OUT_REASON_CLOCK: OutReason
OUT_REASON_RESIGNED: OutReason
OUT_REASON_ABSENT: OutReason
OUT_REASON_RULE: OutReason
OUT_REASON_DIRECTOR: OutReason

class ReissueSeatTokenRequest(_message.Message):
    __slots__ = ("admin_token", "match_id", "seat")
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    match_id: str
    seat: int
    def __init__(self, admin_token: _Optional[str] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class FollowLifecycleRequest(_message.Message):
    __slots__ = ("admin_token", "after_cursor", "game", "labels")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AFTER_CURSOR_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    after_cursor: int
    game: str
    labels: _containers.ScalarMap[str, str]
    def __init__(self, admin_token: _Optional[str] = ..., after_cursor: _Optional[int] = ..., game: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ...) -> None: ...

class LifecycleEvent(_message.Message):
    __slots__ = ("cursor", "match_id", "at_ms", "game", "labels", "created", "seat_filled", "started", "seat_out", "paused", "resumed", "time_added", "finished", "aborted", "unavailable", "quarantined", "released")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class Created(_message.Message):
        __slots__ = ("players", "plugin_version", "seat_players")
        PLAYERS_FIELD_NUMBER: _ClassVar[int]
        PLUGIN_VERSION_FIELD_NUMBER: _ClassVar[int]
        SEAT_PLAYERS_FIELD_NUMBER: _ClassVar[int]
        players: int
        plugin_version: str
        seat_players: _containers.RepeatedCompositeFieldContainer[_types_pb2.SeatPlayer]
        def __init__(self, players: _Optional[int] = ..., plugin_version: _Optional[str] = ..., seat_players: _Optional[_Iterable[_Union[_types_pb2.SeatPlayer, _Mapping]]] = ...) -> None: ...
    class SeatFilled(_message.Message):
        __slots__ = ("seat", "player")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        seat: int
        player: _types_pb2.SeatPlayer
        def __init__(self, seat: _Optional[int] = ..., player: _Optional[_Union[_types_pb2.SeatPlayer, _Mapping]] = ...) -> None: ...
    class Started(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class SeatOut(_message.Message):
        __slots__ = ("seat", "reason")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        REASON_FIELD_NUMBER: _ClassVar[int]
        seat: int
        reason: OutReason
        def __init__(self, seat: _Optional[int] = ..., reason: _Optional[_Union[OutReason, str]] = ...) -> None: ...
    class Paused(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Resumed(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class TimeAdded(_message.Message):
        __slots__ = ("seat", "added_ms")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        ADDED_MS_FIELD_NUMBER: _ClassVar[int]
        seat: int
        added_ms: int
        def __init__(self, seat: _Optional[int] = ..., added_ms: _Optional[int] = ...) -> None: ...
    class Finished(_message.Message):
        __slots__ = ("results", "adjudicated")
        RESULTS_FIELD_NUMBER: _ClassVar[int]
        ADJUDICATED_FIELD_NUMBER: _ClassVar[int]
        results: _containers.RepeatedCompositeFieldContainer[_types_pb2.PlayerResult]
        adjudicated: bool
        def __init__(self, results: _Optional[_Iterable[_Union[_types_pb2.PlayerResult, _Mapping]]] = ..., adjudicated: _Optional[bool] = ...) -> None: ...
    class Aborted(_message.Message):
        __slots__ = ("reason",)
        REASON_FIELD_NUMBER: _ClassVar[int]
        reason: str
        def __init__(self, reason: _Optional[str] = ...) -> None: ...
    class Unavailable(_message.Message):
        __slots__ = ("reason",)
        REASON_FIELD_NUMBER: _ClassVar[int]
        reason: str
        def __init__(self, reason: _Optional[str] = ...) -> None: ...
    class Quarantined(_message.Message):
        __slots__ = ("reason",)
        REASON_FIELD_NUMBER: _ClassVar[int]
        reason: str
        def __init__(self, reason: _Optional[str] = ...) -> None: ...
    class Released(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AT_MS_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    SEAT_FILLED_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    SEAT_OUT_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    TIME_ADDED_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    ABORTED_FIELD_NUMBER: _ClassVar[int]
    UNAVAILABLE_FIELD_NUMBER: _ClassVar[int]
    QUARANTINED_FIELD_NUMBER: _ClassVar[int]
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    cursor: int
    match_id: str
    at_ms: int
    game: str
    labels: _containers.ScalarMap[str, str]
    created: LifecycleEvent.Created
    seat_filled: LifecycleEvent.SeatFilled
    started: LifecycleEvent.Started
    seat_out: LifecycleEvent.SeatOut
    paused: LifecycleEvent.Paused
    resumed: LifecycleEvent.Resumed
    time_added: LifecycleEvent.TimeAdded
    finished: LifecycleEvent.Finished
    aborted: LifecycleEvent.Aborted
    unavailable: LifecycleEvent.Unavailable
    quarantined: LifecycleEvent.Quarantined
    released: LifecycleEvent.Released
    def __init__(self, cursor: _Optional[int] = ..., match_id: _Optional[str] = ..., at_ms: _Optional[int] = ..., game: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., created: _Optional[_Union[LifecycleEvent.Created, _Mapping]] = ..., seat_filled: _Optional[_Union[LifecycleEvent.SeatFilled, _Mapping]] = ..., started: _Optional[_Union[LifecycleEvent.Started, _Mapping]] = ..., seat_out: _Optional[_Union[LifecycleEvent.SeatOut, _Mapping]] = ..., paused: _Optional[_Union[LifecycleEvent.Paused, _Mapping]] = ..., resumed: _Optional[_Union[LifecycleEvent.Resumed, _Mapping]] = ..., time_added: _Optional[_Union[LifecycleEvent.TimeAdded, _Mapping]] = ..., finished: _Optional[_Union[LifecycleEvent.Finished, _Mapping]] = ..., aborted: _Optional[_Union[LifecycleEvent.Aborted, _Mapping]] = ..., unavailable: _Optional[_Union[LifecycleEvent.Unavailable, _Mapping]] = ..., quarantined: _Optional[_Union[LifecycleEvent.Quarantined, _Mapping]] = ..., released: _Optional[_Union[LifecycleEvent.Released, _Mapping]] = ...) -> None: ...

class AbortMatchRequest(_message.Message):
    __slots__ = ("admin_token", "match_id", "reason")
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    match_id: str
    reason: str
    def __init__(self, admin_token: _Optional[str] = ..., match_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class AdjudicateMatchRequest(_message.Message):
    __slots__ = ("admin_token", "match_id", "results")
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    match_id: str
    results: _containers.RepeatedCompositeFieldContainer[_types_pb2.PlayerResult]
    def __init__(self, admin_token: _Optional[str] = ..., match_id: _Optional[str] = ..., results: _Optional[_Iterable[_Union[_types_pb2.PlayerResult, _Mapping]]] = ...) -> None: ...

class PauseMatchRequest(_message.Message):
    __slots__ = ("admin_token", "match_id")
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    match_id: str
    def __init__(self, admin_token: _Optional[str] = ..., match_id: _Optional[str] = ...) -> None: ...

class ResumeMatchRequest(_message.Message):
    __slots__ = ("admin_token", "match_id")
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    match_id: str
    def __init__(self, admin_token: _Optional[str] = ..., match_id: _Optional[str] = ...) -> None: ...

class AddTimeRequest(_message.Message):
    __slots__ = ("admin_token", "match_id", "seat", "added_ms")
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ADDED_MS_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    match_id: str
    seat: int
    added_ms: int
    def __init__(self, admin_token: _Optional[str] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ..., added_ms: _Optional[int] = ...) -> None: ...
