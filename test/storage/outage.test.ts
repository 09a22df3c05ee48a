import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_LOCK_CLASS } from '../../src/events/outbox.ts';
import { Prisma } from '../../src/generated/prisma/client.ts';
import { isDatabaseUnavailable } from '../../src/storage/faults.ts';
import { backends, directUrlOf, freshPostgres, startApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/client.ts';
import { seedAccessory } from '../helpers/fixtures.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { ReportMotion } from '../notifications/helpers.ts';

describe('a lost connection as Prisma reports it', () => {
  it("is unavailable when a raw query's P2010 carries the adapter's ConnectionClosed", () => {
    // As a raw query on a connection that closed mid-transaction fails (found by the chaos run).
    const err = new Prisma.PrismaClientKnownRequestError(
      'Raw query failed. Code: `N/A`. Message: `Server has closed the connection.`',
      {
        code: 'P2010',
        clientVersion: Prisma.prismaVersion.client,
        meta: {
          driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'ConnectionClosed' } },
        },
      },
    );
    expect(isDatabaseUnavailable(err)).toBe(true);
    const syntax = new Prisma.PrismaClientKnownRequestError('Raw query failed.', {
      code: 'P2010',
      clientVersion: Prisma.prismaVersion.client,
      meta: {
        driverAdapterError: {
          name: 'DriverAdapterError',
          cause: { kind: 'postgres', code: '42601' },
        },
      },
    });
    expect(isDatabaseUnavailable(syntax)).toBe(false);
  });
});

// A database cut needs a server to cut the service from: PostgreSQL behind a proxy.
describe.runIf(backends.includes('postgres'))('the database cut under a write', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it('answers UNAVAILABLE, not INTERNAL, when the connection drops inside the transaction', async () => {
    const database = await freshPostgres({ migrated: true });
    cleanup.push(database.drop);
    const url = new URL(database.url);
    const proxy: TcpProxy = await startTcpProxy(url.hostname, Number(url.port || 5432));
    cleanup.push(proxy.close);
    const t: TestApp = await startApp('postgres', { DATABASE_URL: proxy.via(database.url) });
    cleanup.push(t.close);
    const s = await seedAccessory(t, 'outage-1', 'cam');

    // Another session holds the account's event lock, so the write waits inside its
    // transaction (in a raw query) when the connection is cut. A session lock needs a session of
    // its own: the database itself, not a transaction pooler.
    const holder = new pg.Client({
      connectionString: directUrlOf(database.url) ?? database.url,
    });
    await holder.connect();
    cleanup.push(() => holder.end());
    await holder.query('SELECT pg_advisory_lock($1::int, hashtext($2::text))', [
      EVENT_LOCK_CLASS,
      s.accountId,
    ]);
    const answer = gql(t.url, s.ingest, ReportMotion, {
      accessoryId: s.accessoryId,
      state: 'started',
    });
    for (let waiting = 0; waiting === 0;) {
      const { rows } = await holder.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event = 'advisory'`,
      );
      waiting = rows[0]!.n;
    }
    proxy.cut();
    const res = await answer;
    expect(res.errors?.map((e) => e.extensions?.code)).toEqual(['UNAVAILABLE']);

    await holder.query('SELECT pg_advisory_unlock_all()');
    proxy.restore();
    const again = await gql(t.url, s.ingest, ReportMotion, {
      accessoryId: s.accessoryId,
      state: 'started',
    });
    expect(again.errors).toBeUndefined();
  }, 60_000);
});
