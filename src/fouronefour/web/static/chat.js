// Chat and quick reactions: a short list of lines in the side panel, a row of quick
// phrases and emotes (keys from /api/config, shown in the reader's language), and each
// line shown for a moment at the sender's seat. Text only (never markup); a player can be
// muted on this device (remembered in the settings). Limits are the server's: a refused
// line says when to try again.

import { t } from "./i18n.js";
import { $, el, button } from "./dom.js";
import { request, session } from "./session.js";
import { settings, updateSettings } from "./settings.js";
import { showError, toast } from "./toast.js";
import { ApiError } from "./net.js";
import { blocks, onBlocksChange } from "./friends.js";

const BUBBLE_MS = 4000;
let phrases = ["good_luck", "well_played", "thanks", "hurry_up", "oops", "wow", "sorry", "good_game"];

/** Who a line is from, as a key for muting: a seat's player, or a spectator's name. */
function senderKey(line) {
  return line.seat === null || line.seat === undefined ? `spectator:${line.name}` : `seat:${line.seat}:${line.name}`;
}

function isMuted(line) {
  return settings().muted.includes(senderKey(line)) || fromBlocked(line);
}

/** A line of a seat whose player this profile blocks: never shown (friends.js). */
function fromBlocked(line) {
  const seats = session.state.table ? session.state.table.seats : [];
  const seat = line.seat === null || line.seat === undefined ? null : seats[line.seat];
  return Boolean(seat) && blocks(seat.profile);
}

function lineText(line) {
  return line.phrase ? t(`phrase_${line.phrase}`) : line.text;
}

// An emote's picture, then its words ("🙂 smiles"): screen readers get the words only.
const PICTURE = /^([\p{Extended_Pictographic}\u200d\ufe0f]+)\s*/u;

/** A phrase as nodes: its picture hidden from screen readers, then its words. */
function phraseNodes(key) {
  const text = t(`phrase_${key}`);
  const picture = text.match(PICTURE);
  if (!picture) return [text];
  const symbol = el("span", "emote", picture[1]);
  symbol.setAttribute("aria-hidden", "true");
  return [symbol, " ", text.slice(picture[0].length)];
}

/** Whether this connection may chat now (players; spectators when the host allows). */
function canChat(state) {
  if (!state.table) return false;
  if (state.role === "player") return true;
  return Boolean(state.table.settings && state.table.settings.spectator_chat);
}

export function renderChat() {
  const state = session.state;
  const list = $("chat-lines");
  const lines = state.chat.filter((line) => !isMuted(line)).slice(-40);
  list.replaceChildren(
    ...lines.map((line) => {
      const item = el("li", line.spectator ? "chat-line spectator" : "chat-line");
      item.dataset.testid = "chat-line";
      item.append(el("b", "", `${line.name}${line.spectator ? ` (${t("spectator")})` : ""}: `));
      const said = el("span", line.phrase ? "chat-phrase" : "");
      said.append(...(line.phrase ? phraseNodes(line.phrase) : [line.text]));
      item.append(said);
      const mine = line.seat !== null && line.seat === state.seat && state.role === "player";
      if (!mine) {
        const mute = button("chat-mute", t("mute_short"), "chat-mute");
        mute.title = t("chat_mute", { name: line.name });
        mute.setAttribute("aria-label", mute.title);
        mute.addEventListener("click", () => {
          updateSettings({ muted: [...settings().muted, senderKey(line)] });
          renderChat();
        });
        item.append(mute);
      }
      return item;
    }),
  );
  list.scrollTop = list.scrollHeight;
  const open = canChat(state);
  $("chat-form").hidden = !open;
  $("chat-phrases").hidden = !open;
  $("chat-closed").hidden = open;
  $("chat-unmute").hidden = !settings().muted.length;
}

function renderPhrases() {
  $("chat-phrases").replaceChildren(
    ...phrases.map((key) => {
      const chip = button("btn btn-small phrase", "", `phrase-${key}`);
      chip.append(...phraseNodes(key));
      chip.addEventListener("click", () => send({ phrase: key }));
      return chip;
    }),
  );
}

async function send(content) {
  try {
    // Not sent again on its own when refused: the writer is told when to write again.
    await request({ type: "chat", ...content }, { resend: false });
    if (content.text !== undefined) $("chat-input").value = "";
  } catch (error) {
    if (error instanceof ApiError && error.code === "rate_limited") {
      const seconds = Math.max(1, Math.ceil((error.retryAfterMs || 2000) / 1000));
      toast("chat_slow_down", { n: seconds }, { error: true });
      $("chat-send").disabled = true;
      setTimeout(() => {
        $("chat-send").disabled = false;
      }, seconds * 1000);
    } else {
      showError(error);
    }
  }
}

/** After a change: new lines appear at their sender's seat for a moment. */
export function chatChange(previous, next, message) {
  if (message.type !== "update") return;
  const fresh = (message.events || []).filter((event) => event.type === "chat");
  if (!fresh.length) return;
  renderChat();
  for (const line of fresh) {
    if (isMuted(line) || line.seat === null || line.seat === undefined) continue;
    const seat = $("ring").querySelector(`[data-seat="${line.seat}"]`);
    if (!seat) continue;
    // A layer of its own over the felt: the seat boxes are drawn anew on every update.
    $("felt").querySelector(`.bubble[data-seat="${line.seat}"]`)?.remove();
    const bubble = el("div", "bubble", lineText(line));
    bubble.dataset.seat = String(line.seat);
    bubble.dataset.testid = `bubble-${line.seat}`;
    bubble.style.left = `${seat.offsetLeft + seat.offsetWidth / 2}px`;
    bubble.style.top = `${seat.offsetTop}px`;
    $("felt").append(bubble);
    setTimeout(() => bubble.remove(), BUBBLE_MS);
  }
}

export function applyChatConfig(config) {
  if (config && config.chat && Array.isArray(config.chat.phrases)) phrases = config.chat.phrases;
  renderPhrases();
}

export function retranslateChat() {
  renderPhrases();
  if (session.state.table) renderChat();
}

export function initChat() {
  renderPhrases();
  onBlocksChange(() => {
    if (!session.state.table) return;
    renderChat();
    for (const bubble of $("felt").querySelectorAll(".bubble")) {
      if (fromBlocked({ seat: Number(bubble.dataset.seat) })) bubble.remove();
    }
  });
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chat-input").value.trim();
    if (text) send({ text });
  });
  $("chat-unmute").addEventListener("click", () => {
    updateSettings({ muted: [] });
    renderChat();
  });
}
