import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseEnv } from 'node:util';
import { InputError } from '../errors.js';
import type { ConfigFileAccess } from './read-config-file.js';

/** The env file `ivsync init` writes beside the config file. */
export const ENV_FILE_NAME = 'ivsync.env';
/** Where the env file is looked for when no config file was found: where `ivsync init` writes it by default. */
export const DEFAULT_ENV_DIR = './config';

export interface EnvFile {
  /** Undefined when there is no env file. */
  path: string | undefined;
  vars: Readonly<Record<string, string>>;
}

/** The env file beside the config file (or in ./config when there is none), when it exists. */
export function envFilePath(configPath: string | undefined): string {
  return join(configPath === undefined ? DEFAULT_ENV_DIR : dirname(configPath), ENV_FILE_NAME);
}

/**
 * Reads the env file with Node's own dotenv parser (`KEY=value`, quotes, `#`
 * comments), so that what `init` wrote takes effect without a shell's
 * `set -a; . file`: the first `health` after `init` works as it is.
 */
export function readEnvFile(configPath: string | undefined, access: ConfigFileAccess = {}): EnvFile {
  const path = envFilePath(configPath);
  if (!(access.fileExists ?? existsSync)(path)) return { path: undefined, vars: {} };
  let text: string;
  try {
    text = (access.readFile ?? ((p: string) => readFileSync(p, 'utf8')))(path);
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new InputError('CONFIG_UNREADABLE', `cannot read env file ${path} (${reason})`, { value: path });
  }
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseEnv(text))) if (value !== undefined) vars[name] = value;
  return { path, vars };
}

/**
 * The environment as the loader sees it: the real variables over the env
 * file's (design.md: the file is "loaded when present, below real environment
 * variables"); a variable set but empty counts as unset, as it does for flags.
 */
export function layerEnv(
  real: Readonly<Record<string, string | undefined>>,
  file: Readonly<Record<string, string>>,
): Record<string, string | undefined> {
  const merged: Record<string, string | undefined> = { ...file };
  for (const [name, value] of Object.entries(real)) if (value !== undefined && value !== '') merged[name] = value;
  return merged;
}
