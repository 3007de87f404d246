import { InputError } from '../../errors.js';
import { EXIT, type CliCommand } from '../command.js';

interface SimulateArgs {
  port: number;
  host: string;
  sessions: number;
  seed: number;
  latency?: string;
  faults?: string;
  poison?: number;
  'range-semantics'?: string;
  'cursor-style': 'string' | 'array';
}

function parseLatency(text: string | undefined): number | [number, number] | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  if (!m)
    throw new InputError('BAD_LATENCY', `must be MS or MIN-MAX in milliseconds, got '${text}'`, {
      source: { kind: 'flag', name: '--latency' },
      value: text,
    });
  return m[2] === undefined ? Number(m[1]) : [Number(m[1]), Number(m[2])];
}

function parseSemantics(
  text: string | undefined,
): { start: 'inclusive' | 'exclusive'; end: 'inclusive' | 'exclusive' } | undefined {
  if (text === undefined) return undefined;
  const m = /^(inclusive|exclusive),(inclusive|exclusive)$/.exec(text);
  if (!m)
    throw new InputError('BAD_RANGE', `must be START,END with inclusive|exclusive, got '${text}'`, {
      source: { kind: 'flag', name: '--range-semantics' },
      value: text,
    });
  return { start: m[1] as 'inclusive' | 'exclusive', end: m[2] as 'inclusive' | 'exclusive' };
}

export const simulateCommand: CliCommand<SimulateArgs> = {
  command: 'simulate',
  describe: 'start the built-in fake of the service (token test-token unless --token is given)',
  uses: ['token', 'rate', 'json', 'verbose'],
  usage: 'simulate --port P',
  examples: [
    ['$0 simulate --port 8787 --sessions 5000', 'a fake service with 5000 sessions at http://127.0.0.1:8787'],
    [
      '$0 simulate --port 8787 --rate 5 --faults 500=0.05,429=0.02',
      'a strict and flaky one, to try retries and back-off',
    ],
  ],
  builder: (yargs) =>
    yargs
      .option('token', {
        type: 'string',
        describe: 'the token the simulator accepts [env IVS_API_TOKEN] (default test-token)',
      })
      // The simulator enforces its own limit, like the service does: ivsync's --rate is the client side of it.
      .option('rate', {
        type: 'number',
        describe:
          "the simulator's own rate limit: requests per second it allows each token before answering 429 (not " +
          "ivsync's budget)",
      })
      .option('port', { type: 'number', default: 8787, describe: 'port to listen on (0: any free port)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on' })
      .option('sessions', { type: 'number', default: 1000, describe: 'sessions the token owns' })
      .option('seed', { type: 'number', default: 1, describe: 'seed of the generated world' })
      .option('latency', { type: 'string', describe: 'added latency: MS or MIN-MAX' })
      .option('faults', {
        type: 'string',
        describe: 'fault injection, e.g. 500=0.05,reset=0.02,truncate=0.02,slow=0.01:3000,429=0.01',
      })
      .option('poison', {
        type: 'number',
        describe: 'share of sessions sent with U+0000 and lone surrogates in their text, e.g. 0.01 (default 0)',
      })
      .option('range-semantics', {
        type: 'string',
        describe: 'how range edges compare: START,END each inclusive|exclusive (default inclusive,exclusive)',
      })
      .option('cursor-style', {
        choices: ['string', 'array'] as const,
        default: 'string' as const,
        describe: 'next_cursor as a string, or as an array of strings ending with null or []',
      }),
  run: async ({ args, io }) => {
    const token = args.token ?? io.env.IVS_API_TOKEN ?? 'test-token';
    const latency = parseLatency(args.latency);
    const rangeSemantics = parseSemantics(args['range-semantics']);
    const poison = args.poison;
    if (poison !== undefined && !(poison >= 0 && poison <= 1)) {
      throw new InputError('BAD_SHARE', `must be a share between 0 and 1, got ${String(poison)}`, {
        source: { kind: 'flag', name: '--poison' },
        value: poison,
      });
    }
    // Loaded on demand: the simulator is not part of a sync's footprint.
    const { startSimulator } = await import('../../simulator/index.js');
    const sim = await startSimulator({
      host: args.host,
      port: args.port,
      seed: args.seed,
      sessions: args.sessions,
      tokens: { [token]: 'alice' },
      ...(args.rate !== undefined ? { rate: args.rate } : {}),
      ...(latency !== undefined ? { latencyMs: latency } : {}),
      ...(args.faults !== undefined ? { faults: args.faults } : {}),
      ...(poison !== undefined ? { poisonShare: poison } : {}),
      ...(rangeSemantics ? { rangeSemantics } : {}),
      cursorStyle: args['cursor-style'],
    });
    const info = { url: sim.url, sessions: args.sessions, seed: args.seed };
    io.stdout.write(
      args.json
        ? `${JSON.stringify(info)}\n`
        : `simulator listening on ${sim.url} (${args.sessions} sessions, seed ${args.seed}); stop with Ctrl-C\n`,
    );
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) resolve();
      io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await sim.close();
    return EXIT.ok;
  },
};
