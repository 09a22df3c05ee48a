/**
 * The premise of the sharding plan (docs/operations.md, "Past one PostgreSQL"), statement by
 * statement: the service runs on a PostgreSQL of its own with pg_stat_statements, through a
 * workload that uses every part of it (accounts, ingest, listing, the timeline, counts, zones,
 * webhooks with rotation and replay, pull, every background job), and each distinct
 * statement it ran either touches one account (its WHERE fixes an account, an accessory or a
 * delivery, or it writes rows given to it), or is a listed exception, with why. PostgreSQL only
 * (TEST_DATABASE_URL): the embedded database has no pg_stat_statements.
 */
import { createServer, type Server } from 'node:http';
import type net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rectangle } from '../../src/zones/geometry.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { rest } from '../helpers/client.ts';
import { ok, seedAccessories, seedActivities, UpsertAccount } from '../helpers/fixtures.ts';
import {
  freePort,
  startThrowawayPostgres,
  type ThrowawayPostgres,
} from '../helpers/throwaway-postgres.ts';

/** Tables whose rows belong to one account, and the columns that name it (or a part of it). */
const ACCOUNT_TABLES = [
  'accounts',
  'accessories',
  'activities',
  'activity_rollup',
  'events',
  'deliveries',
  'delivery_attempts',
  'notification_registrations',
  'zone_sets',
  'zones',
  'media_objects',
];
/** A column, bare or qualified and quoted as Prisma writes it (`"public"."zones"."accessory_id"`). */
const column = (names: string) => `(?:"?\\w+"?\\.)*"?(?:${names})"?`;
const ONE_ACCOUNT = [
  // Its WHERE fixes an account, an accessory, a delivery or the subject of one account.
  new RegExp(
    `${column('account_id|accessory_id|accountId|accessoryId|delivery_id|subject')}\\s*(=\\s*\\$\\d+|IN \\(\\$\\d+\\))`,
    'i',
  ),
  // A row by its key in a table of one account's rows.
  new RegExp(`${column('id')}\\s*(=\\s*\\$\\d+|IN \\(\\$\\d+\\))`, 'i'),
  // Rows given to it.
  /^INSERT INTO\s+\S+\s*(AS \w+\s*)?(\([^)]*\))?\s*VALUES/i,
];

/** Schema changes (migrations, stored functions, partition upkeep): the coordinator's. */
const DDL = /^(CREATE|ALTER|DROP|ANALYZE|COMMENT|DO|GRANT|REINDEX|VACUUM)\b/i;

/** Statements that read or write across accounts, each with why that is right. */
const EXCEPTIONS: { pattern: RegExp; why: string }[] = [
  {
    pattern: /^SELECT n\.\* FROM unnest\(\$1::uuid\[\]\) AS x\(id\) CROSS JOIN LATERAL/,
    why: "a bulk ingest reads the newest activity of each accessory it names, which may be several accounts'",
  },
  {
    pattern: /^SELECT id::text AS id, .* FROM accessories WHERE id = ANY \(\$1::uuid\[\]\)$/,
    why: "the accessories a request names, by key, before their owner is checked: the timeline's chosen ones may name another account's (answered 404)",
  },
  {
    pattern:
      /FROM notification_registrations WHERE account_id = ANY \(\$1::uuid\[\]\) AND filter IS NOT NULL/,
    why: 'a bulk ingest reads the filtered registrations of every account it writes to',
  },
  {
    pattern:
      /^WITH RECURSIVE c AS \( SELECT id, origin, account_id, client_id, next_attempt_at FROM deliveries WHERE created_at < now\(\) \+ interval \$\d+ AND state = /,
    why: 'the dispatcher claims the due deliveries of every account (a background loop: per shard)',
  },
  {
    pattern:
      /^WITH r AS \( SELECT \* FROM jsonb_to_recordset\(\$1::jsonb\) .* UPDATE deliveries d SET state = r\.state/,
    why: 'the dispatcher records the outcomes of the batch it claimed, which spans accounts',
  },
  {
    pattern:
      /\(min\(next_attempt_at\) - now\(\)\).* FROM deliveries WHERE created_at < now\(\) \+ interval \$\d+ AND state = /,
    why: 'the dispatcher asks when the next delivery of any account is due, to sleep until then',
  },
  {
    pattern:
      /FROM media_objects WHERE package_status = \$2 (ORDER BY uploaded_at|AND package_started_at <)/,
    why: 'packaging polls for queued and stalled media of every account (a background job: per shard)',
  },
  {
    pattern:
      /FROM media_objects m JOIN activities a .* m\.ready_event_at IS NULL AND a\.end_time IS NOT NULL/,
    why: "the media.ready job finds every account's clips ready to announce (a background job: per shard)",
  },
  {
    pattern: /^SELECT max\(retention_days\)::int AS days FROM accounts$/,
    why: "the retention sweep drops the days past every account's window: it needs the longest",
  },
  {
    pattern:
      /^(UPDATE "activities" a SET "account_id" = x\."account_id" FROM "accessories" x|INSERT INTO "activity_rollup" SELECT .* FROM "activities" GROUP BY)/,
    why: "a migration's backfill, once per upgrade, over every account",
  },
];

const tables = (sql: string) =>
  ACCOUNT_TABLES.filter((table) => new RegExp(`(^|[^\\w])"?${table}"?([^\\w]|$)`).test(sql));

describe.skipIf(!backends.includes('postgres'))('every statement the service runs', () => {
  let server: ThrowawayPostgres;
  let t: TestApp;
  let receiver: Server;
  let received = 0;
  let statements: string[] = [];

  beforeAll(async () => {
    server = startThrowawayPostgres(await freePort(), {
      shared_preload_libraries: 'pg_stat_statements',
      'pg_stat_statements.track': 'top',
      'pg_stat_statements.max': 10000,
    });
    const admin = new pg.Client({ connectionString: server.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE clipgate');
    await admin.end();
    receiver = createServer((req, res) => {
      req.resume().on('end', () => {
        received++;
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    t = await startApp('postgres', {
      DATABASE_URL: server.url('clipgate'),
      DATABASE_DIRECT_URL: '',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    receiver?.close();
    server?.stop();
  });

  it('is run through a workload that uses every part of the service', async () => {
    const { ingest, accessoryIds } = await seedAccessories(t, 'user-1', ['cam-1', 'cam-2']);
    await seedAccessories(t, 'user-2', ['cam-3']);
    const reader = await t.token(['activities_basic', 'zones', 'notifications']);
    const call = async (method: string, path: string, body?: unknown, token = reader) => {
      const res = await rest(t.url, token, method, path, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    const url = `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/hook`;
    await call('PUT', '/api/accounts/self/notifications', {
      url,
      authKey: 'statements-key-0123456789',
      eventTypes: ['activity_created', 'activity_updated', 'activity_finished'],
    });
    const ids = await seedActivities(t, ingest, accessoryIds[0]!, 3);
    await seedActivities(t, ingest, accessoryIds[1]!, 2);
    const ingested = await call(
      'POST',
      '/api/ingest',
      [
        {
          op: 'updateActivity',
          accessoryId: accessoryIds[0],
          activityId: ids.at(-1),
          input: { relevanceLevel: 3, motionZones: ['z1'] },
        },
      ],
      ingest,
    );
    expect(ingested, JSON.stringify(ingested)).toMatchObject({ results: [{ ok: true }] });
    await call('PUT', `/api/accessories/${accessoryIds[0]}/zones`, {
      zones: [
        {
          id: 'z1',
          name: 'Door',
          color: '#ff8800',
          vertices: rectangle(0, 0, 0.5, 1),
        },
      ],
    });
    await call('GET', `/api/accessories/${accessoryIds[0]}/zones`);
    for (const body of [{ limit: 2 }, { limit: 2, filter: 'contains(motionZones, "z1")' }]) {
      await call('POST', `/api/accessories/${accessoryIds[0]}/activities`, body);
    }
    await call('GET', `/api/accessories/${accessoryIds[0]}/activities/${ids[0]}`);
    await call('POST', '/api/activities', { limit: 3 });
    const now = Date.now();
    await call('POST', '/api/activities/counts', {
      from: new Date(now - 86_400_000).toISOString(),
      to: new Date(now).toISOString(),
      bucket: 'HOUR',
      groupBy: ['ACCESSORY'],
    });
    await call('GET', '/api/accessories');
    await call('GET', '/api/accounts/self');
    await call('GET', '/api/accounts/self/events?limit=10');
    const deadline = Date.now() + 10_000;
    while (received < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(received).toBeGreaterThanOrEqual(2);
    await call('POST', '/api/accounts/self/notifications/rotate', { overlapSeconds: 60 });
    await call('POST', '/api/accounts/self/notifications/retire-previous-key', {});
    await call('POST', '/api/accounts/self/notifications/replay', {
      from: new Date(now - 3_600_000).toISOString(),
      to: new Date(now + 60_000).toISOString(),
    });
    await call('GET', '/api/accounts/self/notifications');
    await call('DELETE', '/api/accounts/self/notifications');
    await ok(t, ingest, UpsertAccount, { subject: 'user-2', retentionDays: 1 });
    for (const job of [
      'storage.partitions',
      'activities.retention',
      'media.garbage',
      'media.ready',
      'events.log-retention',
      'ingest.idempotency-retention',
      'notifications.log-retention',
    ]) {
      await t.app.jobs.runNow(job);
    }

    const stats = new pg.Client({ connectionString: server.url('clipgate') });
    await stats.connect();
    try {
      await stats.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      const { rows } = await stats.query<{ query: string }>(
        `SELECT query FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'clipgate')`,
      );
      // Without its comments, on one line.
      statements = rows.map((r) =>
        r.query
          .replace(/--[^\n]*/g, '')
          .replace(/\s+/g, ' ')
          .trim(),
      );
    } finally {
      await stats.end();
    }
    expect(statements.length).toBeGreaterThan(50);
  });

  it('touches one account each, or is an exception with its reason', () => {
    expect(statements.length).toBeGreaterThan(50);
    const across = statements.filter(
      (sql) =>
        tables(sql).length > 0 &&
        !DDL.test(sql) &&
        !ONE_ACCOUNT.some((rule) => rule.test(sql)) &&
        !EXCEPTIONS.some((e) => e.pattern.test(sql)),
    );
    expect(across.map((sql) => sql.slice(0, 400))).toEqual([]);
  });

  it('has no exception that no statement needs', () => {
    expect(statements.length).toBeGreaterThan(50);
    const unused = EXCEPTIONS.filter((e) => !statements.some((sql) => e.pattern.test(sql)));
    expect(unused.map((e) => e.why)).toEqual([]);
  });
});
