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
    "\n  mutation IngestBatch($items: [JSON!]!) {\n    ingestBatch(items: $items) {\n      ok\n      accessoryId\n      activityId\n      error {\n        code\n        message\n        field\n      }\n    }\n  }\n": typeof types.IngestBatchDocument,
    "\n  query Counts(\n    $from: DateTime!\n    $to: DateTime!\n    $bucket: CountBucket!\n    $groupBy: [CountGroup!]\n    $where: ActivityWhere\n    $timeZone: String\n  ) {\n    viewer {\n      activityCounts(\n        from: $from\n        to: $to\n        bucket: $bucket\n        groupBy: $groupBy\n        where: $where\n        timeZone: $timeZone\n      ) {\n        buckets {\n          start\n          count\n          accessoryId\n          relevanceLevel\n          zoneId\n        }\n      }\n    }\n  }\n": typeof types.CountsDocument,
    "\n  mutation UpdateActivity($accessoryId: ID!, $activityId: String!, $input: UpdateActivityInput!) {\n    updateActivity(accessoryId: $accessoryId, activityId: $activityId, input: $input) {\n      activityId\n      relevanceLevel\n      motionZones\n      objectLocations\n    }\n  }\n": typeof types.UpdateActivityDocument,
    "\n  query ActivityPage(\n    $id: ID!\n    $first: Int\n    $after: String\n    $last: Int\n    $before: String\n    $since: String\n    $filter: String\n  ) {\n    accessory(id: $id) {\n      activities(\n        first: $first\n        after: $after\n        last: $last\n        before: $before\n        since: $since\n        filter: $filter\n      ) {\n        edges {\n          cursor\n          node {\n            activityId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n        nextStartActivityId\n      }\n    }\n  }\n": typeof types.ActivityPageDocument,
    "\n  mutation SetRetention($accountId: ID!, $retentionDays: Int!) {\n    setRetention(accountId: $accountId, retentionDays: $retentionDays) {\n      retentionDays\n    }\n  }\n": typeof types.SetRetentionDocument,
    "\n  query Timeline(\n    $first: Int\n    $after: String\n    $last: Int\n    $before: String\n    $filter: String\n    $where: ActivityWhere\n    $accessoryIds: [ID!]\n  ) {\n    viewer {\n      activities(\n        first: $first\n        after: $after\n        last: $last\n        before: $before\n        filter: $filter\n        where: $where\n        accessoryIds: $accessoryIds\n      ) {\n        edges {\n          cursor\n          node {\n            accessoryId\n            activityId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n      }\n    }\n  }\n": typeof types.TimelineDocument,
    "\n  query TimelineLocations($first: Int, $id: ID!) {\n    viewer {\n      activities(first: $first) {\n        edges {\n          node {\n            accessoryId\n            activityId\n            ...Where\n          }\n        }\n      }\n    }\n    accessory(id: $id) {\n      activities(first: $first) {\n        edges {\n          node {\n            activityId\n            ...Cells\n          }\n        }\n      }\n    }\n  }\n  fragment Where on Activity {\n    ... on Activity {\n      zones: motionZones\n    }\n    ...Cells\n  }\n  fragment Cells on Activity {\n    objectLocations\n  }\n": typeof types.TimelineLocationsDocument,
    "\n  subscription FilteredAccountEvents($accountId: ID!, $filter: String) {\n    accountEvents(accountId: $accountId, filter: $filter) {\n      eventId\n      accessoryId\n      eventType\n      eventData\n    }\n  }\n": typeof types.FilteredAccountEventsDocument,
    "\n  subscription FilteredAccessoryEvents($accessoryId: ID!, $filter: String, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, filter: $filter, after: $after) {\n      eventId\n      eventType\n      eventData\n    }\n  }\n": typeof types.FilteredAccessoryEventsDocument,
    "\n  subscription AccessoryEvents($accessoryId: ID!, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, after: $after) {\n      eventId\n      accountId\n      accessoryId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n": typeof types.AccessoryEventsDocument,
    "\n  subscription AccountEvents($accountId: ID!, $eventTypes: [EventType!], $after: String) {\n    accountEvents(accountId: $accountId, eventTypes: $eventTypes, after: $after) {\n      eventId\n      accountId\n      accessoryId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n": typeof types.AccountEventsDocument,
    "\n  query ClientTimeline($id: ID!, $first: Int, $after: String) {\n    accessory(id: $id) {\n      id\n      name\n      activities(first: $first, after: $after) {\n        edges {\n          cursor\n          node {\n            id\n            activityId\n            relevanceLevel\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": typeof types.ClientTimelineDocument,
    "\n  query ClientActivityNode($id: ID!) {\n    node(id: $id) {\n      id\n      ... on Activity {\n        activityId\n        relevanceLevel\n      }\n    }\n  }\n": typeof types.ClientActivityNodeDocument,
    "\n  fragment LiveViewer on Viewer {\n    activities(first: 5) {\n      edges {\n        node {\n          activityId\n          accessoryId\n          relevanceLevel\n          inProgress\n        }\n      }\n    }\n    activityCounts(from: $from, to: $to, bucket: DAY) {\n      buckets {\n        count\n      }\n    }\n  }\n": typeof types.LiveViewerFragmentDoc,
    "\n  query LiveTimeline($from: DateTime!, $to: DateTime!) @live {\n    viewer {\n      ...LiveViewer\n    }\n  }\n": typeof types.LiveTimelineDocument,
    "\n  query LiveTimelinePatches($from: DateTime!, $to: DateTime!) @live(patch: true) {\n    viewer {\n      ...LiveViewer\n    }\n  }\n": typeof types.LiveTimelinePatchesDocument,
    "\n  query TimelineOnce($from: DateTime!, $to: DateTime!) {\n    viewer {\n      ...LiveViewer\n    }\n  }\n": typeof types.TimelineOnceDocument,
    "\n  query ActivityNodeIds($id: ID!) {\n    accessory(id: $id) {\n      id\n      activities(first: 10) {\n        edges {\n          node {\n            id\n            activityId\n            accessoryId\n          }\n        }\n      }\n    }\n  }\n": typeof types.ActivityNodeIdsDocument,
    "\n  query Nodes($ids: [ID!]!) {\n    nodes(ids: $ids) {\n      __typename\n      id\n      ... on Accessory {\n        name\n      }\n      ... on Activity {\n        activityId\n        accessoryId\n      }\n      ... on NotificationDelivery {\n        webhookId\n        kind\n      }\n    }\n  }\n": typeof types.NodesDocument,
    "\n  query NodeById($id: ID!) {\n    node(id: $id) {\n      __typename\n      id\n    }\n  }\n": typeof types.NodeByIdDocument,
    "\n  query PersistedFirstPage($id: ID!) {\n    accessory(id: $id) {\n      activities(first: 3) {\n        edges {\n          node {\n            activityId\n          }\n        }\n      }\n    }\n  }\n": typeof types.PersistedFirstPageDocument,
    "\n  query ScopedPage($id: ID!) {\n    accessory(id: $id) {\n      activities(first: 5) {\n        edges {\n          node {\n            activityId\n          }\n        }\n      }\n    }\n  }\n": typeof types.ScopedPageDocument,
    "\n  query LiveScopedTimeline @live {\n    viewer {\n      activities(first: 5) {\n        edges {\n          node {\n            activityId\n          }\n        }\n      }\n    }\n  }\n": typeof types.LiveScopedTimelineDocument,
    "\n  mutation UpsertAccount($subject: String!, $retentionDays: Int) {\n    upsertAccount(subject: $subject, retentionDays: $retentionDays) {\n      accountId\n      retentionDays\n    }\n  }\n": typeof types.UpsertAccountDocument,
    "\n  mutation AssociateAccessory($accountId: ID!, $deviceId: String!, $name: String!) {\n    associateAccessory(accountId: $accountId, deviceId: $deviceId, name: $name) {\n      id\n    }\n  }\n": typeof types.AssociateAccessoryDocument,
    "\n  mutation CreateActivity($accessoryId: ID!, $input: CreateActivityInput!) {\n    createActivity(accessoryId: $accessoryId, input: $input) {\n      activityId\n      inProgress\n    }\n  }\n": typeof types.CreateActivityDocument,
    "\n  mutation FinishActivity($accessoryId: ID!, $activityId: String!, $endTime: DateTime!) {\n    finishActivity(accessoryId: $accessoryId, activityId: $activityId, endTime: $endTime) {\n      activityId\n      playbackDuration\n    }\n  }\n": typeof types.FinishActivityDocument,
    "\n  query ExportUrl($accessoryId: ID!, $start: DateTime!, $end: DateTime!) {\n    accessory(id: $accessoryId) {\n      exportUrl(start: $start, end: $end)\n    }\n  }\n": typeof types.ExportUrlDocument,
    "\n  mutation ExportSetRetention($accountId: ID!, $retentionDays: Int!) {\n    setRetention(accountId: $accountId, retentionDays: $retentionDays) {\n      retentionDays\n    }\n  }\n": typeof types.ExportSetRetentionDocument,
    "\n  query MediaOfActivity($accessoryId: ID!, $activityId: String!) {\n    accessory(id: $accessoryId) {\n      activity(activityId: $activityId) {\n        activityId\n        media {\n          image\n          mp4\n          mpd\n          hls\n        }\n      }\n      activities(first: 5) {\n        edges {\n          node {\n            activityId\n            media {\n              mp4\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.MediaOfActivityDocument,
    "\n  mutation MediaSetRetention($accountId: ID!, $retentionDays: Int!) {\n    setRetention(accountId: $accountId, retentionDays: $retentionDays) {\n      retentionDays\n    }\n  }\n": typeof types.MediaSetRetentionDocument,
    "\n  mutation MediaDeleteAccount($accountId: ID!) {\n    deleteAccount(accountId: $accountId)\n  }\n": typeof types.MediaDeleteAccountDocument,
    "\n  query MediaOfTwoPages($a: ID!, $b: ID!) {\n    a: accessory(id: $a) {\n      activities(first: 10) {\n        edges {\n          node {\n            activityId\n            media {\n              image\n              mp4\n            }\n          }\n        }\n      }\n    }\n    b: accessory(id: $b) {\n      activities(first: 10) {\n        edges {\n          node {\n            activityId\n            media {\n              image\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.MediaOfTwoPagesDocument,
    "\n  mutation UpdateWithMedia($accessoryId: ID!, $activityId: String!) {\n    updateActivity(\n      accessoryId: $accessoryId\n      activityId: $activityId\n      input: { relevanceLevel: 2 }\n    ) {\n      activityId\n      relevanceLevel\n      media {\n        image\n      }\n    }\n  }\n": typeof types.UpdateWithMediaDocument,
    "\n  mutation RegisterDestination($input: RegisterNotificationsInput!) {\n    registerNotifications(input: $input) {\n      url\n      kind\n      topic\n      exchange\n      hasCredentials\n    }\n  }\n": typeof types.RegisterDestinationDocument,
    "\n  mutation ReplayRange($accountId: ID!, $from: DateTime!, $to: DateTime!, $onlyFailed: Boolean) {\n    replayNotifications(accountId: $accountId, from: $from, to: $to, onlyFailed: $onlyFailed) {\n      queued\n    }\n  }\n": typeof types.ReplayRangeDocument,
    "\n  query Ed25519Registration($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      signing\n      publicKey\n    }\n  }\n": typeof types.Ed25519RegistrationDocument,
    "\n  query HealthOfRegistration($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      maxPerSecond\n      state\n      failingSince\n      disabledAt\n      disabledReason\n    }\n  }\n": typeof types.HealthOfRegistrationDocument,
    "\n  mutation EnableNotifications($accountId: ID!) {\n    enableNotifications(accountId: $accountId) {\n      state\n      failingSince\n      disabledReason\n    }\n  }\n": typeof types.EnableNotificationsDocument,
    "\n  subscription RegistrationEvents($accountId: ID!) {\n    accountEvents(accountId: $accountId, eventTypes: [receiver_disabled, receiver_enabled]) {\n      eventId\n      accountId\n      accessoryId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n": typeof types.RegistrationEventsDocument,
    "\n  mutation RegisterNotifications($input: RegisterNotificationsInput!) {\n    registerNotifications(input: $input) {\n      accountId\n      clientId\n      url\n      eventTypes\n      userData\n      filter\n      createdAt\n      updatedAt\n    }\n  }\n": typeof types.RegisterNotificationsDocument,
    "\n  mutation UnregisterNotifications($accountId: ID!) {\n    unregisterNotifications(accountId: $accountId)\n  }\n": typeof types.UnregisterNotificationsDocument,
    "\n  query NotificationRegistration($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      accountId\n      clientId\n      url\n      eventTypes\n      userData\n      filter\n    }\n  }\n": typeof types.NotificationRegistrationDocument,
    "\n  query NotificationDeliveries($accountId: ID!, $first: Int, $after: String) {\n    notificationDeliveries(accountId: $accountId, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          kind\n          eventId\n          webhookId\n          eventType\n          eventData\n          status\n          url\n          attemptCount\n          nextAttemptAt\n          createdAt\n          finishedAt\n          attempts {\n            attempt\n            startedAt\n            durationMs\n            outcome\n            status\n            error\n            errorMessage\n            response\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.NotificationDeliveriesDocument,
    "\n  mutation SendTestNotification($accountId: ID!) {\n    sendTestNotification(accountId: $accountId) {\n      id\n      kind\n      webhookId\n      eventType\n      status\n    }\n  }\n": typeof types.SendTestNotificationDocument,
    "\n  mutation RedeliverNotification($deliveryId: ID!) {\n    redeliverNotification(deliveryId: $deliveryId) {\n      id\n      status\n      attemptCount\n    }\n  }\n": typeof types.RedeliverNotificationDocument,
    "\n  mutation ReportMotion(\n    $accessoryId: ID!\n    $state: MotionState!\n    $at: DateTime\n    $motionZones: [String!]\n  ) {\n    reportMotion(accessoryId: $accessoryId, state: $state, at: $at, motionZones: $motionZones) {\n      eventId\n      eventType\n      accessoryId\n      motionZones\n      timestamp\n    }\n  }\n": typeof types.ReportMotionDocument,
    "\n  mutation UpdateActivityForNotifications(\n    $accessoryId: ID!\n    $activityId: String!\n    $input: UpdateActivityInput!\n  ) {\n    updateActivity(accessoryId: $accessoryId, activityId: $activityId, input: $input) {\n      activityId\n      relevanceLevel\n    }\n  }\n": typeof types.UpdateActivityForNotificationsDocument,
    "\n  mutation DeleteAccountForNotifications($accountId: ID!) {\n    deleteAccount(accountId: $accountId)\n  }\n": typeof types.DeleteAccountForNotificationsDocument,
    "\n  mutation ReplayNotifications(\n    $accountId: ID!\n    $from: DateTime!\n    $to: DateTime!\n    $onlyFailed: Boolean\n  ) {\n    replayNotifications(accountId: $accountId, from: $from, to: $to, onlyFailed: $onlyFailed) {\n      queued\n      onlyFailed\n    }\n  }\n": typeof types.ReplayNotificationsDocument,
    "\n  query ReplayLog($accountId: ID!) {\n    notificationDeliveries(accountId: $accountId, first: 50) {\n      edges {\n        node {\n          id\n          webhookId\n          status\n          replayOf\n          createdAt\n        }\n      }\n    }\n  }\n": typeof types.ReplayLogDocument,
    "\n  mutation RotateNotificationKey($accountId: ID!, $authKey: String, $overlapSeconds: Int) {\n    rotateNotificationKey(\n      accountId: $accountId\n      authKey: $authKey\n      overlapSeconds: $overlapSeconds\n    ) {\n      authKey\n      registration {\n        previousKeyUntil\n      }\n    }\n  }\n": typeof types.RotateNotificationKeyDocument,
    "\n  mutation RetirePreviousNotificationKey($accountId: ID!) {\n    retirePreviousNotificationKey(accountId: $accountId) {\n      previousKeyUntil\n    }\n  }\n": typeof types.RetirePreviousNotificationKeyDocument,
    "\n  mutation PoisonSendTest($accountId: ID!) {\n    sendTestNotification(accountId: $accountId) {\n      webhookId\n    }\n  }\n": typeof types.PoisonSendTestDocument,
    "\n  fragment ZonesFields on AccessoryZones {\n    accessoryId\n    lastModified\n    zones {\n      id\n      name\n      color\n      vertices {\n        x\n        y\n      }\n    }\n  }\n": typeof types.ZonesFieldsFragmentDoc,
    "\n  mutation SaveZones($accessoryId: ID!, $zones: [ZoneInput!]!) {\n    saveZones(accessoryId: $accessoryId, zones: $zones) {\n      ...ZonesFields\n    }\n  }\n": typeof types.SaveZonesDocument,
    "\n  query AccessoryZones($id: ID!) {\n    accessory(id: $id) {\n      zones {\n        ...ZonesFields\n      }\n    }\n  }\n": typeof types.AccessoryZonesDocument,
    "\n  query FilteredPage(\n    $id: ID!\n    $first: Int\n    $after: String\n    $filter: String\n    $where: ActivityWhere\n  ) {\n    accessory(id: $id) {\n      activities(first: $first, after: $after, filter: $filter, where: $where) {\n        edges {\n          node {\n            activityId\n          }\n        }\n        nextStartActivityId\n      }\n    }\n  }\n": typeof types.FilteredPageDocument,
    "\n  subscription ZoneEvents($accessoryId: ID!, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, after: $after) {\n      eventId\n      accessoryId\n      eventType\n      eventData\n    }\n  }\n": typeof types.ZoneEventsDocument,
};
const documents: Documents = {
    "\n  mutation IngestBatch($items: [JSON!]!) {\n    ingestBatch(items: $items) {\n      ok\n      accessoryId\n      activityId\n      error {\n        code\n        message\n        field\n      }\n    }\n  }\n": types.IngestBatchDocument,
    "\n  query Counts(\n    $from: DateTime!\n    $to: DateTime!\n    $bucket: CountBucket!\n    $groupBy: [CountGroup!]\n    $where: ActivityWhere\n    $timeZone: String\n  ) {\n    viewer {\n      activityCounts(\n        from: $from\n        to: $to\n        bucket: $bucket\n        groupBy: $groupBy\n        where: $where\n        timeZone: $timeZone\n      ) {\n        buckets {\n          start\n          count\n          accessoryId\n          relevanceLevel\n          zoneId\n        }\n      }\n    }\n  }\n": types.CountsDocument,
    "\n  mutation UpdateActivity($accessoryId: ID!, $activityId: String!, $input: UpdateActivityInput!) {\n    updateActivity(accessoryId: $accessoryId, activityId: $activityId, input: $input) {\n      activityId\n      relevanceLevel\n      motionZones\n      objectLocations\n    }\n  }\n": types.UpdateActivityDocument,
    "\n  query ActivityPage(\n    $id: ID!\n    $first: Int\n    $after: String\n    $last: Int\n    $before: String\n    $since: String\n    $filter: String\n  ) {\n    accessory(id: $id) {\n      activities(\n        first: $first\n        after: $after\n        last: $last\n        before: $before\n        since: $since\n        filter: $filter\n      ) {\n        edges {\n          cursor\n          node {\n            activityId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n        nextStartActivityId\n      }\n    }\n  }\n": types.ActivityPageDocument,
    "\n  mutation SetRetention($accountId: ID!, $retentionDays: Int!) {\n    setRetention(accountId: $accountId, retentionDays: $retentionDays) {\n      retentionDays\n    }\n  }\n": types.SetRetentionDocument,
    "\n  query Timeline(\n    $first: Int\n    $after: String\n    $last: Int\n    $before: String\n    $filter: String\n    $where: ActivityWhere\n    $accessoryIds: [ID!]\n  ) {\n    viewer {\n      activities(\n        first: $first\n        after: $after\n        last: $last\n        before: $before\n        filter: $filter\n        where: $where\n        accessoryIds: $accessoryIds\n      ) {\n        edges {\n          cursor\n          node {\n            accessoryId\n            activityId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n      }\n    }\n  }\n": types.TimelineDocument,
    "\n  query TimelineLocations($first: Int, $id: ID!) {\n    viewer {\n      activities(first: $first) {\n        edges {\n          node {\n            accessoryId\n            activityId\n            ...Where\n          }\n        }\n      }\n    }\n    accessory(id: $id) {\n      activities(first: $first) {\n        edges {\n          node {\n            activityId\n            ...Cells\n          }\n        }\n      }\n    }\n  }\n  fragment Where on Activity {\n    ... on Activity {\n      zones: motionZones\n    }\n    ...Cells\n  }\n  fragment Cells on Activity {\n    objectLocations\n  }\n": types.TimelineLocationsDocument,
    "\n  subscription FilteredAccountEvents($accountId: ID!, $filter: String) {\n    accountEvents(accountId: $accountId, filter: $filter) {\n      eventId\n      accessoryId\n      eventType\n      eventData\n    }\n  }\n": types.FilteredAccountEventsDocument,
    "\n  subscription FilteredAccessoryEvents($accessoryId: ID!, $filter: String, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, filter: $filter, after: $after) {\n      eventId\n      eventType\n      eventData\n    }\n  }\n": types.FilteredAccessoryEventsDocument,
    "\n  subscription AccessoryEvents($accessoryId: ID!, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, after: $after) {\n      eventId\n      accountId\n      accessoryId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n": types.AccessoryEventsDocument,
    "\n  subscription AccountEvents($accountId: ID!, $eventTypes: [EventType!], $after: String) {\n    accountEvents(accountId: $accountId, eventTypes: $eventTypes, after: $after) {\n      eventId\n      accountId\n      accessoryId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n": types.AccountEventsDocument,
    "\n  query ClientTimeline($id: ID!, $first: Int, $after: String) {\n    accessory(id: $id) {\n      id\n      name\n      activities(first: $first, after: $after) {\n        edges {\n          cursor\n          node {\n            id\n            activityId\n            relevanceLevel\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": types.ClientTimelineDocument,
    "\n  query ClientActivityNode($id: ID!) {\n    node(id: $id) {\n      id\n      ... on Activity {\n        activityId\n        relevanceLevel\n      }\n    }\n  }\n": types.ClientActivityNodeDocument,
    "\n  fragment LiveViewer on Viewer {\n    activities(first: 5) {\n      edges {\n        node {\n          activityId\n          accessoryId\n          relevanceLevel\n          inProgress\n        }\n      }\n    }\n    activityCounts(from: $from, to: $to, bucket: DAY) {\n      buckets {\n        count\n      }\n    }\n  }\n": types.LiveViewerFragmentDoc,
    "\n  query LiveTimeline($from: DateTime!, $to: DateTime!) @live {\n    viewer {\n      ...LiveViewer\n    }\n  }\n": types.LiveTimelineDocument,
    "\n  query LiveTimelinePatches($from: DateTime!, $to: DateTime!) @live(patch: true) {\n    viewer {\n      ...LiveViewer\n    }\n  }\n": types.LiveTimelinePatchesDocument,
    "\n  query TimelineOnce($from: DateTime!, $to: DateTime!) {\n    viewer {\n      ...LiveViewer\n    }\n  }\n": types.TimelineOnceDocument,
    "\n  query ActivityNodeIds($id: ID!) {\n    accessory(id: $id) {\n      id\n      activities(first: 10) {\n        edges {\n          node {\n            id\n            activityId\n            accessoryId\n          }\n        }\n      }\n    }\n  }\n": types.ActivityNodeIdsDocument,
    "\n  query Nodes($ids: [ID!]!) {\n    nodes(ids: $ids) {\n      __typename\n      id\n      ... on Accessory {\n        name\n      }\n      ... on Activity {\n        activityId\n        accessoryId\n      }\n      ... on NotificationDelivery {\n        webhookId\n        kind\n      }\n    }\n  }\n": types.NodesDocument,
    "\n  query NodeById($id: ID!) {\n    node(id: $id) {\n      __typename\n      id\n    }\n  }\n": types.NodeByIdDocument,
    "\n  query PersistedFirstPage($id: ID!) {\n    accessory(id: $id) {\n      activities(first: 3) {\n        edges {\n          node {\n            activityId\n          }\n        }\n      }\n    }\n  }\n": types.PersistedFirstPageDocument,
    "\n  query ScopedPage($id: ID!) {\n    accessory(id: $id) {\n      activities(first: 5) {\n        edges {\n          node {\n            activityId\n          }\n        }\n      }\n    }\n  }\n": types.ScopedPageDocument,
    "\n  query LiveScopedTimeline @live {\n    viewer {\n      activities(first: 5) {\n        edges {\n          node {\n            activityId\n          }\n        }\n      }\n    }\n  }\n": types.LiveScopedTimelineDocument,
    "\n  mutation UpsertAccount($subject: String!, $retentionDays: Int) {\n    upsertAccount(subject: $subject, retentionDays: $retentionDays) {\n      accountId\n      retentionDays\n    }\n  }\n": types.UpsertAccountDocument,
    "\n  mutation AssociateAccessory($accountId: ID!, $deviceId: String!, $name: String!) {\n    associateAccessory(accountId: $accountId, deviceId: $deviceId, name: $name) {\n      id\n    }\n  }\n": types.AssociateAccessoryDocument,
    "\n  mutation CreateActivity($accessoryId: ID!, $input: CreateActivityInput!) {\n    createActivity(accessoryId: $accessoryId, input: $input) {\n      activityId\n      inProgress\n    }\n  }\n": types.CreateActivityDocument,
    "\n  mutation FinishActivity($accessoryId: ID!, $activityId: String!, $endTime: DateTime!) {\n    finishActivity(accessoryId: $accessoryId, activityId: $activityId, endTime: $endTime) {\n      activityId\n      playbackDuration\n    }\n  }\n": types.FinishActivityDocument,
    "\n  query ExportUrl($accessoryId: ID!, $start: DateTime!, $end: DateTime!) {\n    accessory(id: $accessoryId) {\n      exportUrl(start: $start, end: $end)\n    }\n  }\n": types.ExportUrlDocument,
    "\n  mutation ExportSetRetention($accountId: ID!, $retentionDays: Int!) {\n    setRetention(accountId: $accountId, retentionDays: $retentionDays) {\n      retentionDays\n    }\n  }\n": types.ExportSetRetentionDocument,
    "\n  query MediaOfActivity($accessoryId: ID!, $activityId: String!) {\n    accessory(id: $accessoryId) {\n      activity(activityId: $activityId) {\n        activityId\n        media {\n          image\n          mp4\n          mpd\n          hls\n        }\n      }\n      activities(first: 5) {\n        edges {\n          node {\n            activityId\n            media {\n              mp4\n            }\n          }\n        }\n      }\n    }\n  }\n": types.MediaOfActivityDocument,
    "\n  mutation MediaSetRetention($accountId: ID!, $retentionDays: Int!) {\n    setRetention(accountId: $accountId, retentionDays: $retentionDays) {\n      retentionDays\n    }\n  }\n": types.MediaSetRetentionDocument,
    "\n  mutation MediaDeleteAccount($accountId: ID!) {\n    deleteAccount(accountId: $accountId)\n  }\n": types.MediaDeleteAccountDocument,
    "\n  query MediaOfTwoPages($a: ID!, $b: ID!) {\n    a: accessory(id: $a) {\n      activities(first: 10) {\n        edges {\n          node {\n            activityId\n            media {\n              image\n              mp4\n            }\n          }\n        }\n      }\n    }\n    b: accessory(id: $b) {\n      activities(first: 10) {\n        edges {\n          node {\n            activityId\n            media {\n              image\n            }\n          }\n        }\n      }\n    }\n  }\n": types.MediaOfTwoPagesDocument,
    "\n  mutation UpdateWithMedia($accessoryId: ID!, $activityId: String!) {\n    updateActivity(\n      accessoryId: $accessoryId\n      activityId: $activityId\n      input: { relevanceLevel: 2 }\n    ) {\n      activityId\n      relevanceLevel\n      media {\n        image\n      }\n    }\n  }\n": types.UpdateWithMediaDocument,
    "\n  mutation RegisterDestination($input: RegisterNotificationsInput!) {\n    registerNotifications(input: $input) {\n      url\n      kind\n      topic\n      exchange\n      hasCredentials\n    }\n  }\n": types.RegisterDestinationDocument,
    "\n  mutation ReplayRange($accountId: ID!, $from: DateTime!, $to: DateTime!, $onlyFailed: Boolean) {\n    replayNotifications(accountId: $accountId, from: $from, to: $to, onlyFailed: $onlyFailed) {\n      queued\n    }\n  }\n": types.ReplayRangeDocument,
    "\n  query Ed25519Registration($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      signing\n      publicKey\n    }\n  }\n": types.Ed25519RegistrationDocument,
    "\n  query HealthOfRegistration($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      maxPerSecond\n      state\n      failingSince\n      disabledAt\n      disabledReason\n    }\n  }\n": types.HealthOfRegistrationDocument,
    "\n  mutation EnableNotifications($accountId: ID!) {\n    enableNotifications(accountId: $accountId) {\n      state\n      failingSince\n      disabledReason\n    }\n  }\n": types.EnableNotificationsDocument,
    "\n  subscription RegistrationEvents($accountId: ID!) {\n    accountEvents(accountId: $accountId, eventTypes: [receiver_disabled, receiver_enabled]) {\n      eventId\n      accountId\n      accessoryId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n": types.RegistrationEventsDocument,
    "\n  mutation RegisterNotifications($input: RegisterNotificationsInput!) {\n    registerNotifications(input: $input) {\n      accountId\n      clientId\n      url\n      eventTypes\n      userData\n      filter\n      createdAt\n      updatedAt\n    }\n  }\n": types.RegisterNotificationsDocument,
    "\n  mutation UnregisterNotifications($accountId: ID!) {\n    unregisterNotifications(accountId: $accountId)\n  }\n": types.UnregisterNotificationsDocument,
    "\n  query NotificationRegistration($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      accountId\n      clientId\n      url\n      eventTypes\n      userData\n      filter\n    }\n  }\n": types.NotificationRegistrationDocument,
    "\n  query NotificationDeliveries($accountId: ID!, $first: Int, $after: String) {\n    notificationDeliveries(accountId: $accountId, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          kind\n          eventId\n          webhookId\n          eventType\n          eventData\n          status\n          url\n          attemptCount\n          nextAttemptAt\n          createdAt\n          finishedAt\n          attempts {\n            attempt\n            startedAt\n            durationMs\n            outcome\n            status\n            error\n            errorMessage\n            response\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.NotificationDeliveriesDocument,
    "\n  mutation SendTestNotification($accountId: ID!) {\n    sendTestNotification(accountId: $accountId) {\n      id\n      kind\n      webhookId\n      eventType\n      status\n    }\n  }\n": types.SendTestNotificationDocument,
    "\n  mutation RedeliverNotification($deliveryId: ID!) {\n    redeliverNotification(deliveryId: $deliveryId) {\n      id\n      status\n      attemptCount\n    }\n  }\n": types.RedeliverNotificationDocument,
    "\n  mutation ReportMotion(\n    $accessoryId: ID!\n    $state: MotionState!\n    $at: DateTime\n    $motionZones: [String!]\n  ) {\n    reportMotion(accessoryId: $accessoryId, state: $state, at: $at, motionZones: $motionZones) {\n      eventId\n      eventType\n      accessoryId\n      motionZones\n      timestamp\n    }\n  }\n": types.ReportMotionDocument,
    "\n  mutation UpdateActivityForNotifications(\n    $accessoryId: ID!\n    $activityId: String!\n    $input: UpdateActivityInput!\n  ) {\n    updateActivity(accessoryId: $accessoryId, activityId: $activityId, input: $input) {\n      activityId\n      relevanceLevel\n    }\n  }\n": types.UpdateActivityForNotificationsDocument,
    "\n  mutation DeleteAccountForNotifications($accountId: ID!) {\n    deleteAccount(accountId: $accountId)\n  }\n": types.DeleteAccountForNotificationsDocument,
    "\n  mutation ReplayNotifications(\n    $accountId: ID!\n    $from: DateTime!\n    $to: DateTime!\n    $onlyFailed: Boolean\n  ) {\n    replayNotifications(accountId: $accountId, from: $from, to: $to, onlyFailed: $onlyFailed) {\n      queued\n      onlyFailed\n    }\n  }\n": types.ReplayNotificationsDocument,
    "\n  query ReplayLog($accountId: ID!) {\n    notificationDeliveries(accountId: $accountId, first: 50) {\n      edges {\n        node {\n          id\n          webhookId\n          status\n          replayOf\n          createdAt\n        }\n      }\n    }\n  }\n": types.ReplayLogDocument,
    "\n  mutation RotateNotificationKey($accountId: ID!, $authKey: String, $overlapSeconds: Int) {\n    rotateNotificationKey(\n      accountId: $accountId\n      authKey: $authKey\n      overlapSeconds: $overlapSeconds\n    ) {\n      authKey\n      registration {\n        previousKeyUntil\n      }\n    }\n  }\n": types.RotateNotificationKeyDocument,
    "\n  mutation RetirePreviousNotificationKey($accountId: ID!) {\n    retirePreviousNotificationKey(accountId: $accountId) {\n      previousKeyUntil\n    }\n  }\n": types.RetirePreviousNotificationKeyDocument,
    "\n  mutation PoisonSendTest($accountId: ID!) {\n    sendTestNotification(accountId: $accountId) {\n      webhookId\n    }\n  }\n": types.PoisonSendTestDocument,
    "\n  fragment ZonesFields on AccessoryZones {\n    accessoryId\n    lastModified\n    zones {\n      id\n      name\n      color\n      vertices {\n        x\n        y\n      }\n    }\n  }\n": types.ZonesFieldsFragmentDoc,
    "\n  mutation SaveZones($accessoryId: ID!, $zones: [ZoneInput!]!) {\n    saveZones(accessoryId: $accessoryId, zones: $zones) {\n      ...ZonesFields\n    }\n  }\n": types.SaveZonesDocument,
    "\n  query AccessoryZones($id: ID!) {\n    accessory(id: $id) {\n      zones {\n        ...ZonesFields\n      }\n    }\n  }\n": types.AccessoryZonesDocument,
    "\n  query FilteredPage(\n    $id: ID!\n    $first: Int\n    $after: String\n    $filter: String\n    $where: ActivityWhere\n  ) {\n    accessory(id: $id) {\n      activities(first: $first, after: $after, filter: $filter, where: $where) {\n        edges {\n          node {\n            activityId\n          }\n        }\n        nextStartActivityId\n      }\n    }\n  }\n": types.FilteredPageDocument,
    "\n  subscription ZoneEvents($accessoryId: ID!, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, after: $after) {\n      eventId\n      accessoryId\n      eventType\n      eventData\n    }\n  }\n": types.ZoneEventsDocument,
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
export function graphql(source: "\n  mutation IngestBatch($items: [JSON!]!) {\n    ingestBatch(items: $items) {\n      ok\n      accessoryId\n      activityId\n      error {\n        code\n        message\n        field\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation IngestBatch($items: [JSON!]!) {\n    ingestBatch(items: $items) {\n      ok\n      accessoryId\n      activityId\n      error {\n        code\n        message\n        field\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Counts(\n    $from: DateTime!\n    $to: DateTime!\n    $bucket: CountBucket!\n    $groupBy: [CountGroup!]\n    $where: ActivityWhere\n    $timeZone: String\n  ) {\n    viewer {\n      activityCounts(\n        from: $from\n        to: $to\n        bucket: $bucket\n        groupBy: $groupBy\n        where: $where\n        timeZone: $timeZone\n      ) {\n        buckets {\n          start\n          count\n          accessoryId\n          relevanceLevel\n          zoneId\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Counts(\n    $from: DateTime!\n    $to: DateTime!\n    $bucket: CountBucket!\n    $groupBy: [CountGroup!]\n    $where: ActivityWhere\n    $timeZone: String\n  ) {\n    viewer {\n      activityCounts(\n        from: $from\n        to: $to\n        bucket: $bucket\n        groupBy: $groupBy\n        where: $where\n        timeZone: $timeZone\n      ) {\n        buckets {\n          start\n          count\n          accessoryId\n          relevanceLevel\n          zoneId\n        }\n      }\n    }\n  }\n"];
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
export function graphql(source: "\n  mutation SetRetention($accountId: ID!, $retentionDays: Int!) {\n    setRetention(accountId: $accountId, retentionDays: $retentionDays) {\n      retentionDays\n    }\n  }\n"): (typeof documents)["\n  mutation SetRetention($accountId: ID!, $retentionDays: Int!) {\n    setRetention(accountId: $accountId, retentionDays: $retentionDays) {\n      retentionDays\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Timeline(\n    $first: Int\n    $after: String\n    $last: Int\n    $before: String\n    $filter: String\n    $where: ActivityWhere\n    $accessoryIds: [ID!]\n  ) {\n    viewer {\n      activities(\n        first: $first\n        after: $after\n        last: $last\n        before: $before\n        filter: $filter\n        where: $where\n        accessoryIds: $accessoryIds\n      ) {\n        edges {\n          cursor\n          node {\n            accessoryId\n            activityId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Timeline(\n    $first: Int\n    $after: String\n    $last: Int\n    $before: String\n    $filter: String\n    $where: ActivityWhere\n    $accessoryIds: [ID!]\n  ) {\n    viewer {\n      activities(\n        first: $first\n        after: $after\n        last: $last\n        before: $before\n        filter: $filter\n        where: $where\n        accessoryIds: $accessoryIds\n      ) {\n        edges {\n          cursor\n          node {\n            accessoryId\n            activityId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TimelineLocations($first: Int, $id: ID!) {\n    viewer {\n      activities(first: $first) {\n        edges {\n          node {\n            accessoryId\n            activityId\n            ...Where\n          }\n        }\n      }\n    }\n    accessory(id: $id) {\n      activities(first: $first) {\n        edges {\n          node {\n            activityId\n            ...Cells\n          }\n        }\n      }\n    }\n  }\n  fragment Where on Activity {\n    ... on Activity {\n      zones: motionZones\n    }\n    ...Cells\n  }\n  fragment Cells on Activity {\n    objectLocations\n  }\n"): (typeof documents)["\n  query TimelineLocations($first: Int, $id: ID!) {\n    viewer {\n      activities(first: $first) {\n        edges {\n          node {\n            accessoryId\n            activityId\n            ...Where\n          }\n        }\n      }\n    }\n    accessory(id: $id) {\n      activities(first: $first) {\n        edges {\n          node {\n            activityId\n            ...Cells\n          }\n        }\n      }\n    }\n  }\n  fragment Where on Activity {\n    ... on Activity {\n      zones: motionZones\n    }\n    ...Cells\n  }\n  fragment Cells on Activity {\n    objectLocations\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription FilteredAccountEvents($accountId: ID!, $filter: String) {\n    accountEvents(accountId: $accountId, filter: $filter) {\n      eventId\n      accessoryId\n      eventType\n      eventData\n    }\n  }\n"): (typeof documents)["\n  subscription FilteredAccountEvents($accountId: ID!, $filter: String) {\n    accountEvents(accountId: $accountId, filter: $filter) {\n      eventId\n      accessoryId\n      eventType\n      eventData\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription FilteredAccessoryEvents($accessoryId: ID!, $filter: String, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, filter: $filter, after: $after) {\n      eventId\n      eventType\n      eventData\n    }\n  }\n"): (typeof documents)["\n  subscription FilteredAccessoryEvents($accessoryId: ID!, $filter: String, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, filter: $filter, after: $after) {\n      eventId\n      eventType\n      eventData\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription AccessoryEvents($accessoryId: ID!, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, after: $after) {\n      eventId\n      accountId\n      accessoryId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n"): (typeof documents)["\n  subscription AccessoryEvents($accessoryId: ID!, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, after: $after) {\n      eventId\n      accountId\n      accessoryId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription AccountEvents($accountId: ID!, $eventTypes: [EventType!], $after: String) {\n    accountEvents(accountId: $accountId, eventTypes: $eventTypes, after: $after) {\n      eventId\n      accountId\n      accessoryId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n"): (typeof documents)["\n  subscription AccountEvents($accountId: ID!, $eventTypes: [EventType!], $after: String) {\n    accountEvents(accountId: $accountId, eventTypes: $eventTypes, after: $after) {\n      eventId\n      accountId\n      accessoryId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClientTimeline($id: ID!, $first: Int, $after: String) {\n    accessory(id: $id) {\n      id\n      name\n      activities(first: $first, after: $after) {\n        edges {\n          cursor\n          node {\n            id\n            activityId\n            relevanceLevel\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ClientTimeline($id: ID!, $first: Int, $after: String) {\n    accessory(id: $id) {\n      id\n      name\n      activities(first: $first, after: $after) {\n        edges {\n          cursor\n          node {\n            id\n            activityId\n            relevanceLevel\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClientActivityNode($id: ID!) {\n    node(id: $id) {\n      id\n      ... on Activity {\n        activityId\n        relevanceLevel\n      }\n    }\n  }\n"): (typeof documents)["\n  query ClientActivityNode($id: ID!) {\n    node(id: $id) {\n      id\n      ... on Activity {\n        activityId\n        relevanceLevel\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment LiveViewer on Viewer {\n    activities(first: 5) {\n      edges {\n        node {\n          activityId\n          accessoryId\n          relevanceLevel\n          inProgress\n        }\n      }\n    }\n    activityCounts(from: $from, to: $to, bucket: DAY) {\n      buckets {\n        count\n      }\n    }\n  }\n"): (typeof documents)["\n  fragment LiveViewer on Viewer {\n    activities(first: 5) {\n      edges {\n        node {\n          activityId\n          accessoryId\n          relevanceLevel\n          inProgress\n        }\n      }\n    }\n    activityCounts(from: $from, to: $to, bucket: DAY) {\n      buckets {\n        count\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query LiveTimeline($from: DateTime!, $to: DateTime!) @live {\n    viewer {\n      ...LiveViewer\n    }\n  }\n"): (typeof documents)["\n  query LiveTimeline($from: DateTime!, $to: DateTime!) @live {\n    viewer {\n      ...LiveViewer\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query LiveTimelinePatches($from: DateTime!, $to: DateTime!) @live(patch: true) {\n    viewer {\n      ...LiveViewer\n    }\n  }\n"): (typeof documents)["\n  query LiveTimelinePatches($from: DateTime!, $to: DateTime!) @live(patch: true) {\n    viewer {\n      ...LiveViewer\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TimelineOnce($from: DateTime!, $to: DateTime!) {\n    viewer {\n      ...LiveViewer\n    }\n  }\n"): (typeof documents)["\n  query TimelineOnce($from: DateTime!, $to: DateTime!) {\n    viewer {\n      ...LiveViewer\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ActivityNodeIds($id: ID!) {\n    accessory(id: $id) {\n      id\n      activities(first: 10) {\n        edges {\n          node {\n            id\n            activityId\n            accessoryId\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ActivityNodeIds($id: ID!) {\n    accessory(id: $id) {\n      id\n      activities(first: 10) {\n        edges {\n          node {\n            id\n            activityId\n            accessoryId\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Nodes($ids: [ID!]!) {\n    nodes(ids: $ids) {\n      __typename\n      id\n      ... on Accessory {\n        name\n      }\n      ... on Activity {\n        activityId\n        accessoryId\n      }\n      ... on NotificationDelivery {\n        webhookId\n        kind\n      }\n    }\n  }\n"): (typeof documents)["\n  query Nodes($ids: [ID!]!) {\n    nodes(ids: $ids) {\n      __typename\n      id\n      ... on Accessory {\n        name\n      }\n      ... on Activity {\n        activityId\n        accessoryId\n      }\n      ... on NotificationDelivery {\n        webhookId\n        kind\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NodeById($id: ID!) {\n    node(id: $id) {\n      __typename\n      id\n    }\n  }\n"): (typeof documents)["\n  query NodeById($id: ID!) {\n    node(id: $id) {\n      __typename\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PersistedFirstPage($id: ID!) {\n    accessory(id: $id) {\n      activities(first: 3) {\n        edges {\n          node {\n            activityId\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query PersistedFirstPage($id: ID!) {\n    accessory(id: $id) {\n      activities(first: 3) {\n        edges {\n          node {\n            activityId\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ScopedPage($id: ID!) {\n    accessory(id: $id) {\n      activities(first: 5) {\n        edges {\n          node {\n            activityId\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ScopedPage($id: ID!) {\n    accessory(id: $id) {\n      activities(first: 5) {\n        edges {\n          node {\n            activityId\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query LiveScopedTimeline @live {\n    viewer {\n      activities(first: 5) {\n        edges {\n          node {\n            activityId\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query LiveScopedTimeline @live {\n    viewer {\n      activities(first: 5) {\n        edges {\n          node {\n            activityId\n          }\n        }\n      }\n    }\n  }\n"];
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
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExportUrl($accessoryId: ID!, $start: DateTime!, $end: DateTime!) {\n    accessory(id: $accessoryId) {\n      exportUrl(start: $start, end: $end)\n    }\n  }\n"): (typeof documents)["\n  query ExportUrl($accessoryId: ID!, $start: DateTime!, $end: DateTime!) {\n    accessory(id: $accessoryId) {\n      exportUrl(start: $start, end: $end)\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ExportSetRetention($accountId: ID!, $retentionDays: Int!) {\n    setRetention(accountId: $accountId, retentionDays: $retentionDays) {\n      retentionDays\n    }\n  }\n"): (typeof documents)["\n  mutation ExportSetRetention($accountId: ID!, $retentionDays: Int!) {\n    setRetention(accountId: $accountId, retentionDays: $retentionDays) {\n      retentionDays\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MediaOfActivity($accessoryId: ID!, $activityId: String!) {\n    accessory(id: $accessoryId) {\n      activity(activityId: $activityId) {\n        activityId\n        media {\n          image\n          mp4\n          mpd\n          hls\n        }\n      }\n      activities(first: 5) {\n        edges {\n          node {\n            activityId\n            media {\n              mp4\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query MediaOfActivity($accessoryId: ID!, $activityId: String!) {\n    accessory(id: $accessoryId) {\n      activity(activityId: $activityId) {\n        activityId\n        media {\n          image\n          mp4\n          mpd\n          hls\n        }\n      }\n      activities(first: 5) {\n        edges {\n          node {\n            activityId\n            media {\n              mp4\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation MediaSetRetention($accountId: ID!, $retentionDays: Int!) {\n    setRetention(accountId: $accountId, retentionDays: $retentionDays) {\n      retentionDays\n    }\n  }\n"): (typeof documents)["\n  mutation MediaSetRetention($accountId: ID!, $retentionDays: Int!) {\n    setRetention(accountId: $accountId, retentionDays: $retentionDays) {\n      retentionDays\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation MediaDeleteAccount($accountId: ID!) {\n    deleteAccount(accountId: $accountId)\n  }\n"): (typeof documents)["\n  mutation MediaDeleteAccount($accountId: ID!) {\n    deleteAccount(accountId: $accountId)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MediaOfTwoPages($a: ID!, $b: ID!) {\n    a: accessory(id: $a) {\n      activities(first: 10) {\n        edges {\n          node {\n            activityId\n            media {\n              image\n              mp4\n            }\n          }\n        }\n      }\n    }\n    b: accessory(id: $b) {\n      activities(first: 10) {\n        edges {\n          node {\n            activityId\n            media {\n              image\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query MediaOfTwoPages($a: ID!, $b: ID!) {\n    a: accessory(id: $a) {\n      activities(first: 10) {\n        edges {\n          node {\n            activityId\n            media {\n              image\n              mp4\n            }\n          }\n        }\n      }\n    }\n    b: accessory(id: $b) {\n      activities(first: 10) {\n        edges {\n          node {\n            activityId\n            media {\n              image\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateWithMedia($accessoryId: ID!, $activityId: String!) {\n    updateActivity(\n      accessoryId: $accessoryId\n      activityId: $activityId\n      input: { relevanceLevel: 2 }\n    ) {\n      activityId\n      relevanceLevel\n      media {\n        image\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateWithMedia($accessoryId: ID!, $activityId: String!) {\n    updateActivity(\n      accessoryId: $accessoryId\n      activityId: $activityId\n      input: { relevanceLevel: 2 }\n    ) {\n      activityId\n      relevanceLevel\n      media {\n        image\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RegisterDestination($input: RegisterNotificationsInput!) {\n    registerNotifications(input: $input) {\n      url\n      kind\n      topic\n      exchange\n      hasCredentials\n    }\n  }\n"): (typeof documents)["\n  mutation RegisterDestination($input: RegisterNotificationsInput!) {\n    registerNotifications(input: $input) {\n      url\n      kind\n      topic\n      exchange\n      hasCredentials\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReplayRange($accountId: ID!, $from: DateTime!, $to: DateTime!, $onlyFailed: Boolean) {\n    replayNotifications(accountId: $accountId, from: $from, to: $to, onlyFailed: $onlyFailed) {\n      queued\n    }\n  }\n"): (typeof documents)["\n  mutation ReplayRange($accountId: ID!, $from: DateTime!, $to: DateTime!, $onlyFailed: Boolean) {\n    replayNotifications(accountId: $accountId, from: $from, to: $to, onlyFailed: $onlyFailed) {\n      queued\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Ed25519Registration($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      signing\n      publicKey\n    }\n  }\n"): (typeof documents)["\n  query Ed25519Registration($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      signing\n      publicKey\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HealthOfRegistration($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      maxPerSecond\n      state\n      failingSince\n      disabledAt\n      disabledReason\n    }\n  }\n"): (typeof documents)["\n  query HealthOfRegistration($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      maxPerSecond\n      state\n      failingSince\n      disabledAt\n      disabledReason\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation EnableNotifications($accountId: ID!) {\n    enableNotifications(accountId: $accountId) {\n      state\n      failingSince\n      disabledReason\n    }\n  }\n"): (typeof documents)["\n  mutation EnableNotifications($accountId: ID!) {\n    enableNotifications(accountId: $accountId) {\n      state\n      failingSince\n      disabledReason\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription RegistrationEvents($accountId: ID!) {\n    accountEvents(accountId: $accountId, eventTypes: [receiver_disabled, receiver_enabled]) {\n      eventId\n      accountId\n      accessoryId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n"): (typeof documents)["\n  subscription RegistrationEvents($accountId: ID!) {\n    accountEvents(accountId: $accountId, eventTypes: [receiver_disabled, receiver_enabled]) {\n      eventId\n      accountId\n      accessoryId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RegisterNotifications($input: RegisterNotificationsInput!) {\n    registerNotifications(input: $input) {\n      accountId\n      clientId\n      url\n      eventTypes\n      userData\n      filter\n      createdAt\n      updatedAt\n    }\n  }\n"): (typeof documents)["\n  mutation RegisterNotifications($input: RegisterNotificationsInput!) {\n    registerNotifications(input: $input) {\n      accountId\n      clientId\n      url\n      eventTypes\n      userData\n      filter\n      createdAt\n      updatedAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UnregisterNotifications($accountId: ID!) {\n    unregisterNotifications(accountId: $accountId)\n  }\n"): (typeof documents)["\n  mutation UnregisterNotifications($accountId: ID!) {\n    unregisterNotifications(accountId: $accountId)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NotificationRegistration($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      accountId\n      clientId\n      url\n      eventTypes\n      userData\n      filter\n    }\n  }\n"): (typeof documents)["\n  query NotificationRegistration($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      accountId\n      clientId\n      url\n      eventTypes\n      userData\n      filter\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NotificationDeliveries($accountId: ID!, $first: Int, $after: String) {\n    notificationDeliveries(accountId: $accountId, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          kind\n          eventId\n          webhookId\n          eventType\n          eventData\n          status\n          url\n          attemptCount\n          nextAttemptAt\n          createdAt\n          finishedAt\n          attempts {\n            attempt\n            startedAt\n            durationMs\n            outcome\n            status\n            error\n            errorMessage\n            response\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query NotificationDeliveries($accountId: ID!, $first: Int, $after: String) {\n    notificationDeliveries(accountId: $accountId, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          kind\n          eventId\n          webhookId\n          eventType\n          eventData\n          status\n          url\n          attemptCount\n          nextAttemptAt\n          createdAt\n          finishedAt\n          attempts {\n            attempt\n            startedAt\n            durationMs\n            outcome\n            status\n            error\n            errorMessage\n            response\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SendTestNotification($accountId: ID!) {\n    sendTestNotification(accountId: $accountId) {\n      id\n      kind\n      webhookId\n      eventType\n      status\n    }\n  }\n"): (typeof documents)["\n  mutation SendTestNotification($accountId: ID!) {\n    sendTestNotification(accountId: $accountId) {\n      id\n      kind\n      webhookId\n      eventType\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RedeliverNotification($deliveryId: ID!) {\n    redeliverNotification(deliveryId: $deliveryId) {\n      id\n      status\n      attemptCount\n    }\n  }\n"): (typeof documents)["\n  mutation RedeliverNotification($deliveryId: ID!) {\n    redeliverNotification(deliveryId: $deliveryId) {\n      id\n      status\n      attemptCount\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReportMotion(\n    $accessoryId: ID!\n    $state: MotionState!\n    $at: DateTime\n    $motionZones: [String!]\n  ) {\n    reportMotion(accessoryId: $accessoryId, state: $state, at: $at, motionZones: $motionZones) {\n      eventId\n      eventType\n      accessoryId\n      motionZones\n      timestamp\n    }\n  }\n"): (typeof documents)["\n  mutation ReportMotion(\n    $accessoryId: ID!\n    $state: MotionState!\n    $at: DateTime\n    $motionZones: [String!]\n  ) {\n    reportMotion(accessoryId: $accessoryId, state: $state, at: $at, motionZones: $motionZones) {\n      eventId\n      eventType\n      accessoryId\n      motionZones\n      timestamp\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateActivityForNotifications(\n    $accessoryId: ID!\n    $activityId: String!\n    $input: UpdateActivityInput!\n  ) {\n    updateActivity(accessoryId: $accessoryId, activityId: $activityId, input: $input) {\n      activityId\n      relevanceLevel\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateActivityForNotifications(\n    $accessoryId: ID!\n    $activityId: String!\n    $input: UpdateActivityInput!\n  ) {\n    updateActivity(accessoryId: $accessoryId, activityId: $activityId, input: $input) {\n      activityId\n      relevanceLevel\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteAccountForNotifications($accountId: ID!) {\n    deleteAccount(accountId: $accountId)\n  }\n"): (typeof documents)["\n  mutation DeleteAccountForNotifications($accountId: ID!) {\n    deleteAccount(accountId: $accountId)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReplayNotifications(\n    $accountId: ID!\n    $from: DateTime!\n    $to: DateTime!\n    $onlyFailed: Boolean\n  ) {\n    replayNotifications(accountId: $accountId, from: $from, to: $to, onlyFailed: $onlyFailed) {\n      queued\n      onlyFailed\n    }\n  }\n"): (typeof documents)["\n  mutation ReplayNotifications(\n    $accountId: ID!\n    $from: DateTime!\n    $to: DateTime!\n    $onlyFailed: Boolean\n  ) {\n    replayNotifications(accountId: $accountId, from: $from, to: $to, onlyFailed: $onlyFailed) {\n      queued\n      onlyFailed\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReplayLog($accountId: ID!) {\n    notificationDeliveries(accountId: $accountId, first: 50) {\n      edges {\n        node {\n          id\n          webhookId\n          status\n          replayOf\n          createdAt\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ReplayLog($accountId: ID!) {\n    notificationDeliveries(accountId: $accountId, first: 50) {\n      edges {\n        node {\n          id\n          webhookId\n          status\n          replayOf\n          createdAt\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RotateNotificationKey($accountId: ID!, $authKey: String, $overlapSeconds: Int) {\n    rotateNotificationKey(\n      accountId: $accountId\n      authKey: $authKey\n      overlapSeconds: $overlapSeconds\n    ) {\n      authKey\n      registration {\n        previousKeyUntil\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation RotateNotificationKey($accountId: ID!, $authKey: String, $overlapSeconds: Int) {\n    rotateNotificationKey(\n      accountId: $accountId\n      authKey: $authKey\n      overlapSeconds: $overlapSeconds\n    ) {\n      authKey\n      registration {\n        previousKeyUntil\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RetirePreviousNotificationKey($accountId: ID!) {\n    retirePreviousNotificationKey(accountId: $accountId) {\n      previousKeyUntil\n    }\n  }\n"): (typeof documents)["\n  mutation RetirePreviousNotificationKey($accountId: ID!) {\n    retirePreviousNotificationKey(accountId: $accountId) {\n      previousKeyUntil\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PoisonSendTest($accountId: ID!) {\n    sendTestNotification(accountId: $accountId) {\n      webhookId\n    }\n  }\n"): (typeof documents)["\n  mutation PoisonSendTest($accountId: ID!) {\n    sendTestNotification(accountId: $accountId) {\n      webhookId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ZonesFields on AccessoryZones {\n    accessoryId\n    lastModified\n    zones {\n      id\n      name\n      color\n      vertices {\n        x\n        y\n      }\n    }\n  }\n"): (typeof documents)["\n  fragment ZonesFields on AccessoryZones {\n    accessoryId\n    lastModified\n    zones {\n      id\n      name\n      color\n      vertices {\n        x\n        y\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SaveZones($accessoryId: ID!, $zones: [ZoneInput!]!) {\n    saveZones(accessoryId: $accessoryId, zones: $zones) {\n      ...ZonesFields\n    }\n  }\n"): (typeof documents)["\n  mutation SaveZones($accessoryId: ID!, $zones: [ZoneInput!]!) {\n    saveZones(accessoryId: $accessoryId, zones: $zones) {\n      ...ZonesFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AccessoryZones($id: ID!) {\n    accessory(id: $id) {\n      zones {\n        ...ZonesFields\n      }\n    }\n  }\n"): (typeof documents)["\n  query AccessoryZones($id: ID!) {\n    accessory(id: $id) {\n      zones {\n        ...ZonesFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query FilteredPage(\n    $id: ID!\n    $first: Int\n    $after: String\n    $filter: String\n    $where: ActivityWhere\n  ) {\n    accessory(id: $id) {\n      activities(first: $first, after: $after, filter: $filter, where: $where) {\n        edges {\n          node {\n            activityId\n          }\n        }\n        nextStartActivityId\n      }\n    }\n  }\n"): (typeof documents)["\n  query FilteredPage(\n    $id: ID!\n    $first: Int\n    $after: String\n    $filter: String\n    $where: ActivityWhere\n  ) {\n    accessory(id: $id) {\n      activities(first: $first, after: $after, filter: $filter, where: $where) {\n        edges {\n          node {\n            activityId\n          }\n        }\n        nextStartActivityId\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ZoneEvents($accessoryId: ID!, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, after: $after) {\n      eventId\n      accessoryId\n      eventType\n      eventData\n    }\n  }\n"): (typeof documents)["\n  subscription ZoneEvents($accessoryId: ID!, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, after: $after) {\n      eventId\n      accessoryId\n      eventType\n      eventData\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;