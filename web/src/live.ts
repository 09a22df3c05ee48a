import type { Client } from 'graphql-ws';
import { liveClient, operation } from './api.ts';

export interface ResumingOptions<D, E extends { eventId: string }> {
  /** The subscription document (sent by its hash, api.ts `operation`). */
  document: Parameters<typeof operation>[0];
  /** Its variables for the stream `key`, resuming after `after` (null: from now on). */
  variables(key: string, after: string | null): Record<string, unknown>;
  /** The event in a result's data. */
  pick(data: D): E | null | undefined;
  onEvent(key: string, event: E): void;
  /** `after` was too old to resume: the stream starts again without it; reload what is shown. */
  onReset(): void;
  /** How the connection stands, for the page to show (`live`: events flow). */
  status(text: string, live?: boolean): void;
  /** The token was refused (4403): no retry. */
  refused(): void;
}

/**
 * One subscription on a WebSocket of its own that resumes with `after` = the last event id
 * seen: on a close or an error it reconnects after a jittered backoff, and starts over without
 * `after` when that is too old (INVALID_ARGUMENT).
 */
export class ResumingSubscription<D, E extends { eventId: string }> {
  private client: Client | undefined;
  private key: string | undefined;
  private lastEventId: string | undefined;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: ResumingOptions<D, E>) {}

  /** Follows the stream `key` (an accessory id, an account id) from now on. */
  start(key: string): void {
    this.stop();
    this.key = key;
    this.lastEventId = undefined;
    this.attempt = 0;
    this.connect();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.key = undefined;
    void this.client?.dispose();
    this.client = undefined;
  }

  private connect(): void {
    const key = this.key;
    if (!key) return;
    const { options } = this;
    options.status(this.attempt ? 'reconnecting…' : 'connecting…');
    const client = liveClient(() => {
      this.attempt = 0;
      options.status('live', true);
    });
    this.client = client;
    const retry = (err: unknown) => {
      if (this.client !== client) return;
      void client.dispose();
      this.client = undefined;
      const errors = Array.isArray(err) ? (err as { extensions?: { code?: string } }[]) : [];
      const code = (err as { code?: number } | undefined)?.code;
      if (code === 4403) {
        options.refused();
        return;
      }
      if (this.lastEventId && errors.some((e) => e.extensions?.code === 'INVALID_ARGUMENT')) {
        // Too old to resume: start over without `after`, and reload what is shown.
        this.lastEventId = undefined;
        options.onReset();
      }
      const delay = Math.min(30_000, 500 * 2 ** this.attempt++) * (0.75 + Math.random() / 2);
      options.status('offline, reconnecting…');
      this.timer = setTimeout(() => this.connect(), delay);
    };
    client.subscribe<D>(
      {
        ...operation(options.document),
        variables: options.variables(key, this.lastEventId ?? null),
      },
      {
        next: (result) => {
          const event = result.data ? options.pick(result.data as D) : undefined;
          if (!event || this.client !== client) return;
          this.lastEventId = event.eventId;
          options.onEvent(key, event);
        },
        error: retry,
        complete: () => retry(undefined),
      },
    );
  }
}
