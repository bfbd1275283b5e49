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
