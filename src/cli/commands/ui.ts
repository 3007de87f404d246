import { requireExposure } from '../../http/exposure.js';
import { startHttpServer } from '../../http/http-server.js';
import { buildRouter } from '../../http/router.js';
import { openSink } from '../../store/open-sink.js';
import { UserError } from '../../errors.js';
import { EXIT, type CliCommand } from '../command.js';
import { pageReader } from '../page-reader.js';
import { USES } from './option-sets.js';

interface UiArgs {
  port: number;
  host: string;
}

/** The status page of a target without a daemon: read-only, as `status` reads it. */
export const uiCommand: CliCommand<UiArgs> = {
  command: 'ui',
  describe: 'serve the status page of a target without a daemon, read-only (GET /, GET /api/status, GET /runs/:id)',
  uses: USES.target,
  examples: [['$0 ui --db sqlite:./data/ivsync.sqlite --port 8089', 'the page at http://127.0.0.1:8089/']],
  builder: (yargs) =>
    yargs
      .option('port', { type: 'number', default: 8089, describe: 'port to serve the page on (0 picks a free one)' })
      .option('host', {
        type: 'string',
        default: '127.0.0.1',
        describe: 'address to listen on; beyond loopback every route but /healthz needs IVS_UI_TOKEN as a bearer token',
      }),
  run: async ({ args, io, config: load }) => {
    const config = load();
    const exposure = requireExposure(args.host, io.env);
    // Read-only: the page never migrates, creates or writes the target.
    const sink = await openSink(config.db, { readOnly: true, retrySeconds: config.store.retrySeconds });
    let server;
    try {
      const app = buildRouter({
        exposure,
        health: () => ({ status: 200, body: { status: 'ok' } }),
        status: pageReader(config, sink, io.clock),
      });
      server = await startHttpServer({ app, port: args.port, host: args.host });
    } catch (error) {
      await sink.close();
      throw new UserError(
        'LISTEN_FAILED',
        `cannot listen on ${args.host}:${args.port}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    io.stdout.write(
      config.json
        ? `${JSON.stringify({ url: `${server.url}/` })}\n`
        : `status page at ${server.url}/ (read-only); stop with Ctrl-C\n`,
    );
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) resolve();
      io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.close();
    await sink.close();
    return EXIT.ok;
  },
};
