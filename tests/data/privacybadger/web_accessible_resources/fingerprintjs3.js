/* brock test data: a stand-in for a fingerprinting library that gives the same visitor id
 * to everyone. */
(function () {
    var agent = { get: function () { return Promise.resolve({ visitorId: "0" }); } };
    window.FingerprintJS = { load: function () { return Promise.resolve(agent); } };
})();
