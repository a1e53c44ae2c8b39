/// The push statistics pages' own stylesheet and script (`/center/static/push.css`, `/center/static/push.js`), beside
/// the web center's stylesheet (`/center/static/center.css`, the same text as the center's). Served by the worker
/// itself: the Content-Security-Policy allows no inline style or script and nothing from elsewhere, and there is no
/// build step and no library.
enum PushCenterAssets {
    /// `/center/static/push.css`: tables, the small bars and the chart's colours.
    static let css = """
        :root { --accepted: #34c759; --failed: #ff3b30; --received: #0a84ff; --opened: #af52de; --pending: #c7c7cc; }
        main { max-width: 72rem; }
        .hint, .note { color: var(--muted); font-size: .85rem; }
        table.pushes td, table.pushes th, table.topics td, table.topics th, .breakdown td { padding: .4rem .6rem;
          border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
        th { font-size: .8rem; color: var(--muted); font-weight: 500; }
        .num { text-align: right; font-variant-numeric: tabular-nums; }
        table.pushes td.num, table.topics td.num, .breakdown td.num { text-align: right; }
        code.message-id { font-size: .75rem; color: var(--muted); }
        .push-title { font-weight: 600; }
        .state { font-size: .8rem; padding: .05rem .45rem; border-radius: 8px; border: 1px solid var(--line); }
        .state.done { border-color: var(--accepted); }
        .state.fanning, .state.scheduled { border-color: var(--received); }
        .state.cancelled, .state.expired { border-color: var(--failed); }
        nav.pages { display: flex; gap: 1rem; margin-top: 1rem; }
        dl.push-details { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
        dl.push-details dt { color: var(--muted); }
        dl.push-details dd { margin: 0; overflow-wrap: anywhere; }
        dl.counts { display: flex; flex-wrap: wrap; gap: .6rem; margin: 1rem 0; }
        dl.counts .count { background: var(--card); border-radius: 10px; padding: .5rem .8rem; min-width: 6.5rem;
          box-shadow: 0 1px 2px rgba(0,0,0,.12); }
        dl.counts dt { font-size: .8rem; color: var(--muted); }
        dl.counts dd { margin: 0; font-size: 1.4rem; font-weight: 600; font-variant-numeric: tabular-nums; }
        .tables { display: flex; flex-wrap: wrap; gap: 2rem; }
        .breakdown h2, h2 { font-size: 1.05rem; margin: 1rem 0 .5rem; }
        .breakdown table { min-width: 16rem; }
        svg.chart { background: var(--card); border-radius: 10px; width: auto; max-width: 100%; height: auto; }
        svg.small-bar { display: inline-block; width: 120px; height: 10px; vertical-align: middle; }
        svg .grid { stroke: var(--line); stroke-width: 1; }
        svg .axis-line { stroke: var(--muted); stroke-width: 1; }
        svg text { fill: var(--muted); font-size: 11px; font-family: system-ui, sans-serif; }
        svg text.legend { fill: var(--fg); }
        svg .accepted { fill: var(--accepted); }
        svg .failed { fill: var(--failed); }
        svg .received { fill: var(--received); }
        svg .opened { fill: var(--opened); }
        svg .pending { fill: var(--pending); }
        svg .track { fill: var(--bg); stroke: var(--line); stroke-width: 1; }
        """

    /// `/center/static/push.js`: every element with `data-refresh` fetches that path every `data-interval`
    /// milliseconds (with the session's cookie) and replaces its content with the answer, an HTML fragment the
    /// server rendered and escaped; the top bar says whether the last fetch worked.
    static let script = """
        "use strict";
        (function () {
          var live = document.getElementById("live");
          function mark(on) {
            if (!live) { return; }
            live.className = on ? "live on" : "live off";
            live.textContent = on ? "live" : "offline";
          }
          document.querySelectorAll("[data-refresh]").forEach(function (element) {
            var source = element.getAttribute("data-refresh");
            var interval = parseInt(element.getAttribute("data-interval"), 10) || 3000;
            function refresh() {
              fetch(source, { credentials: "same-origin", cache: "no-store" })
                .then(function (response) {
                  if (!response.ok) { throw new Error("HTTP " + response.status); }
                  return response.text();
                })
                .then(function (html) {
                  element.innerHTML = html;
                  element.setAttribute("data-refreshed", String(Date.now()));
                  mark(true);
                })
                .catch(function () { mark(false); })
                .then(function () { setTimeout(refresh, interval); });
            }
            mark(true);
            setTimeout(refresh, interval);
          });
        })();
        """
}
