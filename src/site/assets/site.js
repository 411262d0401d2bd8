/* The reader site's script. Everything works without it; it adds search as you type, copy buttons on
   code blocks and the dark/light toggle (theme.js sets the stored choice before the first paint). It
   talks to nothing but the site. */
/* global document, window, localStorage, fetch, navigator, URL, AbortController, FormData, URLSearchParams, DOMParser, HTMLFormElement */
(function () {
  'use strict';
  var root = document.documentElement;
  var THEME_KEY = 'quire-theme';

  function applyTheme(theme) {
    if (theme === 'dark' || theme === 'light') root.setAttribute('data-theme', theme);
    else root.removeAttribute('data-theme');
  }

  function currentTheme() {
    var set = root.getAttribute('data-theme');
    if (set) return set;
    return window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }

  function setUpThemeToggle() {
    var toggle = document.querySelector('.theme-toggle');
    if (!toggle) return;
    var label = function () {
      var dark = currentTheme() === 'dark';
      toggle.setAttribute('aria-pressed', dark ? 'true' : 'false');
      toggle.textContent = dark ? 'Light theme' : 'Dark theme';
    };
    toggle.hidden = false;
    label();
    toggle.addEventListener('click', function () {
      var next = currentTheme() === 'dark' ? 'light' : 'dark';
      applyTheme(next);
      try {
        localStorage.setItem(THEME_KEY, next);
      } catch {
        /* a reader's choice is kept only where storage allows */
      }
      label();
    });
  }

  function setUpCopyButtons() {
    var blocks = document.querySelectorAll('.content pre');
    for (var i = 0; i < blocks.length; i++) {
      (function (pre) {
        var button = document.createElement('button');
        button.type = 'button';
        button.className = 'copy-button';
        button.textContent = 'Copy';
        button.setAttribute('aria-label', 'Copy code to clipboard');
        button.addEventListener('click', function () {
          var code = pre.querySelector('code');
          // Without the block's last newline, which pasted into a terminal would run the command.
          var text = (code || pre).innerText.replace(/\n$/, '');
          var done = function () {
            button.textContent = 'Copied';
            window.setTimeout(function () {
              button.textContent = 'Copy';
            }, 1500);
          };
          if (navigator.clipboard && navigator.clipboard.writeText) {
            navigator.clipboard.writeText(text).then(done, function () {
              button.textContent = 'Copy failed';
            });
          }
        });
        pre.appendChild(button);
      })(blocks[i]);
    }
  }

  function setUpSearch() {
    var form = document.querySelector('.search-form');
    if (!form) return;
    var input = form.querySelector('input[name="q"]');
    var list = form.querySelector('.suggestions');
    var endpoint = form.getAttribute('data-suggest');
    if (!input || !list || !endpoint) return;
    var pending = null;
    var timer = null;
    var selected = -1;

    function clear() {
      while (list.firstChild) list.removeChild(list.firstChild);
      input.setAttribute('aria-expanded', 'false');
      selected = -1;
    }

    function show(hits) {
      clear();
      for (var i = 0; i < hits.length; i++) {
        var item = document.createElement('li');
        item.setAttribute('role', 'presentation');
        var link = document.createElement('a');
        link.href = hits[i].url;
        link.id = 'suggestion-' + i;
        link.setAttribute('role', 'option');
        var title = document.createElement('strong');
        title.textContent = hits[i].title;
        link.appendChild(title);
        if (hits[i].context) {
          var context = document.createElement('small');
          context.textContent = ' ' + hits[i].context;
          link.appendChild(context);
        }
        item.appendChild(link);
        list.appendChild(item);
      }
      input.setAttribute('aria-expanded', hits.length > 0 ? 'true' : 'false');
    }

    function select(index) {
      var links = list.querySelectorAll('a');
      if (links.length === 0) return;
      selected = (index + links.length) % links.length;
      for (var i = 0; i < links.length; i++) {
        links[i].setAttribute('aria-selected', i === selected ? 'true' : 'false');
      }
      input.setAttribute('aria-activedescendant', links[selected].id);
    }

    input.addEventListener('input', function () {
      window.clearTimeout(timer);
      var q = input.value.trim();
      if (q === '') {
        clear();
        return;
      }
      timer = window.setTimeout(function () {
        if (pending) pending.abort();
        pending = new AbortController();
        var url = new URL(endpoint, window.location.href);
        url.searchParams.set('q', q);
        // The form's other fields (the version searched) go along, as the form would send them.
        var fields = form.querySelectorAll('input[type="hidden"]');
        for (var i = 0; i < fields.length; i++) url.searchParams.set(fields[i].name, fields[i].value);
        fetch(url.toString(), { signal: pending.signal, headers: { accept: 'application/json' } })
          .then(function (response) {
            return response.ok ? response.json() : { hits: [] };
          })
          .then(function (body) {
            if (input.value.trim() === q) show(body.hits || []);
          })
          .catch(function () {
            /* the form still submits to the results page */
          });
      }, 120);
    });
    input.addEventListener('keydown', function (event) {
      if (event.key === 'ArrowDown') {
        event.preventDefault();
        select(selected + 1);
      } else if (event.key === 'ArrowUp') {
        event.preventDefault();
        select(selected - 1);
      } else if (event.key === 'Enter' && selected >= 0) {
        var links = list.querySelectorAll('a');
        if (links[selected]) {
          event.preventDefault();
          window.location.href = links[selected].href;
        }
      } else if (event.key === 'Escape') {
        clear();
      }
    });
  }

  /* "Was this page helpful?": sent without leaving the page. The form works without this; a
     failure to reach the site falls back to sending it as a form. */
  function setUpFeedback() {
    var form = document.querySelector('.feedback-form');
    if (!form || !window.fetch || !window.FormData || !window.URLSearchParams) return;
    var section = form.parentNode;
    var status = form.querySelector('.feedback-status');
    var sending = false;
    form.addEventListener('submit', function (event) {
      var button = event.submitter;
      if (!button || button.name !== 'helpful' || sending) return;
      event.preventDefault();
      var body = new URLSearchParams(new FormData(form));
      body.set('helpful', button.value);
      sending = true;
      status.textContent = 'Sending…';
      fetch(form.action, {
        method: 'POST',
        body: body,
        credentials: 'same-origin',
      })
        .then(function (response) {
          sending = false;
          // The 303 back to the page, followed (the browser revalidates the page it holds): stored.
          if (response.redirected && response.ok) {
            status.textContent = '';
            section.classList.add('sent');
            var thanks = section.querySelector('.feedback-thanks');
            if (thanks) thanks.focus();
            return;
          }
          return response.text().then(function (html) {
            var page = new DOMParser().parseFromString(html, 'text/html');
            var reason = page.querySelector('.refusal');
            status.textContent = reason ? reason.textContent : 'Your feedback could not be sent.';
          });
        })
        .catch(function () {
          // Sent as the form would have been, with the answer the reader pressed.
          var answer = document.createElement('input');
          answer.type = 'hidden';
          answer.name = 'helpful';
          answer.value = button.value;
          form.appendChild(answer);
          HTMLFormElement.prototype.submit.call(form);
        });
    });
  }

  function ready() {
    setUpThemeToggle();
    setUpCopyButtons();
    setUpSearch();
    setUpFeedback();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
})();
