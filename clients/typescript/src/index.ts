/**
 * TypeScript client for the Tabletop game-rules server.
 *
 * `./gen/` holds the stubs generated from `proto/` (committed; regenerated and
 * checked by `scripts/gen-clients`); `./client.js` the small wrapper.
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
  type CreateMatchOptions,
} from "./client.js";
export { Code, ConnectError } from "@connectrpc/connect";
export * from "./gen/tabletop/v1/admin_pb.js";
export * from "./gen/tabletop/v1/catalog_pb.js";
export * from "./gen/tabletop/v1/matches_pb.js";
export * from "./gen/tabletop/v1/types_pb.js";
export * from "./gen/tabletop/v1/watch_pb.js";
