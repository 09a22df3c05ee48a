import { BREAK, GraphQLError, Kind, visit, type ASTNode, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { findUnstorableString, type UnstorableString } from '../schemas.ts';

/** The first string literal of a document PostgreSQL cannot store, named by its argument. */
function inDocument(document: DocumentNode): UnstorableString | undefined {
  let found: UnstorableString | undefined;
  visit(document, {
    StringValue(node, _key, parent, _path, ancestors) {
      // The ancestors leave out the parent, the argument or object field of a literal.
      const names = [...ancestors, parent ?? []].flatMap((a: ASTNode | readonly ASTNode[]) =>
        'kind' in a && (a.kind === Kind.ARGUMENT || a.kind === Kind.OBJECT_FIELD)
          ? [a.name.value]
          : 'kind' in a && a.kind === Kind.VARIABLE_DEFINITION
            ? [a.variable.name.value]
            : [],
      );
      found = findUnstorableString(node.value, names.join('.'));
      return found ? BREAK : undefined;
    },
  });
  return found;
}

/**
 * Refuses an operation carrying a string PostgreSQL's text and jsonb cannot store (NUL, an
 * unpaired surrogate), in its variables or its document's literals, as INVALID_ARGUMENT naming
 * the variable's or argument's path, before it runs (over HTTP, SSE and WebSocket alike): such a
 * string would otherwise reach a statement and fail there as an internal error.
 */
export function refuseUnstorableStrings(): { plugin: Plugin; check: UnstorableCheck } {
  /** Per parsed document (Yoga caches them): its literals are checked once. */
  const documents = new WeakMap<DocumentNode, UnstorableString | null>();
  const check: UnstorableCheck = (args) => {
    let found = documents.get(args.document);
    if (found === undefined) {
      found = inDocument(args.document) ?? null;
      documents.set(args.document, found);
    }
    const unstorable = found ?? findUnstorableString(args.variableValues ?? {}, 'variables');
    if (!unstorable) return undefined;
    return new GraphQLError(unstorable.message, {
      extensions: {
        code: 'INVALID_ARGUMENT',
        details: { field: unstorable.field },
        // As the other refusals before execution: 400 with application/graphql-response+json.
        http: { status: 400, spec: true },
      },
    });
  };
  return {
    plugin: {
      onExecute({ args, setResultAndStopExecution }) {
        const error = check(args);
        if (error) setResultAndStopExecution({ errors: [error] });
      },
      onSubscribe({ args, setResultAndStopExecution }) {
        const error = check(args);
        if (error) setResultAndStopExecution({ errors: [error] });
      },
    },
    // The check itself, for the prepared plain POSTs (./prepared.ts), which run without envelop.
    check,
  };
}

/** The refusal of an operation carrying an unstorable string; undefined when it carries none. */
export type UnstorableCheck = (args: {
  document: DocumentNode;
  variableValues?: Record<string, unknown> | null;
}) => GraphQLError | undefined;
