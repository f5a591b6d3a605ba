// Learn 414: the list of lessons with a tick for each one done, and the routes /learn and
// /learn/<id> (docs/tutorial.md). Which lessons are done is kept in this browser only.

import { language, t } from "./i18n.js";
import { ApiError } from "./net.js";
import { $, el, showScreen } from "./dom.js";
import { showError } from "./toast.js";

const DONE_KEY = "414.lessons.done";

let catalogue = null; // [{id, order, section, title: {lang: text}, decisions}], once loaded
let go = null; // (path) => void: show another page of the app (from app.js)

/** The ids of the lessons this browser has completed. */
export function doneLessons() {
  try {
    const ids = JSON.parse(localStorage.getItem(DONE_KEY) || "[]");
    return new Set(Array.isArray(ids) ? ids : []);
  } catch {
    return new Set();
  }
}

export function markDone(id) {
  const done = doneLessons();
  done.add(id);
  localStorage.setItem(DONE_KEY, JSON.stringify([...done]));
}

/** The lessons in order, fetched once. */
export async function lessonList() {
  if (!catalogue) {
    const response = await fetch("/api/lessons");
    const body = await response.json().catch(() => null);
    if (!response.ok || !body) {
      const error = (body && body.error) || {};
      throw new ApiError(error.code || `http_${response.status}`, error.message || response.statusText);
    }
    catalogue = body.lessons;
  }
  return catalogue;
}

/** The lesson after `id`, or null after the last. */
export function nextLesson(id) {
  if (!catalogue) return null;
  const index = catalogue.findIndex((lesson) => lesson.id === id);
  return index >= 0 && index + 1 < catalogue.length ? catalogue[index + 1] : null;
}

export function navigate(path) {
  go(path);
}

function titleOf(lesson) {
  return lesson.title[language()] || lesson.title.en;
}

function renderList() {
  const list = $("learn-lessons");
  if (!catalogue) return;
  const done = doneLessons();
  list.replaceChildren(
    ...catalogue.map((lesson, index) => {
      const item = el("li", "learn-lesson");
      item.classList.toggle("done", done.has(lesson.id));
      const link = el("a", "learn-link");
      link.href = `/learn/${lesson.id}`;
      link.dataset.testid = `lesson-${lesson.id}`;
      link.addEventListener("click", (event) => {
        event.preventDefault();
        navigate(link.getAttribute("href"));
      });
      const tick = el("span", "learn-tick", done.has(lesson.id) ? "✓" : String(index + 1));
      tick.setAttribute("aria-label", done.has(lesson.id) ? t("learn_done") : t("learn_not_done"));
      tick.dataset.testid = `tick-${lesson.id}`;
      link.append(tick, el("span", "learn-name", titleOf(lesson)));
      if (lesson.section) link.append(el("span", "learn-section", t("learn_section", { n: lesson.section })));
      item.append(link);
      return item;
    }),
  );
  const count = catalogue.filter((lesson) => done.has(lesson.id)).length;
  $("learn-count").textContent = t("learn_count", { done: count, n: catalogue.length });
}

export async function showLearn() {
  document.title = `414 · ${t("learn_title")}`;
  showScreen("screen-learn");
  $("topbar-info").textContent = t("learn_title");
  try {
    await lessonList();
  } catch (error) {
    showError(error);
    return;
  }
  renderList();
}

export function retranslateLearn() {
  if (!$("screen-learn").hidden) renderList();
}

/** The lesson route a path names: {id} (null id: the list), or null for another page. */
export function learnRoute(pathname) {
  const match = pathname.match(/^\/learn(?:\/([a-z0-9-]+))?\/?$/);
  return match ? { id: match[1] || null } : null;
}

/** Wire the pages; `goTo(path)` shows another page of the app (pushes history, routes). */
export function initLearn(goTo) {
  go = goTo;
  for (const link of document.querySelectorAll("a[data-learn-link]")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      navigate(link.getAttribute("href"));
    });
  }
}
