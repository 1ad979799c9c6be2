/**
 * Stable fragment identifiers. They are built from the stable keys the knowledge base gives
 * every timeline event, factor and actionable (never from list positions), so a link pasted into
 * a runbook still lands on the same item after the incident is edited.
 */
export type AnchorKind = 'timeline' | 'factor' | 'actionable';

export function anchorId(kind: AnchorKind, key: string): string {
  return `${kind}-${key}`;
}

/** Shortens prose to at most `max` characters on a word boundary, marking the cut. */
export function truncateWords(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.—-]+$/, '')}…`;
}

/**
 * A Markdown link for a runbook: `[label](url)`. Brackets and backslashes in the label are
 * escaped, and parentheses and spaces in the URL are percent-encoded, so the link survives
 * any Markdown renderer a runbook happens to use.
 */
export function runbookMarkdownLink(label: string, url: string): string {
  const text = label.replace(/\s+/g, ' ').trim().replace(/([\\[\]])/g, '\\$1');
  const target = url.replace(/[()\s<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return `[${text}](${target})`;
}
