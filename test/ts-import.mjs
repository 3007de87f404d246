import { registerHooks } from 'node:module';

/*
 * The sources import each other by their built names (`./crawler.js`), as TypeScript's NodeNext resolution wants;
 * run as TypeScript by Node itself (vitest.config.ts), such a path that finds no file is the `.ts` beside it.
 */
registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (error) {
      const relative = specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:');
      if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !relative || !specifier.endsWith('.js')) throw error;
      return next(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
});
