export { type EngineResult, type RequestEvent, runPlan, shift } from './run-plan.js';
