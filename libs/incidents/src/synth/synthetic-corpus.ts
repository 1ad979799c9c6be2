import { DEFAULT_SEVERITY_LEVELS, validateIncidentDocument, type IncidentDocument, type TimePrecision } from '@hindsight/domain';

/**
 * A reproducible synthetic corpus of postmortems, for measuring the app at scale. Incident `n`
 * of seed `s` is always the same document: each incident draws from its own generator seeded
 * by (s, n), so a corpus can be resumed or extended without generating what is already stored.
 *
 * Sizes follow real postmortems: 5–30 timeline events, 3–15 causal factors, 2–12 actionables
 * (0–3 references each), a narrative of a few hundred words, 1–3 patterns, 1–4 components.
 * About a fifth of the sources are not in English; their narratives carry a passage in the
 * source's language (German, French, Spanish, Portuguese, Vietnamese, Japanese, Chinese), which
 * is also their `originalText`.
 *
 * Metadata, in shares like a team's records: a severity on three in four (the less severe levels
 * more often), about one in twenty-five a near miss (no customer impact), 0–4 tags, and a
 * customer-impact duration stated on about half of the others. It is drawn after everything
 * else, so adding it left the other fields of a seed's incidents as they were.
 */

/**
 * sfc32 (Chris Doty-Humphrey's small fast counting generator): 128 bits of state, seeded with
 * the corpus seed and the incident number themselves, so no two incidents share a stream.
 * Hand-written because it is ten lines and `Math.random` cannot be seeded.
 */
export function seededRandom(seed: number, n = 0): () => number {
  let a = seed >>> 0;
  let b = n >>> 0;
  let c = 0x9e3779b9;
  let d = 1;
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next();
  return next;
}

class Draw {
  constructor(readonly next: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  some<T>(items: readonly T[], min: number, max: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    const n = Math.min(pool.length, this.int(min, max));
    for (let i = 0; i < n; i++) out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]!);
    return out;
  }
}

const ORG_HEADS = ['Northwind', 'Bluefin', 'Kestrel', 'Larchmont', 'Quillon', 'Tessaract', 'Orrin', 'Vantor', 'Halcyon', 'Meridian', 'Corvid', 'Pellucid', 'Sablewood', 'Ironbark', 'Lumen', 'Driftless', 'Ostara', 'Cobalt', 'Fernhill', 'Granite'];
const ORG_TAILS = ['Payments', 'Cloud', 'Media', 'Logistics', 'Health', 'Games', 'Maps', 'Labs', 'Commerce', 'Telecom', 'Analytics', 'Foundation', 'Travel', 'Bank', 'Networks'];

const COMPONENTS = [
  'memcached', 'Redis', 'HAProxy', 'MySQL', 'PostgreSQL', 'Kafka', 'Envoy', 'nginx', 'etcd', 'Consul',
  'Elasticsearch', 'Cassandra', 'ZooKeeper', 'RabbitMQ', 'object storage', 'DNS resolver', 'load balancer',
  'CDN edge', 'API gateway', 'service mesh', 'job scheduler', 'message queue', 'session store', 'search cluster',
  'auth service', 'billing service', 'feature flag service', 'config service', 'TLS terminator', 'Kubernetes control plane',
  'container registry', 'CI runners', 'deploy pipeline', 'metrics pipeline', 'log shipper', 'connection pooler',
  'Apache (mpm_event)', 'Varnish', 'ChangeProp', 'Parsoid', 'WebSocket gateway', 'read replicas', 'primary database',
  'payment processor client', 'image resizer', 'rate limiter', 'circuit breaker', 'thread pool', 'JVM heap', 'BGP routers',
];

const SYMPTOMS = [
  'p99 latency climbed from tens of milliseconds to several seconds',
  'error rates rose to a third of all requests',
  'the connection pool stayed exhausted',
  'workers piled up waiting on a socket read',
  'the cache hit rate fell below half',
  'queue depth grew without bound',
  'replication lag reached minutes',
  'health checks flapped across the fleet',
  'CPU saturated on every node of the tier',
  'memory pressure triggered repeated garbage collection pauses',
  'retries multiplied the request volume several times over',
  'clients reconnected in a synchronized wave',
  'disk latency spiked during compaction',
  'the leader election never settled',
  'file descriptors ran out on the proxies',
];

const TRIGGERS = [
  'a configuration push changed a timeout from seconds to minutes',
  'a deploy restarted every cache node within the same minute',
  'a burst of traffic followed a marketing email',
  'a dependency started answering slowly instead of failing',
  'a schema migration took a lock on a hot table',
  'a certificate expired on an internal endpoint',
  'a batch job began rewriting millions of keys',
  'an upstream provider lost a region',
  'a new client release polled far more often than planned',
  'a network partition isolated one availability zone',
  'a cron job ran on every host at midnight',
  'a feature flag was enabled for all users at once',
];

const MITIGATIONS = [
  'operators shed load at the edge and let it back in gradually',
  'the team rolled the deploy back',
  'engineers raised the pool limit and restarted the workers',
  'traffic was drained to the healthy region',
  'the batch job was paused',
  'the retry budget was lowered to one attempt',
  'the offending feature flag was switched off',
  'caches were warmed from a snapshot before traffic returned',
  'the slow dependency was put behind a circuit breaker',
  'the lock was released by cancelling the migration',
];

const LESSONS = [
  'every outbound call needs a deadline',
  'retries must be bounded per request and per client',
  'a cache that the backend cannot live without is part of capacity planning',
  'alerts should page on symptoms users feel, not on every cause',
  'rollouts should be staged by region and by percentage',
  'load tests need to include cold caches',
  'runbooks must say how to shed load safely',
  'dashboards should show queue depth next to latency',
  'ownership of shared infrastructure must be written down',
  'a kill switch is only useful when it has been exercised',
];

const OWNERS = ['alice', 'Bob', 'carol.ng', 'dmitri', 'Esther', 'farid', 'grace.h', 'hiro', 'Ines', 'jonas', 'kemi', 'lars', 'Mei', 'nadia', 'oscar', 'priya', 'quentin', 'rosa', 'sven', 'Tomas', 'SRE', 'platform-team', 'db-oncall', 'netops'];

const ACTION_VERBS = ['Add', 'Enforce', 'Document', 'Alert on', 'Load-test', 'Cap', 'Shard', 'Automate', 'Review', 'Remove'];
const ACTION_OBJECTS = [
  'a connect timeout for outbound calls', 'the retry budget per client', 'cache warm-up before failover', 'queue depth per consumer',
  'the session limit on the proxies', 'staged rollout of configuration', 'the runbook for shedding load', 'a circuit breaker around the slow dependency',
  'pool occupancy by endpoint', 'jitter in client reconnects', 'the single point of failure in DNS', 'lock timeouts for migrations',
];

const TIMELINE_TEXT: Record<string, readonly string[]> = {
  trigger: TRIGGERS,
  detection: ['An alert fired on elevated error rates.', 'A customer report reached the support queue.', 'Synthetic checks failed from three regions.', 'On-call noticed the latency graph climbing.'],
  escalation: ['The incident commander paged the database team.', 'A status page entry was published.', 'The incident was raised to the highest severity.', 'More engineers joined the bridge call.'],
  mitigation: MITIGATIONS,
  recovery: ['Error rates returned to their normal level.', 'Latency fell back under the objective.', 'The backlog drained completely.', 'All regions reported healthy again.'],
  observation: SYMPTOMS,
};

/** A passage in the source's own language, written for this corpus. */
const FOREIGN: Record<string, { title: string; lines: readonly string[] }> = {
  de: { title: 'Nachbetrachtung', lines: ['Der Cache fiel aus und die Datenbank wurde überlastet.', 'Wiederholte Anfragen verstärkten die Last erheblich.', 'Die Verbindungen blieben ohne Zeitlimit hängen.'] },
  fr: { title: 'Retour d’expérience', lines: ['Le cache a été vidé et la base de données a saturé.', 'Les nouvelles tentatives ont multiplié la charge.', 'Les connexions sont restées bloquées sans délai d’expiration.'] },
  es: { title: 'Análisis posterior', lines: ['La caché se vació y la base de datos quedó saturada.', 'Los reintentos multiplicaron la carga del servicio.', 'Las conexiones quedaron colgadas sin límite de tiempo.'] },
  pt: { title: 'Análise do incidente', lines: ['O cache foi esvaziado e o banco de dados ficou sobrecarregado.', 'As novas tentativas multiplicaram a carga.', 'As conexões ficaram presas sem tempo limite.'] },
  vi: { title: 'Báo cáo sự cố', lines: ['Bộ nhớ đệm bị xoá và cơ sở dữ liệu bị quá tải.', 'Các lần thử lại làm tải tăng gấp nhiều lần.', 'Kết nối bị treo vì không có thời gian chờ.'] },
  ja: { title: '障害報告', lines: ['キャッシュが消えてデータベースが過負荷になった。', '再試行によって負荷が何倍にも増えた。', 'タイムアウトがないため接続が止まったままだった。'] },
  zh: { title: '故障复盘', lines: ['缓存被清空后数据库过载。', '重试使负载成倍增加。', '连接因为没有超时而一直挂起。'] },
};
const LANGUAGES = ['en', 'en', 'en', 'en', 'en', 'en', 'en', 'en', 'de', 'fr', 'es', 'pt', 'vi', 'ja', 'zh'] as const;

const PRECISIONS: TimePrecision[] = ['second', 'minute', 'minute', 'minute', 'ten_minutes', 'hour', 'approximate'];

const TAGS = ['customer-facing', 'internal', 'data-loss-risk', 'config-change', 'deploy', 'capacity', 'third-party', 'security', 'database', 'networking', 'cache', 'retries', 'on-call', 'regional', 'global'];
const IMPACT_PRECISIONS: TimePrecision[] = ['minute', 'minute', 'ten_minutes', 'hour', 'approximate'];

/** Shares of a stated severity: the k-th most severe of n levels weighs k (SEV1…SEV4: 10%, 20%, 30%, 40%). */
function severityOf(d: Draw, levels: readonly string[]): string {
  const total = (levels.length * (levels.length + 1)) / 2;
  let r = d.next() * total;
  for (let k = 0; k < levels.length; k++) {
    r -= k + 1;
    if (r < 0) return levels[k]!;
  }
  return levels[levels.length - 1]!;
}

const sentenceCase = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const pad = (n: number) => String(n).padStart(2, '0');

export interface SyntheticIncident {
  doc: IncidentDocument;
}

export function syntheticSlug(seed: number, n: number): string {
  return `synth-s${seed}-${n}`;
}

export interface SyntheticOptions {
  /** The installation's severity scale, most severe first (`INCIDENT_SEVERITY_LEVELS`); SEV1–SEV4 by default. */
  severityLevels?: readonly string[];
}

/** Incident number `n` of the corpus with seed `seed`, validated like any imported document. */
export function syntheticIncident(seed: number, n: number, patternKeys: readonly string[], options: SyntheticOptions = {}): SyntheticIncident {
  const d = new Draw(seededRandom(seed, n));
  const lang = d.pick(LANGUAGES);
  const organization = `${d.pick(ORG_HEADS)} ${d.pick(ORG_TAILS)}`;
  const components = d.some(COMPONENTS, 1, 4);
  const patterns = d.some(patternKeys, 1, 3);
  const trigger = d.pick(TRIGGERS);
  const symptom = d.pick(SYMPTOMS);
  const mitigation = d.pick(MITIGATIONS);
  const main = components[0]!;

  // Started between 2008 and 2026; detected, mitigated and resolved follow in that order.
  const started = Date.UTC(2008, 0, 1) + Math.floor(d.next() * 18.5 * 365 * 86_400_000);
  const startedMs = Math.floor(started / 1000) * 1000;
  const detectedMs = startedMs + d.int(1, 45) * 60_000;
  const mitigatedMs = detectedMs + d.int(5, 240) * 60_000;
  const resolvedMs = mitigatedMs + d.int(5, 600) * 60_000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const keyTime = (ms: number) => (d.chance(0.9) ? { at: iso(ms), precision: d.pick(PRECISIONS) } : null);

  const timelineCount = d.int(5, 30);
  const kinds = ['trigger', 'detection', 'escalation'] as const;
  const step = Math.max(1, Math.floor((resolvedMs - startedMs) / timelineCount));
  const timeline = Array.from({ length: timelineCount }, (_, i) => {
    const kind =
      i < kinds.length ? kinds[i]! : i === timelineCount - 1 ? 'recovery' : i === timelineCount - 2 ? 'mitigation' : d.pick(['observation', 'escalation', 'mitigation', 'observation'] as const);
    const timed = d.chance(0.92);
    const at = startedMs + i * step;
    const date = new Date(at);
    const text = sentenceCase(`${d.pick(TIMELINE_TEXT[kind]!)}`.replace(/\.$/, '')) + ` (${d.pick(components)}).`;
    return {
      key: `t${pad(i + 1)}`,
      asWritten: timed ? `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}` : null,
      at: timed ? iso(at) : null,
      precision: timed ? d.pick(['second', 'minute', 'minute', 'ten_minutes', 'approximate'] as const) : ('none' as const),
      kind,
      text,
    };
  });

  const factorCount = d.int(3, 15);
  const roles = ['trigger', 'condition', 'amplifier', 'latent', 'mitigating'] as const;
  const causalFactors = Array.from({ length: factorCount }, (_, i) => {
    const role = i === 0 ? 'trigger' : d.pick(roles);
    const component = d.chance(0.7) ? d.pick(components) : d.pick(COMPONENTS);
    const text =
      role === 'trigger'
        ? sentenceCase(`${d.pick(TRIGGERS)}.`)
        : role === 'mitigating'
          ? sentenceCase(`${d.pick(MITIGATIONS)}, which limited the damage.`)
          : sentenceCase(`${component} was a ${role}: ${d.pick(SYMPTOMS)}.`);
    return { key: `f${pad(i + 1)}`, role, component, text };
  });

  const linkSet = new Map<string, { from: string; to: string; kind: 'causes' | 'amplifies' | 'enables' }>();
  for (let i = 1; i < factorCount; i++) {
    const from = causalFactors[d.int(0, i - 1)]!.key;
    const kind = d.pick(['causes', 'causes', 'amplifies', 'enables'] as const);
    linkSet.set(`${from}>${causalFactors[i]!.key}:${kind}`, { from, to: causalFactors[i]!.key, kind });
  }
  if (factorCount > 3 && d.chance(0.4)) {
    // A feedback loop: the last factor feeds back into the second.
    linkSet.set(`${causalFactors[factorCount - 1]!.key}>${causalFactors[1]!.key}:amplifies`, { from: causalFactors[factorCount - 1]!.key, to: causalFactors[1]!.key, kind: 'amplifies' });
  }
  const causalLinks = [...linkSet.values()];

  const actionableCount = d.int(2, 12);
  const statuses = ['open', 'open', 'in_progress', 'done', 'done', 'wont_do'] as const;
  const actionables = Array.from({ length: actionableCount }, (_, i) => {
    const title = `${d.pick(ACTION_VERBS)} ${d.pick(ACTION_OBJECTS)} (${d.pick(components)})`;
    const refCount = d.int(0, 3);
    type Ref = { kind: 'phabricator' | 'github_pull' | 'github_issue' | 'jira' | 'url'; ref: string; url: string | null };
    const refs = new Map<string, Ref>();
    for (let j = 0; j < refCount; j++) {
      const kind = d.pick(['phabricator', 'github_pull', 'github_issue', 'jira', 'url'] as const);
      const num = d.int(1, 400_000);
      const ref: Ref =
        kind === 'phabricator'
          ? { kind, ref: `T${num}`, url: `https://phabricator.example.org/T${num}` }
          : kind === 'github_pull'
            ? { kind, ref: `https://github.com/${organization.split(' ')[0]!.toLowerCase()}/${main.toLowerCase().replace(/[^a-z0-9]+/g, '-')}/pull/${num % 5000}`, url: null }
            : kind === 'github_issue'
              ? { kind, ref: `https://github.com/${organization.split(' ')[0]!.toLowerCase()}/infra/issues/${num % 9000}`, url: null }
              : kind === 'jira'
                ? { kind, ref: `OPS-${num % 20000}`, url: null }
                : { kind, ref: `https://status.example.com/incidents/${num}`, url: `https://status.example.com/incidents/${num}` };
      if (ref.url === null) ref.url = ref.ref.startsWith('https://') ? ref.ref : null;
      refs.set(ref.ref, ref);
    }
    const status = d.pick(statuses);
    const due = d.chance(0.6) ? new Date(resolvedMs + d.int(3, 200) * 86_400_000).toISOString().slice(0, 10) : null;
    return {
      key: `a${pad(i + 1)}`,
      title,
      description: d.chance(0.8) ? sentenceCase(`${d.pick(LESSONS)}; this work makes sure of it for ${d.pick(components)}.`) : '',
      owner: d.chance(0.8) ? d.pick(OWNERS) : null,
      status,
      dueDate: due,
      references: [...refs.values()],
      addresses: d.some(causalFactors.map((f) => f.key), 1, 3),
    };
  });

  const paragraphs: string[] = [];
  paragraphs.push(
    `On the day of the incident ${trigger}. Within minutes ${symptom}, and the ${main} tier could no longer keep up. ` +
      `Users of ${organization} saw slow pages and failed requests while the on-call engineer tried to find which change had started it.`,
  );
  const sentences = [...SYMPTOMS.map((s) => `At one point ${s}.`), ...LESSONS.map((l) => `The review concluded that ${l}.`), ...TRIGGERS.map((t) => `An earlier near miss had shown that ${t}.`)];
  const paragraphCount = d.int(3, 6);
  for (let p = 0; p < paragraphCount; p++) {
    const body = Array.from({ length: d.int(3, 6) }, () => {
      const c = d.pick(components);
      return d.pick(sentences) + ` The ${c} dashboards made this visible only in hindsight.`;
    });
    paragraphs.push(body.join(' '));
  }
  paragraphs.push(`Recovery came once ${mitigation}. The follow-up work below tracks what changes so that this does not happen again.`);
  const foreign = lang === 'en' ? null : FOREIGN[lang]!;
  const passage = foreign ? d.some(foreign.lines, 2, 3).join(' ') : null;
  if (foreign) paragraphs.push(`## ${foreign.title}\n\n${passage}`);
  const title = sentenceCase(`${main} ${d.pick(['outage', 'degradation', 'overload', 'partial outage', 'brownout'])} after ${trigger.replace(/^an? /, '')}`).slice(0, 300);
  const impact = sentenceCase(`${d.int(1, 90)}% of requests failed or timed out for ${Math.round((mitigatedMs - startedMs) / 60_000)} minutes.`);
  const sourceUrl = d.chance(0.7) ? `https://blog.example.com/${syntheticSlug(seed, n)}` : null;
  const keyTimes = { started: keyTime(startedMs), detected: keyTime(detectedMs), mitigated: keyTime(mitigatedMs), resolved: keyTime(resolvedMs) };

  // Metadata: drawn last (see the file's comment).
  const levels = options.severityLevels ?? DEFAULT_SEVERITY_LEVELS;
  const severity = d.chance(0.75) && levels.length > 0 ? severityOf(d, levels) : null;
  const nearMiss = d.chance(0.04);
  const tags = d.some(TAGS, 0, 4);
  if (d.chance(0.3)) tags.push(main);
  const impactMinutes = Math.max(1, Math.round(((mitigatedMs - startedMs) / 60_000) * (0.5 + d.next() * 0.6)));
  const impactPrecision = d.pick(IMPACT_PRECISIONS);
  const customerImpact = nearMiss ? { minutes: 0, precision: 'minute' as const } : d.chance(0.5) ? { minutes: impactMinutes, precision: impactPrecision } : null;

  const doc = validateIncidentDocument(
    {
      slug: syntheticSlug(seed, n),
      title,
      organization,
      components,
      summary: sentenceCase(`${trigger}; ${symptom} until ${mitigation}.`),
      narrative: paragraphs.join('\n\n'),
      impact,
      patterns,
      source: {
        title: foreign ? `${foreign.title}: ${organization}` : `${organization} incident review`,
        url: sourceUrl,
        language: lang,
        originalText: foreign ? `${foreign.title}: ${organization}\n\n${passage}` : null,
      },
      keyTimes,
      timeline,
      causalFactors,
      causalLinks,
      actionables,
      severity,
      nearMiss,
      tags,
      customerImpact,
    },
    `synthetic incident ${n}`,
  );
  return { doc };
}
