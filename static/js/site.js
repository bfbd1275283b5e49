// Progressive enhancement only: every form works without this file.
document.addEventListener("DOMContentLoaded", () => {
  // Confirm destructive actions.
  document.querySelectorAll("form[data-confirm]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  });
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
  });
});
