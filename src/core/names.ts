/**
 * The names a scenario gives, as its schema accepts them. Shared with the readers of someone else's summary.json
 * (trend), so a name that reaches a report or a terminal is one a scenario file could have given: no line breaks,
 * no bidi overrides, no markup.
 */

/** A scenario's name: it names the report folder. */
export const SCENARIO_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/;

/** A phase's name. */
export const PHASE_NAME = /^[A-Za-z0-9][\w.-]{0,39}$/;
