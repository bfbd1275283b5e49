// Live updates (docs/live.md#in-the-browser): one EventSource per tab to
// `data-stream` (live/views.py). An event only says what changed; the page
// then reads it through the URLs it uses without the stream, which apply
// every rule of the page: the header's counts (`data-live-counts`), the news
// feed's "N new posts" (static/js/newposts.js, told by "live:feed"), an open
// conversation's new messages, a post's new comments.
// Without EventSource, or under a server that holds no stream (WSGI answers
// `retry:` and ends, so no `ready` comes), nothing here happens: the feed
// polls, and the rest changes on the next page. After a dropped connection
// or a `resync`, everything is read once afresh, so nothing is missed.
(() => {
  const script = document.currentScript;
  if (!script || !script.dataset.stream || !("EventSource" in window)) return;
  const root = document.documentElement;
  const feed = document.querySelector(".feed-list[data-new-url]");
  const thread = document.querySelector(".thread[data-live-post]");
  const list = document.querySelector(".message-list[data-newer-url]");
  const conversation = list && list.closest("[data-conversation-id]");
  // A stream that failed for good (signed out, a proxy's error page) is
  // tried again after this long; a dropped one EventSource retries itself.
  const RETRY_MS = 60000;

  const get = (url, type) =>
    fetch(url, { headers: { Accept: type }, credentials: "same-origin", cache: "no-store" })
      .then((response) => (response.ok && !response.redirected ? response : null))
      .catch(() => null);
  const parse = (html) => new DOMParser().parseFromString(html, "text/html");
  const tell = (name) => document.dispatchEvent(new CustomEvent(name));

  // One read of a kind at a time; asked again meanwhile, it reads once more
  // after, since the answer on its way may predate what it was told.
  const once = (read) => {
    let running = false;
    let again = false;
    return async () => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          // A failed read (the network went away) is read again on the next
          // event, or on the catch-up once the stream is back.
          await read().catch(() => {});
        } while (again);
      } finally {
        running = false;
      }
    };
  };

  // A read that moves something on the server (a conversation read) waits
  // until the reader looks at the tab.
  let onShow = new Set();
  const whenShown = (read) => {
    if (document.visibilityState === "visible") read();
    else onShow.add(read);
  };
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible") return;
    const due = onShow;
    onShow = new Set();
    due.forEach((read) => read());
  });

  // --- The header's counts ------------------------------------------------
  // Each `data-live-count` element shows its count as the header renders it
  // (templates/_topbar.html); a visually hidden status says when one rises.
  const said = document.createElement("p");
  said.className = "visually-hidden";
  said.setAttribute("role", "status");
  (document.querySelector("header.topbar") || document.body).append(said);
  const known = {};
  document.querySelectorAll("header [data-live-count][data-unread]").forEach((el) => {
    known[el.dataset.liveCount] = Number(el.dataset.unread) || 0;
  });

  function show(el, count) {
    if ("unread" in el.dataset) el.dataset.unread = String(count);
    let badge = el.querySelector(".notifications__count");
    if (!count) {
      if (badge) {
        const before = badge.previousSibling;
        if (before && before.nodeType === Node.TEXT_NODE) before.textContent = before.textContent.trimEnd();
        badge.remove();
      }
      return;
    }
    const menu = el.tagName === "SUMMARY";
    if (!badge) {
      badge = document.createElement("span");
      badge.className = menu ? "notifications__count menu__badge" : "notifications__count";
      el.append(" ", badge);
    }
    badge.textContent = String(count);
    badge.setAttribute("aria-label", menu ? `${count} unread messages` : `${count} unread`);
  }

  const counts = once(async () => {
    const response = await get(script.dataset.liveCounts, "application/json");
    const body = response && (await response.json().catch(() => null));
    if (!body) return;
    const news = [];
    for (const [kind, noun] of [["notifications", "notification"], ["messages", "message"]]) {
      const count = Math.max(Number(body[kind]) || 0, 0);
      if (count > (known[kind] || 0)) news.push(`${count} unread ${noun}${count === 1 ? "" : "s"}`);
      known[kind] = count;
      document.querySelectorAll(`header [data-live-count="${kind}"]`).forEach((el) => show(el, count));
    }
    if (news.length) said.textContent = news.join(", ");
  });

  // --- An open conversation -----------------------------------------------
  // The messages after the page's last (`data-after`), as the page's own
  // list items (messaging/views.py `newer`); reading them reads the
  // conversation, as opening the page does, so the counts follow.
  function add(items) {
    const newer = items.filter(
      (li) => li.dataset.messageId && !list.querySelector(`[data-message-id="${CSS.escape(li.dataset.messageId)}"]`),
    );
    if (!newer.length) return;
    // A reader at the end of the list stays there: what came goes above the
    // form, the older messages move up. One reading further up stays put.
    const atEnd = list.getBoundingClientRect().bottom <= window.innerHeight + 48;
    const height = list.offsetHeight;
    const empty = list.querySelector(".empty");
    if (empty) empty.remove();
    newer.forEach((li) => {
      li.removeAttribute("id");
      list.append(document.importNode(li, true));
    });
    const last = [...list.querySelectorAll("li.dm")].pop();
    const latest = document.getElementById("latest");
    if (last && latest !== last) {
      if (latest) latest.removeAttribute("id");
      last.id = "latest";
    }
    if (atEnd) window.scrollBy(0, list.offsetHeight - height);
    tell("content:added");
  }

  const messages = once(async () => {
    // A burst longer than a page is read a page at a time, a few at most.
    for (let pages = 0; pages < 5; pages += 1) {
      const url = new URL(list.dataset.newerUrl, window.location.href);
      if (list.dataset.after) url.searchParams.set("after", list.dataset.after);
      const response = await get(url, "text/html");
      const fresh = response && parse(await response.text()).querySelector("ol.message-list");
      if (!fresh) break;
      add([...fresh.children]);
      if (fresh.dataset.after) list.dataset.after = fresh.dataset.after;
      if (!("more" in fresh.dataset)) break;
    }
    counts();
  });

  // --- A post's new comments ----------------------------------------------
  // The page itself, read again: the comments its thread would show now
  // that this one does not are offered, and "show" puts the fresh thread
  // in, keeping what the reader typed or opened. Those the stream told of
  // (by slug) that belong on another page of this order are looked for on
  // the newest-first page, and "show" goes there. One that neither shows
  // (a keyword filter hides it, it was deleted) is not offered.
  const offerButton = thread && thread.querySelector(".new-comments__button");
  const told = new Set();
  let held = null;
  const offer = (count) => {
    offerButton.textContent = count ? `${count} new comment${count === 1 ? "" : "s"} — show` : "";
    offerButton.hidden = !count;
  };
  const shown = (slug) => document.querySelector(`article.comment[data-slug="${CSS.escape(slug)}"]`);
  const pageAt = async (search) => {
    const response = await get(window.location.pathname + search, "text/html");
    return response && parse(await response.text());
  };
  const threadIn = (page) => page && page.querySelector(".thread[data-live-post]");
  const slugsIn = (box) => new Set([...box.querySelectorAll(".comments article.comment")].map((a) => a.dataset.slug));

  const comments = once(async () => {
    const asked = [...told];
    told.clear();
    const page = await pageAt(window.location.search);
    const fresh = threadIn(page);
    if (!fresh) return;
    const added = [...fresh.querySelectorAll(".comments article.comment[id]")]
      .map((article) => article.id)
      .filter((id) => !document.getElementById(id));
    const here = slugsIn(fresh);
    const away = asked.filter((slug) => !here.has(slug) && !shown(slug));
    const elsewhere = new Set(held ? held.elsewhere : []);
    if (away.length) {
      const newest = threadIn(await pageAt("?order=newest"));
      const there = newest ? slugsIn(newest) : new Set();
      away.filter((slug) => there.has(slug)).forEach((slug) => elsewhere.add(slug));
    }
    // The post's own count of comments, on its card, follows too.
    const count = page.querySelector(`article.post[data-post-id="${CSS.escape(thread.dataset.livePost)}"] .post__comments`);
    held = { fresh, count, added, elsewhere };
    offer(added.length + elsewhere.size);
  });

  // A <details> (a reply or edit form, a folded comment) by its comment and place in it.
  const keyOf = (details, box) => {
    const article = details.closest("article.comment");
    return `${article ? article.id : ""}:${[...(article || box).querySelectorAll("details")].indexOf(details)}`;
  };

  function showComments() {
    const { fresh, count, added, elsewhere } = held;
    held = null;
    offer(0);
    if (elsewhere.size) {
      // To the newest of them, first on the newest-first page.
      const newest = [...elsewhere].pop().replaceAll("/", "");
      window.location.assign(`${window.location.pathname}?order=newest#c-${newest}`);
      return;
    }
    if (!added.length) return;
    const box = thread.querySelector(".comments");
    const typed = [...box.querySelectorAll("textarea")].filter((t) => t.value !== t.defaultValue);
    const open = new Set([...box.querySelectorAll("details[open]")].map((details) => keyOf(details, box)));
    const next = document.importNode(fresh.querySelector(".comments"), true);
    box.replaceWith(next);
    typed.forEach((old) => {
      const kept = old.id && document.getElementById(old.id);
      if (kept) kept.value = old.value;
    });
    next.querySelectorAll("details").forEach((details) => {
      if (open.has(keyOf(details, next))) details.open = true;
    });
    // The counts and the pager follow the fresh thread.
    const card = document.querySelector(`article.post[data-post-id="${CSS.escape(thread.dataset.livePost)}"] .post__comments`);
    if (card && count) card.replaceWith(document.importNode(count, true));
    const heading = fresh.querySelector(".thread__head h2");
    if (heading) thread.querySelector(".thread__head h2").replaceWith(document.importNode(heading, true));
    const pager = thread.querySelector(":scope > nav.pager");
    const freshPager = fresh.querySelector(":scope > nav.pager");
    if (pager) pager.remove();
    if (freshPager) next.after(document.importNode(freshPager, true));
    added.forEach((id) => document.getElementById(id).classList.add("comment--new"));
    tell("content:added");
    // The reader (who pressed "show") is taken to the first of them.
    const first = document.getElementById(added[0]);
    first.tabIndex = -1;
    first.focus({ preventScroll: true });
    first.scrollIntoView({ block: "center" });
  }

  if (offerButton) offerButton.addEventListener("click", () => held && showComments());

  // --- The stream ---------------------------------------------------------
  const url = new URL(script.dataset.stream, window.location.href);
  if (thread) url.searchParams.set("post", thread.dataset.livePost);
  if (feed) url.searchParams.set("feed", "1");
  const state = (value) => {
    if (root.dataset.live === value) return;
    root.dataset.live = value;
    tell("live:state");
  };
  const read = (event) => {
    try {
      return JSON.parse(event.data) || {};
    } catch (error) {
      return {};
    }
  };
  const onThisPage = (event) => conversation && read(event).conversation === conversation.dataset.conversationId;

  // Read everything this page shows afresh. On the stream's first opening
  // only what costs little (what changed while the page was on its way);
  // after a drop or a `resync`, the comments too.
  function catchUp(all) {
    tell("live:feed");
    if (list) conversationRead();
    else counts();
    if (all && thread) comments();
  }

  // The open conversation's new messages, read (then the counts) when the
  // tab is shown; meanwhile its count shows it unread.
  function conversationRead() {
    if (document.visibilityState !== "visible") counts();
    whenShown(messages);
  }

  let source = null;
  let served = false;
  function connect() {
    source = new EventSource(url, { withCredentials: true });
    source.addEventListener("ready", () => {
      state("open");
      catchUp(served);
      served = true;
    });
    source.addEventListener("error", () => {
      state("closed");
      if (source && source.readyState === EventSource.CLOSED) {
        source = null;
        setTimeout(() => source || connect(), RETRY_MS);
      }
    });
    source.addEventListener("resync", () => catchUp(true));
    source.addEventListener("feed", () => tell("live:feed"));
    source.addEventListener("notification", () => counts());
    source.addEventListener("message", (event) => {
      if (onThisPage(event)) conversationRead();
      else counts();
    });
    source.addEventListener("comment", (event) => {
      if (!thread) return;
      const slug = read(event).slug;
      if (typeof slug === "string") told.add(slug);
      comments();
    });
  }

  // Closed while the page is in the back/forward cache, opened again after.
  window.addEventListener("pagehide", () => {
    if (source) source.close();
    source = null;
    state("closed");
  });
  window.addEventListener("pageshow", (event) => {
    if (event.persisted && !source) connect();
  });
  connect();
})();
