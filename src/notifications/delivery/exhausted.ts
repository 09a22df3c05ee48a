import type { NewEvent } from '../../events/types.ts';
import { webhookIdOf } from './policy.ts';
import type { Outcome } from './queue/types.ts';

/**
 * Whether the outcome discards its delivery in a way the account hears of: a
 * `delivery_exhausted` event, recorded with the outcome (recorder.ts). The notification of a
 * `delivery_exhausted` event records none when it is discarded in turn, so that a receiver that
 * fails everything, listing that type, cannot make each discard queue another notification.
 */
export const exhausts = ({ next, delivery }: Outcome): boolean =>
  next.state === 'discarded' && delivery.event_type !== 'delivery_exhausted';

/** The `delivery_exhausted` event of an outcome that `exhausts`, discarded at `at`. */
export function exhaustedEvent({ delivery, result }: Outcome, at: Date): NewEvent {
  return {
    accountId: delivery.account_id,
    accessoryId: null,
    eventType: 'delivery_exhausted',
    eventData: {
      deliveryId: delivery.id,
      webhookId: webhookIdOf(delivery),
      eventId: delivery.kind === 'event' ? delivery.event_id : null,
      eventType: delivery.event_type,
      clientId: delivery.client_id,
      url: delivery.url,
      attempts: delivery.round_attempts + 1,
      lastStatus: result.status,
      lastError: result.error,
      discardedAt: at.toISOString(),
    },
  };
}
