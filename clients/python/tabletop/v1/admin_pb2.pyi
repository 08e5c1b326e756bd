from tabletop.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CredentialRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CREDENTIAL_ROLE_UNSPECIFIED: _ClassVar[CredentialRole]
    CREDENTIAL_ROLE_ORGANIZER: _ClassVar[CredentialRole]
CREDENTIAL_ROLE_UNSPECIFIED: CredentialRole
CREDENTIAL_ROLE_ORGANIZER: CredentialRole

class LiftQuarantineRequest(_message.Message):
    __slots__ = ("admin_token", "match_id", "plugin_version")
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_VERSION_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    match_id: str
    plugin_version: str
    def __init__(self, admin_token: _Optional[str] = ..., match_id: _Optional[str] = ..., plugin_version: _Optional[str] = ...) -> None: ...

class IssueCredentialRequest(_message.Message):
    __slots__ = ("admin_token", "name", "role", "tenant")
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    name: str
    role: CredentialRole
    tenant: str
    def __init__(self, admin_token: _Optional[str] = ..., name: _Optional[str] = ..., role: _Optional[_Union[CredentialRole, str]] = ..., tenant: _Optional[str] = ...) -> None: ...

class CredentialInfo(_message.Message):
    __slots__ = ("credential_id", "name", "role", "issued_at_ms", "revoked_at_ms", "tenant")
    CREDENTIAL_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    ISSUED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    REVOKED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    credential_id: str
    name: str
    role: CredentialRole
    issued_at_ms: int
    revoked_at_ms: int
    tenant: str
    def __init__(self, credential_id: _Optional[str] = ..., name: _Optional[str] = ..., role: _Optional[_Union[CredentialRole, str]] = ..., issued_at_ms: _Optional[int] = ..., revoked_at_ms: _Optional[int] = ..., tenant: _Optional[str] = ...) -> None: ...

class IssueCredentialResponse(_message.Message):
    __slots__ = ("credential", "secret")
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    credential: CredentialInfo
    secret: str
    def __init__(self, credential: _Optional[_Union[CredentialInfo, _Mapping]] = ..., secret: _Optional[str] = ...) -> None: ...

class RevokeCredentialRequest(_message.Message):
    __slots__ = ("admin_token", "credential_id")
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    CREDENTIAL_ID_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    credential_id: str
    def __init__(self, admin_token: _Optional[str] = ..., credential_id: _Optional[str] = ...) -> None: ...

class ListCredentialsRequest(_message.Message):
    __slots__ = ("admin_token",)
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    def __init__(self, admin_token: _Optional[str] = ...) -> None: ...

class ListCredentialsResponse(_message.Message):
    __slots__ = ("credentials",)
    CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    credentials: _containers.RepeatedCompositeFieldContainer[CredentialInfo]
    def __init__(self, credentials: _Optional[_Iterable[_Union[CredentialInfo, _Mapping]]] = ...) -> None: ...

class ListPluginsRequest(_message.Message):
    __slots__ = ("admin_token",)
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    def __init__(self, admin_token: _Optional[str] = ...) -> None: ...

class PluginInfo(_message.Message):
    __slots__ = ("game", "version", "file", "sha256", "loaded_at_ms", "match_ids", "trusted", "worker_pid", "worker_starts", "faults", "recent_faults", "suspended", "quarantined_match_ids", "retired", "hosts")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    LOADED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    MATCH_IDS_FIELD_NUMBER: _ClassVar[int]
    TRUSTED_FIELD_NUMBER: _ClassVar[int]
    WORKER_PID_FIELD_NUMBER: _ClassVar[int]
    WORKER_STARTS_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    RECENT_FAULTS_FIELD_NUMBER: _ClassVar[int]
    SUSPENDED_FIELD_NUMBER: _ClassVar[int]
    QUARANTINED_MATCH_IDS_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    HOSTS_FIELD_NUMBER: _ClassVar[int]
    game: str
    version: str
    file: str
    sha256: str
    loaded_at_ms: int
    match_ids: _containers.RepeatedScalarFieldContainer[str]
    trusted: bool
    worker_pid: int
    worker_starts: int
    faults: int
    recent_faults: int
    suspended: bool
    quarantined_match_ids: _containers.RepeatedScalarFieldContainer[str]
    retired: bool
    hosts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game: _Optional[str] = ..., version: _Optional[str] = ..., file: _Optional[str] = ..., sha256: _Optional[str] = ..., loaded_at_ms: _Optional[int] = ..., match_ids: _Optional[_Iterable[str]] = ..., trusted: _Optional[bool] = ..., worker_pid: _Optional[int] = ..., worker_starts: _Optional[int] = ..., faults: _Optional[int] = ..., recent_faults: _Optional[int] = ..., suspended: _Optional[bool] = ..., quarantined_match_ids: _Optional[_Iterable[str]] = ..., retired: _Optional[bool] = ..., hosts: _Optional[_Iterable[str]] = ...) -> None: ...

class RetirePluginRequest(_message.Message):
    __slots__ = ("game", "version")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    game: str
    version: str
    def __init__(self, game: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class ListPluginsResponse(_message.Message):
    __slots__ = ("plugins",)
    PLUGINS_FIELD_NUMBER: _ClassVar[int]
    plugins: _containers.RepeatedCompositeFieldContainer[PluginInfo]
    def __init__(self, plugins: _Optional[_Iterable[_Union[PluginInfo, _Mapping]]] = ...) -> None: ...

class LoadPluginRequest(_message.Message):
    __slots__ = ("admin_token", "path")
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    path: str
    def __init__(self, admin_token: _Optional[str] = ..., path: _Optional[str] = ...) -> None: ...

class LoadPluginResponse(_message.Message):
    __slots__ = ("plugin", "already_loaded")
    PLUGIN_FIELD_NUMBER: _ClassVar[int]
    ALREADY_LOADED_FIELD_NUMBER: _ClassVar[int]
    plugin: PluginInfo
    already_loaded: bool
    def __init__(self, plugin: _Optional[_Union[PluginInfo, _Mapping]] = ..., already_loaded: _Optional[bool] = ...) -> None: ...

class BackupRequest(_message.Message):
    __slots__ = ("admin_token", "path")
    ADMIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    admin_token: str
    path: str
    def __init__(self, admin_token: _Optional[str] = ..., path: _Optional[str] = ...) -> None: ...

class BackupResponse(_message.Message):
    __slots__ = ("path", "bytes", "matches")
    PATH_FIELD_NUMBER: _ClassVar[int]
    BYTES_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    path: str
    bytes: int
    matches: int
    def __init__(self, path: _Optional[str] = ..., bytes: _Optional[int] = ..., matches: _Optional[int] = ...) -> None: ...
