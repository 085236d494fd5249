import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { scenarioJsonSchema, scenarioJsonSchemaText } from './json-schema.js';

describe('scenario JSON Schema', () => {
  it('is committed as scenarios/scenario.schema.json, in sync with the zod schema (regenerate: loadproof schema > scenarios/scenario.schema.json)', () => {
    const committed = readFileSync(
      fileURLToPath(new URL('../../scenarios/scenario.schema.json', import.meta.url)),
      'utf8',
    );
    expect(committed).toBe(scenarioJsonSchemaText());
  });

  it('requires name, description and phases, and forbids unknown fields', () => {
    const schema = scenarioJsonSchema() as {
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, unknown>;
    };
    expect(schema.required).toEqual(['name', 'description', 'phases']);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toContain('on429');
  });
});
