import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { readConfigFile } from '../../src/config/read-config-file.js';
import { InputError } from '../../src/errors.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const clock = () => 1_767_225_600_000;

function write(name: string, text: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}

const load = (path: string) => loadConfig({ flags: { config: path }, env: {}, clock });

describe('the config file, JSON or YAML', () => {
  it.each([
    [
      'ivsync.yaml',
      "# comments are fine\ndb: sqlite:yaml.sqlite # here too\ndaemon:\n  schedule: '*/7 * * * *'\napiVersion: 2\n",
    ],
    ['ivsync.yml', 'db: sqlite:yaml.sqlite\ndaemon: { schedule: "*/7 * * * *" }\napiVersion: "2"\n'],
    ['ivsync.json', '{"db": "sqlite:yaml.sqlite", "daemon": {"schedule": "*/7 * * * *"}, "apiVersion": "2"}'],
    ['ivsync.conf', '{"db": "sqlite:yaml.sqlite", "daemon": {"schedule": "*/7 * * * *"}, "apiVersion": "2"}'],
    ['ivsync', 'db: sqlite:yaml.sqlite\ndaemon:\n  schedule: "*/7 * * * *"\napiVersion: "2"\n'],
  ])('%s is read by its extension (else JSON, then YAML)', (name, text) => {
    const c = load(write(name, text));
    expect([c.db, c.daemon.schedule, c.accounts[0]!.apiVersion]).toEqual(['sqlite:yaml.sqlite', '*/7 * * * *', '2']);
  });

  it('an empty YAML file is an empty config', () => {
    expect(load(write('ivsync.yaml', '# nothing yet\n')).db).toBe('sqlite:./data/ivsync.sqlite');
  });

  it('looks for config/ivsync.json first, then config/ivsync.yaml, then .yml', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'config'));
    const exists = (present: string[]) => (p: string) => present.includes(p);
    const found = (present: string[]) =>
      readConfigFile(undefined, undefined, { fileExists: exists(present), readFile: () => '{}' }).path;
    expect(found(['./config/ivsync.json', './config/ivsync.yaml'])).toBe('./config/ivsync.json');
    expect(found(['./config/ivsync.yaml', './config/ivsync.yml'])).toBe('./config/ivsync.yaml');
    expect(found(['./config/ivsync.yml'])).toBe('./config/ivsync.yml');
    expect(found([])).toBeUndefined();
  });

  it.each([
    ['ivsync.yaml', 'crawl:\n  windowSeconds: 5\n', 'crawl.windowSeconds: expected a number at least 60, got 5'],
    ['ivsync.yaml', 'crawl:\n  concurrency: 2.5\n', 'crawl.concurrency: expected an integer, got 2.5'],
    [
      'ivsync.yaml',
      'crawl:\n  resources: [authentications, photos]\n',
      'crawl.resources.1: expected one of authentications, fingerprints, got "photos"',
    ],
    ['ivsync.yaml', 'apiVersion: 3\n', 'apiVersion: expected one of 1.4, 2, got 3'],
    [
      'ivsync.yaml',
      'baseUrl: api.example.com\n',
      'baseUrl: expected a URL (https://...), got a string of 15 characters',
    ],
    [
      'ivsync.yaml',
      'daemon:\n  shedule: "* * * * *"\n',
      'daemon.shedule: unknown member: check its spelling and section',
    ],
    ['ivsync.yaml', 'windowSeconds: 3600\n', 'windowSeconds: unknown member: check its spelling and section'],
    [
      'ivsync.yaml',
      'webhooks:\n  secret: 123456789012345678901234\n',
      'webhooks.secret: expected a string or a mapping of members, got number',
    ],
    [
      'ivsync.yaml',
      'daemon:\n  schedule: */5 * * * *\n',
      'is not valid YAML: Unexpected alias at node end at line 2, column 17; quote values that start with * (a ' +
        "cron schedule: '*/5 * * * *')",
    ],
    ['ivsync.yaml', '- a\n- b\n', 'must be a mapping of members (baseUrl, db, crawl, ...)'],
    [
      'ivsync.json',
      '{"db": "x",\n "webhooks": {"secret": "s3cr3t",}}',
      'is not valid JSON (line 2, column 34: expected double-quoted property name)',
    ],
    [
      'ivsync.json',
      '{"db": "x",\n "webhooks": {"secret": s3cr3t}}',
      'is not valid JSON: an unexpected character (a value without its quotes?)',
    ],
  ])('%s holding %j: names the file, the key path, what was expected and got', (name, text, problem) => {
    const path = write(name, text);
    let thrown: unknown;
    try {
      load(path);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InputError);
    expect((thrown as Error).message).toBe(`config file ${path}: ${problem}`);
    // A secret's value never appears in the message.
    expect((thrown as Error).message).not.toMatch(/s3cr3t|123456789012345678901234/);
  });

  it('an explicit file that cannot be read is reported with the flag or variable that named it', () => {
    const missing = join(tempDir(), 'nope.yaml');
    expect(() => loadConfig({ flags: { config: missing }, env: {}, clock })).toThrow(
      `--config: cannot read config file ${missing} (ENOENT)`,
    );
    expect(() => loadConfig({ flags: {}, env: { IVS_CONFIG: missing }, clock })).toThrow(
      `IVS_CONFIG: cannot read config file ${missing} (ENOENT)`,
    );
  });
});
