// The "Details" group: cost, website, image, and whether the event shows a
// map and a map link (when the write route takes them).
//
// What the API does with each (calendar-api.md §4.3–4.5, §4.8):
// - `cost` comes back formatted ("Free – 30$"), so it is sent only when the
//   user changed it: an update without it keeps the stored cost.
// - `website`, `show_map` and `show_map_link` are reset by an update that
//   omits them, so they are always sent. A record without a website of its
//   own shows the event's page URL: shown here as empty.
// - `image` is an attachment ID or an image URL (imported by the server);
//   "" removes it; omitted on update, it stays. Sent only when changed.

import { field, FieldErrors, h, uid } from "./dom.js";

export const DETAIL_FIELDS = ["cost", "website", "image", "show_map", "show_map_link"];

/** The detail fields the write route offers (an older server may lack show_map_link). */
export function detailFields(args) {
  if (!args || typeof args !== "object" || Object.keys(args).length === 0) return DETAIL_FIELDS;
  return DETAIL_FIELDS.filter((name) => name in args);
}

function sameOrigin(url) {
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

export function renderDetails(ctx) {
  const record = ctx.record;
  const fields = detailFields(ctx.args);
  const errors = new FieldErrors();
  const controls = {};
  const parts = [];

  // ---- cost ----
  const initialCost = record && typeof record.cost === "string" ? record.cost : "";
  if (fields.includes("cost")) {
    controls.cost = h("input", { type: "text", value: initialCost, autocomplete: "off", inputmode: "text" });
    parts.push(field({ label: "Cost", control: controls.cost, name: "cost", errors, hint: "A price (15, €15, 20$), a range (10-20) or words such as Free or Donation." }));
  }

  // ---- website ----
  const ownWebsite = record && typeof record.website === "string" && record.website !== record.url ? record.website : "";
  if (fields.includes("website")) {
    controls.website = h("input", { type: "url", value: ownWebsite, autocomplete: "url", inputmode: "url", placeholder: "https://" });
    parts.push(field({ label: "Website", control: controls.website, name: "website", errors, hint: "The event's own page elsewhere (tickets, the organizer's site)." }));
  }

  // ---- image ----
  const image = record && record.image && typeof record.image === "object" ? record.image : null;
  let removeImage = false;
  if (fields.includes("image")) {
    controls.image = h("input", { type: "text", inputmode: "url", autocomplete: "off", placeholder: "https://… or an attachment ID" });
    const imageField = field({
      label: image ? "Replace the image" : "Image",
      control: controls.image,
      name: "image",
      errors,
      hint: "An image URL (the server fetches it; it must be public) or the ID of an image already uploaded.",
    });
    if (image) {
      const current = h("div", { class: "cal-image-current" });
      const url = typeof image.url === "string" ? image.url : "";
      // Images from elsewhere are not loaded (the page's CSP allows its own server only): their address is shown.
      if (url && sameOrigin(url)) current.append(h("img", { src: url, alt: "The event's current image", class: "cal-image-thumb" }));
      current.append(h("p", {}, "Current image: ", url ? h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, url.split("/").pop() || url) : `#${image.id}`));
      const removeButton = h("button", { type: "button", class: "cal-button", "aria-pressed": "false" }, "Remove the image");
      removeButton.addEventListener("click", () => {
        removeImage = !removeImage;
        removeButton.setAttribute("aria-pressed", removeImage ? "true" : "false");
        removeButton.textContent = removeImage ? "Keep the image" : "Remove the image";
        current.classList.toggle("cal-removed", removeImage);
        ctx.changed();
      });
      current.append(removeButton);
      imageField.insertBefore(current, imageField.firstChild);
    }
    parts.push(imageField);
  }

  // ---- map flags ----
  const flag = (name, label, hint) => {
    // Records show true when never stored; a new event starts with both on.
    const checked = record ? record[name] !== false : true;
    const control = h("input", { type: "checkbox", checked });
    control.id = uid(name);
    controls[name] = control;
    const hintLine = h("p", { class: "cal-hint", id: `${control.id}-hint` }, hint);
    const err = h("p", { class: "cal-error", id: `${control.id}-error`, hidden: true });
    control.setAttribute("aria-describedby", hintLine.id);
    errors.add(name, control, err);
    return h("div", { class: "cal-field cal-check" }, control, h("label", { for: control.id }, label), hintLine, err);
  };
  if (fields.includes("show_map")) parts.push(flag("show_map", "Show a map", "A map of the venue on the event's page."));
  if (fields.includes("show_map_link")) parts.push(flag("show_map_link", "Show a map link", "A link to the venue on a map site."));

  const element = h("div", { class: "cal-group cal-details" }, parts);
  for (const control of Object.values(controls)) {
    control.addEventListener(control.type === "checkbox" ? "change" : "input", () => ctx.changed());
  }

  return {
    element,
    value() {
      const out = {};
      if (controls.cost) {
        const cost = controls.cost.value.trim();
        if (ctx.mode === "create" ? cost !== "" : cost !== initialCost.trim()) out.cost = cost;
      }
      if (controls.website) out.website = controls.website.value.trim();
      if (controls.image) {
        const typed = controls.image.value.trim();
        if (typed !== "") out.image = /^\d+$/.test(typed) ? Number(typed) : typed;
        else if (removeImage) out.image = "";
      }
      if (controls.show_map) out.show_map = controls.show_map.checked;
      if (controls.show_map_link) out.show_map_link = controls.show_map_link.checked;
      return out;
    },
    showErrors(params) {
      for (const name of fields) errors.show(name, typeof params?.[name] === "string" ? params[name] : "");
    },
    focus(name) {
      const control = controls[name] ?? Object.values(controls)[0];
      control?.focus();
      return Boolean(control);
    },
  };
}
