import { describe, expect, it } from 'vitest';

import { noticeWindow } from './notice-window.js';

const HOUR_MS = 3_600_000;

describe('noticeWindow', () => {
  it('defaults the start window to the run length to the quarter hour', () => {
    expect(noticeWindow(0, 11 * 60_000, undefined).startWindowMs).toBe(15 * 60_000);
  });

  it('caps the default start window at the 24 h --window allows, however long the run', () => {
    const w = noticeWindow(0, 30 * HOUR_MS, undefined);
    expect(w.startWindowMs).toBe(24 * HOUR_MS);
    expect(w.startByMs).toBe(24 * HOUR_MS);
    expect(w.endMs).toBe(54 * HOUR_MS);
  });
});
