import type { ServerResponse } from 'node:http';

/** Writes a JSON answer (or an empty one when `body` is undefined): the one JSON writer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/json; charset=utf-8',
): void {
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  sendText(res, status, JSON.stringify(body), headers, contentType);
}

/**
 * Writes an answer whose body is `text`, with its length: Node sends the head and the body in
 * one write to the socket.
 */
export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string>,
  contentType: string,
): void {
  res.writeHead(status, {
    ...headers,
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
