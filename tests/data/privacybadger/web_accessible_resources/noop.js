/* brock test data: a stand-in script that does nothing. */
(function () {})();
