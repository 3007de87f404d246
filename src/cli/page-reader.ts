import type { Config } from '../config/config.js';
import { webhookStreamState } from '../crawl/refresh/refresh-settings.js';
import { readRunDetail } from '../http/run-detail.js';
import type { StatusReader } from '../http/status-routes.js';
import { readSnapshot, type SnapshotSource } from '../http/status-snapshot.js';
import { localHolderIsDead } from '../app/local-holder.js';
import { refreshSettingsOf } from '../app/refresh-settings-of.js';

/** The status page's reader over a target, with what only the configuration knows: rates, webhook threshold. */
export function pageReader(config: Config, source: SnapshotSource, clock: () => number): StatusReader {
  const webhooks = refreshSettingsOf(config).webhooks;
  return {
    snapshot: () =>
      readSnapshot(source, {
        now: clock,
        allowedPerSecond: config.accounts.reduce((sum, a) => sum + a.rate, 0),
        holderIsDead: localHolderIsDead(),
        webhookDetail: (report, now) =>
          webhookStreamState(
            webhooks,
            report.lastDeliveryAt,
            report.nonFinal.authentications + report.nonFinal.fingerprints,
            now,
          ).detail,
      }),
    run: (id) => readRunDetail(source, id, clock()),
  };
}
