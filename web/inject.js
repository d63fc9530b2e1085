// brock's script, which brock puts first in the head of every HTML document it passes (see
// docs/design.md): what Privacy Badger does inside pages. It runs before the page's own scripts
// and leaves no name behind. Being inline in XHTML documents too, it has no less-than sign and
// no ampersand.
//
// For now, the page reads the signals brock's requests carry in their headers (DNT: 1 and
// Sec-GPC: 1): navigator.doNotTrack and navigator.globalPrivacyControl.
(function () {
  'use strict';
  const say = (name, value) => {
    try {
      Object.defineProperty(Navigator.prototype, name, {
        configurable: true,
        enumerable: true,
        get: function () { return value; },
      });
    } catch (e) {
      // A page cannot have frozen Navigator before this runs; another script of the browser's
      // may have, and then the page keeps what it has.
    }
  };
  say('globalPrivacyControl', true);
  say('doNotTrack', '1');
}());
