/**
 * The fake-data library the generated documents draw their PHI from (`@faker-js/faker`), loaded the first time a
 * document is generated: its US English locale costs about 0.2 s to load (every locale at once, over 0.4 s), and a
 * run that sends no generated document should not pay it. A few other locales lend their name lists (Mexican
 * Spanish, Indian, Vietnamese: accents, two surnames, diacritics), a few milliseconds more once the first is loaded.
 */
import { createRequire } from 'node:module';

import type { Faker } from '@faker-js/faker';

/** What a document draws from: one faker, seeded from the document's own seed. */
export interface Fakers {
  /** Addresses, phone numbers, identifiers and most names. */
  readonly us: Faker;
  /** Other locales' name lists, drawn from with `us` (seeding a faker costs about 0.1 ms: one a document). */
  readonly names: readonly NameList[];
}

interface NameList {
  readonly first: readonly string[];
  readonly last: readonly string[];
}

const NAME_LOCALES = ['es_MX', 'en_IN', 'vi'] as const;

let loaded: Fakers | undefined;

function load(): Fakers {
  // Synchronous on purpose: documents are drawn synchronously (the plan, the run's text source). Only the
  // locales named here are read; the package's root would load all of them.
  const require = createRequire(import.meta.url);
  const one = (locale: string): Faker => (require(`@faker-js/faker/locale/${locale}`) as { faker: Faker }).faker;
  const names = NAME_LOCALES.map((locale): NameList => {
    const { first_name: first, last_name: last } = one(locale).definitions.person;
    return {
      first: [...(first?.generic ?? []), ...(first?.female ?? []), ...(first?.male ?? [])],
      last: last?.generic ?? [],
    };
  });
  return { us: one('en_US'), names };
}

/** The fakers, seeded from `seed`: the same seed draws the same values. */
export function seededFakers(seed: number): Fakers {
  loaded ??= load();
  loaded.us.seed(seed);
  return loaded;
}
