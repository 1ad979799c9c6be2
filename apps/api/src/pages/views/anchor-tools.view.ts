import { html, runbookMarkdownLink, type AnchorKind, type SafeHtml } from '@hindsight/web';

const KIND_WORDS: Record<AnchorKind, string> = { timeline: 'event', factor: 'factor', actionable: 'actionable' };

export interface AnchorToolsOptions {
  kind: AnchorKind;
  /** The fragment id, e.g. `factor-changeprop-retries-on-500`. */
  id: string;
  /** Absolute URL of the page, without fragment. */
  pageUrl: string;
  /** Link text for the runbook snippet. */
  label: string;
}

/**
 * The permalink of one item, usable without JavaScript (a visible link to the fragment that can
 * be copied like any link), plus a Markdown snippet for runbooks. Copy buttons start hidden and
 * are revealed by the page script, so nobody meets a button that does nothing.
 */
export function anchorToolsView(options: AnchorToolsOptions): SafeHtml {
  const url = `${options.pageUrl}#${options.id}`;
  const snippetId = `snippet-${options.id}`;
  const word = KIND_WORDS[options.kind];
  return html`<div class="anchor-tools">
<a class="anchor-link" href="#${options.id}"><span class="visually-hidden">Link to this ${word}: </span>#${options.id}</a>
<button type="button" class="copy-button" data-copy-link="#${options.id}" hidden>Copy link<span class="visually-hidden"> to this ${word}</span></button>
<details class="runbook-snippet"><summary>Markdown for a runbook</summary>
<pre><code id="${snippetId}">${runbookMarkdownLink(options.label, url)}</code></pre>
<button type="button" class="copy-button" data-copy-from="${snippetId}" hidden>Copy Markdown</button>
</details>
</div>`;
}
