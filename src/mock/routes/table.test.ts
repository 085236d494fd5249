import { describe, expect, it } from 'vitest';

import { API_PATHS } from '../../spec/index.js';
import { allowedMethods, findRoute, LOG_PATH, STATS_PATH } from './table.js';

describe('the route table', () => {
  // Node's parser refuses such request targets today; the lookup must not depend on it.
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '/__proto__', '/constructor'])(
    'finds no route at %s',
    (path) => {
      expect(findRoute(path)).toBeUndefined();
    },
  );

  it("finds every API route and the mock's own, with the methods they allow", () => {
    expect(
      [API_PATHS.token, API_PATHS.session, API_PATHS.identification, API_PATHS.obfuscation, STATS_PATH, LOG_PATH].map(
        (path) => {
          const route = findRoute(path);
          return route === undefined ? undefined : allowedMethods(route);
        },
      ),
    ).toEqual(['POST', 'GET, HEAD', 'POST', 'POST', 'GET, HEAD', 'GET, HEAD']);
  });
});
