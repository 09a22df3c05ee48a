/**
 * A minimal clipgate webhook receiver to copy from.
 *
 * Run:   AUTH_KEY=<the receiver's authKey> PORT=8080 npx tsx examples/receiver.ts
 * Then register http://<this host>:8080/ as the receiver URL (plain http only where the service
 * allows it). Every notification is verified against the raw body before it is trusted: the
 * Standard Webhooks signature, with a timestamp at most 5 minutes off (against replays): 204
 * when it holds, 401 otherwise. A failed delivery is retried with the same webhook-id: the ids
 * seen are remembered, and a repeat is acknowledged without acting on it again. Outside this
 * repository import `verifyNotification` from 'clipgate/receiver'.
 */
import { createServer } from 'node:http';
import { verifyNotification } from '../src/notifications/receiver.ts';

const authKey = process.env.AUTH_KEY;
if (!authKey) throw new Error('set AUTH_KEY to the key the receiver was registered with');
const port = Number(process.env.PORT ?? 8080);
/**
 * The webhook-ids acted on, each with when it came (unix seconds). A real receiver keeps them in
 * its database; they need keeping only as long as the timestamp tolerance lets a repeat in.
 */
const seen = new Map<string, number>();

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
    const now = Math.floor(Date.now() / 1000);
    for (const [id, at] of seen) {
      if (at >= now - 600) break; // oldest first
      seen.delete(id);
    }
    if (!seen.has(verdict.webhookId)) {
      seen.set(verdict.webhookId, now);
      const { accountId, eventType, eventData, userData } = JSON.parse(rawBody.toString('utf8'));
      console.log(`notification ${verdict.webhookId}:`, {
        accountId,
        eventType,
        eventData,
        userData,
      });
    }
    res.writeHead(204).end();
  });
}).listen(port, () => console.log(`receiver listening on port ${port}`));
