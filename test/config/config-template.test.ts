import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configTemplate } from '../../src/config/config-template.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { loadConfig } from '../../src/config/load-config.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const clock = () => 1_767_225_600_000;

describe('the config file ivsync init writes', () => {
  it('loads back to exactly the defaults', () => {
    const path = join(tempDir(), 'ivsync.yaml');
    writeFileSync(path, configTemplate());
    const fromFile = loadConfig({ flags: { config: path }, env: {}, clock });
    const withoutFile = loadConfig({ flags: {}, env: {}, clock, fileExists: () => false });
    expect({ ...fromFile, configFile: undefined }).toEqual(withoutFile);
  });

  it('lists every member of DEFAULTS with its value, and comments each one', () => {
    const text = configTemplate();
    const parsed = parse(text) as Record<string, unknown>;
    const defined = JSON.parse(JSON.stringify(DEFAULTS)) as Record<string, unknown>;
    expect(parsed).toEqual(defined);
    // A member without a default is there too, commented out with an example.
    expect(text).toMatch(/^# baseUrl: https:\/\/api\.example\.com$/m);
    expect(text).toMatch(/^ {2}# since: 2024-01-01$/m);
    // Every member line has a comment line right above it.
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (/^( {2})?(# )?[a-zA-Z]+:/.test(line) && !/^( {2})?# [A-Z]/.test(line))
        expect(lines[i - 1], line).toMatch(/^\s*#/);
    });
  });
});
