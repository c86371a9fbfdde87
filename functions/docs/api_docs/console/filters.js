// Payload filters (docs/filters.md): the filter policy field of the subscription form, a message's
// "filtered out" list, and the dry run's answer.

import { ApiError } from "./api.js";
import { code, field, h, table } from "./dom.js";

// JSON typed in a textarea: the parsed value, or an error the form shows as the API's would be.
export function parseJson(text, what) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError(0, "invalid_json", `${what} is not JSON: ${error.message}`);
  }
}

export function filterPolicyInput(id) {
  const element = h("textarea", { id, name: id, rows: 3, spellcheck: "false", placeholder: '{"amount": [{"numeric": [">=", 100]}]}' });
  return {
    field: field("Filter policy (JSON)", element, "Optional: an SNS filter policy on the payload."),
    fill: (body) => {
      if (element.value.trim()) body.filterPolicy = parseJson(element.value, "The filter policy");
    },
  };
}

export function filterPolicyText(policy) {
  return policy ? code(JSON.stringify(policy)) : "none (every payload)";
}

export function filteredOut(message) {
  const missed = message.filteredOut ?? [];
  if (missed.length === 0) return null;
  return table("Filtered out", ["Subscription", "Why"], missed.map((item) => [code(item.subscriptionId), item.reason]));
}

export function dryRunAnswer(answer) {
  return [
    answer.accepted ? null : h("p", {}, `The room refuses it: ${answer.reason}`),
    table("Dry run", ["Subscription", "Type", "Status", "Matched", "Why not"], answer.subscriptions.map((verdict) => [
      code(verdict.subscriptionId),
      verdict.type,
      verdict.status,
      verdict.matched ? "yes" : "no",
      verdict.reason ?? "",
    ]), "The room has no subscriptions."),
  ];
}
