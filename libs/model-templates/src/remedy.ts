/**
 * The kinds of remedy a fix scenario models, and the plain rules that read which ones an
 * actionable describes. One list, shared by the templates (each fix names its kind) and the
 * matcher (actionables are matched to fixes by kind).
 */
export const REMEDY_KINDS = [
  'add-timeout',
  'lower-timeout',
  'backoff-jitter',
  'retry-budget',
  'concurrency-limit',
  'circuit-breaker',
  'load-shedding',
  'lower-keep-alive',
  'raise-cap',
  'warm-cache',
  'stagger-rollout',
  'break-loop',
  'reclaim',
  'detect-earlier',
  'rollback',
  'pre-deploy-validation',
  'harden-access',
  'revoke-access',
] as const;
export type RemedyKind = (typeof REMEDY_KINDS)[number];

export const REMEDY_LABELS: Record<RemedyKind, string> = {
  'add-timeout': 'add a timeout',
  'lower-timeout': 'lower a timeout',
  'backoff-jitter': 'backoff and jitter',
  'retry-budget': 'retry budget',
  'concurrency-limit': 'concurrency limit',
  'circuit-breaker': 'circuit breaker',
  'load-shedding': 'load shedding / admission control',
  'lower-keep-alive': 'lower keep-alive',
  'raise-cap': 'raise a cap / add capacity',
  'warm-cache': 'warm the cache',
  'stagger-rollout': 'stagger the rollout',
  'break-loop': 'break the loop',
  reclaim: 'reclaim / clean up',
  'detect-earlier': 'detect earlier (alerts, monitoring)',
  rollback: 'faster rollback',
  'pre-deploy-validation': 'validate before deploying (tests, checks)',
  'harden-access': 'stronger authentication / narrower access',
  'revoke-access': 'revoke access / credentials',
};

/**
 * Each rule is a regular expression over an actionable's folded title and description; the
 * first words it matched are returned as the reason. Rules are deliberately about the remedy's
 * own vocabulary, not about any one document.
 */
const RULES: Record<RemedyKind, RegExp[]> = {
  'add-timeout': [/\b(?:add|set|introduce|configure|enforce|use|missing|without|no)\b[^.]{0,40}\btime ?-?outs?\b/, /\btime ?-?outs?\b[^.]{0,30}\b(?:on|for|to) (?:every|all|each|outbound|remote|external|the)\b/, /\bdeadlines?\b/],
  'lower-timeout': [/\b(?:lower|reduce|shorten|decrease|tighten|cut)\b[^.]{0,30}\btime ?-?outs?\b/, /\btime ?-?outs?\b[^.]{0,20}\b(?:lower|shorter|reduced)\b/],
  'backoff-jitter': [/\bback-?off\b/, /\bjitter\b/, /\bexponential(?:ly)?\b[^.]{0,20}\b(?:retr|delay)/, /\bspread (?:out )?(?:the )?(?:retries|reconnects|requests|clients)\b/, /\brandomi[sz]e\b/],
  'retry-budget': [/\bretr(?:y|ies)\b[^.]{0,40}\b(?:budget|limit|less aggressive|fewer|cap|bound|reduce|lower|stop|only|policy|safer)\b/, /\b(?:limit|cap|bound|reduce|lower|fewer|stop|avoid|no)\b[^.]{0,30}\bretr(?:y|ies|ying)\b/, /\bretry (?:storm|amplification)\b/],
  'concurrency-limit': [/\bconcurren(?:cy|t)\b/, /\b(?:limit|cap|bound|restrict)s?\b[^.]{0,30}\b(?:memory|cpu|resources?|usage)\b/, /\b(?:resource|memory|cpu) (?:limits?|quotas?)\b/, /\bparallel(?:ism)?\b[^.]{0,20}\b(?:limit|bound|cap)/, /\b(?:limit|bound|cap)\b[^.]{0,30}\b(?:in-?flight|parallel|workers|jobs|processes|threads|connections per)\b/, /\bbulkhead\b/, /\bquotas?\b[^.]{0,30}\b(?:per|for each|for every)\b/, /\b(?:each|every|per)[- ](?:\w+ ){0,2}?(?:an? |its own )?(?:quota|limit)s?\b/, /\bseparate (?:pool|queue|worker)/, /\bmax(?:imum)? (?:number of )?(?:workers|jobs|processes|pods)\b/],
  'circuit-breaker': [/\bcircuit[- ]?breakers?\b/, /\bfail[- ]fast\b/, /\bdisable (?:the )?(?:feature|integration|call)s? (?:automatically|when)\b/, /\bkill[- ]?switch\b/, /\bfeature (?:flag|toggle)\b/],
  'load-shedding': [/\bload[- ]?shed/, /\bshed(?:ding)?\b/, /\badmission\b/, /\brate[- ]?limit/, /\bthrottl/, /\bquotas? (?:per|for) (?:client|user|ip|account|tenant)/, /\bbackpressure\b/, /\breject (?:excess|requests)\b/, /\breject\w*\b[^.]{0,40}\b(?:that|which|when|above|over|more than|exceed\w*)\b/, /\bblock (?:abusive|malicious|the) (?:traffic|ips?|clients|bots?)\b/, /\b(?:ddos|dos) (?:protection|mitigation)\b/, /\bcloudflare\b|\bwaf\b/],
  'lower-keep-alive': [/\bkeep-?alive\b/, /\bidle (?:connection )?time ?-?outs?\b/, /\blong[- ]?poll/, /\bwebsockets?\b/, /\bconnection (?:reuse|lifetime)\b/],
  'raise-cap': [
    /\b(?:raise|increase|bump|double|grow|expand|extend|enlarge|more|add(?:ing)?|additional|extra|higher|larger|bigger)\b[^.]{0,50}\b(?:limits?|caps?|capacity|memory|ram|disk|disks|storage|space|nodes?|servers?|machines?|instances?|replicas?|quotas?|pool|sessions|connections|ip (?:addresses|range|space)|subnets?|budget|cpus?|cores|hosts?|workers|volume)\b/,
    /\b(?:auto-?scal|scale (?:up|out)|horizontal(?:ly)? scal|overprovision|headroom|redundan(?:cy|t)|failover|standby|spare|second (?:server|node|provider|region)|multi-?(?:region|az|zone))/,
    /\b(?:limits?|caps?|quotas?|capacity|memory|resources?)\b[^.]{0,20}\b(?:raised|increased|bumped|doubled)\b/,
    /\b(?:resource (?:limits|requests)|requests and limits)\b/,
    /\b(?:fund(?:s|ed|ing)?|pay(?:s|ing)? for|purchas\w*|buy(?:ing)?|upgrad\w* (?:the |our |to a )?(?:paid |higher |larger )?(?:plan|tier|subscription))\b/,
  ],
  'warm-cache': [/\bwarm(?:ing|ed)?\b[^.]{0,20}\b(?:cache|up)\b/, /\b(?:pre-?fill|pre-?load|pre-?populate|prime|pre-?warm)\b/, /\bcache\b[^.]{0,40}\b(?:missing|only the|fill|refill|ttl|persist|keep)\b/, /\b(?:fetch|query|read)\b[^.]{0,20}\bonly\b[^.]{0,30}\bmissing\b/, /\bcach(?:e|ing)\b[^.]{0,20}\b(?:the )?(?:result|response|answer)s?\b/, /\b(?:add|use|introduce|enable)\b[^.]{0,20}\bcach(?:e|ing)\b/],
  'stagger-rollout': [/\bstagger/, /\bsmaller,? (?:and )?(?:more[- ]frequent )?(?:changes|deploys|deployments|releases|batches|steps|updates|pull requests)\b/, /\bsmaller\b[^.]{0,20}\bmore[- ]frequent\b/, /\bcanar(?:y|ies)\b/, /\bgradual(?:ly)?\b/, /\bsmall(?:er)? (?:steps|batches|increments)\b/, /\b(?:phased|incremental|progressive|rolling)\b[^.]{0,20}\b(?:rollout|roll-out|deploy|upgrade|restart|release)/, /\b(?:rollout|roll-out|roll out|upgrade|deploy(?:ment)?|release)s?\b[^.]{0,30}\b(?:procedure|process|plan|one at a time|in steps|off-?peak|slowly|staged|staging)\b/, /\bone (?:node|host|server|machine) at a time\b/, /\b(?:to |in |on )?(?:one|a single|a few|a small (?:share|set|group|number) of) (?:regions?|zones?|clusters?|hosts?|servers?|nodes?|machines?|data ?cent(?:er|re)s?|datacenters?|cells?|shards?|users|customers)\b[^.]{0,20}\b(?:first|at a time|before (?:the )?(?:rest|others|everyone))\b/, /\btest(?:ing)? (?:the )?(?:upgrades?|changes?|deploy(?:ment)?s?|releases?|migrations?) (?:in|on) (?:staging|a test)/, /\bstaging (?:environment|cluster)\b/, /\breopen\b[^.]{0,30}\bsteps\b/],
  reclaim: [/\b(?:clean(?:s|ed|ing)? ?up|cleanup|garbage[- ]collect\w*|prun(?:e|ed|ing)|cull(?:s|ed|ing)?|purg(?:e|ed|ing)|expir(?:e|es|ed|y)|retention|rotat(?:e|ed|ing) (?:the )?logs?|log rotation|(?:delete|remove|free)[sd]? (?:\w+ ){0,3}?(?:old|stale|unused|orphan\w*|leftover|temporary)|reclaim\w*|fix\w* (?:\w+ ){0,2}?(?:memory |resource )?leaks?)\b/],
  'detect-earlier': [/\b(?:alert(?:s|ed|ing)?|alarms?|pag(?:e|es|ed|ing) (?:the )?(?:on-?call|someone|us)|paging|on-?call|monitor(?:s|ed|ing)?|health ?checks?|detect(?:s|ed|ion|ing)?|notif(?:y|ied|ication)s? (?:when|if|on|about)|be notified|watchdog|uptime check|synthetic (?:check|probe)s?|consistency check|checks? (?:that|whether|for) (?:the )?\w+ (?:is|are) (?:up|consistent|healthy))\b/],
  rollback: [/\b(?:roll(?:s|ed|ing)?[- ]?back|revert(?:s|ed|ing)?|downgrad\w*|undo|previous (?:version|release|configuration|config|build|image|state)|last (?:known )?good|restor\w* (?:the )?(?:previous|last|old|prior))\b/],
  'pre-deploy-validation': [/\b(?:tests?|testing|tested|e2e|end-to-end|integration tests?|unit tests?|test coverage|valid(?:ate|ated|ation|ating)|lint\w*|dry[- ]?run|simulat\w*|pre-?(?:deploy|merge|flight|upgrade) checks?|ci checks?|check (?:for|the) (?:available|free)|fail otherwise|schema check|review (?:before|of (?:the )?(?:change|config))|versioned (?:api|config)|ban\w* (?:potentially )?incompatible|staging|testnet)\b/],
  'harden-access': [/\b(?:2fa|mfa|two[- ]factor|multi[- ]?factor|second factor|webauthn|security keys?|hardware keys?|passkeys?|least privilege|(?:fewer|narrower|reduced?|remov\w*|restrict\w*|limit\w*) (?:\w+ ){0,3}?(?:permissions?|privileges?|access|scopes?|ability)|manual (?:review|approval)|requir\w* (?:a )?(?:manual )?(?:review|approval)|disabl\w* (?:\w+ ){0,4}?(?:actions?|workflows?|integrations?|bots?|accounts?)|patch(?:ed|ing)? (?:the )?vulnerab\w*|upgrad\w* (?:\w+ ){0,3}?(?:to fix|patched|vulnerab\w*)|signing|signed (?:commits|releases|packages)|password (?:policy|requirements|checks?))\b/],
  'revoke-access': [/\b(?:revok\w*|rotat(?:e|ed|ing) (?:the )?(?:\w+ )?(?:credentials?|keys?|tokens?|secrets?|passwords?)|(?:remov\w*|delet\w*|invalidat\w*|disabl\w*) (?:the |all )?(?:\w+ )?(?:tokens?|sessions?|credentials?|keys?|accounts?)|reset (?:the )?passwords?|take ?down|taken down)\b/],
  'break-loop': [/\b(?:event |feedback |infinite |retry )?loops?\b[^.]{0,30}\b(?:guard|prevent|detect|break|stop|avoid)\b/, /\b(?:guard|prevent|detect|break|stop|avoid)\b[^.]{0,30}\bloops?\b/, /\b(?:self-?redirect|recursion|recursive|re-?emit|cycle detection|dedup(?:licat)?)/, /\b(?:repeated(?:ly)?|same)\b[^.]{0,30}\b(?:redirects?|re-?renders?|re-?parses?|events?)\b/],
};

/**
 * The same kinds in Chinese and Japanese, the other scripts the importer reads (no word
 * boundaries there): one rule per kind, tried after the English ones.
 */
const CJK_PRESCRIPTIVE = /应该|应当|需要|必须|建议|要(?:求|在|先|对|用|把|有)|增加|添加|建立|设置|引入|采用|改为|改成|加上|すべき|する必要|必要がある|導入|追加|設定する|徹底|実施する|義務|必須|しなければ|するように/;

const CJK_RULES: Partial<Record<RemedyKind, RegExp>> = {
  'add-timeout': /(?:设置|增加|添加|加上)超时|タイムアウトを(?:設定|追加)/,
  'backoff-jitter': /退避|指数回退|随机延迟|バックオフ|ジッター/,
  'retry-budget': /(?:限制|减少)重试|リトライ(?:を|の)?(?:制限|削減)/,
  'concurrency-limit': /并发(?:限制|数)|限制(?:内存|资源|并发)|同時実行数|(?:メモリ|リソース)(?:の)?(?:上限|制限)/,
  'circuit-breaker': /熔断|断路器|サーキットブレーカー/,
  'load-shedding': /限流|削峰|流量控制|レート制限|流量制御|負荷制限/,
  'raise-cap': /扩容|增加(?:容量|内存|磁盘|节点|服务器|配额|余额)|充值|増設|容量(?:を)?(?:増|拡)/,
  'warm-cache': /预热|ウォームアップ|事前(?:に)?(?:キャッシュ|読み込)/,
  'stagger-rollout': /灰度|分批|逐步|金丝雀|段階的|カナリア|少しずつ/,
  reclaim: /清理|删除(?:旧|过期|无用)|回收|过期|クリーンアップ|(?:古い|不要な).{0,10}削除|期限切れ/,
  'detect-earlier': /监控|告警|报警|预警|監視|アラート|検知/,
  rollback: /回滚|回退|ロールバック|切り戻し|差し戻し/,
  'pre-deploy-validation': /测试|验证|校验|检查配置|テスト|検証|事前(?:に)?確認/,
  'harden-access': /双因素|两步验证|多因素|二要素|二段階認証|多要素|最小权限|最小権限/,
  'revoke-access': /吊销|撤销|作废|更换(?:密钥|密码|令牌)|失効|無効化|(?:鍵|パスワード|トークン)(?:を)?(?:変更|再発行)/,
};

function fold(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

export interface RemedyMatch {
  kind: RemedyKind;
  /** The words of the actionable the rule matched. */
  evidence: string;
}

/**
 * Actionables that look into something rather than change it (measure, monitor, investigate,
 * document, discuss) model no fix, whatever remedy words they carry.
 */
const INVESTIGATIVE = /^\s*(?:measure|watch|keep watching|investigate|look into|understand|figure out|think about|(?:add|setup|set up|create|improve|enable) (?:\S+ ){0,3}?(?:metrics?|logs?|logging|dashboards?|documentation)\b|log|document|write|discuss|hold|review|audit|consider|evaluate|analy[sz]e|communicate|post|publish|update (?:the )?(?:docs|documentation|status)|teach|train|describe|articulate|entertain)\b/;

/**
 * Actionables about noticing sooner (alerts, monitoring, paging, detection) model only that:
 * the time to detect. Their other words ("alarms for memory") do not make them another remedy.
 */
const DETECTION_FIRST = /^\s*(?:(?:we )?(?:should |need to |will |must )?(?:have |add(?:ed|ing)? |set ?up |create |improve |enable |implement |better |automat\w* )?(?:\w+ ){0,3}?)?(?:alert(?:s|ing)?|alarms?|monitor(?:ing|s)?|paging|detection)\b/;

/** The remedy kinds an actionable describes, the earliest named first. */
export function classifyRemedies(text: string): RemedyMatch[] {
  // Leading reference numbers and list labels ("#2227:", "(Process)") are not words of the remedy.
  const t = fold(text).replace(/^\s*(?:#?\d+[:.)]\s*|\([^)]{0,40}\)\s*)+/, '');
  if (DETECTION_FIRST.test(t)) {
    const m = RULES['detect-earlier'][0]!.exec(t);
    return m ? [{ kind: 'detect-earlier', evidence: m[0].trim() }] : [];
  }
  if (INVESTIGATIVE.test(t)) return [];
  const found: (RemedyMatch & { at: number })[] = [];
  for (const kind of REMEDY_KINDS) {
    for (const rule of RULES[kind]) {
      const m = rule.exec(t);
      if (m) {
        found.push({ kind, evidence: m[0].trim(), at: m.index });
        break;
      }
    }
  }
  // Chinese and Japanese items are often lessons told as a story; only one that asks for
  // something (should, must, add, introduce, …) names a remedy.
  const asks = CJK_PRESCRIPTIVE.test(t);
  for (const kind of asks ? REMEDY_KINDS : []) {
    const rule = CJK_RULES[kind];
    const m = rule && !found.some((f) => f.kind === kind) ? rule.exec(t) : null;
    if (m) found.push({ kind, evidence: m[0], at: m.index });
  }
  const out: RemedyMatch[] = found.sort((a, b) => a.at - b.at).map(({ kind, evidence }) => ({ kind, evidence }));
  // "Lower a timeout" also says "timeout"; keep the more specific kind only.
  if (out.some((m) => m.kind === 'lower-timeout')) return out.filter((m) => m.kind !== 'add-timeout');
  return out;
}
