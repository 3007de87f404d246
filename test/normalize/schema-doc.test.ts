import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SCHEMA_DOC_COMMAND, renderSchemaDoc } from '../../src/store/schema-doc.js';
import { TABLES } from '../../src/schema/schema.js';
import type { TableDef, ViewDef } from '../../src/schema/schema.js';

const DOC = fileURLToPath(new URL('../../docs/schema.md', import.meta.url));

describe('docs/schema.md', () => {
  it('is the rendered schema', () => {
    const onDisk = readFileSync(DOC, 'utf8');
    expect(
      onDisk === renderSchemaDoc(),
      `docs/schema.md is out of date with src/schema/schema.ts or views.ts; regenerate it with: ${SCHEMA_DOC_COMMAND}`,
    ).toBe(true);
  });

  it('names every table and every column', () => {
    const doc = renderSchemaDoc();
    for (const t of TABLES) {
      expect(doc).toContain(`## ${t.name}\n`);
      for (const c of t.columns) expect(doc).toContain(`| \`${c.name}\` | ${c.type} | `);
    }
  });

  it('renders a table, its key, nullability, paths and escapes cells; and views', () => {
    const t: TableDef = {
      name: 'things',
      description: 'Things | stuff <b>',
      primaryKey: ['id'],
      indexes: [{ columns: ['a', 'b'], unique: true }],
      columns: [
        { name: 'id', type: 'text', description: 'Key.', v14: 'thing.id', nullable: true },
        { name: 'a', type: 'json', description: 'A.', v2: 'x.<name>' },
        { name: 'b', type: 'real', description: 'B.', nullable: false },
        { name: 'at', type: 'timestamp', description: 'When.' },
      ],
    };
    const v: ViewDef = { name: 'v_things', description: 'All things.', sql: 'select 1' };
    const doc = renderSchemaDoc([t], [v]);
    expect(doc).toContain('Things \\| stuff &lt;b>');
    expect(doc).toContain('Primary key: `id`.');
    expect(doc).toContain('Indexes: (`a`, `b`) unique.');
    // A primary key column is never null, whatever the definition says.
    expect(doc).toContain('| `id` | text | text | VARCHAR | text | no | Key. | `thing.id` |  |');
    expect(doc).toContain('| `a` | json | text | JSON | json | yes | A. |  | `x.<name>` |');
    expect(doc).toContain('| `b` | real | float | DOUBLE | double precision | no | B. |  |  |');
    expect(doc).toContain('| `at` | timestamp | text | TIMESTAMPTZ | timestamptz | yes | When. |  |  |');
    expect(doc).toContain('| `v_things` | All things. |');
    expect(renderSchemaDoc([t], [])).toContain('No views are defined.');
  });
});
