import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { LOOPBACK_PERMIT } from '../../test/helpers/permit.js';
import { type CallRecord, fetchToken, httpChainCalls } from '../client/endpoint-calls.js';
import { type ChainCalls, ChainError, type FoundEntity } from '../client/index.js';
import { createRng, pick } from '../core/rng.js';
import { type MockServer, startMockServer } from '../mock/index.js';
import { textRecall } from '../phi/index.js';
import { generateDocument, splitDocument } from '../texts/index.js';
import { FIRST_NAMES, LAST_NAMES } from '../texts/lexicon.js';
import { deidentify, mergeEntities } from './chain.js';

const SPLIT = { maxTokens: 1024, margin: 0.1 };

describe('deidentify against the real mock', () => {
  let server: MockServer;
  beforeAll(async () => {
    server = await startMockServer({ timeScale: 200 });
  });
  afterAll(async () => {
    await server.close();
  });

  const session = (calls: CallRecord[]) => ({
    target: {
      permit: LOOPBACK_PERMIT,
      baseUrl: server.url,
      audience: server.audience,
      clientId: server.clientId,
      clientSecret: server.clientSecret,
    },
    timeoutMs: 10_000,
    onCall: (c: CallRecord) => calls.push(c),
  });

  it('leaves none of the PHI it finds in generated documents of every length, and its counts reconcile with the mock', async () => {
    const calls: CallRecord[] = [];
    const before = server.stats().requests;
    const token = await fetchToken(session(calls));
    const api = httpChainCalls(session(calls), token, 'tag');
    const rng = createRng(13);
    let identifyRequests = 0;
    let documents = 0;
    let split = 0;
    let foundItems = 0;
    for (let i = 0; i < 24; i++) {
      const doc = generateDocument(rng, {
        kinds: { progress: 1, discharge: 1, referral: 1 },
        lengths: { short: 1, typical: 1, nearLimit: 1, long: 2 },
      });
      const result = await deidentify(doc.text, api, { split: SPLIT, concurrency: 3, maxResplits: 2 });
      documents++;
      identifyRequests += result.identifyRequests;
      if (result.pieces.length > 1) split++;
      expect(result.truncatedPieces).toBe(0);
      expect(result.foundStillPresent).toBe(0);
      // The cuts recall reads straddling from: the first split's, not the seams'.
      expect(result.cuts).toEqual(
        splitDocument(doc.text, SPLIT)
          .slice(1)
          .map((p) => p.offset),
      );
      // What identification found is gone (what the mock's detector misses is its recall, measured apart).
      const recall = textRecall({
        text: doc.text,
        planted: doc.phi,
        entities: result.entities,
        output: { text: result.text, replacements: result.replacements },
        cuts: result.cuts,
      });
      for (const item of recall.items.filter((i) => i.found))
        expect(
          item.fate,
          `${item.kind} ${doc.text.slice(item.start, item.end)} ${recall.method} in a ${doc.lengthClass} ${doc.kind}`,
        ).toBe('removed');
      foundItems += recall.items.filter((i) => i.found).length;
      // Entity offsets are the document's: each span holds text that was in it.
      for (const e of result.entities) expect(e.end).toBeLessThanOrEqual(doc.text.length);
      expect(result.replacements.length).toBe(result.entities.length);
    }
    expect(split).toBeGreaterThan(3);
    expect(foundItems).toBeGreaterThan(0);
    const after = server.stats().requests;
    expect(after.identification.received - before.identification.received).toBe(identifyRequests);
    expect(after.obfuscation.received - before.obfuscation.received).toBe(documents);
    expect(after.token.received - before.token.received).toBe(1);
    expect(calls.filter((c) => c.endpoint === 'identification')).toHaveLength(identifyRequests);
    expect(calls.every((c) => c.status === 200)).toBe(true);
  });

  it('finds the names a cut between words would part: a list of 150 names without full stops', async () => {
    const rng = createRng(21);
    const names = Array.from({ length: 150 }, () => `${pick(rng, FIRST_NAMES)} ${pick(rng, LAST_NAMES)}`);
    const text = names.join(', ');
    const token = await fetchToken(session([]));
    const result = await deidentify(text, httpChainCalls(session([]), token, 'tag'), {
      split: SPLIT,
      concurrency: 4,
      maxResplits: 2,
    });
    expect(result.seams).toBeGreaterThan(0);
    expect(names.filter((n) => result.text.includes(n))).toEqual([]);
    expect(result.foundStillPresent).toBe(0);
  });

  it('finds a long address straddling a cut whole, wherever the cut falls in it', async () => {
    const address = '1234 Northwestern Pleasant Meadow Boulevard, Springfield Heights, IL 62704-1234';
    const token = await fetchToken(session([]));
    const api = httpChainCalls(session([]), token, 'tag');
    for (const before of [690, 700, 720, 740, 760]) {
      const text = `${'filler words without an end '.repeat(60).slice(0, before)} ${address} ${'more filler words '.repeat(80)}`;
      const result = await deidentify(text, api, { split: SPLIT, concurrency: 4, maxResplits: 2 });
      expect(result.text, `address at ${before}`).not.toContain('62704');
      expect(result.text).not.toContain('Northwestern');
    }
  });

  it('asks again in halves when an answer is cut at the output cap, so PHI past the cap is found', async () => {
    // 700 characters of nothing but e-mail addresses: far more entity output than the 300-token cap.
    const emails = Array.from({ length: 26 }, (_, i) => `p${i}.x@example.org`);
    const text = emails.join(' ');
    const token = await fetchToken(session([]));
    const result = await deidentify(text, httpChainCalls(session([]), token, 'mask'), {
      split: SPLIT,
      concurrency: 1,
      maxResplits: 2,
    });
    expect(result.pieces).toHaveLength(1);
    expect(result.identifyRequests).toBeGreaterThan(1);
    expect(result.truncatedPieces).toBe(0);
    for (const e of emails) expect(result.text).not.toContain(e);
    // Without re-asking, the cap leaves some in.
    const once = await deidentify(text, httpChainCalls(session([]), token, 'mask'), {
      split: SPLIT,
      concurrency: 1,
      maxResplits: 0,
    });
    expect(once.truncatedPieces).toBe(1);
    expect(emails.some((e) => once.text.includes(e))).toBe(true);
  });
});

describe('deidentify with injected calls', () => {
  const fake = (entitiesOf: (text: string) => FoundEntity[], log: string[] = []): ChainCalls => ({
    identify: async (text) => {
      log.push(text);
      return { entities: entitiesOf(text), truncated: false };
    },
    obfuscate: async (text, entities) => ({ text: `${text.length}:${entities.length}`, replacements: [] }),
  });

  it('moves entities to document offsets and merges them', async () => {
    const text = `${'Filler words here. '.repeat(50)}\n\nJohn Smith was seen.`;
    const result = await deidentify(
      text,
      fake((t) =>
        t.includes('John') ? [{ type: 'NAME', start: t.indexOf('John'), end: t.indexOf('John') + 10 }] : [],
      ),
      { split: SPLIT, concurrency: 2, maxResplits: 2 },
    );
    expect(result.pieces.length).toBeGreaterThan(1);
    expect(result.entities).toEqual([{ type: 'NAME', start: text.indexOf('John'), end: text.indexOf('John') + 10 }]);
    expect(text.slice(result.entities[0]!.start, result.entities[0]!.end)).toBe('John Smith');
  });

  it('sends pieces in order with concurrency 1, and at most `concurrency` at once', async () => {
    const text = 'Sentence number one is here. '.repeat(200);
    let open = 0;
    let most = 0;
    const calls: ChainCalls = {
      identify: async () => {
        most = Math.max(most, ++open);
        await new Promise((r) => setImmediate(r));
        open--;
        return { entities: [], truncated: false };
      },
      obfuscate: async (t) => ({ text: t, replacements: [] }),
    };
    await deidentify(text, calls, { split: SPLIT, concurrency: 3, maxResplits: 0 });
    expect(most).toBe(3);
    most = 0;
    await deidentify(text, calls, { split: SPLIT, concurrency: 1, maxResplits: 0 });
    expect(most).toBe(1);
    const order: string[] = [];
    const result = await deidentify(
      text,
      fake(() => [], order),
      { split: SPLIT, concurrency: 1, maxResplits: 0 },
    );
    expect(order).toEqual(result.pieces.map((p) => p.text));
  });

  it('counts entities whose text the obfuscation left in', async () => {
    const calls: ChainCalls = {
      identify: async () => ({
        entities: [
          { type: 'NAME', start: 0, end: 4 },
          { type: 'DATE', start: 5, end: 15 },
        ],
        truncated: false,
      }),
      obfuscate: async (t) => ({ text: t.replace('John', '[NAME]'), replacements: [] }),
    };
    const result = await deidentify('John 01/02/2024', calls, { split: SPLIT, concurrency: 1, maxResplits: 0 });
    expect(result.foundStillPresent).toBe(1);
  });

  it('refuses an entity outside the text it was given', async () => {
    await expect(
      deidentify(
        'short text',
        fake(() => [{ type: 'NAME', start: 5, end: 50 }]),
        { split: SPLIT, concurrency: 1, maxResplits: 0 },
      ),
    ).rejects.toThrow(ChainError);
  });

  it('merges overlapping entities into one span covering both, so no part of either stays in clear', () => {
    expect(
      mergeEntities([
        { type: 'B', start: 5, end: 9 },
        { type: 'A', start: 0, end: 6 },
        { type: 'C', start: 0, end: 3 },
        { type: 'D', start: 9, end: 12 },
      ]),
    ).toEqual([
      { type: 'A', start: 0, end: 9 },
      { type: 'D', start: 9, end: 12 },
    ]);
  });
});
