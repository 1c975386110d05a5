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
    var holder = document.createElement("template");
    holder.innerHTML = html;
    var row = holder.content.firstElementChild;
    if (!row) {
      return;
    }
    // A row the page already shows (written while the page was being served) is skipped.
    var id = row.getAttribute("data-id");
    var known = list.querySelectorAll("[data-id]");
    for (var i = 0; i < known.length; i++) {
      if (known[i].getAttribute("data-id") === id) {
        return;
      }
    }
    var empty = list.querySelector(".empty");
    if (empty) {
      empty.remove();
    }
    row.classList.add("fresh");
    if (first) {
      list.insertBefore(row, list.firstChild);
    } else {
      list.appendChild(row);
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
