import type { TimelineEventKind } from '@hindsight/domain';

function words(list: string[]): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${list.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
}

// Checked in this order on a tie: a line saying "stopped X, service recovers" is a recovery.
const RULES: [TimelineEventKind, RegExp][] = [
  [
    'recovery',
    words([
      'recover(?:s|ed|y|ing)?', 'restored?', 'back to normal', 'back online', 'online again', 'reports? .{0,40}online', 'resolved',
      'all systems green', 'green', 'fully operational', 'stable again', 'remain(?:s|ed)? stable', 'normali[sz]ed', 're-?enabled',
      'returns? to normal', 'load (?:on .{1,40})?drops?', '(?:errors?|error rate|latency) (?:falls?|drops?|recovers?)', 'back to baseline',
      'incident closed', 'clos(?:e|es|ed) the incident', '(?:verified|fully) operational', 'working again', 'works again', 'available again',
      'resum(?:e|es|ed)', 'fix(?:ed)? (?:is )?(?:finally )?deployed(?: on| to| in)? production', 'hotfix is (?:finally )?deployed',
      'wiederhergestellt', 'normalbetrieb', '(?:läuft|laufen|ist|sind) wieder', 'wieder (?:normal|erreichbar|verfügbar|online)',
      '(?:fonctionne|fonctionnent) (?:à nouveau|de nouveau)', 'de nouveau disponibles?', '(?:funciona|funcionan) de nuevo', 'vuelven? a funcionar', 'voltou a funcionar', 'rétabli(?:e|s)?', 'retour à la normale', 'restablecid[oa]', 'recuperad[oa]',
      'phục hồi', 'khôi phục', 'trở lại bình thường',
    ]),
  ],
  [
    'mitigation',
    words([
      'stop(?:s|ped|ping)?', 'disabled?', 'disabling', 'turned (?:fully )?off', 'switched off', 'rolled back', 'roll(?:ing)? back', 'rollback',
      'revert(?:s|ed)?', 'throttl(?:e|ed|ing)', 'rate.?limit(?:ed)?', 'failover', 'failed over', 'mitigat(?:e|ed|ion)', 'workaround',
      'hard-killed', 'killed', 'blocked', 'raised (?:the )?(?:limit|capacity)', 'lowered?', 'scaled (?:up|out)', 'applied', 'hotfix',
      'fix(?:ed)? deployed', 'decision', 'drained?', 'shed', 'restart(?:s|ed|ing)?', 'paus(?:e|es|ed)', 'interromp\\w*', 'arrêt\\w*', 'detenid[oa]',
      'abgeschaltet', 'deaktiviert', 'zurückgerollt', 'gedrosselt', 'désactivé', 'atténu\\w*', 'desactivad[oa]', 'mitigad[oa]',
      'khắc phục', 'dừng', 'tắt', 'giảm tải',
    ]),
  ],
  [
    'detection',
    words([
      'alert(?:s|ed|ing)?', 'paged?', 'pager', 'noticed', 'detected', 'detects?', 'reported', 'reports?', 'first error', 'icinga', 'nagios',
      'pagerduty', 'monitoring', 'PROBLEM', 'complain(?:s|ed)?', 'observed',
      'alarme?', 'alarmierung', 'bemerkt', 'erkannt', 'alertes?', 'détecté', 'alerta', 'detectad[oa]', 'cảnh báo', 'phát hiện',
    ]),
  ],
  [
    'escalation',
    words([
      'escalat(?:e|ed|es|ion)', 'incident (?:was )?declared', 'declared an? incident', 'called in', 'war room', 'engaged', 'on-?call',
      'overload(?:s|ed)?', 'cascad(?:e|ing)', 'worsen(?:s|ed)?', 'spreads?', 'eskaliert', 'escaladé', 'escalad[oa]', 'leo thang', 'lan rộng',
    ]),
  ],
  [
    'trigger',
    words([
      'deploy(?:s|ed|ment)?', 'roll(?:ed)? ?out', 'rollout', 'enabled', 'enables?', 'released?', 'pushed', 'upgrade[ds]?', 'migrat(?:e|ed|ion)',
      'config(?:uration)? change', 'first requests?', 'started', 'begins', 'kicked off', 'trigger(?:ed|s)?',
      'ausgerollt', 'aktiviert', 'déployé', 'déploiement', 'desplegad[oa]', 'despliegue', 'kích hoạt', 'triển khai', 'nâng cấp',
    ]),
  ],
];

// Postmortems often label events: "Trigger: ...", "Khắc phục: ...". A label decides.
const LABELS: [TimelineEventKind, RegExp][] = [
  ['trigger', /^(?:trigger|cause|kích hoạt|auslöser|déclencheur|desencadenante)\s*:/iu],
  ['detection', /^(?:detection|detected|alert|phát hiện|erkennung|détection|detección)\s*:/iu],
  ['escalation', /^(?:escalation|leo thang|eskalation|escalade|escalamiento)\s*:/iu],
  ['mitigation', /^(?:mitigation|fix|workaround|khắc phục|giảm thiểu|behebung|atténuation|mitigación)\s*:/iu],
  ['recovery', /^(?:recovery|resolution|resolved|phục hồi|khôi phục|wiederherstellung|rétablissement|recuperación)\s*:/iu],
];

/** The kind of a timeline event, guessed from its words; "observation" when nothing says otherwise. */
export function classifyEventKind(text: string): TimelineEventKind {
  const plain = text.replace(/^[*_`'\s]+/, '');
  const labelled = LABELS.find(([, label]) => label.test(plain));
  if (labelled) return labelled[0];
  let best: TimelineEventKind = 'observation';
  let bestScore = 0;
  for (const [kind, pattern] of RULES) {
    // The opening words say what happened; later clauses often add context ("... due to load").
    const score = [...text.matchAll(pattern)].reduce((sum, m) => sum + ((m.index ?? 0) < 40 ? 2 : 1), 0);
    if (score > bestScore) {
      best = kind;
      bestScore = score;
    }
  }
  return best;
}
