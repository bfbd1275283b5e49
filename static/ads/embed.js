// Socialsite ads: fills every <div data-ad-site="..." data-ad-zone="..."> on
// the page (optional data-ad-kw="car,style" and data-ad-n="1".."10") with ads
// from the /ads/serve/ of the server this script came from. See the README,
// "Ads on your site".
//
// The DOM is built with textContent only (an ad's text is never HTML), there
// is no inline script or style (CSP), and an ad's view is reported once, when
// at least half of it is on screen. Another site's request carries no cookies
// (the fetch's default "same-origin" credentials), so it learns nothing about
// its visitors from us and we nothing from it but the ads asked for.
(() => {
  "use strict";
  const script = document.currentScript;
  const origin = script && script.src ? new URL(script.src).origin : window.location.origin;
  const serveUrl = new URL("/ads/serve/", origin);

  const seen = "IntersectionObserver" in window
    ? new IntersectionObserver((entries, observer) => {
      entries.forEach((entry) => {
        if (entry.isIntersecting && entry.intersectionRatio >= 0.5) {
          observer.unobserve(entry.target);
          reportView(entry.target);
        }
      });
    }, { threshold: 0.5 })
    : null;

  function reportView(aside) {
    const url = aside.dataset.viewUrl;
    if (!url) return;
    delete aside.dataset.viewUrl;  // once per ad
    fetch(url, { credentials: "omit", keepalive: true }).catch(() => {});
  }

  function element(tag, className, text) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    if (text) el.textContent = text;
    return el;
  }

  function hostOf(url) {
    try { return new URL(url).hostname.replace(/^www\./, ""); } catch { return ""; }
  }

  function isHttp(url) {
    try { return ["http:", "https:"].includes(new URL(url).protocol); } catch { return false; }
  }

  function render(ad, index, total) {
    const aside = element("aside", "ad");
    aside.dataset.campaign = ad.campaign_id;
    aside.dataset.adUnit = ad.ad_unit_id;
    // Landmarks on one page need distinct names when several ads share a slot.
    aside.setAttribute("aria-label", total > 1 ? `Sponsored (${index + 1} of ${total})` : "Sponsored");
    aside.appendChild(element("p", "ad__label", "Sponsored"));

    const link = element("a", "ad__link");
    link.href = ad.click_url;
    link.rel = "sponsored noopener";
    if (ad.image && isHttp(ad.image)) {
      const img = element("img", "ad__image");
      img.src = ad.image;
      img.alt = "";  // decorative: the title says what the ad is
      img.loading = "lazy";
      img.referrerPolicy = "no-referrer";
      // A page whose CSP refuses the image's host shows the ad without it.
      img.addEventListener("error", () => img.remove());
      link.appendChild(img);
    }
    link.appendChild(element("span", "ad__title", ad.title));
    const host = hostOf(ad.url);
    if (host) link.appendChild(element("span", "ad__host", host));
    aside.appendChild(link);
    if (ad.text) aside.appendChild(element("p", "ad__text", ad.text));

    const why = element("details", "ad__why");
    why.appendChild(element("summary", "", "Why this ad?"));
    why.appendChild(element("p", "", ad.why));
    aside.appendChild(why);

    aside.dataset.viewUrl = ad.view_url;
    return aside;
  }

  function count(slot) {
    const n = Number.parseInt(slot.dataset.adN || "1", 10);
    return Number.isInteger(n) && n >= 1 && n <= 10 ? n : 1;
  }

  function fill(slot) {
    if (slot.dataset.adFilled) return;  // the script may be included twice
    slot.dataset.adFilled = "pending";
    const url = new URL(serveUrl);
    url.searchParams.set("site", slot.dataset.adSite);
    url.searchParams.set("zone", slot.dataset.adZone);
    (slot.dataset.adKw || "").split(",").map((k) => k.trim()).filter(Boolean).slice(0, 20)
      .forEach((k) => url.searchParams.append("kw", k));
    url.searchParams.set("n", String(count(slot)));
    fetch(url)
      .then((response) => (response.ok ? response.json() : { ads: [] }))
      .then((body) => {
        const ads = Array.isArray(body.ads) ? body.ads : [];
        slot.replaceChildren(...ads.map((ad, i) => render(ad, i, ads.length)));
        slot.dataset.adFilled = "done";
        slot.querySelectorAll("aside.ad").forEach((aside) => {
          if (seen) seen.observe(aside); else reportView(aside);
        });
      })
      .catch(() => { slot.dataset.adFilled = "failed"; });
  }

  function fillAll() {
    document.querySelectorAll("div[data-ad-site][data-ad-zone]").forEach(fill);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", fillAll);
  } else {
    fillAll();
  }
})();
