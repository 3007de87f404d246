import type { Dialect } from '../../schema/dialect.js';
import type { StepView } from './migration-step.js';

/** The view's SQL for one dialect, its `{{name}}` fragments filled in. */
export function viewSql(view: StepView, dialect: Dialect): string {
  return view.sql.replace(/\{\{(\w+)\}\}/g, (_match, name: string) => {
    const fragment = view.fragments?.[name]?.[dialect];
    if (fragment === undefined) throw new Error(`view ${view.name}: no fragment ${name} for ${dialect}`);
    return fragment;
  });
}
