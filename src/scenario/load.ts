/**
 * Scenario file → Scenario: parse YAML or JSON, refuse secrets, validate with the zod schema,
 * report every problem (field path, value, what was expected), then resolve durations to ms.
 */
import { dirname, resolve as resolvePath } from 'node:path';

import type * as z from 'zod';

import { describeValue, ScenarioError } from '../core/index.js';
import { toDotPath } from './dot-path.js';
import { parseDurationMs } from './duration.js';
import { parseScenarioText, readScenarioText } from './parse-text.js';
import { type ScenarioInput, ScenarioSchema } from './scenario-schema.js';
import { parseErrorCheck, parseThreshold, type Threshold } from './threshold.js';

/** One phase, resolved: a constant phase has fromRpm = toRpm. */
export interface Phase {
  readonly name: string;
  readonly durationMs: number;
  readonly fromRpm: number;
  readonly toRpm: number;
  /** Leading part left out of the steady-state verdict (ms). */
  readonly warmupMs: number;
}

/** A validated scenario with defaults applied and durations in milliseconds; frozen. */
export interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly target: ScenarioInput['target'];
  readonly phases: readonly Phase[];
  readonly arrivals: ScenarioInput['arrivals'];
  readonly payload: ScenarioInput['payload'];
  /** identification: one request per arrival; deid: one document per arrival, through the chain. */
  readonly mode: ScenarioInput['mode'];
  readonly deid: ScenarioInput['deid'];
  readonly on429: {
    readonly policy: 'record' | 'retry';
    readonly maxAttempts: number;
    readonly baseDelayMs: number;
    readonly maxDelayMs: number;
  };
  readonly timeoutMs: number;
  readonly maxInFlight: number;
  readonly windowMs: number;
  readonly thresholds: {
    readonly documentedTargets: boolean;
    /** Every phase's error check (`thresholds.errors`, default rate < 1 %), or null for none. */
    readonly errors: Threshold | null;
    readonly all: readonly Threshold[];
    /** Thresholds by phase name; a Map, since names are the user's text (a phase may be named `constructor`). */
    readonly byPhase: ReadonlyMap<string, readonly Threshold[]>;
  };
  readonly notice?: ScenarioInput['notice'];
  readonly coordination?: ScenarioInput['coordination'];
  readonly limits?: ScenarioInput['limits'];
}

/** Keys that look like a secret; the schema's own `clientSecretEnv` names a variable and is allowed. */
const SECRET_KEY = /secret|passw(or)?d|token|api[-_]?key|authorization|bearer|credential_value/i;
// payload.split.maxTokens counts model tokens, not an access token.
const ALLOWED_KEYS = new Set(['clientSecretEnv', 'credentials', 'maxTokens']);

/** Paths of secret-looking keys; their values are removed from `value` so no message can echo them. */
function extractSecretKeys(value: unknown, path: PropertyKey[] = []): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const found: string[] = [];
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    if (!Array.isArray(value) && SECRET_KEY.test(key) && !ALLOWED_KEYS.has(key)) {
      found.push(
        `${toDotPath([...path, key])}: a secret does not belong in a scenario file (its value is not shown); name the environment variables that hold the credentials in target.credentials, or pass --credentials <file>`,
      );
      delete (value as Record<string, unknown>)[key];
    } else {
      found.push(...extractSecretKeys(child, [...path, Array.isArray(value) ? Number(key) : key]));
    }
  }
  return found;
}

/** The value at `path` in the parsed document (undefined when absent). */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value instanceof Map) value = value.get(key);
    // Own properties only: a user's key such as "constructor" must not reach Object.prototype.
    else
      value =
        typeof value === 'object' && value !== null && Object.hasOwn(value, key)
          ? (value as Record<PropertyKey, unknown>)[key]
          : undefined;
  }
  return value;
}

/** Messages that say so themselves: the value is not appended. */
const VALUE_NOT_SHOWN = 'value not shown';

/**
 * One line per problem: `path: what was expected, got <value>` (objects and lists are not echoed).
 * Nothing under target.credentials is echoed, not even a key: what a user types there by mistake
 * is likely the secret itself.
 */
function formatIssue(issue: z.core.$ZodIssue, raw: unknown): string[] {
  const credentials = issue.path[0] === 'target' && issue.path[1] === 'credentials';
  if (issue.code === 'unrecognized_keys') {
    if (credentials)
      return issue.keys.map(
        () => `${toDotPath(issue.path)}: unknown field (its name is not shown; expected clientIdEnv, clientSecretEnv)`,
      );
    return issue.keys.map(
      (key) => `${toDotPath([...issue.path, key])}: unknown field (check its spelling against loadproof schema)`,
    );
  }
  if (credentials && issue.path.length === 2)
    return [
      `${toDotPath(issue.path)}: expected a mapping of fields (clientIdEnv, clientSecretEnv); ${VALUE_NOT_SHOWN}`,
    ];
  if (credentials)
    return [
      `${toDotPath(issue.path)}: not a variable name (expected letters, digits and _, not starting with a digit; ${VALUE_NOT_SHOWN})`,
    ];
  const value = valueAt(raw, issue.path);
  if (issue.code === 'invalid_value' && issue.message.startsWith('Invalid option')) {
    // zod's default wording quotes each option; ours lists them.
    return [
      `${toDotPath(issue.path)}: expected one of ${issue.values.map(String).join(', ')}, got ${describeValue(value)}`,
    ];
  }
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
    // zod's default wording; ours says the same in plain words.
    const expected = `expected ${issue.expected === 'object' ? 'a mapping of fields' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}`;
    return [
      `${toDotPath(issue.path)}: ${value === undefined ? `missing; ${expected}` : `${expected}, got ${describeValue(value)}`}`,
    ];
  }
  const got =
    issue.message.includes(', got ') ||
    issue.message.includes(VALUE_NOT_SHOWN) ||
    (typeof value === 'object' && value !== null)
      ? ''
      : value === undefined
        ? ', got nothing'
        : `, got ${describeValue(value)}`;
  return [`${toDotPath(issue.path)}: ${issue.message}${got}`];
}

function resolve(input: ScenarioInput, file: string): Scenario {
  const ms = (text: string): number => parseDurationMs(text)!;
  const thresholds = (
    list: readonly (string | { readonly threshold: string; readonly abortOnFail: boolean })[],
  ): Threshold[] =>
    list.map((item) =>
      typeof item === 'string'
        ? (parseThreshold(item) as Threshold)
        : { ...(parseThreshold(item.threshold) as Threshold), abortOnFail: item.abortOnFail },
    );
  const scenario: Scenario = {
    name: input.name,
    description: input.description,
    target: withCaPath(input.target, file),
    phases: input.phases.map((p) => ({
      name: p.name,
      durationMs: ms(p.duration),
      fromRpm: p.rpm ?? p.fromRpm!,
      toRpm: p.rpm ?? p.toRpm!,
      warmupMs: p.warmup === undefined ? 0 : ms(p.warmup),
    })),
    arrivals: input.arrivals,
    payload: input.payload,
    mode: input.mode,
    deid: input.deid,
    on429: {
      policy: input.on429.policy,
      maxAttempts: input.on429.maxAttempts,
      baseDelayMs: ms(input.on429.baseDelay),
      maxDelayMs: ms(input.on429.maxDelay),
    },
    timeoutMs: ms(input.timeout),
    maxInFlight: input.maxInFlight,
    windowMs: ms(input.window),
    thresholds: {
      documentedTargets: input.thresholds.documentedTargets,
      errors: parseErrorCheck(input.thresholds.errors) as Threshold | null,
      all: thresholds(input.thresholds.all),
      byPhase: new Map([...input.thresholds.byPhase].map(([name, list]) => [name, thresholds(list)])),
    },
    ...(input.notice === undefined ? {} : { notice: input.notice }),
    ...(input.coordination === undefined ? {} : { coordination: input.coordination }),
    ...(input.limits === undefined ? {} : { limits: input.limits }),
  };
  return deepFreeze(scenario);
}

/** target.tls.ca is relative to the scenario file's folder, wherever loadproof runs from. */
function withCaPath(target: ScenarioInput['target'], file: string): ScenarioInput['target'] {
  if (target.tls === undefined) return target;
  return { ...target, tls: { ...target.tls, ca: resolvePath(dirname(file), target.tls.ca) } };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Parses scenario text (JSON for a `.json` file, else YAML); `file` names it in messages. */
export function parseScenario(text: string, file: string): Scenario {
  const raw = parseScenarioText(text, file);
  const secretProblems = extractSecretKeys(raw);
  const parsed = ScenarioSchema.safeParse(raw);
  const problems = [
    ...secretProblems,
    ...(parsed.success ? [] : parsed.error.issues.flatMap((issue) => formatIssue(issue, raw))),
  ];
  if (problems.length > 0 || !parsed.success) throw new ScenarioError(file, problems);
  return resolve(parsed.data, file);
}

/** Reads (at most 1 MiB) and parses a scenario file. */
export async function loadScenario(file: string): Promise<Scenario> {
  return parseScenario(await readScenarioText(file), file);
}
