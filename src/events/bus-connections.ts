import type { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.ts';
import { TIMED_OUT, within } from '../deadline.ts';
import { defaultBounds } from './live/bounds.ts';

/**
 * What the Redis event buses (./pubsub.ts, ./sharded-pubsub.ts) share about their connections:
 * reporting an outage once, and telling the listeners after a reconnection.
 */

/** How long a start waits for Redis before it goes on without it. */
const START_WAIT_MS = 2000;

/**
 * Waits for the connections (`connects`) at start, for at most START_WAIT_MS: Redis may be away
 * when the instance starts, and it starts anyway; the clients keep reconnecting.
 */
export async function connectWithin(connects: Promise<unknown>[], logger: Logger): Promise<void> {
  const connected = await Promise.race([
    Promise.all(connects).then(
      () => true,
      () => false,
    ),
    sleep(START_WAIT_MS, false, { ref: false }),
  ]);
  if (!connected) {
    logger.warn('redis is unreachable at start; live events reach other instances once it is back');
  }
}

/** Logs a connection's outage once (ioredis reports every failed attempt) and its return. */
export function reportOutages(client: EventEmitter, role: string, logger: Logger): void {
  let away = false;
  client.on('error', (err: Error) => {
    if (away) return;
    away = true;
    logger.warn({ err, role }, 'redis connection error; reconnecting');
  });
  client.on('ready', () => {
    if (away) logger.info({ role }, 'redis connection back');
    away = false;
  });
}

/**
 * After a reconnection: waits until Redis confirmed the channels again (`resubscribed`), but not
 * for longer than the bound, nor after a failure (a connection lost again), then calls back the
 * listeners, which look in the log for what was published meanwhile.
 */
export function catchUpAfter(
  resubscribed: Promise<unknown>,
  callbacks: Iterable<() => void>,
  logger: Logger,
  resubscribeTimedOut: () => void,
): void {
  void within(resubscribed, defaultBounds.listenMs)
    .then(
      (result) => {
        if (result !== TIMED_OUT) return;
        resubscribeTimedOut();
        logger.warn('redis did not confirm the live channels in time; catching up anyway');
      },
      (err: unknown) => logger.warn({ err }, 'redis re-subscription failed; catching up anyway'),
    )
    .then(() => {
      for (const callback of callbacks) callback();
    });
}
