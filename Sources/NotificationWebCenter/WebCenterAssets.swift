import Hummingbird

/// The center's stylesheet and script, served from the module itself (`/static/center.css`, `/static/center.js`):
/// the Content-Security-Policy allows no inline style or script, and there is no build step.
package enum WebCenterAssets {
    /// A response with an asset.
    package static func response(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "\(type); charset=utf-8", .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// `/static/center.css`.
    package static let css = """
        :root { color-scheme: light dark; --fg: #1d1d1f; --muted: #6e6e73; --card: #ffffff; --bg: #f2f2f7;
          --line: #d2d2d7; --accent: #0a66d8; --danger: #c9302c; }
        @media (prefers-color-scheme: dark) { :root { --fg: #f5f5f7; --muted: #a1a1a6; --card: #2c2c2e; --bg: #1c1c1e;
          --line: #3a3a3c; --accent: #4c9bff; --danger: #ff6961; } }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
          background: var(--bg); }
        header.top { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.2rem; background: var(--card);
          border-bottom: 1px solid var(--line); position: sticky; top: 0; }
        .brand { font-weight: 600; }
        nav a { margin-right: 1rem; color: var(--muted); text-decoration: none; }
        nav a[aria-current="page"] { color: var(--accent); font-weight: 600; }
        main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.2rem 3rem; }
        h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
        section.app { margin-bottom: 1.6rem; }
        .app-head { display: flex; justify-content: space-between; align-items: baseline; }
        .app-head h2 { font-size: 1.05rem; margin: .2rem 0 .5rem; }
        .app-id { color: var(--muted); font-weight: normal; font-size: .85rem; margin-left: .4rem; }
        .thread { border-left: 3px solid var(--line); padding-left: .7rem; margin-bottom: .8rem; }
        .thread h3 { font-size: .85rem; color: var(--muted); margin: .2rem 0 .4rem; font-weight: 500; }
        article.notification { background: var(--card); border-radius: 12px; padding: .7rem .9rem; margin-bottom: .6rem;
          box-shadow: 0 1px 2px rgba(0,0,0,.12); }
        .meta { float: right; color: var(--muted); font-size: .8rem; }
        .title { font-weight: 600; margin: 0; }
        .subtitle { margin: 0; font-weight: 500; }
        .body { margin: .2rem 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
        img.attachment { display: block; max-width: 100%; max-height: 16rem; border-radius: 8px; margin-top: .5rem; }
        .actions { display: flex; flex-wrap: wrap; gap: .4rem; margin-top: .6rem; }
        .actions form { margin: 0; }
        .text-action label { display: inline-flex; gap: .3rem; align-items: center; }
        form.snooze { display: inline-flex; gap: .3rem; align-items: center; margin-left: auto; }
        button.snooze { font-size: .85rem; padding: .2rem .5rem; }
        .action-title { color: var(--muted); font-size: .85rem; }
        input[type="text"] { font: inherit; padding: .25rem .45rem; border: 1px solid var(--line); border-radius: 6px;
          background: var(--bg); color: var(--fg); }
        button { font: inherit; padding: .25rem .75rem; border-radius: 6px; border: 1px solid var(--line);
          background: var(--bg); color: var(--fg); cursor: pointer; }
        button.open, button.action { border-color: var(--accent); color: var(--accent); }
        button.destructive { border-color: var(--danger); color: var(--danger); }
        button.clear { font-size: .85rem; }
        button:disabled { opacity: .5; cursor: default; }
        .empty { color: var(--muted); }
        .live { margin-left: auto; font-size: .8rem; color: var(--muted); }
        .live.on::before { content: "● "; color: #34c759; }
        .live.off::before { content: "● "; color: var(--danger); }
        section.error h1 { color: var(--danger); }
        table { width: 100%; border-collapse: collapse; background: var(--card); border-radius: 10px; overflow: hidden; }
        th, td { text-align: left; vertical-align: top; padding: .45rem .6rem; border-bottom: 1px solid var(--line);
          font-size: .9rem; }
        th { color: var(--muted); font-weight: 500; }
        td time { white-space: nowrap; }
        form.app-settings { margin: .2rem 0 .8rem; }
        .request-id { font-family: ui-monospace, monospace; font-size: .85rem; }
        .muted { color: var(--muted); }
        figure.timeline, figure.histogram { margin: 0 0 1.4rem; background: var(--card); border-radius: 10px;
          padding: .5rem .6rem; }
        figcaption { color: var(--muted); font-size: .85rem; margin-bottom: .3rem; }
        svg { width: 100%; height: auto; display: block; }
        svg .grid { stroke: var(--line); stroke-width: 1; }
        svg .axis, svg .label { fill: var(--muted); font-size: 11px; }
        svg .fire { fill: var(--accent); }
        svg .bar { fill: var(--accent); }
        .filters { display: flex; gap: .6rem; align-items: end; margin-bottom: 1rem; flex-wrap: wrap; }
        select { font: inherit; padding: .2rem; }
        form.search { margin: 0; }
        input[type="search"] { font: inherit; padding: .2rem .45rem; border: 1px solid var(--line); border-radius: 6px;
          background: var(--bg); color: var(--fg); width: 14rem; }
        mark { background: #ffd60a; color: #1d1d1f; border-radius: 2px; }
        h2 .muted { font-weight: normal; font-size: .85rem; }
        .unread-count { display: inline-block; min-width: 1.3rem; padding: 0 .35rem; border-radius: .65rem;
          background: var(--accent); color: #fff; font-size: .75rem; font-weight: 600; text-align: center;
          line-height: 1.3rem; vertical-align: middle; }
        .unread-count.none { display: none; }
        .page-head { display: flex; justify-content: space-between; align-items: baseline; }
        .app-buttons { display: flex; gap: .4rem; }
        .app-buttons form { margin: 0; }
        article.notification.unread { box-shadow: inset 3px 0 0 var(--accent), 0 1px 2px rgba(0,0,0,.12); }
        .unread-dot { display: inline-block; width: .55rem; height: .55rem; border-radius: 50%;
          background: var(--accent); margin-right: .4rem; }
        button.mark-read, button.mark-all-read { font-size: .85rem; }
        iframe.extension-view { display: block; width: 100%; height: 9rem; margin-top: .5rem;
          border: 1px solid var(--line); border-radius: 8px; background: #fff; }
        .extension-note { margin: .4rem 0 0; color: var(--muted); font-size: .85rem; font-style: italic; }
        """

    /// `/static/center.js`: plain JavaScript, no dependencies. Without it every page still works (plain forms, a
    /// reload shows what changed).
    static let script = """
        "use strict";
        // A form submits once: its buttons are disabled while the next page loads.
        document.addEventListener("submit", (event) => {
          for (const button of event.target.querySelectorAll("button")) {
            setTimeout(() => { button.disabled = true; }, 0);
          }
        });

        // Live updates: the daemon's /events stream says when something changed; the page's main part is fetched
        // again and swapped in, unless the person is typing or has changed a form (then it waits).
        let dirty = false;
        document.addEventListener("input", () => { dirty = true; });
        document.addEventListener("submit", () => { dirty = false; });
        const live = document.getElementById("live");
        let refreshing = false;
        let again = false;
        async function refresh() {
          if (refreshing) { again = true; return; }
          if (dirty) { setTimeout(refresh, 2000); return; }
          refreshing = true;
          try {
            const response = await fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } });
            if (response.ok) {
              const page = new DOMParser().parseFromString(await response.text(), "text/html");
              const fresh = page.querySelector("main");
              const current = document.querySelector("main");
              if (fresh && current && !dirty) { current.replaceWith(fresh); }
            }
          } finally {
            refreshing = false;
            if (again) { again = false; refresh(); }
          }
        }
        if (live && window.EventSource) {
          const source = new EventSource("/events");
          source.addEventListener("open", () => { live.textContent = "live"; live.className = "live on"; });
          source.addEventListener("error", () => { live.textContent = "reconnecting"; live.className = "live off"; });
          source.addEventListener("delivery", refresh);
          source.addEventListener("change", refresh);
          // The unread counts the daemon keeps: the navigation's total and each app's badge, then the page (not for
          // the counts a fresh stream opens with, which the page already shows).
          let opening = true;
          source.addEventListener("error", () => { opening = false; });
          source.addEventListener("unread", (event) => {
            let counts;
            try { counts = JSON.parse(event.data); } catch { return; }
            const show = (badge, count) => {
              badge.textContent = count > 0 ? String(count) : "";
              badge.classList.toggle("none", count === 0);
            };
            const total = document.getElementById("unread-total");
            if (total) { show(total, counts.total || 0); }
            for (const badge of document.querySelectorAll(".unread-count[data-app]")) {
              show(badge, (counts.apps || {})[badge.dataset.app] || 0);
            }
            if (opening) { opening = false; } else { refresh(); }
          });
        }
        """
}
