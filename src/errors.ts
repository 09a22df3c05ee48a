/** The error codes of the public contract, with their HTTP status. */
export const errorStatus = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  /** Apollo's persisted queries: a document's hash the service does not know (GraphQL only). */
  PERSISTED_QUERY_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorDetails {
  /** The offending request field, when there is one. */
  field?: string;
  /** Character offset into a filter expression, for filter errors. */
  position?: number;
  [key: string]: unknown;
}

/**
 * An error meant for the client. Everything thrown that is not an AppError is reported as
 * INTERNAL with a generic message (and logged), so internals never leak.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  /** Extra response headers, e.g. WWW-Authenticate or Retry-After. */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    details: ErrorDetails = {},
    headers: Record<string, string> = {},
  ) {
    // Only an INTERNAL error's stack is ever logged. Capturing one costs every refusal (each 429
    // of a flood) a walk of the stack, and GraphQL formats the stack of each error it wraps.
    const stackTraceLimit = Error.stackTraceLimit;
    if (code !== 'INTERNAL') Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return errorStatus[this.code];
  }

  toJSON(): { error: { code: ErrorCode; message: string; details: ErrorDetails } } {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

export const invalidArgument = (field: string, message: string, extra: ErrorDetails = {}) =>
  new AppError('INVALID_ARGUMENT', message, { field, ...extra });

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);

/** A path that exists, asked with a method it does not take; `Allow` lists the ones it does. */
export const methodNotAllowed = (method: string | undefined, allowed: readonly string[]) =>
  new AppError(
    'METHOD_NOT_ALLOWED',
    `${method} is not allowed here; use ${allowed.join(' or ')}`,
    { allowed: [...allowed] },
    { Allow: allowed.join(', ') },
  );

export const conflict = (message: string) => new AppError('CONFLICT', message);

export const unauthenticated = (message: string) =>
  new AppError('UNAUTHENTICATED', message, {}, { 'WWW-Authenticate': 'Bearer' });

export const permissionDenied = (scope: string) =>
  new AppError(
    'PERMISSION_DENIED',
    `this operation requires the scope ${scope}`,
    { scope },
    { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
  );
