/* brock test data: a stand-in for a captcha loader that renders nothing and calls back. */
(function () {
    var api = { ready: function (cb) { cb(); }, render: function () { return 0; } };
    window.grecaptcha = window.grecaptcha || api;
})();
