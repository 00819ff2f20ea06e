// Starts swagger-ui on the document of the chosen API version. Calls made
// with "Try it out" go to the fake itself (the document's servers point at
// it) and carry the development token and, for a version other than the
// default, the Accept-Version header that selects it.
(function () {
  "use strict";
  var cfg = JSON.parse(document.body.dataset.config);
  var select = document.getElementById("wm-version");
  var ui;

  function hasHeader(headers, name) {
    return Object.keys(headers || {}).some(function (k) { return k.toLowerCase() === name; });
  }

  function show(version) {
    var q = "?version=" + encodeURIComponent(version);
    document.getElementById("wm-yaml").href = "/_mock/openapi.yaml" + q;
    document.getElementById("wm-json").href = "/_mock/openapi.json" + q;
    ui = SwaggerUIBundle({
      url: cfg.reference + q,
      dom_id: "#swagger-ui",
      deepLinking: true,
      docExpansion: "list",
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      filter: true,
      validatorUrl: null,
      requestInterceptor: function (req) {
        req.headers = req.headers || {};
        if (!hasHeader(req.headers, "authorization")) {
          req.headers["Authorization"] = "Bearer " + cfg.token;
        }
        if (version !== cfg.defaultVersion) {
          req.headers["Accept-Version"] = version;
        }
        return req;
      },
      onComplete: function () {
        // Shows the token in the Authorize dialog too, for every bearer scheme.
        var spec = ui.specSelectors.specJson().toJS();
        var schemes = (spec.components && spec.components.securitySchemes) || {};
        Object.keys(schemes).forEach(function (name) {
          var s = schemes[name];
          if (s.type === "http" && String(s.scheme).toLowerCase() === "bearer") {
            ui.preauthorizeApiKey(name, cfg.token);
          }
        });
      }
    });
  }

  select.addEventListener("change", function () { show(select.value); });
  document.getElementById("wm-errors").addEventListener("submit", function (e) {
    e.preventDefault();
    var id = document.getElementById("wm-error-id").value.trim();
    if (id) { window.location.href = "/_mock/errors/" + encodeURIComponent(id); }
  });
  show(select.value || cfg.defaultVersion);
})();
