/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  mutation UpdateActivity($accessoryId: ID!, $activityId: String!, $input: UpdateActivityInput!) {\n    updateActivity(accessoryId: $accessoryId, activityId: $activityId, input: $input) {\n      activityId\n      relevanceLevel\n      motionZones\n      objectLocations\n    }\n  }\n": typeof types.UpdateActivityDocument,
    "\n  query ActivityPage(\n    $id: ID!\n    $first: Int\n    $after: String\n    $last: Int\n    $before: String\n    $since: String\n    $filter: String\n  ) {\n    accessory(id: $id) {\n      activities(\n        first: $first\n        after: $after\n        last: $last\n        before: $before\n        since: $since\n        filter: $filter\n      ) {\n        edges {\n          cursor\n          node {\n            activityId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n        nextStartActivityId\n      }\n    }\n  }\n": typeof types.ActivityPageDocument,
    "\n  mutation UpsertAccount($subject: String!, $retentionDays: Int) {\n    upsertAccount(subject: $subject, retentionDays: $retentionDays) {\n      accountId\n      retentionDays\n    }\n  }\n": typeof types.UpsertAccountDocument,
    "\n  mutation AssociateAccessory($accountId: ID!, $deviceId: String!, $name: String!) {\n    associateAccessory(accountId: $accountId, deviceId: $deviceId, name: $name) {\n      id\n    }\n  }\n": typeof types.AssociateAccessoryDocument,
    "\n  mutation CreateActivity($accessoryId: ID!, $input: CreateActivityInput!) {\n    createActivity(accessoryId: $accessoryId, input: $input) {\n      activityId\n      inProgress\n    }\n  }\n": typeof types.CreateActivityDocument,
    "\n  mutation FinishActivity($accessoryId: ID!, $activityId: String!, $endTime: DateTime!) {\n    finishActivity(accessoryId: $accessoryId, activityId: $activityId, endTime: $endTime) {\n      activityId\n      playbackDuration\n    }\n  }\n": typeof types.FinishActivityDocument,
};
const documents: Documents = {
    "\n  mutation UpdateActivity($accessoryId: ID!, $activityId: String!, $input: UpdateActivityInput!) {\n    updateActivity(accessoryId: $accessoryId, activityId: $activityId, input: $input) {\n      activityId\n      relevanceLevel\n      motionZones\n      objectLocations\n    }\n  }\n": types.UpdateActivityDocument,
    "\n  query ActivityPage(\n    $id: ID!\n    $first: Int\n    $after: String\n    $last: Int\n    $before: String\n    $since: String\n    $filter: String\n  ) {\n    accessory(id: $id) {\n      activities(\n        first: $first\n        after: $after\n        last: $last\n        before: $before\n        since: $since\n        filter: $filter\n      ) {\n        edges {\n          cursor\n          node {\n            activityId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n        nextStartActivityId\n      }\n    }\n  }\n": types.ActivityPageDocument,
    "\n  mutation UpsertAccount($subject: String!, $retentionDays: Int) {\n    upsertAccount(subject: $subject, retentionDays: $retentionDays) {\n      accountId\n      retentionDays\n    }\n  }\n": types.UpsertAccountDocument,
    "\n  mutation AssociateAccessory($accountId: ID!, $deviceId: String!, $name: String!) {\n    associateAccessory(accountId: $accountId, deviceId: $deviceId, name: $name) {\n      id\n    }\n  }\n": types.AssociateAccessoryDocument,
    "\n  mutation CreateActivity($accessoryId: ID!, $input: CreateActivityInput!) {\n    createActivity(accessoryId: $accessoryId, input: $input) {\n      activityId\n      inProgress\n    }\n  }\n": types.CreateActivityDocument,
    "\n  mutation FinishActivity($accessoryId: ID!, $activityId: String!, $endTime: DateTime!) {\n    finishActivity(accessoryId: $accessoryId, activityId: $activityId, endTime: $endTime) {\n      activityId\n      playbackDuration\n    }\n  }\n": types.FinishActivityDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateActivity($accessoryId: ID!, $activityId: String!, $input: UpdateActivityInput!) {\n    updateActivity(accessoryId: $accessoryId, activityId: $activityId, input: $input) {\n      activityId\n      relevanceLevel\n      motionZones\n      objectLocations\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateActivity($accessoryId: ID!, $activityId: String!, $input: UpdateActivityInput!) {\n    updateActivity(accessoryId: $accessoryId, activityId: $activityId, input: $input) {\n      activityId\n      relevanceLevel\n      motionZones\n      objectLocations\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ActivityPage(\n    $id: ID!\n    $first: Int\n    $after: String\n    $last: Int\n    $before: String\n    $since: String\n    $filter: String\n  ) {\n    accessory(id: $id) {\n      activities(\n        first: $first\n        after: $after\n        last: $last\n        before: $before\n        since: $since\n        filter: $filter\n      ) {\n        edges {\n          cursor\n          node {\n            activityId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n        nextStartActivityId\n      }\n    }\n  }\n"): (typeof documents)["\n  query ActivityPage(\n    $id: ID!\n    $first: Int\n    $after: String\n    $last: Int\n    $before: String\n    $since: String\n    $filter: String\n  ) {\n    accessory(id: $id) {\n      activities(\n        first: $first\n        after: $after\n        last: $last\n        before: $before\n        since: $since\n        filter: $filter\n      ) {\n        edges {\n          cursor\n          node {\n            activityId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n        nextStartActivityId\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpsertAccount($subject: String!, $retentionDays: Int) {\n    upsertAccount(subject: $subject, retentionDays: $retentionDays) {\n      accountId\n      retentionDays\n    }\n  }\n"): (typeof documents)["\n  mutation UpsertAccount($subject: String!, $retentionDays: Int) {\n    upsertAccount(subject: $subject, retentionDays: $retentionDays) {\n      accountId\n      retentionDays\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AssociateAccessory($accountId: ID!, $deviceId: String!, $name: String!) {\n    associateAccessory(accountId: $accountId, deviceId: $deviceId, name: $name) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation AssociateAccessory($accountId: ID!, $deviceId: String!, $name: String!) {\n    associateAccessory(accountId: $accountId, deviceId: $deviceId, name: $name) {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateActivity($accessoryId: ID!, $input: CreateActivityInput!) {\n    createActivity(accessoryId: $accessoryId, input: $input) {\n      activityId\n      inProgress\n    }\n  }\n"): (typeof documents)["\n  mutation CreateActivity($accessoryId: ID!, $input: CreateActivityInput!) {\n    createActivity(accessoryId: $accessoryId, input: $input) {\n      activityId\n      inProgress\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation FinishActivity($accessoryId: ID!, $activityId: String!, $endTime: DateTime!) {\n    finishActivity(accessoryId: $accessoryId, activityId: $activityId, endTime: $endTime) {\n      activityId\n      playbackDuration\n    }\n  }\n"): (typeof documents)["\n  mutation FinishActivity($accessoryId: ID!, $activityId: String!, $endTime: DateTime!) {\n    finishActivity(accessoryId: $accessoryId, activityId: $activityId, endTime: $endTime) {\n      activityId\n      playbackDuration\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;