/**
 * A minimal clipgate webhook receiver to copy from.
 *
 * Run:   AUTH_KEY=<the receiver's authKey> PORT=8080 npx tsx examples/receiver.ts
 * Then register http://<this host>:8080/ as the receiver URL (plain http only where the service
 * allows it). Every notification is verified against the raw body before it is trusted:
 * 204 when the signature is valid, 401 otherwise. A failed delivery is retried with the same
 * webhook-id, so use it to drop duplicates. Outside this repository import
 * `verifyNotification` from 'clipgate/receiver'.
 */
import { createServer } from 'node:http';
import { verifyNotification } from '../src/notifications/receiver.ts';

const authKey = process.env.AUTH_KEY;
if (!authKey) throw new Error('set AUTH_KEY to the key the receiver was registered with');
const port = Number(process.env.PORT ?? 8080);

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks); // verify the exact bytes, before any JSON parsing
    const verdict = verifyNotification(rawBody, req.headers, authKey);
    if (!verdict.ok) {
      console.warn(`rejected notification: ${verdict.reason}`);
      res.writeHead(401).end();
      return;
    }
    const { accountId, eventType, eventData, userData } = JSON.parse(rawBody.toString('utf8'));
    console.log(
      `notification ${String(req.headers['webhook-id'] ?? '')} (${verdict.scheme} signature):`,
      { accountId, eventType, eventData, userData },
    );
    res.writeHead(204).end();
  });
}).listen(port, () => console.log(`receiver listening on port ${port}`));
