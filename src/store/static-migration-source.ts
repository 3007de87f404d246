import type { Knex } from 'knex';
import type { MigrationFile } from '../../migrations/index.js';

/** Hands knex's migrator the statically imported migration list instead of a directory. */
export class StaticMigrationSource implements Knex.MigrationSource<MigrationFile> {
  readonly #migrations: readonly MigrationFile[];

  constructor(migrations: readonly MigrationFile[]) {
    this.#migrations = migrations;
  }

  getMigrations(): Promise<MigrationFile[]> {
    return Promise.resolve([...this.#migrations]);
  }

  getMigrationName(migration: MigrationFile): string {
    return migration.name;
  }

  getMigration(migration: MigrationFile): Promise<Knex.Migration> {
    return Promise.resolve({ up: (knex: Knex) => migration.up(knex), down: (knex: Knex) => migration.down(knex) });
  }
}
