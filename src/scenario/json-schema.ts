/** The scenario file's JSON Schema, generated from the zod schema (input side: defaults optional). */
import * as z from 'zod';
import { ScenarioSchema } from './schema.js';

export function scenarioJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ScenarioSchema, { io: 'input', unrepresentable: 'any' }),
    $id: 'https://loadproof.dev/scenario.schema.json',
    title: 'loadproof scenario',
  };
}

/** The schema as the committed file holds it (stable key order, trailing newline). */
export function scenarioJsonSchemaText(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}
