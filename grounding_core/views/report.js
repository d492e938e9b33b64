
(function () {
  "use strict";
  function each(list, fn) { Array.prototype.forEach.call(list, fn); }
  function setup(root) {
    var pinned = null;
    root.classList.add("gk-js");
    function show(claim) {
      each(root.querySelectorAll(".gk-detail.gk-open"), function (d) {
        d.classList.remove("gk-open");
      });
      each(root.querySelectorAll(".gk-claim.gk-active"), function (c) {
        c.classList.remove("gk-active");
        c.setAttribute("aria-expanded", "false");
      });
      root.classList.remove("gk-has-open");
      if (!claim) { return; }
      var number = claim.getAttribute("data-claim");
      var detail = root.querySelector('.gk-detail[data-claim="' + number + '"]');
      if (detail) {
        detail.classList.add("gk-open");
        root.classList.add("gk-has-open");
      }
      claim.classList.add("gk-active");
      claim.setAttribute("aria-expanded", "true");
    }
    function claimOf(event) {
      var node = event.target;
      var claim = node && node.closest ? node.closest(".gk-claim") : null;
      return claim && root.contains(claim) ? claim : null;
    }
    function preview(event) {
      var claim = claimOf(event);
      if (claim && !pinned) { show(claim); }
    }
    root.addEventListener("click", function (event) {
      var claim = claimOf(event);
      if (!claim) { return; }
      event.preventDefault();
      pinned = pinned === claim ? null : claim;
      show(claim);
    });
    root.addEventListener("mouseover", preview);
    root.addEventListener("focusin", preview);
    root.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { pinned = null; show(null); }
    });
  }
  each(document.querySelectorAll(".gk-report:not(.gk-js)"), setup);
})();
