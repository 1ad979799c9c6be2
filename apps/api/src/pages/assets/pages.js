// Progressive enhancement for Hindsight pages. Everything works without this file: anchors are
// plain links, snippets are selectable text and the model's what-if form is a plain GET. With it,
// copy buttons appear and put an absolute link (or a runbook snippet) on the clipboard, a
// what-if redraws the model panel in place, and filter fields suggest values as one types.
// Loaded as a file because the pages' Content Security Policy forbids inline script.
(function () {
  'use strict';

  var announcer = null;

  function announce(message) {
    if (!announcer) announcer = document.getElementById('copy-status');
    if (announcer) announcer.textContent = message;
  }

  // Clipboard API where available (HTTPS and localhost); otherwise the older selection-based
  // copy, so the buttons also work on a plain-HTTP intranet host.
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.className = 'visually-hidden';
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try {
        ok = document.execCommand('copy');
      } catch (e) {
        ok = false;
      }
      document.body.removeChild(area);
      if (ok) resolve();
      else reject(new Error('copy refused'));
    });
  }

  function textFor(button) {
    var link = button.getAttribute('data-copy-link');
    if (link) return new URL(link, window.location.href).href;
    var source = document.getElementById(button.getAttribute('data-copy-from') || '');
    return source ? source.textContent : null;
  }

  function enhanceCopyButtons() {
    var buttons = document.querySelectorAll('button.copy-button');
    Array.prototype.forEach.call(buttons, function (button) {
      var label = button.innerHTML;
      button.hidden = false;
      button.addEventListener('click', function () {
        var text = textFor(button);
        if (!text) return;
        copyText(text).then(
          function () {
            button.setAttribute('data-copied', '');
            button.textContent = 'Copied';
            announce('Copied to the clipboard: ' + text);
            window.setTimeout(function () {
              button.removeAttribute('data-copied');
              button.innerHTML = label;
            }, 2000);
          },
          function () {
            announce('Copying was refused by the browser; select the link and copy it instead.');
          },
        );
      });
    });
  }

  // A graph wider than the screen opens on the trigger (the usual place to start reading)
  // rather than on its left edge, which may hold nothing but a long link.
  function centreGraphs() {
    var boxes = document.querySelectorAll('.graph-scroll');
    Array.prototype.forEach.call(boxes, function (box) {
      if (box.scrollWidth <= box.clientWidth) return;
      var start = box.querySelector('.node-trigger') || box.querySelector('.node');
      if (!start) return;
      var node = start.getBoundingClientRect();
      var frame = box.getBoundingClientRect();
      box.scrollLeft += node.left + node.width / 2 - (frame.left + frame.width / 2);
    });
  }

  // What-if runs without a reload: the form is a plain GET to the page (which works with this
  // file absent); here the same query goes to the panel-only route and the answer replaces the
  // panel. A field left at its default is dropped from the query, so the URL names only what the
  // reader changed. Anything unexpected falls back to the plain submission.
  function modelAnnounce(message) {
    var region = document.getElementById('model-status');
    if (!region) return;
    // Emptied first so the same words twice are still spoken twice.
    region.textContent = '';
    window.setTimeout(function () {
      region.textContent = message;
    }, 50);
  }

  function whatIfQuery(form) {
    var params = new URLSearchParams();
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!field.name || field.disabled) return;
      // An on/off box speaks for its hidden fallback field: its value is 1 ticked, 0 not.
      if (field.hasAttribute('data-off-for')) return;
      var value = field.type === 'checkbox' ? (field.checked ? field.value : field.getAttribute('data-off')) : field.value;
      if (field.hasAttribute('data-default') && value.trim() === field.getAttribute('data-default')) return;
      if (field.name === 'scenario' && value === 'all') return;
      params.append(field.name, value);
    });
    return params.toString();
  }

  function enhanceWhatIf() {
    if (!document.getElementById('model-body') || !window.fetch || !window.DOMParser || !window.URLSearchParams) return;
    document.addEventListener('submit', function (event) {
      var form = event.target;
      var body = document.getElementById('model-body');
      if (!form || !form.classList || !form.classList.contains('what-if') || !body || !body.contains(form)) return;
      var fragment = body.getAttribute('data-fragment');
      if (!fragment) return;
      event.preventDefault();
      var query = whatIfQuery(form);
      var button = form.querySelector('button[type="submit"]');
      if (button) button.disabled = true;
      body.setAttribute('aria-busy', 'true');
      modelAnnounce('Running the model…');
      fetch(fragment + (query ? '?' + query : ''), { headers: { Accept: 'text/html' }, credentials: 'same-origin' })
        .then(function (response) {
          if (!response.ok) throw new Error('status ' + response.status);
          return response.text();
        })
        .then(function (markup) {
          var fresh = new DOMParser().parseFromString(markup, 'text/html').getElementById('model-body');
          if (!fresh) throw new Error('no panel in the answer');
          var replacement = document.importNode(fresh, true);
          body.parentNode.replaceChild(replacement, body);
          var page = window.location.pathname + (query ? '?' + query : '') + '#model';
          window.history.replaceState(window.history.state, '', page);
          // Focus goes to the first refused field, else back to the button the reader pressed.
          var target = replacement.querySelector('[aria-invalid="true"]') || replacement.querySelector('form.what-if button[type="submit"]');
          if (target) target.focus();
          modelAnnounce(replacement.getAttribute('data-announce') || 'The model panel was redrawn.');
        })
        .catch(function () {
          body.removeAttribute('aria-busy');
          if (button) button.disabled = false;
          // The plain GET still works; submit() does not fire this listener again.
          form.submit();
        });
    });
  }

  // Filter suggestions as one types. Without this file a field offers its <datalist> of the most
  // frequent values (the browser filters it). With it, a pause in typing asks the API for the
  // values containing the text (filterSuggestions) and refills the list, so a value too rare
  // for the first list is offered too. Bounded: one lookup per pause (SUGGEST_DELAY_MS), at most
  // SUGGEST_LIMIT values, a lookup abandoned after SUGGEST_TIMEOUT_MS or when a newer one starts;
  // on any failure the list stays as it was.
  var SUGGEST_DELAY_MS = 250;
  var SUGGEST_TIMEOUT_MS = 3000;
  var SUGGEST_LIMIT = 10;
  var SUGGEST_MAX_TEXT = 200;
  var SUGGEST_QUERY =
    'query FilterSuggestions($field: SuggestionField!, $text: String!, $first: Int) { filterSuggestions(field: $field, text: $text, first: $first) { value } }';

  function fillList(list, values) {
    while (list.firstChild) list.removeChild(list.firstChild);
    values.forEach(function (value) {
      var option = document.createElement('option');
      option.value = value;
      list.appendChild(option);
    });
  }

  function enhanceSuggestions() {
    if (!window.fetch || !window.AbortController || !window.JSON) return;
    var inputs = document.querySelectorAll('input[data-suggest][list]');
    Array.prototype.forEach.call(inputs, function (input) {
      var list = document.getElementById(input.getAttribute('list'));
      if (!list) return;
      var field = input.getAttribute('data-suggest');
      var initial = Array.prototype.map.call(list.querySelectorAll('option'), function (o) {
        return o.value;
      });
      var timer = null;
      var pending = null;
      var asked = null;

      function lookUp() {
        var text = input.value.trim().slice(0, SUGGEST_MAX_TEXT);
        if (text === asked) return;
        asked = text;
        if (pending) pending.abort();
        pending = null;
        if (text === '') {
          fillList(list, initial);
          return;
        }
        var controller = new AbortController();
        pending = controller;
        var deadline = window.setTimeout(function () {
          controller.abort();
        }, SUGGEST_TIMEOUT_MS);
        fetch('/graphql', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify({ query: SUGGEST_QUERY, variables: { field: field, text: text, first: SUGGEST_LIMIT } }),
          signal: controller.signal,
        })
          .then(function (response) {
            if (!response.ok) throw new Error('status ' + response.status);
            return response.json();
          })
          .then(function (body) {
            var found = body && body.data && body.data.filterSuggestions;
            if (controller !== pending || !found) return;
            fillList(
              list,
              found.map(function (s) {
                return s.value;
              }),
            );
            list.setAttribute('data-suggested-for', text);
          })
          .catch(function () {
            // Offline, slow or refused: the list the page came with still works.
            if (controller === pending) asked = null;
          })
          .then(function () {
            window.clearTimeout(deadline);
            if (controller === pending) pending = null;
          });
      }

      input.addEventListener('input', function () {
        window.clearTimeout(timer);
        timer = window.setTimeout(lookUp, SUGGEST_DELAY_MS);
      });
    });
  }

  function enhance() {
    enhanceCopyButtons();
    centreGraphs();
    enhanceWhatIf();
    enhanceSuggestions();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', enhance);
  } else {
    enhance();
  }
})();
