import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { parsePrometheusText } from '../daemon/prometheus-text.js';
import { servedUrl } from '../helpers/served-url.js';
import { until } from '../helpers/wait.js';
import { announcePromtool, PROMTOOL, promtool } from '../helpers/promtool.js';
import { spawnIvsync, type Child } from '../helpers/run-cli.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_START } from '../helpers/truth.js';

const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));
const RULES_DIR = join(DEPLOY, 'prometheus');

announcePromtool('Prometheus rule and exposition checks');
const tempDir = useTempDir();

interface Panel {
  type: string;
  title: string;
  targets?: Array<{ expr: string }>;
}

/** The PromQL of every query of the dashboard. */
function dashboardQueries(): string[] {
  const dashboard = JSON.parse(readFileSync(join(DEPLOY, 'grafana', 'ivsync.json'), 'utf8')) as {
    uid: string;
    panels: Panel[];
    templating: { list: Array<{ query: unknown }> };
  };
  const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  const variables = dashboard.templating.list.flatMap((v) =>
    typeof v.query === 'string' && v.query.includes('(') ? [v.query] : [],
  );
  return [...exprs, ...variables];
}

/** The PromQL of every alerting rule. */
function ruleQueries(): string[] {
  const file = parseYaml(readFileSync(join(RULES_DIR, 'ivsync.rules.yml'), 'utf8')) as {
    groups: Array<{ rules: Array<{ expr: string }> }>;
  };
  return file.groups.flatMap((g) => g.rules.map((r) => r.expr));
}

/** The ivsync metric names a query reads (up is Prometheus's own). */
function metricNames(query: string): string[] {
  return [...new Set(query.match(/\bivsync_[a-zA-Z0-9_]+/g) ?? [])];
}

describe('the dashboard and the rules', () => {
  it('the dashboard is a Grafana dashboard whose every panel queries ivsync metrics', () => {
    const dashboard = JSON.parse(readFileSync(join(DEPLOY, 'grafana', 'ivsync.json'), 'utf8')) as {
      uid: string;
      title: string;
      panels: Panel[];
    };
    expect(dashboard.uid).toBe('ivsync');
    const panels = dashboard.panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(10);
    for (const panel of panels) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? [])
        expect(metricNames(target.expr).length + (/\bup\{/.test(target.expr) ? 1 : 0), target.expr).toBeGreaterThan(0);
    }
  });

  it.runIf(PROMTOOL !== undefined)('promtool checks the rules and passes their unit tests', () => {
    const checked = promtool(['check', 'rules', 'ivsync.rules.yml'], { cwd: RULES_DIR });
    expect(checked.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(checked.code).toBe(0);
    const tested = promtool(['test', 'rules', 'ivsync.rules.test.yml'], { cwd: RULES_DIR });
    expect(tested.output).toMatch(/SUCCESS/);
    expect(tested.code).toBe(0);
  });

  it.runIf(PROMTOOL !== undefined)("the rules' unit tests can fail: a wrong expectation is reported", () => {
    const dir = tempDir();
    const tests = readFileSync(join(RULES_DIR, 'ivsync.rules.test.yml'), 'utf8').replace(
      '4 findings in 6 hours',
      '5 findings in 6 hours',
    );
    const rules = readFileSync(join(RULES_DIR, 'ivsync.rules.yml'), 'utf8');
    writeFileSync(join(dir, 'ivsync.rules.test.yml'), tests);
    writeFileSync(join(dir, 'ivsync.rules.yml'), rules);
    const tested = promtool(['test', 'rules', 'ivsync.rules.test.yml'], { cwd: dir });
    expect(tested.code).not.toBe(0);
    expect(tested.output).toMatch(/IvsyncVerifyDrift/);
  });
});

describe("a live daemon's /metrics", () => {
  let sim: RunningSimulator;
  let child: Child;
  let text: string;
  // Its own directory: the daemon runs across the tests of this block, past useTempDir's per-test clean-up.
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-test-'));

  beforeAll(async () => {
    sim = await startSimulator({ sessions: 150, seed: 61, rate: 100, burst: 100, faults: '429=0.05' });
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${join(dir, 'ivsync.sqlite')}`,
      IVS_CONFIG: writeConfig(dir),
      IVS_RATE: '100',
      IVS_WEBHOOK_SECRET: 'hook-secret-of-the-exposition-daemon',
    };
    child = spawnIvsync(
      [
        'daemon',
        '--schedule',
        '*/2 * * * * *',
        '--since',
        String(HISTORY_START),
        '--verify-every',
        '1d',
        '--port',
        '0',
      ],
      env,
    );
    const base = await servedUrl(child);
    text = await until(
      async () => {
        try {
          const body = await (await fetch(`${base}/metrics`)).text();
          // After a sync and its verify: the status read after the tick fills the windows and the refresh tiers.
          return /ivsync_runs_total\{command="verify",status="succeeded"\} [1-9]/.test(body) &&
            /ivsync_windows\{/.test(body)
            ? body
            : undefined;
        } catch {
          return undefined;
        }
      },
      60_000,
      'a scrape after a sync and a verify',
    );
  }, 90_000);

  afterAll(async () => {
    child?.kill('SIGTERM');
    await child?.exited;
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has no blank lines, and every counter ends in _total', () => {
    expect(
      text
        .split('\n')
        .slice(0, -1)
        .filter((line) => line.trim() === ''),
    ).toEqual([]);
    const families = parsePrometheusText(text);
    const counters = [...families].filter(([, f]) => f.type === 'counter').map(([name]) => name);
    expect(counters.length).toBeGreaterThan(5);
    expect(counters.filter((name) => !name.endsWith('_total'))).toEqual([]);
    const others = [...families].filter(([, f]) => f.type !== 'counter').map(([name]) => name);
    expect(others.filter((name) => name.endsWith('_total'))).toEqual([]);
  });

  it.runIf(PROMTOOL !== undefined)('passes promtool check metrics', () => {
    const checked = promtool(['check', 'metrics'], { input: text });
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);
  });

  it('exports every metric the dashboard and the rules query', () => {
    const families = parsePrometheusText(text);
    const exported = new Set<string>();
    for (const [name, family] of families) {
      exported.add(name);
      if (family.type === 'histogram')
        for (const suffix of ['_bucket', '_sum', '_count']) exported.add(`${name}${suffix}`);
    }
    const used = new Set([...dashboardQueries(), ...ruleQueries()].flatMap(metricNames));
    expect(used.size).toBeGreaterThan(15);
    expect([...used].filter((name) => !exported.has(name)).sort()).toEqual([]);
  });
});
