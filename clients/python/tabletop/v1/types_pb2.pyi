from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MatchState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATE_UNSPECIFIED: _ClassVar[MatchState]
    MATCH_STATE_WAITING: _ClassVar[MatchState]
    MATCH_STATE_RUNNING: _ClassVar[MatchState]
    MATCH_STATE_FINISHED: _ClassVar[MatchState]
    MATCH_STATE_UNAVAILABLE: _ClassVar[MatchState]
    MATCH_STATE_QUARANTINED: _ClassVar[MatchState]

class SeatOutReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_OUT_REASON_UNSPECIFIED: _ClassVar[SeatOutReason]
    SEAT_OUT_REASON_CLOCK: _ClassVar[SeatOutReason]
    SEAT_OUT_REASON_RESIGNED: _ClassVar[SeatOutReason]
    SEAT_OUT_REASON_ABSENT: _ClassVar[SeatOutReason]
    SEAT_OUT_REASON_RULE: _ClassVar[SeatOutReason]
    SEAT_OUT_REASON_DIRECTOR: _ClassVar[SeatOutReason]
MATCH_STATE_UNSPECIFIED: MatchState
MATCH_STATE_WAITING: MatchState
MATCH_STATE_RUNNING: MatchState
MATCH_STATE_FINISHED: MatchState
MATCH_STATE_UNAVAILABLE: MatchState
MATCH_STATE_QUARANTINED: MatchState
SEAT_OUT_REASON_UNSPECIFIED: SeatOutReason
SEAT_OUT_REASON_CLOCK: SeatOutReason
SEAT_OUT_REASON_RESIGNED: SeatOutReason
SEAT_OUT_REASON_ABSENT: SeatOutReason
SEAT_OUT_REASON_RULE: SeatOutReason
SEAT_OUT_REASON_DIRECTOR: SeatOutReason

class PlayerResult(_message.Message):
    __slots__ = ("seat", "rank", "score", "resigned", "display_name", "external_id")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RESIGNED_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rank: int
    score: float
    resigned: bool
    display_name: str
    external_id: str
    def __init__(self, seat: _Optional[int] = ..., rank: _Optional[int] = ..., score: _Optional[float] = ..., resigned: _Optional[bool] = ..., display_name: _Optional[str] = ..., external_id: _Optional[str] = ...) -> None: ...

class SeatStatus(_message.Message):
    __slots__ = ("seat", "filled", "to_move", "has_acted", "resigned", "clock_remaining_ms", "out", "out_reason", "display_name", "external_id", "name", "bot")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FILLED_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    HAS_ACTED_FIELD_NUMBER: _ClassVar[int]
    RESIGNED_FIELD_NUMBER: _ClassVar[int]
    CLOCK_REMAINING_MS_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    OUT_REASON_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    filled: bool
    to_move: bool
    has_acted: bool
    resigned: bool
    clock_remaining_ms: int
    out: bool
    out_reason: SeatOutReason
    display_name: str
    external_id: str
    name: str
    bot: str
    def __init__(self, seat: _Optional[int] = ..., filled: _Optional[bool] = ..., to_move: _Optional[bool] = ..., has_acted: _Optional[bool] = ..., resigned: _Optional[bool] = ..., clock_remaining_ms: _Optional[int] = ..., out: _Optional[bool] = ..., out_reason: _Optional[_Union[SeatOutReason, str]] = ..., display_name: _Optional[str] = ..., external_id: _Optional[str] = ..., name: _Optional[str] = ..., bot: _Optional[str] = ...) -> None: ...

class MatchView(_message.Message):
    __slots__ = ("match_id", "game", "plugin_version", "version", "state", "viewer_seat", "view_json", "text", "to_move", "seats", "results", "pending_action", "unavailable_reason", "labels", "paused", "abort_reason", "adjudicated", "open_seat_deadline_ms", "spectator_delay", "delayed", "position", "svg", "plugin_sha256", "quarantine_reason")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_VERSION_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    VIEWER_SEAT_FIELD_NUMBER: _ClassVar[int]
    VIEW_JSON_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    PENDING_ACTION_FIELD_NUMBER: _ClassVar[int]
    UNAVAILABLE_REASON_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    ABORT_REASON_FIELD_NUMBER: _ClassVar[int]
    ADJUDICATED_FIELD_NUMBER: _ClassVar[int]
    OPEN_SEAT_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_DELAY_FIELD_NUMBER: _ClassVar[int]
    DELAYED_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    SVG_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_SHA256_FIELD_NUMBER: _ClassVar[int]
    QUARANTINE_REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    plugin_version: str
    version: int
    state: MatchState
    viewer_seat: int
    view_json: str
    text: str
    to_move: _containers.RepeatedScalarFieldContainer[int]
    seats: _containers.RepeatedCompositeFieldContainer[SeatStatus]
    results: _containers.RepeatedCompositeFieldContainer[PlayerResult]
    pending_action: str
    unavailable_reason: str
    labels: _containers.ScalarMap[str, str]
    paused: bool
    abort_reason: str
    adjudicated: bool
    open_seat_deadline_ms: int
    spectator_delay: SpectatorDelay
    delayed: bool
    position: str
    svg: str
    plugin_sha256: str
    quarantine_reason: str
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., plugin_version: _Optional[str] = ..., version: _Optional[int] = ..., state: _Optional[_Union[MatchState, str]] = ..., viewer_seat: _Optional[int] = ..., view_json: _Optional[str] = ..., text: _Optional[str] = ..., to_move: _Optional[_Iterable[int]] = ..., seats: _Optional[_Iterable[_Union[SeatStatus, _Mapping]]] = ..., results: _Optional[_Iterable[_Union[PlayerResult, _Mapping]]] = ..., pending_action: _Optional[str] = ..., unavailable_reason: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., paused: _Optional[bool] = ..., abort_reason: _Optional[str] = ..., adjudicated: _Optional[bool] = ..., open_seat_deadline_ms: _Optional[int] = ..., spectator_delay: _Optional[_Union[SpectatorDelay, _Mapping]] = ..., delayed: _Optional[bool] = ..., position: _Optional[str] = ..., svg: _Optional[str] = ..., plugin_sha256: _Optional[str] = ..., quarantine_reason: _Optional[str] = ...) -> None: ...

class SpectatorDelay(_message.Message):
    __slots__ = ("moves", "ms")
    MOVES_FIELD_NUMBER: _ClassVar[int]
    MS_FIELD_NUMBER: _ClassVar[int]
    moves: int
    ms: int
    def __init__(self, moves: _Optional[int] = ..., ms: _Optional[int] = ...) -> None: ...

class SeatPlayer(_message.Message):
    __slots__ = ("seat", "display_name", "external_id", "bot")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    display_name: str
    external_id: str
    bot: str
    def __init__(self, seat: _Optional[int] = ..., display_name: _Optional[str] = ..., external_id: _Optional[str] = ..., bot: _Optional[str] = ...) -> None: ...
