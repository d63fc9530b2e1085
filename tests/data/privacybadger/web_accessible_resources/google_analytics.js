/* brock test data: a stand-in for an analytics script, with a queue that calls back. */
(function () {
    var queue = function () {
        var last = arguments[arguments.length - 1];
        if (last && typeof last.hitCallback === "function") last.hitCallback();
    };
    window.ga = window.ga || queue;
})();
