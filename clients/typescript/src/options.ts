/**
 * The options of the client's calls (re-exported by `./client.js`).
 */

import type { MessageInitShape } from "@bufbuild/protobuf";

import type { OnDeadline, TimeControlSchema } from "./gen/tabletop/v1/matches_pb.js";
import type { MatchState, SeatPlayerSchema } from "./gen/tabletop/v1/types_pb.js";

/** Options of a new match. */
export interface CreateMatchOptions {
  /** Number of seats (default 2). */
  players?: number;
  /** Game options as text, e.g. `{ max_turns: "300" }`. */
  options?: Record<string, string>;
  /** Seed of the match's random source. */
  seed?: bigint | number;
  /** Seats to leave open for `join`. */
  openSeats?: number[];
  /** A plugin version (the newest if absent). */
  version?: string;
  /** Start from this position (the game's notation). */
  startPosition?: string;
  /** A clock for every seat, e.g. `{ bankMs: 600_000n }`. */
  timeControl?: MessageInitShape<typeof TimeControlSchema>;
  /**
   * What the match is tagged with (`{ tournament: "spring", round: "2" }`):
   * views, listings and the lifecycle feed show the labels and filter by them.
   */
  labels?: Record<string, string>;
  /**
   * Makes the call safe to retry: the same request under the same id returns
   * the same match and the same tokens (also after a server restart); a
   * different request under it rejects with `RequestIdReused`.
   */
  requestId?: string;
  /**
   * When the open seats must be taken by, and what happens to a match whose
   * seats are not all taken then (`OnDeadline.ABORT`, the default, or
   * `OnDeadline.START_WITHOUT`).
   */
  openSeatDeadline?: { withinMs: bigint | number; onDeadline?: OnDeadline };
  /**
   * Spectators see the running match this far behind (`moves` versions,
   * at most 1000, and/or `ms` milliseconds, at most an hour), for
   * broadcasts; seats see it live, and views say `delayed`.
   */
  spectatorDelay?: { moves?: number; ms?: bigint | number };
  /**
   * Who plays the seats filled now (`[{ seat: 0, displayName: "Ada",
   * externalId: "p-17" }]`): views, records, results and the lifecycle feed
   * show them. An open seat's player says who they are when joining.
   */
  seatPlayers?: MessageInitShape<typeof SeatPlayerSchema>[];
  /**
   * Let anyone join the open seats. By default each open seat is
   * invite-only: `Match.joinCodes` holds its code, for the player invited to
   * it.
   */
  publicOpenSeats?: boolean;
  /**
   * Seats the server's bots play, by seat: `{ 1: "mcts:500ms" }` (specs:
   * `random`, `mcts:2000` iterations, `mcts:500ms` time a move). No token is
   * issued for a bot's seat.
   */
  bots?: Record<number, string>;
}

/** Options of `join`. */
export interface JoinOptions {
  /**
   * The seat's join code (from `Match.joinCodes`): needed for an invite-only
   * seat unless the client holds a credential; it takes the code's seat.
   */
  code?: string;
  /** The name to show for the seat (at most 64 characters). */
  displayName?: string;
  /** The platform's own id for the player (opaque to the server). */
  externalId?: string;
}

/** Filters and a page of `listMatches`. */
export interface ListMatchesOptions {
  /** Only this game. */
  game?: string;
  /** Only this state. */
  state?: MatchState;
  /** Only matches that have every one of these labels with these values. */
  labels?: Record<string, string>;
  /** Only matches created at or after this time (ms since the Unix epoch). */
  createdFromMs?: bigint | number;
  /** Only matches created before this time (ms since the Unix epoch). */
  createdBeforeMs?: bigint | number;
  /** At most this many matches per page (0: the server's default, 100). */
  pageSize?: number;
  /** The previous page's `nextPageToken` (with the same filters). */
  pageToken?: string;
}

/** Where the lifecycle feed starts and which matches it tells of. */
export interface FollowLifecycleOptions {
  /** Send the events after this cursor (0: from the first the server holds). */
  afterCursor?: bigint | number;
  /** Only this game's matches. */
  game?: string;
  /** Only matches that have every one of these labels with these values. */
  labels?: Record<string, string>;
  /** A credential for this call instead of the client's. */
  adminToken?: string;
  /** Stops following: the iteration ends (without an error). */
  signal?: AbortSignal;
}

/** Options of a call that needs a credential. */
export interface AdminOptions {
  /**
   * A credential (organizer or admin) for this call instead of the
   * client's; the name dates from when the admin token was the only one.
   */
  adminToken?: string;
}

/** Options of `adjudicateMatch`. */
/** Options of `issueCredential`. */
export interface IssueCredentialOptions extends AdminOptions {
  /** The tenant whose matches the credential runs; absent: its own. */
  tenant?: string;
}

export interface AdjudicateOptions extends AdminOptions {
  /** Scores by seat (informative; 0 if absent). */
  scores?: ReadonlyMap<number, number> | Readonly<Record<number, number>>;
}

/** Where a watch starts and what it carries. */
export interface WatchOptions {
  /** Resume after the event that produced this version (0n: from the first). */
  fromVersion?: bigint;
  /** Resume after the event with this sequence number. */
  afterSeq?: bigint;
  /** Leave each transition's view out. */
  omitViews?: boolean;
  /** Cancels the stream. */
  signal?: AbortSignal;
}
