// ESLint (flat config): the recommended JavaScript and TypeScript rules, and
// the two the team's style asks for that a formatter cannot hold: lines of at
// most 120 characters and no `as unknown as` (a cast that turns the type
// checker off). Formatting itself is Prettier's (eslint-config-prettier turns
// the rules that would fight it off).
import eslint from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // sqlite-baseline.ts: written by test/store/sqlite-baseline.test.ts, SQLite's own text, lines as it keeps them.
  { ignores: ['dist/', 'coverage/', 'data/', 'test/fixtures/', 'src/store/drivers/sqlite/sqlite-baseline.ts'] },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  prettier,
  {
    plugins: { '@stylistic': stylistic },
    rules: {
      '@stylistic/max-len': ['error', { code: 120, tabWidth: 2, ignoreUrls: true }],
      'no-restricted-syntax': [
        'error',
        {
          // `x as unknown as T`: an `as` whose operand is itself an `as unknown`.
          selector: [
            'TSAsExpression',
            "[expression.type='TSAsExpression']",
            "[expression.typeAnnotation.type='TSUnknownKeyword']",
          ].join(''),
          message: 'No `as unknown as`: give the value a type it has (a guard, a parse, a typed builder) instead.',
        },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // A leading underscore says "not used, on purpose": a binding a loop or a
      // signature needs, or a key a rest element leaves out.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // `let x; ... () => x ...; x = ...`: a closure declared before the one
      // assignment reads x; a const there would be in its temporal dead zone.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Node scripts: the bin, this file.
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
