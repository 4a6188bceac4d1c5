// The page's words: lostcities' one catalogue (GET /i18n/LANG.json), the same texts as lc play.
// t(key, params) fills {name} placeholders and picks plural forms (KEY.zero/.one/.other) by the
// rule of lostcities.i18n.plural_form; a key missing falls back to English, then to the key.

export const LANGS = ["en", "fr"];
const SINGULAR = { en: [1], fr: [0, 1] };
const STORE_KEY = "lc-lang";

let lang = "en";
let messages = {};
let fallback = {};

/** The language to start with: the one chosen before (localStorage), else the browser's. */
export function startLang() {
  const kept = safeGet(STORE_KEY);
  if (LANGS.includes(kept)) return kept;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const code = String(tag).slice(0, 2).toLowerCase();
    if (LANGS.includes(code)) return code;
  }
  return "en";
}

async function fetchCatalogue(code) {
  const answer = await fetch(`/i18n/${code}.json`, { headers: { Accept: "application/json" } });
  if (!answer.ok) throw new Error(`catalogue ${code}: HTTP ${answer.status}`);
  return answer.json();
}

/** Load the catalogue of `code` (and English beside it), remember the choice. */
export async function setLang(code) {
  if (!LANGS.includes(code)) code = "en";
  if (!Object.keys(fallback).length) fallback = await fetchCatalogue("en");
  messages = code === "en" ? fallback : await fetchCatalogue(code);
  lang = code;
  safeSet(STORE_KEY, code);
  document.documentElement.lang = code;
  return code;
}

export function currentLang() { return lang; }

function has(key) { return key in messages || key in fallback; }

/** The message `key` with its `{placeholders}` filled from `params`. */
export function t(key, params = {}) {
  const count = params.count;
  if (Number.isInteger(count)) {
    const form = count === 0 ? "zero" : (SINGULAR[lang] || [1]).includes(count) ? "one" : "other";
    const forms = [`${key}.${form}`];
    if (form === "zero" && (SINGULAR[lang] || [1]).includes(count)) forms.push(`${key}.one`);
    forms.push(`${key}.other`);
    key = forms.find(has) || key;
  }
  const template = messages[key] || fallback[key] || key;
  return template.replace(/\{(\w+)\}/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole);
}

/** A pack's colour name in the current language (unknown names stay as they are). */
export function colourName(name) {
  const key = `colour.${String(name).toLowerCase()}`;
  return has(key) ? t(key) : String(name);
}

/** Put the labels into every element marked data-i18n / data-i18n-placeholder. */
export function applyLabels(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
}

/** localStorage that never throws (private windows, storage disabled). */
export function safeGet(key) {
  try { return window.localStorage.getItem(key); } catch { return null; }
}
export function safeSet(key, value) {
  try { window.localStorage.setItem(key, value); } catch { /* storage off: not kept */ }
}
export function safeRemove(key) {
  try { window.localStorage.removeItem(key); } catch { /* storage off */ }
}
