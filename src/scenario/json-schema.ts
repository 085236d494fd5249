/** The scenario file's JSON Schema, generated from the zod schema (input side: defaults optional). */
import * as z from 'zod';

import { ScenarioSchema } from './scenario-schema.js';
import { ByPhaseSchema } from './threshold-schema.js';

/** What a file holds where the loader makes a Map: a mapping of phase names to threshold lists. */
const BY_PHASE = {
  type: 'object',
  propertyNames: { type: 'string' },
  additionalProperties: { type: 'array', items: { type: 'string' } },
};

/** A default as a file would write it: Maps as mappings. */
const asJson = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v)));

export function scenarioJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ScenarioSchema, {
      io: 'input',
      unrepresentable: 'any',
      override: ({ zodSchema, jsonSchema }) => {
        if (zodSchema === ByPhaseSchema) Object.assign(jsonSchema, BY_PHASE);
        // zod leaves out the default of a field whose parsing transforms (the Map above); put it back.
        const def = zodSchema._zod.def;
        if (def.type === 'default' && jsonSchema.default === undefined) {
          // First, where zod writes a default.
          const rest = { ...jsonSchema };
          for (const key of Object.keys(rest)) delete jsonSchema[key];
          Object.assign(jsonSchema, { default: asJson(def.defaultValue) }, rest);
        }
      },
    }),
    $id: 'https://loadproof.dev/scenario.schema.json',
    title: 'loadproof scenario',
  };
}

/** The schema as the committed file holds it (stable key order, trailing newline). */
export function scenarioJsonSchemaText(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}
