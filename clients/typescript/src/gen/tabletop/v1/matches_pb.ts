// Matches: create, join, look, act, resign, list, export and import.
//
// Errors. Every error status of every service (Catalog, Matches, Watch,
// Admin) carries, in its details (`grpc-status-details-bin`), one
// `google.rpc.ErrorInfo` with domain "tabletop", a reason from the table
// below and metadata (string values; numbers in decimal). The message is for
// people and may change; programs read the code, the reason and the metadata.
// A refusal by one of the server's limits also carries a
// `google.rpc.RetryInfo`: how long to wait before trying again.
// A bot refused for a stale `expected_version` reads `current_version` and
// decides again from there.
//
// | reason | code | metadata | when |
// | --- | --- | --- | --- |
// | INVALID_REQUEST | INVALID_ARGUMENT | | a field is missing or has a value the server does not know |
// | INVALID_SETUP | INVALID_ARGUMENT | | CreateMatch: players, time control or open seats do not fit the game |
// | INVALID_OPTION | INVALID_ARGUMENT | | a game option is unknown, mistyped or out of range |
// | INVALID_POSITION | INVALID_ARGUMENT | | `start_position` does not parse or is impossible |
// | INVALID_NOTATION | INVALID_ARGUMENT | | an action's notation does not parse, or stands for no action |
// | ILLEGAL_ACTION | INVALID_ARGUMENT | | the action is not legal now for this seat |
// | *the game's code* (`RED_LINE`, `CARD_REPEATED`, …) | INVALID_ARGUMENT | refusal (INVALID_NOTATION or ILLEGAL_ACTION) | a game that explains its refusals says why: its own reason code (each game's README lists them) and a message citing the rule, in place of the two reasons above |
// | INVALID_RECORD | INVALID_ARGUMENT | | ImportRecord: the record does not parse, does not replay, or was altered |
// | PLUGIN_REFUSED | INVALID_ARGUMENT | path | LoadPlugin: the file is not a usable plugin |
// | UNKNOWN_GAME | NOT_FOUND | game | no game of this name is loaded |
// | UNKNOWN_GAME_VERSION | NOT_FOUND | game, version, loaded_versions (comma-separated) | the game is loaded, not in this version |
// | INVALID_PAGE_TOKEN | INVALID_ARGUMENT | | ListMatches: `page_token` is not one this server issued for these filters |
// | UNKNOWN_MATCH | NOT_FOUND | match_id | no match has this id |
// | MATCH_EXPIRED | NOT_FOUND | match_id, kept | the match finished and a store that keeps finished matches in memory dropped it |
// | UNKNOWN_SEAT | NOT_FOUND | seat, players | JoinMatch: the match has no such seat |
// | PLUGIN_FILE_UNREADABLE | NOT_FOUND | path | LoadPlugin: the file cannot be read |
// | STALE_VERSION | FAILED_PRECONDITION | expected_version, current_version | the match is not at `expected_version` |
// | NOT_YOUR_TURN | FAILED_PRECONDITION | seat, seat_name (when the server names it) | the seat is not to move now (or, within a shorthand, no longer) |
// | ALREADY_ACTED | FAILED_PRECONDITION | seat, seat_name | the seat already acted in this simultaneous turn |
// | MATCH_OVER | FAILED_PRECONDITION | clock_ran_out ("true" when a clock ended it just now) | the match has ended |
// | NOT_STARTED | FAILED_PRECONDITION | | the match waits for players to join its open seats |
// | SEAT_TAKEN | FAILED_PRECONDITION | seat, seat_name | JoinMatch: the seat has a player |
// | NO_OPEN_SEAT | FAILED_PRECONDITION | | JoinMatch: the match has no open seat |
// | UNSUPPORTED | FAILED_PRECONDITION | | the game does not offer this, or a shorthand in a simultaneous turn |
// | GAME_NOT_LOADED | FAILED_PRECONDITION | game, version | ImportRecord: the record's plugin version is not loaded |
// | MATCH_PAUSED | FAILED_PRECONDITION | | a director paused the match; actions wait until it resumes |
// | CONTROL_REFUSED | FAILED_PRECONDITION | | a director's control does not apply to the match as it is (pausing a paused match, adding time to a match without a clock) |
// | MATCH_QUARANTINED | FAILED_PRECONDITION | match_id, quarantine_reason | the match is quarantined: its plugin's worker died in one of its calls; a director may abort or adjudicate it, the admin may lift it |
// | PLUGIN_SUSPENDED | FAILED_PRECONDITION | game, version, faults, window_s | CreateMatch, ImportRecord: the plugin faulted too often lately (`--plugin-faults` within `--plugin-fault-window-s`) and takes no new matches until its faults age out |
// | PLUGIN_RETIRED | FAILED_PRECONDITION | game, version | CreateMatch, ImportRecord: the admin retired this plugin version; it takes no new matches |
// | REQUEST_ID_REUSED | ALREADY_EXISTS | request_id, match_id | CreateMatch: the `request_id` was used for a different request |
// | AMBIGUOUS_GAME_VERSION | FAILED_PRECONDITION | game, version, files (comma-separated) | CreateMatch, ImportRecord: files with different content claim this game version; none is chosen until all but one are removed |
// | PLUGIN_CONFLICT | FAILED_PRECONDITION | game, version, existing_file | LoadPlugin: another file provides this game version |
// | TOKEN_REQUIRED | UNAUTHENTICATED | credential (seat, admin, organizer, join_code) | the call needs a token and got none |
// | BAD_TOKEN | PERMISSION_DENIED | credential (seat, admin, bearer, join_code) | the token is not one this server knows for this (wrong, or revoked) |
// | NOT_PERMITTED | PERMISSION_DENIED | credential (the weakest that would do: organizer or admin) | the caller's valid credential does not allow this call |
// | CLIENT_CERTIFICATE_REQUIRED | UNAUTHENTICATED | credential (client_certificate) | an Admin call on a connection without a client certificate, when the server requires one for Admin (`--tls-client-ca`) |
// | MATCH_UNAVAILABLE | UNAVAILABLE | match_id, unavailable_reason | the match's plugin version is not loaded here, or its stored data is damaged (`unavailable_reason` says which) |
// | SHUTTING_DOWN | UNAVAILABLE | | the server is stopping: ends every open Watch stream |
// | STREAM_FELL_BEHIND | UNAVAILABLE | after_seq (Watch streams: the last event queued), after_cursor (lifecycle feeds: the last row queued), buffer_bytes | a Watch stream or lifecycle feed whose client read nothing while its queue was full (`--stream-buffer-bytes`) for `--stream-patience-ms`: open it again after the last event or row received |
// | STREAM_LIMIT | RESOURCE_EXHAUSTED | limit, max, credential (the key counted: admin, anonymous, seat, unproven seat token, unrecognized or an id), retry_after_ms | the server, the caller or the seat has its most streams open (`--max-streams`, `--max-streams-per-caller`, `--max-streams-per-seat`) |
// | SERVER_BUSY | UNAVAILABLE | limit, max, credential (the key counted: admin, anonymous, seat, unproven seat token, unrecognized or an id), retry_after_ms | the server is serving its most calls at once (`--max-calls-in-flight`); answered at once |
// | TOO_MANY_CALLS_IN_FLIGHT | RESOURCE_EXHAUSTED | limit, max, credential (the key counted: admin, anonymous, seat, unproven seat token, unrecognized or an id), retry_after_ms | the caller's credential has its most calls in flight (`--credential-calls-in-flight`) |
// | RATE_LIMITED | RESOURCE_EXHAUSTED | limit, max, credential (the key counted: admin, anonymous, seat, unproven seat token, unrecognized or an id), retry_after_ms | the caller's credential is over its calls per second (`--credential-rate`) |
// | CREATION_QUOTA | RESOURCE_EXHAUSTED | limit, max, credential (the key counted: admin, anonymous, seat, unproven seat token, unrecognized or an id), retry_after_ms, tenant (when the limit is the tenant's: limit tenant_creates_per_minute or tenant_live_matches) | the caller's credential, or all its tenant's credentials together, created or imported their most matches of the last minute (`--creates-per-minute`, `--tenant-creates-per-minute`) |
// | LIVE_MATCH_LIMIT | RESOURCE_EXHAUSTED | limit, max, credential (the key counted: admin, anonymous, seat, unproven seat token, unrecognized or an id), retry_after_ms, tenant (when the limit is the tenant's: limit tenant_creates_per_minute or tenant_live_matches) | the server, or the caller's tenant, holds its most live matches (`--max-live-matches`, `--tenant-max-live-matches`) |
// | REQUEST_TIMEOUT | DEADLINE_EXCEEDED | timeout_ms | the call took longer than the request timeout (`--request-timeout-ms`) |
// | REPLY_TOO_LARGE | RESOURCE_EXHAUSTED | | the reply is larger than the server's cap (`--max-reply-bytes`) |
// | PLUGIN_TIMEOUT | INTERNAL | deadline_ms | the game's plugin did not answer in time |
// | PLUGIN_FAULT | UNAVAILABLE | | the game's plugin failed in this call (a bug in the plugin); when its worker died, the match is quarantined |
// | PLUGIN_RESTARTED | UNAVAILABLE | | the plugin's worker died during the call because of another match's call, and again when the call was made again; nothing changed: call again |
// | STORE_UNAVAILABLE | UNAVAILABLE | | the server cannot reach its match store's database (PostgreSQL down or restarting), so the call's change was not acknowledged as stored; call again once it is back (the health service says NOT_SERVING meanwhile) |
// | MATCH_MOVED | UNAVAILABLE | match_id | another host of the same database serves the match now (its lease moved while this host held it); nothing changed: call again, through any host |
// | INTERNAL | INTERNAL | | a fault of the server |
//
// The table is written from the server's own (engine-host/src/grpc/reason.rs)
// by `cargo run -p tabletop-tests --bin reasons`.
//
// Messages name a seat as `seat 1 (B)`: the API's seat number (0-based) and
// the game's name for it (GameInfo.seat_names); `seat_name` metadata is
// empty for a game that names none.
//
// A shorthand (SubmitAction `notation` standing for several actions) refused
// at one step has that step's code and reason, with `step` (counting from 1)
// and `steps` added to the metadata.

// @generated by protoc-gen-es v2.17.0 with parameter "target=ts,import_extension=js"
// @generated from file tabletop/v1/matches.proto (package tabletop.v1, syntax proto3)
/* eslint-disable */

import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import { enumDesc, fileDesc, messageDesc, serviceDesc } from "@bufbuild/protobuf/codegenv2";
import type { MatchState, MatchView, MatchViewSchema, SeatPlayer, SpectatorDelay } from "./types_pb.js";
import { file_tabletop_v1_types } from "./types_pb.js";
import type { Message } from "@bufbuild/protobuf";

/**
 * Describes the file tabletop/v1/matches.proto.
 */
export const file_tabletop_v1_matches: GenFile = /*@__PURE__*/
  fileDesc("Chl0YWJsZXRvcC92MS9tYXRjaGVzLnByb3RvEgt0YWJsZXRvcC52MSL3BQoSQ3JlYXRlTWF0Y2hSZXF1ZXN0EgwKBGdhbWUYASABKAkSFAoHdmVyc2lvbhgCIAEoCUgAiAEBEg8KB3BsYXllcnMYAyABKA0SPQoHb3B0aW9ucxgEIAMoCzIsLnRhYmxldG9wLnYxLkNyZWF0ZU1hdGNoUmVxdWVzdC5PcHRpb25zRW50cnkSEQoEc2VlZBgFIAEoBEgBiAEBEhsKDnN0YXJ0X3Bvc2l0aW9uGAYgASgJSAKIAQESEgoKb3Blbl9zZWF0cxgHIAMoDRIzCgx0aW1lX2NvbnRyb2wYCCABKAsyGC50YWJsZXRvcC52MS5UaW1lQ29udHJvbEgDiAEBEiwKC3ZpZXdfZGV0YWlsGAkgASgOMhcudGFibGV0b3AudjEuVmlld0RldGFpbBI7CgZsYWJlbHMYCiADKAsyKy50YWJsZXRvcC52MS5DcmVhdGVNYXRjaFJlcXVlc3QuTGFiZWxzRW50cnkSEgoKcmVxdWVzdF9pZBgLIAEoCRI5ChJvcGVuX3NlYXRfZGVhZGxpbmUYDCABKAsyHS50YWJsZXRvcC52MS5PcGVuU2VhdERlYWRsaW5lEi0KDHNlYXRfcGxheWVycxgNIAMoCzIXLnRhYmxldG9wLnYxLlNlYXRQbGF5ZXISGQoRcHVibGljX29wZW5fc2VhdHMYDiABKAgSNAoPc3BlY3RhdG9yX2RlbGF5GA8gASgLMhsudGFibGV0b3AudjEuU3BlY3RhdG9yRGVsYXkSIgoEYm90cxgQIAMoCzIULnRhYmxldG9wLnYxLlNlYXRCb3QaLgoMT3B0aW9uc0VudHJ5EgsKA2tleRgBIAEoCRINCgV2YWx1ZRgCIAEoCToCOAEaLQoLTGFiZWxzRW50cnkSCwoDa2V5GAEgASgJEg0KBXZhbHVlGAIgASgJOgI4AUIKCghfdmVyc2lvbkIHCgVfc2VlZEIRCg9fc3RhcnRfcG9zaXRpb25CDwoNX3RpbWVfY29udHJvbCIlCgdTZWF0Qm90EgwKBHNlYXQYASABKA0SDAoEc3BlYxgCIAEoCSIqCgxTZWF0Sm9pbkNvZGUSDAoEc2VhdBgBIAEoDRIMCgRjb2RlGAIgASgJIlMKEE9wZW5TZWF0RGVhZGxpbmUSEQoJd2l0aGluX21zGAEgASgDEiwKC29uX2RlYWRsaW5lGAIgASgOMhcudGFibGV0b3AudjEuT25EZWFkbGluZSJ1CgtUaW1lQ29udHJvbBITCgtwZXJfbW92ZV9tcxgBIAEoAxIPCgdiYW5rX21zGAIgASgDEhQKDGluY3JlbWVudF9tcxgDIAEoAxIqCgpvbl90aW1lb3V0GAQgASgOMhYudGFibGV0b3AudjEuT25UaW1lb3V0IigKCVNlYXRUb2tlbhIMCgRzZWF0GAEgASgNEg0KBXRva2VuGAIgASgJIqMBChNDcmVhdGVNYXRjaFJlc3BvbnNlEhAKCG1hdGNoX2lkGAEgASgJEiUKBXNlYXRzGAIgAygLMhYudGFibGV0b3AudjEuU2VhdFRva2VuEiQKBHZpZXcYAyABKAsyFi50YWJsZXRvcC52MS5NYXRjaFZpZXcSLQoKam9pbl9jb2RlcxgEIAMoCzIZLnRhYmxldG9wLnYxLlNlYXRKb2luQ29kZSKLAQoQSm9pbk1hdGNoUmVxdWVzdBIQCghtYXRjaF9pZBgBIAEoCRIRCgRzZWF0GAIgASgNSACIAQESEQoJam9pbl9jb2RlGAMgASgJEhQKDGRpc3BsYXlfbmFtZRgEIAEoCRITCgtleHRlcm5hbF9pZBgFIAEoCRILCgNib3QYBiABKAlCBwoFX3NlYXQiVgoRSm9pbk1hdGNoUmVzcG9uc2USDAoEc2VhdBgBIAEoDRINCgV0b2tlbhgCIAEoCRIkCgR2aWV3GAMgASgLMhYudGFibGV0b3AudjEuTWF0Y2hWaWV3ImsKDkdldFZpZXdSZXF1ZXN0EhAKCG1hdGNoX2lkGAEgASgJEhIKCnNlYXRfdG9rZW4YAiABKAkSFwoKYXRfdmVyc2lvbhgDIAEoBEgAiAEBEgsKA3N2ZxgEIAEoCEINCgtfYXRfdmVyc2lvbiJRChdMaXN0TGVnYWxBY3Rpb25zUmVxdWVzdBIQCghtYXRjaF9pZBgBIAEoCRISCgpzZWF0X3Rva2VuGAIgASgJEhAKCGlkc19vbmx5GAMgASgIIjwKC0xlZ2FsQWN0aW9uEgoKAmlkGAEgASgEEhAKCG5vdGF0aW9uGAIgASgJEg8KB3RhcmdldHMYAyADKAkieAoYTGlzdExlZ2FsQWN0aW9uc1Jlc3BvbnNlEg8KB3ZlcnNpb24YASABKAQSDAoEc2VhdBgCIAEoDRIpCgdhY3Rpb25zGAMgAygLMhgudGFibGV0b3AudjEuTGVnYWxBY3Rpb24SEgoKYWN0aW9uX2lkcxgEIAMoBCLQAQoTU3VibWl0QWN0aW9uUmVxdWVzdBIQCghtYXRjaF9pZBgBIAEoCRISCgpzZWF0X3Rva2VuGAIgASgJEhMKCWFjdGlvbl9pZBgDIAEoBEgAEhIKCG5vdGF0aW9uGAQgASgJSAASHQoQZXhwZWN0ZWRfdmVyc2lvbhgFIAEoBEgBiAEBEiwKC3ZpZXdfZGV0YWlsGAYgASgOMhcudGFibGV0b3AudjEuVmlld0RldGFpbEIICgZhY3Rpb25CEwoRX2V4cGVjdGVkX3ZlcnNpb24iTQoUU3VibWl0QWN0aW9uUmVzcG9uc2USJAoEdmlldxgBIAEoCzIWLnRhYmxldG9wLnYxLk1hdGNoVmlldxIPCgdwZW5kaW5nGAIgASgIIjUKDVJlc2lnblJlcXVlc3QSEAoIbWF0Y2hfaWQYASABKAkSEgoKc2VhdF90b2tlbhgCIAEoCSLFAgoSTGlzdE1hdGNoZXNSZXF1ZXN0EgwKBGdhbWUYASABKAkSJgoFc3RhdGUYAiABKA4yFy50YWJsZXRvcC52MS5NYXRjaFN0YXRlEhEKCXBhZ2Vfc2l6ZRgDIAEoDRISCgpwYWdlX3Rva2VuGAQgASgJEjsKBmxhYmVscxgFIAMoCzIrLnRhYmxldG9wLnYxLkxpc3RNYXRjaGVzUmVxdWVzdC5MYWJlbHNFbnRyeRIcCg9jcmVhdGVkX2Zyb21fbXMYBiABKANIAIgBARIeChFjcmVhdGVkX2JlZm9yZV9tcxgHIAEoA0gBiAEBGi0KC0xhYmVsc0VudHJ5EgsKA2tleRgBIAEoCRINCgV2YWx1ZRgCIAEoCToCOAFCEgoQX2NyZWF0ZWRfZnJvbV9tc0IUChJfY3JlYXRlZF9iZWZvcmVfbXMivQIKDE1hdGNoU3VtbWFyeRIQCghtYXRjaF9pZBgBIAEoCRIMCgRnYW1lGAIgASgJEhYKDnBsdWdpbl92ZXJzaW9uGAMgASgJEg8KB3BsYXllcnMYBCABKA0SJgoFc3RhdGUYBSABKA4yFy50YWJsZXRvcC52MS5NYXRjaFN0YXRlEg8KB3ZlcnNpb24YBiABKAQSEgoKb3Blbl9zZWF0cxgHIAMoDRIVCg1jcmVhdGVkX2F0X21zGAggASgDEhoKEnVuYXZhaWxhYmxlX3JlYXNvbhgJIAEoCRI1CgZsYWJlbHMYCiADKAsyJS50YWJsZXRvcC52MS5NYXRjaFN1bW1hcnkuTGFiZWxzRW50cnkaLQoLTGFiZWxzRW50cnkSCwoDa2V5GAEgASgJEg0KBXZhbHVlGAIgASgJOgI4ASJaChNMaXN0TWF0Y2hlc1Jlc3BvbnNlEioKB21hdGNoZXMYASADKAsyGS50YWJsZXRvcC52MS5NYXRjaFN1bW1hcnkSFwoPbmV4dF9wYWdlX3Rva2VuGAIgASgJIjwKE0V4cG9ydFJlY29yZFJlcXVlc3QSEAoIbWF0Y2hfaWQYASABKAkSEwoLYWRtaW5fdG9rZW4YAiABKAkiKwoURXhwb3J0UmVjb3JkUmVzcG9uc2USEwoLcmVjb3JkX2pzb24YASABKAkiPwoTSW1wb3J0UmVjb3JkUmVxdWVzdBITCgtyZWNvcmRfanNvbhgBIAEoCRITCgthZG1pbl90b2tlbhgCIAEoCSJ1ChRJbXBvcnRSZWNvcmRSZXNwb25zZRIQCghtYXRjaF9pZBgBIAEoCRIlCgVzZWF0cxgCIAMoCzIWLnRhYmxldG9wLnYxLlNlYXRUb2tlbhIkCgR2aWV3GAMgASgLMhYudGFibGV0b3AudjEuTWF0Y2hWaWV3Kl8KCk9uRGVhZGxpbmUSGwoXT05fREVBRExJTkVfVU5TUEVDSUZJRUQQABIVChFPTl9ERUFETElORV9BQk9SVBABEh0KGU9OX0RFQURMSU5FX1NUQVJUX1dJVEhPVVQQAipQCglPblRpbWVvdXQSGgoWT05fVElNRU9VVF9VTlNQRUNJRklFRBAAEhMKD09OX1RJTUVPVVRfTE9TRRABEhIKDk9OX1RJTUVPVVRfT1VUEAIqWAoKVmlld0RldGFpbBIbChdWSUVXX0RFVEFJTF9VTlNQRUNJRklFRBAAEhQKEFZJRVdfREVUQUlMX0ZVTEwQARIXChNWSUVXX0RFVEFJTF9TVU1NQVJZEAIy1wUKB01hdGNoZXMSUAoLQ3JlYXRlTWF0Y2gSHy50YWJsZXRvcC52MS5DcmVhdGVNYXRjaFJlcXVlc3QaIC50YWJsZXRvcC52MS5DcmVhdGVNYXRjaFJlc3BvbnNlEkoKCUpvaW5NYXRjaBIdLnRhYmxldG9wLnYxLkpvaW5NYXRjaFJlcXVlc3QaHi50YWJsZXRvcC52MS5Kb2luTWF0Y2hSZXNwb25zZRI+CgdHZXRWaWV3EhsudGFibGV0b3AudjEuR2V0Vmlld1JlcXVlc3QaFi50YWJsZXRvcC52MS5NYXRjaFZpZXcSXwoQTGlzdExlZ2FsQWN0aW9ucxIkLnRhYmxldG9wLnYxLkxpc3RMZWdhbEFjdGlvbnNSZXF1ZXN0GiUudGFibGV0b3AudjEuTGlzdExlZ2FsQWN0aW9uc1Jlc3BvbnNlElMKDFN1Ym1pdEFjdGlvbhIgLnRhYmxldG9wLnYxLlN1Ym1pdEFjdGlvblJlcXVlc3QaIS50YWJsZXRvcC52MS5TdWJtaXRBY3Rpb25SZXNwb25zZRI8CgZSZXNpZ24SGi50YWJsZXRvcC52MS5SZXNpZ25SZXF1ZXN0GhYudGFibGV0b3AudjEuTWF0Y2hWaWV3ElAKC0xpc3RNYXRjaGVzEh8udGFibGV0b3AudjEuTGlzdE1hdGNoZXNSZXF1ZXN0GiAudGFibGV0b3AudjEuTGlzdE1hdGNoZXNSZXNwb25zZRJTCgxFeHBvcnRSZWNvcmQSIC50YWJsZXRvcC52MS5FeHBvcnRSZWNvcmRSZXF1ZXN0GiEudGFibGV0b3AudjEuRXhwb3J0UmVjb3JkUmVzcG9uc2USUwoMSW1wb3J0UmVjb3JkEiAudGFibGV0b3AudjEuSW1wb3J0UmVjb3JkUmVxdWVzdBohLnRhYmxldG9wLnYxLkltcG9ydFJlY29yZFJlc3BvbnNlYgZwcm90bzM", [file_tabletop_v1_types]);

/**
 * Creates a match.
 *
 * @generated from message tabletop.v1.CreateMatchRequest
 */
export type CreateMatchRequest = Message<"tabletop.v1.CreateMatchRequest"> & {
  /**
   * The game's name.
   *
   * @generated from field: string game = 1;
   */
  game: string;

  /**
   * A plugin version; the newest if absent.
   *
   * @generated from field: optional string version = 2;
   */
  version?: string | undefined;

  /**
   * Number of seats.
   *
   * @generated from field: uint32 players = 3;
   */
  players: number;

  /**
   * Game options as text (`max_turns` = "300"); see Catalog.GetGame.
   *
   * @generated from field: map<string, string> options = 4;
   */
  options: { [key: string]: string };

  /**
   * Seed of the match's random source; random if absent.
   *
   * @generated from field: optional uint64 seed = 5;
   */
  seed?: bigint | undefined;

  /**
   * Start from this position (in the game's notation) instead of the start;
   * at most 64 KiB.
   *
   * @generated from field: optional string start_position = 6;
   */
  startPosition?: string | undefined;

  /**
   * Seats to leave open for JoinMatch; no token is issued for them.
   *
   * @generated from field: repeated uint32 open_seats = 7;
   */
  openSeats: number[];

  /**
   * Optional clock for every seat.
   *
   * @generated from field: optional tabletop.v1.TimeControl time_control = 8;
   */
  timeControl?: TimeControl | undefined;

  /**
   * How much of the match the response's view carries (default: everything).
   *
   * @generated from field: tabletop.v1.ViewDetail view_detail = 9;
   */
  viewDetail: ViewDetail;

  /**
   * What the match is tagged with (tournament, round, table …): at most 16;
   * keys of 1 to 63 lowercase letters, digits, `.`, `_` or `-` starting with
   * a letter; values of at most 256 bytes. Shown in views, records, listings
   * and the lifecycle feed, and usable as filters.
   *
   * @generated from field: map<string, string> labels = 10;
   */
  labels: { [key: string]: string };

  /**
   * Makes the call idempotent: a retry with the same id and the same request
   * (every other field equal) returns the same match and the same tokens,
   * also after a server restart; a different request under the same id is
   * refused with ALREADY_EXISTS (reason REQUEST_ID_REUSED). At most 128
   * bytes; empty for a call that is not retried.
   *
   * @generated from field: string request_id = 11;
   */
  requestId: string;

  /**
   * A deadline for the open seats: if any is still open then, the match is
   * aborted or starts without them, as this says.
   *
   * @generated from field: tabletop.v1.OpenSeatDeadline open_seat_deadline = 12;
   */
  openSeatDeadline?: OpenSeatDeadline | undefined;

  /**
   * Who plays the seats taken at creation (display name, external id),
   * shown in views, records, results and the lifecycle feed. A seat not
   * listed has neither.
   *
   * @generated from field: repeated tabletop.v1.SeatPlayer seat_players = 13;
   */
  seatPlayers: SeatPlayer[];

  /**
   * Let anyone join the open seats without a code. By default each open
   * seat is invite-only: the response carries a join code per open seat,
   * and JoinMatch needs it (an organizer of the match's tenant or the admin
   * may seat a player without one).
   *
   * @generated from field: bool public_open_seats = 14;
   */
  publicOpenSeats: boolean;

  /**
   * Spectators see the match this far behind while it runs, for
   * broadcasts: a player gains nothing from the public feed, which is the
   * spectators' WatchMatch stream. Held back: every call without a seat
   * token (GetView, also `at_version`; WatchMatch, also resumed; ListEvents)
   * and ListMatches' `version`, whoever calls, organizers and the admin
   * included, so a platform rebroadcasting with its credential cannot leak
   * the live match. Live: seats (their own view), and for organizers of the
   * match's tenant the lifecycle feed, the Director's controls and
   * ExportRecord. Once the match
   * is finished the delay ends and everything shows. Kept in the match's
   * setup (records, restarts) and part of what makes a `request_id` retry
   * the same request. Absent (or both bounds 0): no delay. Out of range:
   * INVALID_ARGUMENT (reason INVALID_SETUP).
   *
   * @generated from field: tabletop.v1.SpectatorDelay spectator_delay = 15;
   */
  spectatorDelay?: SpectatorDelay | undefined;

  /**
   * Seats played by the server's own bots, each named by a spec: `random`,
   * `mcts` (1000 iterations a move), `mcts:2000` (iterations), `mcts:500ms`
   * (time a move, clipped to the seat's clock), with optional settings
   * `:depth=N` (playout cut-off) and `:c=X` (exploration). No token is
   * issued for a bot seat; its display name defaults to the spec. A seat
   * listed twice, open, or a spec that does not read: INVALID_ARGUMENT
   * (reason INVALID_SETUP).
   *
   * @generated from field: repeated tabletop.v1.SeatBot bots = 16;
   */
  bots: SeatBot[];
};

/**
 * Describes the message tabletop.v1.CreateMatchRequest.
 * Use `create(CreateMatchRequestSchema)` to create a new message.
 */
export const CreateMatchRequestSchema: GenMessage<CreateMatchRequest> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 0);

/**
 * A seat played by a server-side bot.
 *
 * @generated from message tabletop.v1.SeatBot
 */
export type SeatBot = Message<"tabletop.v1.SeatBot"> & {
  /**
   * The seat, 0-based.
   *
   * @generated from field: uint32 seat = 1;
   */
  seat: number;

  /**
   * The bot and its settings (see CreateMatchRequest.bots).
   *
   * @generated from field: string spec = 2;
   */
  spec: string;
};

/**
 * Describes the message tabletop.v1.SeatBot.
 * Use `create(SeatBotSchema)` to create a new message.
 */
export const SeatBotSchema: GenMessage<SeatBot> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 1);

/**
 * The code that lets a player take one open seat.
 *
 * @generated from message tabletop.v1.SeatJoinCode
 */
export type SeatJoinCode = Message<"tabletop.v1.SeatJoinCode"> & {
  /**
   * The seat, 0-based.
   *
   * @generated from field: uint32 seat = 1;
   */
  seat: number;

  /**
   * Pass as JoinMatchRequest.join_code.
   *
   * @generated from field: string code = 2;
   */
  code: string;
};

/**
 * Describes the message tabletop.v1.SeatJoinCode.
 * Use `create(SeatJoinCodeSchema)` to create a new message.
 */
export const SeatJoinCodeSchema: GenMessage<SeatJoinCode> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 2);

/**
 * When a match's open seats must be taken by.
 *
 * @generated from message tabletop.v1.OpenSeatDeadline
 */
export type OpenSeatDeadline = Message<"tabletop.v1.OpenSeatDeadline"> & {
  /**
   * How long after creation, in milliseconds (1 s to 30 days).
   *
   * @generated from field: int64 within_ms = 1;
   */
  withinMs: bigint;

  /**
   * What happens to a match whose seats are not all taken by then.
   *
   * @generated from field: tabletop.v1.OnDeadline on_deadline = 2;
   */
  onDeadline: OnDeadline;
};

/**
 * Describes the message tabletop.v1.OpenSeatDeadline.
 * Use `create(OpenSeatDeadlineSchema)` to create a new message.
 */
export const OpenSeatDeadlineSchema: GenMessage<OpenSeatDeadline> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 3);

/**
 * A clock: time per move and/or a bank with an increment.
 *
 * @generated from message tabletop.v1.TimeControl
 */
export type TimeControl = Message<"tabletop.v1.TimeControl"> & {
  /**
   * Time for each move in milliseconds (0 = no per-move limit); each of the
   * three values is at most 30 days (2592000000).
   *
   * @generated from field: int64 per_move_ms = 1;
   */
  perMoveMs: bigint;

  /**
   * Starting bank in milliseconds (0 = no bank).
   *
   * @generated from field: int64 bank_ms = 2;
   */
  bankMs: bigint;

  /**
   * Added to the bank after each of the seat's moves, in milliseconds.
   *
   * @generated from field: int64 increment_ms = 3;
   */
  incrementMs: bigint;

  /**
   * What happens to a seat whose time runs out. The server acts as soon as
   * the time is up, without waiting for any request.
   *
   * @generated from field: tabletop.v1.OnTimeout on_timeout = 4;
   */
  onTimeout: OnTimeout;
};

/**
 * Describes the message tabletop.v1.TimeControl.
 * Use `create(TimeControlSchema)` to create a new message.
 */
export const TimeControlSchema: GenMessage<TimeControl> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 4);

/**
 * A seat and its secret token.
 *
 * @generated from message tabletop.v1.SeatToken
 */
export type SeatToken = Message<"tabletop.v1.SeatToken"> & {
  /**
   * The seat, 0-based.
   *
   * @generated from field: uint32 seat = 1;
   */
  seat: number;

  /**
   * The secret: whoever holds it plays the seat.
   *
   * @generated from field: string token = 2;
   */
  token: string;
};

/**
 * Describes the message tabletop.v1.SeatToken.
 * Use `create(SeatTokenSchema)` to create a new message.
 */
export const SeatTokenSchema: GenMessage<SeatToken> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 5);

/**
 * The new match.
 *
 * @generated from message tabletop.v1.CreateMatchResponse
 */
export type CreateMatchResponse = Message<"tabletop.v1.CreateMatchResponse"> & {
  /**
   * The match's id.
   *
   * @generated from field: string match_id = 1;
   */
  matchId: string;

  /**
   * Tokens of the filled seats.
   *
   * @generated from field: repeated tabletop.v1.SeatToken seats = 2;
   */
  seats: SeatToken[];

  /**
   * The match as a spectator sees it.
   *
   * @generated from field: tabletop.v1.MatchView view = 3;
   */
  view?: MatchView | undefined;

  /**
   * A code per open seat, for the player invited to it; empty when the
   * open seats are public.
   *
   * @generated from field: repeated tabletop.v1.SeatJoinCode join_codes = 4;
   */
  joinCodes: SeatJoinCode[];
};

/**
 * Describes the message tabletop.v1.CreateMatchResponse.
 * Use `create(CreateMatchResponseSchema)` to create a new message.
 */
export const CreateMatchResponseSchema: GenMessage<CreateMatchResponse> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 6);

/**
 * Joins an open seat.
 *
 * @generated from message tabletop.v1.JoinMatchRequest
 */
export type JoinMatchRequest = Message<"tabletop.v1.JoinMatchRequest"> & {
  /**
   * The match.
   *
   * @generated from field: string match_id = 1;
   */
  matchId: string;

  /**
   * The seat to take; the lowest open seat if absent. With a join code,
   * the code's seat.
   *
   * @generated from field: optional uint32 seat = 2;
   */
  seat?: number | undefined;

  /**
   * The seat's join code (from CreateMatchResponse.join_codes); not needed
   * for a public seat, or with an organizer credential of the match's tenant
   * or the admin token.
   *
   * @generated from field: string join_code = 3;
   */
  joinCode: string;

  /**
   * Who takes the seat: shown in views, records, results and the feed.
   *
   * @generated from field: string display_name = 4;
   */
  displayName: string;

  /**
   * The platform's id for the player.
   *
   * @generated from field: string external_id = 5;
   */
  externalId: string;

  /**
   * Seat a server-side bot instead (a spec, see CreateMatchRequest.bots):
   * no token is returned, the display name defaults to the spec.
   *
   * @generated from field: string bot = 6;
   */
  bot: string;
};

/**
 * Describes the message tabletop.v1.JoinMatchRequest.
 * Use `create(JoinMatchRequestSchema)` to create a new message.
 */
export const JoinMatchRequestSchema: GenMessage<JoinMatchRequest> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 7);

/**
 * The joined seat.
 *
 * @generated from message tabletop.v1.JoinMatchResponse
 */
export type JoinMatchResponse = Message<"tabletop.v1.JoinMatchResponse"> & {
  /**
   * The seat taken.
   *
   * @generated from field: uint32 seat = 1;
   */
  seat: number;

  /**
   * Its secret token; empty when a bot took the seat.
   *
   * @generated from field: string token = 2;
   */
  token: string;

  /**
   * The match as that seat sees it.
   *
   * @generated from field: tabletop.v1.MatchView view = 3;
   */
  view?: MatchView | undefined;
};

/**
 * Describes the message tabletop.v1.JoinMatchResponse.
 * Use `create(JoinMatchResponseSchema)` to create a new message.
 */
export const JoinMatchResponseSchema: GenMessage<JoinMatchResponse> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 8);

/**
 * Asks for a view.
 *
 * @generated from message tabletop.v1.GetViewRequest
 */
export type GetViewRequest = Message<"tabletop.v1.GetViewRequest"> & {
  /**
   * The match.
   *
   * @generated from field: string match_id = 1;
   */
  matchId: string;

  /**
   * A seat token to see as that seat; empty to see as a spectator.
   *
   * @generated from field: string seat_token = 2;
   */
  seatToken: string;

  /**
   * The match as it was right after this version (0: as created), clocks as
   * of that log entry's time, replayed from the log: the same answer
   * whenever it is asked. Absent: the match now. A match whose
   * `quarantine_reason` is set answers only the versions from its
   * quarantine on (a replay would call its plugin); an earlier one is
   * refused with MATCH_QUARANTINED until the quarantine is lifted.
   *
   * @generated from field: optional uint64 at_version = 3;
   */
  atVersion?: bigint | undefined;

  /**
   * Also draw the board: `MatchView.svg`, for a game whose plugin draws
   * (`GameInfo.svg_board`). It shows exactly what this view shows.
   *
   * @generated from field: bool svg = 4;
   */
  svg: boolean;
};

/**
 * Describes the message tabletop.v1.GetViewRequest.
 * Use `create(GetViewRequestSchema)` to create a new message.
 */
export const GetViewRequestSchema: GenMessage<GetViewRequest> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 9);

/**
 * Asks for legal actions.
 *
 * @generated from message tabletop.v1.ListLegalActionsRequest
 */
export type ListLegalActionsRequest = Message<"tabletop.v1.ListLegalActionsRequest"> & {
  /**
   * The match.
   *
   * @generated from field: string match_id = 1;
   */
  matchId: string;

  /**
   * The seat's token.
   *
   * @generated from field: string seat_token = 2;
   */
  seatToken: string;

  /**
   * Only the ids, in `action_ids`, and no notation: for clients that pick
   * by id (bots, tournament runners). The server then writes no notation
   * at all, which is most of the cost of a long list, and the ids go packed
   * (a varint each) instead of one `LegalAction` message each.
   *
   * @generated from field: bool ids_only = 3;
   */
  idsOnly: boolean;
};

/**
 * Describes the message tabletop.v1.ListLegalActionsRequest.
 * Use `create(ListLegalActionsRequestSchema)` to create a new message.
 */
export const ListLegalActionsRequestSchema: GenMessage<ListLegalActionsRequest> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 10);

/**
 * One legal action.
 *
 * @generated from message tabletop.v1.LegalAction
 */
export type LegalAction = Message<"tabletop.v1.LegalAction"> & {
  /**
   * The action's id (stable within the game's action space).
   *
   * @generated from field: uint64 id = 1;
   */
  id: bigint;

  /**
   * Its notation.
   *
   * @generated from field: string notation = 2;
   */
  notation: string;

  /**
   * The ids of the board elements it involves, in click order (the piece or
   * square it moves from, then where it goes): `id`s of the seat's
   * `MatchView.svg`. Filled unless `ids_only`, for a game with
   * `GameInfo.action_targets`; empty for an action the board cannot show.
   *
   * @generated from field: repeated string targets = 3;
   */
  targets: string[];
};

/**
 * Describes the message tabletop.v1.LegalAction.
 * Use `create(LegalActionSchema)` to create a new message.
 */
export const LegalActionSchema: GenMessage<LegalAction> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 11);

/**
 * The legal actions.
 *
 * @generated from message tabletop.v1.ListLegalActionsResponse
 */
export type ListLegalActionsResponse = Message<"tabletop.v1.ListLegalActionsResponse"> & {
  /**
   * The match version they apply to.
   *
   * @generated from field: uint64 version = 1;
   */
  version: bigint;

  /**
   * The seat they are for.
   *
   * @generated from field: uint32 seat = 2;
   */
  seat: number;

  /**
   * The actions, by ascending id (empty when the request asked for
   * `ids_only`).
   *
   * @generated from field: repeated tabletop.v1.LegalAction actions = 3;
   */
  actions: LegalAction[];

  /**
   * With `ids_only`: the actions' ids, ascending; otherwise empty.
   *
   * @generated from field: repeated uint64 action_ids = 4;
   */
  actionIds: bigint[];
};

/**
 * Describes the message tabletop.v1.ListLegalActionsResponse.
 * Use `create(ListLegalActionsResponseSchema)` to create a new message.
 */
export const ListLegalActionsResponseSchema: GenMessage<ListLegalActionsResponse> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 12);

/**
 * Submits an action.
 *
 * @generated from message tabletop.v1.SubmitActionRequest
 */
export type SubmitActionRequest = Message<"tabletop.v1.SubmitActionRequest"> & {
  /**
   * The match.
   *
   * @generated from field: string match_id = 1;
   */
  matchId: string;

  /**
   * The acting seat's token.
   *
   * @generated from field: string seat_token = 2;
   */
  seatToken: string;

  /**
   * The action, by id or by notation.
   *
   * @generated from oneof tabletop.v1.SubmitActionRequest.action
   */
  action: {
    /**
     * An id from ListLegalActions.
     *
     * @generated from field: uint64 action_id = 3;
     */
    value: bigint;
    case: "actionId";
  } | {
    /**
     * The action's notation, or a shorthand the game expands into several
     * actions of this seat (a whole War setup layout, ruling W3). A shorthand
     * is checked whole and applied all or nothing; each of its actions gets
     * its own version and watch event, `expected_version` applies before the
     * first, and the response's view is the one after the last. Refused in a
     * simultaneous turn.
     *
     * @generated from field: string notation = 4;
     */
    value: string;
    case: "notation";
  } | { case: undefined; value?: undefined };

  /**
   * Refuse (FAILED_PRECONDITION, reason STALE_VERSION, with the match's
   * `current_version` in the metadata) unless the match is at this version.
   *
   * @generated from field: optional uint64 expected_version = 5;
   */
  expectedVersion?: bigint | undefined;

  /**
   * How much of the match the response carries (default: everything).
   *
   * @generated from field: tabletop.v1.ViewDetail view_detail = 6;
   */
  viewDetail: ViewDetail;
};

/**
 * Describes the message tabletop.v1.SubmitActionRequest.
 * Use `create(SubmitActionRequestSchema)` to create a new message.
 */
export const SubmitActionRequestSchema: GenMessage<SubmitActionRequest> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 13);

/**
 * The result of an action.
 *
 * @generated from message tabletop.v1.SubmitActionResponse
 */
export type SubmitActionResponse = Message<"tabletop.v1.SubmitActionResponse"> & {
  /**
   * The match as the acting seat now sees it.
   *
   * @generated from field: tabletop.v1.MatchView view = 1;
   */
  view?: MatchView | undefined;

  /**
   * True when the action is held for a simultaneous turn that still waits for
   * other seats.
   *
   * @generated from field: bool pending = 2;
   */
  pending: boolean;
};

/**
 * Describes the message tabletop.v1.SubmitActionResponse.
 * Use `create(SubmitActionResponseSchema)` to create a new message.
 */
export const SubmitActionResponseSchema: GenMessage<SubmitActionResponse> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 14);

/**
 * Resigns a seat.
 *
 * @generated from message tabletop.v1.ResignRequest
 */
export type ResignRequest = Message<"tabletop.v1.ResignRequest"> & {
  /**
   * The match.
   *
   * @generated from field: string match_id = 1;
   */
  matchId: string;

  /**
   * The resigning seat's token.
   *
   * @generated from field: string seat_token = 2;
   */
  seatToken: string;
};

/**
 * Describes the message tabletop.v1.ResignRequest.
 * Use `create(ResignRequestSchema)` to create a new message.
 */
export const ResignRequestSchema: GenMessage<ResignRequest> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 15);

/**
 * Filters and a page for ListMatches.
 *
 * @generated from message tabletop.v1.ListMatchesRequest
 */
export type ListMatchesRequest = Message<"tabletop.v1.ListMatchesRequest"> & {
  /**
   * Only this game; all if empty.
   *
   * @generated from field: string game = 1;
   */
  game: string;

  /**
   * Only this state; all if unspecified.
   *
   * @generated from field: tabletop.v1.MatchState state = 2;
   */
  state: MatchState;

  /**
   * At most this many matches (default 100, at most 1000).
   *
   * @generated from field: uint32 page_size = 3;
   */
  pageSize: number;

  /**
   * The previous response's `next_page_token`, with the same filters; empty
   * for the first page.
   *
   * @generated from field: string page_token = 4;
   */
  pageToken: string;

  /**
   * Only matches that have every one of these labels with these values.
   *
   * @generated from field: map<string, string> labels = 5;
   */
  labels: { [key: string]: string };

  /**
   * Only matches created at or after this time (ms since the Unix epoch).
   *
   * @generated from field: optional int64 created_from_ms = 6;
   */
  createdFromMs?: bigint | undefined;

  /**
   * Only matches created before this time (ms since the Unix epoch).
   *
   * @generated from field: optional int64 created_before_ms = 7;
   */
  createdBeforeMs?: bigint | undefined;
};

/**
 * Describes the message tabletop.v1.ListMatchesRequest.
 * Use `create(ListMatchesRequestSchema)` to create a new message.
 */
export const ListMatchesRequestSchema: GenMessage<ListMatchesRequest> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 16);

/**
 * One match in a listing.
 *
 * @generated from message tabletop.v1.MatchSummary
 */
export type MatchSummary = Message<"tabletop.v1.MatchSummary"> & {
  /**
   * The match.
   *
   * @generated from field: string match_id = 1;
   */
  matchId: string;

  /**
   * The game.
   *
   * @generated from field: string game = 2;
   */
  game: string;

  /**
   * The plugin version it is played with.
   *
   * @generated from field: string plugin_version = 3;
   */
  pluginVersion: string;

  /**
   * Number of seats.
   *
   * @generated from field: uint32 players = 4;
   */
  players: number;

  /**
   * Its state.
   *
   * @generated from field: tabletop.v1.MatchState state = 5;
   */
  state: MatchState;

  /**
   * Its version (state changes so far).
   *
   * @generated from field: uint64 version = 6;
   */
  version: bigint;

  /**
   * Seats still open.
   *
   * @generated from field: repeated uint32 open_seats = 7;
   */
  openSeats: number[];

  /**
   * Creation time, milliseconds since the Unix epoch.
   *
   * @generated from field: int64 created_at_ms = 8;
   */
  createdAtMs: bigint;

  /**
   * Why it is unavailable, for MATCH_STATE_UNAVAILABLE.
   *
   * @generated from field: string unavailable_reason = 9;
   */
  unavailableReason: string;

  /**
   * Its labels.
   *
   * @generated from field: map<string, string> labels = 10;
   */
  labels: { [key: string]: string };
};

/**
 * Describes the message tabletop.v1.MatchSummary.
 * Use `create(MatchSummarySchema)` to create a new message.
 */
export const MatchSummarySchema: GenMessage<MatchSummary> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 17);

/**
 * A page of the listing.
 *
 * @generated from message tabletop.v1.ListMatchesResponse
 */
export type ListMatchesResponse = Message<"tabletop.v1.ListMatchesResponse"> & {
  /**
   * Matches, oldest first (by creation time, then id).
   *
   * @generated from field: repeated tabletop.v1.MatchSummary matches = 1;
   */
  matches: MatchSummary[];

  /**
   * Pass as `page_token` (with the same filters) for the next page; empty on
   * the last page.
   *
   * @generated from field: string next_page_token = 2;
   */
  nextPageToken: string;
};

/**
 * Describes the message tabletop.v1.ListMatchesResponse.
 * Use `create(ListMatchesResponseSchema)` to create a new message.
 */
export const ListMatchesResponseSchema: GenMessage<ListMatchesResponse> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 18);

/**
 * Asks for a record.
 *
 * @generated from message tabletop.v1.ExportRecordRequest
 */
export type ExportRecordRequest = Message<"tabletop.v1.ExportRecordRequest"> & {
  /**
   * The match.
   *
   * @generated from field: string match_id = 1;
   */
  matchId: string;

  /**
   * Required while the match runs.
   *
   * @generated from field: string admin_token = 2;
   */
  adminToken: string;
};

/**
 * Describes the message tabletop.v1.ExportRecordRequest.
 * Use `create(ExportRecordRequestSchema)` to create a new message.
 */
export const ExportRecordRequestSchema: GenMessage<ExportRecordRequest> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 19);

/**
 * The record.
 *
 * @generated from message tabletop.v1.ExportRecordResponse
 */
export type ExportRecordResponse = Message<"tabletop.v1.ExportRecordResponse"> & {
  /**
   * The record as JSON (format documented in the README, "Match records").
   *
   * @generated from field: string record_json = 1;
   */
  recordJson: string;
};

/**
 * Describes the message tabletop.v1.ExportRecordResponse.
 * Use `create(ExportRecordResponseSchema)` to create a new message.
 */
export const ExportRecordResponseSchema: GenMessage<ExportRecordResponse> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 20);

/**
 * Imports a record.
 *
 * @generated from message tabletop.v1.ImportRecordRequest
 */
export type ImportRecordRequest = Message<"tabletop.v1.ImportRecordRequest"> & {
  /**
   * The record as JSON: at most 4 MiB and 20000 actions.
   *
   * @generated from field: string record_json = 1;
   */
  recordJson: string;

  /**
   * The admin token.
   *
   * @generated from field: string admin_token = 2;
   */
  adminToken: string;
};

/**
 * Describes the message tabletop.v1.ImportRecordRequest.
 * Use `create(ImportRecordRequestSchema)` to create a new message.
 */
export const ImportRecordRequestSchema: GenMessage<ImportRecordRequest> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 21);

/**
 * The imported match.
 *
 * @generated from message tabletop.v1.ImportRecordResponse
 */
export type ImportRecordResponse = Message<"tabletop.v1.ImportRecordResponse"> & {
  /**
   * The new match's id.
   *
   * @generated from field: string match_id = 1;
   */
  matchId: string;

  /**
   * Fresh tokens for its seats (useful if the record's match was still running).
   *
   * @generated from field: repeated tabletop.v1.SeatToken seats = 2;
   */
  seats: SeatToken[];

  /**
   * The match as a spectator sees it.
   *
   * @generated from field: tabletop.v1.MatchView view = 3;
   */
  view?: MatchView | undefined;
};

/**
 * Describes the message tabletop.v1.ImportRecordResponse.
 * Use `create(ImportRecordResponseSchema)` to create a new message.
 */
export const ImportRecordResponseSchema: GenMessage<ImportRecordResponse> = /*@__PURE__*/
  messageDesc(file_tabletop_v1_matches, 22);

/**
 * What an open-seat deadline does.
 *
 * @generated from enum tabletop.v1.OnDeadline
 */
export enum OnDeadline {
  /**
   * The default: abort.
   *
   * @generated from enum value: ON_DEADLINE_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * The match ends without a result.
   *
   * @generated from enum value: ON_DEADLINE_ABORT = 1;
   */
  ABORT = 1,

  /**
   * The match starts with the absent seats out: a two-seat match is won by
   * the seat that is there; a game that can remove players (3 or more
   * seats) plays on without them. Refused at creation for a game of 3 or
   * more seats that cannot remove a player.
   *
   * @generated from enum value: ON_DEADLINE_START_WITHOUT = 2;
   */
  START_WITHOUT = 2,
}

/**
 * Describes the enum tabletop.v1.OnDeadline.
 */
export const OnDeadlineSchema: GenEnum<OnDeadline> = /*@__PURE__*/
  enumDesc(file_tabletop_v1_matches, 0);

/**
 * What a seat's clock running out does.
 *
 * @generated from enum tabletop.v1.OnTimeout
 */
export enum OnTimeout {
  /**
   * Not given: the same as ON_TIMEOUT_LOSE.
   *
   * @generated from enum value: ON_TIMEOUT_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * The match ends: the seat is last, every other seat shares first place.
   *
   * @generated from enum value: ON_TIMEOUT_LOSE = 1;
   */
  LOSE = 1,

  /**
   * The seat is out: it leaves the game and the others play on; when too few
   * seats are left the game ends as its rules say, and its results rank every
   * seat (how a game ranks removed seats is in its README). Refused with
   * INVALID_ARGUMENT at CreateMatch for matches of 2 players and for games
   * whose GameInfo.removable_players is false.
   *
   * @generated from enum value: ON_TIMEOUT_OUT = 2;
   */
  OUT = 2,
}

/**
 * Describes the enum tabletop.v1.OnTimeout.
 */
export const OnTimeoutSchema: GenEnum<OnTimeout> = /*@__PURE__*/
  enumDesc(file_tabletop_v1_matches, 1);

/**
 * How much of a match a response carries.
 *
 * @generated from enum tabletop.v1.ViewDetail
 */
export enum ViewDetail {
  /**
   * The same as VIEW_DETAIL_FULL.
   *
   * @generated from enum value: VIEW_DETAIL_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * The whole MatchView, with the game's `view_json` and `text`.
   *
   * @generated from enum value: VIEW_DETAIL_FULL = 1;
   */
  FULL = 1,

  /**
   * The MatchView without `view_json` and `text` (left empty): version,
   * state, seats to move, results. For clients that do not redraw the board
   * after each of their own actions (bots, tournament runners): the game's
   * view is the costly part of a response.
   *
   * @generated from enum value: VIEW_DETAIL_SUMMARY = 2;
   */
  SUMMARY = 2,
}

/**
 * Describes the enum tabletop.v1.ViewDetail.
 */
export const ViewDetailSchema: GenEnum<ViewDetail> = /*@__PURE__*/
  enumDesc(file_tabletop_v1_matches, 2);

/**
 * Plays matches. Seats are identified by secret tokens issued when a match is
 * created or a seat is joined; a token is shown once and only its hash is kept.
 *
 * @generated from service tabletop.v1.Matches
 */
export const Matches: GenService<{
  /**
   * Creates a match; returns its id and one token per filled seat.
   *
   * @generated from rpc tabletop.v1.Matches.CreateMatch
   */
  createMatch: {
    methodKind: "unary";
    input: typeof CreateMatchRequestSchema;
    output: typeof CreateMatchResponseSchema;
  },
  /**
   * Takes an open seat of a waiting match; returns its token.
   *
   * @generated from rpc tabletop.v1.Matches.JoinMatch
   */
  joinMatch: {
    methodKind: "unary";
    input: typeof JoinMatchRequestSchema;
    output: typeof JoinMatchResponseSchema;
  },
  /**
   * The match as a seat (with its token) or as a spectator (without).
   *
   * @generated from rpc tabletop.v1.Matches.GetView
   */
  getView: {
    methodKind: "unary";
    input: typeof GetViewRequestSchema;
    output: typeof MatchViewSchema;
  },
  /**
   * The legal actions of the token's seat now (empty when not to move;
   * refused with MATCH_QUARANTINED while the match is quarantined).
   *
   * @generated from rpc tabletop.v1.Matches.ListLegalActions
   */
  listLegalActions: {
    methodKind: "unary";
    input: typeof ListLegalActionsRequestSchema;
    output: typeof ListLegalActionsResponseSchema;
  },
  /**
   * Submits the token's seat's action. For simultaneous moves the action is
   * held, hidden, until every seat to move has acted.
   *
   * @generated from rpc tabletop.v1.Matches.SubmitAction
   */
  submitAction: {
    methodKind: "unary";
    input: typeof SubmitActionRequestSchema;
    output: typeof SubmitActionResponseSchema;
  },
  /**
   * The token's seat resigns: it loses and the match ends (all other seats
   * share first place).
   *
   * @generated from rpc tabletop.v1.Matches.Resign
   */
  resign: {
    methodKind: "unary";
    input: typeof ResignRequestSchema;
    output: typeof MatchViewSchema;
  },
  /**
   * Lists matches, optionally by game and state.
   *
   * @generated from rpc tabletop.v1.Matches.ListMatches
   */
  listMatches: {
    methodKind: "unary";
    input: typeof ListMatchesRequestSchema;
    output: typeof ListMatchesResponseSchema;
  },
  /**
   * A self-contained, replayable record of a match (JSON). While the match runs
   * only with an organizer credential of the match's tenant or the admin
   * token: the seed and chance outcomes reveal hidden information. Anyone may
   * export a finished match.
   *
   * @generated from rpc tabletop.v1.Matches.ExportRecord
   */
  exportRecord: {
    methodKind: "unary";
    input: typeof ExportRecordRequestSchema;
    output: typeof ExportRecordResponseSchema;
  },
  /**
   * Replays and verifies a record, and stores it as a new match (admin only).
   *
   * @generated from rpc tabletop.v1.Matches.ImportRecord
   */
  importRecord: {
    methodKind: "unary";
    input: typeof ImportRecordRequestSchema;
    output: typeof ImportRecordResponseSchema;
  },
}> = /*@__PURE__*/
  serviceDesc(file_tabletop_v1_matches, 0);

