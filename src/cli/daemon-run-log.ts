import type { BackfillReport } from '../crawl/runs/run-backfill.js';
import type { SyncReport } from '../crawl/runs/run-sync.js';
import type { VerifyReport } from '../crawl/runs/run-verify.js';
import { syncJson } from './commands/sync.js';
import { verifyJson } from './commands/verify.js';
import type { Logger } from './logger.js';

/** A verify's report as one structured log record: drift is a warning, for whoever reads the logs. */
export function logVerify(daemonLogger: Logger, report: VerifyReport): void {
  const logger = daemonLogger.child({ run: report.runId });
  const { run: _run, findings, ...figures } = verifyJson(report);
  const fields = {
    ...figures,
    findings: (findings as unknown[]).length,
    ...(report.error ? { error: report.error.message } : {}),
  };
  if (report.error) logger.warn(fields, `verify ${report.status}`);
  else if (report.findings.length > 0)
    logger.warn(
      { ...fields, drift: report.findings.slice(0, 20) },
      `verify found ${report.findings.length} findings: the copy drifted from the service (ivsync verify ` +
        `--repair fixes it)`,
    );
  else logger.info(fields, 'verify found no drift');
}

/** A run's report as one structured log record: the daemon has no terminal. */
export function logReport(daemonLogger: Logger, report: SyncReport | BackfillReport): void {
  // Under the run's own id, the one sync_runs holds: the daemon's id is on its own records.
  const logger = daemonLogger.child({ run: report.runId });
  const fields = {
    command: report.command,
    account: report.account,
    status: report.status,
    requests: report.requests,
    itemsWritten: report.itemsWritten,
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    ...('outcomes' in report
      ? { outcomes: syncJson(report).outcomes }
      : { items: report.items, pages: report.pages, failedWindows: report.failedWindows.length }),
    ...(report.error ? { error: report.error.message } : {}),
  };
  if (report.status === 'succeeded') logger.info(fields, `${report.command} finished`);
  else logger.warn(fields, `${report.command} ${report.status}`);
}
