// Progressive enhancement for Hindsight pages. Everything works without this file: anchors are
// plain links and snippets are selectable text. With it, copy buttons appear and put an absolute
// link (or a runbook snippet) on the clipboard. Loaded as a file because the pages' Content
// Security Policy forbids inline script.
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

  function enhance() {
    enhanceCopyButtons();
    centreGraphs();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', enhance);
  } else {
    enhance();
  }
})();
