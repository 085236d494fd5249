/**
 * The fake-data library the generated documents draw their PHI from (`@faker-js/faker`), loaded the first time a
 * document is generated: its US English locale costs about 0.2 s to load (every locale at once, over 0.4 s), and a
 * run that sends no generated document should not pay it. A few other locales lend their names (Spanish, Indian,
 * Vietnamese: accents, two surnames, diacritics), a few milliseconds more once the first is loaded.
 */
import { createRequire } from 'node:module';

import type { Faker } from '@faker-js/faker';

/** The instances a document draws from, every one seeded from the document's own seed. */
export interface Fakers {
  /** Addresses, phone numbers, identifiers and most names. */
  readonly us: Faker;
  /** Names of other locales. */
  readonly names: readonly Faker[];
}

const NAME_LOCALES = ['es_MX', 'en_IN', 'vi'] as const;

let loaded: Fakers | undefined;

function load(): Fakers {
  // Synchronous on purpose: documents are drawn synchronously (the plan, the run's text source). Only the
  // locales named here are read; the package's root would load all of them.
  const require = createRequire(import.meta.url);
  const one = (locale: string): Faker => (require(`@faker-js/faker/locale/${locale}`) as { faker: Faker }).faker;
  return { us: one('en_US'), names: NAME_LOCALES.map(one) };
}

/** The fakers, seeded from `seed`: the same seed draws the same values. */
export function seededFakers(seed: number): Fakers {
  loaded ??= load();
  loaded.us.seed(seed);
  loaded.names.forEach((f, i) => f.seed(seed + i + 1));
  return loaded;
}
