import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import { isBigintId, isUuid } from '../ids.ts';

/**
 * The global ids of the `Node` interface (docs/decisions/0039-relay-node-ids.md). A type whose own key
 * already cannot be mistaken for another type's keeps it as its global id, so that the `id`
 * fields clients already use keep their meaning: an accessory's is its UUID, a notification
 * delivery's its number. Every other node's is the relay plugin's default, base64 of
 * `Type:key` (an activity's key is `accessoryId:activityId`).
 */
const ownKeys: Record<string, (id: string) => boolean> = {
  Accessory: isUuid,
  NotificationDelivery: isBigintId,
};

/** The other node types, whose global ids are base64 of `Type:key`. */
const encodedTypes = new Set(['Activity']);

export function encodeGlobalId(typename: string, id: bigint | number | string): string {
  return typename in ownKeys ? String(id) : encodeGlobalID(typename, id);
}

/**
 * The type and key a global id names. A string that is no other form of id is taken as an
 * accessory's (whose global id is its key as it is): like `Query.accessory(id)`, it then names
 * nothing, and `node` answers null.
 */
export function decodeGlobalId(globalId: string): { typename: string; id: string } {
  for (const [typename, test] of Object.entries(ownKeys)) {
    if (test(globalId)) return { typename, id: globalId };
  }
  try {
    const decoded = decodeGlobalID(globalId);
    if (encodedTypes.has(decoded.typename)) return decoded;
  } catch {
    // not base64 of `Type:key`
  }
  return { typename: 'Accessory', id: globalId };
}
