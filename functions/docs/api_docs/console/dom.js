// Building the page with DOM calls. Every text (from the API above all) goes in as a text node,
// never parsed as HTML.

const SVG = "http://www.w3.org/2000/svg";

export const byId = (id) => document.getElementById(id);

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  element.append(...flatten(children));
  return element;
}

export function s(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  setAttributes(element, attributes);
  element.append(...flatten(children));
  return element;
}

function setAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
}

export function flatten(children) {
  return children
    .flat(Infinity)
    .filter((child) => child !== undefined && child !== null && child !== false)
    .map((child) => (child instanceof Node ? child : String(child)));
}

export function table(caption, headers, rows, empty) {
  if (rows.length === 0) return h("p", { class: "empty" }, empty);
  return h(
    "table",
    {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, headers.map((header) => h("th", { scope: "col" }, header)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell) => h("td", {}, cell))))),
  );
}

export function details(pairs) {
  return h(
    "dl",
    { class: "facts" },
    pairs.filter(([, value]) => value !== undefined).map(([term, value]) => [h("dt", {}, term), h("dd", {}, value ?? "—")]),
  );
}

export function field(label, input, hint) {
  const id = input.id;
  const hintId = hint ? `${id}-hint` : null;
  if (hintId) input.setAttribute("aria-describedby", hintId);
  return h("div", { class: "field" }, h("label", { for: id }, label), input, hint && h("p", { class: "hint", id: hintId }, hint));
}

export function input(id, attributes = {}) {
  return h("input", { id, name: id, ...attributes });
}

export function badge(status) {
  return h("span", { class: `badge badge-${status}` }, status);
}

export function link(href, text) {
  return h("a", { href }, text);
}

export function code(text) {
  return h("code", {}, text);
}

// Replaces a region's content only when its data changed, so focus and scroll stay put.
export function region(attributes = {}) {
  const element = h("div", attributes);
  let shown = null;
  element.show = (data, build) => {
    const key = JSON.stringify(data);
    if (key === shown) return;
    shown = key;
    element.replaceChildren(...flatten([build(data)]));
  };
  return element;
}
