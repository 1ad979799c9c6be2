import type { ModelTemplate } from '../template.types';
import { fluidStep } from './common';

/**
 * A bad change (a deploy, an upgrade, a configuration push) that breaks a share of requests
 * until it is noticed and rolled back. The harm is the blast radius × the time to detect and roll
 * back; closed form: failed requests = rate × errorShare × rolloutShare × (detect + rollback).
 */
export const badChangeTemplate: ModelTemplate = {
  key: 'bad-change',
  title: 'A bad change rolled out',
  failureClass: 'A bad change (deploy, upgrade, configuration or data push) breaking the requests it reaches until it is detected and rolled back, with staged rollouts, faster rollback, validation before deploying and earlier detection as fixes',
  docs: `A service takes \`requestRate\` requests/s. At \`triggerAt\` a change goes out to a share
\`rolloutShare\` of it (servers, users, nodes, validators) and makes a share \`errorShare\` of the
requests it serves fail. It is noticed \`detectSeconds\` later and takes \`rollbackSeconds\` to
undo; as it happened their sum is the time from the change to the recovery in the timeline
(\`recoverSeconds\`), split by \`detectShare\`. So a share errorShare × rolloutShare of requests
fail for detect + rollback seconds: blast radius × time. The failure: fewer than 90 % of
requests succeed for at least a minute.

Fixes, each in its own scenario:
- a staged rollout (\`stagger-rollout\`): the change reaches \`canaryShare\` first and everyone only
  after \`bakeSeconds\`, unless it was noticed by then (then it is rolled back from the canary).
  Prevented when the canary's errors stay under the criterion and detection is quicker than the
  bake time; delayed by the bake time otherwise;
- a faster rollback (\`rollback\`): undoing takes \`fastRollbackSeconds\` (reduced);
- validation before deploying (\`pre-deploy-validation\`): tests or checks catch such a change with
  probability \`catchProbability\`; the model shows the expected error share over many such changes,
  (1 − catchProbability) × errorShare × rolloutShare (reduced, not prevented, unless it is certain);
- earlier detection (\`detect-earlier\`): an alert notices it after \`alertSeconds\` (reduced).

Checked against the closed form: failed requests = requestRate × errorShare × rolloutShare ×
recoverSeconds. Leaves out: partial rollouts that are not a share of traffic, changes that cannot
be rolled back (data migrations), retries of failed requests.`,
  patterns: { 'bad-deploy': 3, 'config-change': 3, 'bad-config': 3, 'deploy': 2, 'upgrade': 2, 'change-management': 2, 'untested-change': 2 },
  keywords: [
    { re: /\b(?:deploy(?:ed|ing|ment|s)?|roll(?:ed)? ?out|rollout|releas(?:e|ed|ing)|upgrad(?:e|ed|ing)|migrat(?:e|ed|ion)|updat(?:e|ed|ing) (?:the |our |its |a )?(?:config\w*|version|release|image|dependenc\w*|packages?|kernel|firmware|cluster|deployment|schema|binary|software)|patch(?:ed)? (?:the |our )?(?:servers?|nodes?|fleet|cluster|service)|push(?:ed)? (?:out|to (?:production|prod|all|every))|config(?:uration)? (?:change|push|update))\b/, weight: 1.5, reason: 'describes a change being rolled out' },
    { re: /\b(?:bug|regression|misconfigur\w*|config(?:uration)? (?:change|error|mistake|update)|typo|wrong (?:value|setting|version)|incompatib\w*|breaking change|human error)\b/, weight: 1.5, reason: 'describes a defect the change brought' },
    { re: /\b(?:roll(?:ed)? ?back|revert(?:ed|ing)?|downgrad\w*)\b/, weight: 2, reason: 'describes undoing a change' },
    // The same in the other languages the importer reads (Chinese, Japanese, German, French, Spanish).
    { re: /升级|更新|部署|发布|上线|回滚|アップグレード|アップデート|デプロイ|リリース|ロールバック|\b(?:aktualisierung|bereitstellung|mise à jour|déploiement|actualización|despliegue)/, weight: 1.5, reason: 'describes a change being rolled out (in another language)' },
    { re: /失误|错误配置|配置错误|误操作|バグ|不具合|設定ミス|誤設定|\b(?:fehlkonfiguration|konfigurationsfehler|erreur de configuration|error de configuración)/, weight: 1.5, reason: 'describes a defect the change brought (in another language)' },
    { re: /\b(?:crash ?loop\w*|failed to start|would not start|halt(?:ed)?|stopped responding)\b/, weight: 1, reason: 'describes a service broken after a change' },
  ],
  parameters: [
    { name: 'requestRate', unit: 'req/s', min: 0.001, max: 10_000_000, default: 100, defaultWhy: '100 requests/s; the shares and the times decide the failure, not the rate.', description: 'Requests per second the service takes.', figure: { kind: 'rate', cues: /\b(?:requests?|traffic|load|queries|calls|events|jobs|builds|transactions)\b/ } },
    { name: 'rolloutShare', unit: 'ratio', min: 0.001, max: 1, default: 1, defaultWhy: 'The change reached everyone at once, when the text gives no share.', description: 'Share of the service (servers, users, nodes) the change reached.', figure: { kind: 'percent', cues: /\b(?:roll(?:ed)? ?out|rollout|deploy\w*|upgrad\w*|fleet|of (?:the )?(?:servers|nodes|hosts|users|clients|validators|traffic|instances|pods)|of (?:the )?(?:\w+ ){0,2}?(?:power|capacity|network|fleet|traffic|users|cluster)|validators|nodes|servers|hosts|instances)\b/ } },
    { name: 'errorShare', unit: 'ratio', min: 0.001, max: 1, default: 1, defaultWhy: 'The change broke everything it reached (a crash, a halt, a refused configuration), when the text gives no error rate.', description: 'Share of the requests reaching the changed part that fail.', figure: { kind: 'percent', cues: /\b(?:errors?|error rate|fail\w*|broken|5\d\d|timeouts?)\b/ } },
    {
      name: 'recoverSeconds', unit: 's', min: 60, max: 30 * 86400, default: 3600, timeline: 'failure-duration',
      defaultWhy: 'An hour from the change to the recovery, when the timeline gives no length.',
      description: 'Time from the change to the recovery as it happened (detection plus rollback).',
      figure: { kind: 'duration', cues: /\b(?:outage|down|downtime|lasted|halt\w*|unavailable|broken|failed|failing)\b/ },
    },
    { name: 'detectShare', unit: 'ratio', min: 0.05, max: 0.95, default: 0.5, defaultWhy: 'Half of that time spent noticing and half undoing, when the timeline does not split it.', description: 'Share of the time to recover spent noticing the change was bad.' },
    { name: 'canaryShare', unit: 'ratio', min: 0.001, max: 0.5, default: 0.05, defaultWhy: 'A canary of 5 % of the service is a common first stage.', description: 'Share the change reaches in the first stage (staged-rollout fix).', figure: { kind: 'percent', cues: /\b(?:canar\w*|first|stage\w*|initially|start with)\b/, fromActionables: true } },
    { name: 'bakeSeconds', unit: 's', min: 60, max: 7 * 86400, default: 3600, defaultWhy: 'An hour at the first stage before going to everyone is a common soak time.', description: 'Time at the first stage before the change goes to everyone (staged-rollout fix).', figure: { kind: 'duration', cues: /\b(?:wait(?: for)?|bake|baking|soak\w*|canar\w*|before (?:going|rolling|promoting|continuing|proceeding))\b/, fromActionables: 'only' } },
    { name: 'fastRollbackSeconds', unit: 's', min: 10, max: 86400, default: 300, defaultWhy: 'Five minutes to roll back with a one-step, rehearsed rollback.', description: 'Time to undo the change with a fast rollback (rollback fix).', figure: { kind: 'duration', cues: /\b(?:roll(?:ed|ing)?[- ]?back|revert\w*|restor\w*|undo)\b/, fromActionables: 'only' } },
    { name: 'catchProbability', unit: 'ratio', min: 0, max: 1, default: 0.5, defaultWhy: 'Half of such defects caught before production: tests and validation catch some changes, not all.', description: 'Probability that validation before deploying catches the bad change (validation fix).' },
    { name: 'alertSeconds', unit: 's', min: 10, max: 86400, default: 300, defaultWhy: 'Five minutes from the first errors to an alert.', description: 'Time to notice the change with an alert on its errors (detect-earlier fix).', figure: { kind: 'duration', cues: /\b(?:alert\w*|detect\w*|notic\w*|page[sd]?|within)\b/, fromActionables: 'only' } },
    { name: 'staged', unit: 'on/off', min: 0, max: 1, integer: true, default: 0, defaultWhy: 'The change went out in one step as it happened.', description: 'Whether the change goes out in stages.' },
    { name: 'fastRollback', unit: 'on/off', min: 0, max: 1, integer: true, default: 0, defaultWhy: 'No fast rollback as it happened.', description: 'Whether the rollback takes fastRollbackSeconds.' },
    { name: 'validated', unit: 'on/off', min: 0, max: 1, integer: true, default: 0, defaultWhy: 'No validation that catches it as it happened.', description: 'Whether the change is validated before it goes out.' },
    { name: 'alerted', unit: 'on/off', min: 0, max: 1, integer: true, default: 0, defaultWhy: 'No alert as it happened.', description: 'Whether an alert notices the change after alertSeconds.' },
    {
      name: 'triggerAt', unit: 's', min: 0, max: 86400, default: 60, defaultWhy: 'A minute before the change shows the service is healthy without it.', description: 'When the change goes out, seconds into the run.',
      assume: (v) => ({ value: Math.max(60, 0.05 * Math.max(v.recoverSeconds!, v.bakeSeconds!)), why: 'A twentieth of the time to recover (at least a minute) before the change, so the healthy stretch spans several output points.' }),
    },
  ],
  fixes: [
    { key: 'staged-rollout', remedy: 'stagger-rollout', title: 'A staged rollout', description: 'The change reaches a canary share first and everyone only after the bake time, unless noticed by then.', parameters: () => ({ staged: 1 }) },
    { key: 'fast-rollback', remedy: 'rollback', title: 'A fast rollback', description: 'Undoing the change takes minutes.', parameters: () => ({ fastRollback: 1 }) },
    { key: 'validate-before-deploy', remedy: 'pre-deploy-validation', title: 'Validation before deploying', description: 'Tests or checks catch such a change before it goes out with the stated probability (the expected error share).', parameters: () => ({ validated: 1 }) },
    { key: 'alert-on-errors', remedy: 'detect-earlier', title: 'An alert on the errors', description: 'An alert notices the change after minutes, so the rollback starts sooner.', parameters: () => ({ alerted: 1 }) },
  ],
  failure: { description: 'fewer than 90 % of requests succeed for at least a minute', metric: 'requests.successRatio', op: 'below', threshold: 0.9, sustain: 60 },
  failureKind: 'construction',
  build: (v) => {
    const detect = 'if(alerted, min(alertSeconds, detectShare * recoverSeconds), detectShare * recoverSeconds)';
    const rollback = 'if(fastRollback, min(fastRollbackSeconds, (1 - detectShare) * recoverSeconds), (1 - detectShare) * recoverSeconds)';
    const level = '(1 - validated * catchProbability) * errorShare';
    const first = `${level} * if(staged, min(canaryShare, rolloutShare), rolloutShare)`;
    const horizon = v.triggerAt! + Math.max(v.recoverSeconds!, v.bakeSeconds!) * 1.5 + 300;
    return {
      engine: { mode: 'fluid', fluidStep: fluidStep(horizon, 5) },
      horizon,
      stations: [{ key: 'service', title: 'Service', slots: null, service: 0.05, errorStatus: 500 }],
      sources: [{ key: 'requests', title: 'Requests', kind: 'open', target: 'service', rate: { param: 'requestRate' } }],
      events: [
        { key: 'change-out', at: { param: 'triggerAt' }, kind: 'setErrorRate', station: 'service', value: { expr: first }, label: 'The change goes out' },
        {
          key: 'change-everywhere',
          at: { expr: 'triggerAt + if(staged, bakeSeconds, 0)' },
          kind: 'setErrorRate',
          station: 'service',
          // Staged and noticed before the bake time: it never goes further than the canary.
          value: { expr: `if(staged && ${detect} < bakeSeconds, if(${detect} + ${rollback} <= bakeSeconds, 0, ${first}), ${level} * rolloutShare)` },
          label: 'The change reaches everyone it was meant for',
        },
        { key: 'rolled-back', at: { expr: `triggerAt + ${detect} + ${rollback}` }, kind: 'setErrorRate', station: 'service', value: 0, label: 'The change is rolled back' },
      ],
      probes: [
        { key: 'success', metric: 'requests.successRatio', label: 'Requests that succeed', unit: 'ratio' },
        { key: 'errors', metric: 'service.errors', label: 'Failed requests', unit: 'req/s' },
      ],
      figures: [
        { name: 'failed-requests', label: 'Failed requests: rate × error share × rollout share × time to recover', unit: 'requests', value: 'requestRate * errorShare * rolloutShare * recoverSeconds' },
      ],
      checks: [
        {
          name: 'blast-radius-times-time',
          description: 'As it happened, the failed requests equal rate × error share × rollout share × the time to recover (blast radius × time).',
          scenarios: ['as-happened'],
          measure: { metric: 'service.errors', stat: 'integral' },
          expect: { op: 'approx', value: 'requestRate * errorShare * rolloutShare * recoverSeconds', tolerance: 0.05 },
          unit: 'requests',
          kind: 'construction',
        },
      ],
    };
  },
};
