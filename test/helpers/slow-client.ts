import { connect, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

/** Request starts that never finish: nothing at all, headers without their end, a body cut short. */
export const SLOW_REQUESTS: readonly string[] = [
  '',
  'POST /webhooks HTTP/1.1\r\nHost: receiver\r\nContent-Type: application/json\r\n',
  'POST /webhooks HTTP/1.1\r\nHost: receiver\r\nContent-Type: application/json\r\nContent-Length: ' +
    '1000\r\nService-Signature: SHA256:AAAA\r\n\r\n{"channel":',
];

export interface SlowClient {
  /** What the server sent before it closed the connection. */
  readonly answer: () => string;
  readonly isClosed: () => boolean;
  /** Resolves when the connection closed, with the milliseconds since the request began. */
  readonly closed: Promise<number>;
}

/**
 * A connection over real TCP (or TLS with `ca`) that sends `start` and then
 * nothing more. It never closes on its own: the server must.
 */
export function openSlowClient(url: string, start: string, ca?: Buffer): Promise<SlowClient> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    let closedFlag = false;
    let begun = 0;
    const socket: Socket =
      ca === undefined
        ? connect(Number(port), hostname, onConnect)
        : connectTls({ host: hostname, port: Number(port), ca, servername: 'localhost' }, onConnect);
    const closed = new Promise<number>((done) =>
      socket.once('close', () => {
        closedFlag = true;
        done(Date.now() - begun);
      }),
    );
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    // A reset by the server is one way of closing; the test looks at `closed`.
    socket.on('error', (error) => {
      if (begun === 0) reject(error);
    });
    function onConnect(): void {
      begun = Date.now();
      if (start !== '') socket.write(start);
      resolve({ answer: () => answer, isClosed: () => closedFlag, closed });
    }
  });
}

/** The status code of an HTTP answer's first line, or null when the server sent nothing. */
export function statusOf(answer: string): number | null {
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(answer);
  return match ? Number(match[1]) : null;
}
