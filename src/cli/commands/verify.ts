import { randomInt } from 'node:crypto';
import { DEFAULTS } from '../../config/defaults.js';
import { parseBounds } from '../../config/interval.js';
import { runVerify, type VerifyReport } from '../../crawl/runs/run-verify.js';
import { USES } from './option-sets.js';
import { EXIT, FINISHING_PAGES, type CliCommand } from '../command.js';
import { RequestProgress } from '../request-progress.js';
import { loggerFor, selectAccounts, withRunDeps } from '../runtime.js';
import { renderTable } from '../text-table.js';
import { withResources } from './crawl-options.js';
import { leaseTtl, withLeaseOptions, type LeaseArgs } from './lease-options.js';

interface VerifyArgs extends LeaseArgs {
  budget?: number;
  from?: string;
  to?: string;
  seed?: string;
  repair?: boolean;
  resources?: string;
}

export const verifyCommand: CliCommand<VerifyArgs> = {
  command: 'verify',
  onStop: FINISHING_PAGES,
  describe:
    'page a random sample of stored windows again within a request budget and report drift from the service ' +
    '(exit 4 when some); --repair fixes it',
  uses: USES.crawl,
  examples: [
    ['$0 verify --budget 200', 'check a sample within 200 requests; exit 4 on drift'],
    ['$0 verify --from 2024-06-01 --to 2024-06-30 --repair', 'check June 2024 and fix what drifted'],
  ],
  builder: (yargs) =>
    withLeaseOptions(withResources(yargs))
      .option('budget', {
        type: 'number',
        describe:
          `most requests to spend [env IVS_VERIFY_BUDGET] (default: verify.budget, else ` +
          `${DEFAULTS.verify.budget})`,
      })
      .option('from', {
        type: 'string',
        describe: 'only windows from this time: ISO 8601 or epoch seconds (default: the whole stored history)',
      })
      .option('to', { type: 'string', describe: 'only windows up to this time (inclusive)' })
      .option('seed', {
        type: 'string',
        describe: 'seed of the sample: the same seed picks the same windows again (default: a random one, printed)',
      })
      .option('repair', {
        type: 'boolean',
        describe:
          'merge what was fetched (newer never loses), mark sessions no longer returned missing, and reopen ' +
          'the windows that drifted',
      }),
  run: async ({ args, io, config: load, runId: runIdOf }) => {
    const config = load();
    // --budget is resolved and checked by the loader (flag > env > file): config.verify.budget.
    const budget = config.verify.budget;
    const now = io.clock() / 1000;
    const { from, to } = parseBounds({ from: args.from, to: args.to }, { from: '--from', to: '--to' }, now);
    const selected = selectAccounts(config, args.account);
    const seed = args.seed ?? String(randomInt(2 ** 31));
    const runId = runIdOf();
    const logger = loggerFor(config, io, runId);
    // Opened only when it exists already: verify never creates the target it is asked to check.
    let progress: RequestProgress | undefined;
    const onRequest = () => progress?.onRequest();
    const runOptions = {
      runId,
      logger,
      ttlSeconds: leaseTtl(args),
      existing: true,
      wait: args.wait ?? false,
      onRequest,
    };
    const report = await withRunDeps(config, io, selected, runOptions, (deps) => {
      logger.info(
        { budget, seed, from, to, repair: args.repair ?? false },
        `verify: paging a sample of the stored windows within ${budget} requests (seed ${seed})`,
      );
      // Drawn once the target is open and the leases held: a refusal before that needs no bar.
      const tty = Boolean(io.stderr.isTTY) && !config.json;
      progress = new RequestProgress({ tty, stream: io.stderr, logger, budget, label: 'verify' });
      return runVerify(deps, {
        runId,
        accounts: selected.map((a) => a.name),
        resources: config.crawl.resources,
        budget,
        seed,
        from,
        to,
        repair: args.repair ?? false,
        wait: args.wait ?? false,
      }).finally(() => progress?.stop());
    });
    for (const f of report.failed) logger.error(f, 'window could not be paged');
    io.stdout.write(config.json ? `${JSON.stringify(verifyJson(report))}\n` : renderVerify(report));
    if (report.error) throw report.error;
    return report.findings.length > 0 ? EXIT.drift : EXIT.ok;
  },
};

/** `verify --json`: the run's figures and every finding. */
export function verifyJson(report: VerifyReport): Record<string, unknown> {
  return {
    run: report.runId,
    status: report.status,
    budget: report.budget,
    seed: report.seed,
    requests: report.requests,
    candidates: report.candidates,
    windowsChecked: report.windowsChecked,
    sealedChecked: report.sealedChecked,
    sessionsChecked: report.sessionsChecked,
    partial: report.partial,
    failed: report.failed,
    repaired: report.repaired,
    findings: report.findings,
  };
}

const day = (epoch: number): string => new Date(epoch * 1000).toISOString().slice(0, 10);

export function renderVerify(report: VerifyReport): string {
  const lines = [
    `verify ${report.runId}: ${report.windowsChecked} of ${report.candidates} stored windows paged in full ` +
      `(${report.sealedChecked} sealed), ` +
      `${report.sessionsChecked} sessions compared, ${report.requests} requests (budget ${report.budget}, seed ` +
      `${report.seed})\n`,
  ];
  for (const p of report.partial) {
    lines.push(
      `partial: the budget ended inside ${p.account}/${p.resource} window ${day(p.windowStart)} after ` +
        `${p.pagesPaged} of ~${p.pagesEstimated} pages: ` +
        `what was paged was compared, sessions no longer returned there were not looked for (raise --budget)\n`,
    );
  }
  if (report.candidates === 0)
    lines.push('nothing to verify: no stored window has completed a pass (run backfill or sync first)\n');
  if (report.findings.length === 0) {
    lines.push('no drift found\n');
  } else {
    const count = (kind: string) => report.findings.filter((f) => f.kind === kind).length;
    const n = report.findings.length;
    lines.push(
      `${n} finding${n === 1 ? '' : 's'}: ${count('missing_locally')} missing locally, ` +
        `${count('not_returned')} no longer returned, ${count('changed')} changed values\n`,
    );
    lines.push(
      renderTable(
        ['account', 'resource', 'window', 'service_id', 'kind', 'column', 'stored', 'service'],
        report.findings.map((f) => [
          f.account,
          f.resource,
          day(f.windowStart),
          f.serviceId,
          f.kind,
          f.column,
          f.storedValue,
          f.serviceValue,
        ]),
      ),
    );
  }
  if (report.repaired !== null) {
    const reopened = new Set(report.findings.map((f) => `${f.account}/${f.resource}/${f.windowStart}`)).size;
    lines.push(`repaired ${report.repaired} sessions; ${reopened} windows reopened for the next crawl\n`);
  }
  return lines.join('');
}
