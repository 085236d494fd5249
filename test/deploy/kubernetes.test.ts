/**
 * deploy/kubernetes (issue 14): the Indexed Job of a sharded run, its merge Job and the results volume,
 * validated against the Kubernetes API's published OpenAPI schema (kubernetes-models, generated from it),
 * and checked for what makes the sharded run right: the shard count equal to the Job's completions, the
 * index from JOB_COMPLETION_INDEX, one start time, credentials from a Secret, results on a shared volume.
 */
import { readFileSync } from 'node:fs';
import { Job } from 'kubernetes-models/batch/v1';
import { PersistentVolumeClaim } from 'kubernetes-models/v1';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

/** The values the README's `envsubst '${START_AT} ${RUN_ID}'` puts in when the Job is made. */
const MADE_WITH = { START_AT: '2026-12-01T09:00:00Z', RUN_ID: '20261201-085700' };
/** A manifest as kubectl receives it: its ${VAR}s substituted, as envsubst does; $(VAR)s are Kubernetes' own. */
const manifest = (name: string): any =>
  parse(readFileSync(new URL(`../../deploy/kubernetes/${name}`, import.meta.url), 'utf8').replace(/\$\{(START_AT|RUN_ID)\}/g, (_, v: keyof typeof MADE_WITH) => MADE_WITH[v]));
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
    expect(() => validJob({ ...shards, spec: { ...shards.spec, template: { ...shards.spec.template, spec: { ...shards.spec.template.spec, containers: 'loadproof' } } } })).toThrow(/containers/);
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
    expect(container.env.find((e: any) => e.name === 'START_AT')).toEqual({ name: 'START_AT', value: MADE_WITH.START_AT });
    // Every ${VAR} of the files is one the README's envsubst sets: none is left for kubectl to see.
    for (const name of ['shards-job.yaml', 'merge-job.yaml']) {
      const text = readFileSync(new URL(`../../deploy/kubernetes/${name}`, import.meta.url), 'utf8').replace(/^#.*$/gm, '');
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
    expect(merge.spec.template.spec.containers[0].args.join(' ')).toBe(`loadproof merge /results/${MADE_WITH.RUN_ID}/shard-* --run-dir /results/${MADE_WITH.RUN_ID}/merged`);
    // The image's user (node, 1000) can write to the volume.
    for (const job of [shards, merge]) expect(job.spec.template.spec.securityContext).toMatchObject({ runAsUser: 1000, fsGroup: 1000 });
  });
});
