import { randomUUID } from 'node:crypto';
import { TtlCache } from '../cache.ts';
import { invalidArgument, notFound } from '../errors.ts';
import { checkUuid, isUuid } from '../ids.ts';
import type { Database } from '../storage/database.ts';

export interface AccessoryView {
  accessoryId: string;
  accountId: string;
  deviceId: string;
  name: string;
  createdAt: Date;
}

const view = (row: {
  id: string;
  accountId: string;
  deviceId: string;
  name: string;
  createdAt: Date;
}): AccessoryView => ({
  accessoryId: row.id,
  accountId: row.accountId,
  deviceId: row.deviceId,
  name: row.name,
  createdAt: row.createdAt,
});

export class AccessoryService {
  // An accessory never moves to another account (re-association elsewhere gives a new id), so
  // its owner can be cached; the TTL only bounds how long a deleted one lingers in memory.
  readonly #byId = new TtlCache<string, AccessoryView>(60_000, 50_000);

  constructor(private readonly db: Database) {}

  /** The same device on the same account keeps its id; on another account it gets a new one. */
  async associate(accountId: string, deviceId: string, name: string): Promise<AccessoryView> {
    checkUuid('accountId', accountId);
    if (deviceId.length === 0 || deviceId.length > 255) {
      throw invalidArgument('deviceId', 'deviceId must be 1..255 characters');
    }
    if (name.length > 255) throw invalidArgument('name', 'name must be at most 255 characters');
    const account = await this.db.prisma.account.findUnique({ where: { id: accountId } });
    if (!account) throw notFound('account');
    const row = await this.db.prisma.accessory.upsert({
      where: { accountId_deviceId: { accountId, deviceId } },
      create: { id: randomUUID(), accountId, deviceId, name },
      update: { name },
    });
    return view(row);
  }

  /** The accessory, whoever owns it; callers check ownership with `owned`. */
  async get(accessoryId: string): Promise<AccessoryView | null> {
    return (await this.getMany([accessoryId])).get(accessoryId) ?? null;
  }

  /** The accessories of these ids that exist, whoever owns them, in one query for those not cached. */
  async getMany(accessoryIds: readonly string[]): Promise<Map<string, AccessoryView>> {
    const found = new Map<string, AccessoryView>();
    const missing: string[] = [];
    for (const id of new Set(accessoryIds)) {
      const cached = this.#byId.get(id);
      if (cached) found.set(id, cached);
      else if (isUuid(id)) missing.push(id);
    }
    if (missing.length === 0) return found;
    // A statement of its own rather than the ORM: every listing's lookup of an accessory not
    // cached (an unknown one each time) takes this way, and a Prisma query cost a 404 page
    // several times the memory of a found page (docs/performance.md, "What the collections
    // promote").
    const { rows } = await this.db.pool.query<Parameters<typeof view>[0]>({
      name: 'clipgate_accessories_by_id',
      text: `SELECT id::text AS id, account_id::text AS "accountId", device_id AS "deviceId", name,
                    created_at AS "createdAt"
               FROM accessories WHERE id = ANY ($1::uuid[])`,
      values: [missing],
    });
    for (const row of rows) {
      const accessory = view(row);
      this.#byId.set(accessory.accessoryId, accessory);
      found.set(accessory.accessoryId, accessory);
    }
    return found;
  }

  /** The accessory if it belongs to the account; another account's is as missing as none (404). */
  async owned(accountId: string | undefined, accessoryId: string): Promise<AccessoryView> {
    const accessory = await this.get(accessoryId);
    if (!accessory || accessory.accountId !== accountId) throw notFound('accessory');
    return accessory;
  }

  /** One page of an account's accessories, ordered by id, after the id `after`. */
  async list(accountId: string, first: number, after?: string): Promise<AccessoryView[]> {
    const rows = await this.db.prisma.accessory.findMany({
      where: { accountId, ...(after ? { id: { gt: after } } : {}) },
      orderBy: { id: 'asc' },
      take: first,
    });
    return rows.map(view);
  }

  forgetAccount(accountId: string): void {
    this.#byId.deleteWhere((a) => a.accountId === accountId);
  }
}
