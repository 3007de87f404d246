import { resolve } from 'node:path';
import { yaml } from './lazy-packages.js';
import { DEFAULTS, type MemberPath, type SectionName } from './defaults.js';
import { MEMBER_DOCS, SECTION_DOCS, sourcesLine } from './member-docs.js';

const HEADER = [
  '# ivsync configuration, written by `ivsync init`: every member with its default.',
  '# Precedence for each option: flag > environment variable > ivsync.env > this file > default.',
  '# Secrets (the API token, webhook secrets) belong in the environment or in ivsync.env beside this file.',
];

/** A value on one line, quoted where YAML needs it ('1.4', '*\/5 * * * *'), lists and mappings in flow style. */
function inline(value: unknown): string {
  return yaml().stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trim();
}

function comment(text: string, indent: string): string[] {
  return text.split('\n').map((line) => `${indent}# ${line}`);
}

function member(path: MemberPath, key: string, value: unknown, indent: string): string[] {
  const doc = MEMBER_DOCS[path];
  const sources = sourcesLine(doc);
  const text = sources === undefined ? doc.text : `${doc.text}\n${sources}`;
  if (value === undefined) return [...comment(text, indent), `${indent}# ${key}: ${inline(doc.example ?? '')}`];
  // A list of mappings (the accounts) reads and edits better one member a line.
  const block = Array.isArray(value) && value.some((v) => v !== null && typeof v === 'object');
  const lines = block
    ? yaml()
        .stringify({ [key]: value })
        .trimEnd()
        .split('\n')
    : [`${key}: ${inline(value)}`];
  return [...comment(text, indent), ...lines.map((line) => `${indent}${line}`)];
}

function isSection(key: string, value: unknown): key is SectionName {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && key in SECTION_DOCS;
}

/**
 * The config file `ivsync init` writes, generated from DEFAULTS and
 * MEMBER_DOCS so that it lists every member and cannot drift from what the
 * loader does without it: loading it gives the defaults. A member without a
 * default is written commented out, with an example.
 */
export function configTemplate(): string {
  const lines = [...HEADER];
  for (const [key, value] of Object.entries(DEFAULTS)) {
    lines.push('');
    if (isSection(key, value)) {
      lines.push(...comment(SECTION_DOCS[key], ''), `${key}:`);
      for (const [inner, innerValue] of Object.entries(value as object)) {
        lines.push(...member(`${key}.${inner}` as MemberPath, inner, innerValue, '  '));
      }
    } else {
      lines.push(...member(key as MemberPath, key, value, ''));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** One variable of the env file: its comment, and a value when one is known (never a secret). */
export interface EnvEntry {
  name: string;
  text: string;
  /** Written uncommented when given; otherwise the line is `# NAME=` (or the example). */
  value?: string | undefined;
  example?: string;
}

/** The env file `ivsync init` writes: the secrets and the service's address, commented until filled in. */
export function envTemplate(path: string, entries: readonly EnvEntry[]): string {
  const lines = [
    '# Environment of ivsync, written by `ivsync init`: the secrets stay out of the config file.',
    '# Only its owner may read it (mode 0600). Fill in the values and remove the leading #:',
    '# ivsync reads this file from beside its config file; variables set in the environment win over it.',
    '# Other programs can load it too:',
    `#   a shell:  set -a; . ${path}; set +a`,
    `#   systemd:  EnvironmentFile=${resolve(path)}`,
    `#   Docker:   docker run --env-file ${path} ...`,
  ];
  for (const entry of entries) {
    lines.push('', ...comment(entry.text, ''));
    lines.push(entry.value !== undefined ? `${entry.name}=${entry.value}` : `# ${entry.name}=${entry.example ?? ''}`);
  }
  return `${lines.join('\n')}\n`;
}
