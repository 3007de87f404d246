import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlertMessage } from '../../src/daemon/alert-message.js';

/** The secret part of a chat tool's incoming-webhook URL: it must never reach the daemon's output. */
export const HOOK_SECRET = 'alert-path-secret-4711';
const HOOK_PATH = `/services/T0001/B0001/${HOOK_SECRET}`;

export interface AlertReceiver {
  url: string;
  messages: AlertMessage[];
  /** Requests answered in all, refused ones included. */
  requests: number;
  close(): Promise<void>;
}

/** A local HTTP receiver of alerts that refuses the first `refuse` requests with 503, as one restarting would. */
export async function startAlertReceiver(refuse = 0): Promise<AlertReceiver> {
  const receiver = { messages: [] as AlertMessage[], requests: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.requests++;
      if (req.method !== 'POST' || req.url !== HOOK_PATH || req.headers['content-type'] !== 'application/json') {
        res.writeHead(400).end();
        return;
      }
      if (receiver.requests <= refuse) {
        res.writeHead(503).end();
        return;
      }
      receiver.messages.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as AlertMessage);
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}${HOOK_PATH}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
