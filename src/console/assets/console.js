// warroom-memory console: live updates. Pages work without this file; with it, a list
// that names an event stream (data-events) receives new rows as the daemon sends them.
// The rows are HTML the server rendered with the same code as the page (agent text
// escaped there); nothing here builds markup from agent text.
"use strict";
(function () {
  var dot = document.getElementById("live");
  var feed = document.querySelector("[data-events]");
  if (!feed || typeof EventSource === "undefined") {
    return;
  }
  var channel = document.getElementById("channel");
  var source = new EventSource(feed.getAttribute("data-events"));
  function mark(state, title) {
    if (dot) {
      dot.className = "live " + state;
      dot.title = title;
    }
  }
  function add(list, html, first) {
    if (!list) {
      return;
    }
    var empty = list.querySelector(".empty");
    if (empty) {
      empty.remove();
    }
    list.insertAdjacentHTML(first ? "afterbegin" : "beforeend", html);
    var row = first ? list.firstElementChild : list.lastElementChild;
    if (row) {
      row.classList.add("fresh");
    }
  }
  source.addEventListener("open", function () {
    mark("on", "Live: new entries appear here");
  });
  source.addEventListener("error", function () {
    mark("off", "Live updates paused; reconnecting");
  });
  source.addEventListener("entry", function (e) {
    add(feed, e.data, true);
  });
  source.addEventListener("message", function (e) {
    add(channel, e.data, false);
  });
})();
