import { MAX_FILTER_LENGTH, parseFilter } from '../filter/index.ts';
import type { WebhookConfig } from '../config.ts';
import { invalidArgument } from '../errors.ts';
import { isEventType, type EventType } from '../events/types.ts';
import { parseTimestamp } from '../ids.ts';
import { AUTH_KEY_MIN } from './signing.ts';
import { validateReceiverUrl } from './ssrf.ts';
import {
  checkTopic,
  destinationKinds,
  kindSchemes,
  type BrokerKind,
  type DestinationKind,
} from './destinations/destination.ts';

/**
 * The checks of a registration before it is stored in the contract's order, each a 400 naming its
 * field. The 403 for motion types without `notifications_motion` follows them, in the service.
 */

export const MOTION_EVENT_TYPES: readonly EventType[] = ['motion_started', 'motion_ended'];
export const AUTH_KEY_MAX = 256;
export const USER_DATA_MAX_BYTES = 4096;
/** The highest `maxPerSecond` a registration may set. */
export const MAX_PER_SECOND_MAX = 1000;

/** What PUT and registerNotifications take, before validation. */
export interface RegistrationInput {
  url: unknown;
  authKey: unknown;
  eventTypes: unknown;
  userData?: unknown;
  filter?: unknown;
  maxPerSecond?: unknown;
  signing?: unknown;
  kind?: unknown;
  topic?: unknown;
  exchange?: unknown;
  username?: unknown;
  password?: unknown;
}

/** How a registration's notifications are signed: HMAC-SHA256 (`v1`), or ed25519 (`v1a`). */
export const signingModes = ['hmac-sha256', 'ed25519'] as const;
export type SigningMode = (typeof signingModes)[number];

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export interface CheckedRegistration {
  url: URL;
  authKey: string;
  eventTypes: EventType[];
  userData: Record<string, unknown> | null;
  /** The filter as written (checked to parse); null: none. */
  filter: string | null;
  maxPerSecond: number | null;
  signing: SigningMode;
  /** null: a webhook. */
  broker: CheckedBroker | null;
}

/** A broker destination as registered, its credentials not yet sealed. */
export interface CheckedBroker {
  kind: BrokerKind;
  topic: string;
  exchange: string | null;
  /** Both or neither. */
  credentials: { username: string; password: string } | null;
}

/** The longest broker username and password. */
export const BROKER_CREDENTIAL_MAX = 1024;
/** The longest AMQP exchange name (AMQP 0-9-1's short string). */
export const EXCHANGE_MAX = 255;

/** `kind` as registrations take it: one of destinationKinds, webhook when left out. */
function checkKind(kind: unknown): DestinationKind {
  if (kind === undefined || kind === null) return 'webhook';
  if (!destinationKinds.includes(kind as DestinationKind)) {
    throw invalidArgument('kind', `kind must be one of ${destinationKinds.join(', ')}`);
  }
  return kind as DestinationKind;
}

/** A broker's destination fields (a webhook takes none of them: each given is a 400). */
function checkBroker(kind: DestinationKind, input: RegistrationInput): CheckedBroker | null {
  const given = (field: 'topic' | 'exchange' | 'username' | 'password') =>
    input[field] !== undefined && input[field] !== null;
  if (kind === 'webhook') {
    const field = (['topic', 'exchange', 'username', 'password'] as const).find(given);
    if (field) throw invalidArgument(field, `${field} is for a broker kind, not a webhook`);
    return null;
  }
  const topic = checkTopic(kind, input.topic);
  let exchange: string | null = null;
  if (kind === 'amqp') {
    exchange = (input.exchange as string | null | undefined) ?? '';
    if (typeof exchange !== 'string' || exchange.length > EXCHANGE_MAX) {
      throw invalidArgument(
        'exchange',
        `exchange must be a string of 0..${EXCHANGE_MAX} characters`,
      );
    }
  } else if (given('exchange')) {
    throw invalidArgument('exchange', 'exchange is for the amqp kind only');
  }
  for (const field of ['username', 'password'] as const) {
    const value = input[field];
    if (given(field) && (typeof value !== 'string' || value.length > BROKER_CREDENTIAL_MAX)) {
      throw invalidArgument(
        field,
        `${field} must be a string of at most ${BROKER_CREDENTIAL_MAX} characters`,
      );
    }
  }
  if (given('username') !== given('password')) {
    const missing = given('username') ? 'password' : 'username';
    throw invalidArgument(missing, 'username and password go together');
  }
  const credentials = given('username')
    ? { username: input.username as string, password: input.password as string }
    : null;
  return { kind, topic, exchange, credentials };
}

/** An authKey as registrations and rotations take it: 16..256 characters, else a 400. */
function checkAuthKey(authKey: unknown): string {
  if (typeof authKey !== 'string') throw invalidArgument('authKey', 'authKey must be a string');
  const length = [...authKey].length;
  if (length < AUTH_KEY_MIN || length > AUTH_KEY_MAX) {
    throw invalidArgument('authKey', `authKey must be ${AUTH_KEY_MIN}..${AUTH_KEY_MAX} characters`);
  }
  return authKey;
}

/** How long a rotation's overlap lasts unless told: a day. */
export const OVERLAP_SECONDS_DEFAULT = 86_400;
/** The longest overlap a rotation may ask for: 30 days. */
export const OVERLAP_SECONDS_MAX = 30 * 86_400;

/** What rotate (REST and GraphQL) takes, before validation. */
export interface RotationInput {
  authKey?: unknown;
  overlapSeconds?: unknown;
}

export interface CheckedRotation {
  /** The new key; null: the service generates one. */
  authKey: string | null;
  overlapSeconds: number;
}

/** The validations of a rotation that answer 400, each naming its field. */
export function checkRotation(input: RotationInput): CheckedRotation {
  const authKey =
    input.authKey === undefined || input.authKey === null ? null : checkAuthKey(input.authKey);
  const { overlapSeconds = null } = input;
  if (overlapSeconds === null) return { authKey, overlapSeconds: OVERLAP_SECONDS_DEFAULT };
  if (
    typeof overlapSeconds !== 'number' ||
    !Number.isInteger(overlapSeconds) ||
    overlapSeconds < 0 ||
    overlapSeconds > OVERLAP_SECONDS_MAX
  ) {
    throw invalidArgument(
      'overlapSeconds',
      `overlapSeconds must be a whole number of seconds 0..${OVERLAP_SECONDS_MAX}`,
    );
  }
  return { authKey, overlapSeconds };
}

/** What replay (REST and GraphQL) takes, before validation. */
export interface ReplayInput {
  from: unknown;
  to: unknown;
  onlyFailed?: unknown;
}

/** Which notifications of a range a replay takes (delivery/queue/replay.ts). */
export interface ReplayRange {
  from: Date;
  to: Date;
  /** Only events whose last delivery to the receiver was discarded, gone or dropped. */
  onlyFailed: boolean;
}

/** The validations of a replay that answer 400, each naming its field. */
export function checkReplay(input: ReplayInput): ReplayRange {
  const from = parseTimestamp(input.from);
  if (!from) throw invalidArgument('from', 'from must be an ISO 8601 time with a zone');
  const to = parseTimestamp(input.to);
  if (!to) throw invalidArgument('to', 'to must be an ISO 8601 time with a zone');
  if (to <= from) throw invalidArgument('to', 'to must be later than from');
  const { onlyFailed = null } = input;
  if (onlyFailed !== null && typeof onlyFailed !== 'boolean') {
    throw invalidArgument('onlyFailed', 'onlyFailed must be a boolean');
  }
  return { from, to, onlyFailed: onlyFailed ?? false };
}

/** The validations of a registration that answer 400, each naming its field, in order. */
export function checkRegistration(
  input: RegistrationInput,
  webhook: Pick<WebhookConfig, 'allowHttp' | 'allowPrivateNetworks'>,
): CheckedRegistration {
  const kind = checkKind(input.kind);
  const url = validateReceiverUrl(input.url, webhook, kindSchemes[kind]);
  const { eventTypes, userData } = input;
  const authKey = checkAuthKey(input.authKey);
  if (!Array.isArray(eventTypes) || eventTypes.length === 0) {
    throw invalidArgument('eventTypes', 'eventTypes must be a non-empty list of event types');
  }
  const unknown = eventTypes.find((t) => !isEventType(t));
  if (unknown !== undefined) {
    throw invalidArgument(
      'eventTypes',
      `eventTypes: unknown event type ${JSON.stringify(unknown)}`,
    );
  }
  const repeated = eventTypes.find((t, i) => eventTypes.indexOf(t) !== i);
  if (repeated !== undefined) {
    throw invalidArgument('eventTypes', `eventTypes lists ${String(repeated)} more than once`);
  }
  if (userData !== undefined && userData !== null) {
    if (!isPlainObject(userData))
      throw invalidArgument('userData', 'userData must be a JSON object');
    if (Buffer.byteLength(JSON.stringify(userData)) > USER_DATA_MAX_BYTES) {
      throw invalidArgument(
        'userData',
        `userData must be at most ${USER_DATA_MAX_BYTES} bytes of JSON`,
      );
    }
  }
  const filter = input.filter ?? null;
  if (filter !== null) {
    if (typeof filter !== 'string') {
      throw invalidArgument(
        'filter',
        `filter must be a string of at most ${MAX_FILTER_LENGTH} characters`,
      );
    }
    parseFilter(filter); // a 400 on field "filter" with the position
  }
  const { maxPerSecond } = input;
  const validRate =
    typeof maxPerSecond === 'number' &&
    Number.isInteger(maxPerSecond) &&
    maxPerSecond >= 1 &&
    maxPerSecond <= MAX_PER_SECOND_MAX;
  if (maxPerSecond !== undefined && maxPerSecond !== null && !validRate) {
    throw invalidArgument(
      'maxPerSecond',
      `maxPerSecond must be a whole number 1..${MAX_PER_SECOND_MAX}, or null for no limit`,
    );
  }
  const signing = input.signing ?? 'hmac-sha256';
  if (!signingModes.includes(signing as SigningMode)) {
    throw invalidArgument('signing', `signing must be one of ${signingModes.join(', ')}`);
  }
  const broker = checkBroker(kind, input);
  return {
    url,
    authKey,
    signing: signing as SigningMode,
    broker,
    eventTypes: eventTypes as EventType[],
    userData: isPlainObject(userData) ? userData : null,
    filter,
    maxPerSecond: typeof maxPerSecond === 'number' ? maxPerSecond : null,
  };
}
