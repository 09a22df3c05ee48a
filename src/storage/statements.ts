import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * Names for the statements of the read path, so that PostgreSQL parses and plans each once per
 * connection (a prepared statement) instead of on every run. Planning a page of the partitioned
 * activities table costs the database about twice what running it does: with pgbench on the 1M
 * activities of bench:list, 8 clients, 6,573 first pages a second unnamed and 18,694 prepared;
 * a zone-filtered page 4,274 and 18,734 (docs/performance.md).
 *
 * node-postgres prepares a named statement on a connection the first time it runs there, and
 * the connection keeps it for its life, as PostgreSQL does. So only the first `max` texts this
 * process sees get a name; any others run unnamed, as before. Texts are built by the service
 * from a request's shape (a filter's operators and attributes, the paging direction), never from
 * its values, which are parameters: the common shapes come first and stay few.
 */
export class StatementNames {
  readonly #names = new Map<string, string>();

  constructor(private readonly max = 200) {}

  /** How many texts have a name (tests). */
  get size(): number {
    return this.#names.size;
  }

  /** The query for `text` and `values`: named while fewer than `max` texts are. */
  query(text: string, values: unknown[]): pg.QueryConfig {
    let name = this.#names.get(text);
    if (name === undefined && this.#names.size < this.max) {
      name = `clipgate_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
      this.#names.set(text, name);
    }
    return name === undefined ? { text, values } : { name, text, values };
  }
}
