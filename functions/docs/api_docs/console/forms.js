// Forms whose submission is an API call, and the retry policy's fields rooms and subscriptions share.

import { field, h, input } from "./dom.js";
import { act } from "./feedback.js";

// A form whose submission is an API call: never submitted by the browser itself.
export function submitForm(titleId, submit, work, done, refresh, ...children) {
  return h("form", {
    "aria-labelledby": titleId,
    onsubmit: (event) => {
      event.preventDefault();
      act(submit, work, done, refresh);
    },
  }, ...children);
}

// The retry policy's fields, shared by rooms and subscriptions.
export function policyInputs(prefix, hint) {
  const inputs = {
    deliveryAttempts: ["Redeliveries", input(`${prefix}-attempts`, { type: "number", inputmode: "numeric" })],
    deliveryDelayMs: ["First redelivery after (ms)", input(`${prefix}-delay`, { type: "number", inputmode: "numeric" })],
    deliveryDelayMultiplier: ["Delay multiplier", input(`${prefix}-multiplier`, { type: "number", step: "any" })],
  };
  return {
    fields: Object.values(inputs).map(([label, element]) => field(label, element, hint)),
    fill: (body) => {
      for (const [name, [, element]] of Object.entries(inputs)) setNumber(body, name, element);
    },
  };
}

export function setNumber(body, name, element) {
  // Sent as typed: the API checks the bounds and its message is shown as it says it.
  if (element.value.trim() !== "") body[name] = Number(element.value);
}
