// aerodeck serve: the page. Plain JavaScript, no build step. Routes (the part after #):
//   /                       Play: the new-game form        /play/ID      a game (?pace=MS between agent moves)
//   /watch                  the replay files               /watch/ROOT/PATH?game=I&d=K   a replay, decision K
//   /judge                  the output folders             /run/ROOT/PATH                one output folder
// Every game's board is HTML drawn by the server from what the player's seat may see; its clickable
// parts carry data-part, and each legal move lists the parts it is made of.
"use strict";

const $ = (sel, el = document) => el.querySelector(sel);
const $$ = (sel, el = document) => Array.from(el.querySelectorAll(sel));
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let INFO = null;
let PAGE = 0;          // bumped on every route change: a loop of an old page stops
let KEYS = null;       // the current page's keyboard handler
window.aerodeckReplies = [];  // per move of the person's: milliseconds until the agent's answer was drawn

function setState(state) { document.body.dataset.state = state; }

function showError(message) {
  const el = $("#error");
  if (!message) { el.hidden = true; el.textContent = ""; return; }
  el.textContent = message; el.hidden = false;
}

async function api(method, url, data) {
  const opts = {method, headers: {}};
  if (data !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(data); }
  const r = await fetch(url, opts);
  let body = null;
  try { body = await r.json(); } catch (e) { body = null; }
  if (!r.ok) throw new Error((body && body.error) || `${r.status} ${r.statusText}`);
  return body;
}

const encPath = (p) => p.split("/").map(encodeURIComponent).join("/");
function fileUrl(ref) { return `/files/${ref.root}/${encPath(ref.path)}`; }
function watchHash(ref, game) { return `#/watch/${ref.root}/${encPath(ref.path)}` + (game !== undefined ? `?game=${game}` : ""); }

function parseHash() {
  const h = location.hash.replace(/^#/, "") || "/";
  const [path, query] = h.split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return {parts, params};
}

async function route() {
  PAGE += 1; KEYS = null; showError("");
  const {parts, params} = parseHash();
  const page = $("#page");
  const section = parts[0] || "play";
  for (const a of $$("header nav a")) a.classList.toggle("active", a.id === "nav-" + ({run: "judge"}[section] || section));
  setState("loading");
  try {
    if (!INFO) { INFO = await api("GET", "/api/info"); $("#game-styles").textContent = INFO.games.map((g) => g.style).join("\n"); }
    if (section === "play" && parts[1]) await playPage(page, parts[1], params);
    else if (section === "play") await newGamePage(page);
    else if (section === "watch" && parts.length > 2) await watchPage(page, parts[1], parts.slice(2).join("/"), params);
    else if (section === "watch") await listPage(page, "watch");
    else if (section === "judge") await listPage(page, "judge");
    else if (section === "run") await runPage(page, parts[1], parts.slice(2).join("/"));
    else { page.innerHTML = "<p>No such page.</p>"; setState("ready"); }
  } catch (e) { showError(e.message); setState("error"); }
}

document.addEventListener("keydown", (ev) => {
  if (!KEYS || ev.target.matches("input, textarea, select")) return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  KEYS(ev);
});

// --- Play: the new-game form ----------------------------------------------------------------------

async function newGamePage(page) {
  const games = INFO.games;
  page.innerHTML = `<h1>Play a game</h1>
  <form id="new-game" class="form" autocomplete="off">
    <label for="game">Game</label><select id="game" name="game">${games.map((g) => `<option value="${g.id}">${esc(g.title)}</option>`).join("")}</select>
    <label for="players">Players</label><div><select id="players" name="players"></select><small id="players-note"></small></div>
    <label for="seat">Your seat</label><div><select id="seat" name="seat"></select></div>
    <label for="opponents">Agents</label><div><input id="opponents" name="opponents" size="40">
      <small id="agents-note"></small></div>
    <label for="hint">Hint agent</label><div><input id="hint" name="hint" size="24"><small>asked by the Hint button</small></div>
    <label for="seed">Seed</label><div><input id="seed" name="seed" size="24" placeholder="random"><small>the deal: the same seed, the same game</small></div>
    <label for="pace">Agents' moves</label><div><select id="pace" name="pace"><option value="700">slow</option>
      <option value="350" selected>one by one</option><option value="0">at once</option></select><small>how fast the agents' moves are drawn</small></div>
    <label for="rules">Rule options</label><div><textarea id="rules" name="rules" rows="3" cols="40" placeholder="key=value, one a line"></textarea>
      <details><summary>the rule options</summary><table class="data small" id="options"></table></details></div>
    <span></span><div><button class="primary" type="submit" id="start">Start the game</button></div>
  </form>`;
  const form = $("#new-game");
  const sync = () => {
    const g = games.find((x) => x.id === form.game.value);
    const players = $("#players");
    players.innerHTML = g.player_counts.map((n) => `<option ${n === g.default_players ? "selected" : ""}>${n}</option>`).join("");
    players.disabled = g.solo;
    $("#players-note").textContent = g.solo ? "played solo: the agent plays the same deal beside you" : "";
    syncSeats();
    form.opponents.value = g.opponent; form.hint.value = g.opponent;
    $("#agents-note").textContent = (g.solo ? "the agent that plays the same deal. " : "the other seats' agents, one for all or one per seat (a,b,c). ")
      + "Agents: " + g.agent_help;
    $("#options").innerHTML = "<tr><th>option</th><th>default</th><th>allowed</th><th>meaning</th></tr>" + g.options.map((o) =>
      `<tr><td>${esc(o.name)}</td><td>${esc(o.default)}</td><td>${esc(o.allowed)}</td><td>${esc(o.doc)}</td></tr>`).join("");
  };
  const syncSeats = () => {
    const n = parseInt($("#players").value, 10) || 1;
    $("#seat").innerHTML = Array.from({length: n}, (_, i) => `<option value="${i}">${i === 0 ? "0 (plays first)" : i}</option>`).join("");
  };
  form.game.addEventListener("change", sync);
  $("#players").addEventListener("change", syncSeats);
  sync();
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const g = games.find((x) => x.id === form.game.value);
    const data = {game: g.id, rules: form.rules.value.split(/[\n;]/).map((s) => s.trim()).filter(Boolean),
                  seat: parseInt(form.seat.value, 10), opponents: form.opponents.value.trim(), hint: form.hint.value.trim()};
    if (!g.solo) data.players = parseInt(form.players.value, 10);
    if (form.seed.value.trim() !== "") data.seed = form.seed.value.trim();
    $("#start").disabled = true; showError("");
    try {
      const view = await api("POST", "/api/games", data);
      location.hash = `#/play/${view.id}?pace=${form.pace.value}`;
    } catch (e) { showError(e.message); $("#start").disabled = false; }
  });
  setState("ready");
}

// --- Play: a game ----------------------------------------------------------------------------------

async function playPage(page, id, params) {
  const mine = PAGE;
  const pace = params.has("pace") ? Math.max(0, parseInt(params.get("pace"), 10) || 0) : 350;
  let view = await api("GET", `/api/games/${id}`);
  let selection = [], cursor = 0, typed = "", busy = false;
  page.innerHTML = `<h1 id="title"></h1><div class="muted small" id="meta"></div>
    <div class="cols"><div><div class="board" id="board"></div><div id="rival-box"></div></div>
    <div class="panel"><div class="status" id="status"></div><div id="end" hidden></div>
      <div id="move-box"><div class="small muted">Click a move, or the board; keys: a number then Enter, ↑/↓ and Enter, Esc clears, h hint.</div>
      <div class="typed" id="typed"></div><ol class="moves" id="moves"></ol>
      <button id="hint-button">Hint</button><div id="hint-out"></div></div>
      <h2>Log</h2><div class="log" id="log"></div></div></div>`;

  const draw = () => {
    $("#title").textContent = `${view.title}`;
    $("#meta").textContent = `seed ${view.seed} · rules ${view.rules} · ` +
      view.names.map((n, h) => (view.names.length > 1 ? n : `you`)).join(", ") + (view.rival ? ` · beside you: ${view.rival.agent} on the same deal` : "");
    $("#board").innerHTML = view.board;
    if (view.rival) {
      $("#rival-box").innerHTML = `<h2>${esc(view.rival.agent)} on the same deal · decision ${view.rival.decisions}</h2>
        <div class="board rival" id="rival">${view.rival.board}</div>`;
    }
    const status = $("#status");
    status.classList.toggle("yours", view.your_turn);
    status.textContent = view.done ? (view.pending ? `game over · ${view.rival ? view.rival.agent : "the agents"} still playing…` : "game over")
      : view.your_turn ? `your turn · decision ${view.decisions + 1}` : `player_${view.to_act} (${view.agents[view.to_act]}) is deciding…`;
    $("#log").textContent = view.log.join("\n");
    $("#log").scrollTop = 1e9;
    const moves = $("#moves");
    moves.innerHTML = view.moves.map((m, i) => `<li data-action="${m.action}" data-index="${i + 1}"><span class="n">${i + 1}</span>
      <span>${esc(m.words)}${m.note ? ` <span class="note">— ${esc(m.note)}</span>` : ""}</span></li>`).join("");
    $("#move-box").hidden = !view.your_turn;
    cursor = Math.min(cursor, Math.max(view.moves.length - 1, 0));
    markBoard();
    const end = $("#end");
    if (view.done) {
      end.hidden = false;
      end.innerHTML = `<h2>Game over</h2>${view.versus ? `<div class="versus" id="versus">${esc(view.versus)}</div>` : ""}<pre id="summary">${esc(view.summary || "")}</pre>` +
        (view.rival && view.rival.summary ? `<div><b>${esc(view.rival.agent)} on the same deal:</b><pre id="rival-summary">${esc(view.rival.summary)}</pre></div>` : "") +
        (view.saved_name ? `<p>Saved as <a id="replay-file" href="/api/games/${view.id}/replay" data-path="${esc(view.saved)}" download>${esc(view.saved_name)}</a>
           (<code>aerodeck replay ${esc(view.saved)}</code>) · <a id="watch-it" href="#">watch it</a></p>` : "") +
        `<p><a href="#/">Play another game</a></p>`;
      const w = $("#watch-it");
      if (w) w.addEventListener("click", async (ev) => { ev.preventDefault(); await openSaved(); });
    }
    document.body.dataset.decisions = String(view.decisions);
    setState(view.done && !view.pending ? "over" : view.your_turn && !busy ? "your-turn" : "waiting");
  };

  const openSaved = async () => {
    const runs = await api("GET", "/api/runs");
    for (const r of runs.roots) for (const f of r.replays) if (f.path.endsWith(view.saved_name)) { location.hash = watchHash(f, 0); return; }
    showError("the saved game is not under a folder this server reads");
  };

  const markBoard = () => {
    const cands = view.moves.filter((m) => selection.every((p) => m.parts.includes(p)));
    const live = new Set(cands.flatMap((m) => m.parts));
    for (const el of $$("#board .part")) {
      el.classList.toggle("clickable", view.your_turn && live.has(el.dataset.part) && !selection.includes(el.dataset.part));
      el.classList.toggle("selected", selection.includes(el.dataset.part));
    }
    for (const li of $$("#moves li")) {
      const m = view.moves[parseInt(li.dataset.index, 10) - 1];
      li.classList.toggle("candidate", selection.length > 0 && cands.includes(m));
      li.classList.toggle("cursor", parseInt(li.dataset.index, 10) - 1 === cursor);
    }
    $("#typed").textContent = typed ? `move ${typed} ⏎` : selection.length ? `chosen: ${selection.join(" + ")} (Esc clears)` : "";
  };

  const run = async () => {  // the agents' decisions, one at a time, each drawn
    while (view.pending && PAGE === mine) {
      await sleep(pace);
      if (PAGE !== mine) return;
      view = await api("POST", `/api/games/${id}/advance`);
      if (PAGE === mine) draw();
    }
  };

  const play = async (action) => {
    if (busy || !view.your_turn) return;
    busy = true; selection = []; typed = ""; setState("waiting");
    $("#hint-out").innerHTML = "";
    const sent = performance.now();
    try {
      const answered = await api("POST", `/api/games/${id}/move`, {action, reply: true});
      const replied = Boolean(answered.moved);
      if (replied && pace > 0) {  // the move, then the first agent decision after it, one after the other
        view = answered.moved; busy = false; draw();
        await sleep(pace);
        if (PAGE !== mine) return;
      }
      delete answered.moved;
      view = answered; busy = false; draw();
      // the time from the click to the agent's answer painted (the frame after it is drawn): what
      // benchmarks/serve_latency.py --browser reads
      if (replied) requestAnimationFrame(() => setTimeout(() => window.aerodeckReplies.push(performance.now() - sent - pace), 0));
      await run();
    } catch (e) { busy = false; showError(e.message); draw(); }
  };

  $("#moves").addEventListener("click", (ev) => {
    const li = ev.target.closest("li");
    if (li) play(parseInt(li.dataset.action, 10));
  });
  $("#board").addEventListener("click", (ev) => {
    const el = ev.target.closest(".part");
    if (!el || !view.your_turn || busy) return;
    const part = el.dataset.part;
    if (selection.includes(part)) { selection = selection.filter((p) => p !== part); markBoard(); return; }
    let next = [...selection, part];
    let cands = view.moves.filter((m) => next.every((p) => m.parts.includes(p)));
    if (!cands.length) { next = [part]; cands = view.moves.filter((m) => m.parts.includes(part)); }
    if (!cands.length) return;
    const exact = cands.filter((m) => m.parts.length === next.length);
    if (exact.length === 1 && cands.length === 1 || exact.length === 1 && next.length > 1) { play(exact[0].action); return; }
    selection = next; markBoard();
  });
  $("#hint-button").addEventListener("click", async () => {
    try {
      const h = await api("POST", `/api/games/${id}/hint`);
      const ratings = h.ratings ? `<div class="small">its ratings: ${h.ratings.map((r) => `${esc(r[1])} ${r[2]}`).join(" · ")}</div>` : "";
      $("#hint-out").innerHTML = `<div class="hint"><b>${esc(h.agent)}:</b> ${esc(h.words)} — ${esc(h.why)}${ratings}</div>`;
      const i = view.moves.findIndex((m) => m.action === h.action);
      if (i >= 0) { cursor = i; markBoard(); }
    } catch (e) { showError(e.message); }
  });
  KEYS = (ev) => {
    if (!view.your_turn || busy) return;
    if (/^[0-9]$/.test(ev.key)) { typed += ev.key; markBoard(); ev.preventDefault(); }
    else if (ev.key === "Backspace") { typed = typed.slice(0, -1); markBoard(); ev.preventDefault(); }
    else if (ev.key === "Escape") { typed = ""; selection = []; markBoard(); }
    else if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      cursor = (cursor + (ev.key === "ArrowDown" ? 1 : -1) + view.moves.length) % view.moves.length;
      typed = ""; markBoard(); ev.preventDefault();
      const li = $(`#moves li[data-index="${cursor + 1}"]`); if (li) li.scrollIntoView({block: "nearest"});
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      if (typed) {
        const n = parseInt(typed, 10); typed = "";
        if (n >= 1 && n <= view.moves.length) play(view.moves[n - 1].action);
        else { showError(`there is no move ${n}: the list has moves 1..${view.moves.length}`); markBoard(); }
      } else if (view.moves.length) play(view.moves[cursor].action);
    } else if (ev.key === "h") $("#hint-button").click();
  };
  draw();
  await run();
}

// --- Lists: replay files (Watch) and output folders (Judge) -------------------------------------------

async function listPage(page, what) {
  const data = await api("GET", "/api/runs");
  const when = (t) => new Date(t * 1000).toLocaleString();
  let html = what === "watch" ? "<h1>Watch a replay</h1>" : "<h1>Judge: output folders</h1>";
  for (const root of data.roots) {
    html += `<h2>${esc(root.folder)}${root.games ? " <span class='muted small'>(games played here)</span>" : ""}</h2>`;
    if (what === "watch") {
      const files = [...root.replays];
      html += files.length ? `<ul class="list replays">` + files.map((f) =>
        `<li><a href="${watchHash(f)}">${esc(f.path)}</a> <span class="muted small">${when(f.modified)}</span></li>`).join("") + "</ul>"
        : "<p class='muted'>no replay files</p>";
    } else {
      html += root.runs.length ? `<table class="data runs"><tr><th>folder</th><th>tool</th><th>command</th><th>written</th></tr>` +
        root.runs.map((r) => `<tr><td><a href="#/run/${r.root}/${esc(encPath(r.path))}">${esc(r.path)}</a></td><td>${esc(r.kind)}</td>
          <td><code>${esc(r.command)}</code></td><td class="small">${when(r.modified)}</td></tr>`).join("") + "</table>"
        : "<p class='muted'>no output folders</p>";
    }
  }
  if (!data.roots.length) html += "<p class='muted'>This server reads no folders: start it with <code>aerodeck serve --runs DIR</code>.</p>";
  page.innerHTML = html;
  setState("ready");
}

// --- Watch: one replay file ------------------------------------------------------------------------

async function watchPage(page, root, path, params) {
  const mine = PAGE;
  const q = `root=${encodeURIComponent(root)}&path=${encodeURIComponent(path)}`;
  const file = await api("GET", `/api/replay?${q}`);
  const game = Math.min(parseInt(params.get("game") || "0", 10) || 0, Math.max(file.games.length - 1, 0));
  page.innerHTML = `<h1>${esc(file.title)} · ${esc(path)}</h1>
    <div class="muted small">rules ${esc(file.rules)}${file.source ? " · written by " + esc(file.source) : ""} · ${file.games.length} game(s)</div>
    <div class="controls"><label for="game-pick">game</label><select id="game-pick">${file.games.map((g) =>
      `<option value="${g.index}" ${g.index === game ? "selected" : ""}>${g.index}: seed ${g.seed} · ${esc(g.agents.join(", "))} · ${g.decisions} decisions · score ${esc(JSON.stringify(g.result.score))}</option>`).join("")}</select></div>
    <div id="film"></div>`;
  $("#game-pick").addEventListener("change", (ev) => { location.hash = `#/watch/${root}/${encPath(path)}?game=${ev.target.value}`; });
  if (!file.games.length) { $("#film").innerHTML = "<p>The file holds no games.</p>"; setState("ready"); return; }
  const film = await api("GET", `/api/replay/game?${q}&game=${game}`);
  if (PAGE !== mine) return;
  const last = film.frames.length - 1;
  let i = Math.min(Math.max(parseInt(params.get("d") || "0", 10) || 0, 0), last);
  $("#film").innerHTML = `<div class="controls">
      <button id="first" title="Home">« start</button><button id="back" title="←">◀ back</button>
      <button id="next" title="→">next ▶</button><button id="last" title="End">end »</button>
      <label for="jump">decision</label><input id="jump" type="number" min="0" max="${last}" style="width:5em"><button id="go">jump</button>
      <span id="where" class="muted"></span></div>
    <div class="caption" id="caption"></div>
    <div class="cols"><div class="board" id="board"></div>
      <div class="panel"><div id="did"></div><div id="next-caption" class="small muted"></div>
        <h2>Legal moves here</h2><ol class="moves readonly" id="moves"></ol><div id="cands"></div></div></div>`;
  const show = () => {
    const f = film.frames[i];
    document.body.dataset.decision = String(i);
    $("#where").textContent = `${i} / ${last}`;
    $("#caption").textContent = f.caption;
    $("#board").innerHTML = f.board;
    $("#did").innerHTML = f.did.length ? `<div class="log">${esc(f.did.join("\n"))}</div>` : "";
    $("#next-caption").textContent = f.next ? "next: " + f.next : `end of the game · result ${JSON.stringify(film.result)}`;
    $("#moves").innerHTML = f.moves.map((m, k) => `<li class="${m.action === f.chosen ? "chosen" : ""}"><span class="n">${k + 1}</span>
      <span>${esc(m.words)}${m.note ? ` <span class="note">— ${esc(m.note)}</span>` : ""}${m.action === f.chosen ? " ← chosen" : ""}</span></li>`).join("");
    const chosen = $("#moves li.chosen");  // the move chosen, scrolled into the list's view
    if (chosen) $("#moves").scrollTop = chosen.offsetTop - $("#moves").offsetTop - 60;
    $("#cands").innerHTML = f.candidates ? `<h2>The agent's candidates</h2><table class="data" id="candidates"><tr><th>move</th><th>value</th></tr>` +
      f.candidates.map((c) => `<tr class="${c[0] === f.chosen ? "chosen" : ""}"><td>${esc(c[1])}</td><td>${c[2]}</td></tr>`).join("") + "</table>" : "";
    $("#first").disabled = $("#back").disabled = i === 0;
    $("#next").disabled = $("#last").disabled = i === last;
    history.replaceState(null, "", `#/watch/${root}/${encPath(path)}?game=${game}&d=${i}`);
  };
  const go = (k) => { i = Math.min(Math.max(k, 0), last); show(); };
  $("#first").onclick = () => go(0); $("#back").onclick = () => go(i - 1);
  $("#next").onclick = () => go(i + 1); $("#last").onclick = () => go(last);
  $("#go").onclick = () => go(parseInt($("#jump").value, 10) || 0);
  $("#jump").addEventListener("keydown", (ev) => { if (ev.key === "Enter") $("#go").click(); });
  KEYS = (ev) => {
    if (ev.key === "ArrowRight" || ev.key === "n") go(i + 1);
    else if (ev.key === "ArrowLeft" || ev.key === "b") go(i - 1);
    else if (ev.key === "Home") go(0);
    else if (ev.key === "End") go(last);
    else if (ev.key === "j") { ev.preventDefault(); $("#jump").focus(); }
  };
  show();
  setState("ready");
}

// --- Judge: one output folder ------------------------------------------------------------------------

function curve(table) {  // evaluations.csv: value (and its interval) against steps
  const col = (name) => table.header.indexOf(name);
  const [xs, ys, lo, hi] = ["steps", "value", "low", "high"].map(col);
  if (xs < 0 || ys < 0) return "";
  const pts = table.rows.map((r) => [parseFloat(r[xs]), parseFloat(r[ys]), parseFloat(r[lo]), parseFloat(r[hi])]).filter((p) => isFinite(p[0]) && isFinite(p[1]));
  if (!pts.length) return "<p class='muted'>no evaluations yet</p>";
  const W = 640, H = 300, m = 48;
  const xmin = Math.min(...pts.map((p) => p[0])), xmax = Math.max(...pts.map((p) => p[0])) || 1;
  const vals = pts.flatMap((p) => [p[1], p[2], p[3]]).filter(isFinite);
  let ymin = Math.min(...vals), ymax = Math.max(...vals); if (ymax === ymin) { ymax += 1; ymin -= 1; }
  const X = (x) => m + (W - 2 * m) * (xmax === xmin ? 0.5 : (x - xmin) / (xmax - xmin));
  const Y = (y) => H - m - (H - 2 * m) * (y - ymin) / (ymax - ymin);
  const band = pts.filter((p) => isFinite(p[2]) && isFinite(p[3]));
  const poly = band.length ? band.map((p) => `${X(p[0])},${Y(p[3])}`).concat(band.slice().reverse().map((p) => `${X(p[0])},${Y(p[2])}`)).join(" ") : "";
  const figure = table.rows.length && col("figure") >= 0 ? table.rows[0][col("figure")] : "value";
  return `<svg class="curve" id="curve" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">
    ${poly ? `<polygon points="${poly}" fill="#2f6fd0" opacity="0.15"/>` : ""}
    <polyline points="${pts.map((p) => `${X(p[0])},${Y(p[1])}`).join(" ")}" fill="none" stroke="#2f6fd0" stroke-width="2"/>
    ${pts.map((p) => `<circle cx="${X(p[0])}" cy="${Y(p[1])}" r="3" fill="#2f6fd0"><title>${p[0]} steps: ${p[1]}</title></circle>`).join("")}
    <line x1="${m}" y1="${H - m}" x2="${W - m}" y2="${H - m}" stroke="#888"/><line x1="${m}" y1="${m}" x2="${m}" y2="${H - m}" stroke="#888"/>
    <text x="${W / 2}" y="${H - 12}" text-anchor="middle" font-size="12">steps (${xmin} … ${xmax})</text>
    <text x="12" y="${m - 12}" font-size="12">${esc(figure)} (${ymin.toPrecision(3)} … ${ymax.toPrecision(3)})</text></svg>`;
}

function csvTable(t) {
  return `<table class="data small"><tr>${t.header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>` +
    t.rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("") + "</table>" +
    (t.total > t.rows.length ? `<p class="muted small">the first ${t.rows.length} of ${t.total} rows</p>` : "");
}

async function runPage(page, root, path) {
  const run = await api("GET", `/api/run?root=${encodeURIComponent(root)}&path=${encodeURIComponent(path)}`);
  const byName = {};
  for (const r of run.rows || []) if (r.replay) byName[`${r.variant} / ${r.table}`] = r.replay;
  let html = `<h1>${esc(run.kind)} · ${esc(run.path)}</h1><div class="muted small"><code>${esc(run.command)}</code></div>`;
  if (run.summary) html += `<h2>Verdict</h2><div class="summary" id="verdict">${run.summary}</div>`;
  if (run.rows && run.rows.length) {
    html += `<h2>Rows and the games behind them</h2><table class="data" id="rows"><tr><th>variant</th><th>table</th><th>rule options</th><th>games</th></tr>` +
      run.rows.map((r) => `<tr><td>${esc(r.variant)}</td><td>${esc(r.table)}</td><td class="small">${esc(r.rules || "default")}</td>
        <td>${r.replay ? `<a class="games" href="${watchHash(r.replay)}">watch the games</a>` : "<span class='muted small'>not saved (--save-games K)</span>"}</td></tr>`).join("") + "</table>";
  }
  if (run.evaluations) html += `<h2>Evaluations</h2>${curve(run.evaluations)}<details><summary>evaluations.csv</summary>${csvTable(run.evaluations)}</details>`;
  if (run.plots.length) html += `<h2>Plots</h2><div class="plots">` + run.plots.map((p) =>
    `<figure><img src="${fileUrl(p)}" alt="${esc(p.path)}" loading="lazy"><figcaption>${esc(p.path.split("/").pop())}</figcaption></figure>`).join("") + "</div>";
  if (run.replays.length && !(run.rows && run.rows.length)) html += `<h2>Replays</h2><ul class="list">` +
    run.replays.map((r) => `<li><a href="${watchHash(r)}">${esc(r.name)}</a></li>`).join("") + "</ul>";
  for (const t of run.tables) html += `<details><summary>${esc(t.name)} (${t.total} rows)</summary>${csvTable(t)}</details>`;
  if (run.report) html += `<h2>report.md</h2><div class="report" id="report">${run.report}</div>`;
  html += `<h2>Files</h2><ul class="list small">` + run.files.map((f) =>
    `<li><a href="${fileUrl({root: run.root, path: run.path ? run.path + "/" + f : f})}">${esc(f)}</a></li>`).join("") + "</ul>";
  page.innerHTML = html;
  // the games behind a row of the report's tables: "variant / table" cells get a link to their replays
  for (const td of $$("#report td")) {
    const ref = byName[td.textContent.trim()];
    if (ref) td.insertAdjacentHTML("beforeend", ` <a class="games" href="${watchHash(ref)}">games</a>`);
  }
  setState("ready");
}

window.addEventListener("hashchange", route);
route();
