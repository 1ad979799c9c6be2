import path from 'node:path';
import request from 'supertest';
import { PrismaService, projectRoot } from '@hindsight/db';
import { readSeedFiles, writeIncidentDocument } from '@hindsight/incidents';
import { textOf } from './support/html-inspect';
import { testPrisma } from './support/test-db';
import { issueTokens } from './support/api-tokens';
import { startTestApp, type TestApp } from './support/test-app';

type Node = { slug: string };
type Edge = { node: Node; highlights: { field: string; excerpt: string; fragments: { text: string; matched: boolean }[] }[] };
type Found = { incidents: { totalCount: number; nodes: Node[]; edges: Edge[]; didYouMean: { text: string; totalCount: number; corrections: { word: string; replacement: string }[] } | null } };
const SEARCH = `query S($filter: IncidentFilterInput, $first: Int) {
  incidents(filter: $filter, first: $first) { totalCount nodes { slug } edges { node { slug } highlights { field excerpt fragments { text matched } } }
    didYouMean { text totalCount corrections { word replacement } } }
}`;

// A short postmortem of our own in Japanese: words run together without spaces.
const JAPANESE = `---
title: 決済キューの滞留
date: 2024-06-11
organization: Example Pay
---
# 決済キューの滞留

## 概要
設定変更の後、決済ワーカーが再試行を繰り返し、キューが滞留した。再試行の上限を設けて復旧した。

## タイムライン (UTC)
- 03:10 設定変更を反映
- 03:25 キュー滞留のアラート
- 04:02 再試行の上限を設定して復旧
`;

// A German postmortem of our own: its "erreichbar" (reachable) is found by "Erreichbarkeit"
// only through German stemming; the English stemmer keeps each word whole.
const GERMAN = `---
title: Zahlungsdienst nach Überlastungen ausgefallen
date: 2024-05-14
organization: Beispiel GmbH
---
# Zahlungsdienst ausgefallen

## Zusammenfassung
Nach einer Änderung der Konfiguration kam es zu wiederholten Überlastungen der Datenbanken. Der Zahlungsdienst war für eine Stunde nicht erreichbar, und die Verbindungen zwischen den Rechenzentren waren gestört.

## Zeitablauf (UTC)
- 10:02 Die Änderung wird ausgerollt
- 10:09 Erste Warnungen über die Datenbanken
- 11:05 Die Änderung wird zurückgenommen und der Dienst ist wieder erreichbar
`;

// And a Chinese one: no spaces between words, no kana.
const CHINESE = `---
title: 支付服务中断
date: 2024-08-02
organization: 示例科技
---
# 支付服务中断

## 概要
配置变更后，数据库连接池耗尽，支付服务中断了四十分钟。回滚配置后恢复。

## 时间线 (UTC)
- 09:10 发布配置变更
- 09:15 告警：数据库连接池耗尽
- 09:50 回滚配置，服务恢复
`;

// Four more of our own, so that at least six configurations parse every query.
const FRENCH = `---
title: Le service de paiement est tombé après une mise à jour
date: 2024-02-03
organization: Exemple SARL
---
# Panne du service de paiement

## Résumé
Une mise à jour de la configuration a saturé les connexions vers la base de données. Le service de paiement est resté indisponible pendant quarante minutes, puis la configuration précédente a été rétablie.

## Chronologie (UTC)
- 08:00 La nouvelle configuration est déployée
- 08:12 Les premières alertes arrivent
- 08:40 La configuration précédente est rétablie et le service répond de nouveau
`;

const SPANISH = `---
title: El servicio de pagos dejó de responder tras un cambio
date: 2024-03-09
organization: Ejemplo S.A.
---
# Caída del servicio de pagos

## Resumen
Un cambio en la configuración agotó las conexiones con la base de datos. El servicio de pagos no respondió durante media hora y el equipo volvió a la configuración anterior.

## Cronología (UTC)
- 14:00 Se despliega el cambio
- 14:06 Llegan las primeras alertas
- 14:31 Se restaura la configuración anterior y el servicio vuelve a responder
`;

const PORTUGUESE = `---
title: O serviço de pagamentos ficou fora do ar depois de uma mudança
date: 2024-04-11
organization: Exemplo Ltda.
---
# Queda do serviço de pagamentos

## Resumo
Uma mudança na configuração esgotou as conexões com o banco de dados. O serviço de pagamentos ficou fora do ar durante meia hora e a equipe voltou para a configuração anterior.

## Cronologia (UTC)
- 16:00 A mudança é implantada
- 16:05 Chegam os primeiros alertas
- 16:29 A configuração anterior é restaurada e o serviço volta a responder
`;

const ITALIAN = `---
title: Il servizio dei pagamenti si è fermato dopo una modifica
date: 2024-06-21
organization: Esempio S.r.l.
---
# Interruzione del servizio dei pagamenti

## Sintesi
Una modifica della configurazione ha esaurito le connessioni verso la base di dati. Il servizio dei pagamenti è rimasto fermo per mezz'ora, finché la squadra non ha ripristinato la configurazione precedente.

## Cronologia (UTC)
- 09:00 Viene distribuita la modifica
- 09:07 Arrivano i primi allarmi
- 09:33 La configurazione precedente viene ripristinata e il servizio riprende
`;

describe('search across languages, highlights, facets, corrections and related incidents', () => {
  let t: TestApp;
  let editor: Record<string, string>;
  const search = async (text: string, extra: Record<string, unknown> = {}) => {
    const res = await t.gql<Found>(SEARCH, { filter: { text, ...extra } });
    expect(res.errors).toBeUndefined();
    return res.data.incidents;
  };
  const slugs = async (text: string) => (await search(text)).nodes.map((n) => n.slug);

  beforeAll(async () => {
    t = await startTestApp();
    editor = (await issueTokens(t)).as('editor');
  });
  afterAll(async () => {
    await t.close();
  });

  it('finds the Vietnamese-sourced incident by words of its source, with or without accents', async () => {
    expect(await slugs('siêu bền')).toEqual(['slack-cache-metastability-2022']);
    expect(await slugs('"sieu ben"')).toEqual(['slack-cache-metastability-2022']);
    expect(await slugs('bộ đệm')).toEqual(['slack-cache-metastability-2022']);
    const source = await t.gql<{ incident: { source: { language: string; originalText: string } } }>(`{ incident(slug: "slack-cache-metastability-2022") { source { language originalText } } }`);
    expect(source.data.incident.source.language).toBe('vi');
    expect(source.data.incident.source.originalText).toContain('siêu bền');
    const hit = (await search('siêu bền')).edges[0]!;
    const original = hit.highlights.find((h) => h.field === 'ORIGINAL_TEXT');
    expect(original?.fragments.filter((f) => f.matched).map((f) => f.text)).toEqual(['siêu', 'bền']);
  });

  it('keeps an imported Japanese draft out of search until it is published, then finds it by a Japanese word', async () => {
    const imported = await t.gql<{ importPostmortem: { incident: { slug: string; version: number; source: { language: string; originalText: string | null } } } }>(
      `mutation I($input: ImportPostmortemInput!) { importPostmortem(input: $input) { incident { slug version source { language originalText } } } }`,
      { input: { document: JAPANESE } },
      editor,
    );
    expect(imported.errors).toBeUndefined();
    const draft = imported.data.importPostmortem.incident;
    expect(draft.source.language).toBe('ja');
    expect(draft.source.originalText).toContain('再試行');
    // Imported (same transaction) but a draft: readers' searches do not see it.
    expect(await slugs('滞留')).toEqual([]);
    const published = await t.gql(`mutation P($slug: String!, $v: Int!) { publishIncident(input: { slug: $slug, expectedVersion: $v }) { incident { slug } } }`, { slug: draft.slug, v: draft.version }, editor);
    expect(published.errors).toBeUndefined();
    expect(await slugs('滞留')).toEqual([draft.slug]);
    expect(await slugs('再試行')).toEqual([draft.slug]);
    expect(await slugs('決済キュー')).toEqual([draft.slug]);
    // Characters of the text that do not stand next to each other in it do not match as a word.
    expect(await slugs('留決')).toEqual([]);
    const title = (await search('滞留')).edges[0]!.highlights.find((h) => h.field === 'TITLE');
    expect(title?.fragments.filter((f) => f.matched).map((f) => f.text)).toEqual(['滞留']);
  });

  const importAndPublish = async (document: string) => {
    type I = { importPostmortem: { incident: { slug: string; version: number; source: { language: string } } } };
    const imported = await t.gql<I>(`mutation I($input: ImportPostmortemInput!) { importPostmortem(input: $input) { incident { slug version source { language } } } }`, { input: { document } }, editor);
    expect(imported.errors).toBeUndefined();
    const draft = imported.data.importPostmortem.incident;
    const published = await t.gql(`mutation P($slug: String!, $v: Int!) { publishIncident(input: { slug: $slug, expectedVersion: $v }) { incident { slug } } }`, { slug: draft.slug, v: draft.version }, editor);
    expect(published.errors).toBeUndefined();
    return draft;
  };

  it('stems a query in the languages incidents come from: a German inflection not in the text finds it', async () => {
    // Before any German incident is stored, the query is not parsed as German.
    expect(await slugs('Erreichbarkeit')).toEqual([]);
    const draft = await importAndPublish(GERMAN);
    expect(draft.source.language).toBe('de');
    // "Erreichbarkeit" (availability) is nowhere in the text, and too far from "erreichbar" for
    // typo widening; German stemming makes both "erreichbar".
    expect(await slugs('Erreichbarkeit')).toEqual([draft.slug]);
    expect(await slugs('verbindend Datenbank')).toEqual([draft.slug]);
    const original = (await search('Erreichbarkeit')).edges[0]!.highlights.find((h) => h.field === 'ORIGINAL_TEXT');
    expect(original?.fragments.filter((f) => f.matched).map((f) => f.text)).toEqual(['erreichbar']);
    // The source's words as written still match.
    expect(await slugs('Überlastungen')).toEqual([draft.slug]);
    // "war" is a German stopword, not an English one: the German reading of an English query must
    // not drop it, or "war haproxy" would find every incident holding "haproxy" (and a German
    // reading of "-war" would lose the exclusion).
    expect(await slugs('haproxy')).toContain('stackegg-haproxy-session-cap-2015');
    expect(await slugs('war haproxy')).toEqual([]);
    expect(await slugs('war Zahlungsdienst')).toEqual([draft.slug]);
    expect(await slugs('-war Zahlungsdienst')).toEqual([]);
    expect(await slugs('Zahlungsdienst (-war')).toEqual([]);
    expect(await slugs('memcached or war')).toContain('slack-cache-metastability-2022');
    // A German query with a German stopword is still stemmed in German, the stopword kept as written.
    expect(await slugs('die Erreichbarkeit')).toEqual([draft.slug]);
    expect(await slugs('Erreichbarkeit -die')).toEqual([]);
    expect(await slugs('war Erreichbarkeit')).toEqual([draft.slug]);
    // Typo widening keeps working beside the extra configuration.
    expect(await slugs('Zahlungsdeinst')).toEqual([draft.slug]);
    expect(await slugs('memcahced')).toEqual(['slack-cache-metastability-2022']);
  });

  it('widens typos under every configuration the query is parsed in, however many languages are stored', async () => {
    const stored: string[] = [];
    for (const [document, language] of [[FRENCH, 'fr'], [SPANISH, 'es'], [PORTUGUESE, 'pt'], [ITALIAN, 'it']] as const) {
      const draft = await importAndPublish(document);
      expect(draft.source.language).toBe(language);
      stored.push(draft.slug);
    }
    // english, simple, french, spanish, portuguese, italian (and german when the test above ran): each
    // misspelt word is rewritten under all of them, and two in one query must not multiply each
    // other's substitutes.
    expect(await slugs('memcahced')).toEqual(['slack-cache-metastability-2022']);
    expect(await slugs('indisponilbe')).toEqual([stored[0]]);
    expect((await slugs('memcahced or indisponilbe')).sort()).toEqual(['slack-cache-metastability-2022', stored[0]].sort());
    expect(await slugs('memcahced indisponilbe')).toEqual([]);
  });

  it('finds a Chinese incident by a Chinese word, and not by characters that are not adjacent', async () => {
    const draft = await importAndPublish(CHINESE);
    expect(draft.source.language).toBe('zh');
    expect(await slugs('连接池')).toEqual([draft.slug]);
    expect(await slugs('数据库')).toEqual([draft.slug]);
    expect(await slugs('支付服务')).toEqual([draft.slug]);
    expect(await slugs('池数')).toEqual([]);
    const title = (await search('支付')).edges[0]!.highlights.find((h) => h.field === 'TITLE');
    expect(title?.fragments.filter((f) => f.matched).map((f) => f.text)).toEqual(['支付']);
  });

  it("never widens a typo to a word only a draft holds, nor suggests it", async () => {
    const draft = `---\ntitle: Quixotrelic cascade in the billing queue\ndate: 2024-02-03\norganization: Example Corp\n---\n# Quixotrelic cascade\n\n## Summary\nThe quixotrelic worker looped on one message.\n`;
    const imported = await t.gql(`mutation I($input: ImportPostmortemInput!) { importPostmortem(input: $input) { incident { slug } } }`, { input: { document: draft } }, editor);
    expect(imported.errors).toBeUndefined();
    type W = { incidents: { totalCount: number; searchWidened: { word: string }[]; didYouMean: { text: string } | null } };
    const typo = await t.gql<W>(`{ incidents(filter: { text: "quixotrelc" }) { totalCount searchWidened { word } didYouMean { text } } }`);
    expect(typo.data.incidents).toEqual({ totalCount: 0, searchWidened: [], didYouMean: null });
  });

  it('marks where each result matched, stems included, with the field named', async () => {
    const res = await search('retries or haproxy');
    const stackegg = res.edges.find((e) => e.node.slug === 'stackegg-haproxy-session-cap-2015')!;
    expect(stackegg.highlights.length).toBeGreaterThan(0);
    expect(stackegg.highlights[0]!.field).toBe('TITLE');
    const marked = stackegg.highlights.flatMap((h) => h.fragments.filter((f) => f.matched).map((f) => f.text.toLowerCase()));
    expect(marked).toContain('haproxy');
    for (const h of stackegg.highlights) expect(h.fragments.map((f) => f.text).join('')).toBe(h.excerpt);
    // A reference is highlighted where it matched.
    const ref = (await search('pull/604')).edges[0]!.highlights.find((h) => h.field === 'REFERENCES');
    expect(ref?.fragments.filter((f) => f.matched).map((f) => f.text)).toEqual(expect.arrayContaining(['pull', '604']));
    // Without a text search there is nothing to highlight.
    const plain = await t.gql<Found>(SEARCH, { filter: {} });
    expect(plain.data.incidents.edges.every((e) => e.highlights.length === 0)).toBe(true);
  });

  it('counts the whole result set by facet', async () => {
    type Facets = { incidents: { totalCount: number; facets: { kind: string; distinctValues: number; values: { value: string; count: number }[] }[] } };
    const res = await t.gql<Facets>(`{ incidents(filter: { text: "retry" }, first: 1) { totalCount facets(first: 50) { kind distinctValues values { value count } } } }`);
    expect(res.errors).toBeUndefined();
    const { totalCount, facets } = res.data.incidents;
    const facet = (kind: string) => facets.find((f) => f.kind === kind)!;
    expect(facets.map((f) => f.kind)).toEqual(['PATTERN', 'ORGANIZATION', 'COMPONENT', 'YEAR', 'ACTIONABLE_STATUS', 'SEVERITY', 'NEAR_MISS', 'TAG']);
    // Each incident has one organization and one year: those facets add up to the total, across pages.
    expect(facet('ORGANIZATION').values.reduce((n, v) => n + v.count, 0)).toBe(totalCount);
    expect(facet('YEAR').values.reduce((n, v) => n + v.count, 0)).toBe(totalCount);
    const retryPattern = facet('PATTERN').values.find((v) => v.value === 'retry-amplification');
    const withPattern = await t.gql<{ incidents: { totalCount: number } }>(`{ incidents(filter: { text: "retry", patterns: ["retry-amplification"] }) { totalCount } }`);
    expect(retryPattern?.count).toBe(withPattern.data.incidents.totalCount);
    const statuses = facet('ACTIONABLE_STATUS').values;
    expect(statuses.every((s) => ['open', 'in_progress', 'done', 'wont_do'].includes(s.value))).toBe(true);
    const bad = await t.gql(`{ incidents { facets(first: 500) { kind } } }`);
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('counts facets over at most countUpTo matches, and says when that was not all of them', async () => {
    type Counted = { incidents: { totalCount: number; facets: { kind: string; counted: number; complete: boolean; values: { count: number }[] }[] } };
    const FACETS = `query($f: IncidentFilterInput, $n: Int) { incidents(filter: $f, first: 1) { totalCount facets(first: 50, countUpTo: $n) { kind counted complete values { count } } } }`;
    const organizationSum = (r: Counted) => r.incidents.facets.find((f) => f.kind === 'ORGANIZATION')!.values.reduce((n, v) => n + v.count, 0);
    const all = (await t.gql<Counted>(FACETS, { f: { text: 'retry' } })).data;
    expect(all.incidents.totalCount).toBeGreaterThanOrEqual(2);
    // Under the default bound (the list count limit) a small result set is counted whole.
    expect(all.incidents.facets.every((f) => f.complete && f.counted === all.incidents.totalCount)).toBe(true);
    const part = (await t.gql<Counted>(FACETS, { f: { text: 'retry' }, n: 1 })).data;
    expect(part.incidents.facets.every((f) => !f.complete && f.counted === 1)).toBe(true);
    expect(organizationSum(part)).toBe(1);
    // Exactly as many matches as the bound: whole.
    const exact = (await t.gql<Counted>(FACETS, { f: { text: 'retry' }, n: all.incidents.totalCount })).data;
    expect(exact.incidents.facets.every((f) => f.complete && f.counted === all.incidents.totalCount)).toBe(true);
    expect(organizationSum(exact)).toBe(all.incidents.totalCount);
    // The unfiltered list is always counted whole, whatever the bound (its background-recounted
    // facets, which may lag the list by up to a minute, so they are compared with themselves).
    const unfiltered = (await t.gql<Counted>(FACETS, { n: 1 })).data;
    const whole = unfiltered.incidents.facets[0]!.counted;
    expect(whole).toBeGreaterThan(1);
    expect(unfiltered.incidents.facets.every((f) => f.complete && f.counted === whole)).toBe(true);
    expect(organizationSum(unfiltered)).toBe(whole);
    for (const n of [0, 100_001]) {
      const refused = await t.gql(FACETS, { f: { text: 'retry' }, n });
      expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(refused.errors?.[0]?.message).toContain('countUpTo');
    }
  });

  it('offers a corrected query when a search finds nothing, and none when it finds something', async () => {
    // Words under five letters are not widened by similarity (too noisy), so these find nothing.
    const res = await search('slak mcrb');
    expect(res.totalCount).toBe(0);
    expect(res.didYouMean?.text).toBe('slack mcrib');
    expect(res.didYouMean?.corrections).toEqual(expect.arrayContaining([{ word: 'mcrb', replacement: 'mcrib' }]));
    const corrected = await search(res.didYouMean!.text);
    expect(res.didYouMean?.totalCount).toBe(corrected.totalCount);
    expect(corrected.nodes.map((n) => n.slug)).toContain('slack-cache-metastability-2022');
    expect((await search('haproxy')).didYouMean).toBeNull();
    expect((await search('qqqqzzzz')).didYouMean).toBeNull();
    // Two neighbouring letters swapped count as one edit, so a short word gets its correction.
    const swapped = await search('slak laod');
    expect(swapped.totalCount).toBe(0);
    expect(swapped.didYouMean?.corrections).toEqual(expect.arrayContaining([{ word: 'laod', replacement: 'load' }]));
  });

  it('suggests organization, component and owner values from a case-insensitive part', async () => {
    type S = { filterSuggestions: { value: string; count: number }[] };
    const org = await t.gql<S>(`{ filterSuggestions(field: ORGANIZATION, text: "wiki") { value count } }`);
    expect(org.data.filterSuggestions[0]).toEqual({ value: expect.stringMatching(/^Wikimedia/), count: 1 });
    const comp = await t.gql<S>(`{ filterSuggestions(field: COMPONENT, text: "apache") { value } }`);
    expect(comp.data.filterSuggestions.map((s) => s.value)).toEqual(expect.arrayContaining(['Apache (mpm_prefork)']));
    const none = await t.gql<S>(`{ filterSuggestions(field: ORGANIZATION, text: "%") { value } }`);
    expect(none.data.filterSuggestions).toEqual([]);
    const owners = await t.gql<{ actionables: { nodes: { owner: string | null }[] } }>(`{ actionables(first: 100) { nodes { owner } } }`);
    const owner = owners.data.actionables.nodes.map((n) => n.owner).find((o): o is string => !!o && o.length >= 4)!;
    const part = owner.slice(1, 4).toUpperCase();
    const byOwner = await t.gql<S>(`query O($t: String!) { filterSuggestions(field: OWNER, text: $t) { value } }`, { t: part });
    expect(byOwner.data.filterSuggestions.map((s) => s.value)).toContain(owner);
    const filtered = await t.gql<{ actionables: { nodes: { owner: string | null }[] } }>(`query A($o: String) { actionables(filter: { owner: $o }, first: 100) { nodes { owner } } }`, { o: part.toLowerCase() });
    expect(filtered.data.actionables.nodes.length).toBeGreaterThan(0);
    for (const n of filtered.data.actionables.nodes) expect(n.owner!.toLowerCase()).toContain(part.toLowerCase());
  });

  it('ranks related incidents with their reasons', async () => {
    type R = { incident: { related: { score: number; incident: { slug: string }; reasons: { kind: string; detail: string; weight: number }[] }[] } };
    const res = await t.gql<R>(`{ incident(slug: "slack-cache-metastability-2022") { related(first: 3) { score incident { slug } reasons { kind detail weight } } } }`);
    expect(res.errors).toBeUndefined();
    const related = res.data.incident.related;
    expect(related.length).toBeGreaterThan(0);
    expect(related.map((r) => r.incident.slug)).not.toContain('slack-cache-metastability-2022');
    const scores = related.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const changeprop = related.find((r) => r.incident.slug === 'changeprop-feedback-loop-2016')!;
    expect(changeprop.reasons).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'SHARED_PATTERN', detail: expect.stringMatching(/retry amplification/i) })]));
    for (const r of related) expect(r.score).toBeCloseTo(r.reasons.reduce((s, x) => s + x.weight, 0), 2);
    const bad = await t.gql(`{ incident(slug: "slack-cache-metastability-2022") { related(first: 0) { score } } }`);
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('relates incidents that share only a causal structure, or only wording, and says so', async () => {
    type R = { incident: { related: { incident: { slug: string }; reasons: { kind: string; detail: string; weight: number }[] }[] } };
    const incident = (slug: string, title: string, component: string, summary: string, factors: { key: string; text: string }[]) => ({
      slug, title, organization: `${title} Org`, components: [component], summary, narrative: '', patterns: [], status: 'PUBLISHED',
      source: { title: 'Own notes', url: null, language: 'en' },
      causalFactors: factors.map((f) => ({ ...f, role: 'CONDITION', component })),
      // A two-factor cycle: each makes the other worse.
      causalLinks: factors.length === 2 ? [{ from: factors[0]!.key, to: factors[1]!.key, kind: 'CAUSES' }, { from: factors[1]!.key, to: factors[0]!.key, kind: 'CAUSES' }] : [],
    });
    const create = async (input: Record<string, unknown>) => {
      const res = await t.gql(`mutation($i: CreateIncidentInput!) { createIncident(input: $i) { incident { slug } } }`, { i: input }, editor);
      expect(res.errors).toBeUndefined();
    };
    // No pattern, component or title word in common: only a retry-driven feedback loop.
    await create(incident('kestrel-ingest-storm', 'Kestrel ingest storm', 'kestrel', 'Writers hammered the ingest tier.', [
      { key: 'clients-resend', text: 'Ingest clients retry every failed write at once.' },
      { key: 'tier-slows', text: 'The ingest tier slows under the extra writes.' },
    ]));
    await create(incident('osprey-billing-meltdown', 'Osprey billing meltdown', 'osprey', 'Invoices piled up overnight.', [
      { key: 'jobs-rerun', text: 'Billing jobs retried each failure without backoff.' },
      { key: 'ledger-slows', text: 'The ledger slowed under the added load.' },
    ]));
    // No factors at all: only a word of one's title in the other's record.
    await create(incident('heron-dispatch-brownout', 'Heron dispatch brownout', 'heron-dispatch', 'Dispatch answered slowly for an hour.', []));
    await create(incident('sparrow-printer-jam', 'Sparrow printer jam', 'sparrow', 'The printers stopped after a heron nested on the roof.', []));

    const related = async (slug: string) => {
      const res = await t.gql<R>(`{ incident(slug: "${slug}") { related(first: 20) { incident { slug } reasons { kind detail weight } } } }`);
      expect(res.errors).toBeUndefined();
      return res.data.incident.related;
    };
    const osprey = (await related('kestrel-ingest-storm')).find((r) => r.incident.slug === 'osprey-billing-meltdown');
    expect(osprey?.reasons.map((r) => r.kind)).toEqual(['CAUSAL_STRUCTURE', 'CAUSAL_STRUCTURE']);
    expect(osprey?.reasons.map((r) => r.detail)).toEqual(expect.arrayContaining([expect.stringMatching(/retry-driven feedback loop/), expect.stringMatching(/feedback loop/)]));

    const sparrow = (await related('heron-dispatch-brownout')).find((r) => r.incident.slug === 'sparrow-printer-jam');
    expect(sparrow?.reasons).toEqual([{ kind: 'SIMILAR_TEXT', detail: expect.stringMatching(/words of the title/), weight: expect.any(Number) }]);
    expect(sparrow!.reasons[0]!.weight).toBeGreaterThan(0);
    // The heron incident has no loop, so the loop incidents are not related to it by structure.
    for (const r of await related('heron-dispatch-brownout')) expect(r.reasons.map((x) => x.kind)).not.toContain('CAUSAL_STRUCTURE');

    // "time-out" spelt with a hyphen is the same shape as "timeout", and is found by it.
    await create(incident('wren-vendor-hang', 'Wren vendor hang', 'wren', 'Checkout hung on a vendor.', [
      { key: 'no-limit', text: 'Calls to the vendor had no time-out at all.' },
    ]));
    await create(incident('finch-proxy-stall', 'Finch proxy stall', 'finch', 'Uploads stalled behind the proxy.', [
      { key: 'proxy-wait', text: "The proxy's time-outs were longer than the clients' own." },
    ]));
    const finch = (await related('wren-vendor-hang')).find((r) => r.incident.slug === 'finch-proxy-stall');
    expect(finch?.reasons).toEqual([{ kind: 'CAUSAL_STRUCTURE', detail: 'both involve missing or wrong timeouts', weight: expect.any(Number) }]);

    // More incidents share the shape than the shape's candidates (20): the most recent are taken,
    // whatever order the rows were written in (here oldest first, so disk order would pick the oldest).
    const names = ['alder', 'birch', 'cedar', 'dogwood', 'elm', 'fir', 'ginkgo', 'hazel', 'ironwood', 'juniper', 'larch', 'maple',
      'nutmeg', 'oak', 'pine', 'quince', 'rowan', 'spruce', 'tamarack', 'umbrella', 'viburnum', 'willow', 'yew', 'zelkova'];
    for (const [k, name] of names.entries()) {
      await create({
        ...incident(`${name}-outage`, `${name} outage`, name, `The ${name} tier stopped.`, [{ key: 'wait', text: `The ${name} client had no time-out.` }]),
        // All after the shipped incidents (which have timeouts too), one a year.
        keyTimes: { started: { at: new Date(Date.UTC(2030 + k, 0, 1)).toISOString(), precision: 'DAY' } },
      });
    }
    const byShape = (await related('wren-vendor-hang')).filter((r) => r.reasons.some((x) => x.kind === 'CAUSAL_STRUCTURE')).map((r) => r.incident.slug);
    // The newest twenty with the shape's words: the four oldest trees, finch (no start) and the shipped incidents are left out.
    expect([...byShape].sort()).toEqual(names.slice(4).map((n) => `${n}-outage`));
  });

  it('reads related incidents for a whole page of incidents in the same statements as for one', async () => {
    const statements = async (first: number) => {
      const prisma = t.app.get(PrismaService);
      const before = prisma.statementCount;
      const res = await t.gql<{ incidents: { nodes: { related: unknown[] }[] } }>(
        `query($first: Int) { incidents(first: $first) { nodes { slug related(first: 3) { score reasons { kind } incident { slug title } } } } }`,
        { first },
      );
      expect(res.errors).toBeUndefined();
      expect(res.data.incidents.nodes).toHaveLength(first);
      return prisma.statementCount - before;
    };
    expect(await statements(4)).toBe(await statements(1));
  });

  it('shows matches, corrections, facets, suggestions and related incidents on the pages', async () => {
    const get = (path: string) => request(t.app.getHttpServer()).get(path).expect(200);
    const list = (await get('/incidents?q=memcached')).text;
    expect(list).toMatch(/<mark>[Mm]emcached<\/mark>/);
    expect(list).toContain('class="facets"');
    // Suggestions as one types, without script: the browser filters a datalist.
    expect(list).toMatch(/<input[^>]+name="organization"[^>]+list="field-organization-suggestions"/);
    expect(list).toMatch(/<datalist id="field-component-suggestions">[^]*<option value="Apache \(mpm_prefork\)">/);
    const typo = (await get('/incidents?q=slak+mcrb')).text;
    expect(typo).toMatch(/Did you mean <a href="\/incidents\?q=slack\+mcrib">slack mcrib<\/a>/);
    const byComponent = (await get('/incidents?component=apache')).text;
    expect(byComponent).toContain('/incidents/apache-outbound-calls-without-timeouts-2011');
    expect(byComponent).not.toContain('/incidents/slack-cache-metastability-2022"');
    const page = (await get('/incidents/slack-cache-metastability-2022')).text;
    expect(page).toContain('id="related-heading"');
    expect(page).toMatch(/<a href="\/incidents\/changeprop-feedback-loop-2016">[^<]+<\/a>[^]*Same pattern/);
  });
});

describe('durations derived from key times, checked, and their distributions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('derives durations with the coarser precision and flags a "resolved" that is a later follow-up', async () => {
    type D = { minutes: number; precision: string; approximate: boolean } | null;
    type R = { incident: { durations: { toDetect: D; toMitigate: D; toResolve: D; checks: { code: string; message: string }[] } } };
    const q = (slug: string) => t.gql<R>(`query Q($s: String!) { incident(slug: $s) { durations { toDetect { minutes precision approximate } toMitigate { minutes precision approximate } toResolve { minutes precision approximate } checks { code message } } } }`, { s: slug });
    const stackegg = (await q('stackegg-haproxy-session-cap-2015')).data.incident.durations;
    expect(stackegg.toMitigate).toEqual({ minutes: 203, precision: 'SECOND', approximate: false });
    expect(stackegg.toResolve!.minutes).toBeGreaterThan(24 * 60);
    expect(stackegg.checks).toEqual([expect.objectContaining({ code: 'RESOLVED_LONG_AFTER_MITIGATION' })]);
    // ChangeProp: started to ten minutes, mitigated approximately: approximate in, approximate out.
    const changeprop = (await q('changeprop-feedback-loop-2016')).data.incident.durations;
    expect(changeprop.toDetect).toEqual({ minutes: 8.2, precision: 'TEN_MINUTES', approximate: true });
    expect(changeprop.toMitigate).toEqual({ minutes: 50, precision: 'APPROXIMATE', approximate: true });
    expect(changeprop.checks).toEqual([]);
    // Apache gives no times: nothing is made up.
    const apache = (await q('apache-outbound-calls-without-timeouts-2011')).data.incident.durations;
    expect(apache).toEqual({ toDetect: null, toMitigate: null, toResolve: null, checks: [] });
  });

  it('shows distributions across incidents, overall and per group', async () => {
    type S = { incidentDurationStats: { group: string; count: number; approximateCount: number; p50: number; p90: number; max: number; histogram: number[] }[] };
    const all = await t.gql<S>(`{ incidentDurationStats(metric: TIME_TO_MITIGATE) { group count approximateCount p50 p90 max histogram } }`);
    expect(all.errors).toBeUndefined();
    const [overall] = all.data.incidentDurationStats;
    // ChangeProp (50 min, approximate) and StackEgg (203 min): Slack gives only a day, Apache nothing.
    expect(overall).toEqual({ group: 'all', count: 2, approximateCount: 1, p50: 126.5, p90: 187.7, max: 203, histogram: [0, 0, 1, 1, 0, 0] });
    const byYear = await t.gql<S>(`{ incidentDurationStats(metric: TIME_TO_MITIGATE, groupBy: YEAR) { group count } }`);
    expect(byYear.data.incidentDurationStats).toEqual(expect.arrayContaining([{ group: '2015', count: 1 }, { group: '2016', count: 1 }]));
    const byPattern = await t.gql<S>(`{ incidentDurationStats(metric: TIME_TO_DETECT, groupBy: PATTERN) { group count } }`);
    expect(byPattern.data.incidentDurationStats.length).toBeGreaterThan(0);
    const bad = await t.gql(`{ incidentDurationStats(metric: TIME_TO_DETECT, first: 0) { group } }`);
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('leaves a flagged "resolved" out of the time to resolve, and counts what it left out', async () => {
    type S = { incidentDurationStats: { group: string; count: number; excludedCount: number; max: number; histogram: number[] }[] };
    const resolve = await t.gql<S>(`{ incidentDurationStats(metric: TIME_TO_RESOLVE) { group count excludedCount max histogram } }`);
    expect(resolve.errors).toBeUndefined();
    // StackEgg's "resolved" (29 h after a 3.4 h mitigation) is left out: only ChangeProp's hour remains.
    expect(resolve.data.incidentDurationStats).toEqual([{ group: 'all', count: 1, excludedCount: 1, max: 60, histogram: [0, 0, 0, 1, 0, 0] }]);
    // The same check leaves StackEgg's time to mitigate in.
    const mitigate = await t.gql<S>(`{ incidentDurationStats(metric: TIME_TO_MITIGATE) { group count excludedCount } }`);
    expect(mitigate.data.incidentDurationStats).toEqual([{ group: 'all', count: 2, excludedCount: 0 }]);
  });

  it('shows the distributions on a page, grouped as asked', async () => {
    const page = (await request(t.app.getHttpServer()).get('/durations?by=year').expect(200)).text;
    expect(page).toContain('Time to mitigate');
    expect(page).toMatch(/<th scope="row">2015<\/th><td>1<\/td>/);
    expect(page).toContain('<strong>By year</strong>');
    const text = textOf(page);
    expect(text).toContain('Time to resolve 1 incident is left out of these figures: 1 whose “resolved” comes long after mitigation');
    expect(text).toContain('Time to mitigate No incident left out');
  });

  it('leaves every duration of an incident with key times out of order out, and says so', async () => {
    const [seed] = readSeedFiles(path.join(projectRoot(), 'seeds')).incidents.filter((s) => s.slug === 'changeprop-feedback-loop-2016');
    const doc = {
      ...seed!,
      slug: 'detected-before-start-2019',
      keyTimes: {
        started: { at: '2019-03-01T10:00:00.000Z', precision: 'minute' as const },
        detected: { at: '2019-03-01T09:50:00.000Z', precision: 'minute' as const },
        mitigated: { at: '2019-03-01T11:00:00.000Z', precision: 'minute' as const },
        resolved: { at: '2019-03-01T12:00:00.000Z', precision: 'minute' as const },
      },
    };
    const prisma = testPrisma(t.db.url);
    try {
      await prisma.$transaction((tx) => writeIncidentDocument(tx, doc, { status: 'published' }));
    } finally {
      await prisma.onModuleDestroy();
    }
    type S = { incidentDurationStats: { group: string; count: number; excludedCount: number }[] };
    const byYear = await t.gql<S>(`{ incidentDurationStats(metric: TIME_TO_MITIGATE, groupBy: YEAR) { group count excludedCount } }`);
    // The 2019 group is listed with nothing counted, so grouping never hides the flagged incident.
    expect(byYear.data.incidentDurationStats).toContainEqual({ group: '2019', count: 0, excludedCount: 1 });
    const stats = await t.gql<{ incidentDurationStats: { group: string; p50: number | null; max: number | null }[] }>(
      `{ incidentDurationStats(metric: TIME_TO_MITIGATE, groupBy: YEAR) { group p50 max } }`,
    );
    expect(stats.data.incidentDurationStats.find((r) => r.group === '2019')).toEqual({ group: '2019', p50: null, max: null });
    const all = await t.gql<S>(`{ incidentDurationStats(metric: TIME_TO_MITIGATE) { group count excludedCount } }`);
    expect(all.data.incidentDurationStats).toEqual([{ group: 'all', count: 2, excludedCount: 1 }]);
    const byYearPage = (await request(t.app.getHttpServer()).get('/durations?by=year').expect(200)).text;
    expect(byYearPage).toMatch(/<th scope="row">2019<\/th><td>0<\/td><td>0<\/td><td>1<\/td><td>—<\/td>/);
    const text = textOf((await request(t.app.getHttpServer()).get('/durations').expect(200)).text);
    expect(text).toContain('Time to detect 1 incident is left out of these figures: 1 with key times out of order');
    expect(text).toContain('Time to resolve 2 incidents are left out of these figures: 1 with key times out of order; 1 whose “resolved” comes long after mitigation');
    const incident = textOf((await request(t.app.getHttpServer()).get('/incidents/detected-before-start-2019').expect(200)).text);
    expect(incident).toContain('Key times out of order: "detected" is before "started". Left out of the distributions across incidents: time to detect, time to mitigate, time to resolve.');
  });
});
