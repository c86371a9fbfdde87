// One event type's screen (docs/event-types.md): its validation, state and the schema of each
// version, opened from the catalog, a room's settings or an address (#/event-types/<name>).

import { api, apiPath } from "./api.js";
import { code, details, h } from "./dom.js";
import { time } from "./format.js";
import { setBreadcrumb } from "./header.js";

export async function eventTypeView(current, name) {
  const type = await api("GET", `event-types/${apiPath(name)}`);
  setBreadcrumb([["Rooms", "#/rooms"], ["Event types", "#/event-types"], [type.name, `#/event-types/${encodeURIComponent(type.name)}`]]);
  const schemas = Object.entries(type.schemas ?? {});
  return [
    h("h1", { tabindex: "-1" }, `Event type ${type.name}`),
    details([
      ["Name", code(type.name)],
      ["Description", type.description || "none"],
      ["Validation", `${type.validation}: what a publish whose payload breaks its version's schema gets`],
      ["State", type.archived ? "archived" : type.deprecated ? "deprecated" : "in use"],
      ["Schema versions", type.versions.length ? type.versions.join(", ") : "none"],
      ["Created", time(type.createdAt)],
      ["Updated", time(type.updatedAt)],
    ]),
    h("section", { "aria-labelledby": "schemas-title" },
      h("h2", { id: "schemas-title" }, "Schemas"),
      schemas.length === 0
        ? h("p", { class: "empty" }, "No schema: any payload is accepted.")
        : schemas.map(([version, schema]) =>
          h("details", { open: true }, h("summary", {}, `Version ${version}`), h("pre", {}, JSON.stringify(schema, null, 2))))),
  ];
}
