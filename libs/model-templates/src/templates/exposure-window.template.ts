import type { ModelTemplate } from '../template.types';
import { fluidStep } from './common';

/**
 * Harm that accumulates from a compromise or a silent failure until it is detected and answered
 * (an exposure window). Closed form: harmful actions = attempt rate × success share × window.
 */
export const exposureWindowTemplate: ModelTemplate = {
  key: 'exposure-window',
  title: 'Harm until detection and response',
  failureClass: 'An exposure window: a compromise (phishing, a taken-over account, a leaked token, an exploited vulnerability, an impostor) or a silent failure doing harm until it is detected and answered, with earlier detection, stronger authentication, revocation and rate limits as fixes',
  docs: `From \`triggerAt\` an attacker (or a silent fault) makes \`attemptRate\` harmful attempts per
second: uploads, logins, commits, requests with a stolen credential, writes that go wrong. A share
\`successShare\` of them succeeds. The harm lasts until the attempts are noticed
(\`detectShare\` of the window) and answered (access revoked, the fault fixed): as it happened the
window is \`windowSeconds\`, the time from the first harmful event to the response in the
timeline. The failure: harmful actions succeed (more than none per second) for at least a
minute; how much harm is done is the integral over the window.

Fixes, each in its own scenario:
- earlier detection (\`detect-earlier\`): noticed after \`alertSeconds\`, so the window is shorter
  (reduced: detection does not stop the first harm);
- stronger authentication or narrower access (\`harden-access\`): a share \`hardenEffect\` of the
  attempts that used to succeed now fails (two-factor authentication, fewer privileges, manual
  approval). Reduced unless it is complete;
- revocation (\`revoke-access\`): once noticed, access is revoked in \`revokeSeconds\` (reduced);
- a rate limit (\`load-shedding\`): at most \`rateLimit\` attempts per second are admitted (reduced
  when the attacker was faster than the limit).

Checked against the closed form: harmful actions = attemptRate × successShare × windowSeconds.
Leaves out: what the harm is worth, an attacker who adapts, damage done after the response
(stolen data stays stolen).`,
  patterns: { 'security-incident': 3, 'compromise': 3, 'account-takeover': 3, 'phishing': 3, 'vulnerability': 2, 'abuse': 2, 'silent-failure': 2, 'monitoring-gap': 1.5, 'data-loss': 1 },
  keywords: [
    { re: /\b(?:phish\w*|account takeover|taken over|compromis\w*|attack(?:er|ers|s|ed)?|malicious|impersonat\w*|squat\w*|stolen|leak(?:ed)? (?:token|credential|key|password)s?|credential stuffing|intrud\w*|intrusion|exploit\w*|vulnerab\w*|cve-\d+|backdoor|unauthori[sz]ed|security (?:incident|researcher|issue))\b/, weight: 3, reason: 'describes a compromise or an attack' },
    { re: /\b(?:password|credentials?|api tokens?|tokens?|2fa|mfa|two[- ]factor|permissions?|privileges?|access keys?|secrets?)\b/, weight: 1, reason: 'names credentials or access' },
    { re: /\b(?:silent(?:ly)?|unnoticed|without (?:anyone )?noticing|went undetected|nobody (?:was )?notified|no (?:one|body) noticed|inconsisten\w*|mismatch\w*|corrupt\w*|(?:report\w*|return\w*) (?:a )?success\w* (?:status |response |code )?(?:even though|although|though|while|but|when)|without (?:an? )?(?:error|alert|warning)|(?:was|were|went) not (?:noticed|detected)|no alert (?:fired|was sent))\b/, weight: 2, reason: 'describes a failure that went unnoticed' },
    { re: /\b(?:spam|abus\w*|bots?|scrap\w*|dos|ddos|denial of service)\b/, weight: 1, reason: 'describes abusive traffic' },
    // The same in the other languages the importer reads (Japanese, Chinese, German, French, Spanish).
    { re: /侵入|侵害|不正アクセス|攻撃|改ざん|入侵|攻击|篡改|泄露|漏洞|脆弱性|\b(?:angriff\w*|kompromittiert\w*|sicherheitslücke\w*|einbruch|attaque\w*|compromis(?:e|ion)|piratage|intrusi[oó]n|ataque\w*|comprometid\w*)/, weight: 3, reason: 'describes a compromise or an attack (in another language)' },
  ],
  parameters: [
    { name: 'attemptRate', unit: 'attempts/s', min: 1e-6, max: 1_000_000, default: 0.05, defaultWhy: 'One harmful attempt every 20 s: a scripted attacker; the harm scales with it, the verdicts do not.', description: 'Harmful attempts per second during the window.', figure: { kind: 'rate', cues: /\b(?:uploads?|requests?|attempts?|logins?|packages?|crates?|releases?|messages|emails?|calls|writes|publish\w*|per)\b/ } },
    { name: 'successShare', unit: 'ratio', min: 0.001, max: 1, default: 0.9, defaultWhy: 'Most attempts succeed once the attacker holds working access.', description: 'Share of attempts that succeed.', figure: { kind: 'percent', cues: /\b(?:succe\w*|worked|effective|of (?:the )?attempts)\b/ } },
    {
      name: 'windowSeconds', unit: 's', min: 60, max: 365 * 86400, default: 86400, timeline: 'failure-duration',
      defaultWhy: 'A day from the first harm to the response, when the timeline gives no length.',
      description: 'Time from the first harmful event to the response as it happened (detection plus response).',
      figure: { kind: 'duration', cues: /\b(?:window|undetected|unnoticed|went on|lasted|until|exposed|active|access)\b/ },
    },
    { name: 'detectShare', unit: 'ratio', min: 0.05, max: 0.99, default: 0.75, defaultWhy: 'Three quarters of the window spent before anyone noticed: in most compromises detection takes longer than the response.', description: 'Share of the window before the harm was noticed.' },
    { name: 'alertSeconds', unit: 's', min: 10, max: 30 * 86400, default: 900, defaultWhy: 'Fifteen minutes from the first harmful event to an alert.', description: 'Time to notice with detection in place (detect-earlier fix).', figure: { kind: 'duration', cues: /\b(?:alert\w*|detect\w*|notic\w*|page[sd]?|within)\b/, fromActionables: 'only' } },
    { name: 'hardenEffect', unit: 'ratio', min: 0, max: 1, default: 0.9, defaultWhy: 'Nine in ten of the attempts that worked are stopped by a second factor or narrower access; not all (a phished one-time code, a session already open).', description: 'Share of succeeding attempts that stronger authentication or narrower access stops (harden-access fix).' },
    { name: 'revokeSeconds', unit: 's', min: 10, max: 30 * 86400, default: 600, defaultWhy: 'Ten minutes to revoke tokens and sessions with a prepared procedure.', description: 'Time from detection to revoked access (revoke-access fix).', figure: { kind: 'duration', cues: /\b(?:revok\w*|rotat\w*|disabl\w*|within)\b/, fromActionables: 'only' } },
    { name: 'rateLimit', unit: 'attempts/s', min: 1e-6, max: 1_000_000, default: 0.005, defaultWhy: 'Replaced by a tenth of the attempt rate when the text gives none.', description: 'Attempts per second admitted with a rate limit (load-shedding fix).', assume: (v) => ({ value: v.attemptRate! / 10, why: 'Taken as a tenth of the attempt rate: a limit that a scripted attacker exceeds and a person does not.' }) },
    { name: 'alerted', unit: 'on/off', min: 0, max: 1, integer: true, default: 0, defaultWhy: 'No detection of this as it happened.', description: 'Whether detection notices after alertSeconds.' },
    { name: 'hardened', unit: 'on/off', min: 0, max: 1, integer: true, default: 0, defaultWhy: 'Not in place as it happened.', description: 'Whether stronger authentication or narrower access is in place.' },
    { name: 'revokeFast', unit: 'on/off', min: 0, max: 1, integer: true, default: 0, defaultWhy: 'Not in place as it happened.', description: 'Whether access is revoked within revokeSeconds of detection.' },
    { name: 'limited', unit: 'on/off', min: 0, max: 1, integer: true, default: 0, defaultWhy: 'No rate limit as it happened.', description: 'Whether the rate limit is in place.' },
    { name: 'attackOn', unit: 'on/off', min: 0, max: 1, default: 0, defaultWhy: 'A switch the window events set.', description: 'Whether the harmful attempts are being made (set by the timeline events).' },
    {
      name: 'triggerAt', unit: 's', min: 0, max: 30 * 86400, default: 60, defaultWhy: 'A minute before the first harm shows the model is quiet without it.', description: 'When the first harmful event happens, seconds into the run.',
      assume: (v) => ({ value: Math.max(60, 0.05 * v.windowSeconds!), why: 'A twentieth of the window (at least a minute) before the first harm, so the quiet stretch spans several output points.' }),
    },
  ],
  fixes: [
    { key: 'detect-earlier', remedy: 'detect-earlier', title: 'Detection in minutes', description: 'Detection notices the harmful events after alertSeconds; the response follows as before.', parameters: () => ({ alerted: 1 }) },
    { key: 'harden-access', remedy: 'harden-access', title: 'Stronger authentication or narrower access', description: 'A second factor, fewer privileges or a manual approval stops most attempts that used to work.', parameters: () => ({ hardened: 1 }) },
    { key: 'revoke-quickly', remedy: 'revoke-access', title: 'Revoke access quickly', description: 'Once noticed, tokens, sessions and keys are revoked within minutes.', parameters: () => ({ revokeFast: 1 }) },
    { key: 'rate-limit', remedy: 'load-shedding', title: 'A rate limit', description: 'Attempts beyond the rate limit are refused.', parameters: () => ({ limited: 1 }) },
  ],
  failure: { description: 'harmful actions succeed for at least a minute', metric: 'target.goodput', op: 'above', threshold: 0, sustain: 60 },
  failureKind: 'construction',
  build: (v) => {
    const detect = 'if(alerted, min(alertSeconds, detectShare * windowSeconds), detectShare * windowSeconds)';
    const respond = 'if(revokeFast, min(revokeSeconds, (1 - detectShare) * windowSeconds), (1 - detectShare) * windowSeconds)';
    const horizon = v.triggerAt! + v.windowSeconds! * 1.2 + 120;
    return {
      engine: { mode: 'fluid', fluidStep: fluidStep(horizon, 5) },
      horizon,
      stations: [
        {
          key: 'target', title: 'What the attempts reach', slots: null, service: 0.05, errorStatus: 403,
          errorRate: { expr: '1 - successShare * (1 - hardened * hardenEffect)' },
          admit: { expr: 'if(limited, min(1, rateLimit / attemptRate), 1)' },
        },
      ],
      sources: [{ key: 'attempts', title: 'Harmful attempts', kind: 'open', target: 'target', rate: { expr: 'attemptRate * attackOn' } }],
      events: [
        { key: 'harm-starts', at: { param: 'triggerAt' }, kind: 'setParameter', parameter: 'attackOn', value: 1, label: 'The first harmful event' },
        { key: 'harm-stopped', at: { expr: `triggerAt + ${detect} + ${respond}` }, kind: 'setParameter', parameter: 'attackOn', value: 0, label: 'Detected and answered' },
      ],
      probes: [
        { key: 'harm', metric: 'target.goodput', label: 'Harmful actions that succeed', unit: 'actions/s' },
        { key: 'attempts', metric: 'target.offered', label: 'Harmful attempts', unit: 'attempts/s' },
      ],
      figures: [{ name: 'harm', label: 'Harmful actions: attempt rate × success share × window', unit: 'actions', value: 'attemptRate * successShare * windowSeconds' }],
      checks: [
        {
          name: 'harm-over-window',
          description: 'As it happened, the harmful actions that succeed add up to attempt rate × success share × window.',
          scenarios: ['as-happened'],
          measure: { metric: 'target.goodput', stat: 'integral' },
          expect: { op: 'approx', value: 'attemptRate * successShare * windowSeconds', tolerance: 0.05 },
          unit: 'actions',
          kind: 'construction',
        },
      ],
    };
  },
};
