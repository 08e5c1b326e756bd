/**
 * TypeScript client for the Tabletop game-rules server.
 *
 * `./gen/` holds the stubs generated from `proto/` (committed; regenerated and
 * checked by `scripts/gen-clients`); `./client.js` the small wrapper;
 * `./errors.js` the typed errors its calls reject with.
 */

export {
  Client,
  DEFAULT_SERVER,
  Match,
  Seat,
  connect,
  eventView,
  finalResults,
  type Action,
  type AdjudicateOptions,
  type IssueCredentialOptions,
  type AdminOptions,
  type ConnectOptions,
  type CreateMatchOptions,
  type FollowLifecycleOptions,
  type JoinOptions,
  type ListMatchesOptions,
  type WatchOptions,
} from "./client.js";
export {
  AlreadyActed,
  BadToken,
  ControlRefused,
  Throttled,
  DOMAIN,
  IllegalAction,
  InvalidNotation,
  InvalidPageToken,
  MatchOver,
  MatchPaused,
  MatchQuarantined,
  NotPermitted,
  NotStarted,
  NotYourTurn,
  PluginFault,
  RequestIdReused,
  ShuttingDown,
  StoreUnavailable,
  StreamFellBehind,
  StaleVersion,
  TabletopError,
  TokenRequired,
  UnknownGame,
  UnknownMatch,
  decodeErrorInfo,
  errorInfo,
  toTabletopError,
  type ErrorInfo,
} from "./errors.js";
export { Code, ConnectError } from "@connectrpc/connect";
export * from "./gen/tabletop/v1/admin_pb.js";
export * from "./gen/tabletop/v1/catalog_pb.js";
export * from "./gen/tabletop/v1/director_pb.js";
export * from "./gen/tabletop/v1/matches_pb.js";
export * from "./gen/tabletop/v1/types_pb.js";
export * from "./gen/tabletop/v1/watch_pb.js";
