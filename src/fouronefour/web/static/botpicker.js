// The bot picker of Practice and of table creation: the bot levels by name, weakest first,
// then every other bot the server has, by name, for those who want a particular one
// (docs/ui.md; the levels and bots come from GET /api/config).

import { t } from "./i18n.js";

function option(value, key) {
  const element = document.createElement("option");
  element.value = value;
  element.textContent = t(key);
  return element;
}

/** Fill `select` from the server's config, keeping `chosen` if the server still offers it. */
export function fillBotPicker(select, config, chosen) {
  const levels = (config.levels || []).map((level) => level.name);
  const others = (config.bots || []).filter((name) => !levels.includes(name));
  const children = levels.map((name) => option(name, `bot_${name}`));
  if (others.length) {
    const group = document.createElement("optgroup");
    group.label = t("bots_by_name");
    group.append(...others.map((name) => option(name, `bot_${name}`)));
    children.push(group);
  }
  select.replaceChildren(...children);
  const offered = [...levels, ...others];
  const fallback = offered.includes(config.default_bot) ? config.default_bot : offered[0];
  select.value = offered.includes(chosen) ? chosen : fallback;
}
