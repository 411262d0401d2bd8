/* The reader's stored theme, set before the first paint: loaded in the head without defer, so that
   a dark choice never shows the light theme first. site.js adds the toggle that stores it. */
/* global document, localStorage */
(function () {
  'use strict';
  try {
    var theme = localStorage.getItem('quire-theme');
    if (theme === 'dark' || theme === 'light') document.documentElement.setAttribute('data-theme', theme);
  } catch {
    /* storage refused: the system's theme */
  }
})();
