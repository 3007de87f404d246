import { STATUS_CODES, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { Server as TlsServer } from 'node:tls';

/** Why the server hosting the receiver turned a request away before the receiver had all of it. */
export type ConnectionRefusal = 'request-timeout' | 'connection-limit';

export interface ConnectionLimits {
  /**
   * A request whose headers and body have not all arrived this long after it
   * began is answered 408 and its connection closed.
   * @default 30000
   */
  requestTimeoutMs?: number;
  /**
   * The same for the headers alone (a connection that sends nothing included),
   * and for the TLS handshake when the server speaks HTTPS.
   * @default the smaller of 10000 and requestTimeoutMs
   */
  headersTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this. @default 5000 */
  keepAliveTimeoutMs?: number;
  /**
   * On a graceful stop, how long a request under way may take to arrive
   * before its connection is closed.
   * @default 2000
   */
  stopGraceMs?: number;
  /**
   * Open connections at most. A connection beyond it closes the oldest one
   * that is idle or still sending its request; requests that have fully
   * arrived are never cut off. Only when every open connection is being
   * answered is the new one refused.
   * @default 256
   */
  maxConnections?: number;
}

/** Told of every request the guard turns away, with the client's address. */
export type OnRefusal = (reason: ConnectionRefusal, remote: string | undefined) => void;

/** What the guard knows about one open connection. */
interface OpenConnection {
  /** The request on it that has not been answered yet. */
  req: IncomingMessage | undefined;
  res: ServerResponse | undefined;
  /** At least one answer went out: without a request now it is an idle keep-alive connection. */
  served: boolean;
}

function rawResponse(status: number, body = ''): string {
  const length =
    body === ''
      ? ''
      : `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n${length}\r\n${body}`;
}

function remoteOf(socket: Duplex): string | undefined {
  // The server hands out net (or TLS) sockets; the event types only promise a stream.
  return (socket as Partial<Socket>).remoteAddress;
}

// Node's own answers to client errors, kept: its parser and time-outs raise them, this guard only counts.
const CLIENT_ERROR_STATUS: Readonly<Record<string, number>> = {
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
};
const SHED = rawResponse(503, '{"error":"the receiver has too many connections; deliver again"}');

/**
 * Bounds what slow or idle clients can hold on a server that hosts the
 * webhook receiver (`webhooks serve` and the daemon share it): a request
 * time-out, a headers time-out, a keep-alive time-out, and a cap on open
 * connections.
 *
 * Node's `server.maxConnections` refuses every new socket once the cap is
 * reached, so a few hundred clients that trickle their bodies would lock the
 * service's deliveries out until they time out. Here a new connection
 * instead closes the oldest connection that is idle or still sending, so a
 * delivery that sends its request at once always gets in, and a slow client
 * keeps its place for no longer than the newest `maxConnections` arrivals.
 *
 * One guard per server: pass `serverOptions` to `createServer`, then `watch` it.
 */
export class ConnectionGuard {
  readonly #requestTimeoutMs: number;
  readonly #headersTimeoutMs: number;
  readonly #keepAliveTimeoutMs: number;
  readonly #maxConnections: number;
  readonly #stopGraceMs: number;
  readonly #onRefusal: OnRefusal;
  /** Insertion order is age: the first entry is the oldest connection. */
  readonly #open = new Map<Duplex, OpenConnection>();
  #server: HttpServer | HttpsServer | undefined;
  #stopping: Promise<void> | undefined;

  constructor(limits: ConnectionLimits = {}, onRefusal: OnRefusal = () => undefined) {
    this.#requestTimeoutMs = limits.requestTimeoutMs ?? 30_000;
    this.#headersTimeoutMs = limits.headersTimeoutMs ?? Math.min(10_000, this.#requestTimeoutMs);
    this.#keepAliveTimeoutMs = limits.keepAliveTimeoutMs ?? 5_000;
    this.#maxConnections = limits.maxConnections ?? 256;
    this.#stopGraceMs = limits.stopGraceMs ?? 2_000;
    for (const [name, value] of Object.entries({
      requestTimeoutMs: this.#requestTimeoutMs,
      headersTimeoutMs: this.#headersTimeoutMs,
      keepAliveTimeoutMs: this.#keepAliveTimeoutMs,
      maxConnections: this.#maxConnections,
      stopGraceMs: this.#stopGraceMs,
    })) {
      if (!Number.isInteger(value) || value < 1)
        throw new RangeError(`${name} must be a positive integer, got ${value}`);
    }
    this.#onRefusal = onRefusal;
  }

  /**
   * Options for `http.createServer` / `https.createServer`; the time-outs can only be checked often enough when given
   * there.
   */
  get serverOptions(): {
    requestTimeout: number;
    headersTimeout: number;
    connectionsCheckingInterval: number;
    handshakeTimeout: number;
  } {
    const shortest = Math.min(this.#headersTimeoutMs, this.#requestTimeoutMs);
    return {
      requestTimeout: this.#requestTimeoutMs,
      headersTimeout: this.#headersTimeoutMs,
      // Node checks the time-outs this often (30 s by default), so a limit is kept to within a tenth of it, at most a
      // second late.
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(shortest / 10))),
      handshakeTimeout: this.#headersTimeoutMs,
    };
  }

  watch(server: HttpServer | HttpsServer): void {
    this.#server = server;
    server.keepAliveTimeout = this.#keepAliveTimeoutMs;
    // Over TLS the HTTP layer works on the socket of the finished handshake; handshakes are bounded by
    // handshakeTimeout.
    const event = server instanceof TlsServer ? 'secureConnection' : 'connection';
    server.on(event, (socket: Duplex) => this.#admit(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.#track(req, res));
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => this.#clientError(error, socket));
  }

  /**
   * Graceful stop of the watched server: no new connections; idle ones and
   * those whose request has not begun are closed at once; requests under way
   * get `stopGraceMs` to arrive before their connections are closed too
   * (nothing of theirs is stored, the service delivers again), so a slow
   * client cannot hold the stop for a request time-out. `drain` waits for the
   * requests that arrived to be answered; then the rest is closed.
   */
  stop(drain: () => Promise<void> = async () => undefined): Promise<void> {
    const server = this.#server;
    if (server === undefined) return Promise.resolve();
    return (this.#stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      this.#closeArriving((connection) => connection.req === undefined);
      const grace = setTimeout(() => this.#closeArriving(() => true), this.#stopGraceMs);
      try {
        await drain();
      } finally {
        clearTimeout(grace);
      }
      server.closeAllConnections();
      await closed;
    })());
  }

  /** Closes the connections whose request has not fully arrived and that `which` picks. */
  #closeArriving(which: (connection: OpenConnection) => boolean): void {
    for (const [socket, connection] of [...this.#open])
      if (connection.req?.complete !== true && which(connection)) this.#close(socket, undefined);
  }

  #admit(socket: Duplex): void {
    if (this.#open.size >= this.#maxConnections && !this.#makeRoom()) {
      this.#onRefusal('connection-limit', remoteOf(socket));
      this.#close(socket, SHED);
      return;
    }
    this.#open.set(socket, { req: undefined, res: undefined, served: false });
    socket.once('close', () => this.#open.delete(socket));
  }

  #track(req: IncomingMessage, res: ServerResponse): void {
    const connection = this.#open.get(req.socket);
    if (connection === undefined) return;
    connection.req = req;
    connection.res = res;
    res.once('close', () => {
      if (connection.res !== res) return;
      connection.req = undefined;
      connection.res = undefined;
      connection.served = true;
    });
  }

  /**
   * Closes an idle keep-alive connection, else the oldest one still sending; false when every connection is being
   * answered.
   */
  #makeRoom(): boolean {
    let sending: [Duplex, OpenConnection] | undefined;
    for (const entry of this.#open) {
      const [socket, connection] = entry;
      if (connection.req === undefined && connection.served) {
        // Costs its client a reconnect, nothing more: not a refusal.
        this.#close(socket, undefined);
        return true;
      }
      if (sending === undefined && connection.req?.complete !== true) sending = entry;
    }
    if (sending === undefined) return false;
    this.#onRefusal('connection-limit', remoteOf(sending[0]));
    this.#close(sending[0], sending[1].res?.headersSent === true ? undefined : SHED);
    return true;
  }

  #close(socket: Duplex, answer: string | undefined): void {
    this.#open.delete(socket);
    if (answer !== undefined && socket.writable) socket.write(answer);
    socket.destroy();
  }

  #clientError(error: NodeJS.ErrnoException, socket: Duplex): void {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') this.#onRefusal('request-timeout', remoteOf(socket));
    const answered = this.#open.get(socket)?.res?.headersSent === true;
    // A reset peer reads nothing; a started answer cannot be followed by another.
    if (socket.writable && !answered && error.code !== 'ECONNRESET')
      socket.write(rawResponse(CLIENT_ERROR_STATUS[error.code ?? ''] ?? 400));
    // Done with now, not at its 'close' event: a connection arriving meanwhile must not shed it, and count it, again.
    this.#open.delete(socket);
    socket.destroy(error);
  }
}
