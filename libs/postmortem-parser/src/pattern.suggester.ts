import type { SourceLine, SuggestedPattern } from './importer.types';

// Keys follow the pattern taxonomy (`seeds/patterns.json`). Each rule looks for wording specific enough that a
// reviewer will usually keep the suggestion; "timeout" alone is not enough (every alert says it).
const RULES: { key: string; pattern: RegExp }[] = [
  { key: 'retry-amplification', pattern: /retry (?:storm|amplification|count exceeded)|exponential retr\w*|retr(?:y|ies) (?:amplif\w*|storm)|\bretries\b|\bretried\b/i },
  { key: 'feedback-loop', pattern: /feedback loop|event loops?|going back to .{0,30}loop|loop of (?:events|requests)|vòng phản hồi|rückkopplung|boucle de rétroaction|bucle de retroalimentación/i },
  { key: 'metastable-failure', pattern: /metastab\w*|siêu bền|self-sustaining (?:overload|state)|tự duy trì/i },
  { key: 'cache-dependency', pattern: /cache (?:miss(?:es)?|hit (?:rate|ratio))|behind (?:a |the )?cache|hidden (?:cache )?dependency|phụ thuộc ẩn|cache (?:che giấu|hid)/i },
  { key: 'missing-timeout', pattern: /no timeouts?\b|without (?:a |any )?timeouts?|lack of timeouts?|missing timeouts?|timeouts? (?:was|were)?\s*(?:not|never) (?:set|configured)|CURLOPT_(?:CONNECT)?TIMEOUT|effectively infinite|kein(?:e|en)? timeout|sans (?:délai|timeout)|sin timeout/i },
  { key: 'resource-exhaustion', pattern: /exhaust\w*|MaxClients|out of memory|\bOOM\b|all (?:the )?available (?:\w+ )?(?:slots|workers|threads|connections)|cpu (?:was )?saturat\w*|saturat\w*|cạn kiệt|erschöpf\w*|épuis\w*|agotad\w*/i },
  { key: 'connection-cap', pattern: /session cap|connection (?:limit|cap)|concurrent sessions?|maxconn|session (?:limit|capacity)|sessions? limit/i },
  { key: 'thundering-herd', pattern: /thundering herd/i },
  { key: 'scatter-gather', pattern: /scatter(?:[- ]gather| quer\w*)|fan-?out|every shard|all shards|mọi shard/i },
  { key: 'unbounded-concurrency', pattern: /no limit on (?:\w+ )?concurrency|unbounded (?:concurrency|parallelism)|without (?:a )?concurrency limit/i },
  { key: 'keep-alive-hold', pattern: /keep-?alive/i },
  { key: 'cache-churn', pattern: /cache churn|churn/i },
  { key: 'self-call-deadlock', pattern: /(?:calls?|calling|contact\w*) (?:itself|the other \w+ site on the same server|the same server)|self-call/i },
  { key: 'silent-wedge', pattern: /no errors (?:are|were) logged|nothing (?:was )?logged|load (?:is|was|stays) low|\bwedged?\b/i },
];

/** Pattern keys suggested by the document's wording, each with the words and line that suggested it. */
export function suggestPatterns(lines: readonly SourceLine[], known?: readonly string[]): SuggestedPattern[] {
  const suggestions: SuggestedPattern[] = [];
  for (const { key, pattern } of RULES) {
    if (known && !known.includes(key)) continue;
    for (const { line, text } of lines) {
      const m = pattern.exec(text);
      if (m) {
        suggestions.push({ key, evidence: m[0], line });
        break;
      }
    }
  }
  return suggestions;
}
