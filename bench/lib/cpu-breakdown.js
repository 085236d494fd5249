// Where the CPU of one `loadproof run` goes, from its `node --cpu-prof` profile, for bench/fixed-cost.js. Each
// sample goes to the innermost frame that names a part (module loading: Node's module loaders, which also run a
// module's top level; the token call; the warm-up; the judge; each report file; the charts; GC). Samples in no part
// are "the load" between the end of the warm-up and the start of the judge, and "start-up, other" elsewhere.
const PARTS = [
  ['module loading (resolve, compile, evaluate)', (f) => f.url.startsWith('node:internal/modules/')],
  ["yargs' help text (built on every command)", (f) => f.functionName.endsWith('cacheHelpMessage')],
  // By name and place: the bundle (dist/bundle/) holds these functions in chunks named otherwise.
  ['scenario, plan and guard', (f) => f.functionName === 'prepare' && /\/dist\/(bundle|run)\//.test(f.url)],
  ['token call', (f) => f.functionName === 'obtain' && /\/dist\/(bundle|client)\//.test(f.url)],
  ['warm-up (connections, hot functions)', (f) => f.functionName === 'warmUpAndAnnounce'],
  ['judge (summary)', (f) => f.functionName === 'judgeRun'],
  ['charts/*.png', (f) => f.functionName === 'renderPng'],
  ['report.html', (f) => f.functionName === 'reportHtml'],
  ['report.md', (f) => f.functionName === 'reportMarkdown'],
  ['report content (md and html)', (f) => f.functionName === 'reportContent'],
  ['junit.xml', (f) => f.functionName === 'junitXml'],
  ['brief.md', (f) => f.functionName === 'writeBrief'],
  ['manifest.json', (f) => f.functionName === 'writeManifest'],
  ['other files of the folder (summary.json, …)', (f) => f.functionName === 'finishRun'],
];
/** Where no part is on the stack: an asynchronous file read's callback, which is mostly module loading's. */
const FALLBACK = [['file reads (module sources, mostly)', (f) => f.url === 'node:internal/fs/promises']];
const NOT_BUSY = new Set(['(idle)', '(root)']);

/** [part, profile ms, share of the busy samples], largest first. */
export function breakdown(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const partOf = (id) => {
    for (const parts of [PARTS, FALLBACK])
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const frame = byId.get(at).callFrame;
        if (frame.functionName === '(garbage collector)') return 'GC';
        const part = parts.find(([, matches]) => matches(frame));
        if (part) return part[0];
      }
    return undefined;
  };
  const times = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) times.push((t += delta));
  const parts = profile.samples.map(partOf);
  const lastWarm = parts.lastIndexOf(PARTS[4][0]);
  const firstJudge = parts.indexOf(PARTS[5][0]);
  const ms = new Map();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    if (NOT_BUSY.has(byId.get(id).callFrame.functionName)) return;
    const us = (times[i + 1] ?? times[i]) - times[i];
    const part = parts[i] ?? (i > lastWarm && (firstJudge < 0 || i < firstJudge) ? 'the load' : 'start-up, other');
    ms.set(part, (ms.get(part) ?? 0) + us / 1000);
    busy += us / 1000;
  });
  return [...ms].sort((a, b) => b[1] - a[1]).map(([part, m]) => [part, m, m / busy]);
}
