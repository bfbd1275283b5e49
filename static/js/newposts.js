// "n new posts" on the news feed (docs/features.md#interactions). While the tab is visible,
// ask `data-new-url` every `data-poll-ms` how many posts the feed would show
// above its first one (`data-since`); offer them in a button that loads them
// above the posts already on the page, without moving the post the reader is
// looking at. Without this file the feed works as before: a reload shows them.
// While static/js/live.js holds the page's live stream open (`data-live` on
// <html>), it asks at once when told of a post ("live:feed"), and the poll
// only backs the stream up, ten times slower.
(() => {
  const list = document.querySelector(".feed-list[data-new-url]");
  if (!list) return;
  const button = list.querySelector(".new-posts__button");
  const every = Math.max(Number(list.dataset.pollMs) || 30000, 1000);
  const live = () => document.documentElement.dataset.live === "open";
  let timer = null;
  let asking = false;
  // Told of a post while asking: the answer may predate it, so ask again.
  let again = false;
  let stopped = false;
  // After a load while the reader is further down: the first post it added.
  let added = null;

  const label = (count, more) =>
    `${count}${more ? "+" : ""} new post${count === 1 && !more ? "" : "s"}`;

  const offer = (text) => {
    button.textContent = text;
    button.hidden = !text;
  };

  async function poll() {
    if (stopped) return;
    if (asking) {
      again = true;
      return;
    }
    asking = true;
    again = false;
    try {
      const url = `${list.dataset.newUrl}?since=${encodeURIComponent(list.dataset.since)}`;
      const response = await fetch(url, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
        cache: "no-store",
      });
      if (response.status === 400 || response.status === 403) {
        // Signed out, or a cursor the server refuses: asking again won't help.
        stopped = true;
        schedule();
        return;
      }
      if (!response.ok) return;
      const body = await response.json();
      if (body.count > 0) {
        added = null;
        offer(label(body.count, body.more));
      } else if (!added) {
        offer("");
      }
    } catch (error) {
      // Offline or the server is restarting: the next tick asks again.
    } finally {
      asking = false;
      if (again) poll();
    }
  }

  // Poll only while the tab is visible; on coming back, ask at once.
  function schedule() {
    clearInterval(timer);
    timer = null;
    if (!stopped && document.visibilityState === "visible") {
      timer = setInterval(poll, live() ? every * 10 : every);
    }
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") poll();
    schedule();
  });
  // A hidden tab asks when it is shown again (above).
  document.addEventListener("live:feed", () => {
    if (document.visibilityState === "visible") poll();
  });
  document.addEventListener("live:state", schedule);
  schedule();

  async function load() {
    const posts = list.querySelector(".posts");
    const page = await fetch(window.location.pathname, {
      credentials: "same-origin",
      cache: "no-store",
    })
      .then((response) => (response.ok ? response.text() : null))
      .catch(() => null);
    const parsed = page && new DOMParser().parseFromString(page, "text/html");
    const fresh = parsed && parsed.querySelector(".feed-list");
    const first = posts.querySelector("article.post");
    const newer = [];
    let reached = !first;
    for (const article of fresh ? fresh.querySelectorAll(".posts > article.post") : []) {
      if (first && article.id === first.id) {
        reached = true;
        break;
      }
      if (!document.getElementById(article.id)) newer.push(article);
    }
    if (!fresh || !reached) {
      // More new posts than one page holds (or the page failed): the top of
      // a fresh feed is the honest way to show them all.
      window.location.assign(window.location.pathname);
      return;
    }
    // Keep the reader's place: once they have scrolled into the list, the
    // post in view stays where it is while posts are added above it.
    const anchor = first && list.getBoundingClientRect().top < 0 ? first : null;
    const before = anchor ? anchor.getBoundingClientRect().top : 0;
    const empty = posts.querySelector(".empty");
    if (empty && newer.length) empty.remove();
    newer.forEach((article) => {
      const copy = document.importNode(article, true);
      posts.insertBefore(copy, first);
    });
    if (anchor) window.scrollBy(0, anchor.getBoundingClientRect().top - before);
    list.dataset.since = fresh.dataset.since;
    if (newer.length) document.dispatchEvent(new CustomEvent("content:added"));
    const top = posts.querySelector("article.post");
    if (!top || !newer.length) {
      offer("");
      return;
    }
    top.tabIndex = -1;
    if (anchor) {
      // They are above the reader now: the button takes the reader up there.
      added = top;
      offer(`Show the ${label(newer.length, false)} above`);
    } else {
      offer("");
      top.focus({ preventScroll: true });
    }
  }

  button.addEventListener("click", async () => {
    if (added) {
      const target = added;
      added = null;
      offer("");
      target.scrollIntoView({ block: "start" });
      target.focus({ preventScroll: true });
      return;
    }
    button.disabled = true;
    try {
      await load();
    } finally {
      button.disabled = false;
    }
  });
})();
