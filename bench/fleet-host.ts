import { createRequire, syncBuiltinESMExports } from 'node:module';
import type * as Os from 'node:os';

// Preloaded with `node --import` into each daemon of the fleet bench: the
// daemons run on one host, but each must see the others as a deployment on
// several machines does, where a dead peer is known only by its silent
// heartbeat (on one host a dead holder's pid is checked and its leases are
// taken over at once). IVS_BENCH_HOSTNAME names this daemon's machine.
const name = process.env.IVS_BENCH_HOSTNAME;
if (name) {
  const os = createRequire(import.meta.url)('node:os') as typeof Os;
  os.hostname = () => name;
  syncBuiltinESMExports();
}
