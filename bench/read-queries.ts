/** The GraphQL reads the read benches send, shared so every bench asks for the same fields. */

/** Every field of an incident's detail, nested collections included (read-bench.ts, stack-floor-bench.ts). */
export const DETAIL_FIELDS = `slug title organization components summary narrative impact source { title url language } started { at precision } detected { at precision }
  mitigated { at precision } resolved { at precision } version patterns { key name }
  timeline { key asWritten at precision kind text }
  causalFactors { key role component text }
  causalLinks { kind from { key } to { key } }
  actionables { key title description owner status dueDate priority references { kind ref url } addresses { key } }`;
