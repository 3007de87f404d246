/** One metric family of a Prometheus text exposition (format 0.0.4). */
export interface MetricFamily {
  help: string | undefined;
  type: string | undefined;
  samples: Array<{ name: string; labels: Record<string, string>; value: number }>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;

/**
 * A strict parser of the text format: every line is a comment (# HELP, # TYPE)
 * or a sample `name{label="value",...} number`; anything else throws. Samples
 * belong to the family of their name, or of its _bucket/_sum/_count base.
 */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const family = (name: string): MetricFamily => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { help: undefined, type: undefined, samples: [] }));
    return f;
  };
  text.split('\n').forEach((line, index) => {
    const where = `line ${index + 1}: ${line}`;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) return;
      if (!NAME.test(m[2]!)) throw new Error(`bad metric name, ${where}`);
      if (m[1] === 'HELP') family(m[2]!).help = m[3];
      else {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(m[3]!))
          throw new Error(`bad type, ${where}`);
        family(m[2]!).type = m[3];
      }
      return;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/.exec(line);
    if (!m) throw new Error(`not a sample, ${where}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const start = LABEL.lastIndex;
      const l = LABEL.exec(body);
      if (!l || l.index !== start) throw new Error(`bad labels, ${where}`);
      labels[l[1]!] = l[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    const value = Number(m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : m[3]);
    // Prometheus reads NaN in any case (Go's ParseFloat); prom-client writes `Nan` for an empty event-loop histogram.
    if (Number.isNaN(value) && m[3]!.toLowerCase() !== 'nan') throw new Error(`bad value, ${where}`);
    const name = m[1]!;
    const base = families.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    family(families.has(base) ? base : name).samples.push({ name, labels, value });
  });
  return families;
}
