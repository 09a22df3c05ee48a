/**
 * The live events' and notifications' reference at /docs/events: /asyncapi.json as a page of
 * its servers, then each operation with its channel and its messages, each message's headers and
 * payload drawn from their JSON Schemas. The web build makes it a script of its own
 * (web/vite.config.ts); src/web/reference.ts serves it. It evaluates no code, unlike a
 * schema compiler, so the page's Content-Security-Policy forbids that.
 */
import { h } from './dom.ts';
import './events-reference.css';

type Schema = { [keyword: string]: unknown };

interface Message {
  name: string;
  title?: string;
  summary?: string;
  contentType?: string;
  headers?: Schema;
  payload?: Schema;
}

interface Ref {
  $ref: string;
}

interface AsyncApi {
  info: { title: string; version: string; description?: string };
  defaultContentType?: string;
  servers: Record<
    string,
    { host: string; protocol: string; pathname?: string; title?: string; description?: string }
  >;
  channels: Record<
    string,
    { address: string | null; title?: string; description?: string; servers?: Ref[] }
  >;
  operations: Record<
    string,
    {
      action: string;
      channel: Ref;
      summary?: string;
      bindings?: { http?: { method?: string } };
      messages: Ref[];
    }
  >;
  components: { messages: Record<string, Message | Ref>; schemas: Record<string, Schema> };
}

/** Follows a reference inside the document (`#/components/schemas/Uuid`). */
function resolve<T>(document: AsyncApi, ref: string): T {
  if (!ref.startsWith('#/')) throw new Error(`${ref}: only references inside the document`);
  let node: unknown = document;
  for (const part of ref.slice(2).split('/')) {
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`${ref} is not in the document`);
  }
  return (node as Partial<Ref>).$ref === undefined
    ? (node as T)
    : resolve(document, (node as Ref).$ref);
}

const refName = (ref: string) => ref.split('/').pop()!;

/** Text with `code` spans, as the document's descriptions write them. */
function prose(tag: 'p' | 'span', text: string | undefined, className?: string) {
  if (!text) return null;
  const parts = text.split('`').map((part, i) => (i % 2 ? h('code', { text: part }) : part));
  return h(tag, { class: className }, ...parts);
}

const constraintKeywords = [
  'format',
  'pattern',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
] as const;

/** What a schema's value may be, in one line: its type, const, enum and bounds, or any. */
function summary(schema: Schema): string {
  if (Object.keys(schema).length === 0) return 'any value';
  const parts: string[] = [];
  if (schema.const !== undefined) parts.push(`= ${JSON.stringify(schema.const)}`);
  else if (Array.isArray(schema.enum))
    parts.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  else if (schema.type !== undefined) parts.push([schema.type].flat().join(' or '));
  for (const keyword of constraintKeywords) {
    if (schema[keyword] !== undefined) parts.push(`${keyword} ${String(schema[keyword])}`);
  }
  return parts.join(', ');
}

/**
 * A schema as a list of its properties, each with what it may be and its own properties below;
 * a reference shows its name and what it refers to, once along each path (schemas may recur).
 */
function schemaView(document: AsyncApi, schema: Schema, seen: ReadonlySet<string>): HTMLElement {
  let shown = schema;
  let named: string | undefined;
  const inner = new Set(seen);
  while (typeof shown.$ref === 'string') {
    named = refName(shown.$ref);
    if (inner.has(shown.$ref)) return h('span', { class: 'schema-type', text: `${named} (above)` });
    inner.add(shown.$ref);
    shown = resolve<Schema>(document, shown.$ref);
  }
  const view = h('div', { class: 'schema' });
  const line = [named, summary(shown)].filter(Boolean).join(': ');
  if (line) view.append(h('span', { class: 'schema-type', text: line }));
  const description = prose('p', shown.description as string | undefined, 'schema-description');
  if (description) view.append(description);
  const properties = (shown.properties ?? {}) as Record<string, Schema>;
  const required = new Set((shown.required ?? []) as string[]);
  if (Object.keys(properties).length > 0) {
    view.append(
      h(
        'ul',
        { class: 'properties' },
        ...Object.entries(properties).map(([name, property]) =>
          h(
            'li',
            { class: 'property' },
            h('code', { class: 'property-name', text: name }),
            required.has(name) ? h('span', { class: 'required', text: 'required' }) : null,
            schemaView(document, property, inner),
          ),
        ),
      ),
    );
  }
  // Arrays' items, and a map's keys and values.
  for (const [keyword, label] of [
    ['items', 'Items'],
    ['propertyNames', 'Each key'],
    ['additionalProperties', 'Each value'],
  ] as const) {
    const below = shown[keyword];
    if (!below || typeof below !== 'object') continue;
    view.append(
      h('div', { class: 'items' }, `${label}: `, schemaView(document, below as Schema, inner)),
    );
  }
  for (const [keyword, label] of [
    ['allOf', 'All of'],
    ['anyOf', 'Any of'],
    ['oneOf', 'One of'],
  ] as const) {
    const variants = shown[keyword];
    if (!Array.isArray(variants)) continue;
    view.append(
      h(
        'div',
        { class: 'variants' },
        `${label}:`,
        h(
          'ol',
          {},
          ...(variants as Schema[]).map((variant) =>
            h('li', {}, schemaView(document, variant, inner)),
          ),
        ),
      ),
    );
  }
  return view;
}

/** A message of an operation; a channel's messages may be another operation's too. */
function messageView(document: AsyncApi, operationId: string, id: string, message: Message) {
  return h(
    'article',
    { class: 'message', id: `message-${operationId}-${id}` },
    h('h4', {}, h('code', { text: message.name }), ' ', message.title ?? ''),
    prose('p', message.summary),
    h(
      'dl',
      { class: 'facts' },
      h('dt', { text: 'Message ID' }),
      h('dd', {}, h('code', { text: id })),
      h('dt', { text: 'Content type' }),
      h('dd', { text: message.contentType ?? document.defaultContentType ?? '' }),
    ),
    message.headers
      ? h(
          'section',
          {},
          h('h5', { text: 'Headers' }),
          schemaView(document, message.headers, new Set()),
        )
      : null,
    message.payload
      ? h(
          'section',
          {},
          h('h5', { text: 'Payload' }),
          schemaView(document, message.payload, new Set()),
        )
      : null,
  );
}

function render(document: AsyncApi): HTMLElement {
  const servers = Object.entries(document.servers).map(([id, server]) =>
    h(
      'li',
      { id: `server-${id}` },
      h('strong', { text: server.title ?? id }),
      ' ',
      h('code', { text: `${server.protocol}://${server.host}${server.pathname ?? ''}` }),
      prose('p', server.description),
    ),
  );
  const operations = Object.entries(document.operations).map(([operationId, operation]) => {
    const channel = resolve<AsyncApi['channels'][string]>(document, operation.channel.$ref);
    const method = operation.bindings?.http?.method;
    return h(
      'section',
      { class: 'operation', id: `operation-${operation.action}-${operationId}` },
      h(
        'h3',
        {},
        h('span', { class: 'action', text: operation.action }),
        ' ',
        channel.title ?? refName(operation.channel.$ref),
        channel.address ? h('code', { class: 'address', text: channel.address }) : null,
      ),
      prose('p', operation.summary, 'operation-summary'),
      prose('p', channel.description),
      h(
        'p',
        { class: 'on' },
        `${method ? `${method} to` : 'Over'} `,
        ...(channel.servers ?? []).flatMap((ref, i) => [
          i > 0 ? ', ' : '',
          h('a', { href: `#server-${refName(ref.$ref)}`, text: refName(ref.$ref) }),
        ]),
      ),
      h('h4', { text: `Messages (${operation.messages.length})` }),
      ...operation.messages.map((ref) => {
        const id = refName(ref.$ref);
        return messageView(document, operationId, id, resolve<Message>(document, ref.$ref));
      }),
    );
  });
  return h(
    'div',
    { class: 'asyncapi' },
    h(
      'h1',
      {},
      document.info.title,
      h('span', { class: 'version', text: `version ${document.info.version}` }),
    ),
    prose('p', document.info.description),
    h('section', { id: 'servers' }, h('h2', { text: 'Servers' }), h('ul', {}, ...servers)),
    h('section', { id: 'operations' }, h('h2', { text: 'Operations' }), ...operations),
  );
}

const root = document.getElementById('reference')!;
fetch('/asyncapi.json')
  .then(async (res) => {
    if (!res.ok) throw new Error(`/asyncapi.json answered ${res.status}`);
    root.replaceChildren(render((await res.json()) as AsyncApi));
  })
  .catch((err: unknown) => {
    root.replaceChildren(h('p', { class: 'error', role: 'alert', text: String(err) }));
  });
