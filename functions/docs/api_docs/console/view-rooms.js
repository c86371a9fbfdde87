// The rooms screen: the tenant's rooms, page by page, and a form to create one.

import { api, PAGE_SIZE } from "./api.js";
import { code, field, h, input, link, region, table } from "./dom.js";
import { act } from "./feedback.js";
import { policyInputs, setNumber, submitForm } from "./forms.js";
import { duration, policy, time } from "./format.js";
import { setBreadcrumb } from "./header.js";

function roomRows(rooms) {
  return rooms.map((room) => [
    link(`#/rooms/${encodeURIComponent(room.id)}`, room.name),
    code(room.id),
    policy(room),
    room.messageExpirationMs ? duration(room.messageExpirationMs) : "never",
    time(room.createdAt),
  ]);
}

export async function roomsView() {
  setBreadcrumb([["Rooms", "#/rooms"]]);
  const first = await api("GET", "rooms", { query: { limit: PAGE_SIZE } });
  const rooms = [...first.rooms];
  const list = region();
  let cursor = first.nextCursor;
  const more = h("button", { type: "button", hidden: !cursor }, "Load more rooms");
  const showRooms = () =>
    list.show(rooms, (all) => table("Your rooms", ["Name", "Id", "Delivery policy", "Expiration", "Created"], roomRows(all), "No rooms yet: create one below."));
  more.addEventListener("click", () =>
    act(more, async () => {
      const page = await api("GET", "rooms", { query: { limit: PAGE_SIZE, cursor } });
      rooms.push(...page.rooms);
      cursor = page.nextCursor;
      more.hidden = !cursor;
      showRooms();
      return page.rooms.length;
    }, (count) => `${count} more rooms shown.`),
  );
  showRooms();

  const name = input("room-name", { required: true, autocomplete: "off" });
  const retries = policyInputs("room", "Empty: the API's default.");
  const expiration = input("room-expiration", { type: "number", inputmode: "numeric" });
  const submit = h("button", { type: "submit" }, "Create room");
  const form = submitForm("create-room-title", submit, () => {
    const body = { name: name.value };
    retries.fill(body);
    setNumber(body, "messageExpirationMs", expiration);
    return api("POST", "rooms", { body });
  }, (room) => {
    location.hash = `#/rooms/${encodeURIComponent(room.id)}`;
    return `Room ${room.name} created.`;
  }, null,
  h("h2", { id: "create-room-title" }, "Create a room"),
  h("div", { class: "grid" },
    field("Name", name),
    retries.fields,
    field("Messages expire after (ms)", expiration, "Empty or 0: never."),
  ),
  submit);
  const catalog = h("p", {}, "Your event types and their schemas: ", link("#/event-types", "the event-type catalog"), ".");
  return [h("h1", { tabindex: "-1" }, "Rooms"), catalog, list, more, form];
}
