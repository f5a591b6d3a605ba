// Small DOM helpers shared by every screen.

export const $ = (id) => document.getElementById(id);

/** A new element with a class and text (both optional). */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

/** A button element (type=button) with a class, text and a test id. */
export function button(className, text, testid) {
  const node = el("button", className, text);
  node.type = "button";
  if (testid) node.dataset.testid = testid;
  return node;
}

/** Show one screen (a `.screen` section) and hide the others. */
export function showScreen(id) {
  for (const screen of document.querySelectorAll(".screen")) screen.hidden = screen.id !== id;
  document.body.dataset.screen = id.replace(/^screen-/, "");
}
