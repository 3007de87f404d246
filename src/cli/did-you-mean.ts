import { distance } from 'fastest-levenshtein';

/**
 * The known name a typed one most likely meant: the nearest by edit distance
 * when that is a slip of the fingers (a third of its letters at most, one at
 * least), else the only known name it begins (an abbreviation); undefined
 * when nothing is near.
 */
export function suggestion(typed: string, known: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  let best: { name: string; cost: number } | undefined;
  for (const name of known) {
    const cost = distance(word, name.toLowerCase());
    if (best === undefined || cost < best.cost) best = { name, cost };
  }
  if (best !== undefined && best.cost <= Math.max(1, Math.floor(word.length / 3))) return best.name;
  const starting = word.length >= 3 ? known.filter((name) => name.toLowerCase().startsWith(word)) : [];
  return starting.length === 1 ? starting[0] : undefined;
}

/** What the parser knows where the mistake was made: the options and sub-commands there, and the words typed. */
export interface UsageContext {
  options: readonly string[];
  commands: readonly string[];
  argv: readonly string[];
}

/**
 * The part of yargs' usage instance, which yargs hands its fail callback as
 * the third argument (@types/yargs declares it an Argv), that tells what the
 * parser knew where it failed.
 */
interface ParserUsage {
  getDescriptions(): Record<string, unknown>;
  getCommands(): ReadonlyArray<readonly [string, ...unknown[]]>;
}

function isParserUsage(value: unknown): value is ParserUsage {
  if (typeof value !== 'object' || value === null) return false;
  return (
    'getDescriptions' in value &&
    typeof value.getDescriptions === 'function' &&
    'getCommands' in value &&
    typeof value.getCommands === 'function'
  );
}

/** The options and sub-commands where the parser stopped; none when yargs handed over something else. */
export function usageContext(usage: unknown, argv: readonly string[]): UsageContext {
  if (!isParserUsage(usage)) return { options: [], commands: [], argv };
  // A command is declared with its positionals (`query <sql>`): its name is the first word.
  const commands = usage.getCommands().map(([name]) => name.split(' ')[0]!);
  return { options: Object.keys(usage.getDescriptions()), commands, argv };
}

function typedAsOption(name: string, argv: readonly string[]): boolean {
  const spellings = [`--${name}`, `-${name}`, `--no-${name}`];
  return argv.some((arg) => spellings.includes(arg) || arg.startsWith(`--${name}=`));
}

function unknownWord(name: string, context: UsageContext): string {
  if (typedAsOption(name, context.argv)) {
    const near = suggestion(name, context.options);
    return `unknown option --${name}${near === undefined ? '' : `: did you mean --${near}?`}`;
  }
  const near = suggestion(name, context.commands);
  if (near !== undefined) return `unknown command '${name}': did you mean ${near}?`;
  return context.commands.length > 0 ? `unknown command '${name}'` : `unexpected argument '${name}'`;
}

/**
 * The parser's complaint, said with what it most likely meant. yargs words
 * an unknown flag `Unknown argument: resurce` and an unknown command, with
 * recommendCommands, only `Did you mean status?`: both become one line that
 * names the word typed and the nearest known one.
 */
export function explainUsage(message: string, context: UsageContext): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (unknown) {
    // yargs lists an unknown `--since-x` twice, as typed and camel-cased (`sinceX`).
    const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    const names = [...new Set(unknown[1]!.split(', ').map(kebab))];
    return names.map((name) => unknownWord(name, context)).join('; ');
  }
  const recommended = /^Did you mean (.+)\?$/.exec(message);
  if (recommended) {
    const meant = recommended[1]!;
    const words = context.argv.filter(
      (arg) => !arg.startsWith('-') && arg !== meant && !context.commands.includes(arg),
    );
    const typed = words.sort((a, b) => distance(a, meant) - distance(b, meant))[0];
    return typed === undefined ? message : `unknown command '${typed}': did you mean ${meant}?`;
  }
  return message;
}
