import { html, type SafeHtml } from '@hindsight/web';
import type { Principal } from '@hindsight/tracking';
import { layoutView } from './layout.view';

export interface SignInViewOptions {
  /** Where to go after signing in (a local path). */
  next: string;
  /** The sign-in form's own anti-forgery token (double-submitted with a cookie). */
  formToken: string;
  principal: Principal | null;
  message?: string;
  name?: string;
}

/** The sign-in page; when already signed in, who you are and a sign-out button. */
export function signInView(o: SignInViewOptions): SafeHtml {
  if (o.principal?.via === 'session') {
    return layoutView({
      title: 'Signed in',
      main: html`<section class="sign-in" aria-labelledby="sign-in-title">
<h1 id="sign-in-title">Signed in</h1>
<p>You are signed in as <strong>${o.principal.name}</strong> with role <strong>${o.principal.role}</strong>.</p>
${signOutForm(o.principal)}
</section>`,
    });
  }
  return layoutView({
    title: 'Sign in',
    main: html`<section class="sign-in" aria-labelledby="sign-in-title">
<h1 id="sign-in-title">Sign in</h1>
${o.message ? html`<p class="form-errors" role="alert">${o.message}</p>` : ''}
<form method="post" action="/sign-in" class="sign-in-form">
<input type="hidden" name="_csrf" value="${o.formToken}">
<input type="hidden" name="next" value="${o.next}">
<div class="field"><label for="field-name">Account name</label>
<input id="field-name" name="name" type="text" autocomplete="username" required value="${o.name ?? ''}"></div>
<div class="field"><label for="field-password">Password</label>
<input id="field-password" name="password" type="password" autocomplete="current-password" required></div>
<button type="submit">Sign in</button>
</form>
<p class="field-hint">Accounts are made by an admin (<code>npm run account -- create</code>). Reading may not need one; editing does.</p>
</section>`,
  });
}

/** A sign-out button carrying the session's synchroniser token. */
export function signOutForm(principal: Principal & { via: 'session' }): SafeHtml {
  return html`<form method="post" action="/sign-out" class="sign-out-form">
<input type="hidden" name="_csrf" value="${principal.csrfToken}">
<button type="submit">Sign out</button>
</form>`;
}
