"use strict";
// Draws one JSON snapshot (hunger_rl/ui/games.py) as HTML with the renderer RENDERERS holds
// under the snapshot's game. viewAs: null shows all that the snapshot holds, a seat number
// hides what that player may not know.
function esc(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
}
function cardChip(name) {
  const [colour, stars] = name.split("-");
  return `<span class="card c-${esc(colour)}" title="${esc(name)}">${esc(stars)}\u2605</span>`;
}
// seats: optional policy spec of each seat, shown beside the player's name.
let seatLabels = null;
function playerName(snap, seat) {
  const name = RENDERERS[snap.game].playerName(snap, seat);
  return seatLabels ? `${name} (${seatLabels[seat]})` : name;
}

function renderHungry(s, viewAs) {
  const n = s.players.length;
  let html = `<div class="status" id="status">Play ${s.play} of 48 \u00b7 deck ${s.deck} card(s) \u00b7 `;
  if (s.winners) {
    html += `game over, winner(s): ${s.winners.map((p) => esc(s.players[p])).join(", ")}`;
  } else {
    html += `${esc(s.players[s.to_move])} to move`;
  }
  if (s.last) html += ` \u00b7 last: ${esc(s.players[s.last.player])} played ${esc(s.last.action)}`;
  html += `</div><table id="scores"><tr><th>player</th><th>score</th><th>hand</th></tr>`;
  for (let p = 0; p < n; p++) {
    const win = s.winners && s.winners.includes(p) ? ' class="winner"' : "";
    const hand = s.hands[p] && (viewAs === null || viewAs === p)
      ? s.hands[p].map(cardChip).join(" ")
      : `<span class="hidden-hand">${s.hand_sizes[p]} card(s), hidden</span>`;
    html += `<tr${win}><td>${esc(playerName(s, p))}</td><td class="score">${s.scores[p]}</td>` +
      `<td class="hand" data-player="${p}">${hand}</td></tr>`;
  }
  html += `</table><div class="grid" id="resorts">`;
  for (const resort of s.resorts) {
    html += `<div class="panel resort"><h3>${esc(resort.name)}</h3>`;
    for (let p = 0; p < n; p++) {
      let mark = "";
      if (resort.first === p) mark = '<span class="badge first">1st</span>';
      else if (resort.second === p) mark = '<span class="badge second">2nd</span>';
      html += `<div class="row"><span class="who">${esc(s.players[p])}</span>` +
        `${resort.cards[p].map(cardChip).join("")} ${mark}</div>`;
    }
    html += "</div>";
  }
  html += "</div>";
  if (s.removed && viewAs === null) {
    html += `<p>Removed unseen: ${s.removed.map(cardChip).join(" ")}</p>`;
  }
  return html;
}

function tokenChip(token, viewAs) {
  const known = token.value !== null &&
    (viewAs === null || token.known === null || ((token.known >> viewAs) & 1) === 1);
  const value = known ? token.value : "?";
  return `<span class="tok t-${esc(token.kind)}">${esc(token.kind)} ${value}</span>`;
}

function compareKeys(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function renderShow(s, viewAs) {
  const n = s.players.length;
  let html = `<div class="status" id="status">Day ${s.day} \u00b7 next leader ${esc(playerName(s, s.leader))}` +
    ` \u00b7 coconuts ${s.coconuts} \u00b7 event cards left ${s.events_left}`;
  if (s.done) html += ` \u00b7 the show is over, winner(s): ${s.winners.map((p) => esc(playerName(s, p))).join(", ")}`;
  html += `</div><div class="grid" id="island">`;
  for (const loc of s.locations) {
    html += `<div class="panel location"><h3>${esc(loc.name)}</h3>`;
    for (const pile of loc.piles) {
      const values = pile.tokens && viewAs === null ? ` <small>top first: ${pile.tokens.join(" ")}</small>` : "";
      html += `<div class="row">${esc(pile.kind)}: ${pile.count}/${pile.size}${values}</div>`;
    }
    html += "</div>";
  }
  html += `</div><table id="holdings"><tr><th>player</th><th>fruit</th><th>chicken</th><th>raft</th>` +
    `<th>can</th><th>coconut</th><th>tokens (values the viewer knows)</th><th>sets, units, food</th></tr>`;
  for (let p = 0; p < n; p++) {
    const pl = s.players[p];
    const classes = [pl.alive ? "" : "dead", s.winners && s.winners.includes(p) ? "winner" : ""].join(" ");
    const character = pl.character ? ` <small>(${esc(pl.character)})</small>` : "";
    const status = pl.alive ? "" : " <small>eliminated</small>";
    const key = pl.ranking_key && (viewAs === null || viewAs === p) ? pl.ranking_key.join(", ") : "";
    html += `<tr class="${classes}" data-player="${p}"><td>${esc(playerName(s, p))}${character}${status}</td>` +
      ["fruit", "chicken", "raft", "can", "coconut"].map((c) => `<td>${pl.counts[c]}</td>`).join("") +
      `<td class="tokens">${pl.tokens.map((t) => tokenChip(t, viewAs)).join("")}</td><td>${key}</td></tr>`;
  }
  html += "</table>";
  const log = s.log;
  if (log) {
    html += `<div class="log" id="day-log"><b>Day ${log.day}</b> (leader ${esc(log.leader)}, order ${log.order.map(esc).join(" ")})<ul>`;
    for (const [player, pick] of Object.entries(log.choices)) {
      html += `<li>${esc(player)}: ${esc(pick[1])} at the ${esc(pick[0])}</li>`;
    }
    html += "</ul><b>Resolution</b><ul>";
    for (const [category, from, to, reason] of log.moves) {
      if (reason !== "supper" && reason !== "eliminated") {
        html += `<li>${esc(reason)}: ${esc(category)} ${esc(from)} \u2192 ${esc(to)}</li>`;
      }
    }
    html += `</ul><b>Event:</b> <span id="event">${esc(log.event)}</span><ul>`;
    for (const [player, paid] of Object.entries(log.supper)) {
      html += `<li>supper ${esc(player)}: ${paid.map(([c, v]) => `${esc(c)} ${v}`).join(" + ")}</li>`;
    }
    if (log.eliminated.length) html += `<li><b>eliminated:</b> ${log.eliminated.map(esc).join(", ")}</li>`;
    html += "</ul>";
    if (log.end) {
      const ranking = Object.entries(log.end.ranking).sort((a, b) => compareKeys(b[1], a[1]));
      html += `<b>The show ends (${esc(log.end.condition)}).</b> Ranking (raft sets, leftover units, food):<ol id="ranking">` +
        ranking.map(([p, k]) => `<li>${esc(p)}: ${k.join(", ")}</li>`).join("") + "</ol>";
    }
    html += "</div>";
  }
  return html;
}

// Per game (the name in GAMES): render(snap, viewAs) draws a snapshot, playerName(snap, seat)
// is a seat's name in it.
const RENDERERS = {
  hungry: {render: renderHungry, playerName: (s, seat) => s.players[seat]},
  hunger_show: {render: renderShow, playerName: (s, seat) => s.players[seat].name},
};

function renderSnapshot(snap, viewAs, seats) {
  seatLabels = seats || null;
  const renderer = RENDERERS[snap.game];
  if (!renderer) throw new Error(`render.js has no renderer for the game ${snap.game}`);
  return renderer.render(snap, viewAs);
}
