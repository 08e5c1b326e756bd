/**
 * A small, typed wrapper over the generated stubs (`src/gen/`), speaking gRPC
 * over HTTP/2 with Connect's Node transport.
 *
 * Every method is one RPC and returns the generated message types. A
 * refused call rejects with a typed error (`./errors.js`) chosen by the
 * reason in the server's `google.rpc.ErrorInfo`: `StaleVersion` (with
 * `currentVersion`), `NotYourTurn`, `IllegalAction`, `MatchOver`, ... — each a
 * `TabletopError`, itself a `ConnectError` whose `code` is the gRPC status
 * code and `rawMessage` the server's message.
 *
 * A client may hold a credential (an organizer credential the admin issued,
 * or the admin token itself): it goes as `authorization: Bearer SECRET`
 * metadata with every call, the raw stubs' included. Without one the client
 * is anonymous: it may read, play seats it holds tokens for, and create
 * matches without a seed.
 */

import { readFileSync } from "node:fs";
import type { SecureClientSessionOptions } from "node:http2";

import { createClient, type Client as ServiceClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";

import {
  Admin,
  CredentialRole,
  type CredentialInfo,
  type IssueCredentialResponse,
  type PluginInfo,
} from "./gen/tabletop/v1/admin_pb.js";
import { Catalog, type GameInfo } from "./gen/tabletop/v1/catalog_pb.js";
import { Director, type LifecycleEvent } from "./gen/tabletop/v1/director_pb.js";
import {
  Matches,
  OnDeadline,
  type LegalAction,
  type ListLegalActionsResponse,
  type ListMatchesResponse,
  type MatchSummary,
  type SubmitActionRequest,
  type SubmitActionResponse,
} from "./gen/tabletop/v1/matches_pb.js";
import { MatchState, type MatchView } from "./gen/tabletop/v1/types_pb.js";
import { type ListEventsResponse, Watch, type WatchEvent } from "./gen/tabletop/v1/watch_pb.js";
import { StreamFellBehind, TabletopError, toTabletopError, typed, typedStream } from "./errors.js";
import { FailoverTransport, type Outage, serverGone, splitTargets } from "./failover.js";

/** How many times in a row a watch resumes after MATCH_MOVED (every 200 ms). */
const MOVED_RETRIES = 50;

/** The default server address. */
export const DEFAULT_SERVER = "127.0.0.1:50051";

/** The metadata key the server reads the caller's credential from. */
const AUTHORIZATION = "authorization";

export type {
  AdjudicateOptions,
  AdminOptions,
  CreateMatchOptions,
  FollowLifecycleOptions,
  IssueCredentialOptions,
  JoinOptions,
  ListMatchesOptions,
  WatchOptions,
} from "./options.js";
import type {
  AdjudicateOptions,
  AdminOptions,
  CreateMatchOptions,
  FollowLifecycleOptions,
  IssueCredentialOptions,
  JoinOptions,
  ListMatchesOptions,
  WatchOptions,
} from "./options.js";

/** An action: an id (from `legalActions`), its notation, or a `LegalAction`. */
export type Action = bigint | number | string | LegalAction;

/** Options of `connect`. */
export interface ConnectOptions {
  /**
   * An organizer credential (from `issueCredential`) or the admin token,
   * sent as `authorization: Bearer SECRET` with every call. An organizer
   * may create matches with a seed, seat players without join codes,
   * re-issue seat tokens and use the Director's controls; the admin token
   * may also manage plugins and credentials.
   */
  credential?: string;
  /**
   * The same setting under its older name: the admin token is the most
   * powerful credential. Giving both with different values throws (the
   * server would refuse every call that carried two).
   */
  adminToken?: string;
  /**
   * Connect over TLS, trusting the server certificates that the CA in this
   * PEM file signed (an `http://` target is then read as `https://`).
   */
  caFile?: string;
  /**
   * A client certificate and its key (PEM files) to present over TLS: a
   * server started with `--tls-client-ca` requires one for Admin calls.
   */
  clientCertFile?: string;
  clientKeyFile?: string;
}

/** The TLS options of an HTTP/2 session for `opts`, or undefined (plaintext). */
function tlsOptions(opts: ConnectOptions): SecureClientSessionOptions | undefined {
  if (!opts.caFile) {
    if (opts.clientCertFile || opts.clientKeyFile) {
      throw new Error("a client certificate needs TLS: give caFile too");
    }
    return undefined;
  }
  if (!opts.clientCertFile !== !opts.clientKeyFile) {
    throw new Error("give clientCertFile and clientKeyFile together");
  }
  return {
    ca: readFileSync(opts.caFile),
    ...(opts.clientCertFile && opts.clientKeyFile
      ? { cert: readFileSync(opts.clientCertFile), key: readFileSync(opts.clientKeyFile) }
      : {}),
  };
}

function entries(map: ReadonlyMap<number, number> | Readonly<Record<number, number>>): [number, number][] {
  return map instanceof Map ? [...map.entries()] : Object.entries(map).map(([k, v]) => [Number(k), v as number]);
}

/** Call options that send `adminToken` instead of the client's credential. */
function withCredential(adminToken: string | undefined): { headers?: Record<string, string> } {
  return adminToken ? { headers: { [AUTHORIZATION]: `Bearer ${adminToken}` } } : {};
}

function optionalBigInt(value: bigint | number | undefined): bigint | undefined {
  return value === undefined ? undefined : BigInt(value);
}

/**
 * Connects to `target` (`host:port`, or a full `http://` URL). The connection
 * is opened lazily on the first call; `close()` ends it. `target` may name
 * several servers (a list, or one string with commas, `"a:50051,b:50051"`):
 * the client moves to the next when a server is unavailable (see
 * `./failover.js` for which calls it makes again there).
 */
export function connect(target: string | readonly string[] = DEFAULT_SERVER, opts: ConnectOptions = {}): Client {
  return new Client(target, opts);
}

/** One connection to a Tabletop server. */
export class Client {
  /** The generated stubs, for calls the wrapper does not cover. */
  readonly catalog: ServiceClient<typeof Catalog>;
  readonly matches: ServiceClient<typeof Matches>;
  readonly watcher: ServiceClient<typeof Watch>;
  readonly director: ServiceClient<typeof Director>;
  readonly admin: ServiceClient<typeof Admin>;
  /** Sent with every call (see `ConnectOptions.credential`); "" for none. */
  credential: string;
  /** With several addresses, the transport that moves between them. */
  readonly failover: FailoverTransport | undefined;
  private readonly sessions: Http2SessionManager[];

  constructor(target: string | readonly string[] = DEFAULT_SERVER, opts: ConnectOptions = {}) {
    if (opts.credential && opts.adminToken && opts.credential !== opts.adminToken) {
      throw new Error("credential and adminToken are the same setting: give one of them");
    }
    this.credential = opts.credential || opts.adminToken || "";
    const tls = tlsOptions(opts);
    const scheme = tls ? "https" : "http";
    const addresses = splitTargets(target);
    // One of several: a server that does not answer is given up on sooner,
    // and a quiet connection is pinged, so that a watch on a host that
    // vanished without a reset moves on too.
    const several = addresses.length > 1
      ? { connectTimeoutMs: 5_000, pingIntervalMs: 5_000, pingTimeoutMs: 5_000 }
      : undefined;
    // A call given its own credential (`adminToken` in its options) keeps it.
    const bearer: Interceptor = (next) => (req) => {
      if (this.credential && !req.header.has(AUTHORIZATION)) {
        req.header.set(AUTHORIZATION, `Bearer ${this.credential}`);
      }
      return next(req);
    };
    // Our own session managers, so that close() can end the HTTP/2 sessions
    // (otherwise an idle session keeps the Node process alive).
    this.sessions = [];
    const transports = addresses.map((address) => {
      const baseUrl = /^https?:\/\//.test(address)
        ? address.replace(/^http:\/\//, `${scheme}://`)
        : `${scheme}://${address}`;
      const sessionManager = new Http2SessionManager(baseUrl, several, tls);
      this.sessions.push(sessionManager);
      return createGrpcTransport({ baseUrl, sessionManager, interceptors: [bearer] });
    });
    this.failover = transports.length > 1 ? new FailoverTransport(addresses, transports) : undefined;
    const transport = this.failover ?? transports[0]!;
    this.catalog = createClient(Catalog, transport);
    this.matches = createClient(Matches, transport);
    this.watcher = createClient(Watch, transport);
    this.director = createClient(Director, transport);
    this.admin = createClient(Admin, transport);
  }

  /** The client's credential, under its older name. */
  get adminToken(): string {
    return this.credential;
  }

  set adminToken(value: string) {
    this.credential = value;
  }

  /** Ends the connection (open watch streams fail). */
  close(): void {
    for (const sessions of this.sessions) sessions.abort();
  }

  /** Every game the server plays (newest version of each). */
  async games(): Promise<GameInfo[]> {
    return (await typed(this.catalog.listGames({}))).games;
  }

  /** One game: players, options, rules summary. */
  game(name: string, version?: string): Promise<GameInfo> {
    return typed(this.catalog.getGame({ game: name, version }));
  }

  /**
   * Creates a match; the result holds one token per filled seat and a join
   * code per invite-only open seat. With a `requestId` it is safe to retry
   * (see `CreateMatchOptions`). A `seed`, or a `startPosition` of a game
   * with hidden information, needs a credential (an anonymous client gets
   * `NotPermitted`): whoever chose the seed could replay the match's chance
   * and read hidden cards.
   */
  async createMatch(game: string, opts: CreateMatchOptions = {}): Promise<Match> {
    const created = await typed(
      this.matches.createMatch({
        game,
        players: opts.players ?? 2,
        options: opts.options ?? {},
        seed: opts.seed === undefined ? undefined : BigInt(opts.seed),
        openSeats: opts.openSeats ?? [],
        version: opts.version,
        startPosition: opts.startPosition,
        timeControl: opts.timeControl,
        labels: opts.labels ?? {},
        requestId: opts.requestId ?? "",
        openSeatDeadline: opts.openSeatDeadline && {
          withinMs: BigInt(opts.openSeatDeadline.withinMs),
          onDeadline: opts.openSeatDeadline.onDeadline ?? OnDeadline.ABORT,
        },
        spectatorDelay: opts.spectatorDelay && {
          moves: opts.spectatorDelay.moves ?? 0,
          ms: BigInt(opts.spectatorDelay.ms ?? 0),
        },
        seatPlayers: opts.seatPlayers ?? [],
        publicOpenSeats: opts.publicOpenSeats ?? false,
        bots: Object.entries(opts.bots ?? {}).map(([seat, spec]) => ({ seat: Number(seat), spec })),
      }),
    );
    const tokens = new Map(created.seats.map((s) => [s.seat, s.token] as const));
    const codes = new Map(created.joinCodes.map((c) => [c.seat, c.code] as const));
    if (!created.view) throw new Error("CreateMatch returned no view");
    return new Match(this, created.matchId, tokens, created.view, codes);
  }

  /**
   * Takes an open seat: the one `opts.code` opens, or `seat`, or the lowest
   * one anyone may take. An invite-only seat needs its code (`TokenRequired`
   * without, `BadToken` for a wrong or used one) unless the client holds a
   * credential.
   */
  async join(matchId: string, seat?: number, opts: JoinOptions = {}): Promise<Seat> {
    const joined = await typed(
      this.matches.joinMatch({
        matchId,
        seat,
        joinCode: opts.code ?? "",
        displayName: opts.displayName ?? "",
        externalId: opts.externalId ?? "",
      }),
    );
    return new Seat(this, matchId, joined.seat, joined.token);
  }

  /**
   * The match as the token's seat sees it (a spectator without a token); with
   * `atVersion`, as that viewer saw it right after that version (0: as created).
   */
  view(matchId: string, token = "", atVersion?: bigint): Promise<MatchView> {
    return typed(this.matches.getView({ matchId, seatToken: token, atVersion }));
  }

  /** The seat's legal actions now, with the match version they apply to. */
  legalActions(matchId: string, token: string): Promise<ListLegalActionsResponse> {
    return typed(this.matches.listLegalActions({ matchId, seatToken: token }));
  }

  /**
   * Submits an action. With `expectedVersion` the server refuses if the
   * match has moved on since: a `StaleVersion` whose `currentVersion` is the
   * match's version now.
   */
  act(
    matchId: string,
    token: string,
    action: Action,
    expectedVersion?: bigint,
  ): Promise<SubmitActionResponse> {
    // `expectedVersion` also makes the call safe to make again: with several
    // addresses only a submission with it moves to the next server when one
    // does not answer — and then `StaleVersion` (or `AlreadyActed`) may mean
    // that the first try was applied: read the view.
    let choice: SubmitActionRequest["action"];
    if (typeof action === "string") choice = { case: "notation", value: action };
    else if (typeof action === "object") choice = { case: "actionId", value: action.id };
    else choice = { case: "actionId", value: BigInt(action) };
    return typed(this.matches.submitAction({ matchId, seatToken: token, action: choice, expectedVersion }));
  }

  /** The token's seat resigns; the match ends. */
  resign(matchId: string, token: string): Promise<MatchView> {
    return typed(this.matches.resign({ matchId, seatToken: token }));
  }

  /**
   * One page of the matches on the server, oldest first, filtered by game,
   * state, labels (every one given must match) and creation time. Pass the
   * page's `nextPageToken` with the same filters for the next page; it is
   * empty on the last page. `iterMatches` does this for you.
   */
  listMatches(opts: ListMatchesOptions = {}): Promise<ListMatchesResponse> {
    return typed(
      this.matches.listMatches({
        game: opts.game ?? "",
        state: opts.state ?? MatchState.UNSPECIFIED,
        labels: opts.labels ?? {},
        createdFromMs: optionalBigInt(opts.createdFromMs),
        createdBeforeMs: optionalBigInt(opts.createdBeforeMs),
        pageSize: opts.pageSize ?? 0,
        pageToken: opts.pageToken ?? "",
      }),
    );
  }

  /** Every match `listMatches` selects, page by page, oldest first. */
  async *iterMatches(opts: Omit<ListMatchesOptions, "pageToken"> = {}): AsyncIterable<MatchSummary> {
    let pageToken = "";
    for (;;) {
      const page = await this.listMatches({ ...opts, pageToken });
      yield* page.matches;
      if (!page.nextPageToken) return;
      pageToken = page.nextPageToken;
    }
  }

  /**
   * The match's replayable JSON record (a credential needed while it runs;
   * the client's own unless `adminToken` is given).
   */
  async exportRecord(matchId: string, adminToken?: string): Promise<string> {
    return (await typed(this.matches.exportRecord({ matchId }, withCredential(adminToken)))).recordJson;
  }

  /**
   * The match's events as this viewer is told them. Without a resume point:
   * a snapshot, then one event per change as it happens. With `afterSeq`
   * (the `seq` of the last event seen) or `fromVersion` (0n: from the very
   * first event): every past event after that point, then live ones, with no
   * gap and none twice, at any time, also for a match finished long ago. The
   * iteration ends when the match has finished. Breaking out of a
   * `for await` loop cancels the stream; so does `signal`. A client that
   * reads too slowly is cut by the server (`STREAM_FELL_BEHIND`) and this
   * iterator opens the stream again after the last event received, so the
   * caller sees nothing of it. A server that shuts down ends it with
   * `ShuttingDown`: watch again with `afterSeq` — with several addresses
   * the iterator does that itself on the next one, as for any
   * `UNAVAILABLE`, for up to `PATIENCE_MS`.
   * Revoking the client's credential, or re-issuing the token of the seat
   * it watches as, ends it within a second with `BadToken` (`credential`:
   * `bearer` or `seat`), as a new call with it would be refused.
   */
  async *watch(matchId: string, token = "", opts: WatchOptions = {}): AsyncIterable<WatchEvent> {
    let afterSeq = opts.afterSeq;
    let fromVersion = opts.fromVersion;
    let outage: Outage | undefined;
    let moved = 0;
    for (;;) {
      const at = this.failover?.current() ?? 0;
      const stream = typedStream(
        this.watcher.watchMatch(
          { matchId, seatToken: token, fromVersion, afterSeq, omitViews: opts.omitViews ?? false },
          { signal: opts.signal },
        ),
      );
      try {
        for await (const event of stream) {
          outage = undefined;
          moved = 0;
          // Where a stream opened again goes on from: after this event, or
          // after the version a snapshot showed.
          if (event.seq > 0n) {
            afterSeq = event.seq;
            fromVersion = undefined;
          } else if (afterSeq === undefined) {
            fromVersion = event.version;
          }
          yield event;
        }
        return;
      } catch (e) {
        // The server cut a stream read too slowly: every event it queued
        // arrived before the cut, so the stream goes on after the last.
        if (e instanceof StreamFellBehind && e.afterSeq !== undefined) {
          afterSeq = e.afterSeq;
          fromVersion = undefined;
          continue;
        }
        // Another host of the server's database serves the match now (the
        // one that held it went away): every event sent was stored, so the
        // stream goes on after the last, through the same server, which
        // relays it from the match's new host.
        if (
          e instanceof TabletopError &&
          e.reason === "MATCH_MOVED" &&
          !opts.signal?.aborted &&
          (moved += 1) <= MOVED_RETRIES
        ) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          continue;
        }
        // Its server is gone: the next address goes on after the last
        // event received.
        if (this.failover && !opts.signal?.aborted && serverGone(e)) {
          outage = await this.failover.moveOn(at, outage, e);
          continue;
        }
        throw e;
      }
    }
  }

  /**
   * One page of the match's past events after `afterSeq`, as this viewer was
   * told them (`pageSize` 0: the server's default; views only when asked).
   */
  listEvents(
    matchId: string,
    token = "",
    opts: { afterSeq?: bigint; pageSize?: number; includeViews?: boolean } = {},
  ): Promise<ListEventsResponse> {
    return typed(
      this.watcher.listEvents({
        matchId,
        seatToken: token,
        afterSeq: opts.afterSeq ?? 0n,
        pageSize: opts.pageSize ?? 0,
        includeViews: opts.includeViews ?? false,
      }),
    );
  }

  /** Every past event after `afterSeq`, page by page, oldest first. */
  async *events(
    matchId: string,
    token = "",
    opts: { afterSeq?: bigint; includeViews?: boolean } = {},
  ): AsyncIterable<WatchEvent> {
    let afterSeq = opts.afterSeq ?? 0n;
    for (;;) {
      const page = await this.listEvents(matchId, token, {
        afterSeq,
        includeViews: opts.includeViews,
      });
      yield* page.events;
      const last = page.events.at(-1);
      if (!last || last.seq >= page.lastSeq) {
        return;
      }
      afterSeq = last.seq;
    }
  }

  // -- the Director: every call needs an organizer credential or the admin token

  /**
   * The lifecycle feed: every step in the life of every match (created, seat
   * filled, started, seat out, paused, resumed, time added, finished,
   * aborted, unavailable), oldest first, then live; only `game`'s and those
   * with every one of `labels`, if given. Each event has a `cursor`: keep the
   * last one (durably, with whatever the event made you record) and follow
   * again with `afterCursor` set to it to receive every later event once,
   * with no gap, also after a restart of either side. The feed does not end
   * by itself: break out of the `for await` loop, or abort `signal` (the
   * iteration then ends without an error). A cut for reading too slowly
   * (`STREAM_FELL_BEHIND`) is not thrown: the feed is followed again after
   * the last event received. A server that shuts down ends it with
   * `ShuttingDown`; revoking the credential it was opened with ends it
   * within a second with `BadToken`.
   */
  async *followLifecycle(opts: FollowLifecycleOptions = {}): AsyncIterable<LifecycleEvent> {
    let afterCursor = BigInt(opts.afterCursor ?? 0);
    let outage: Outage | undefined;
    for (;;) {
      const at = this.failover?.current() ?? 0;
      const stream = this.director.followLifecycle(
        { afterCursor, game: opts.game ?? "", labels: opts.labels ?? {} },
        { ...withCredential(opts.adminToken), signal: opts.signal },
      );
      try {
        for await (const event of stream) {
          outage = undefined;
          afterCursor = event.cursor;
          yield event;
        }
        return;
      } catch (e) {
        // The caller stopped following: the end, not an error.
        if (opts.signal?.aborted) return;
        const typedError = toTabletopError(e);
        // Cut for reading too slowly: every row queued before the cut
        // arrived, so the feed goes on after the last of them.
        if (typedError instanceof StreamFellBehind && typedError.afterCursor !== undefined) {
          afterCursor = typedError.afterCursor;
          continue;
        }
        // Its server is gone: the cursor is every host's, so the next
        // address goes on after the last event received.
        if (this.failover && serverGone(typedError)) {
          outage = await this.failover.moveOn(at, outage, typedError);
          continue;
        }
        throw typedError;
      }
    }
  }

  /**
   * Ends a waiting or running match without a result; `reason` (at most 256
   * bytes) shows in the feed, the view and the record.
   */
  abortMatch(matchId: string, reason = "", opts: AdminOptions = {}): Promise<MatchView> {
    return typed(this.director.abortMatch({ matchId, reason }, withCredential(opts.adminToken)));
  }

  /**
   * Ends a running match with the director's result: `ranks` by seat for
   * every seat (1 = first; equal ranks share a place).
   */
  adjudicateMatch(
    matchId: string,
    ranks: ReadonlyMap<number, number> | Readonly<Record<number, number>>,
    opts: AdjudicateOptions = {},
  ): Promise<MatchView> {
    const scores = new Map(opts.scores === undefined ? [] : entries(opts.scores));
    const results = entries(ranks)
      .sort(([a], [b]) => a - b)
      .map(([seat, rank]) => ({ seat, rank, score: scores.get(seat) ?? 0 }));
    return typed(this.director.adjudicateMatch({ matchId, results }, withCredential(opts.adminToken)));
  }

  /** Stops a running match's clocks; actions reject with `MatchPaused` until it resumes. */
  pauseMatch(matchId: string, opts: AdminOptions = {}): Promise<MatchView> {
    return typed(this.director.pauseMatch({ matchId }, withCredential(opts.adminToken)));
  }

  /** Restarts a paused match's clocks where they stopped. */
  resumeMatch(matchId: string, opts: AdminOptions = {}): Promise<MatchView> {
    return typed(this.director.resumeMatch({ matchId }, withCredential(opts.adminToken)));
  }

  /**
   * Adds `addedMs` (1 ms to 24 h) to the seat's clock: its bank, or its
   * current move's limit when the match has no bank.
   */
  addTime(matchId: string, seat: number, addedMs: bigint | number, opts: AdminOptions = {}): Promise<MatchView> {
    return typed(this.director.addTime({ matchId, seat, addedMs: BigInt(addedMs) }, withCredential(opts.adminToken)));
  }

  /**
   * Gives a taken seat a new token (for a player who lost theirs); the old
   * token is refused from then on. Resolves with the seat and its new token.
   */
  async reissueSeatToken(matchId: string, seat: number, opts: AdminOptions = {}): Promise<Seat> {
    const issued = await typed(this.director.reissueSeatToken({ matchId, seat }, withCredential(opts.adminToken)));
    return new Seat(this, matchId, issued.seat, issued.token);
  }

  // -- administration: every call needs the admin token ---------------------

  /** Every loaded plugin version and the matches that use it. */
  async listPlugins(opts: AdminOptions = {}): Promise<PluginInfo[]> {
    return (await typed(this.admin.listPlugins({}, withCredential(opts.adminToken)))).plugins;
  }

  /**
   * Issues an organizer credential for `name` (1 to 64 characters) in
   * `opts.tenant` (1 to 63 of a-z, 0-9, `.`, `_`, `-`; empty or absent: a new
   * tenant of its own, named after its id). An organizer runs only its
   * tenant's matches. The response's `secret` is shown this once (the server
   * keeps only its hash): give it to the organizer, who connects with
   * `{ credential: secret }`; `credential.credentialId` names it for
   * `revokeCredential`.
   */
  issueCredential(name: string, opts: IssueCredentialOptions = {}): Promise<IssueCredentialResponse> {
    return typed(
      this.admin.issueCredential(
        { name, role: CredentialRole.ORGANIZER, tenant: opts.tenant ?? "" },
        withCredential(opts.adminToken),
      ),
    );
  }

  /** Revokes a credential: every call with it is refused from then on. */
  revokeCredential(credentialId: string, opts: AdminOptions = {}): Promise<CredentialInfo> {
    return typed(this.admin.revokeCredential({ credentialId }, withCredential(opts.adminToken)));
  }

  /**
   * Every credential issued, oldest first, revoked ones included (with
   * `revokedAtMs`); never a secret.
   */
  async listCredentials(opts: AdminOptions = {}): Promise<CredentialInfo[]> {
    return (await typed(this.admin.listCredentials({}, withCredential(opts.adminToken)))).credentials;
  }

  /**
   * Lifts a match's quarantine (`MatchState.QUARANTINED`: the server stopped
   * calling its plugin for it): play goes on where it stopped, with
   * `pluginVersion` through that loaded version of its game (a fixed build),
   * which first replays the whole match. Rejects with `ControlRefused` for a
   * match that is not quarantined, `UnknownGame` for a version not loaded.
   */
  liftQuarantine(
    matchId: string,
    opts: AdminOptions & { pluginVersion?: string } = {},
  ): Promise<MatchView> {
    return typed(
      this.admin.liftQuarantine(
        { matchId, pluginVersion: opts.pluginVersion ?? "" },
        withCredential(opts.adminToken),
      ),
    );
  }
}

/** The view a watch event carries (undefined for `seatActed`). */
export function eventView(event: WatchEvent): MatchView | undefined {
  switch (event.kind.case) {
    case "snapshot":
      return event.kind.value;
    case "transition":
      return event.kind.value.view;
    default:
      return undefined;
  }
}

/** Rank by seat of a finished match (1 = first place). */
export function finalResults(view: MatchView): Map<number, number> {
  return new Map(view.results.map((r) => [r.seat, r.rank] as const));
}

/** One seat of a match, played with its secret token. */
export class Seat {
  constructor(
    readonly client: Client,
    readonly matchId: string,
    readonly seat: number,
    readonly token: string,
  ) {}

  /** The match as this seat sees it (at a past version, with `atVersion`). */
  view(atVersion?: bigint): Promise<MatchView> {
    return this.client.view(this.matchId, this.token, atVersion);
  }

  /** This seat's legal actions now (empty when not to move). */
  async legalActions(): Promise<LegalAction[]> {
    return (await this.client.legalActions(this.matchId, this.token)).actions;
  }

  /** Submits this seat's action (id, notation or `LegalAction`). */
  act(action: Action, expectedVersion?: bigint): Promise<SubmitActionResponse> {
    return this.client.act(this.matchId, this.token, action, expectedVersion);
  }

  /** Resigns this seat. */
  resign(): Promise<MatchView> {
    return this.client.resign(this.matchId, this.token);
  }

  /** Watches the match as this seat. */
  watch(opts: WatchOptions = {}): AsyncIterable<WatchEvent> {
    return this.client.watch(this.matchId, this.token, opts);
  }
}

/**
 * A match just created: its id, the filled seats' tokens, the first view, and
 * the open seats' join codes (empty when they are public).
 */
export class Match {
  constructor(
    readonly client: Client,
    readonly matchId: string,
    readonly tokens: ReadonlyMap<number, string>,
    readonly createdView: MatchView,
    readonly joinCodes: ReadonlyMap<number, string> = new Map(),
  ) {}

  /** The seat `seat` (it must have been filled at creation). */
  seat(seat: number): Seat {
    const token = this.tokens.get(seat);
    if (token === undefined) throw new Error(`seat ${seat} was left open: join it instead`);
    return new Seat(this.client, this.matchId, seat, token);
  }

  /** The match as a spectator sees it (at a past version, with `atVersion`). */
  view(atVersion?: bigint): Promise<MatchView> {
    return this.client.view(this.matchId, "", atVersion);
  }

  /** Watches the match as a spectator. */
  watch(opts: WatchOptions = {}): AsyncIterable<WatchEvent> {
    return this.client.watch(this.matchId, "", opts);
  }
}
