export { startSimulator, type RunningSimulator } from './simulator.js';
export type { SimulatorOptions } from './simulator-options.js';
export type { SimulatorStats } from './simulator-stats.js';
export { parseFaultSpec, type FaultSpec, type FaultKind } from './fault-spec.js';
export { World, type NewSession, type RangeSemantics, type LookupRule } from './world.js';
export type { SessionRecord, SimResource, BadItemKind } from './session-record.js';
export { WebhookDeliveries, type DeliveryStats, type ReleaseOrder } from './webhook-deliveries.js';
export { signDelivery } from './sign-delivery.js';
export { canonicalText } from './filter-match.js';
