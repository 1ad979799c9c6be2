import { html, type SafeHtml } from '@hindsight/web';

export type Section = 'incidents' | 'actionables' | 'patterns' | 'durations';

export interface LayoutOptions {
  title: string;
  main: SafeHtml;
  active?: Section;
  /** Shown to search engines and link previews. */
  description?: string;
}

const NAV: { section: Section; href: string; label: string }[] = [
  { section: 'incidents', href: '/incidents', label: 'Incidents' },
  { section: 'actionables', href: '/actionables', label: 'Follow-ups' },
  { section: 'patterns', href: '/patterns', label: 'Patterns' },
  { section: 'durations', href: '/durations', label: 'Durations' },
];

/**
 * The page shell. The stylesheet and one deferred script come from the app itself; there is no
 * inline script or style anywhere, which is what lets the CSP forbid them.
 */
export function layoutView(options: LayoutOptions): SafeHtml {
  const nav = NAV.map(
    (item) => html`<li><a href="${item.href}"${item.section === options.active ? html` aria-current="page"` : ''}>${item.label}</a></li>`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Hindsight</title>
<meta name="description" content="${options.description ?? `${options.title}: incidents, their causes and follow-ups in Hindsight, a postmortem knowledge base.`}">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/pages.css">
<script src="/assets/pages.js" defer></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<nav class="site-nav" aria-label="Site">
<a class="brand" href="/">Hindsight</a>
<ul>${nav}<li><a href="/graphql">GraphQL API</a></li><li><a href="/sign-in">Account</a></li></ul>
</nav>
</header>
<main id="main" tabindex="-1">
${options.main}
</main>
<footer class="site-footer"><p>Hindsight: postmortems as knowledge you can link to. Times are UTC and shown as precisely as the source gave them.</p></footer>
<p class="visually-hidden" id="copy-status" role="status" aria-live="polite"></p>
</body>
</html>
`;
}
