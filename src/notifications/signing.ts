import { createHmac } from 'node:crypto';

function hmacBase64(authKey: string, ...parts: (Uint8Array | string)[]): string {
  const hmac = createHmac('sha256', Buffer.from(authKey, 'utf8'));
  for (const part of parts) hmac.update(part);
  return hmac.digest('base64');
}

/** The X-Vendor-Verify value: base64 HMAC-SHA256 over the exact body bytes. */
export function vendorSignature(body: Uint8Array | string, authKey: string): string {
  return hmacBase64(authKey, body);
}

/** The Standard Webhooks `webhook-signature` value: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`. */
export function standardSignature(
  webhookId: string,
  timestamp: number,
  body: Uint8Array | string,
  authKey: string,
): string {
  return `v1,${hmacBase64(authKey, `${webhookId}.${timestamp}.`, body)}`;
}

/**
 * Every header of one delivery attempt; `timestamp` is the attempt's time in unix seconds. While
 * a rotation's overlap lasts (`previousAuthKey`), `webhook-signature` carries a signature with
 * each key, the current one first; X-Vendor-Verify has room for one: the current key's.
 */
export function notificationHeaders(args: {
  body: Uint8Array;
  authKey: string;
  previousAuthKey?: string | undefined;
  webhookId: string;
  timestamp: number;
  userAgent: string;
}): Record<string, string> {
  const { body, authKey, previousAuthKey, webhookId, timestamp, userAgent } = args;
  let signature = standardSignature(webhookId, timestamp, body, authKey);
  if (previousAuthKey !== undefined) {
    signature += ` ${standardSignature(webhookId, timestamp, body, previousAuthKey)}`;
  }
  return {
    'Content-Type': 'application/json',
    'Content-Length': String(body.byteLength),
    'User-Agent': userAgent,
    'X-Vendor-Verify': vendorSignature(body, authKey),
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
  };
}
