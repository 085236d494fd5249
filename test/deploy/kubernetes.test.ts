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

const manifest = (name: string): any => parse(readFileSync(new URL(`../../deploy/kubernetes/${name}`, import.meta.url), 'utf8'));
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

  it('gives every shard one start time, set when the Job is made', () => {
    const container = shards.spec.template.spec.containers[0];
    const args: string[] = container.args;
    expect(args[args.indexOf('--start-at') + 1]).toBe('$(START_AT)');
    expect(container.env.find((e: any) => e.name === 'START_AT')).toEqual({ name: 'START_AT', value: '${START_AT}' });
  });

  it('takes the credentials from a Secret, never a literal', () => {
    const env: any[] = shards.spec.template.spec.containers[0].env;
    for (const name of ['LOADPROOF_CLIENT_ID', 'LOADPROOF_CLIENT_SECRET']) {
      const entry = env.find((e) => e.name === name);
      expect(entry.value).toBeUndefined();
      expect(entry.valueFrom.secretKeyRef.name).toBe('loadproof-credentials');
    }
    // No literal value but the start time: anything else comes from the Secret.
    expect(env.filter((e) => e.value !== undefined).map((e) => e.name)).toEqual(['START_AT']);
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
    expect(args[args.indexOf('--run-dir') + 1]).toBe('/results/shard-$(JOB_COMPLETION_INDEX)');
    expect(merge.spec.template.spec.containers[0].args.join(' ')).toBe('loadproof merge /results/shard-* --run-dir /results/merged');
  });
});
