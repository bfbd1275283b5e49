// Progressive enhancement only: every form works without this file.
// Confirm destructive actions. Delegated, so forms added to the page later
// (new posts, comments, messages: static/js/newposts.js, live.js) ask too.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }
});
document.addEventListener("DOMContentLoaded", () => {
  // Relative times refresh while the page stays open.
  const units = [["year", 31536000], ["month", 2592000], ["week", 604800], ["day", 86400], ["hour", 3600], ["minute", 60]];
  const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
  const tick = () => document.querySelectorAll("time[data-relative]").forEach((el) => {
    const seconds = (new Date(el.getAttribute("datetime")) - Date.now()) / 1000;
    for (const [unit, size] of units) {
      if (Math.abs(seconds) >= size) { el.textContent = rtf.format(Math.round(seconds / size), unit); return; }
    }
    el.textContent = "just now";
  });
  tick();
  setInterval(tick, 60000);
  // Times in what a script added to the page (static/js/live.js, newposts.js).
  document.addEventListener("content:added", tick);
});

// The composer shows only the fields of the chosen kind of post.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("form.composer").forEach((form) => {
    const sync = () => {
      const chosen = form.querySelector('input[name="type"]:checked');
      const type = chosen ? chosen.value : "status";
      form.querySelectorAll(".composer__extra").forEach((box) => {
        box.hidden = box.dataset.for !== type;
      });
    };
    form.querySelectorAll('input[name="type"]').forEach((r) => r.addEventListener("change", sync));
    sync();
    // The one-time key (socialsite/once.py): set by script, so that a
    // browser going Back restores it with the words; if it restored one,
    // that one stays and a second Post is known as the same post.
    const once = form.querySelector('input[name="once"]');
    if (once && !once.value) once.value = once.dataset.once;
    // Folded to its text box on a phone (site.css) until first touched; it
    // stays open after, so a tap on a kind of post does not fold it away.
    form.classList.add("composer--folded");
    form.addEventListener("focusin", () => form.classList.remove("composer--folded"), { once: true });
  });
});

// Check-ins: "Use my location" fills in the coordinates from the browser.
// Without this script (or without a secure context) people type them, or
// give the place name alone.
document.addEventListener("DOMContentLoaded", () => {
  if (!window.isSecureContext || !("geolocation" in navigator)) return;
  document.querySelectorAll("form.composer [data-locate]").forEach((button) => {
    const form = button.closest("form");
    const status = form.querySelector("[data-locate-status]");
    button.closest(".composer__locate").hidden = false;
    button.addEventListener("click", () => {
      button.disabled = true;
      status.textContent = "Finding your location…";
      navigator.geolocation.getCurrentPosition(
        (position) => {
          form.querySelector('input[name="lat"]').value = position.coords.latitude.toFixed(6);
          form.querySelector('input[name="lng"]').value = position.coords.longitude.toFixed(6);
          status.textContent = "Location filled in.";
          button.disabled = false;
        },
        (error) => {
          status.textContent = error.code === error.PERMISSION_DENIED
            ? "Location access was not allowed. You can type the coordinates, or leave them out."
            : "Your location could not be found. You can type the coordinates, or leave them out.";
          button.disabled = false;
        },
        { timeout: 15000, maximumAge: 60000 },
      );
    });
  });
});

// Likes: the like button's form is sent in the background and every copy of
// the post on the page (its button, its count, the article's data-likes)
// changes in place. Without this script the form posts and the page comes
// back (302 to `next`). Delegated, so posts added to the page later work too.
document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.classList.contains("like-form")) return;
  event.preventDefault();
  const button = form.querySelector("button.like");
  if (button.disabled) return;
  button.disabled = true;
  const token = form.querySelector('input[name="csrfmiddlewaretoken"]');
  let data = null;
  try {
    const response = await fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { Accept: "application/json", "X-CSRFToken": token ? token.value : "" },
      credentials: "same-origin",
    });
    if ((response.headers.get("Content-Type") || "").startsWith("application/json")) {
      data = await response.json();
    }
  } catch (error) {
    data = null;
  }
  button.disabled = false;
  if (!data) {
    // Signed out meanwhile, or the network failed: let the browser post it.
    form.submit();
    return;
  }
  let note = form.querySelector(".like__error");
  if (data.error) {
    if (!note) {
      note = document.createElement("span");
      note.className = "like__error danger small";
      note.setAttribute("role", "alert");
      form.append(note);
    }
    note.textContent = data.error;
    return;
  }
  if (note) note.remove();
  const article = form.closest("article.post");
  const copies = article
    ? [...document.querySelectorAll("article.post")].filter((a) => a.dataset.postId === article.dataset.postId)
    : [];
  copies.forEach((copy) => { copy.dataset.likes = String(data.likes); });
  const forms = copies.length ? copies.flatMap((copy) => [...copy.querySelectorAll("form.like-form")]) : [form];
  // No count at zero: "0 likes" on every card says nothing (as the page renders it).
  const label = data.likes ? `${data.likes} like${data.likes === 1 ? "" : "s"}` : "";
  forms.forEach((each) => {
    each.action = data.liked ? each.dataset.unlikeUrl : each.dataset.likeUrl;
    const toggle = each.querySelector("button.like");
    toggle.classList.toggle("like--on", data.liked);
    toggle.setAttribute("aria-pressed", String(data.liked));
    each.querySelector(".like__count").textContent = label;
  });
});

// Report links (a conversation's messages): the page carries one report
// dialog (templates/moderation/_report_dialog.html); a link opens it aimed at
// its own item instead of leaving for the report page it names, which is
// where it leads without this script. Cancel and Escape close the dialog,
// and the browser gives the focus back to the link.
document.addEventListener("click", (event) => {
  const link = event.target instanceof Element ? event.target.closest("a[data-report]") : null;
  const dialog = document.getElementById("report-dialog");
  if (!link || !dialog || typeof dialog.showModal !== "function") return;
  const form = dialog.querySelector("form");
  const target = new URL(link.href, document.baseURI).searchParams.get("target");
  if (!form || !target) return;
  event.preventDefault();
  form.reset();
  form.elements.namedItem("target").value = target;
  const hidden = link.querySelector(".visually-hidden");
  dialog.querySelector("[data-report-what]").textContent = hidden ? `Reporting ${hidden.textContent.trim()}.` : "";
  dialog.showModal();
});
