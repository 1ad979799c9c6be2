import { html, type SafeHtml } from '@hindsight/web';
import { layoutView } from './layout.view';

const TITLES: Record<number, string> = {
  400: 'That request could not be understood',
  401: 'Sign-in needed',
  403: 'Not allowed',
  404: 'Not found',
  500: 'Something went wrong',
  503: 'Busy right now',
};

export function errorView(status: number, message: string): SafeHtml {
  const title = TITLES[status] ?? `Error ${status}`;
  return layoutView({
    title,
    main: html`<section class="error-page" aria-labelledby="error-title">
<h1 id="error-title">${title}</h1>
<p>${message}</p>
<p><a href="/incidents">Browse all incidents</a> or <a href="/patterns">look up a failure pattern</a>.</p>
</section>`,
  });
}
