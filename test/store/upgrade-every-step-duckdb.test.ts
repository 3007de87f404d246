import { describeEveryStep } from './upgrade-every-step.js';

describeEveryStep('duckdb');
