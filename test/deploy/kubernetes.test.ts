/**
 * deploy/kubernetes: the Indexed Job of a sharded run, its merge Job and the results volume,
 * validated against the Kubernetes API's published OpenAPI schema (kubernetes-models, generated from it),
 * and checked for what makes the sharded run right: the shard count equal to the Job's completions, the
 * index from JOB_COMPLETION_INDEX, one start time, credentials from a Secret, results on a shared volume.
 */
import { readdirSync, readFileSync } from 'node:fs';

import { Job } from 'kubernetes-models/batch/v1';
import { PersistentVolumeClaim } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

import { runMain, scenarioWorkspace } from '../helpers/cli.js';
import { podOf, restrictedViolations } from '../helpers/pod-security.js';

/** The values the Kubernetes guide's `envsubst '${START_AT} ${RUN_ID}'` puts in when the Job is made. */
const MADE_WITH = { START_AT: '2026-12-01T09:00:00Z', RUN_ID: '20261201-085700', JOB_DEADLINE_S: '615000' };
/** A manifest as kubectl receives it: its ${VAR}s substituted, as envsubst does; $(VAR)s are Kubernetes' own. */
const manifest = (name: string): any =>
  parse(
    readFileSync(new URL(`../../deploy/kubernetes/${name}`, import.meta.url), 'utf8').replace(
      /\$\{(START_AT|RUN_ID|JOB_DEADLINE_S)\}/g,
      (_, v: keyof typeof MADE_WITH) => MADE_WITH[v],
    ),
  );
const validJob = (doc: unknown): void => new Job(doc as ConstructorParameters<typeof Job>[0]).validate();

describe('deploy/kubernetes', () => {
  const shards = manifest('shards-job.yaml');
  const merge = manifest('merge-job.yaml');

  it('the Jobs and the volume claim validate against the Kubernetes API schema', () => {
    expect(() => validJob(shards)).not.toThrow();
    expect(() => validJob(merge)).not.toThrow();
    expect(() => new PersistentVolumeClaim(manifest('results-pvc.yaml')).validate()).not.toThrow();
    // The validation is real: a Job with a wrong type or an unknown restart policy does not pass.
    expect(() => validJob({ ...shards, spec: { ...shards.spec, completions: '4' } })).toThrow(/completions/);
    expect(() =>
      validJob({
        ...shards,
        spec: {
          ...shards.spec,
          template: { ...shards.spec.template, spec: { ...shards.spec.template.spec, containers: 'loadproof' } },
        },
      }),
    ).toThrow(/containers/);
  });

  it('runs shard $(JOB_COMPLETION_INDEX) of as many shards as the Job has completions, all at once, never twice', () => {
    const spec = shards.spec;
    const container = spec.template.spec.containers[0];
    const args: string[] = container.args;
    expect(spec.completionMode).toBe('Indexed');
    const shard = args[args.indexOf('--shard') + 1];
    expect(shard).toBe(`$(JOB_COMPLETION_INDEX)/${spec.completions}`);
    expect(spec.parallelism).toBe(spec.completions);
    expect(spec.backoffLimit).toBe(0);
    expect(spec.template.spec.restartPolicy).toBe('Never');
    expect(args[0]).toBe('run');
  });

  it('names each Job after its run, as a DNS label', () => {
    for (const job of [shards, merge]) expect(job.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(shards.metadata.name).toBe(`loadproof-shards-${MADE_WITH.RUN_ID}`);
  });

  it('gives every shard one start time, set when the Job is made', () => {
    const container = shards.spec.template.spec.containers[0];
    const args: string[] = container.args;
    expect(args[args.indexOf('--start-at') + 1]).toBe('$(START_AT)');
    expect(container.env.find((e: any) => e.name === 'START_AT')).toEqual({
      name: 'START_AT',
      value: MADE_WITH.START_AT,
    });
    // Every ${VAR} of the files is one the guide's envsubst sets: none is left for kubectl to see.
    for (const name of ['shards-job.yaml', 'merge-job.yaml']) {
      const text = readFileSync(new URL(`../../deploy/kubernetes/${name}`, import.meta.url), 'utf8').replace(
        /^#.*$/gm,
        '',
      );
      expect([...text.matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]).filter((v) => !(v! in MADE_WITH))).toEqual([]);
    }
  });

  it('takes the credentials from a Secret, never a literal', () => {
    const env: any[] = shards.spec.template.spec.containers[0].env;
    for (const name of ['LOADPROOF_CLIENT_ID', 'LOADPROOF_CLIENT_SECRET']) {
      const entry = env.find((e) => e.name === name);
      expect(entry.value).toBeUndefined();
      expect(entry.valueFrom.secretKeyRef.name).toBe('loadproof-credentials');
    }
    // No literal value but the start time: anything else comes from the Secret.
    expect(env.filter((e) => e.value !== undefined).map((e) => e.name)).toEqual(['START_AT', 'RUN_ID']);
    expect(merge.spec.template.spec.containers[0].env).toBeUndefined();
  });

  it('writes each shard to the shared results volume, where the merge Job reads every shard', () => {
    const claim = manifest('results-pvc.yaml');
    expect(claim.spec.accessModes).toEqual(['ReadWriteMany']);
    for (const job of [shards, merge]) {
      const volume = job.spec.template.spec.volumes.find((v: any) => v.persistentVolumeClaim !== undefined);
      expect(volume.persistentVolumeClaim.claimName).toBe(claim.metadata.name);
      const mount = job.spec.template.spec.containers[0].volumeMounts.find((m: any) => m.name === volume.name);
      expect(mount.mountPath).toBe('/results');
    }
    const args: string[] = shards.spec.template.spec.containers[0].args;
    // Each run in a folder of its own on the volume, so that a second run never meets the first's folders.
    expect(args[args.indexOf('--run-dir') + 1]).toBe('/results/$(RUN_ID)/shard-$(JOB_COMPLETION_INDEX)');
    expect(merge.spec.template.spec.containers[0].args.join(' ')).toBe(
      `loadproof merge /results/${MADE_WITH.RUN_ID}/shard-* --run-dir /results/${MADE_WITH.RUN_ID}/merged`,
    );
    // The image's user (node, 1000) can write to the volume.
    for (const job of [shards, merge])
      expect(job.spec.template.spec.securityContext).toMatchObject({ runAsUser: 1000, fsGroup: 1000 });
  });

  describe('the restricted Pod Security Standard', () => {
    const DIR = new URL('../../deploy/kubernetes/', import.meta.url);
    const files = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f));
    const docs = files.flatMap((f) =>
      parseAllDocuments(
        readFileSync(new URL(f, DIR), 'utf8').replace(
          /\$\{(\w+)\}/g,
          (_, v: string) => (MADE_WITH as Record<string, string>)[v] ?? '0',
        ),
      ).map((d) => ({ file: f, doc: d.toJS() })),
    );
    const pods = docs.map(({ file, doc }) => ({ file, pod: podOf(doc) })).filter((x) => x.pod !== undefined);

    it('every pod of every manifest conforms, every container included, and mounts no service-account token', () => {
      expect(pods.map((p) => p.file).sort()).toEqual(['merge-job.yaml', 'shards-job.yaml']);
      for (const { file, pod } of pods) {
        expect(restrictedViolations(pod!.metadata, pod!.spec), file).toEqual([]);
        expect(pod!.spec.automountServiceAccountToken, file).toBe(false);
      }
    });

    it('the check is real: each field the profile constrains, broken at the pod or in any container, is named', () => {
      const shardsPod = podOf(shards)!;
      const c0 = shardsPod.spec.containers[0];
      const withContainer = (sc: object, extra: object = {}) => ({
        ...shardsPod.spec,
        containers: [{ ...c0, ...extra, securityContext: { ...c0.securityContext, ...sc } }],
      });
      const init = (sc: object | undefined) => ({
        ...shardsPod.spec,
        initContainers: [{ name: 'init', image: 'busybox', ...(sc === undefined ? {} : { securityContext: sc }) }],
      });
      const cases: [object, RegExp, object?][] = [
        [{ ...shardsPod.spec, hostNetwork: true }, /spec\.hostNetwork/],
        [{ ...shardsPod.spec, hostPID: true }, /spec\.hostPID/],
        [{ ...shardsPod.spec, hostIPC: true }, /spec\.hostIPC/],
        [
          { ...shardsPod.spec, volumes: [...shardsPod.spec.volumes, { name: 'host', hostPath: { path: '/' } }] },
          /hostPath/,
        ],
        [
          { ...shardsPod.spec, volumes: [...shardsPod.spec.volumes, { name: 'nfs', nfs: { server: 'x', path: '/' } }] },
          /nfs/,
        ],
        [
          { ...shardsPod.spec, securityContext: { ...shardsPod.spec.securityContext, runAsNonRoot: false } },
          /runAsNonRoot/,
        ],
        [
          { ...shardsPod.spec, securityContext: { ...shardsPod.spec.securityContext, runAsUser: 0 } },
          /spec\.securityContext\.runAsUser/,
        ],
        [
          {
            ...shardsPod.spec,
            securityContext: { ...shardsPod.spec.securityContext, seccompProfile: { type: 'Unconfined' } },
          },
          /seccompProfile/,
        ],
        [
          {
            ...shardsPod.spec,
            securityContext: { ...shardsPod.spec.securityContext, sysctls: [{ name: 'kernel.msgmax', value: '1' }] },
          },
          /sysctls/,
        ],
        [
          {
            ...shardsPod.spec,
            securityContext: { ...shardsPod.spec.securityContext, seLinuxOptions: { type: 'spc_t' } },
          },
          /seLinuxOptions\.type/,
        ],
        [
          {
            ...shardsPod.spec,
            securityContext: { ...shardsPod.spec.securityContext, windowsOptions: { hostProcess: true } },
          },
          /hostProcess/,
        ],
        [withContainer({ privileged: true }), /privileged/],
        [withContainer({ allowPrivilegeEscalation: true }), /allowPrivilegeEscalation/],
        [withContainer({ capabilities: { drop: ['NET_RAW'] } }), /capabilities\.drop/],
        [withContainer({ capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] } }), /capabilities\.add: SYS_ADMIN/],
        [withContainer({ runAsNonRoot: false }), /runAsNonRoot/],
        [withContainer({ runAsUser: 0 }), /containers\[loadproof\]\.securityContext\.runAsUser/],
        [withContainer({ seccompProfile: { type: 'Unconfined' } }), /seccompProfile/],
        [withContainer({ procMount: 'Unmasked' }), /procMount/],
        [withContainer({ appArmorProfile: { type: 'Unconfined' } }), /appArmorProfile/],
        [withContainer({ seLinuxOptions: { user: 'root' } }), /seLinuxOptions\.user/],
        [withContainer({}, { ports: [{ containerPort: 80, hostPort: 80 }] }), /hostPort/],
        [init(undefined), /initContainers\[init\]\.securityContext\.allowPrivilegeEscalation/],
        [
          { ...shardsPod.spec, ephemeralContainers: [{ name: 'debug', image: 'busybox' }] },
          /ephemeralContainers\[debug\]/,
        ],
        [
          shardsPod.spec,
          /apparmor/,
          { annotations: { 'container.apparmor.security.beta.kubernetes.io/loadproof': 'unconfined' } },
        ],
      ];
      for (const [spec, named, metadata] of cases)
        expect(restrictedViolations(metadata ?? shardsPod.metadata, spec).join('\n')).toMatch(named);
    });
  });

  describe("the Job's deadline follows the plan", () => {
    it('activeDeadlineSeconds is ${JOB_DEADLINE_S}, set when the Job is made', () => {
      expect(shards.spec.activeDeadlineSeconds).toBe(Number(MADE_WITH.JOB_DEADLINE_S));
    });

    it('loadproof plan --job-deadline prints it: the time to --at, the planned duration, the drain and a margin; a 7-day plan gets more than 7 days', async () => {
      const week = scenarioWorkspace(
        'name: week\ndescription: a week at 10 rpm\ntarget: { environment: mock, baseUrl: "http://127.0.0.1:9" }\nphases:\n  - { name: steady, duration: 168h, rpm: 10 }\ntimeout: 30s\nwindow: 5m\n',
      );
      const now = await runMain(['plan', week.file, '--job-deadline']);
      expect(now.code, now.stderr).toBe(0);
      const s = Number(now.stdout.trim());
      expect(now.stdout).toMatch(/^\d+\n$/);
      // 7 days, plus the drain (the 30 s timeout) and the margin (15 min), rounded up to the minute.
      expect(s).toBe(168 * 3600 + 30 + 900 + 30);
      const later = await runMain([
        'plan',
        week.file,
        '--job-deadline',
        '--at',
        new Date(Date.now() + 3 * 3600_000).toISOString(),
      ]);
      expect(Number(later.stdout.trim()) - s).toBeGreaterThanOrEqual(3 * 3600 - 60);
      expect(Number(later.stdout.trim()) - s).toBeLessThanOrEqual(3 * 3600 + 60);
    });
  });
});
