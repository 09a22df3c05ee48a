import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Kind, parse, validate } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { TtlCache } from '../cache.ts';
import { ConfigError, type GraphQLDocumentsConfig } from '../config.ts';
import { AppError, invalidArgument } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { requestError } from './errors.ts';
import { schema } from './schema.ts';

/**
 * Persisted operations and trusted documents. A client may send a document's SHA-256
 * (`extensions.persistedQuery.sha256Hash`, Apollo's automatic persisted queries) instead of its
 * text. The hash is looked up among the known documents (the dashboard's manifest, written by
 * `npm run codegen`, and the operators' manifests, GRAPHQL_PERSISTED_DOCUMENTS), then among the
 * documents clients registered by sending text and hash together (APQ, kept per instance). An
 * unknown hash is answered PERSISTED_QUERY_NOT_FOUND, and the client sends it again with its
 * text. The clients of GRAPHQL_TRUSTED_DOCUMENTS may send only known documents, by hash or as
 * text: any other is refused (403 PERMISSION_DENIED), and nothing they send is registered.
 */

/** How the document of a request came: the label of `clipgate_graphql_documents_total`. */
export type DocumentSource = 'text' | 'known' | 'registered' | 'not_found' | 'refused';

/** The parts of a GraphQL request (HTTP or graphql-ws `subscribe`) that name its document. */
export interface DocumentRequest {
  query?: unknown;
  extensions?: unknown;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const HASH_FIELD = 'extensions.persistedQuery.sha256Hash';
/** How long a registered document is kept at most; the oldest goes first when the store is full. */
const REGISTERED_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Apollo's answer to an unknown hash, with its message: its client sends the document again with
 * its text.
 */
const persistedQueryNotFound = () =>
  new AppError('PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');

const onlyKnownDocuments = (clientId: string) =>
  new AppError(
    'PERMISSION_DENIED',
    `the client "${clientId}" may send only known documents (persisted operations), and this is not one`,
    { field: 'query', clientId },
  );

/** The hash a request names, if any: `extensions.persistedQuery` must be Apollo's version 1. */
function requestedHash(extensions: unknown): string | undefined {
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const persisted = (extensions as { persistedQuery?: unknown }).persistedQuery;
  if (persisted === undefined) return undefined;
  const { version, sha256Hash } = (persisted ?? {}) as { version?: unknown; sha256Hash?: unknown };
  if (version !== 1) {
    throw invalidArgument('extensions.persistedQuery.version', 'persistedQuery.version must be 1');
  }
  if (typeof sha256Hash !== 'string' || !/^[0-9a-f]{64}$/.test(sha256Hash)) {
    throw invalidArgument(HASH_FIELD, 'sha256Hash must be 64 lower-case hex digits');
  }
  return sha256Hash;
}

export class PersistedDocuments {
  readonly #known: ReadonlyMap<string, string>;
  readonly #registered: TtlCache<string, string> | undefined;
  readonly #trustedOnly: GraphQLDocumentsConfig['trustedOnly'];
  readonly #counted: (source: DocumentSource) => void;

  constructor(
    known: ReadonlyMap<string, string>,
    config: Pick<GraphQLDocumentsConfig, 'trustedOnly' | 'apqMaxEntries'>,
    counted: (source: DocumentSource) => void = () => undefined,
  ) {
    this.#known = known;
    this.#trustedOnly = config.trustedOnly;
    this.#counted = counted;
    this.#registered =
      config.apqMaxEntries > 0 ? new TtlCache(REGISTERED_TTL_MS, config.apqMaxEntries) : undefined;
  }

  /** How many documents are known (the manifests'). */
  get size(): number {
    return this.#known.size;
  }

  /**
   * The text of a known or registered document by its hash, without counting it: what a request
   * naming only the hash would run, if it were resolved now.
   */
  text(hash: string): string | undefined {
    return this.#known.get(hash) ?? this.#registered?.get(hash);
  }

  /** True when the client may send only known documents. */
  trustedOnly(clientId: string): boolean {
    return this.#trustedOnly === '*' || this.#trustedOnly.has(clientId);
  }

  /**
   * The text of the document a request asks for (undefined when it has neither text nor hash:
   * GraphQL's own refusal follows); throws the client's error (INVALID_ARGUMENT or
   * PERMISSION_DENIED or PERSISTED_QUERY_NOT_FOUND, as AppErrors).
   */
  resolve(request: DocumentRequest, clientId: string): string | undefined {
    try {
      const [text, source] = this.#find(request, clientId);
      this.#counted(source);
      return text;
    } catch (err) {
      const code = err instanceof AppError ? err.code : undefined;
      if (code === 'PERSISTED_QUERY_NOT_FOUND') this.#counted('not_found');
      else if (code === 'PERMISSION_DENIED') this.#counted('refused');
      throw err;
    }
  }

  #find(request: DocumentRequest, clientId: string): [string | undefined, DocumentSource] {
    const hash = requestedHash(request.extensions);
    const trustedOnly = this.trustedOnly(clientId);
    const text =
      typeof request.query === 'string' && request.query !== '' ? request.query : undefined;
    if (text !== undefined) {
      if (hash !== undefined && sha256(text) !== hash) {
        throw invalidArgument(HASH_FIELD, 'sha256Hash is not the SHA-256 of query');
      }
      const digest = hash ?? (trustedOnly ? sha256(text) : undefined);
      if (digest !== undefined && this.#known.has(digest)) return [text, 'known'];
      if (trustedOnly) throw onlyKnownDocuments(clientId);
      if (hash !== undefined) this.#registered?.set(hash, text);
      return [text, 'text'];
    }
    if (hash === undefined) return [undefined, 'text'];
    const known = this.#known.get(hash);
    if (known !== undefined) return [known, 'known'];
    if (trustedOnly) throw onlyKnownDocuments(clientId);
    const registered = this.#registered?.get(hash);
    if (registered !== undefined) return [registered, 'registered'];
    throw persistedQueryNotFound();
  }
}

/**
 * Reads manifests (JSON objects of SHA-256 to document, as GraphQL Code Generator's client preset
 * writes with `persistedDocuments`): each document must be its hash's and valid against the
 * schema, else the service does not start. `optional` files that do not exist are left out.
 */
export function loadPersistedDocuments(
  config: GraphQLDocumentsConfig,
  files: { path: string; optional?: boolean }[],
  logger: Logger,
  counted?: (source: DocumentSource) => void,
): PersistedDocuments {
  const known = new Map<string, string>();
  for (const file of files) {
    if (file.optional && !fs.existsSync(file.path)) {
      logger.info({ file: file.path }, 'no persisted documents here (the dashboard is not built)');
      continue;
    }
    let manifest: unknown;
    try {
      manifest = JSON.parse(fs.readFileSync(file.path, 'utf8'));
    } catch (err) {
      throw new ConfigError(
        `GRAPHQL_PERSISTED_DOCUMENTS: ${file.path} is not a readable JSON file (${(err as Error).message})`,
      );
    }
    if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
      throw new ConfigError(
        `GRAPHQL_PERSISTED_DOCUMENTS: ${file.path} must be a JSON object of hash to document`,
      );
    }
    for (const [key, document] of Object.entries(manifest)) {
      // The client preset writes `sha256:<hex>`; Apollo's protocol sends the hex alone.
      const hash = key.replace(/^sha256:/, '');
      const checked = checkDocument(hash, document);
      if (typeof checked === 'string') {
        throw new ConfigError(`GRAPHQL_PERSISTED_DOCUMENTS: ${file.path}: ${checked}`);
      }
      // A fragment alone (the preset lists them too) is no request.
      if (checked.operations) known.set(hash, document as string);
    }
    logger.info(
      { file: file.path, documents: Object.keys(manifest).length },
      'persisted documents loaded',
    );
  }
  return new PersistedDocuments(known, config, counted);
}

/** What is wrong with a manifest's entry, or whether it holds operations (else fragments only). */
function checkDocument(hash: string, document: unknown): string | { operations: boolean } {
  if (typeof document !== 'string') return `the document of ${hash} is not a string`;
  if (sha256(document) !== hash) {
    return `${hash} is not the SHA-256 of its document (the client preset's hashAlgorithm must be sha256)`;
  }
  try {
    const parsed = parse(document);
    if (!parsed.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION)) {
      return { operations: false };
    }
    const errors = validate(schema, parsed);
    if (errors.length > 0) return `the document of ${hash} is not valid: ${errors[0]!.message}`;
  } catch (err) {
    return `the document of ${hash} does not parse: ${(err as Error).message}`;
  }
  return { operations: true };
}

/**
 * A request's parameters with its document's text in `query` (its hash resolved, the trusted
 * documents checked); a refusal is thrown as the GraphQL error Yoga answers.
 */
export function withDocument<P extends DocumentRequest>(
  documents: PersistedDocuments,
  params: P,
  clientId: string,
): P {
  let query: string | undefined;
  try {
    query = documents.resolve(params, clientId);
  } catch (err) {
    throw err instanceof AppError ? requestError(err) : err;
  }
  return query !== undefined && query !== params.query ? { ...params, query } : params;
}

/**
 * Yoga's side: a request's hash is replaced by its document's text before Yoga parses it (which
 * its parser and validation caches, and graphql-jit, then do once per document).
 */
export function persistedDocuments(
  documents: PersistedDocuments,
): Plugin<object, { caller?: { principal: { clientId: string } } }> {
  return {
    onParams({ params, setParams, context }) {
      const resolved = withDocument(documents, params, context.caller!.principal.clientId);
      if (resolved !== params) setParams(resolved);
    },
  };
}
