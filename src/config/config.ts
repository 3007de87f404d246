import type { Secret } from './secret.js';

export type ApiVersion = '1.4' | '2';
export type ResourceName = 'authentications' | 'fingerprints';

/** One account: a token and where and how to use it. Each token gets its own rate bucket. */
export interface AccountConfig {
  /** Recorded in every row and window as `account`. @default 'default' */
  readonly name: string;
  /** Service root; plain http only for loopback hosts. */
  readonly baseUrl: string | undefined;
  /** Undefined when the environment variable holding it is not set. */
  readonly token: Secret | undefined;
  /** Name of the environment variable the token came from, for messages. */
  readonly tokenEnv: string;
  /** @default '1.4' */
  readonly apiVersion: ApiVersion;
  /** Requests per second for this token. @default 10 */
  readonly rate: number;
}

export interface CrawlConfig {
  /**
   * Size of the epoch windows the history is split into, in seconds: the
   * grain of checkpoints, refreshes and sealing. Adjacent windows are paged
   * by one request stream, so a sparse history costs no partial page per
   * window; dense windows are split further while paging. @default 604800 (one week)
   */
  readonly windowSeconds: number;
  /**
   * Most request streams at once per account. Streams are added only while
   * the token bucket has room, so this is a cap (enough to keep the bucket
   * full at 1 s latency), not the number that runs. @default 24
   */
  readonly concurrency: number;
  /**
   * How far behind the high-water mark `sync` starts again, in seconds. Sessions
   * recorded on offline devices are uploaded late with their original
   * timestamps; a day-long overlap catches devices that were offline for a
   * working day and a night. @default 86400
   */
  readonly overlapSeconds: number;
  /** Where the first `sync` on an empty target starts (epoch seconds). @default undefined */
  readonly since: number | undefined;
  /** @default ['authentications', 'fingerprints'] */
  readonly resources: readonly ResourceName[];
  /** A stream may cut its current window in two (when the bucket has room) only after this many pages. @default 4 */
  readonly splitAfterPages: number;
}

export interface HttpConfig {
  /** Per-request time-out. @default 30000 */
  readonly timeoutMs: number;
  /** @default 'en' */
  readonly acceptLanguage: 'en' | 'ja';
  /** @default 8 */
  readonly retryLimit: number;
  /** @default 500 */
  readonly retryBaseMs: number;
  /** @default 30000 */
  readonly retryMaxMs: number;
}

export interface V2Config {
  /** @default '2.0.0' */
  readonly apiVersionHeader: string;
  /** Overrides of the v2 paths (see README). */
  readonly paths: Readonly<Record<string, string>>;
}

export interface WebhookConfig {
  /** @default '/webhooks' */
  readonly path: string;
  /** Secrets by webhook uuid. */
  readonly secrets: Readonly<Record<string, Secret>>;
  /** Used for deliveries whose webhook uuid has no secret of its own. */
  readonly defaultSecret: Secret | undefined;
  /** @default 1048576 */
  readonly maxBodyBytes: number;
}

export interface DaemonConfig {
  /** node-cron expression. @default '*\/5 * * * *' */
  readonly schedule: string;
  /** @default 'UTC' */
  readonly timezone: string;
}

/** Everything a command needs, loaded once and frozen. */
export interface Config {
  readonly db: string;
  readonly json: boolean;
  readonly verbose: boolean;
  /** Path of the config file that was read, if any. */
  readonly configFile: string | undefined;
  readonly accounts: readonly AccountConfig[];
  readonly crawl: CrawlConfig;
  readonly http: HttpConfig;
  readonly v2: V2Config;
  readonly webhooks: WebhookConfig;
  readonly daemon: DaemonConfig;
  /** @default 'info' */
  readonly logLevel: string;
}
