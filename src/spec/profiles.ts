/** The mock's named profiles: the names scenarios and the CLI may give; the mock defines what each does. */
export const PROFILE_NAMES = ['nominal', 'degraded', 'tight', 'flaky', 'stall', 'zero', 'leaky'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];
