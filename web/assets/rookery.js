// Rookery's web app script: progressive enhancement of server-rendered pages.
// Every page works without it; it only swaps in HTML fragments the server
// renders (web/routes/app/fragments.ts), keeps the timeline live through the
// streaming API (with the session's streaming-only web token), and adds
// Mastodon's keyboard shortcuts. Plain ES module: no build, no dependency.
// Its only HTML sink is DOMParser through the Trusted Types policy "rookery"
// that the app pages' CSP names.

/** The header that asks a route for its fragment instead of its page. */
export const FRAGMENT_HEADER = "Rookery-Fragment";

/** Reconnection delay after `attempt` failures: 1 s doubling to 60 s, with jitter. */
export function backoffDelay(attempt, random = Math.random) {
  const base = Math.min(60_000, 1000 * 2 ** Math.min(attempt, 6));
  return Math.round(base * (0.75 + random() * 0.5));
}

/** The page's stream subscriptions (meta `rookery-streams`, JSON), or none when malformed. */
export function parseStreams(content) {
  try {
    const list = JSON.parse(content ?? "[]");
    return Array.isArray(list) ? list.filter((s) => s && typeof s.stream === "string") : [];
  } catch {
    return [];
  }
}

/** Where `g <key>` goes (Mastodon's keys). */
export const GO_KEYS = {
  h: "/",
  n: "/notifications",
  l: "/public/local",
  t: "/public",
  d: "/conversations",
  b: "/bookmarks",
  f: "/favourites",
};

/** The action button a single-key shortcut clicks in the focused post (`data-shortcut`). */
export const POST_KEYS = { r: "reply", f: "favourite", b: "reblog", d: "bookmark", p: "profile" };

/** The localStorage key that switches the single-key shortcuts off (WCAG 2.1.4). */
export const SHORTCUTS_OFF_KEY = "rookery-shortcuts-off";

/** An explicit http(s) link, without the punctuation that ends a sentence after it. */
const LINK_RE = /https?:\/\/[^\s<>"]+?(?=[.,:;!?'")\]]*(?:\s|$))/giu;
/** A remote mention (the server's MENTION_RE): only `@user` counts, not the domain. */
const REMOTE_MENTION_RE =
  /(?<![=/\p{L}\p{N}_])@([a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)@[\p{L}\p{N}_.-]+[\p{L}\p{N}_]+(?::\d{1,5})?/giu;
/** twitter-text's longest link: a longer one is plain text and counts in full (the server's rule). */
const MAX_URL_LENGTH = 4096;

/**
 * A post's length as the server counts it (actors/statuses/validation.ts,
 * Mastodon's web app does the same): code points, each http(s) link as
 * `perUrl`, a remote mention as its `@user`. The server's check on posting
 * stays the authority; tests/web/app_composer_count_test.ts compares the two.
 */
export function countableLength(text, perUrl) {
  const linked = text.replace(
    LINK_RE,
    (url) => [...url].length > MAX_URL_LENGTH ? url : "x".repeat(perUrl),
  );
  return [...linked.replace(REMOTE_MENTION_RE, "@$1")].length;
}

/**
 * The composer's count (`data-max-characters`, `data-characters-per-url`):
 * characters left, or how many too many, in the form's <output>, which the
 * script silences (it would speak at every key) and replaces by one
 * announcement when the text goes over.
 */
function composerCount() {
  const update = (form) => {
    const output = form.querySelector("output.hint");
    const text = form.elements.namedItem("status");
    if (!output || !text) return;
    const warning = form.elements.namedItem("spoiler_text")?.value ?? "";
    const max = Number(form.dataset.maxCharacters);
    const used = countableLength(text.value, Number(form.dataset.charactersPerUrl)) +
      [...warning].length;
    const left = max - used;
    const wasOver = output.classList.contains("over");
    output.setAttribute("aria-live", "off");
    if (wasOver !== left < 0) output.classList.toggle("over", left < 0);
    const said = left >= 0
      ? `${left} ${left === 1 ? "character" : "characters"} left`
      : `${-left} ${left === -1 ? "character" : "characters"} too many`;
    // Unchanged text is not written again: the observer below would see it.
    if (output.textContent === said) return;
    output.textContent = said;
    if (left < 0 && !wasOver) announce(said);
  };
  const all = () => document.querySelectorAll("form[data-max-characters]").forEach(update);
  document.addEventListener("input", (event) => {
    const form = event.target.closest?.("form[data-max-characters]");
    if (form) update(form);
  });
  // A composer swapped in after posting starts counting again.
  new MutationObserver(all).observe(document.body, { childList: true, subtree: true });
  all();
}

function meta(name) {
  return document.querySelector(`meta[name="${name}"]`)?.getAttribute("content") ?? null;
}

function reducedMotion() {
  return matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function announce(text) {
  const region = document.getElementById("announcer");
  if (region && text) region.textContent = text;
}

/** Parses our own same-origin fragment through the one Trusted Types policy. */
function parseFragment(policy, html) {
  const parsed = new DOMParser().parseFromString(policy.createHTML(html), "text/html");
  return [...parsed.body.children];
}

/**
 * Applies a fragment's instructions (data-replace, data-prepend, data-append,
 * data-remove, data-announce); returns the elements it put in the page.
 */
function applyFragment(policy, html) {
  const placed = [];
  for (const element of parseFragment(policy, html)) {
    const replace = element.dataset.replace;
    const into = element.dataset.prepend ?? element.dataset.append;
    if (replace) {
      const old = document.getElementById(replace);
      if (old) {
        delete element.dataset.replace;
        old.replaceWith(element);
        placed.push(element);
      }
    } else if (into) {
      const target = document.getElementById(into);
      // A post already shown (posted here, then announced by the stream) is not shown twice.
      const children = [...element.children].filter((child) =>
        !child.id || !document.getElementById(child.id)
      );
      if (target) {
        if (element.dataset.prepend) target.prepend(...children);
        else target.append(...children);
        placed.push(...children);
      }
    } else if (element.dataset.remove) {
      document.getElementById(element.dataset.remove)?.remove();
    }
    if (element.dataset.announce) announce(element.dataset.announce);
  }
  return placed;
}

async function fetchFragment(url, init = {}) {
  const response = await fetch(url, {
    credentials: "same-origin",
    redirect: "manual",
    ...init,
    headers: { [FRAGMENT_HEADER]: "1", ...(init.headers ?? {}) },
  });
  const html = response.status === 200 || response.status === 422 || response.status === 429
    ? await response.text()
    : null;
  return { response, html };
}

/** Whether the form carries files: then it is sent with upload progress. */
function hasFiles(form) {
  return [...form.querySelectorAll("input[type=file]")].some((input) => input.files?.length);
}

/**
 * Posts a form with files by XMLHttpRequest, whose upload reports progress
 * (fetch's does not), shown in a <progress> before the form's submit button
 * until the answer comes. Answers as fetchFragment; a redirect (which XHR
 * follows) gives no fragment, so the form falls back to the ordinary way.
 */
function sendWithProgress(form, url, body) {
  const bar = document.createElement("progress");
  bar.className = "upload-progress";
  bar.max = 100;
  bar.value = 0;
  bar.setAttribute("aria-label", "Uploading");
  form.querySelector("button[type=submit]")?.before(bar);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.setRequestHeader(FRAGMENT_HEADER, "1");
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) bar.value = Math.round((event.loaded / event.total) * 100);
    });
    xhr.addEventListener("load", () => {
      bar.remove();
      const redirected = new URL(xhr.responseURL).pathname !== new URL(url, location.href).pathname;
      const fragment = !redirected && [200, 422, 429].includes(xhr.status);
      resolve({ html: fragment ? xhr.responseText : null });
    });
    for (const failure of ["error", "abort", "timeout"]) {
      xhr.addEventListener(failure, () => {
        bar.remove();
        reject(new Error(`upload ${failure}`));
      });
    }
    xhr.send(body);
  });
}

/** Forms marked data-enhance post in place; anything unexpected falls back to a real submit. */
function enhanceForms(policy) {
  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-enhance")) return;
    // The fallback below: this submission goes the ordinary way.
    if (form.dataset.plain) {
      delete form.dataset.plain;
      return;
    }
    event.preventDefault();
    const submitter = event.submitter;
    const body = new FormData(form, submitter ?? undefined);
    const url = submitter?.getAttribute("formaction") ?? form.action;
    submitter?.setAttribute("aria-disabled", "true");
    let placed = [];
    try {
      const { html } = hasFiles(form)
        ? await sendWithProgress(form, url, body)
        : await fetchFragment(url, { method: "POST", body });
      if (html) placed = applyFragment(policy, html);
    } catch {
      placed = [];
    } finally {
      submitter?.removeAttribute("aria-disabled");
    }
    // Nothing to swap (a refusal answered as a page, a network error): the
    // form goes the no-script way, by the button pressed (its formaction,
    // which form.submit() would ignore); its idempotency key makes a retry
    // safe. A form the fragment removed stays removed.
    if (placed.length > 0) focusAfterSwap(placed);
    else if (form.isConnected) {
      form.dataset.plain = "1";
      form.requestSubmit(submitter?.form === form ? submitter : null);
    }
  });
}

/** Where the focus goes after a swap: the composer, a post, or what the fragment marks `data-focus`. */
function focusAfterSwap(placed) {
  const article = placed.find((el) => el.matches("article.status"));
  const composer = placed.find((el) => el.id === "composer");
  const marked = placed.map((el) => el.closest("[data-focus]") ?? el.querySelector("[data-focus]"))
    .find(Boolean);
  if (composer) composer.querySelector("textarea")?.focus();
  else if (article) article.focus();
  else marked?.focus();
}

function firstArticleId() {
  return document.querySelector("#feed article.status[data-id]")?.dataset.id ?? null;
}

function typing() {
  const active = document.activeElement;
  return !!active && (active.matches("input, textarea, select") || active.isContentEditable);
}

/** Whether the reader is in the middle of writing something (a focused field with text). */
function drafting() {
  return typing() && !!document.activeElement.value;
}

/** The "N new posts" button and the newer articles waiting behind it. */
function newPostsController(policy) {
  let pending = null;
  let loading = false;
  let again = false;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "new-posts";
  button.hidden = true;
  const feed = document.getElementById("feed");
  feed?.before(button);

  function show() {
    if (!pending) return;
    const placed = applyFragment(policy, pending);
    pending = null;
    button.hidden = true;
    const first = placed.find((el) => el.matches?.("article.status"));
    if (first) {
      first.focus({ preventScroll: true });
      first.scrollIntoView({ block: "start", behavior: reducedMotion() ? "auto" : "smooth" });
    }
  }
  button.addEventListener("click", show);

  async function load() {
    if (!feed) return;
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    try {
      const url = new URL(location.href);
      url.hash = "";
      url.searchParams.delete("max_id");
      url.searchParams.delete("notice");
      url.searchParams.delete("alert");
      const newest = firstArticleId();
      if (newest) url.searchParams.set("min_id", newest);
      const { html } = await fetchFragment(url);
      if (!html) return;
      const count = parseFragment(policy, html)
        .reduce((n, el) => n + el.querySelectorAll("article.status").length, 0);
      if (count === 0) return;
      pending = html;
      const atTop = scrollY < 40 && !feed.contains(document.activeElement) && !drafting();
      if (atTop) {
        applyFragment(policy, pending);
        pending = null;
        announce(count === 1 ? "1 new post" : `${count} new posts`);
        return;
      }
      button.textContent = count === 1 ? "1 new post" : `${count} new posts`;
      button.hidden = false;
      announce(button.textContent);
    } finally {
      loading = false;
      if (again) {
        again = false;
        load();
      }
    }
  }
  return { load, show };
}

/** The streaming socket: one per tab, reconnecting with backoff until the session ends. */
function connectStream(policy, newPosts) {
  let token = meta("rookery-stream-token");
  const streams = parseStreams(meta("rookery-streams"));
  if (!token || streams.length === 0) return;
  const wsOrigin = location.origin.replace(/^http/, "ws");
  let attempt = 0;

  function open() {
    const socket = new WebSocket(`${wsOrigin}/api/v1/streaming`, token);
    socket.addEventListener("open", () => {
      attempt = 0;
      for (const s of streams) socket.send(JSON.stringify({ type: "subscribe", ...s }));
      document.documentElement.dataset.stream = "open";
    });
    socket.addEventListener("message", (message) => onEvent(message.data));
    socket.addEventListener("close", async () => {
      document.documentElement.dataset.stream = "closed";
      const now = await currentToken();
      if (now === null) return stopped();
      // A password change rotates the session's token: reconnect with the new one.
      if (now) token = now;
      setTimeout(open, backoffDelay(attempt++));
    });
  }

  function onEvent(data) {
    let event;
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    if (event.event === "update" && !String(event.stream?.[0] ?? "").includes("notification")) {
      newPosts.load();
    } else if (event.event === "delete") {
      tombstone(String(event.payload));
    } else if (event.event === "status.update") {
      refreshStatus(policy, JSON.parse(event.payload).id);
    } else if (event.event === "notification") {
      const link = document.querySelector('nav a[href="/notifications"]');
      link?.classList.add("unread");
      link?.setAttribute("aria-label", "Notifications, new");
    }
  }
  open();
}

/** The web token an app page carries (its `rookery-stream-token` meta), or null. */
export function streamTokenIn(html) {
  return html.match(/<meta name="rookery-stream-token" content="([\w-]+)"/)?.[1] ?? null;
}

/**
 * The session's web token now, read from a small app page: null when the
 * session is over (the page sends to sign-in), undefined when unknown (the
 * server is unreachable, or the page carries none).
 */
async function currentToken() {
  try {
    const response = await fetch("/keyboard_shortcuts", {
      credentials: "same-origin",
      redirect: "manual",
      cache: "no-store",
    });
    if (response.type === "opaqueredirect" || response.status === 403) return null;
    return response.ok ? (streamTokenIn(await response.text()) ?? undefined) : undefined;
  } catch {
    return undefined;
  }
}

function stopped() {
  const banner = document.createElement("p");
  banner.className = "alert stream-stopped";
  banner.setAttribute("role", "alert");
  banner.textContent = "Live updates stopped: you are signed out. Reload the page.";
  document.querySelector("main")?.prepend(banner);
}

function tombstone(id) {
  for (const article of document.querySelectorAll(`article.status[data-id="${CSS.escape(id)}"]`)) {
    const stone = document.createElement("p");
    stone.className = "status tombstone";
    stone.tabIndex = -1;
    stone.textContent = "This post was deleted.";
    const hadFocus = article.contains(document.activeElement);
    article.replaceWith(stone);
    if (hadFocus) stone.focus();
  }
}

async function refreshStatus(policy, id) {
  const old = document.getElementById(`status-${id}`);
  if (!old) return;
  const back = location.pathname + location.search;
  const { html } = await fetchFragment(`/statuses/${id}?return_to=${encodeURIComponent(back)}`);
  const fresh = html ? parseFragment(policy, html).find((el) => el.id === `status-${id}`) : null;
  if (!fresh) return;
  const hadFocus = old.contains(document.activeElement);
  old.replaceWith(fresh);
  if (hadFocus) fresh.focus();
}

/** A remote thread's "Fetching replies…" line asks again after its retry time, until done. */
function pollThreadRefresh(policy) {
  const line = document.getElementById("refresh");
  if (!line) return;
  const seconds = Math.max(1, Number(line.dataset.retry) || 3);
  setTimeout(async () => {
    const url = new URL(location.href);
    url.hash = "";
    const { html } = await fetchFragment(url);
    if (html) applyFragment(policy, html);
    pollThreadRefresh(policy);
  }, seconds * 1000);
}

function articles() {
  return [...document.querySelectorAll("article.status")];
}

function currentArticle() {
  return document.activeElement?.closest?.("article.status") ?? null;
}

function moveFocus(step) {
  const list = articles();
  if (list.length === 0) return;
  const at = list.indexOf(currentArticle());
  const next = list[Math.max(0, Math.min(list.length - 1, at < 0 ? 0 : at + step))];
  next.focus();
  next.scrollIntoView({ block: "nearest", behavior: reducedMotion() ? "auto" : "smooth" });
}

function toggleDetails(article, selector) {
  const details = article?.querySelector(selector);
  if (details) details.open = !details.open;
}

/** Runs a post key in the focused article by clicking its real control. */
function postKey(article, key) {
  const control = article?.querySelector(`[data-shortcut="${POST_KEYS[key]}"]`);
  if (control) control.click();
  return !!control;
}

/** Mastodon's keyboard shortcuts; single keys only outside fields, and switchable off. */
function keyboard(newPosts) {
  let pendingG = false;
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      const form = event.target.closest?.("form#composer");
      if (form) form.requestSubmit();
      return;
    }
    if (event.key === "Escape" && typing()) return event.target.blur();
    if (event.ctrlKey || event.metaKey || event.altKey || typing()) return;
    if (localStorage.getItem(SHORTCUTS_OFF_KEY) === "1") return;
    const key = event.key;
    if (pendingG) {
      pendingG = false;
      const go = key === "u" ? `/@${meta("rookery-username") ?? ""}` : GO_KEYS[key];
      if (go) location.assign(go);
      return;
    }
    const article = currentArticle();
    let handled = true;
    if (key === "j" || key === "ArrowDown") moveFocus(1);
    else if (key === "k" || key === "ArrowUp") moveFocus(-1);
    else if (key === "g") pendingG = true;
    else if (key === "?") location.assign("/keyboard_shortcuts");
    else if (key === "n") {
      const text = document.querySelector("#composer textarea");
      if (text) text.focus();
      else location.assign("/statuses/new");
    } else if (key === "/") location.assign("/search");
    else if (key === ".") newPosts.show();
    else if (key === "x") toggleDetails(article, "details.cw");
    else if (key === "h") toggleDetails(article, "details.sensitive");
    else if ((key === "o" || key === "Enter") && article === document.activeElement) {
      article.querySelector("a.permalink, time")?.closest("a")?.click();
    } else if (key in POST_KEYS) handled = postKey(article, key);
    else handled = false;
    if (handled) event.preventDefault();
  });
}

/** The switch on /keyboard_shortcuts. */
function shortcutsSwitch() {
  const box = document.getElementById("shortcuts-enabled");
  if (!box) return;
  box.checked = localStorage.getItem(SHORTCUTS_OFF_KEY) !== "1";
  box.disabled = false;
  box.addEventListener("change", () => {
    if (box.checked) localStorage.removeItem(SHORTCUTS_OFF_KEY);
    else localStorage.setItem(SHORTCUTS_OFF_KEY, "1");
  });
}

function boot() {
  const policy = globalThis.trustedTypes?.createPolicy("rookery", { createHTML: (s) => s }) ??
    { createHTML: (s) => s };
  document.documentElement.classList.add("js");
  enhanceForms(policy);
  const newPosts = newPostsController(policy);
  connectStream(policy, newPosts);
  pollThreadRefresh(policy);
  keyboard(newPosts);
  shortcutsSwitch();
  composerCount();
  document.documentElement.dataset.ready = "1";
}

if (typeof document !== "undefined") boot();
