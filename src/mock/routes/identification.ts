/**
 * POST /entityextraction/pipelines/vendor-phi-identification: finds PHI in `text`.
 * 400 when `text` is missing, not a string or empty; 413 text_too_long when its token estimate is
 * over the limit (checked before the rate limiter, so an invalid request costs no quota); then
 * the gateway (429 / queue / 504) and the GPU fleet decide when and how it is answered.
 */
import { describeValue } from '../../core/index.js';
import { estimateModelTokens } from '../../spec/index.js';
import { sendError } from '../http.js';
import { type Detection, detectPhi } from '../phi/detect.js';
import { answerOutcome, authorize, readJsonBody, type RouteHandler } from './context.js';

/**
 * Largest identification body (bytes). The text is at most 853 characters (1,024 model tokens);
 * even escaped as JSON (≤ 6 bytes a character) that is about 5 KiB: 64 KiB leaves room for extra fields.
 */
export const IDENTIFICATION_MAX_BODY_BYTES = 64 * 1024;

export const handleIdentification: RouteHandler = async (req, res, ctx) => {
  const clientId = authorize(req, res, ctx);
  if (clientId === undefined) return;
  const body = await readJsonBody(req, res, ctx, IDENTIFICATION_MAX_BODY_BYTES);
  if (body === undefined) return;
  const text = (body.value as { text?: unknown } | null)?.text;
  if (typeof text !== 'string' || text.length === 0) {
    sendError(res, 400, 'invalid_request', `text: expected a non-empty string, got ${describeValue(text)}`);
    return;
  }
  const inputTokens = estimateModelTokens(text);
  if (inputTokens > ctx.maxTextTokens) {
    sendError(
      res,
      413,
      'text_too_long',
      `text: about ${inputTokens} model tokens (${text.length} characters × 1.2), over the limit of ${ctx.maxTextTokens}; split the document`,
      {},
      { estimated_tokens: inputTokens, max_tokens: ctx.maxTextTokens },
    );
    return;
  }
  const detection = detectPhi(text, ctx.outputTokenCap, ctx.entityDropRate);
  ctx.identification.submit(
    clientId,
    { inputTokens, outputTokens: detection.outputTokens },
    (outcome) => answerOutcome(res, outcome, ctx, () => identificationJson(detection, inputTokens, ctx.outputTokenCap)),
    res.arrivedAtMs,
  );
};

/**
 * The answer's JSON, as JSON.stringify would write `{ entities, truncated, usage }`, written by hand:
 * half the time of JSON.stringify on the mock's hot path. Only the entity texts need escaping; the
 * rest are a fixed type name, integers, finite scores and a boolean.
 */
export function identificationJson(detection: Detection, inputTokens: number, outputTokenCap: number): string {
  let json = '{"entities":[';
  const entities = detection.entities;
  for (let i = 0; i < entities.length; i++) {
    const e = entities[i]!;
    json += `${i === 0 ? '' : ','}{"type":"${e.type}","text":${JSON.stringify(e.text)},"start":${e.start},"end":${e.end},"score":${e.score}}`;
  }
  return `${json}],"truncated":${detection.truncated},"usage":{"input_tokens":${inputTokens},"output_tokens":${detection.outputTokens},"output_token_cap":${outputTokenCap}}}`;
}
