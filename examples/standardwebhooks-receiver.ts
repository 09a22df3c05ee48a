/**
 * A clipgate webhook receiver on the `standardwebhooks` library.
 *
 * Run:   AUTH_KEY=<the receiver's authKey> PORT=8080 npx tsx examples/standardwebhooks-receiver.ts
 */
import { createServer, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';

export interface Notification {
  accountId: string;
  eventType: string;
  eventData: Record<string, unknown>;
  userData?: Record<string, unknown>;
}

/** The library's form of a key: `whsec_` + base64 of its bytes, here the authKey's UTF-8. */
export const webhookSecret = (authKey: string) =>
  `whsec_${Buffer.from(authKey, 'utf8').toString('base64')}`;

/** Answers 204 to each verified notification (once per webhook-id), 401 to anything else. */
export function receiver(
  authKey: string,
  onNotification: (notification: Notification, webhookId: string) => void,
): Server {
  const webhook = new Webhook(webhookSecret(authKey));
  // Attempts are retried with the same webhook-id: remember the ids seen (a real receiver keeps
  // them in its database for a while) and accept repeats without acting on them again.
  const seen = new Set<string>();
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let notification: Notification;
      try {
        // The exact bytes received, before any parsing; the timestamp must be within 5 minutes.
        notification = webhook.verify(
          Buffer.concat(chunks),
          req.headers as Record<string, string>,
        ) as Notification;
      } catch {
        res.writeHead(401).end();
        return;
      }
      const webhookId = String(req.headers['webhook-id']);
      if (!seen.has(webhookId)) {
        seen.add(webhookId);
        onNotification(notification, webhookId);
      }
      res.writeHead(204).end();
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const authKey = process.env.AUTH_KEY;
  if (!authKey) throw new Error('set AUTH_KEY to the key the receiver was registered with');
  const port = Number(process.env.PORT ?? 8080);
  receiver(authKey, ({ eventType, eventData, userData }, webhookId) =>
    console.log(`notification ${webhookId}: ${eventType}`, { eventData, userData }),
  ).listen(port, () => console.log(`receiver listening on port ${port}`));
}
