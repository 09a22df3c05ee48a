import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import {
  outcomeOf,
  type AttemptError,
  type AttemptRequest,
  type AttemptResult,
} from './delivery/policy.ts';
import { notificationHeaders } from './signing.ts';
import { classifyAddress } from './ssrf.ts';

/** The error classes of an attempt that was sent (key_unavailable is one that was not). */
type AttemptErrorClass = Exclude<AttemptError, 'key_unavailable'>;

export interface Sender {
  /**
   * One delivery attempt, signed now (signing.ts). Never throws: every failure is an
   * AttemptResult.
   */
  send(request: AttemptRequest): Promise<AttemptResult>;
  close(): Promise<void>;
}

const SNIPPET_BYTES = 2048;
/** How long reading the snippet may take after the response headers, beyond the attempt budget. */
const SNIPPET_READ_MS = 1000;

/** The longest one attempt can take: the budget, then reading the response snippet. */
export const attemptMaxMs = (timeoutMs: number): number => timeoutMs + SNIPPET_READ_MS;

/** What the delivery log says of an attempt refused for a non-public address. */
const BLOCKED_MESSAGE = 'blocked: non-public address';

/**
 * A receiver host refused for a non-public address. The message is what the client's delivery
 * log shows: it says nothing of how the name resolved (that would map the internal network for
 * anyone who registers names); the operator's log has the detail at debug level.
 */
class BlockedAddressError extends Error {
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(BLOCKED_MESSAGE);
  }
}

class AttemptTimeoutError extends Error {}

/** A lookup that fails unless every address the name resolves to is public. */
function checkedLookup(lookup: typeof dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '');
      for (const { address } of addresses) {
        const range = classifyAddress(address);
        if (range !== null) return callback(new BlockedAddressError(hostname, address, range), '');
      }
      const [first] = addresses;
      if (options.all) callback(null, addresses);
      else if (first) callback(null, first.address, first.family);
      else
        callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
    });
  };
}

const errorClasses: [test: RegExp, errorClass: AttemptErrorClass][] = [
  [/^(ENOTFOUND|EAI_\w+)$/, 'dns'],
  [
    /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN|EADDRNOTAVAIL|ETIMEDOUT)$/,
    'connect',
  ],
  [/^UND_ERR_CONNECT_TIMEOUT$/, 'timeout'],
  [/^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|SIGNATURE/, 'tls'],
];

/** The delivery log's class of a failed attempt's error (the broker publishers' too). */
export function classifyError(err: unknown): AttemptErrorClass {
  if (err instanceof AttemptTimeoutError) return 'timeout';
  if (err instanceof BlockedAddressError) return 'blocked_address';
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return 'protocol';
  return errorClasses.find(([test]) => test.test(code))?.[1] ?? 'protocol';
}

/** A failed attempt's error as the delivery log says it. */
export function describe(err: unknown): string {
  // Node reports a failed connection to several addresses as an AggregateError without message.
  if (err instanceof AggregateError) return err.errors.map(describe).join('; ');
  return err instanceof Error ? err.message : String(err);
}

interface Answer {
  status: number;
  /** Its Retry-After header, if any. */
  retryAfter: string | undefined;
  /** The first 2 KiB of its body (as much as arrived within SNIPPET_READ_MS). */
  snippet: string;
}

/**
 * One request on `agent`, through undici's dispatch handler, one object per attempt: no response
 * stream, abort signal or promise race (together they cost about as much as signing it).
 * `answer` settles once: it rejects when there is no answer within `timeoutMs` (lookup,
 * connect, TLS, request and response headers; undici sees an abort only once the request is
 * being written, so the wait for a connection is cut here, and the request is then never sent),
 * or resolves with the status and the body's first 2 KiB, read for at most SNIPPET_READ_MS; the
 * rest is discarded with the connection.
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly answer: Promise<Answer>;
  #resolve: ((answer: Answer) => void) | undefined;
  #reject: ((err: Error) => void) | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #timedOut: Error | undefined;
  #status = 0; // none yet
  #retryAfter: string | undefined;
  #chunks: Buffer[] = [];
  #size = 0;
  #timer: NodeJS.Timeout;

  constructor(agent: Agent, options: Dispatcher.DispatchOptions, timeoutMs: number) {
    this.answer = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#timer = setTimeout(() => this.#expire(timeoutMs), timeoutMs);
    try {
      agent.dispatch(options, this);
    } catch (err) {
      this.#settle(err as Error);
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#timedOut) controller.abort(this.#timedOut);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // informational: the answer follows
    this.#status = statusCode;
    const retryAfter = headers['retry-after'];
    this.#retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
    clearTimeout(this.#timer);
    // Reading the snippet has a bound of its own; cut short, it keeps what arrived.
    this.#timer = setTimeout(() => {
      controller.abort(new Error('response body too slow'));
      this.#settle();
    }, SNIPPET_READ_MS);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#resolve === undefined) return; // settled
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    if (this.#size >= SNIPPET_BYTES) {
      controller.abort(new Error('response snippet read')); // closes the connection
      this.#settle();
    }
  }

  onResponseEnd(): void {
    this.#settle();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    // After the headers, an error only cuts the snippet short.
    this.#settle(this.#status === 0 ? err : undefined);
  }

  #expire(timeoutMs: number): void {
    this.#timedOut = new AttemptTimeoutError(`no response within ${timeoutMs} ms`);
    this.#controller?.abort(this.#timedOut);
    this.#settle(this.#timedOut);
  }

  #settle(err?: Error): void {
    const resolve = this.#resolve;
    const reject = this.#reject;
    if (resolve === undefined || reject === undefined) return;
    this.#resolve = this.#reject = undefined;
    clearTimeout(this.#timer);
    if (err) return reject(err);
    const snippet = Buffer.concat(this.#chunks).subarray(0, SNIPPET_BYTES).toString('utf8');
    resolve({ status: this.#status, retryAfter: this.#retryAfter, snippet });
  }
}

/** The User-Agent of a notification, over HTTP or to a broker (signing.ts). */
export const USER_AGENT = 'clipgate-webhooks/0.1';

export function createSender(options: {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  userAgent?: string;
  connectionsPerOrigin?: number;
  lookup?: typeof dnsLookup;
  /** Where a blocked address is logged with its resolution, at debug level. */
  logger?: { debug(obj: object, msg: string): void };
}): Sender {
  const { timeoutMs, allowPrivateNetworks, userAgent = USER_AGENT } = options;
  const lookup = options.lookup ?? dnsLookup;
  const connector = buildConnector({
    timeout: timeoutMs,
    lookup: allowPrivateNetworks ? lookup : checkedLookup(lookup),
  });
  // No redirect interceptor: 3xx responses are returned, never followed.
  const agent = new Agent({
    connections: options.connectionsPerOrigin ?? 8,
    connect(connectOptions, callback) {
      // IP literals are connected to without a lookup, so they are checked here.
      const { hostname } = connectOptions;
      const range = allowPrivateNetworks || isIP(hostname) === 0 ? null : classifyAddress(hostname);
      if (range !== null) callback(new BlockedAddressError(hostname, hostname, range), null);
      else connector(connectOptions, callback);
    },
  });

  async function send(args: AttemptRequest): Promise<AttemptResult> {
    const started = performance.now();
    const result = (
      fields: Pick<AttemptResult, 'outcome' | 'status' | 'error' | 'errorMessage' | 'retryAfter'>,
      responseSnippet = '',
    ): AttemptResult => ({
      ...fields,
      durationMs: Math.round(performance.now() - started),
      responseSnippet,
    });

    try {
      const url = new URL(args.url);
      const headers = await notificationHeaders({
        body: args.body,
        keys: args.keys,
        webhookId: args.webhookId,
        timestamp: Math.floor(Date.now() / 1000),
        userAgent,
      });
      if (args.traceparent) headers.traceparent = args.traceparent;
      // One budget for lookup, connect, TLS, request and response headers.
      const { status, retryAfter, snippet } = await new Exchange(
        agent,
        {
          origin: url.origin,
          path: url.pathname + url.search,
          method: 'POST',
          headers,
          body: args.body,
        },
        timeoutMs,
      ).answer;
      return result(
        { outcome: outcomeOf(status), status, error: null, errorMessage: null, retryAfter },
        snippet,
      );
    } catch (err) {
      if (err instanceof BlockedAddressError) {
        const { hostname, address, range } = err;
        options.logger?.debug(
          { hostname, address, range },
          'webhook receiver blocked: non-public address',
        );
      }
      return result({
        outcome: 'failed',
        status: null,
        error: classifyError(err),
        errorMessage: describe(err),
      });
    }
  }

  return { send, close: () => agent.close() };
}
