import type { Knex } from 'knex';
import { applyStepsWithKnex, revertStepsWithKnex } from './knex-ddl.js';
import type { Migration } from '../migration/migration-step.js';

/**
 * Hands knex's migrator a list of migrations instead of a directory: each
 * one's steps, applied or reverted through knex.
 */
export class StaticMigrationSource implements Knex.MigrationSource<Migration> {
  readonly #migrations: readonly Migration[];

  constructor(migrations: readonly Migration[]) {
    this.#migrations = migrations;
  }

  getMigrations(): Promise<Migration[]> {
    return Promise.resolve([...this.#migrations]);
  }

  getMigrationName(migration: Migration): string {
    return migration.name;
  }

  getMigration(migration: Migration): Promise<Knex.Migration> {
    return Promise.resolve({
      up: (knex: Knex) => applyStepsWithKnex(knex, migration.steps),
      down: (knex: Knex) => revertStepsWithKnex(knex, migration.steps),
    });
  }
}
