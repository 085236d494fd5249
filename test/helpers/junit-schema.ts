/**
 * The JUnit XML schema that Jenkins (junit-10.xsd), GitLab and the GitHub test-report actions read, checked
 * structurally: which element may hold which, in which order, with which attributes, and that each count agrees
 * with the cases it counts. No XSD validator ships with Node and none is on the machine, so the schema's rules are
 * written out here. Returns what is wrong, one line each; an empty list is a valid file.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

type Node = Record<string, unknown>;

const DECIMAL = /^\d+(\.\d+)?$/;
const COUNT = /^\d+$/;
// xs:dateTime: a date and a time, fractional seconds and a zone optional.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

interface Rule {
  readonly required: readonly string[];
  readonly optional: readonly string[];
  /** Child elements allowed, in the order the schema has them. */
  readonly children: readonly string[];
}

const RULES: Record<string, Rule> = {
  testsuites: {
    required: [],
    optional: ['name', 'time', 'tests', 'failures', 'errors', 'skipped', 'disabled', 'timestamp'],
    children: ['testsuite'],
  },
  testsuite: {
    required: ['name', 'tests'],
    optional: [
      'failures',
      'errors',
      'skipped',
      'disabled',
      'time',
      'timestamp',
      'hostname',
      'id',
      'package',
      'file',
      'log',
      'url',
      'version',
    ],
    children: ['properties', 'testcase', 'system-out', 'system-err'],
  },
  properties: { required: [], optional: [], children: ['property'] },
  property: { required: ['name', 'value'], optional: [], children: [] },
  testcase: {
    required: ['name'],
    optional: ['classname', 'time', 'assertions', 'status', 'file', 'line'],
    children: ['skipped', 'error', 'failure', 'system-out', 'system-err'],
  },
  skipped: { required: [], optional: ['message'], children: [] },
  error: { required: [], optional: ['message', 'type'], children: [] },
  failure: { required: [], optional: ['message', 'type'], children: [] },
  'system-out': { required: [], optional: [], children: [] },
  'system-err': { required: [], optional: [], children: [] },
};

const nameOf = (node: Node): string => Object.keys(node).find((k) => k !== ':@' && k !== '#text') ?? '#text';
const attributesOf = (node: Node): Record<string, string> => (node[':@'] as Record<string, string> | undefined) ?? {};
const childrenOf = (node: Node): Node[] => (node[nameOf(node)] as Node[] | undefined) ?? [];

function checkAttributes(name: string, rule: Rule, attrs: Record<string, string>, where: string): string[] {
  const problems = [
    ...rule.required.filter((a) => !(a in attrs)).map((a) => `${where}: <${name}> lacks ${a}`),
    ...Object.keys(attrs)
      .filter((a) => !rule.required.includes(a) && !rule.optional.includes(a))
      .map((a) => `${where}: <${name}> has an attribute the schema does not: ${a}`),
  ];
  for (const [a, v] of Object.entries(attrs)) {
    if (a === 'time' && !DECIMAL.test(v)) problems.push(`${where}: <${name}> time="${v}" is not a decimal ≥ 0`);
    if (['tests', 'failures', 'errors', 'skipped', 'disabled'].includes(a) && !COUNT.test(v))
      problems.push(`${where}: <${name}> ${a}="${v}" is not a count`);
    if (a === 'timestamp' && !DATE_TIME.test(v))
      problems.push(`${where}: <${name}> timestamp="${v}" is no xs:dateTime`);
  }
  return problems;
}

function checkElement(node: Node, where: string): string[] {
  const name = nameOf(node);
  const rule = RULES[name];
  if (rule === undefined) return [`${where}: <${name}> is no element of the schema`];
  const problems = checkAttributes(name, rule, attributesOf(node), where);
  const elements = childrenOf(node).filter((c) => nameOf(c) !== '#text');
  let last = -1;
  for (const child of elements) {
    const childName = nameOf(child);
    const at = rule.children.indexOf(childName);
    if (at < 0) problems.push(`${where}: <${name}> may not hold <${childName}>`);
    else if (at < last) problems.push(`${where}: <${childName}> comes after what the schema puts after it`);
    last = Math.max(last, at);
    problems.push(...checkElement(child, `${where}/${childName}`));
  }
  if (name === 'testcase') {
    const outcomes = elements.map(nameOf).filter((n) => n === 'skipped' || n === 'error' || n === 'failure');
    if (outcomes.includes('skipped') && outcomes.length > 1)
      problems.push(`${where}: a skipped <testcase> has a failure or error too`);
  }
  if (name === 'testsuite')
    problems.push(
      ...checkCounts(
        attributesOf(node),
        elements.filter((c) => nameOf(c) === 'testcase'),
        where,
      ),
    );
  return problems;
}

/** A suite's counts against its cases. */
function checkCounts(attrs: Record<string, string>, cases: Node[], where: string): string[] {
  const having = (outcome: string): number =>
    cases.filter((c) => childrenOf(c).some((x) => nameOf(x) === outcome)).length;
  const expected: [string, number][] = [
    ['tests', cases.length],
    ['failures', having('failure')],
    ['errors', having('error')],
    ['skipped', having('skipped')],
  ];
  return expected
    .filter(([a, n]) => attrs[a] !== undefined && Number(attrs[a]) !== n)
    .map(([a, n]) => `${where}: ${a}="${attrs[a]}" but it holds ${n}`);
}

/** What is wrong with a junit.xml's text against the schema; [] when nothing is. */
export function junitSchemaProblems(xml: string): string[] {
  const wellFormed = XMLValidator.validate(xml);
  if (wellFormed !== true) return [`not well-formed: ${wellFormed.err.msg} (line ${wellFormed.err.line})`];
  const document = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', preserveOrder: true }).parse(
    xml,
  ) as Node[];
  const roots = document.filter((n) => !['?xml', '#text'].includes(nameOf(n)));
  if (roots.length !== 1 || nameOf(roots[0]!) !== 'testsuites') return ['the root is not one <testsuites>'];
  const root = roots[0]!;
  const suites = childrenOf(root).filter((c) => nameOf(c) === 'testsuite');
  const sum = (a: string): number => suites.reduce((n, s) => n + Number(attributesOf(s)[a] ?? 0), 0);
  const totals = ['tests', 'failures', 'errors', 'skipped']
    .filter((a) => attributesOf(root)[a] !== undefined && Number(attributesOf(root)[a]) !== sum(a))
    .map((a) => `testsuites: ${a}="${attributesOf(root)[a]}" but its suites add up to ${sum(a)}`);
  return [...checkElement(root, 'testsuites'), ...totals];
}
