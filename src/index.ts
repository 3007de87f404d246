/**
 * ivsync as a library (`import { openTarget } from 'ivsync'`), for jobs that
 * embed it instead of running the CLI. The CLI is built on the same modules.
 *
 * Only re-exports, one module a line: what is public is read off this list,
 * and a new entry point is one more line.
 */
export { runSync, type SyncRunOptions, type SyncReport } from './crawl/runs/run-sync.js';
export { runBackfill, type BackfillRunOptions, type BackfillReport } from './crawl/runs/run-backfill.js';
export type { RunDeps, RunAccount } from './crawl/runs/run-deps.js';
export type { RunLeases } from './crawl/runs/run-recorder.js';
export type { RunRecord, RunStatus } from './crawl/runs/run-recorder.js';
export type { CrawlEvent } from './crawl/engine/crawl-deps.js';
export { openRun, type OpenRunOptions, type OpenedRun } from './embed.js';
export {
  openSink as openTarget,
  type OpenSinkOptions as OpenTargetOptions,
  type StoreLogger,
} from './store/open-sink.js';
export type { QueryableSink } from './store/sql-sink.js';
export type {
  Sink,
  StatusReport,
  WindowStatus,
  WindowKey,
  WindowState,
  LeaseState,
  RunStart,
  RunEnd,
  CommitResult,
} from './store/sink.js';
export {
  startSimulator,
  type RunningSimulator,
  type SimulatorOptions,
  type SimulatorStats,
  type FaultSpec,
} from './simulator/index.js';
export {
  createClient,
  type ClientOptions,
  type ServiceClient,
  type ApiVersion,
  type Resource,
  type SearchRequest,
  type SearchPage,
  type Fetched,
  type ClientStats,
  type RequestEvent,
  type RetryPolicyOptions,
  type V2Paths,
} from './api/client.js';
export { RateLimiter, type RateLimiterOptions } from './api/rate-limiter.js';
export { Secret } from './config/secret.js';
export { loadConfig, type ConfigSources, type ConfigFlags } from './config/load-config.js';
export type {
  Config,
  AccountConfig,
  CrawlConfig,
  HttpConfig,
  V2Config,
  WebhookConfig,
  DaemonConfig,
  ResourceName,
} from './config/config.js';
export { IvsyncError, UserError, RetriableError, FatalError, InterruptedError } from './errors.js';
