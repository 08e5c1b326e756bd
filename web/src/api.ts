/**
 * The API as the page speaks it: the generated stubs of clients/typescript
 * over Connect's gRPC-web transport, to the origin that served the page.
 * The caller's credential (an organizer credential or the admin token,
 * pasted in the lobby) and the seat tokens the page holds live in
 * localStorage; nothing secret ever goes into a URL's query string.
 */

import { createClient, ConnectError, Code, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";

import { Catalog } from "../../clients/typescript/src/gen/tabletop/v1/catalog_pb.js";
import { Director } from "../../clients/typescript/src/gen/tabletop/v1/director_pb.js";
import { Matches } from "../../clients/typescript/src/gen/tabletop/v1/matches_pb.js";
import { Watch } from "../../clients/typescript/src/gen/tabletop/v1/watch_pb.js";

const CREDENTIAL_KEY = "tabletop.credential";
const SEATS_KEY_PREFIX = "tabletop.seats.";

/** The credential pasted in the lobby; empty when anonymous. */
export function credential(): string {
  return localStorage.getItem(CREDENTIAL_KEY) ?? "";
}

/** Keeps `secret` as the credential sent with every call (empty: forget it). */
export function setCredential(secret: string): void {
  if (secret) localStorage.setItem(CREDENTIAL_KEY, secret);
  else localStorage.removeItem(CREDENTIAL_KEY);
}

/** The seat tokens this browser holds for a match, by seat. */
export function seatTokens(matchId: string): Map<number, string> {
  const stored = localStorage.getItem(SEATS_KEY_PREFIX + matchId);
  const tokens = new Map<number, string>();
  if (!stored) return tokens;
  try {
    for (const [seat, token] of Object.entries(JSON.parse(stored) as Record<string, string>)) {
      tokens.set(Number(seat), token);
    }
  } catch {
    localStorage.removeItem(SEATS_KEY_PREFIX + matchId);
  }
  return tokens;
}

/** Keeps a seat's token for later visits. */
export function keepSeatToken(matchId: string, seat: number, token: string): void {
  const tokens = Object.fromEntries(seatTokens(matchId));
  tokens[seat] = token;
  localStorage.setItem(SEATS_KEY_PREFIX + matchId, JSON.stringify(tokens));
}

const authorization: Interceptor = (next) => async (request) => {
  const secret = credential();
  if (secret) request.header.set("authorization", `Bearer ${secret}`);
  return next(request);
};

const transport = createGrpcWebTransport({
  baseUrl: location.origin,
  interceptors: [authorization],
});

export const catalog = createClient(Catalog, transport);
export const matches = createClient(Matches, transport);
export const watch = createClient(Watch, transport);
export const director = createClient(Director, transport);

/** One line for a failed call: the status code's name and the server's message. */
export function describeError(error: unknown): string {
  if (error instanceof ConnectError) return `${Code[error.code]}: ${error.rawMessage}`;
  return error instanceof Error ? error.message : String(error);
}

/** Whether a failed call was only the page cancelling it. */
export function wasCancelled(error: unknown): boolean {
  return (
    (error instanceof ConnectError && error.code === Code.Canceled) ||
    (error instanceof DOMException && error.name === "AbortError")
  );
}
