// The page's words: lostcities' one catalogue (GET /i18n/LANG.json), the same texts as lc play.
// t(key, params) fills {name} placeholders and picks plural forms (KEY.zero/.one/.other) by the
// rule of lostcities.i18n.plural_form; a key missing falls back to English, then to the key.
// {colour:f} says a colour in the feminine (colour.NAME.f: "la défausse verte"), as
// lostcities.i18n.Catalogue does; a built-in pack's name and description are pack.ID.name
// and pack.ID.description, a house pack's own stay as written (builtinPackText, packText).
// A sentence that says how to point (click, tap) has two forms, KEY.fine for a mouse and
// KEY.coarse for a finger (tPointer), chosen by the screen's `(pointer: coarse)`.

export const LANGS = ["en", "fr"];
const SINGULAR = { en: [1], fr: [0, 1] };
const STORE_KEY = "lc-lang";

let lang = "en";
let messages = {};
let fallback = {};
let feminineForms = null;

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
  feminineForms = null;
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
  return template.replace(/\{(\w+)(?::(\w+))?\}/g, (whole, name, spec) => {
    if (!Object.prototype.hasOwnProperty.call(params, name)) return whole;
    return spec === "f" ? feminine(String(params[name])) : String(params[name]);
  });
}

/** The feminine names of the current catalogue's colours, keyed by the lower-case pack name
 * (green) and by the name as the language says it (vert): verte. */
function forms() {
  if (feminineForms) return feminineForms;
  const found = new Map();
  for (const [key, text] of Object.entries(messages)) {
    const match = /^colour\.([^.]+)\.f$/.exec(key);
    if (match) found.set(match[1], text);
  }
  for (const [base, text] of [...found]) {
    const said = String(messages[`colour.${base}`] || "").toLowerCase();
    if (said && !found.has(said)) found.set(said, text);
  }
  feminineForms = found;
  return found;
}

/** A colour's name in the feminine (after "la défausse", "la rangée"), from its pack name or
 * its name in the current language, in the case it is written in; a name the catalogue does
 * not know stays as written. */
export function feminine(name) {
  const form = forms().get(name.toLowerCase());
  if (form === undefined) return name;
  if (name.length > 1 && name === name.toUpperCase() && name !== name.toLowerCase()) {
    return form.toUpperCase();
  }
  const first = name.charAt(0);
  return first !== first.toLowerCase() ? form.charAt(0).toUpperCase() + form.slice(1) : form;
}

/** The screen's pointer: "coarse" (a finger on a touch screen) or "fine" (a mouse). */
export function pointer() {
  return typeof window.matchMedia === "function" && window.matchMedia("(pointer: coarse)").matches
    ? "coarse" : "fine";
}

/** The message `key` in the form of this screen's pointer: KEY.coarse ("tap") on a touch
 * screen, else KEY.fine ("click"). */
export function tPointer(key, params = {}) {
  return t(`${key}.${pointer()}`, params);
}

/** A pack's name (field "name") or description (field "description") in the current
 * language: a built-in pack's, whose text is the English catalogue's pack.ID.FIELD, from the
 * catalogue; any other text (a house pack's own, whatever its id) stays as written. */
export function packText(id, field, text) {
  if (!text || fallback[`pack.${id}.${field}`] !== text) return text || "";
  return builtinPackText(id, field) || text;
}

/** A built-in pack's name or description ("name", "description") in the current language,
 * known by its id alone (GET /packs lists ids), or "" when the catalogue has none. */
export function builtinPackText(id, field) {
  const key = `pack.${id}.${field}`;
  return has(key) ? messages[key] || fallback[key] : "";
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
