/**
 * POST /transformation/v1/pipelines/vendor-phi-obfuscation: replaces the given entity spans.
 * Body: { text, entities: [{type, start, end}], style?: "tag" | "mask" } — the entities of an
 * identification response fit as they are. 400 lists every problem; 413 over 100,000 characters.
 */
import { estimateModelTokens, MAX_OBFUSCATION_CHARS } from '../../spec/index.js';
import { sendError } from '../http.js';
import { obfuscate, parseObfuscationRequest } from '../phi/obfuscate.js';
import { answerOutcome, authorize, readJsonBody, type RouteHandler } from './context.js';

/**
 * Largest obfuscation body (bytes), sized from its limits: the text (≤ 100,000 UTF-16 units, at
 * most 3 bytes each in UTF-8) twice over, since an identification response's entities carry their
 * text too, plus MAX_OBFUSCATION_ENTITIES (10,000) entity records of about 80 bytes: 1.4 MB, rounded up to 1.5 MiB.
 */
export const OBFUSCATION_MAX_BODY_BYTES = 1.5 * 1024 * 1024;

export const handleObfuscation: RouteHandler = async (req, res, ctx) => {
  const clientId = authorize(req, res, ctx);
  if (clientId === undefined) return;
  const body = await readJsonBody(req, res, ctx, OBFUSCATION_MAX_BODY_BYTES);
  if (body === undefined) return;
  const request = parseObfuscationRequest(body.value);
  if ('problems' in request) {
    sendError(res, 400, 'invalid_request', request.problems.join('; '), {}, { problems: request.problems });
    return;
  }
  if (request.text.length > MAX_OBFUSCATION_CHARS) {
    sendError(
      res,
      413,
      'text_too_long',
      `text: ${request.text.length} characters, over the limit of ${MAX_OBFUSCATION_CHARS}`,
    );
    return;
  }
  ctx.obfuscation.submit(
    clientId,
    { inputTokens: estimateModelTokens(request.text), outputTokens: 0 },
    (outcome) => answerOutcome(res, outcome, ctx, () => JSON.stringify(obfuscate(request))),
    res.arrivedAtMs,
  );
};
