import type { ConfigFlags } from '../config/load-config.js';

/**
 * The parsed options the config loader resolves (flag > env > file > default).
 * Command options with a config member (--since, --resources, --schedule,
 * --timezone, --budget, --verify-every, --refresh-budget) are among them, so that every command reads the one resolved
 * value from Config and none resolves its own.
 */
export function configFlags(args: ConfigFlags): ConfigFlags {
  return {
    baseUrl: args.baseUrl,
    token: args.token,
    apiVersion: args.apiVersion,
    db: args.db,
    config: args.config,
    rate: args.rate,
    json: args.json,
    verbose: args.verbose,
    logLevel: args.logLevel,
    since: args.since,
    resources: args.resources,
    schedule: args.schedule,
    timezone: args.timezone,
    budget: args.budget,
    verifyEvery: args.verifyEvery,
    refreshBudget: args.refreshBudget,
  };
}
