// The attention explorer's page: asks /api/correct (or /api/pronounce) and /api/embeddings and draws their
// answers as SVG.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const CELL = 28, LEFT = 36, TOP = 24; // heatmap cell size and label margins, px
const CLASS_COLOURS = {vowel: "#D55E00", consonant: "#0072B2", other: "#777777"}; // as typofix.insight.plots
// Attention weight 0 to 1: white to deep blue, darker = more attention (as typofix.insight.plots draws the PNGs).
const ATTENTION_COLOURS = ["#f7fbff", "#08306b"];
const BAR = {gap: 14, width: 12, label: 52}; // the weight scale right of the heatmap, px

function make(ns, tag, attrs = {}, text = "") {
  const el = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  if (text !== "") el.textContent = text;
  return el;
}
const svg = (tag, attrs, text) => make(SVG, tag, attrs, text);
const html = (tag, attrs, text) => make(null, tag, attrs, text);
const $ = (id) => document.getElementById(id);

async function api(path) {
  const response = await fetch(path);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

function shade(weight) { // a straight line from ATTENTION_COLOURS[0] (weight 0) to ATTENTION_COLOURS[1] (1)
  const [from, to] = ATTENTION_COLOURS.map(rgb);
  return `rgb(${from.map((c, i) => Math.round(c + (to[i] - c) * weight)).join(",")})`;
}

// The weight scale beside a heatmap: 1 at the top, 0 at the bottom, as the PNGs' colour bar.
let colourBars = 0; // each bar's gradient gets an id of its own: ids are the document's, not the svg's
function colourBar(x, y, height) {
  const bar = svg("g", {class: "colourbar", "aria-label": "attention weight scale, 0 to 1"});
  const id = `attention-scale-${++colourBars}`;
  const gradient = svg("linearGradient", {id, x1: 0, y1: 1, x2: 0, y2: 0});
  ATTENTION_COLOURS.forEach((colour, i) => gradient.append(svg("stop", {offset: i, "stop-color": colour})));
  const defs = svg("defs");
  defs.append(gradient);
  bar.append(defs, svg("rect", {x, y, width: BAR.width, height, fill: `url(#${id})`, class: "scale"}),
             svg("text", {x: x + BAR.width + 4, y: y + 9, class: "tick"}, "1"),
             svg("text", {x: x + BAR.width + 4, y: y + height - 2, class: "tick"}, "0"),
             svg("text", {x: x + BAR.width + 16, y: y + height / 2, class: "title",
                          transform: `rotate(90 ${x + BAR.width + 16} ${y + height / 2})`}, "attention weight"));
  return bar;
}

// Rows: the characters written (then </s>), columns: the characters read; one rect per weight.
function heatmap(inputChars, candidate, readout) {
  const rows = candidate.out_chars, matrixWidth = LEFT + CELL * inputChars.length, height = TOP + CELL * rows.length;
  const width = matrixWidth + BAR.gap + BAR.width + BAR.label;
  const root = svg("svg", {class: "heatmap", width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
                           "aria-label": `attention while writing ${candidate.word}`});
  inputChars.forEach((ch, j) => root.append(svg("text", {x: LEFT + CELL * (j + 0.5), y: TOP - 8, class: "in"}, ch)));
  rows.forEach((out, t) => {
    const label = {x: LEFT - 5, y: TOP + CELL * (t + 0.5) + 5, class: t === rows.length - 1 ? "out end" : "out"};
    root.append(svg("text", label, out));
    inputChars.forEach((ch, j) => {
      const weight = candidate.attn[t][j];
      const cell = svg("rect", {x: LEFT + CELL * j, y: TOP + CELL * t, width: CELL, height: CELL, fill: shade(weight),
                                "data-out": t, "data-in": j, "data-weight": weight});
      cell.append(svg("title", {}, `writing ${out} (${t}), reading ${ch} (${j}): ${weight.toFixed(3)}`));
      cell.addEventListener("mouseenter", () => {
        readout.textContent =
          `writing “${out}” (row ${t}) while reading “${ch}” (column ${j}): weight ${weight.toFixed(4)}`;
      });
      root.append(cell);
    });
  });
  root.append(colourBar(matrixWidth + BAR.gap, TOP, CELL * rows.length));
  for (const change of candidate.changes) { // the typo, framed as typofix plot-attention marks it
    const x = LEFT + CELL * change.start, y = TOP, h = CELL * rows.length;
    root.append(change.start === change.end
      ? svg("line", {x1: x, x2: x, y1: y, y2: y + h, class: "mark"})
      : svg("rect", {x, y, width: CELL * (change.end - change.start), height: h, class: "mark"}));
  }
  return root;
}

// One model's answer for one word: its candidates (click one for its alignment), the explanation, the heatmap.
// A pronunciation is drawn as a candidate too: its phones are its word, its rows are named in ARPAbet.
function panel(entry, result, name, kind = "panel") {
  const box = html("div", {class: kind, "data-model": result.model});
  const list = html("ol", {class: "candidates"}), explanation = html("p", {class: "explain"});
  const figure = html("div", {class: "figure"});
  const readout = html("p", {class: "readout"}, "Hover a cell for its weight.");
  const buttons = result.candidates.map((candidate, i) => {
    const button = html("button", {type: "button", "data-word": candidate.word});
    button.append(html("span", {class: "word"}, candidate.word),
                  html("span", {class: "score"}, candidate.score === null ? "" : candidate.score.toFixed(3)));
    button.addEventListener("click", () => show(i));
    const item = html("li");
    item.append(button);
    list.append(item);
    return button;
  });
  function show(i) {
    const candidate = result.candidates[i];
    buttons.forEach((button, j) => button.setAttribute("aria-pressed", String(i === j)));
    explanation.textContent = candidate.explanation;
    figure.replaceChildren(candidate.attn ? heatmap(entry.chars, candidate, readout)
                                          : html("p", {class: "note"}, "This model has no attention to show."));
  }
  const body = html("div", {class: "body"});
  body.append(list, figure);
  box.append(html("h3", {}, name), explanation, body, readout);
  show(0);
  return box;
}

// The pronounce view: per word, the letter-to-phone model's pronunciations as one panel each.
function renderPronounced(answer) {
  $("corrected").replaceChildren();
  $("words").replaceChildren(...answer.words.map((entry) => {
    const listed = entry.listed.length ? `CMUdict: ${entry.listed.join(", ")}` : "not in CMUdict";
    const candidates = entry.pronunciations.map((p) => ({word: p.phones, score: p.score, attn: p.attn,
      out_chars: p.out_chars, changes: [], explanation: `${entry.input} -> ${p.phones}  (${listed})`}));
    const section = html("section", {class: "word"});
    const row = html("div", {class: "row"});
    if (candidates.length) row.append(panel(entry, {model: "pronounce", candidates}, answer.model, "panel pronounce"));
    else row.append(html("p", {class: "note"}, `The model writes no phone for ${entry.input}.`));
    section.append(html("h2", {}, entry.input), row);
    return section;
  }));
  $("status").textContent = answer.words.length ? "" : "No word to pronounce in that text.";
}

function render(answer, names) {
  const several = answer.models.length > 1;
  $("corrected").replaceChildren(...answer.models.map((m) => {
    const line = html("span", {class: "line"}, m.corrected);
    if (several) line.append(html("small", {}, ` ${names[m.index]}`));
    return line;
  }));
  $("words").replaceChildren(...answer.words.map((entry) => {
    const section = html("section", {class: "word"});
    const row = html("div", {class: "row"});
    entry.results.forEach((result) => row.append(panel(entry, result, names[result.model])));
    section.append(html("h2", {}, entry.input), row);
    return section;
  }));
  $("status").textContent = answer.words.length ? "" : "No word to correct in that text.";
}

// The embedding map: a label per letter over a faint dot, vowels ringed.
function embeddingMap(map) {
  const size = 340, pad = 24, xs = map.points.map((p) => p[0]), ys = map.points.map((p) => p[1]);
  const scale = (v, lo, hi) => pad + (size - 2 * pad) * (hi > lo ? (v - lo) / (hi - lo) : 0.5);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const root = svg("svg", {class: "embeddings", width: size, height: size, viewBox: `0 0 ${size} ${size}`, role: "img",
                           "aria-label": "character embedding map"});
  root.append(svg("rect", {x: 0.5, y: 0.5, width: size - 1, height: size - 1, class: "frame"}));
  map.symbols.forEach((symbol, i) => {
    const x = scale(xs[i], x0, x1), y = size - scale(ys[i], y0, y1), kind = map.classes[i];
    const group = svg("g", {class: kind, "data-symbol": symbol});
    group.append(svg("circle", {cx: x, cy: y, r: 10, fill: CLASS_COLOURS[kind], "fill-opacity": 0.15,
                                stroke: kind === "vowel" ? CLASS_COLOURS.vowel : "none"}),
                 svg("text", {x, y: y + 5, fill: CLASS_COLOURS[kind]}, symbol),
                 svg("title", {}, `${symbol} (${kind}): ${xs[i].toFixed(3)}, ${ys[i].toFixed(3)}`));
    root.append(group);
  });
  const axes = html("p", {class: "note"}, `PC1 ${(100 * map.explained[0]).toFixed(1)}% of variance (across), ` +
                                          `PC2 ${(100 * map.explained[1]).toFixed(1)}% (up)`);
  return [root, axes];
}

async function showMap(model) {
  try {
    const answer = await api(`/api/embeddings?model=${model}`);
    $("map-model").textContent = answer.name;
    $("embeddings").replaceChildren(...(answer.map ? embeddingMap(answer.map)
      : [html("p", {class: "note"}, "This model file stores no embeddings (re-export it with typofix export).")]));
  } catch (error) {
    $("embeddings").replaceChildren(html("p", {class: "error"}, error.message));
  }
}

async function run(names) {
  const params = new URLSearchParams(location.search), q = params.get("q") || "", model = params.get("model") || "";
  const pronouncing = params.get("view") === "pronounce";
  $("q").value = q;
  $("model").value = model;
  $("view").value = pronouncing ? "pronounce" : "correct";
  $("go").textContent = pronouncing ? "Pronounce" : "Correct";
  const mapShown = showMap(model === "" ? 0 : model);
  if (q.trim()) {
    $("status").textContent = pronouncing ? "Pronouncing…" : "Correcting…";
    $("status").classList.remove("error");
    try {
      const query = new URLSearchParams({q});
      if (pronouncing) renderPronounced(await api(`/api/pronounce?${query}`));
      else {
        if (model !== "") query.set("model", model);
        render(await api(`/api/correct?${query}`), names);
      }
    } catch (error) {
      $("words").replaceChildren();
      $("corrected").replaceChildren();
      $("status").textContent = error.message;
      $("status").classList.add("error");
    }
  }
  await mapShown;
}

async function start() {
  const {models} = await api("/api/models");
  const names = models.map((m) => m.attention ? `${m.name} · ${m.attention} attention` : m.name);
  models.forEach((m) => $("model").append(html("option", {value: m.index}, names[m.index])));
  if (models.length < 2) $("model").closest("label").hidden = true;
  $("ask").addEventListener("submit", (event) => { // a shareable address: /?q=...&model=...[&view=pronounce]
    event.preventDefault();
    const params = new URLSearchParams({q: $("q").value});
    if ($("model").value !== "") params.set("model", $("model").value);
    if ($("view").value === "pronounce") params.set("view", "pronounce");
    history.pushState(null, "", `/?${params}`);
    run(names);
  });
  $("model").addEventListener("change", () => $("ask").requestSubmit());
  $("view").addEventListener("change", () => $("ask").requestSubmit());
  window.addEventListener("popstate", () => run(names));
  await run(names);
}

start().catch((error) => { $("status").textContent = error.message; $("status").classList.add("error"); });
