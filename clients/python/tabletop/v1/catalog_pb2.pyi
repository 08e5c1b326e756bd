from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameInfo]
    def __init__(self, games: _Optional[_Iterable[_Union[GameInfo, _Mapping]]] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ("game", "version")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    game: str
    version: str
    def __init__(self, game: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("name", "version", "versions", "min_players", "max_players", "options", "rules_summary", "simultaneous", "hidden_information", "chance", "removable_players", "seat_names", "svg_board", "action_targets", "builds", "hosts")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    RULES_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    SIMULTANEOUS_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_INFORMATION_FIELD_NUMBER: _ClassVar[int]
    CHANCE_FIELD_NUMBER: _ClassVar[int]
    REMOVABLE_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    SVG_BOARD_FIELD_NUMBER: _ClassVar[int]
    ACTION_TARGETS_FIELD_NUMBER: _ClassVar[int]
    BUILDS_FIELD_NUMBER: _ClassVar[int]
    HOSTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    versions: _containers.RepeatedScalarFieldContainer[str]
    min_players: int
    max_players: int
    options: _containers.RepeatedCompositeFieldContainer[OptionInfo]
    rules_summary: str
    simultaneous: bool
    hidden_information: bool
    chance: bool
    removable_players: bool
    seat_names: _containers.RepeatedCompositeFieldContainer[SeatNames]
    svg_board: bool
    action_targets: bool
    builds: _containers.RepeatedScalarFieldContainer[str]
    hosts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., versions: _Optional[_Iterable[str]] = ..., min_players: _Optional[int] = ..., max_players: _Optional[int] = ..., options: _Optional[_Iterable[_Union[OptionInfo, _Mapping]]] = ..., rules_summary: _Optional[str] = ..., simultaneous: _Optional[bool] = ..., hidden_information: _Optional[bool] = ..., chance: _Optional[bool] = ..., removable_players: _Optional[bool] = ..., seat_names: _Optional[_Iterable[_Union[SeatNames, _Mapping]]] = ..., svg_board: _Optional[bool] = ..., action_targets: _Optional[bool] = ..., builds: _Optional[_Iterable[str]] = ..., hosts: _Optional[_Iterable[str]] = ...) -> None: ...

class SeatNames(_message.Message):
    __slots__ = ("players", "names")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    players: int
    names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, players: _Optional[int] = ..., names: _Optional[_Iterable[str]] = ...) -> None: ...

class OptionInfo(_message.Message):
    __slots__ = ("name", "type", "default_value", "description", "choices", "min", "max")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    default_value: str
    description: str
    choices: _containers.RepeatedScalarFieldContainer[str]
    min: int
    max: int
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., default_value: _Optional[str] = ..., description: _Optional[str] = ..., choices: _Optional[_Iterable[str]] = ..., min: _Optional[int] = ..., max: _Optional[int] = ...) -> None: ...
