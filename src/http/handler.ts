import type http from 'node:http';

/**
 * One link of the handler chain (server.ts): answers the request and resolves with its route
 * label for the metrics, or resolves undefined to pass it to the next handler. A thrown AppError
 * is the answer; anything else is logged and answered 500.
 */
export type HttpHandler = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  pathname: string,
) => Promise<string | undefined>;
