import type { Client } from 'graphql-ws';
import { liveClient, operation as sent, type ApiErrorShape } from './api.ts';

/** What a live operation tells the page. */
export interface LiveHooks {
  /** How the connection stands, for the page to show (`live`: results flow). */
  status?(text: string, live?: boolean): void;
  /** The token was refused (4403): no retry. */
  refused(): void;
}

interface Result<D> {
  data?: D | null;
  errors?: readonly ApiErrorShape[];
}

/**
 * One operation on a WebSocket of its own that runs again on a close or an error, after a
 * jittered backoff, until the token is refused (4403). What it runs, and what becomes of its
 * results, is the subclass's.
 */
abstract class Reconnecting<D> {
  private client: Client | undefined;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly hooks: LiveHooks) {}

  stop(): void {
    this.disconnect();
    this.stopped();
  }

  /** Runs the operation from the start. */
  protected restart(): void {
    this.disconnect();
    this.attempt = 0;
    this.connect();
  }

  /** The operation to run now; undefined when stopped. */
  protected abstract operation():
    (ReturnType<typeof sent> & { variables: Record<string, unknown> }) | undefined;
  protected abstract received(result: Result<D>): void;
  /** The operation ended with these errors (none for a close); it runs again after this. */
  protected ended(_errors: readonly ApiErrorShape[]): void {}
  protected stopped(): void {}

  private disconnect(): void {
    clearTimeout(this.timer);
    void this.client?.dispose();
    this.client = undefined;
  }

  private connect(): void {
    const operation = this.operation();
    if (!operation) return;
    const { hooks } = this;
    hooks.status?.(this.attempt ? 'reconnecting…' : 'connecting…');
    const client = liveClient(() => {
      this.attempt = 0;
      hooks.status?.('live', true);
    });
    this.client = client;
    const retry = (err: unknown) => {
      if (this.client !== client) return;
      void client.dispose();
      this.client = undefined;
      if ((err as { code?: number } | undefined)?.code === 4403) {
        hooks.refused();
        return;
      }
      this.ended(Array.isArray(err) ? (err as ApiErrorShape[]) : []);
      const delay = Math.min(30_000, 500 * 2 ** this.attempt++) * (0.75 + Math.random() / 2);
      hooks.status?.('offline, reconnecting…');
      this.timer = setTimeout(() => this.connect(), delay);
    };
    client.subscribe<D>(operation, {
      next: (result) => {
        if (this.client === client) this.received(result as Result<D>);
      },
      error: retry,
      complete: () => retry(undefined),
    });
  }
}

export interface ResumingOptions<D, E extends { eventId: string }> extends LiveHooks {
  /** The subscription document (sent by its hash, api.ts `operation`). */
  document: Parameters<typeof sent>[0];
  /** Its variables for the stream `key`, resuming after `after` (null: from now on). */
  variables(key: string, after: string | null): Record<string, unknown>;
  /** The event in a result's data. */
  pick(data: D): E | null | undefined;
  onEvent(key: string, event: E): void;
  /** `after` was too old to resume: the stream starts again without it; reload what is shown. */
  onReset(): void;
}

/**
 * A subscription that resumes with `after` = the last event id seen, and starts over without
 * `after` when that is too old (INVALID_ARGUMENT).
 */
export class ResumingSubscription<D, E extends { eventId: string }> extends Reconnecting<D> {
  private key: string | undefined;
  private lastEventId: string | undefined;

  constructor(private readonly options: ResumingOptions<D, E>) {
    super(options);
  }

  /** Follows the stream `key` (an accessory id, an account id) from now on. */
  start(key: string): void {
    this.key = key;
    this.lastEventId = undefined;
    this.restart();
  }

  protected operation() {
    const { key, options } = this;
    if (!key) return undefined;
    return {
      ...sent(options.document),
      variables: options.variables(key, this.lastEventId ?? null),
    };
  }

  protected received(result: Result<D>): void {
    const event = result.data ? this.options.pick(result.data) : undefined;
    if (!event || !this.key) return;
    this.lastEventId = event.eventId;
    this.options.onEvent(this.key, event);
  }

  protected override ended(errors: readonly ApiErrorShape[]): void {
    if (this.lastEventId && errors.some((e) => e.extensions?.code === 'INVALID_ARGUMENT')) {
      // Too old to resume: start over without `after`, and reload what is shown.
      this.lastEventId = undefined;
      this.options.onReset();
    }
  }

  protected override stopped(): void {
    this.key = undefined;
  }
}

export interface LiveQueryOptions<D> extends LiveHooks {
  /** The query document, marked `@live` (sent by its hash, api.ts `operation`). */
  document: Parameters<typeof sent>[0];
  /** Each result as it comes: the whole of it, every time. */
  onData(data: D): void;
  /** A result with errors (the live query ends with it, and runs again). */
  onErrors(errors: readonly ApiErrorShape[]): void;
}

/**
 * A live query (`query @live`): its result, then again whenever the server finds it changed.
 * Run again after a close, its first result is the current state: nothing to resume.
 */
export class LiveQuery<D> extends Reconnecting<D> {
  private variables: Record<string, unknown> | undefined;

  constructor(private readonly options: LiveQueryOptions<D>) {
    super(options);
  }

  start(variables: Record<string, unknown>): void {
    this.variables = variables;
    this.restart();
  }

  protected operation() {
    const { variables } = this;
    return variables && { ...sent(this.options.document), variables };
  }

  protected received(result: Result<D>): void {
    if (result.errors?.length) this.options.onErrors(result.errors);
    if (result.data) this.options.onData(result.data);
  }

  protected override stopped(): void {
    this.variables = undefined;
  }
}
