import type { CommandSpec } from '../command.js';
import { choiceOption, listOption } from '../args.js';
import { parseResolveOverrides } from '../resolve-overrides.js';
import { parsePortList } from '../ports.js';
import { escapeTerminal } from '../terminal-text.js';
import { stringOption } from '../args.js';
import { loadEgressPolicyFile } from '../egress-policy-file.js';
import { checkCidrFlag, parseUrlArgument } from '../flag-values.js';
import { cliHint } from '../cli-hints.js';

const MODES = ['default', 'allow-local', 'strict'] as const;

/** Codes of a name that could not be resolved: the guard judged no address, so they are no denial. */
const UNRESOLVED_CODES: ReadonlySet<string> = new Set(['EGRESS_DNS_FAILED', 'EGRESS_DNS_EMPTY', 'EGRESS_DNS_TIMEOUT']);

export const command: CommandSpec = {
  name: 'egress check',
  summary: 'explain, step by step, whether a URL may be reached',
  description:
    'Runs the address guard on a URL without connecting: parse (WHATWG), scheme, userinfo, the canonical\n' +
    'host, the resolved addresses, the class of each address, the rule and the verdict.\n' +
    'Nothing is sent to the URL; names are resolved (or taken from --resolve).',
  positionals: [{ name: 'url', description: 'the URL to judge, e.g. http://127.1:8080/' }],
  options: {
    mode: {
      type: 'string',
      valueName: 'mode',
      description: 'default (loopback ok except protected ports) | allow-local (also private ranges) | strict',
    },
    'protect-port': {
      type: 'string',
      multiple: true,
      valueName: 'port',
      description: 'a port never reachable on loopback or private addresses (repeatable)',
    },
    'allow-cidr': {
      type: 'string',
      multiple: true,
      valueName: 'cidr',
      description: 'operator allow for a private/local block, e.g. 10.1.0.0/16 (repeatable)',
    },
    'deny-cidr': {
      type: 'string',
      multiple: true,
      valueName: 'cidr',
      description: 'extra block denied in every mode (repeatable)',
    },
    resolve: {
      type: 'string',
      multiple: true,
      valueName: 'name=ip',
      description: 'answer for a name instead of DNS, like curl --resolve (repeatable; unlisted names then fail)',
    },
    policy: {
      type: 'string',
      valueName: 'file',
      description:
        'also ask this egress policy file (a GET by the owner); its guard section is the base the flags override',
    },
  },
  examples: [
    {
      command: 'trust egress check http://169.254.169.254/latest/meta-data/',
      explain: 'cloud metadata is blocked in every mode',
    },
    {
      command: 'trust egress check http://0x7f000001:7385/ --protect-port 7385',
      explain: 'a loose spelling of loopback on a protected port',
    },
    {
      command: 'trust egress check http://10.0.0.5/ --mode allow-local',
      explain: 'private ranges are allowed only in allow-local mode',
    },
    {
      command: 'trust egress check https://api.internal.test/ --resolve api.internal.test=10.0.0.5',
      explain: 'what happens when a name resolves to a private address',
    },
    {
      command: 'trust egress check https://api.github.com/zen --policy policy.json',
      explain: 'the address guard and then your policy',
    },
    { command: 'trust egress check https://example.com/ --json | jq .result.allow', explain: 'for scripts' },
  ],
  jsonShape:
    '{ "url": string, "mode": "default"|"allow-local"|"strict", "allow": boolean, ' +
    '"rule"?: string, "code"?: string, "reason"?: string, "hint"?: string, "policy"?: ' +
    'string, "addresses": string[], "steps": [{ "step", "ok", "detail" }] }',
  exitCodes: [
    '126 the guard or the policy denies the URL (the explanation is still printed)',
    '1 the name could not be resolved (EGRESS_DNS_*): no address was judged, so this is no verdict',
    '2 also: a URL that does not parse, a bad --allow-cidr/--deny-cidr/--resolve/--protect-port value',
  ],
  async run({ io, out, values, positionals }) {
    const url = positionals[0] as string;
    parseUrlArgument(url);
    await checkCidrFlag('allow-cidr', listOption(values, 'allow-cidr'));
    await checkCidrFlag('deny-cidr', listOption(values, 'deny-cidr'));
    const { explainUrl } = await import('@trust/egress');
    const policyPath = stringOption(values, 'policy');
    const loaded = policyPath ? await loadEgressPolicyFile(io.cwd, policyPath, io.env) : undefined;
    const base = loaded?.guard ?? {};
    const mode = choiceOption(values, 'mode', MODES) ?? base.mode ?? 'default';
    const resolve = parseResolveOverrides(listOption(values, 'resolve'));
    const options = {
      mode,
      protectedPorts: [
        ...(base.protectedPorts ?? []),
        ...parsePortList(listOption(values, 'protect-port'), 'protect-port'),
      ],
      allowCidrs: [...(base.allowCidrs ?? []), ...listOption(values, 'allow-cidr')],
      denyCidrs: [...(base.denyCidrs ?? []), ...listOption(values, 'deny-cidr')],
      ...(resolve ? { resolve } : {}),
    };
    const explained = await explainUrl(url, options);
    const steps: { step: string; ok: boolean; detail: string }[] = explained.steps.map((x) => ({
      step: x.step,
      ok: x.ok,
      detail: x.detail,
    }));
    let verdict: {
      allow: boolean;
      rule?: string | undefined;
      code?: string;
      reason?: string;
      hint?: string | undefined;
      addresses: readonly string[];
    } = explained.verdict as never;
    if (loaded && verdict.allow && explained.verdict.url) {
      // The policy decides destinations; the guard has already judged the addresses. Header
      // injections the policy would add are secrets and are never shown.
      const { createPrincipal } = await import('@trust/core');
      const u = explained.verdict.url;
      const decision = await loaded.policy.authorizeHttp(
        {
          method: 'GET',
          url: u.href,
          scheme: u.protocol as 'http:',
          host: explained.verdict.host ?? u.hostname,
          port: explained.verdict.port ?? 0,
          path: u.pathname,
          headers: new Headers(),
        },
        { principal: createPrincipal('owner', 'trust-cli'), capability: 'http' },
      );
      steps.splice(steps.length - 1, 0, {
        step: 'policy',
        ok: decision.allow,
        detail: decision.allow ? `allow (${decision.rule ?? 'policy'})` : `${decision.code}: ${decision.reason}`,
      });
      const last = steps[steps.length - 1];
      if (last)
        steps[steps.length - 1] = {
          step: 'verdict',
          ok: decision.allow,
          detail: decision.allow ? last.detail : decision.code,
        };
      verdict = decision.allow
        ? { ...verdict, rule: decision.rule ?? verdict.rule }
        : {
            allow: false,
            code: decision.code,
            reason: decision.reason,
            hint: decision.hint,
            rule: decision.rule,
            addresses: verdict.addresses,
          };
    }
    const result: Record<string, unknown> = { url, mode, allow: verdict.allow };
    if (verdict.rule !== undefined) result.rule = verdict.rule;
    if (!verdict.allow) {
      result.code = verdict.code;
      result.reason = verdict.reason;
      if (verdict.hint !== undefined) result.hint = cliHint(verdict.hint);
    }
    if (policyPath) result.policy = policyPath;
    result.addresses = [...verdict.addresses];
    result.steps = steps;
    out.result(result);
    const s = out.style;
    out.line(`${s.bold('trust egress check')} ${escapeTerminal(url)} ${s.dim(`(mode ${mode})`)}`);
    for (const step of steps) {
      out.line(`  ${step.ok ? s.green('✓') : s.red('✗')} ${step.step.padEnd(9)}${escapeTerminal(step.detail)}`);
    }
    if (verdict.allow) {
      out.line(s.green(`allowed (rule ${verdict.rule ?? 'public'})`));
      return 0;
    }
    // A name that does not resolve was never judged: a script must not read it as a denial.
    const unresolved = UNRESOLVED_CODES.has(verdict.code ?? '');
    out.line(
      `${unresolved ? s.yellow('not judged') : s.red('denied')} [${escapeTerminal(verdict.code ?? '')}]: ` +
        escapeTerminal(verdict.reason ?? ''),
    );
    if (verdict.hint) out.line(`  ${s.cyan('hint')}: ${escapeTerminal(cliHint(verdict.hint))}`);
    if (unresolved && !verdict.hint)
      out.line(`  ${s.cyan('hint')}: no address was found to judge; pass --resolve name=address to check an address`);
    return unresolved ? 1 : 126;
  },
};
