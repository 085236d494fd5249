/**
 * The "restricted" Pod Security Standard (https://kubernetes.io/docs/concepts/security/pod-security-standards/,
 * the policy of Kubernetes 1.30+; restricted includes every baseline control), as Pod Security Admission
 * enforces it on a pod: every field it constrains, at the pod's level and for every container — containers,
 * initContainers and ephemeralContainers. Returns the violations, each naming the field; [] when it conforms.
 */

/** The one capability restricted lets a container add (baseline's list is wider; restricted is within it). */
const RESTRICTED_ADD = new Set(['NET_BIND_SERVICE']);
/** Volume types restricted allows. */
const VOLUME_TYPES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);
/** Sysctls baseline allows. */
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);
const SELINUX_TYPES = new Set([
  undefined,
  '',
  'container_t',
  'container_init_t',
  'container_kvm_t',
  'container_engine_t',
]);
const SECCOMP_ALLOWED = new Set(['RuntimeDefault', 'Localhost']);
const APPARMOR_TYPES = new Set([undefined, 'RuntimeDefault', 'Localhost']);

type Obj = Record<string, any>;

/** The violations of the restricted profile by a pod (its metadata for the AppArmor annotations, and its spec). */
export function restrictedViolations(metadata: Obj | undefined, spec: Obj): string[] {
  const out: string[] = [];
  const podSc: Obj = spec.securityContext ?? {};
  // Baseline: host namespaces, HostProcess, hostPath, sysctls, AppArmor, SELinux, seccomp.
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC'])
    if (spec[field] === true) out.push(`spec.${field}: must be unset or false`);
  if (podSc.windowsOptions?.hostProcess === true)
    out.push('spec.securityContext.windowsOptions.hostProcess: must be unset or false');
  for (const sysctl of podSc.sysctls ?? [])
    if (!SAFE_SYSCTLS.has(sysctl.name)) out.push(`spec.securityContext.sysctls: ${sysctl.name} is not a safe sysctl`);
  if (!APPARMOR_TYPES.has(podSc.appArmorProfile?.type))
    out.push('spec.securityContext.appArmorProfile.type: must be unset, RuntimeDefault or Localhost');
  for (const [key, value] of Object.entries<string>(metadata?.annotations ?? {})) {
    if (
      key.startsWith('container.apparmor.security.beta.kubernetes.io/') &&
      value !== 'runtime/default' &&
      !value.startsWith('localhost/')
    )
      out.push(`metadata.annotations[${key}]: must be runtime/default or localhost/*`);
  }
  seLinux(podSc.seLinuxOptions, 'spec.securityContext.seLinuxOptions', out);
  // Restricted: volume types, non-root, seccomp at the pod (or every container).
  for (const volume of spec.volumes ?? []) {
    const types = Object.keys(volume).filter((k) => k !== 'name');
    for (const type of types)
      if (!VOLUME_TYPES.has(type))
        out.push(`spec.volumes[${volume.name}].${type}: a volume type restricted does not allow`);
  }
  if (podSc.runAsUser === 0) out.push('spec.securityContext.runAsUser: must not be 0');
  // Explicitly false at the pod is a violation even where every container says true (as Pod Security Admission checks
  // it).
  if (podSc.runAsNonRoot === false) out.push('spec.securityContext.runAsNonRoot: must not be false');
  const podSeccomp = podSc.seccompProfile?.type;
  if (podSeccomp !== undefined && !SECCOMP_ALLOWED.has(podSeccomp))
    out.push('spec.securityContext.seccompProfile.type: must be RuntimeDefault or Localhost');
  const containers: [string, Obj][] = [
    ...(spec.containers ?? []).map((c: Obj): [string, Obj] => [`spec.containers[${c.name}]`, c]),
    ...(spec.initContainers ?? []).map((c: Obj): [string, Obj] => [`spec.initContainers[${c.name}]`, c]),
    ...(spec.ephemeralContainers ?? []).map((c: Obj): [string, Obj] => [`spec.ephemeralContainers[${c.name}]`, c]),
  ];
  for (const [where, c] of containers) {
    const sc: Obj = c.securityContext ?? {};
    const at = `${where}.securityContext`;
    if (sc.privileged === true) out.push(`${at}.privileged: must be unset or false`);
    if (sc.windowsOptions?.hostProcess === true) out.push(`${at}.windowsOptions.hostProcess: must be unset or false`);
    if (sc.procMount !== undefined && sc.procMount !== 'Default') out.push(`${at}.procMount: must be unset or Default`);
    if (!APPARMOR_TYPES.has(sc.appArmorProfile?.type))
      out.push(`${at}.appArmorProfile.type: must be unset, RuntimeDefault or Localhost`);
    seLinux(sc.seLinuxOptions, `${at}.seLinuxOptions`, out);
    for (const port of c.ports ?? [])
      if (port.hostPort !== undefined && port.hostPort !== 0)
        out.push(`${where}.ports: hostPort ${port.hostPort} is not allowed`);
    if (sc.allowPrivilegeEscalation !== false) out.push(`${at}.allowPrivilegeEscalation: must be false`);
    const drop: string[] = sc.capabilities?.drop ?? [];
    if (!drop.includes('ALL')) out.push(`${at}.capabilities.drop: must include ALL`);
    for (const cap of sc.capabilities?.add ?? []) {
      if (!RESTRICTED_ADD.has(cap)) out.push(`${at}.capabilities.add: ${cap} is not allowed (only NET_BIND_SERVICE)`);
    }
    // runAsNonRoot: true on the container, or on the pod and not false on the container.
    if (!(sc.runAsNonRoot === true || (podSc.runAsNonRoot === true && sc.runAsNonRoot !== false)))
      out.push(`${at}.runAsNonRoot: must be true (here or at spec.securityContext)`);
    if (sc.runAsUser === 0) out.push(`${at}.runAsUser: must not be 0`);
    const seccomp = sc.seccompProfile?.type;
    if (seccomp !== undefined ? !SECCOMP_ALLOWED.has(seccomp) : !SECCOMP_ALLOWED.has(podSeccomp))
      out.push(`${at}.seccompProfile.type: must be RuntimeDefault or Localhost (here or at spec.securityContext)`);
  }
  return out;
}

function seLinux(options: Obj | undefined, at: string, out: string[]): void {
  if (options === undefined) return;
  if (!SELINUX_TYPES.has(options.type)) out.push(`${at}.type: ${options.type} is not allowed`);
  for (const field of ['user', 'role'])
    if (options[field] !== undefined && options[field] !== '') out.push(`${at}.${field}: must be unset`);
}

/** The pod template of a workload manifest (metadata and spec), or undefined for a kind without pods. */
export function podOf(doc: Obj): { metadata: Obj | undefined; spec: Obj } | undefined {
  switch (doc.kind) {
    case 'Pod':
      return { metadata: doc.metadata, spec: doc.spec };
    case 'CronJob':
      return { metadata: doc.spec.jobTemplate.spec.template.metadata, spec: doc.spec.jobTemplate.spec.template.spec };
    case 'Job':
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
      return { metadata: doc.spec.template.metadata, spec: doc.spec.template.spec };
    default:
      return undefined;
  }
}
