/**
 * Typed errors: what the server refused, read from its `ErrorInfo` detail.
 *
 * Every error status the server sends carries a `google.rpc.ErrorInfo`
 * (domain `tabletop`) whose `reason` says what went wrong (`STALE_VERSION`,
 * `NOT_YOUR_TURN`, ...) and whose metadata holds the facts a program needs
 * (`current_version` of a stale version, ...).
 * `proto/tabletop/v1/matches.proto` lists every reason with its status code
 * and metadata keys.
 *
 * The wrapper's calls reject with a `TabletopError` subclass chosen by
 * reason:
 *
 * ```ts
 * try {
 *   await seat.act(action, version);
 * } catch (e) {
 *   if (!(e instanceof StaleVersion)) throw e;
 *   version = e.currentVersion; // catch up, then decide again
 * }
 * ```
 *
 * A `TabletopError` is a `ConnectError` with the call's own `code`,
 * `rawMessage`, `metadata` (headers and trailers) and `details`, so code
 * written for Connect's errors keeps working; `reason` and `info` (the
 * ErrorInfo's metadata) are added. `toTabletopError` converts an error
 * thrown by the raw stubs.
 */

import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** The `ErrorInfo` domain of the server's errors. */
export const DOMAIN = "tabletop";

/** The type name of `google.rpc.ErrorInfo` (as Connect keeps it). */
const ERROR_INFO = "google.rpc.ErrorInfo";

/** A decoded `google.rpc.ErrorInfo`. */
export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

/**
 * Decodes a `google.rpc.ErrorInfo` from its wire bytes: `reason` (1),
 * `domain` (2), `metadata` (3, a map<string, string>). Unknown fields are
 * skipped.
 */
export function decodeErrorInfo(bytes: Uint8Array): ErrorInfo {
  const reader = new BinaryReader(bytes);
  const info: ErrorInfo = { reason: "", domain: "", metadata: {} };
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) {
      info.reason = reader.string();
    } else if (field === 2 && wireType === WireType.LengthDelimited) {
      info.domain = reader.string();
    } else if (field === 3 && wireType === WireType.LengthDelimited) {
      const entry = new BinaryReader(reader.bytes());
      let key = "";
      let value = "";
      while (entry.pos < entry.len) {
        const [f, w] = entry.tag();
        if (f === 1 && w === WireType.LengthDelimited) key = entry.string();
        else if (f === 2 && w === WireType.LengthDelimited) value = entry.string();
        else entry.skip(w, f);
      }
      info.metadata[key] = value;
    } else {
      reader.skip(wireType, field);
    }
  }
  return info;
}

/** The Tabletop `ErrorInfo` a `ConnectError` carries, if any. */
export function errorInfo(error: ConnectError): ErrorInfo | undefined {
  for (const detail of error.details) {
    if (!("type" in detail) || detail.type !== ERROR_INFO) continue;
    try {
      const info = decodeErrorInfo(detail.value);
      if (info.domain === DOMAIN) return info;
    } catch {
      // Not an ErrorInfo after all: no reason to read.
    }
  }
  return undefined;
}

/**
 * A call the server refused (or a failure without a Tabletop reason, whose
 * `reason` is empty: a transport error, a deadline the client set).
 */
export class TabletopError extends ConnectError {
  /** The ErrorInfo reason (`STALE_VERSION`, ...), or "". */
  readonly reason: string;
  /** The ErrorInfo metadata (`metadata` is the call's headers and trailers). */
  readonly info: Readonly<Record<string, string>>;

  constructor(from: ConnectError, reason = "", info: Record<string, string> = {}) {
    super(from.rawMessage, from.code, from.metadata, undefined, from);
    this.details = from.details;
    this.reason = reason;
    this.info = info;
  }

  /**
   * `instanceof` by class, as usual: `ConnectError` answers true for any
   * ConnectError-like value, which would make every subclass match.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }

  protected int(key: string): bigint {
    return BigInt(this.info[key] ?? "0");
  }
}

/** `STALE_VERSION`: the match is no longer at the expected version. */
export class StaleVersion extends TabletopError {
  /** The version the request expected. */
  get expectedVersion(): bigint {
    return this.int("expected_version");
  }

  /** The match's version when the request arrived. */
  get currentVersion(): bigint {
    return this.int("current_version");
  }
}

/** `NOT_YOUR_TURN`: the seat is not to move now. */
export class NotYourTurn extends TabletopError {
  /** The seat, when the server named it. */
  get seat(): number | undefined {
    return this.info.seat === undefined ? undefined : Number(this.info.seat);
  }
}

/** `ALREADY_ACTED`: the seat already acted in this simultaneous turn. */
export class AlreadyActed extends TabletopError {}

/**
 * The action is not legal now for this seat: `reason` is the game's own code
 * when it says why (`RED_LINE`, `CARD_REPEATED`: see the game's README), else
 * `ILLEGAL_ACTION`.
 */
export class IllegalAction extends TabletopError {}

/**
 * The action's notation does not parse: `reason` is the game's own code when
 * it says why, else `INVALID_NOTATION`.
 */
export class InvalidNotation extends TabletopError {}

/** `MATCH_OVER`: the match has ended. */
export class MatchOver extends TabletopError {}

/** `NOT_STARTED`: the match waits for players to join its open seats. */
export class NotStarted extends TabletopError {}

/** `TOKEN_REQUIRED` (UNAUTHENTICATED): the call needs a token (`credential`) and got none. */
export class TokenRequired extends TabletopError {
  /**
   * What it needs: `seat` (a seat token), `organizer` (an organizer
   * credential or the admin token), `admin` or `join_code` (an invite-only
   * seat's).
   */
  get credential(): string {
    return this.info.credential ?? "";
  }
}

/**
 * `BAD_TOKEN` (PERMISSION_DENIED): the token is not one the server knows for
 * this: wrong, revoked, or a join code already used. Also ends a stream
 * (watch, lifecycle feed) whose credential was revoked or whose seat token
 * was re-issued.
 */
export class BadToken extends TabletopError {
  /**
   * Which: `seat`, `admin`, `bearer` (the client's credential: unknown or
   * revoked) or `join_code`.
   */
  get credential(): string {
    return this.info.credential ?? "";
  }
}

/**
 * `NOT_PERMITTED` (PERMISSION_DENIED): the caller's credential is valid (or
 * it has none) but does not allow this call: an organizer asking for an
 * admin's call, an anonymous client choosing a seed.
 */
export class NotPermitted extends TabletopError {
  /** The weakest credential that would do: `organizer` or `admin`. */
  get credential(): string {
    return this.info.credential ?? "";
  }
}

/** `UNKNOWN_MATCH`: no match has this id. */
export class UnknownMatch extends TabletopError {
  /** The id asked for. */
  get matchId(): string {
    return this.info.match_id ?? "";
  }
}

/** `UNKNOWN_GAME` / `UNKNOWN_GAME_VERSION`: no such game (version). */
export class UnknownGame extends TabletopError {}

/** `SHUTTING_DOWN`: the server is stopping; reconnect to its successor. */
export class ShuttingDown extends TabletopError {}

/**
 * `STORE_UNAVAILABLE` (UNAVAILABLE): the server cannot reach its match
 * store's database (PostgreSQL down or restarting); nothing was acknowledged
 * as stored. Call again once it is back, with `expectedVersion` or a
 * `requestId` so a retry cannot apply twice.
 */
export class StoreUnavailable extends TabletopError {}

/**
 * `STREAM_FELL_BEHIND`: the server cut a stream whose client read nothing
 * while its queue was full; `watch` and `followLifecycle` open it again by
 * themselves after the last event received.
 */
export class StreamFellBehind extends TabletopError {
  /** A Watch stream's last event the server queued. */
  get afterSeq(): bigint | undefined {
    const value = this.info.after_seq;
    return value === undefined ? undefined : BigInt(value);
  }
  /** A lifecycle feed's last row the server queued. */
  get afterCursor(): bigint | undefined {
    const value = this.info.after_cursor;
    return value === undefined ? undefined : BigInt(value);
  }
}

/**
 * `REQUEST_ID_REUSED`: `createMatch` was given a `requestId` that an
 * earlier, different request used (a retry must repeat the request exactly).
 */
export class RequestIdReused extends TabletopError {
  /** The reused id. */
  get requestId(): string {
    return this.info.request_id ?? "";
  }

  /** The match the earlier request created. */
  get matchId(): string {
    return this.info.match_id ?? "";
  }
}

/**
 * `INVALID_PAGE_TOKEN`: the page token is not one the server issued for
 * these filters (start again without one).
 */
export class InvalidPageToken extends TabletopError {}

/** `MATCH_PAUSED`: a director paused the match; act again once it resumes. */
export class MatchPaused extends TabletopError {}

/**
 * `CONTROL_REFUSED`: a director's control does not apply to the match as it
 * is (pausing a paused match, adding time to a match without a clock).
 */
export class ControlRefused extends TabletopError {}

/**
 * `MATCH_QUARANTINED`: the server quarantined the match (its game's plugin
 * failed in one of its calls) and calls the plugin for it no more; a
 * director may abort or adjudicate it, the admin may lift the quarantine.
 */
export class MatchQuarantined extends TabletopError {
  /** The match. */
  get matchId(): string {
    return this.info.match_id ?? "";
  }

  /** Why it is quarantined, for a person. */
  get quarantineReason(): string {
    return this.info.quarantine_reason ?? "";
  }
}

/**
 * `PLUGIN_FAULT` (UNAVAILABLE): the game's plugin failed in this call (a bug
 * in the plugin); when its worker process died, the match is quarantined.
 */
export class PluginFault extends TabletopError {}

/**
 * A limit refused the call before the server served it (`SERVER_BUSY`,
 * `TOO_MANY_CALLS_IN_FLIGHT`, `RATE_LIMITED`, `CREATION_QUOTA`,
 * `LIVE_MATCH_LIMIT`); nothing changed. Wait `retryAfterMs` before trying
 * again (the status's `RetryInfo` says the same).
 */
export class Throttled extends TabletopError {
  /** How long to wait, in milliseconds. */
  get retryAfterMs(): number {
    return Number(this.info.retry_after_ms ?? "0");
  }
}

// Written from the server's table of reasons (engine-host/src/grpc/reason.rs)
// by `cargo run -p tabletop-tests --bin reasons`; a test fails when it differs.
const BY_REASON: Record<string, typeof TabletopError> = {
  INVALID_NOTATION: InvalidNotation,
  ILLEGAL_ACTION: IllegalAction,
  UNKNOWN_GAME: UnknownGame,
  UNKNOWN_GAME_VERSION: UnknownGame,
  INVALID_PAGE_TOKEN: InvalidPageToken,
  UNKNOWN_MATCH: UnknownMatch,
  STALE_VERSION: StaleVersion,
  NOT_YOUR_TURN: NotYourTurn,
  ALREADY_ACTED: AlreadyActed,
  MATCH_OVER: MatchOver,
  NOT_STARTED: NotStarted,
  MATCH_PAUSED: MatchPaused,
  CONTROL_REFUSED: ControlRefused,
  MATCH_QUARANTINED: MatchQuarantined,
  REQUEST_ID_REUSED: RequestIdReused,
  TOKEN_REQUIRED: TokenRequired,
  BAD_TOKEN: BadToken,
  NOT_PERMITTED: NotPermitted,
  SHUTTING_DOWN: ShuttingDown,
  STREAM_FELL_BEHIND: StreamFellBehind,
  STREAM_LIMIT: Throttled,
  SERVER_BUSY: Throttled,
  TOO_MANY_CALLS_IN_FLIGHT: Throttled,
  RATE_LIMITED: Throttled,
  CREATION_QUOTA: Throttled,
  LIVE_MATCH_LIMIT: Throttled,
  PLUGIN_FAULT: PluginFault,
  STORE_UNAVAILABLE: StoreUnavailable,
};

/** The typed error for anything a call threw (itself, if it already is one). */
export function toTabletopError(error: unknown): TabletopError {
  if (error instanceof TabletopError) return error;
  const connect = ConnectError.from(error, Code.Unknown);
  const info = errorInfo(connect);
  if (info === undefined) return new TabletopError(connect);
  // A game's own refusal code says why; `refusal` says which kind it is.
  const kind = info.metadata["refusal"] ?? info.reason;
  const Typed = BY_REASON[kind] ?? TabletopError;
  return new Typed(connect, info.reason, info.metadata);
}

/** `call`'s result, or its typed error. */
export async function typed<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    throw toTabletopError(e);
  }
}

/** `stream`'s items, or its typed error; ending the iteration cancels it. */
export async function* typedStream<T>(stream: AsyncIterable<T>): AsyncGenerator<T, void, undefined> {
  try {
    yield* stream;
  } catch (e) {
    throw toTabletopError(e);
  }
}
