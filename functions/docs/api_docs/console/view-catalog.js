// The event-type catalog's screen (docs/event-types.md): the tenant's event types, a form to add
// one with a schema, and a form to check a payload against a schema without publishing.

import { api, apiPath, PAGE_SIZE } from "./api.js";
import { code, field, h, input, link, region, table } from "./dom.js";
import { VALIDATION_MODES } from "./enums.js";
import { parseJson } from "./filters.js";
import { submitForm } from "./forms.js";
import { time } from "./format.js";
import { setBreadcrumb } from "./header.js";

function catalogTable({ eventTypes, nextCursor }) {
  return [
    table("Event types", ["Name", "Validation", "Schema versions", "Deprecated", "Updated"], eventTypes.map((type) => [
      link(`#/event-types/${encodeURIComponent(type.name)}`, type.name),
      type.validation,
      type.versions.length ? type.versions.join(", ") : "none",
      type.deprecated ? "deprecated" : "",
      time(type.updatedAt),
    ]), "The catalog is empty: add an event type below."),
    nextCursor && h("p", { class: "hint" }, `The first ${PAGE_SIZE} event types are shown.`),
  ];
}

export async function catalogView() {
  setBreadcrumb([["Rooms", "#/rooms"], ["Event types", "#/event-types"]]);
  const list = region();
  const load = async () => list.show(await api("GET", "event-types", { query: { limit: PAGE_SIZE } }), catalogTable);
  await load();
  return [
    h("h1", { tabindex: "-1" }, "Event types"),
    h("p", {}, "Your tenant's catalog: a schema per version of each event type, and what a publish that breaks it gets."),
    list,
    createForm(load),
    validateForm(),
  ];
}

function createForm(refresh) {
  const name = input("event-type-name", { required: true, autocomplete: "off", placeholder: "order.created" });
  const validation = h("select", { id: "event-type-validation", name: "event-type-validation" },
    VALIDATION_MODES.map((mode) => h("option", { value: mode }, mode)));
  const version = input("event-type-version", { value: "1", autocomplete: "off" });
  const schema = h("textarea", { id: "event-type-schema", name: "event-type-schema", rows: 4, spellcheck: "false" }, '{"type": "object"}');
  const submit = h("button", { type: "submit" }, "Add event type");
  return submitForm("add-event-type-title", submit, () => {
    const body = { name: name.value, validation: validation.value };
    if (schema.value.trim()) body.schemas = { [version.value]: parseJson(schema.value, "The schema") };
    return api("POST", "event-types", { body });
  }, (created) => `Event type ${created.name} added.`, refresh,
  h("h2", { id: "add-event-type-title" }, "Add an event type"),
  h("div", { class: "grid" },
    field("Event type name", name),
    field("Validation", validation, "What a publish whose payload breaks the schema gets."),
    field("Schema version", version),
  ),
  field("Schema (JSON Schema 2020-12)", schema, "Empty: no schema."),
  submit);
}

function validateForm() {
  const name = input("validate-name", { required: true, autocomplete: "off" });
  const version = input("validate-version", { value: "1", autocomplete: "off" });
  const payload = h("textarea", { id: "validate-payload", name: "validate-payload", rows: 3, spellcheck: "false" }, "{}");
  const result = region({ class: "result" });
  const submit = h("button", { type: "submit" }, "Check payload");
  return submitForm("validate-title", submit, () =>
    api("POST", `event-types/${apiPath(name.value)}/validate`, { body: { eventVersion: version.value, payload: parseJson(payload.value, "The payload") } }),
  (answer) => {
    result.show(answer, ({ errors }) => errors.length
      ? table("Schema errors", ["Where", "Problem"], errors.map((error) => [code(error.path), error.message]))
      : null);
    if (!answer.checked) return "That version has no schema: nothing to check.";
    return answer.valid ? "The payload meets its schema." : `The payload breaks its schema: ${answer.errors.length} error(s).`;
  }, null,
  h("h2", { id: "validate-title" }, "Check a payload"),
  h("div", { class: "grid" }, field("Event type", name), field("Event version", version)),
  field("Payload to check (JSON)", payload),
  submit,
  result);
}
