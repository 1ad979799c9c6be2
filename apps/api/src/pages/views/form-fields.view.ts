import { html, type SafeHtml } from '@hindsight/web';
import type { FieldError } from '../list-query.parser';

export interface FieldOptions {
  name: string;
  label: string;
  errors: readonly FieldError[];
  hint?: string;
}

/**
 * The label, the control and, when the value was refused, the reason right under it, tied to
 * the control with aria-describedby so a screen reader announces it with the field.
 */
function field(options: FieldOptions, control: (attrs: SafeHtml) => SafeHtml): SafeHtml {
  const id = `field-${options.name}`;
  const error = options.errors.find((e) => e.field === options.name);
  const describedBy = [options.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const attrs = html`id="${id}" name="${options.name}"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${error ? html` aria-invalid="true"` : ''}`;
  return html`<div class="field${error ? ' field-invalid' : ''}">
<label for="${id}">${options.label}</label>
${control(attrs)}
${options.hint ? html`<p class="field-hint" id="${id}-hint">${options.hint}</p>` : ''}
${error ? html`<p class="field-error" id="${id}-error">${error.message}</p>` : ''}
</div>`;
}

/**
 * A text input; with `suggestions`, a `<datalist>` the browser offers as one types (no script
 * needed), filtered by the browser to the values containing what was typed. With `suggest`, the
 * pages' script also asks `filterSuggestions` for that field as one types and refills the list
 * with the values containing the text, so values too rare for the first list are offered too.
 */
export function textField(
  options: FieldOptions & { value: string; type?: 'search' | 'text'; inputmode?: 'numeric'; suggestions?: readonly string[]; suggest?: 'ORGANIZATION' | 'COMPONENT' | 'OWNER' },
): SafeHtml {
  const listId = `field-${options.name}-suggestions`;
  const list = (options.suggestions && options.suggestions.length > 0) || options.suggest !== undefined;
  return field(
    options,
    (attrs) =>
      html`<input ${attrs} type="${options.type ?? 'text'}" value="${options.value}"${options.inputmode ? html` inputmode="${options.inputmode}"` : ''}${list ? html` list="${listId}" autocomplete="off"` : ''}${
        options.suggest ? html` data-suggest="${options.suggest}"` : ''
      }>${list ? html`<datalist id="${listId}">${(options.suggestions ?? []).map((v) => html`<option value="${v}"></option>`)}</datalist>` : ''}`,
  );
}

export function selectField(options: FieldOptions & { value: string; choices: readonly { value: string; label: string }[] }): SafeHtml {
  return field(options, (attrs) => html`<select ${attrs}>${options.choices.map((c) => html`<option value="${c.value}"${c.value === options.value ? html` selected` : ''}>${c.label}</option>`)}</select>`);
}

export function checkboxField(options: FieldOptions & { checked: boolean }): SafeHtml {
  const id = `field-${options.name}`;
  const error = options.errors.find((e) => e.field === options.name);
  return html`<div class="field field-checkbox${error ? ' field-invalid' : ''}">
<input id="${id}" type="checkbox" name="${options.name}" value="yes"${options.checked ? html` checked` : ''}${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
<label for="${id}">${options.label}</label>
${error ? html`<p class="field-error" id="${id}-error">${error.message}</p>` : ''}
</div>`;
}

/** Errors that belong to no visible field (a stale page link, an unknown page size). */
export function formErrorsView(errors: readonly FieldError[], visibleFields: readonly string[]): SafeHtml {
  const loose = errors.filter((e) => !visibleFields.includes(e.field));
  if (loose.length === 0) return html``;
  return html`<div class="form-errors" role="alert"><p>${loose.map((e) => html`<span>${e.message}</span> `)}</p></div>`;
}
