/**
 * Where the traffic went: the embedded mock, loadproof's mock at a loopback URL, another loopback server, or a real
 * service.
 */
export type TargetKind = 'embedded-mock' | 'loadproof-mock' | 'loopback-stub' | 'real';
