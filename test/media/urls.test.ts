import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { graphql } from '../generated/index.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/client.ts';
import { CreateActivity, ok, seedAccessory, seedActivities } from '../helpers/fixtures.ts';
import { upload } from './helpers.ts';

const MediaOfTwoPages = graphql(`
  query MediaOfTwoPages($a: ID!, $b: ID!) {
    a: accessory(id: $a) {
      activities(first: 10) {
        edges {
          node {
            activityId
            media {
              image
              mp4
            }
          }
        }
      }
    }
    b: accessory(id: $b) {
      activities(first: 10) {
        edges {
          node {
            activityId
            media {
              image
            }
          }
        }
      }
    }
  }
`);

const UpdateWithMedia = graphql(`
  mutation UpdateWithMedia($accessoryId: ID!, $activityId: String!) {
    updateActivity(
      accessoryId: $accessoryId
      activityId: $activityId
      input: { relevanceLevel: 2 }
    ) {
      activityId
      relevanceLevel
      media {
        image
      }
    }
  }
`);

/** Bytes the ingest takes for a JPG: it checks the first bytes, it does not decode. */
const JPG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 1)]);

/** The statement that finds which media a set of activities has. */
const PRESENCE = 'package_status FROM media_objects';

describe.each(backends)('Activity.media on %s', (backend) => {
  let t: TestApp;
  let ingest: string;
  let reader: string;
  const pages = { a: [] as string[], b: [] as string[] };
  const ids = { a: '', b: '' };

  beforeAll(async () => {
    t = await startApp(backend);
    ({ ingest, accessoryId: ids.a } = await seedAccessory(t, 'urls-user', 'cam-a'));
    ({ accessoryId: ids.b } = await seedAccessory(t, 'urls-user', 'cam-b'));
    reader = await t.token(['activities_basic'], 'urls-user');
    for (const side of ['a', 'b'] as const) {
      pages[side] = await seedActivities(t, ingest, ids[side], 6);
      // Every other activity has a JPG.
      for (const id of pages[side].filter((_, i) => i % 2 === 0)) {
        expect((await upload(t, ingest, ids[side], id, 'image', JPG)).status).toBe(201);
      }
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Runs the operation, counting the media lookups it made. */
  async function query() {
    const spy = vi.spyOn(t.app.services.db.pool, 'query');
    try {
      const data = await ok(t, reader, MediaOfTwoPages, ids);
      const lookups = spy.mock.calls.filter(([q]) =>
        (typeof q === 'string' ? q : (q as { text: string }).text).includes(PRESENCE),
      );
      return { data, lookups: lookups.length };
    } finally {
      spy.mockRestore();
    }
  }

  it('resolves the media of every activity of a page in one query per accessory', async () => {
    const { data, lookups } = await query();
    expect(lookups).toBe(2);
    for (const side of ['a', 'b'] as const) {
      const edges = data[side]!.activities.edges;
      expect(edges).toHaveLength(6);
      for (const { node } of edges) {
        const hasImage = pages[side].indexOf(node.activityId) % 2 === 0;
        if (hasImage) {
          expect(node.media!.image).toMatch(
            new RegExp(`^/api/accessories/${ids[side]}/activities/${node.activityId}/signed/`),
          );
        } else {
          expect(node.media).toBeNull();
        }
      }
    }
  });

  it('looks up again in the next operation (the loader lives for one operation)', async () => {
    const bare = pages.a[1]!;
    expect(
      (await query()).data.a!.activities.edges.find((e) => e.node.activityId === bare)!.node,
    ).toMatchObject({ media: null });
    expect((await upload(t, ingest, ids.a, bare, 'image', JPG)).status).toBe(201);
    const { data, lookups } = await query();
    expect(lookups).toBe(2);
    const node = data.a!.activities.edges.find((e) => e.node.activityId === bare)!.node;
    expect(node.media).toMatchObject({ image: expect.stringMatching(/\/image$/), mp4: null });
  });

  it('needs the reading scope, also on the activity an ingest mutation returns', async () => {
    // The camera pipeline's token: ingest only, changing an activity of urls-user's account.
    const { createActivity } = await ok(t, ingest, CreateActivity, {
      accessoryId: ids.a,
      input: {},
    });
    const withImage = createActivity.activityId;
    expect((await upload(t, ingest, ids.a, withImage, 'image', JPG)).status).toBe(201);
    const variables = { accessoryId: ids.a, activityId: withImage };
    const denied = await gql(t.url, ingest, UpdateWithMedia, variables);
    expect(denied.data?.updateActivity).toMatchObject({ activityId: withImage, media: null });
    expect(denied.errors).toEqual([
      expect.objectContaining({
        path: ['updateActivity', 'media'],
        extensions: {
          code: 'PERMISSION_DENIED',
          details: { scope: 'service:activities_basic' },
        },
      }),
    ]);
    expect(JSON.stringify(denied)).not.toContain('/signed/');
    // The change itself went through.
    expect(denied.data?.updateActivity.relevanceLevel).toBe(2);

    // With the reading scope as well, the URLs are there.
    const both = await t.token(['ingest', 'activities_basic']);
    const allowed = await ok(t, both, UpdateWithMedia, variables);
    expect(allowed.updateActivity.media!.image).toMatch(/\/signed\/.+\/image$/);
  });
});
