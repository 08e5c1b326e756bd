/**
 * Several server addresses: a transport over one transport per address
 * that uses one at a time and moves to the next when a server is gone.
 *
 * A unary call goes to the address in use; when it fails with
 * `UNAVAILABLE` (the server is down, restarting or shutting down, or the
 * connection could not be made or broke), the next address is used, round
 * robin, and the call is made again there — but only a call that cannot
 * apply twice: a read, a `SubmitAction` that carries its `expectedVersion`
 * (the server refuses a stale one, so a retry of an action that was applied
 * is refused with `StaleVersion`, or `AlreadyActed` in a simultaneous turn),
 * a `CreateMatch` with a `requestId` (a retry answers the same match). Any
 * other call is made again only when it never reached a server (the
 * connection was refused). Between full rounds of the addresses the client
 * pauses `ROUND_PAUSE_MS`; it gives up `PATIENCE_MS` after the first
 * failure, with the last error. A stream is opened on the address in use;
 * `Client.watch` and `Client.followLifecycle` move on and open it again.
 */

import type { DescMessage, DescMethodStreaming, DescMethodUnary, MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, type ContextValues, type Transport } from "@connectrpc/connect";

/** How long the client goes on trying other addresses after a failure. */
export const PATIENCE_MS = 15_000;
/** The pause after every address failed once in a row. */
export const ROUND_PAUSE_MS = 200;

/** Calls that change nothing: always safe to make again. */
const READS = new Set([
  "tabletop.v1.Catalog/ListGames",
  "tabletop.v1.Catalog/GetGame",
  "tabletop.v1.Matches/GetView",
  "tabletop.v1.Matches/ListLegalActions",
  "tabletop.v1.Matches/ListMatches",
  "tabletop.v1.Matches/ExportRecord",
  "tabletop.v1.Watch/ListEvents",
  "tabletop.v1.Admin/ListPlugins",
  "tabletop.v1.Admin/ListCredentials",
]);

/** The addresses of `target`: a list, or one string with commas. */
export function splitTargets(target: string | readonly string[]): string[] {
  const parts = typeof target === "string" ? target.split(",") : [...target];
  const addresses = parts.map((p) => p.trim()).filter((p) => p.length > 0);
  if (addresses.length === 0) throw new Error(`no server address in ${JSON.stringify(target)}`);
  return addresses;
}

/** The `code`s of an error and its causes (Node's system errors). */
function causeCodes(err: unknown): string[] {
  const codes: string[] = [];
  const seen = new Set<unknown>();
  for (let e: unknown = err; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
  }
  return codes;
}

/**
 * Whether `err` says the server is gone (or going) rather than answering:
 * `UNAVAILABLE`, except a stream cut for reading too slowly (which resumes
 * on the same server), or a connection that broke under the call (Node
 * reports a reset as `ABORTED`, a stream of a dead session as `CANCELED`).
 */
export function serverGone(err: unknown): boolean {
  if (!(err instanceof ConnectError)) return false;
  if (err.code === Code.Unavailable) {
    return (err as { reason?: string }).reason !== "STREAM_FELL_BEHIND";
  }
  // The streams of a connection that died are reset with CANCEL by Node's
  // HTTP/2 session (a call this client cancels says "operation was aborted").
  if (err.code === Code.Canceled && err.rawMessage.startsWith("http/2 stream closed")) return true;
  return causeCodes(err).some((c) => c === "ECONNRESET" || c === "EPIPE" || c.startsWith("ERR_HTTP2_"));
}

/** Whether the call failed before it reached a server: the connection was refused. */
export function neverSent(err: unknown): boolean {
  return causeCodes(err).some((c) => c === "ECONNREFUSED" || c === "ENOTFOUND" || c === "EAI_AGAIN");
}

/** Whether making `method` with `input` twice is the same as once. */
function safeToRepeat(method: { name: string; parent: { typeName: string } }, input: unknown): boolean {
  const name = `${method.parent.typeName}/${method.name}`;
  if (READS.has(name)) return true;
  const fields = input as { expectedVersion?: unknown; requestId?: unknown };
  if (name === "tabletop.v1.Matches/SubmitAction") return fields.expectedVersion !== undefined;
  if (name === "tabletop.v1.Matches/CreateMatch") return typeof fields.requestId === "string" && fields.requestId !== "";
  return false;
}

/** The headers a transport call takes (`HeadersInit`, a DOM type). */
type Header = Parameters<Transport["unary"]>[3];

/** One stretch of failures: when it began, how many addresses failed. */
export class Outage {
  readonly since = Date.now();
  failures = 0;
}

/** A transport over one transport per address (see the module's documentation). */
export class FailoverTransport implements Transport {
  private at = 0;

  constructor(
    readonly addresses: readonly string[],
    private readonly transports: readonly Transport[],
  ) {}

  /** Whether there is another address to move to. */
  get several(): boolean {
    return this.transports.length > 1;
  }

  /** The index of the address in use. */
  current(): number {
    return this.at;
  }

  /**
   * After the address at `index` failed with `err`: the next one is used
   * from now on, after a pause when every address failed in a row. Throws
   * `err` when there is no other or `PATIENCE_MS` is spent.
   */
  async moveOn(index: number, outage: Outage | undefined, err: unknown): Promise<Outage> {
    const stretch = outage ?? new Outage();
    if (!this.several || Date.now() - stretch.since >= PATIENCE_MS) throw err;
    // Another call may have moved on already: move once.
    if (this.at === index) this.at = (index + 1) % this.transports.length;
    stretch.failures += 1;
    if (stretch.failures % this.transports.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, ROUND_PAUSE_MS));
    }
    return stretch;
  }

  async unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: Header,
    input: MessageInitShape<I>,
    contextValues?: ContextValues,
  ) {
    let outage: Outage | undefined;
    for (;;) {
      const index = this.at;
      try {
        return await this.transports[index]!.unary(method, signal, timeoutMs, header, input, contextValues);
      } catch (e) {
        const again = (safeToRepeat(method, input) && serverGone(e)) || neverSent(e);
        if (!again || signal?.aborted) throw e;
        outage = await this.moveOn(index, outage, e);
      }
    }
  }

  stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: Header,
    input: AsyncIterable<MessageInitShape<I>>,
    contextValues?: ContextValues,
  ) {
    return this.transports[this.at]!.stream(method, signal, timeoutMs, header, input, contextValues);
  }
}
