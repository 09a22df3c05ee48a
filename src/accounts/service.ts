import { randomUUID } from 'node:crypto';
import { TtlCache } from '../cache.ts';
import { invalidArgument, notFound } from '../errors.ts';
import { recordEvents, type EventSignal } from '../events/outbox.ts';
import { checkUuid } from '../ids.ts';
import type { Database } from '../storage/database.ts';

export interface AccountView {
  accountId: string;
  subject: string;
  retentionDays: number;
  createdAt: Date;
}

export const MAX_RETENTION_DAYS = 3650;
export const DEFAULT_RETENTION_DAYS = 30;

// Account rows are read on nearly every request. An account's subject never changes; its
// retention may, and another instance sees such a change within this many milliseconds.
const CACHE_TTL_MS = 2000;

export function checkRetentionDays(value: number | null | undefined): number {
  if (value === null || value === undefined) return DEFAULT_RETENTION_DAYS;
  if (!Number.isInteger(value) || value < 1 || value > MAX_RETENTION_DAYS) {
    throw invalidArgument('retentionDays', `retentionDays must be 1..${MAX_RETENTION_DAYS}`);
  }
  return value;
}

const view = (row: {
  id: string;
  subject: string;
  retentionDays: number;
  createdAt: Date;
}): AccountView => ({
  accountId: row.id,
  subject: row.subject,
  retentionDays: row.retentionDays,
  createdAt: row.createdAt,
});

export class AccountService {
  readonly #bySubject = new TtlCache<string, AccountView>(CACHE_TTL_MS, 10_000);

  constructor(
    private readonly db: Database,
    private readonly signal: EventSignal,
  ) {}

  /** The account a token's subject maps to, or null when none was created for it yet. */
  async forSubject(subject: string): Promise<AccountView | null> {
    const cached = this.#bySubject.get(subject);
    if (cached) return cached;
    const row = await this.db.prisma.account.findUnique({ where: { subject } });
    if (!row) return null;
    const account = view(row);
    this.#bySubject.set(subject, account);
    return account;
  }

  async get(accountId: string): Promise<AccountView | null> {
    const row = await this.db.prisma.account.findUnique({ where: { id: accountId } });
    return row && view(row);
  }

  /** Creates the account of a subject, or updates its retention; the id never changes. */
  async upsert(subject: string, retentionDays: number | null | undefined): Promise<AccountView> {
    if (subject.length === 0 || subject.length > 255) {
      throw invalidArgument('subject', 'subject must be 1..255 characters');
    }
    const days = checkRetentionDays(retentionDays);
    const row = await this.db.prisma.account.upsert({
      where: { subject },
      create: { id: randomUUID(), subject, retentionDays: days },
      update: retentionDays === null || retentionDays === undefined ? {} : { retentionDays: days },
    });
    this.#bySubject.delete(subject);
    return view(row);
  }

  /** Drops what is cached of an account (changed or deleted, here or by another thread). */
  forgetAccount(accountId: string): void {
    this.#bySubject.deleteWhere((a) => a.accountId === accountId);
  }

  async setRetention(accountId: string, retentionDays: number): Promise<AccountView> {
    checkUuid('accountId', accountId);
    const days = checkRetentionDays(retentionDays);
    const { count } = await this.db.prisma.account.updateMany({
      where: { id: accountId },
      data: { retentionDays: days },
    });
    if (count === 0) throw notFound('account');
    this.forgetAccount(accountId);
    return (await this.get(accountId))!;
  }

  /**
   * Records `account_deleted` (its deliveries are queued with it, while the registrations still
   * exist) and then removes the account's data, in one transaction.
   */
  async delete(accountId: string): Promise<void> {
    checkUuid('accountId', accountId);
    const stored = await this.db.prisma.$transaction(async (tx) => {
      const events = await recordEvents(tx, [
        { accountId, accessoryId: null, eventType: 'account_deleted', eventData: {} },
      ]);
      const { count } = await tx.account.deleteMany({ where: { id: accountId } });
      if (count === 0) throw notFound('account');
      return events;
    });
    this.forgetAccount(accountId);
    this.signal.committed(stored);
  }
}
