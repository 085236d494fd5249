export { runPlan, type EngineOptions, type EngineResult, type RequestEvent } from './run-plan.js';
