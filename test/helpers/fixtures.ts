import { graphql } from '../generated/index.ts';
import { gql } from './client.ts';
import type { TestApp } from './app.ts';

export const UpsertAccount = graphql(`
  mutation UpsertAccount($subject: String!, $retentionDays: Int) {
    upsertAccount(subject: $subject, retentionDays: $retentionDays) {
      accountId
      retentionDays
    }
  }
`);

export const AssociateAccessory = graphql(`
  mutation AssociateAccessory($accountId: ID!, $deviceId: String!, $name: String!) {
    associateAccessory(accountId: $accountId, deviceId: $deviceId, name: $name) {
      id
    }
  }
`);

export const CreateActivity = graphql(`
  mutation CreateActivity($accessoryId: ID!, $input: CreateActivityInput!) {
    createActivity(accessoryId: $accessoryId, input: $input) {
      activityId
      inProgress
    }
  }
`);

export const FinishActivity = graphql(`
  mutation FinishActivity($accessoryId: ID!, $activityId: String!, $endTime: DateTime!) {
    finishActivity(accessoryId: $accessoryId, activityId: $activityId, endTime: $endTime) {
      activityId
      playbackDuration
    }
  }
`);

/** Runs a GraphQL operation that must succeed, and returns its data. */
export async function ok<T, V>(
  t: TestApp,
  token: string,
  document: Parameters<typeof gql<T, V>>[2],
  variables: V,
): Promise<T> {
  const res = await gql(t.url, token, document, variables);
  if (res.errors?.length || !res.data) {
    throw new Error(`GraphQL failed: ${JSON.stringify(res.errors)}`);
  }
  return res.data;
}

/** An account for `subject` with one accessory, through the ingest API. */
export async function seedAccessory(
  t: TestApp,
  subject = 'user-1',
  deviceId = 'camera-1',
): Promise<{ ingest: string; accountId: string; accessoryId: string }> {
  const ingest = await t.token(['ingest']);
  const { upsertAccount } = await ok(t, ingest, UpsertAccount, { subject });
  const { associateAccessory } = await ok(t, ingest, AssociateAccessory, {
    accountId: upsertAccount.accountId,
    deviceId,
    name: `Camera ${deviceId}`,
  });
  return { ingest, accountId: upsertAccount.accountId, accessoryId: associateAccessory.id };
}

/** An account with an accessory per device id (the first made by seedAccessory). */
export async function seedAccessories(
  t: TestApp,
  subject: string,
  deviceIds: readonly [string, ...string[]],
): Promise<{ ingest: string; accountId: string; accessoryIds: string[] }> {
  const [first, ...others] = deviceIds;
  const { ingest, accountId, accessoryId } = await seedAccessory(t, subject, first);
  const accessoryIds = [accessoryId];
  for (const deviceId of others) {
    const { associateAccessory } = await ok(t, ingest, AssociateAccessory, {
      accountId,
      deviceId,
      name: deviceId,
    });
    accessoryIds.push(associateAccessory.id);
  }
  return { ingest, accountId, accessoryIds };
}

/** Creates `count` finished activities, one a minute, ending `endAgoMs` ago; returns their ids. */
export async function seedActivities(
  t: TestApp,
  ingest: string,
  accessoryId: string,
  count: number,
  endAgoMs = 60_000,
): Promise<string[]> {
  const ids: string[] = [];
  const first = Date.now() - endAgoMs - count * 60_000;
  for (let i = 0; i < count; i++) {
    const createdAt = new Date(first + i * 60_000);
    const { createActivity } = await ok(t, ingest, CreateActivity, {
      accessoryId,
      input: { createdAt: createdAt.toISOString(), relevanceLevel: i % 4 },
    });
    await ok(t, ingest, FinishActivity, {
      accessoryId,
      activityId: createActivity.activityId,
      endTime: new Date(createdAt.getTime() + 20_000).toISOString(),
    });
    ids.push(createActivity.activityId);
  }
  return ids;
}
