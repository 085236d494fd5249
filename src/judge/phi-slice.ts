/**
 * The known PHI of a set of documents (a phase, the run), as the judge adds it up from documents.ndjson. Only a
 * document delivered whole — obfuscated with a 2xx, no piece's entities cut at the output cap — says what the service
 * does with PHI: its items are `verified`. The items of the others (failed, dropped, unsent, cut at the cap, an answer
 * whose output could not be read) are counted apart, never dropped from what was planted: they were not shown leaking,
 * nor shown removed.
 */
import { addTallies, EMPTY_TALLY, leaked, type PhiTally } from '../phi/index.js';

/** What a line of documents.ndjson says of a document's PHI (DocumentRecord's fields). */
interface PhiDocument {
  readonly outcome: string;
  readonly identification: { readonly truncated: number };
  readonly phiPlanted?: number | null;
  readonly phi?: PhiTally | null;
}

export class PhiSlice {
  /** Items of the documents delivered whole. */
  verified: PhiTally = EMPTY_TALLY;
  /** Documents with ground truth (their PHI known). */
  known = 0;
  /** Documents delivered whole, with ground truth. */
  verifiedDocuments = 0;
  /** Documents with ground truth not delivered whole, their items, and how many of them showed in an output read. */
  readonly notVerified = { documents: 0, items: 0, leaked: 0 };

  add(r: PhiDocument): void {
    if (r.phiPlanted === undefined || r.phiPlanted === null) return;
    this.known++;
    const whole = r.outcome === 'ok' && r.identification.truncated === 0 && r.phi !== undefined && r.phi !== null;
    if (whole) {
      this.verifiedDocuments++;
      this.verified = addTallies(this.verified, r.phi!);
      return;
    }
    this.notVerified.documents++;
    this.notVerified.items += r.phiPlanted;
    if (r.phi !== undefined && r.phi !== null) this.notVerified.leaked += leaked(r.phi.overall);
  }
}
