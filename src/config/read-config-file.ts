import { existsSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { InputError, type InputSource } from '../errors.js';
import { yaml } from './lazy-packages.js';
import { DEFAULT_CONFIG_FILES } from './constants.js';
import { describeIssue } from './describe-issue.js';
import { fileSchema, type FileConfig } from './file-schema.js';

export { DEFAULT_CONFIG_FILES } from './constants.js';

export interface ConfigFileAccess {
  /** Reads the config file; injected so tests need no files. @default readFileSync(path, 'utf8') */
  readFile?: ((path: string) => string) | undefined;
  /** @default existsSync */
  fileExists?: ((path: string) => boolean) | undefined;
}

export interface ConfigFile {
  /** Undefined when no file was named and none of the default ones exists. */
  path: string | undefined;
  file: FileConfig;
}

type Format = 'json' | 'yaml';

function formatOf(path: string): Format | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  return undefined;
}

/**
 * The JSON parser's complaint and where it stopped, as line and column, without
 * the excerpt of the file V8 quotes in some messages (it could hold a secret).
 */
function jsonProblem(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const at = /^(.*) in JSON at position (\d+)/.exec(message);
  if (!at) return 'is not valid JSON: an unexpected character (a value without its quotes?)';
  const before = text.slice(0, Number(at[2]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `is not valid JSON (line ${line}, column ${column}: ${at[1]!.charAt(0).toLowerCase()}${at[1]!.slice(1)})`;
}

/**
 * The YAML parser's first line ("... at line 3, column 11"), without the excerpt after it; and the cron hint YAML users
 * need.
 */
function yamlProblem(error: unknown): string {
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/:$/, '');
  const hint = /alias/i.test(first) ? "; quote values that start with * (a cron schedule: '*/5 * * * *')" : '';
  return `is not valid YAML: ${first}${hint}`;
}

function parseText(
  text: string,
  format: Format | undefined,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (format !== 'yaml') {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (error) {
      if (format === 'json') return { ok: false, problem: jsonProblem(text, error) };
    }
  }
  try {
    // An empty file, or one of comments only, is an empty config.
    return { ok: true, value: yaml().parse(text, { uniqueKeys: true }) ?? {} };
  } catch (error) {
    return {
      ok: false,
      problem:
        format === 'yaml'
          ? yamlProblem(error)
          : `is neither JSON nor YAML: ${yamlProblem(error).replace(/^is not valid YAML: /, '')}`,
    };
  }
}

/** Which file to read: the one --config or IVS_CONFIG names, else the first default that exists. */
export function locateConfigFile(
  flag: string | undefined,
  env: string | undefined,
  exists: (path: string) => boolean,
): { path: string; source: InputSource | undefined } | undefined {
  if (flag !== undefined) return { path: flag, source: { kind: 'flag', name: '--config' } };
  if (env !== undefined && env !== '') return { path: env, source: { kind: 'env', name: 'IVS_CONFIG' } };
  const found = DEFAULT_CONFIG_FILES.find((p) => exists(p));
  return found === undefined ? undefined : { path: found, source: undefined };
}

/**
 * Reads and validates the config file: JSON or YAML by its extension (`.json`,
 * `.yaml`, `.yml`; any other is tried as JSON, then YAML). Every error names
 * the file, the member's key path, what was expected and what was found.
 */
export function readConfigFile(
  flag: string | undefined,
  env: string | undefined,
  access: ConfigFileAccess = {},
): ConfigFile {
  const located = locateConfigFile(flag, env, access.fileExists ?? existsSync);
  if (located === undefined) return { path: undefined, file: {} };
  const { path } = located;
  let text: string;
  try {
    text = (access.readFile ?? ((p: string) => readFileSync(p, 'utf8')))(path);
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new InputError('CONFIG_UNREADABLE', `cannot read config file ${path} (${reason})`, {
      source: located.source,
      value: path,
    });
  }
  const whole: InputSource = { kind: 'config', key: '', file: path };
  const parsed = parseText(text, formatOf(path));
  if (!parsed.ok) throw new InputError('CONFIG_INVALID', parsed.problem, { source: whole });
  const checked = fileSchema().safeParse(parsed.value);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    if (issue.path.length === 0 && issue.code === 'invalid_type') {
      throw new InputError('CONFIG_INVALID', 'must be a mapping of members (baseUrl, db, crawl, ...)', {
        source: whole,
      });
    }
    const { key, problem, value } = describeIssue(issue, parsed.value);
    throw new InputError('CONFIG_INVALID', problem, { source: { kind: 'config', key, file: path }, value });
  }
  return { path, file: checked.data };
}
