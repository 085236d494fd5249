export { runPlan, shift, type EngineOptions, type EngineResult, type RequestEvent } from './run-plan.js';
