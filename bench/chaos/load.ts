import { randomUUID } from 'node:crypto';
import { signDevToken } from '../../src/accounts/auth.ts';
import { TEST_SECRET } from '../../test/helpers/app.ts';
import type { ClusterClient } from './client.ts';
import type { ChaosReceiver } from './receivers.ts';

/** One account of the run: its accessory, its token and the receiver it registered. */
export interface ChaosAccount {
  subject: string;
  accountId: string;
  accessoryId: string;
  token: string;
  receiver: ChaosReceiver;
  /** An event committed before the run: live subscribers start after it. */
  since: string;
}

/** The event types every account registers its receiver for. */
export const REGISTERED_TYPES = ['activity_created', 'activity_updated', 'activity_finished'];

/** What the ingest did: acknowledged creates (`accessoryId/activityId`) and failed operations. */
export interface IngestStats {
  operations: number;
  acknowledged: string[];
  failures: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const UPSERT = `mutation($s: String!) { upsertAccount(subject: $s) { accountId } }`;
const ASSOCIATE = `mutation($a: ID!, $d: String!) {
  associateAccessory(accountId: $a, deviceId: $d, name: $d) { id } }`;
const CREATE = `mutation($x: ID!, $i: CreateActivityInput!) {
  createActivity(accessoryId: $x, input: $i) { activityId } }`;
const UPDATE = `mutation($x: ID!, $id: String!, $i: UpdateActivityInput!) {
  updateActivity(accessoryId: $x, activityId: $id, input: $i) { activityId } }`;
const FINISH = `mutation($x: ID!, $id: String!, $e: DateTime!) {
  finishActivity(accessoryId: $x, activityId: $id, endTime: $e) { activityId } }`;
const MOTION = `mutation($x: ID!, $s: MotionState!) {
  reportMotion(accessoryId: $x, state: $s) { eventId } }`;

/** Creates `count` accounts with one accessory each, the i-th registering `receivers[i % n]`. */
export async function setupAccounts(
  client: ClusterClient,
  prefix: string,
  count: number,
  receivers: ChaosReceiver[],
): Promise<ChaosAccount[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const subject = `${prefix}-${i}`;
      const token = await signDevToken(TEST_SECRET, {
        sub: subject,
        clientId: `${prefix}-client`,
        scopes: ['ingest', 'notifications', 'activities_basic'].map((s) => `service:${s}`),
      });
      const accountId = await client.value(
        token,
        UPSERT,
        { s: subject },
        'upsertAccount',
        'accountId',
      );
      const accessoryId = await client.value(
        token,
        ASSOCIATE,
        { a: accountId, d: `cam-${i}` },
        'associateAccessory',
        'id',
      );
      const receiver = receivers[i % receivers.length]!;
      await register(client, { token, receiver });
      const motion = { x: accessoryId, s: 'ended' };
      const since = await client.value(token, MOTION, motion, 'reportMotion', 'eventId');
      return { subject, accountId, accessoryId, token, receiver, since };
    }),
  );
}

function register(client: ClusterClient, account: Pick<ChaosAccount, 'token' | 'receiver'>) {
  return client.request(account.token, 'PUT', '/api/accounts/self/notifications', {
    url: account.receiver.url,
    authKey: account.receiver.authKey,
    eventTypes: REGISTERED_TYPES,
  });
}

/**
 * A camera's life on each account until `running()` turns false: motion starts, an activity is
 * created, updated twice as it accumulates, motion ends, it is finished.
 */
export async function driveIngest(
  client: ClusterClient,
  accounts: ChaosAccount[],
  running: () => boolean,
  pauseMs: number,
): Promise<IngestStats> {
  const stats: IngestStats = { operations: 0, acknowledged: [], failures: [] };
  const op = async (
    account: ChaosAccount,
    query: string,
    variables: Record<string, unknown>,
    root: string,
    field: string,
  ) => {
    stats.operations++;
    const value = await client.value(account.token, query, variables, root, field);
    await sleep(pauseMs * (0.5 + Math.random()));
    return value;
  };
  await Promise.all(
    accounts.map(async (account) => {
      const x = account.accessoryId;
      while (running()) {
        try {
          await op(account, MOTION, { x, s: 'started' }, 'reportMotion', 'eventId');
          const id = await op(
            account,
            CREATE,
            { x, i: { relevanceLevel: 1 } },
            'createActivity',
            'activityId',
          );
          stats.acknowledged.push(`${x}/${id}`);
          const zones = { relevanceLevel: 2, motionZones: ['z1'] };
          await op(account, UPDATE, { x, id, i: zones }, 'updateActivity', 'activityId');
          const cells = { relevanceLevel: 3, objectLocations: [1, 2] };
          await op(account, UPDATE, { x, id, i: cells }, 'updateActivity', 'activityId');
          await op(account, MOTION, { x, s: 'ended' }, 'reportMotion', 'eventId');
          const end = new Date().toISOString();
          await op(account, FINISH, { x, id, e: end }, 'finishActivity', 'activityId');
        } catch (err) {
          stats.failures.push(`${account.subject}: ${(err as Error).message}`);
        }
      }
    }),
  );
  return stats;
}

/** The quiet phase's pace per account. */
export interface QuietPace {
  /** Between two clips of a burst: a random pause in this range (ms). */
  gapMs: [number, number];
  /** Clips per burst. */
  burst: number;
  /** Nothing at all between two bursts (cut short when the phase ends). */
  idleMs: number;
}

export const QUIET_PACE: QuietPace = { gapMs: [2000, 5000], burst: 3, idleMs: 30_000 };

/** What the quiet phase did: its writes, and those whose first answer was lost. */
export interface QuietStats {
  writes: number;
  /** Writes answered only after another attempt with the same Idempotency-Key. */
  inDoubt: number;
  acknowledged: string[];
  failures: string[];
}

/**
 * Quiet cameras, one per account, until `running()` turns false: bursts of a few clips a few
 * seconds apart, then nothing for `idleMs`. Each clip is a batch of one createActivity sent with
 * an Idempotency-Key, and sent again with that key after a 503 or a lost connection, as a camera
 * that must not create its clip twice does; once its first answer was lost, the camera goes
 * quiet at once, so that no later event of its stream shows what may have committed unpublished.
 */
export async function driveQuiet(
  client: ClusterClient,
  accounts: ChaosAccount[],
  running: () => boolean,
  pace: QuietPace,
): Promise<QuietStats> {
  const stats: QuietStats = { writes: 0, inDoubt: 0, acknowledged: [], failures: [] };
  const idle = async (ms: number) => {
    for (const until = Date.now() + ms; running() && Date.now() < until;) await sleep(100);
  };
  const clip = async (account: ChaosAccount): Promise<boolean> => {
    const items = [
      {
        op: 'createActivity',
        accessoryId: account.accessoryId,
        input: { createdAt: new Date().toISOString(), relevanceLevel: 1 },
      },
    ];
    stats.writes++;
    const res = await client.request(account.token, 'POST', '/api/ingest', items, [], {
      'idempotency-key': randomUUID(),
    });
    const [result] = (res.body as { results: { ok: boolean; activityId?: string }[] }).results;
    if (!result?.ok) throw new Error(`quiet clip refused: ${JSON.stringify(result)}`);
    stats.acknowledged.push(`${account.accessoryId}/${result.activityId}`);
    if (res.attempts > 1) stats.inDoubt++;
    return res.attempts > 1;
  };
  await Promise.all(
    accounts.map(async (account) => {
      while (running()) {
        for (let i = 0; i < pace.burst && running(); i++) {
          const [least, most] = pace.gapMs;
          await idle(least + Math.random() * (most - least));
          if (!running()) break;
          try {
            if (await clip(account)) break;
          } catch (err) {
            stats.failures.push(`${account.subject}: ${(err as Error).message}`);
          }
        }
        await idle(pace.idleMs);
      }
    }),
  );
  return stats;
}

/**
 * Registers again, every `everyMs` while `running()`, the accounts whose receiver answered 410
 * (which removed their registration), as the receiver's owner would.
 */
export async function keepRegistered(
  client: ClusterClient,
  accounts: ChaosAccount[],
  running: () => boolean,
  everyMs: number,
): Promise<number> {
  let again = 0;
  while (running()) {
    await sleep(everyMs);
    for (const account of accounts) {
      try {
        const res = await client.request(
          account.token,
          'GET',
          '/api/accounts/self/notifications',
          undefined,
          [404],
        );
        if (res.status === 404) {
          await register(client, account);
          again++;
        }
      } catch {
        // The next round tries again.
      }
    }
  }
  return again;
}
