import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/client.ts';
import { seedAccessory } from '../helpers/fixtures.ts';

const IngestBatch = graphql(`
  mutation IngestBatch($items: [JSON!]!) {
    ingestBatch(items: $items) {
      ok
      accessoryId
      activityId
      error {
        code
        message
        field
      }
    }
  }
`);

/** POST /api/ingest with a JSON array, or NDJSON when `ndjson`. */
async function ingest(
  t: TestApp,
  token: string,
  items: unknown[],
  options: { ndjson?: boolean; key?: string } = {},
) {
  const res = await fetch(`${t.url}/api/ingest`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': options.ndjson ? 'application/x-ndjson' : 'application/json',
      ...(options.key && { 'idempotency-key': options.key }),
    },
    body: options.ndjson
      ? items.map((item) => JSON.stringify(item)).join('\n') + '\n'
      : JSON.stringify(items),
  });
  return { status: res.status, body: (await res.json()) as { results: any[] } };
}

async function loggedEvents(t: TestApp, accountId: string) {
  const { rows } = await t.app.services.db.pool.query<{ type: string; activityId: string }>(
    `SELECT event_type AS type, event_data->>'activityId' AS "activityId"
       FROM events WHERE account_id = $1 ORDER BY id`,
    [accountId],
  );
  return rows.map((r) => [r.type, r.activityId]);
}

for (const backend of backends) {
  describe(`bulk ingest on ${backend}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp(backend);
    });
    afterAll(() => t?.close());

    it('applies items in order across accessories, with one result each and their events', async () => {
      const a = await seedAccessory(t, 'bulk-1', 'cam-a');
      const b = await seedAccessory(t, 'bulk-1', 'cam-b');
      const at = (s: number) => new Date(Date.UTC(2026, 10, 20, 10, 0, s)).toISOString();
      const { status, body } = await ingest(t, a.ingest, [
        { op: 'createActivity', accessoryId: a.accessoryId, input: { createdAt: at(0) } },
        { op: 'createActivity', accessoryId: b.accessoryId, input: { createdAt: at(1) } },
        {
          op: 'updateActivity',
          accessoryId: a.accessoryId,
          activityId: '20261120T100000Z',
          input: { relevanceLevel: 3 },
        },
        { op: 'createActivity', accessoryId: a.accessoryId, input: { createdAt: at(5) } },
        { op: 'reportMotion', accessoryId: b.accessoryId, state: 'started', at: at(6) },
        {
          op: 'finishActivity',
          accessoryId: a.accessoryId,
          activityId: '20261120T100005Z',
          endTime: at(9),
        },
      ]);
      expect(status).toBe(200);
      expect(body.results).toEqual([
        { ok: true, accessoryId: a.accessoryId, activityId: '20261120T100000Z' },
        { ok: true, accessoryId: b.accessoryId, activityId: '20261120T100001Z' },
        { ok: true, accessoryId: a.accessoryId, activityId: '20261120T100000Z' },
        { ok: true, accessoryId: a.accessoryId, activityId: '20261120T100005Z' },
        { ok: true, accessoryId: b.accessoryId },
        { ok: true, accessoryId: a.accessoryId, activityId: '20261120T100005Z' },
      ]);
      expect(await loggedEvents(t, a.accountId)).toEqual([
        ['activity_created', '20261120T100000Z'],
        ['activity_created', '20261120T100001Z'],
        ['activity_updated', '20261120T100000Z'],
        ['activity_finished', '20261120T100000Z'],
        ['activity_created', '20261120T100005Z'],
        ['motion_started', null],
        ['activity_finished', '20261120T100005Z'],
      ]);
      const first = await t.app.services.activities.get(
        (await t.app.services.accounts.forSubject('bulk-1'))!,
        a.accessoryId,
        '20261120T100000Z',
      );
      expect(first).toMatchObject({ relevanceLevel: 3, playbackDuration: 5000 });
    });

    it('answers a bad item with its error and still applies the others (NDJSON)', async () => {
      const a = await seedAccessory(t, 'bulk-2', 'cam');
      const at = (s: number) => new Date(Date.UTC(2026, 10, 20, 11, 0, s)).toISOString();
      const { status, body } = await ingest(
        t,
        a.ingest,
        [
          { op: 'createActivity', accessoryId: a.accessoryId, input: { createdAt: at(10) } },
          { op: 'createActivity', accessoryId: a.accessoryId, input: { createdAt: at(1) } },
          { op: 'createActivity', accessoryId: a.accessoryId, input: { relevanceLevel: -1 } },
          // Beyond the 32-bit column: refused as input, never a database error for the batch.
          { op: 'createActivity', accessoryId: a.accessoryId, input: { relevanceLevel: 2 ** 40 } },
          { op: 'dance', accessoryId: a.accessoryId },
          {
            op: 'finishActivity',
            accessoryId: '00000000-0000-4000-8000-000000000000',
            activityId: '20261120T110010Z',
            endTime: at(20),
          },
          {
            op: 'finishActivity',
            accessoryId: a.accessoryId,
            activityId: '20261120T110010Z',
            endTime: at(20),
          },
          {
            op: 'finishActivity',
            accessoryId: a.accessoryId,
            activityId: '20261120T110010Z',
            endTime: at(21),
          },
        ],
        { ndjson: true },
      );
      expect(status).toBe(200);
      expect(body.results.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual([
        'ok',
        'CONFLICT',
        'INVALID_ARGUMENT',
        'INVALID_ARGUMENT',
        'INVALID_ARGUMENT',
        'NOT_FOUND',
        'ok',
        'CONFLICT',
      ]);
      expect(body.results[2].error.details.field).toBe('relevanceLevel');
      expect(body.results[3].error.details.field).toBe('relevanceLevel');
      expect(await loggedEvents(t, a.accountId)).toEqual([
        ['activity_created', '20261120T110010Z'],
        ['activity_finished', '20261120T110010Z'],
      ]);
    });

    it('applies a batch sent again with the same Idempotency-Key once, and answers the same', async () => {
      const a = await seedAccessory(t, 'bulk-3', 'cam');
      const items = [
        { op: 'createActivity', accessoryId: a.accessoryId, input: { relevanceLevel: 1 } },
        { op: 'reportMotion', accessoryId: a.accessoryId, state: 'started' },
      ];
      const first = await ingest(t, a.ingest, items, { key: 'batch-0001' });
      const again = await ingest(t, a.ingest, items, { key: 'batch-0001' });
      expect(again).toEqual(first);
      expect((await loggedEvents(t, a.accountId)).map(([type]) => type)).toEqual([
        'activity_created',
        'motion_started',
      ]);
      // The same key for other items is refused; another key applies them.
      const other = await ingest(t, a.ingest, items.slice(1), { key: 'batch-0001' });
      expect(other.status).toBe(400);
      const graph = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${a.ingest}`,
          'content-type': 'application/json',
          'idempotency-key': 'batch-0002',
        },
        body: JSON.stringify({
          query: 'mutation($items: [JSON!]!) { ingestBatch(items: $items) { ok } }',
          variables: { items: items.slice(1) },
        }),
      });
      expect(await graph.json()).toEqual({ data: { ingestBatch: [{ ok: true }] } });
      expect(await loggedEvents(t, a.accountId)).toHaveLength(3);
    });

    it('answers NOT_FOUND for an accessory deleted behind its cached entry', async () => {
      const a = await seedAccessory(t, 'bulk-5', 'cam');
      const create = { op: 'createActivity', accessoryId: a.accessoryId };
      expect((await ingest(t, a.ingest, [create])).body.results[0].ok).toBe(true);
      // Deleted the way another instance would, so this one's caches still hold it.
      await t.app.services.db.pool.query('DELETE FROM accessories WHERE id = $1', [a.accessoryId]);
      const { body } = await ingest(t, a.ingest, [create]);
      expect(body.results[0]).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    });

    it('runs over GraphQL with the item errors in the results', async () => {
      const a = await seedAccessory(t, 'bulk-4', 'cam');
      const res = await gql(t.url, a.ingest, IngestBatch, {
        items: [
          { op: 'createActivity', accessoryId: a.accessoryId },
          { op: 'updateActivity', accessoryId: a.accessoryId, activityId: 'nope', input: {} },
        ],
      });
      expect(res.errors).toBeUndefined();
      expect(res.data!.ingestBatch[0]).toMatchObject({ ok: true, accessoryId: a.accessoryId });
      expect(res.data!.ingestBatch[1]).toMatchObject({
        ok: false,
        activityId: null,
        error: { code: 'INVALID_ARGUMENT', field: 'activityId' },
      });
    });
  });
}
