import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/accounts/auth.ts';
import {
  backends,
  directUrlOf,
  freshPostgres,
  TEST_SECRET,
  type Backend,
  type TestApp,
} from '../helpers/app.ts';
import { gql } from '../helpers/client.ts';
import { startServiceProcess } from '../helpers/process.ts';
import { AssociateAccessory, CreateActivity, ok, UpsertAccount } from '../helpers/fixtures.ts';
import {
  NotificationDeliveries,
  register,
  sleep,
  startReceiver,
  type Responder,
} from './helpers.ts';

const TIMEOUT_MS = 1000;

const children = new Set<ChildProcess>();
// Whatever happens to a test, no service outlives the suite.
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** `node --import tsx src/main.ts` with `env`, once it listens. */
async function startService(env: Record<string, string> & { DATA_DIR: string }) {
  const service = await startServiceProcess(['--import', 'tsx', 'src/main.ts'], env, {
    listenTimeoutMs: 30_000,
  });
  children.add(service.child);
  void service.exited.then(() => children.delete(service.child));
  return service;
}

const kill = (child: ChildProcess, signal: NodeJS.Signals) => child.kill(signal);

describe.each(backends)('a SIGKILL with deliveries in flight on %s', (backend: Backend) => {
  it('loses no committed event: after the restart every one arrives', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-crash-'));
    const database = backend === 'postgres' ? await freshPostgres({ migrated: true }) : undefined;
    const env = {
      PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: database?.url ?? '',
      DATABASE_DIRECT_URL: (database && directUrlOf(database.url)) ?? '',
      AUTH_DEV_SECRET: TEST_SECRET,
      LOG_LEVEL: 'info',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_RETRY_DELAYS_MS: '100,200',
      // No SECRETS_KEY: the generated DATA_DIR/secrets-key must survive the crash too.
      SECRETS_KEY: '',
    };
    const authKey = 'crash-test-receiver-key';
    // Before the crash the receiver is slow, so attempts are in flight when the service dies.
    let slow = true;
    let answered = 0;
    const respond: Responder = async (_r, res) => {
      if (slow) await sleep(150);
      res.writeHead(204).end();
      answered++;
    };
    const rx = await startReceiver(authKey, respond);
    const token = (scopes: string[]) =>
      signDevToken(TEST_SECRET, {
        sub: 'crash-user',
        clientId: 'crash-client',
        scopes: scopes.map((s) => `service:${s}`),
      });
    const ingest = await token(['ingest']);
    let service = await startService(env);
    try {
      const t = { url: service.url } as TestApp;
      const { upsertAccount } = await ok(t, ingest, UpsertAccount, { subject: 'crash-user' });
      const accountId = upsertAccount.accountId;
      const accessories: string[] = [];
      for (let i = 0; i < 4; i++) {
        const { associateAccessory } = await ok(t, ingest, AssociateAccessory, {
          accountId,
          deviceId: `crash-${i}`,
          name: `crash ${i}`,
        });
        accessories.push(associateAccessory.id);
      }
      const notifications = await token(['notifications']);
      await register(t, notifications, {
        url: rx.url,
        authKey,
        eventTypes: ['activity_created', 'activity_finished'],
      });

      // Ingest on four accessories at once until the service dies.
      const acknowledged: string[] = [];
      let dead = false;
      const loops = accessories.map(async (accessoryId) => {
        for (let i = 0; !dead && i < 200; i++) {
          try {
            const { createActivity } = await ok(t, ingest, CreateActivity, {
              accessoryId,
              input: { createdAt: new Date(Date.now() - (200 - i) * 1000).toISOString() },
            });
            acknowledged.push(`${accessoryId}/${createActivity.activityId}`);
          } catch {
            return; // the service is gone
          }
        }
      });
      // Some attempts answered, some in flight, and the ingest still going.
      await rx.waitFor(() => answered >= 20 && rx.open >= 2, 'attempts in flight', 30_000);
      kill(service.child, 'SIGKILL');
      dead = true;
      expect(await service.exited).toBeNull(); // killed by the signal
      await Promise.all(loops);
      const beforeRestart = rx.receipts.length;
      const answeredBefore = answered;
      expect(acknowledged.length).toBeGreaterThan(4);

      slow = false;
      service = await startService(env);
      t.url = service.url;

      // Every delivery the outbox committed ends delivered; the leases of the killed instance
      // expire and its attempts are made again.
      const deliveries = async () => {
        const all: { webhookId: string; status: string; eventData: any; eventType: string }[] = [];
        let after: string | undefined;
        for (;;) {
          const res = await gql(t.url, notifications, NotificationDeliveries, {
            accountId,
            first: 100,
            after,
          });
          expect(res.errors).toBeUndefined();
          const page = res.data!.notificationDeliveries!;
          all.push(...page.edges.map((e) => e.node));
          if (!page.pageInfo.hasNextPage) return all;
          after = page.pageInfo.endCursor!;
        }
      };
      let log = await deliveries();
      for (let i = 0; i < 300 && log.some((d) => d.status !== 'delivered'); i++) {
        await sleep(100);
        log = await deliveries();
      }
      expect(log.filter((d) => d.status !== 'delivered')).toEqual([]);
      const received = new Set(rx.receipts.filter((r) => r.standard).map((r) => r.webhookId));
      for (const d of log) expect(received.has(d.webhookId), d.webhookId).toBe(true);
      // Every acknowledged activity was notified.
      const created = new Set(
        rx.receipts
          .filter((r) => r.body?.eventType === 'activity_created')
          .map((r) => `${r.body.eventData.accessoryId}/${r.body.eventData.activityId}`),
      );
      for (const a of acknowledged) expect(created.has(a), a).toBe(true);

      if (database) {
        // And the event log agrees: each committed event of a registered type has a delivery.
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        const { rows } = await client.query<{ id: string }>(
          `SELECT id::text AS id FROM events WHERE account_id = $1
              AND event_type IN ('activity_created', 'activity_finished') ORDER BY id`,
          [accountId],
        );
        await client.end();
        expect(rows.length).toBe(log.length);
        for (const { id } of rows) expect(received.has(id), id).toBe(true);
      }
      const duplicates = rx.receipts.length - received.size;
      console.log(
        `${backend}: ${log.length} deliveries, ${beforeRestart} received and ${answeredBefore} ` +
          `answered before the SIGKILL, ${duplicates} attempts repeated after it (at least once)`,
      );

      kill(service.child, 'SIGTERM');
      expect(await service.exited).toBe(0);
    } finally {
      kill(service.child, 'SIGKILL');
      await rx.close();
      await database?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
