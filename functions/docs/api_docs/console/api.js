// The roomcast API as the console calls it, with the operator's API key.
//
// The key lives in this tab's sessionStorage and travels only in the Authorization header: never in
// a URL, never in localStorage.

const KEY_STORAGE = "roomcast.apiKey";
// The API's root is the console's parent path: /console -> /, /prod/console -> /prod/.
const API_ROOT = new URL("./", document.baseURI);
// How many items a list asks the API for at once.
export const PAGE_SIZE = 50;

export class ApiError extends Error {
  constructor(status, code, message, details = []) {
    super(message);
    this.status = status; // 0: no answer
    this.code = code; // the API's error.code; null for API Gateway's own {"message": ...}
    this.details = details;
  }
}

export function apiKey() {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function keepApiKey(key) {
  sessionStorage.setItem(KEY_STORAGE, key);
}

export function forgetApiKey() {
  sessionStorage.removeItem(KEY_STORAGE);
}

class InvalidPathSegment extends Error {}

// An API path from its segments, each encoded. A "." or ".." survives encodeURIComponent and the
// URL parser would resolve it (rooms/.. -> the API's root), so it is refused, never sent.
export function apiPath(...segments) {
  return segments
    .map((segment) => {
      const text = String(segment);
      if (text === "" || text === "." || text === "..") {
        throw new InvalidPathSegment(`"${text}" cannot be part of an API path: the console sent nothing`);
      }
      return encodeURIComponent(text);
    })
    .join("/");
}

export async function api(method, path, { query = {}, body, key = apiKey() } = {}) {
  return request(API_ROOT, method, path, { query, body, key });
}

// A request to the API at ``root`` (the portal page's root is not the console's) with ``key``.
export async function request(root, method, path, { query = {}, body, key } = {}) {
  const url = new URL(path, root);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, String(value));
  }
  const headers = { Accept: "application/json", Authorization: `Bearer ${key ?? ""}` };
  const init = { method, headers, cache: "no-store", credentials: "omit", redirect: "error" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new ApiError(0, "network_error", `The API could not be reached: ${error.message}`);
  }
  const text = await response.text();
  let data;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = undefined;
  }
  if (!response.ok) {
    const error = data?.error;
    if (error && typeof error.message === "string") {
      throw new ApiError(response.status, error.code ?? null, error.message, error.details ?? []);
    }
    if (data && typeof data.message === "string") {
      // API Gateway's own answers: 401 without a key, 403 with a refused one.
      const hint = [401, 403].includes(response.status) ? " (the API refused the API key)" : "";
      throw new ApiError(response.status, null, data.message + hint);
    }
    throw new ApiError(response.status, null, `Unexpected answer from the API: HTTP ${response.status}`);
  }
  if (data === undefined || (data === null && response.status !== 204)) {
    throw new ApiError(response.status, null, `Unexpected answer from the API: HTTP ${response.status}, not JSON`);
  }
  return data;
}

const JOB_POLL_MS = 500;

// A bulk action answers 202 with its job: read the job again until it has finished. A job that
// failed is an error, with the job's own reason.
export async function finishedJob(job) {
  while (job.state === "running") {
    await new Promise((resolve) => setTimeout(resolve, JOB_POLL_MS));
    job = await api("GET", `/jobs/${apiPath(job.id)}`);
  }
  if (job.state === "failed") throw new ApiError(0, "job_failed", `The ${job.kind} job failed: ${job.error}`);
  return job;
}
