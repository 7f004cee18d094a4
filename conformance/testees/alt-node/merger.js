#!/usr/bin/env node
// alt-node: a merger of AgentResponseUpdates written from conformance/SPEC.md §1–§3 alone
// (Node 20, standard library only), speaking the testee protocol of conformance/PROTOCOL.md.
// It exists to prove the checkers accept every answer the SPEC allows, so wherever the SPEC
// leaves a choice it takes one the reference (core/merge) does not:
//   - I1: labels the response with a turn id other than the first (see chooseLabel);
//   - G1: orders response groups by the LAST arrival of any of their updates;
//   - R3: names the last non-empty agentId of the stream; R4: the last createdAt in arrival;
//   - roles written in ASCII upper case (W3: roles compare case-insensitively);
//   - members in an order of its own;
//   - H3: a host turn whose emissions carry several responseIds is refused, not normalised.
// The in-group order is built as a topological sort of the O1/O2/I2 constraint graph that
// prefers untimestamped messages, and cross-checked against the O3 anchor text.
'use strict';
const crypto = require('crypto');

class InputError extends Error {}
const fail = (msg) => { throw new InputError(msg); };

// ---- JSON reading: strict (W2) and lossless (objects are Maps, numbers keep their text) ----

class JNum { constructor(text) { this.text = text; } }
const INT64_MIN = -(2n ** 63n), INT64_MAX = 2n ** 63n - 1n;
const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

// outer: levels around the updates (the request object and its array), not counted in messages.
function parseJson(src, maxDepth, outer = 0) {
  let i = 0;
  const where = () => {
    const before = src.slice(0, i), line = before.split('\n').length;
    return `line ${line}, column ${i - before.lastIndexOf('\n')}`;
  };
  const bad = (msg) => fail(`${msg} at ${where()}`);
  const ws = () => {
    for (let c = src.charCodeAt(i); c === 32 || c === 9 || c === 10 || c === 13; c = src.charCodeAt(++i));
  };
  const hex4 = () => {
    const h = src.slice(i, i + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) bad('bad \\u escape');
    i += 4;
    return parseInt(h, 16);
  };
  function str() {
    i++; // opening quote
    let out = '', start = i;
    for (;;) {
      const c = src.charCodeAt(i);
      if (Number.isNaN(c)) bad('unterminated string');
      if (c === 34) { out += src.slice(start, i); i++; return out; }
      if (c < 32) bad('raw control character in string');
      if (c !== 92) { i++; continue; }
      out += src.slice(start, i);
      const e = src[i + 1];
      i += 2;
      const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }[e];
      if (simple !== undefined) out += simple;
      else if (e === 'u') {
        const u = hex4();
        if (u >= 0xdc00 && u <= 0xdfff) { i -= 6; bad('lone low surrogate escape'); }
        if (u >= 0xd800 && u <= 0xdbff) {
          if (src.slice(i, i + 2) !== '\\u') { i -= 6; bad('lone high surrogate escape'); }
          i += 2;
          const lo = hex4();
          if (lo < 0xdc00 || lo > 0xdfff) { i -= 12; bad('lone high surrogate escape'); }
          out += String.fromCharCode(u, lo);
        } else out += String.fromCharCode(u);
      } else { i -= 2; bad('bad escape'); }
      start = i;
    }
  }
  function value(depth) {
    ws();
    const c = src[i];
    if (c === '{' || c === '[') {
      if (depth >= maxDepth) bad(`nesting deeper than ${maxDepth - outer}${outer ? ' inside an update' : ''} (W2)`);
      i++; ws();
      const close = c === '{' ? '}' : ']';
      const box = c === '{' ? new Map() : [];
      if (src[i] === close) { i++; return box; }
      for (;;) {
        if (c === '{') {
          ws();
          if (src[i] !== '"') bad('expected a member name');
          const at = i, key = str();
          if (box.has(key)) { i = at; bad(`duplicate key ${JSON.stringify(key)}`); }
          ws();
          if (src[i] !== ':') bad("expected ':'");
          i++;
          box.set(key, value(depth + 1));
        } else box.push(value(depth + 1));
        ws();
        if (src[i] === ',') { i++; continue; }
        if (src[i] === close) { i++; return box; }
        bad(`expected ',' or '${close}'`);
      }
    }
    if (c === '"') return str();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (src.startsWith(word, i)) { i += word.length; return v; }
    }
    NUMBER_RE.lastIndex = i;
    const m = NUMBER_RE.exec(src);
    if (!m) bad(c === undefined ? 'unexpected end of input' : 'unexpected character');
    const text = m[0];
    if (/^-?[0-9]+$/.test(text)) {
      const b = BigInt(text);
      if (b < INT64_MIN || b > INT64_MAX) bad('integer outside int64');
    } else if (!Number.isFinite(Number(text))) bad('non-finite number');
    i += text.length;
    return new JNum(text);
  }
  if (src.charCodeAt(0) === 0xfeff) i = 1;
  const v = value(0);
  ws();
  if (i < src.length) bad('trailing characters after the JSON value');
  return v;
}

// ---- JSON writing (W7): "$type" first, shortest numbers, minimal string escapes ----

function numberText(text) {
  if (/^-?[0-9]+$/.test(text)) return BigInt(text).toString(); // integers stay exact
  const d = Number(text);
  if (d === 0) return '0';
  const s = String(d);
  if (Math.abs(d) < 2 ** 53 || /e/.test(s)) return s;
  // ECMAScript writes this real as bare digits that are not its exact value: use an exponent.
  const sign = d < 0 ? '-' : '', digits = s.replace('-', ''), mant = digits.replace(/0+$/, '');
  return `${sign}${mant[0]}${mant.length > 1 ? '.' + mant.slice(1) : ''}e+${digits.length - 1}`;
}

function writeJson(v, out = []) {
  if (v === null) out.push('null');
  else if (v === true || v === false) out.push(String(v));
  else if (typeof v === 'string') out.push(JSON.stringify(v));
  else if (typeof v === 'bigint') out.push(v.toString());
  else if (v instanceof JNum) out.push(numberText(v.text));
  else if (Array.isArray(v)) {
    out.push('[');
    v.forEach((x, k) => { if (k) out.push(','); writeJson(x, out); });
    out.push(']');
  } else {
    const entries = [...v].filter(([, x]) => x !== undefined);
    entries.sort(([a], [b]) => (b === '$type') - (a === '$type')); // stable: only moves $type
    out.push('{');
    entries.forEach(([k, x], n) => { if (n) out.push(','); out.push(JSON.stringify(k), ':'); writeJson(x, out); });
    out.push('}');
  }
  return out;
}
const jsonText = (v) => writeJson(v).join('');

// ---- Timestamps (W4) ----

const TS_RE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,16}))?(Z|[+-][0-9]{2}:[0-9]{2})?$/;

function daysFromCivil(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400), yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

// The instant as [seconds since 1970 (UTC), 16-digit fraction]; fails on anything W4 forbids.
function instantOf(text, path) {
  const m = TS_RE.exec(text);
  if (!m) fail(`${path}: createdAt ${JSON.stringify(text)} is not YYYY-MM-DDThh:mm:ss[.f][Z|±hh:mm]`);
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  let off = 0;
  if (m[8] && m[8] !== 'Z') {
    const oh = Number(m[8].slice(1, 3)), om = Number(m[8].slice(4, 6));
    if (oh > 23 || om > 59) fail(`${path}: createdAt offset out of range`);
    off = (m[8][0] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  if (y < 1 || !monthDays || d < 1 || d > monthDays || h > 23 || mi > 59 || s > 59) {
    fail(`${path}: createdAt ${JSON.stringify(text)} has a field out of range`);
  }
  return [daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - off, (m[7] || '').padEnd(16, '0')];
}
const compareInstants = (a, b) => (a[0] - b[0]) || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);

// ---- Update validation (W3) ----

const STRING_FIELDS = ['responseId', 'messageId', 'createdAt', 'role', 'authorName', 'agentId',
  'finishReason', 'continuationToken', 'conversationId', 'modelId'];
const KNOWN_FIELDS = new Set([...STRING_FIELDS, 'contents', 'additionalProperties']);
const COUNTERS = ['inputTokenCount', 'outputTokenCount', 'totalTokenCount', 'cachedInputTokenCount',
  'reasoningTokenCount', 'inputAudioTokenCount', 'inputTextTokenCount', 'outputAudioTokenCount',
  'outputTextTokenCount'];
const isMap = (v) => v instanceof Map;
const given = (v) => v !== undefined && v !== null;
const nonEmpty = (v) => (typeof v === 'string' && v !== '' ? v : null);

// The int64 a usage count denotes: an integer literal or, as the Agent Framework's options allow,
// a string of one (W3). A real such as 10.0 is not an int64 integer (.NET's long reader refuses it).
function int64Of(v, path) {
  const text = v instanceof JNum ? v.text : typeof v === 'string' ? v : '';
  const b = /^-?[0-9]+$/.test(text) ? BigInt(text) : null;
  if (b === null || b < INT64_MIN || b > INT64_MAX) fail(`${path}: expected an int64 integer (or a string of one)`);
  return b;
}

function expect(obj, key, path, kind, required) {
  const v = obj.get(key);
  if (!given(v)) { if (required) fail(`${path}.${key}: required ${kind} is missing`); return; }
  const ok = kind === 'string' ? typeof v === 'string' : kind === 'object' ? isMap(v)
    : kind === 'array' ? Array.isArray(v) : typeof v === 'boolean';
  if (!ok) fail(`${path}.${key}: expected ${kind === 'object' ? 'an object' : `a ${kind}`}`);
}

function checkContent(c, path) {
  if (!isMap(c)) fail(`${path}: a content must be an object`);
  expect(c, '$type', path, 'string');
  expect(c, 'annotations', path, 'array');
  expect(c, 'additionalProperties', path, 'object');
  const type = c.get('$type');
  if (type === 'text') expect(c, 'text', path, 'string');
  if (type === 'reasoning') ['text', 'protectedData'].forEach((k) => expect(c, k, path, 'string'));
  if (type === 'functionCall') {
    expect(c, 'callId', path, 'string', true); expect(c, 'name', path, 'string', true);
    expect(c, 'arguments', path, 'object'); expect(c, 'informationalOnly', path, 'boolean');
  }
  if (type === 'functionResult') expect(c, 'callId', path, 'string', true);
  if (type === 'error') ['message', 'errorCode', 'details'].forEach((k) => expect(c, k, path, 'string'));
  if (type === 'usage') {
    expect(c, 'details', path, 'object');
    const details = c.get('details');
    if (!given(details)) return;
    for (const k of COUNTERS) if (given(details.get(k))) int64Of(details.get(k), `${path}.details.${k}`);
    expect(details, 'additionalCounts', `${path}.details`, 'object');
    for (const [k, x] of details.get('additionalCounts') || []) {
      if (given(x)) int64Of(x, `${path}.details.additionalCounts.${k}`);
    }
  }
}

function checkUpdate(u, path) {
  if (!isMap(u)) fail(`${path}: an update must be an object`);
  for (const f of STRING_FIELDS) expect(u, f, path, 'string');
  if (given(u.get('createdAt'))) instantOf(u.get('createdAt'), `${path}.createdAt`);
  expect(u, 'contents', path, 'array');
  expect(u, 'additionalProperties', path, 'object');
  (u.get('contents') || []).forEach((c, k) => checkContent(c, `${path}.contents[${k}]`));
}

// ---- Merging (§3) ----

const foldAscii = (s) => s.replace(/[A-Z]/g, (ch) => ch.toLowerCase());
const upperAscii = (s) => s.replace(/[a-z]/g, (ch) => ch.toUpperCase());
const sha256hex = (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

// I1 case 2: any id of the turn may label the response. Take one that is neither the first
// (the reference's) nor the last in arrival (MEAI's), when the turn has one; else not the first.
function chooseLabel(ids, primary) {
  const distinct = [...new Set(ids.filter(Boolean))];
  const lastArrived = ids.filter(Boolean).pop();
  const middle = distinct.filter((x) => x !== primary && x !== lastArrived);
  return middle[0] || distinct.find((x) => x !== primary) || primary;
}

// M4: an update contradicts a message when both name a role (differing case-insensitively),
// a non-empty author or a non-empty agent, and they differ.
function contradicts(msg, u) {
  const role = u.get('role');
  if (typeof role === 'string' && msg.role !== null && foldAscii(role) !== foldAscii(msg.role)) return true;
  const author = nonEmpty(u.get('authorName')), agent = nonEmpty(u.get('agentId'));
  return (author && msg.author && author !== msg.author) || (agent && msg.agent && agent !== msg.agent);
}

function newMessage(arrival, key) {
  return { arrival, key, role: null, author: null, agent: null, createdAt: null, instant: null,
    items: [], props: null, extras: new Map() };
}

// Folds one update into its message (M5, K1, C1, X1, X2); usage goes to the response (R2).
function absorb(msg, u, usage, path) {
  if (msg.role === null && typeof u.get('role') === 'string') msg.role = u.get('role');
  msg.author = msg.author || nonEmpty(u.get('authorName'));
  msg.agent = msg.agent || nonEmpty(u.get('agentId'));
  if (msg.createdAt === null && given(u.get('createdAt'))) {
    msg.createdAt = u.get('createdAt');
    msg.instant = instantOf(msg.createdAt, path);
  }
  (u.get('contents') || []).forEach((c, k) => {
    if (c.get('$type') === 'usage') usage.add(c, `${path}.contents[${k}]`);
    else msg.items.push(c);
  });
  const props = u.get('additionalProperties');
  if (given(props)) {
    msg.props = msg.props || new Map();
    for (const [k, v] of props) msg.props.set(k, v);
  }
  for (const [k, v] of u) if (!KNOWN_FIELDS.has(k)) msg.extras.set(k, v);
}

class UsageSum {
  constructor() { this.seen = false; this.counters = new Map(); this.additional = new Map(); this.others = new Map(); }
  bump(map, key, delta, path) {
    const sum = (map.get(key) || 0n) + delta;
    if (sum < INT64_MIN || sum > INT64_MAX) fail(`${path}: usage sum overflows int64 (R2)`);
    map.set(key, sum);
  }
  add(content, path) {
    this.seen = true;
    for (const [k, v] of content.get('details') || []) {
      if (COUNTERS.includes(k)) { if (given(v)) this.bump(this.counters, k, int64Of(v, path), `${path}.details.${k}`); }
      else if (k === 'additionalCounts') {
        for (const [n, x] of v || []) if (given(x)) this.bump(this.additional, n, int64Of(x, path), `${path}.details.additionalCounts`);
      } else this.others.set(k, v);
    }
  }
  toJson() {
    const out = new Map(this.others);
    if (this.additional.size) out.set('additionalCounts', new Map([...this.additional].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
    for (const k of [...COUNTERS].reverse()) if (this.counters.has(k)) out.set(k, this.counters.get(k));
    return out;
  }
}

// M6: an id-less message with no content and nothing but at most a role is left out; an empty
// additionalProperties object counts as none (M6, X2).
const written = (m) => m.key !== null || m.items.length > 0 || m.createdAt !== null || m.author !== null
  || m.agent !== null || (m.props !== null && m.props.size > 0) || m.extras.size > 0;

// O1, O2, I2, O3 inside one group: a topological sort of the constraint graph that, whenever an
// untimestamped message is free to go, places it before any timestamped one (earliest placement).
function orderGroup(msgs) {
  const T = msgs.filter((m) => m.instant).sort((x, y) => compareInstants(x.instant, y.instant) || x.arrival - y.arrival);
  const U = msgs.filter((m) => !m.instant); // msgs are in first-arrival order already
  const rank = new Map(T.map((m, r) => [m, r]));
  const after = new Map(msgs.map((m) => [m, []])), waiting = new Map(msgs.map((m) => [m, 0]));
  const edge = (from, to) => { after.get(from).push(to); waiting.set(to, waiting.get(to) + 1); };
  T.forEach((m, r) => r && edge(T[r - 1], m));                 // O1, O2
  U.forEach((m, k) => k && edge(U[k - 1], m));                 // I2.a
  msgs.forEach((m, k) => k && !m.instant && edge(msgs[k - 1], m)); // I2.b
  const ready = msgs.filter((m) => waiting.get(m) === 0), out = [];
  while (ready.length) {
    let pick = 0; // at most one U and one T are ever ready: U is a chain, T is a chain
    for (let k = 1; k < ready.length; k++) {
      const a = ready[pick], b = ready[k];
      const better = !b.instant && a.instant ? true : !!b.instant === !!a.instant
        && (b.instant ? rank.get(b) < rank.get(a) : b.arrival < a.arrival);
      if (better) pick = k;
    }
    const m = ready.splice(pick, 1)[0];
    out.push(m);
    for (const n of after.get(m)) { waiting.set(n, waiting.get(n) - 1); if (waiting.get(n) === 0) ready.push(n); }
  }
  if (out.length !== msgs.length) throw new Error('internal: the order constraints have a cycle');
  // Cross-check against O3's text: each u sits right after its anchor (the latest timestamped
  // message that immediately preceded u or an earlier untimestamped message, in arrival).
  const at = new Map(out.map((m, p) => [m, p]));
  let anchor = -1;
  msgs.forEach((m, k) => {
    if (m.instant) return;
    if (k && msgs[k - 1].instant) anchor = Math.max(anchor, rank.get(msgs[k - 1]));
    const lo = anchor < 0 ? -1 : at.get(T[anchor]), hi = anchor + 1 < T.length ? at.get(T[anchor + 1]) : out.length;
    if (!(at.get(m) > lo && at.get(m) < hi)) throw new Error('internal: O3 cross-check failed');
  });
  return out;
}

// C2: merge runs of plain text deltas and of reasoning deltas; nothing else.
const isNothing = (v) => v === null || (Array.isArray(v) && v.length === 0) || (isMap(v) && v.size === 0);
function coalesce(items) {
  const out = [];
  let run = null; // { first: Map, texts: [] }
  const close = () => {
    if (!run) return;
    if (run.texts.length > 1) run.first.set('text', run.texts.join(''));
    out.push(run.first); run = null;
  };
  for (const c of items) {
    const type = c.get('$type');
    if (run && type === run.first.get('$type')
        && [...c].every(([k, v]) => k === '$type' || k === 'text' || (type === 'reasoning' && k === 'protectedData') || isNothing(v))) {
      run.texts.push(c.get('text') || '');
      if (type === 'reasoning' && given(c.get('protectedData'))) { run.first.set('protectedData', c.get('protectedData')); close(); }
      continue;
    }
    close();
    const noNotes = !given(c.get('annotations')) || isNothing(c.get('annotations'));
    if ((type === 'text' || (type === 'reasoning' && !given(c.get('protectedData')))) && noNotes) {
      run = { first: new Map(c), texts: [c.get('text') || ''] };
    } else out.push(c);
  }
  close();
  return out;
}

function messageJson(m) {
  const out = new Map([['contents', coalesce(m.items)], ['role', m.role === null ? 'ASSISTANT' : upperAscii(m.role)]]);
  if (m.createdAt !== null) out.set('createdAt', m.createdAt);
  if (m.key !== null) out.set('messageId', m.key);
  if (m.author) out.set('authorName', m.author);
  if (m.agent) out.set('agentId', m.agent);
  if (m.props && m.props.size > 0) out.set('additionalProperties', m.props);
  for (const [k, v] of m.extras) out.set(k, v);
  return out;
}

function merge(updates, requestedId) {
  if (updates.length === 0) fail('the stream has no update (W6)');
  updates.forEach((u, a) => checkUpdate(u, `updates[${a}]`));
  const ids = updates.map((u) => nonEmpty(u.get('responseId')));
  const firstId = ids.find(Boolean);
  let primary = requestedId || firstId, label = primary;
  if (!requestedId && firstId) label = chooseLabel(ids, firstId);
  if (!primary) primary = label = 'turnstile-' + sha256hex(jsonText(updates)).slice(0, 32);

  const groups = new Map(), usage = new UsageSum();
  const resp = { finishReason: null, continuationToken: null, conversationId: null, modelId: null, agentId: null, createdAt: null };
  updates.forEach((u, a) => {
    const path = `updates[${a}]`, gid = ids[a] || primary;
    if (!groups.has(gid)) groups.set(gid, { lastArrival: a, msgs: [], byKey: new Map(), current: null });
    const g = groups.get(gid);
    g.lastArrival = a;
    const key = nonEmpty(u.get('messageId'));
    let msg = key !== null ? g.byKey.get(key) : g.current;  // M2 / M3
    if (!msg || contradicts(msg, u)) {                       // M4
      msg = newMessage(a, key);
      g.msgs.push(msg);
      if (key !== null) g.byKey.set(key, msg);
    }
    absorb(msg, u, usage, path);
    g.current = msg;
    for (const f of ['finishReason', 'continuationToken', 'conversationId', 'modelId']) {
      if (given(u.get(f))) resp[f] = u.get(f);              // R1, R6: the last non-null
    }
    resp.agentId = nonEmpty(u.get('agentId')) || resp.agentId; // R3 (any input agentId): the last
    resp.createdAt = u.get('createdAt') ?? resp.createdAt;      // R4 (any input createdAt): the last
  });

  const ordered = [...groups.values()].sort((x, y) => x.lastArrival - y.lastArrival); // G1
  const messages = ordered.flatMap((g) => orderGroup(g.msgs.filter(written)).map(messageJson));
  const out = new Map([['messages', messages]]);
  if (usage.seen) out.set('usage', usage.toJson());
  for (const f of ['finishReason', 'createdAt', 'agentId']) if (resp[f] !== null) out.set(f, resp[f]);
  out.set('responseId', label);
  for (const f of ['continuationToken', 'conversationId', 'modelId']) if (resp[f] !== null) out.set(f, resp[f]);
  return out;
}

// ---- The hosting executor (PROTOCOL.md H1–H5) ----

function host(emissions) {
  if (emissions.length === 0) fail('the turn has no emission (W6)');
  emissions.forEach((u, a) => checkUpdate(u, `emissions[${a}]`));
  const ids = [...new Set(emissions.map((u) => nonEmpty(u.get('responseId'))).filter(Boolean))];
  if (ids.length > 1) fail(`H3: the emissions carry several responseIds (${ids.join(', ')}); refusing the turn`);
  const id = ids[0] || 'alt-node-turn-' + sha256hex(jsonText(emissions)).slice(0, 32);
  const stream = emissions.map((u) => new Map(u).set('responseId', id));
  return [stream, merge(stream, id)];
}

// ---- The protocol (PROTOCOL.md) ----

function answerTo(line) {
  let req;
  try {
    req = parseJson(line, 2050, 2); // 2048 levels in an update, plus the request and its array
  } catch (e) {
    const id = /"id"\s*:\s*"([A-Za-z0-9_.$]*)"/.exec(line);
    if (!id) { process.stderr.write(`alt-node: skipping a line that is not JSON: ${e.message}\n`); return null; }
    return new Map([['id', id[1]], ['error', `request: ${e.message}`]]);
  }
  const id = isMap(req) ? req.get('id') : undefined;
  if (typeof id !== 'string') { process.stderr.write('alt-node: skipping a request without a string id\n'); return null; }
  const op = req.get('op');
  const list = (key) => {
    const v = req.get(key);
    if (!Array.isArray(v)) fail(`${key}: expected an array of updates`);
    return v.flatMap((x) => (Array.isArray(x) ? x : [x])); // W1: a value may be an array of updates
  };
  try {
    if (op === 'hello') return new Map([['id', id], ['hello', new Map([['name', 'alt-node'], ['version', '1.0.0'], ['ops', ['merge', 'host']]])]]);
    if (op === 'merge') {
      const rid = req.get('responseId');
      if (given(rid) && typeof rid !== 'string') fail('responseId: expected a string');
      return new Map([['id', id], ['response', merge(list('updates'), nonEmpty(rid))]]);
    }
    if (op === 'host') {
      const [stream, response] = host(list('emissions'));
      return new Map([['id', id], ['stream', stream], ['response', response]]);
    }
    return new Map([['id', id], ['unsupported', true]]);
  } catch (e) {
    if (!(e instanceof InputError)) process.stderr.write(`alt-node: ${id}: ${e.stack}\n`);
    return new Map([['id', id], ['error', e.message]]);
  }
}

function onLine(bytes) {
  if (bytes.length && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
  let line;
  try {
    line = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    const id = /"id"\s*:\s*"([A-Za-z0-9_.$]*)"/.exec(new TextDecoder().decode(bytes));
    if (id) process.stdout.write(jsonText(new Map([['id', id[1]], ['error', 'request: invalid UTF-8 (W2)']])) + '\n');
    return;
  }
  if (line.trim() === '') return;
  const answer = answerTo(line);
  if (answer) process.stdout.write(jsonText(answer) + '\n');
}

let pending = [];
process.stdin.on('data', (chunk) => {
  let start = 0;
  for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
    pending.push(chunk.subarray(start, nl));
    onLine(Buffer.concat(pending));
    pending = [];
    start = nl + 1;
  }
  if (start < chunk.length) pending.push(chunk.subarray(start));
});
process.stdin.on('end', () => {
  if (pending.length) onLine(Buffer.concat(pending));
  // no process.exit(): it would cut off an answer still queued for a full pipe
});
