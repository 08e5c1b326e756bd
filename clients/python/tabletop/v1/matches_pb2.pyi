from tabletop.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OnDeadline(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ON_DEADLINE_UNSPECIFIED: _ClassVar[OnDeadline]
    ON_DEADLINE_ABORT: _ClassVar[OnDeadline]
    ON_DEADLINE_START_WITHOUT: _ClassVar[OnDeadline]

class OnTimeout(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ON_TIMEOUT_UNSPECIFIED: _ClassVar[OnTimeout]
    ON_TIMEOUT_LOSE: _ClassVar[OnTimeout]
    ON_TIMEOUT_OUT: _ClassVar[OnTimeout]

class ViewDetail(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VIEW_DETAIL_UNSPECIFIED: _ClassVar[ViewDetail]
    VIEW_DETAIL_FULL: _ClassVar[ViewDetail]
    VIEW_DETAIL_SUMMARY: _ClassVar[ViewDetail]
ON_DEADLINE_UNSPECIFIED: OnDeadline
ON_DEADLINE_ABORT: OnDeadline
ON_DEADLINE_START_WITHOUT: OnDeadline
ON_TIMEOUT_UNSPECIFIED: OnTimeout
ON_TIMEOUT_LOSE: OnTimeout
ON_TIMEOUT_OUT: OnTimeout
VIEW_DETAIL_UNSPECIFIED: ViewDetail
VIEW_DETAIL_FULL: ViewDetail
VIEW_DETAIL_SUMMARY: ViewDetail

class CreateMatchRequest(_message.Message):
    __slots__ = ("game", "version", "players", "options", "seed", "start_position", "open_seats", "time_control", "view_detail", "labels", "request_id", "open_seat_deadline", "seat_players", "public_open_seats", "spectator_delay", "bots")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    START_POSITION_FIELD_NUMBER: _ClassVar[int]
    OPEN_SEATS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    VIEW_DETAIL_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    OPEN_SEAT_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    SEAT_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_OPEN_SEATS_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_DELAY_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    game: str
    version: str
    players: int
    options: _containers.ScalarMap[str, str]
    seed: int
    start_position: str
    open_seats: _containers.RepeatedScalarFieldContainer[int]
    time_control: TimeControl
    view_detail: ViewDetail
    labels: _containers.ScalarMap[str, str]
    request_id: str
    open_seat_deadline: OpenSeatDeadline
    seat_players: _containers.RepeatedCompositeFieldContainer[_types_pb2.SeatPlayer]
    public_open_seats: bool
    spectator_delay: _types_pb2.SpectatorDelay
    bots: _containers.RepeatedCompositeFieldContainer[SeatBot]
    def __init__(self, game: _Optional[str] = ..., version: _Optional[str] = ..., players: _Optional[int] = ..., options: _Optional[_Mapping[str, str]] = ..., seed: _Optional[int] = ..., start_position: _Optional[str] = ..., open_seats: _Optional[_Iterable[int]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., view_detail: _Optional[_Union[ViewDetail, str]] = ..., labels: _Optional[_Mapping[str, str]] = ..., request_id: _Optional[str] = ..., open_seat_deadline: _Optional[_Union[OpenSeatDeadline, _Mapping]] = ..., seat_players: _Optional[_Iterable[_Union[_types_pb2.SeatPlayer, _Mapping]]] = ..., public_open_seats: _Optional[bool] = ..., spectator_delay: _Optional[_Union[_types_pb2.SpectatorDelay, _Mapping]] = ..., bots: _Optional[_Iterable[_Union[SeatBot, _Mapping]]] = ...) -> None: ...

class SeatBot(_message.Message):
    __slots__ = ("seat", "spec")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    seat: int
    spec: str
    def __init__(self, seat: _Optional[int] = ..., spec: _Optional[str] = ...) -> None: ...

class SeatJoinCode(_message.Message):
    __slots__ = ("seat", "code")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    code: str
    def __init__(self, seat: _Optional[int] = ..., code: _Optional[str] = ...) -> None: ...

class OpenSeatDeadline(_message.Message):
    __slots__ = ("within_ms", "on_deadline")
    WITHIN_MS_FIELD_NUMBER: _ClassVar[int]
    ON_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    within_ms: int
    on_deadline: OnDeadline
    def __init__(self, within_ms: _Optional[int] = ..., on_deadline: _Optional[_Union[OnDeadline, str]] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("per_move_ms", "bank_ms", "increment_ms", "on_timeout")
    PER_MOVE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_MS_FIELD_NUMBER: _ClassVar[int]
    ON_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    per_move_ms: int
    bank_ms: int
    increment_ms: int
    on_timeout: OnTimeout
    def __init__(self, per_move_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., increment_ms: _Optional[int] = ..., on_timeout: _Optional[_Union[OnTimeout, str]] = ...) -> None: ...

class SeatToken(_message.Message):
    __slots__ = ("seat", "token")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    token: str
    def __init__(self, seat: _Optional[int] = ..., token: _Optional[str] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match_id", "seats", "view", "join_codes")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    JOIN_CODES_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatToken]
    view: _types_pb2.MatchView
    join_codes: _containers.RepeatedCompositeFieldContainer[SeatJoinCode]
    def __init__(self, match_id: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatToken, _Mapping]]] = ..., view: _Optional[_Union[_types_pb2.MatchView, _Mapping]] = ..., join_codes: _Optional[_Iterable[_Union[SeatJoinCode, _Mapping]]] = ...) -> None: ...

class JoinMatchRequest(_message.Message):
    __slots__ = ("match_id", "seat", "join_code", "display_name", "external_id", "bot")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    JOIN_CODE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    join_code: str
    display_name: str
    external_id: str
    bot: str
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., join_code: _Optional[str] = ..., display_name: _Optional[str] = ..., external_id: _Optional[str] = ..., bot: _Optional[str] = ...) -> None: ...

class JoinMatchResponse(_message.Message):
    __slots__ = ("seat", "token", "view")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    seat: int
    token: str
    view: _types_pb2.MatchView
    def __init__(self, seat: _Optional[int] = ..., token: _Optional[str] = ..., view: _Optional[_Union[_types_pb2.MatchView, _Mapping]] = ...) -> None: ...

class GetViewRequest(_message.Message):
    __slots__ = ("match_id", "seat_token", "at_version", "svg")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AT_VERSION_FIELD_NUMBER: _ClassVar[int]
    SVG_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    at_version: int
    svg: bool
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., at_version: _Optional[int] = ..., svg: _Optional[bool] = ...) -> None: ...

class ListLegalActionsRequest(_message.Message):
    __slots__ = ("match_id", "seat_token", "ids_only")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    IDS_ONLY_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    ids_only: bool
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., ids_only: _Optional[bool] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("id", "notation", "targets")
    ID_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    id: int
    notation: str
    targets: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[int] = ..., notation: _Optional[str] = ..., targets: _Optional[_Iterable[str]] = ...) -> None: ...

class ListLegalActionsResponse(_message.Message):
    __slots__ = ("version", "seat", "actions", "action_ids")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    ACTION_IDS_FIELD_NUMBER: _ClassVar[int]
    version: int
    seat: int
    actions: _containers.RepeatedCompositeFieldContainer[LegalAction]
    action_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, version: _Optional[int] = ..., seat: _Optional[int] = ..., actions: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., action_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class SubmitActionRequest(_message.Message):
    __slots__ = ("match_id", "seat_token", "action_id", "notation", "expected_version", "view_detail")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEW_DETAIL_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    action_id: int
    notation: str
    expected_version: int
    view_detail: ViewDetail
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., action_id: _Optional[int] = ..., notation: _Optional[str] = ..., expected_version: _Optional[int] = ..., view_detail: _Optional[_Union[ViewDetail, str]] = ...) -> None: ...

class SubmitActionResponse(_message.Message):
    __slots__ = ("view", "pending")
    VIEW_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    view: _types_pb2.MatchView
    pending: bool
    def __init__(self, view: _Optional[_Union[_types_pb2.MatchView, _Mapping]] = ..., pending: _Optional[bool] = ...) -> None: ...

class ResignRequest(_message.Message):
    __slots__ = ("match_id", "seat_token")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_token: str
    def __init__(self, match_id: _Optional[str] = ..., seat_token: _Optional[str] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("game", "state", "page_size", "page_token", "labels", "created_from_ms", "created_before_ms")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    CREATED_FROM_MS_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_MS_FIELD_NUMBER: _ClassVar[int]
    game: str
    state: _types_pb2.MatchState
    page_size: int
    page_token: str
    labels: _containers.ScalarMap[str, str]
    created_from_ms: int
    created_before_ms: int
    def __init__(self, game: _Optional[str] = ..., state: _Optional[_Union[_types_pb2.MatchState, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., created_from_ms: _Optional[int] = ..., created_before_ms: _Optional[int] = ...) -> None: ...

class MatchSummary(_message.Message):
    __slots__ = ("match_id", "game", "plugin_version", "players", "state", "version", "open_seats", "created_at_ms", "unavailable_reason", "labels")
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
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    OPEN_SEATS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    UNAVAILABLE_REASON_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    plugin_version: str
    players: int
    state: _types_pb2.MatchState
    version: int
    open_seats: _containers.RepeatedScalarFieldContainer[int]
    created_at_ms: int
    unavailable_reason: str
    labels: _containers.ScalarMap[str, str]
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., plugin_version: _Optional[str] = ..., players: _Optional[int] = ..., state: _Optional[_Union[_types_pb2.MatchState, str]] = ..., version: _Optional[int] = ..., open_seats: _Optional[_Iterable[int]] = ..., created_at_ms: _Optional[int] = ..., unavailable_reason: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchSummary]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ExportRecordRequest(_message.Message):
    __slots__ = ("match_id", "admin_token")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    admin_token: str
    def __init__(self, match_id: _Optional[str] = ..., admin_token: _Optional[str] = ...) -> None: ...

class ExportRecordResponse(_message.Message):
    __slots__ = ("record_json",)
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    def __init__(self, record_json: _Optional[str] = ...) -> None: ...

class ImportRecordRequest(_message.Message):
    __slots__ = ("record_json", "admin_token")
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    admin_token: str
    def __init__(self, record_json: _Optional[str] = ..., admin_token: _Optional[str] = ...) -> None: ...

class ImportRecordResponse(_message.Message):
    __slots__ = ("match_id", "seats", "view")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatToken]
    view: _types_pb2.MatchView
    def __init__(self, match_id: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatToken, _Mapping]]] = ..., view: _Optional[_Union[_types_pb2.MatchView, _Mapping]] = ...) -> None: ...
