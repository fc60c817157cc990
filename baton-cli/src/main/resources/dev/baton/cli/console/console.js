// The Baton console: renders /api/events' pictures. Every text from the server goes in through
// textContent, never as HTML: paths and thread names may hold any character.
'use strict';

let latest = null;

// A console with a token is opened at .../#token=TOKEN: the fragment never goes to the server.
// The token is kept for this tab only and taken out of the address bar.
const token = (() => {
  const found = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (found) {
    sessionStorage.setItem('baton-token', decodeURIComponent(found[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem('baton-token');
})();

function withToken(headers) {
  if (token) headers.Authorization = 'Bearer ' + token;
  return headers;
}
let skew = 0; // server clock minus this page's, so that waits count from the server's time

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function seconds(ms) {
  if (ms < 0) ms = 0;
  return ms < 10000 ? (ms / 1000).toFixed(1) + ' s' : Math.round(ms / 1000) + ' s';
}

function ownerLine(owner, now, waiting, heldWord) {
  const who = owner.host + (owner.pid ? ' pid ' + owner.pid : '') + (owner.thread ? ' ' + owner.thread : '');
  const since = waiting ? ', waiting ' + seconds(now - owner.queuedAtMillis) : ', ' + (heldWord || 'queued') + ' ' + seconds(now - owner.queuedAtMillis) + ' ago';
  return el('span', who + ' token ' + owner.token + since, 'owner');
}

function rows(tableId, items, render, columns) {
  const body = document.querySelector('#' + tableId + ' tbody');
  body.replaceChildren();
  if (!items || items.length === 0) {
    const tr = el('tr');
    const td = el('td', 'none', 'empty');
    td.colSpan = columns;
    tr.append(td);
    body.append(tr);
    return;
  }
  for (const item of items) body.append(render(item));
}

function post(url, body, button, done) {
  button.disabled = true;
  fetch(url, { method: 'POST', headers: withToken({ 'Content-Type': 'application/json' }), body: JSON.stringify(body) })
    .then(r => r.json().then(answer => ({ ok: r.ok, answer })))
    .then(({ ok, answer }) => { button.textContent = ok ? done(answer) : 'refused'; button.title = answer.error || ''; })
    .catch(e => { button.textContent = 'failed'; button.title = String(e); });
}

function revoke(path, button) {
  post('api/revoke', { path }, button, answer => answer.asked ? 'asked' : 'free');
}

function writeButton(label, title, action) {
  const button = el('button', label);
  button.disabled = !(latest && latest.allowWrites);
  button.title = button.disabled ? 'start the console with --allow-writes' : title;
  button.addEventListener('click', () => action(button));
  return button;
}

function showHistory(prefix, key) {
  const box = document.getElementById('history');
  box.hidden = false;
  box.replaceChildren(el('h3', 'History of ' + key + ' below ' + prefix));
  fetch('api/config/history?prefix=' + encodeURIComponent(prefix) + '&key=' + encodeURIComponent(key),
    { headers: withToken({}) })
    .then(r => r.json())
    .then(answer => {
      if (answer.error) { box.append(el('p', answer.error, 'empty')); return; }
      if (answer.revisions.length === 0) box.append(el('p', 'no history kept for this key', 'empty'));
      for (const r of answer.revisions) {
        const line = el('div', 'version ' + r.version + ', ' + r.operation + ' by ' + r.host + ' pid ' + r.pid
          + (r.authId ? ' as ' + r.authId : '') + ' at ' + r.time + (r.value !== null ? ': ' + r.value : ''), 'owner');
        if (r.version >= 0 && r.value !== null) {
          line.append(' ', writeButton('roll back to this', 'write this value back',
            b => post('api/config/rollback', { prefix, key, version: r.version }, b, a => 'now version ' + a.version)));
        }
        box.append(line);
      }
    });
}

function render() {
  if (!latest) return;
  const s = latest;
  const now = Date.now() + skew;
  document.getElementById('root').textContent = s.root;
  const connection = document.getElementById('connection');
  connection.textContent = s.connection + (s.synced ? '' : ' (catching up)');
  connection.className = 'state ' + s.connection;
  const banner = document.getElementById('banner');
  const down = s.connection === 'LOST' || s.connection === 'SUSPENDED' || s.connection === 'DISCONNECTED';
  const store = s.backend || 'ZooKeeper';
  if (s.backend) {
    // A store that keeps locks only (Redis): no elections, services, config or queues to show.
    for (const id of ['elections', 'services', 'config', 'queues']) document.getElementById(id).closest('section').hidden = true;
    document.querySelector('footer').textContent = 'Read from ' + store + ' every second (server-sent events); times count here, between pictures.';
  }
  const notes = [];
  if (down) notes.push('The connection to ' + store + ' is ' + s.connection + ': what you see may be out of date; it reloads once the connection is back.');
  if (s.problem) notes.push('The console ' + s.problem + '; showing the last picture read.');
  if (s.truncated) notes.push('Too many locks: ' + s.truncated + '.');
  banner.hidden = notes.length === 0;
  banner.textContent = notes.join(' ');

  rows('locks', s.locks, lock => {
    const tr = el('tr');
    tr.dataset.path = lock.path;
    tr.append(el('td', lock.path), el('td', lock.kind));
    const holders = el('td');
    // ZooKeeper's semaphore shows its lease nodes; Redis's its holders, one per permit.
    if (lock.kind === 'semaphore' && lock.leases !== undefined) holders.textContent = lock.leases + ' lease nodes';
    else if (!lock.holders || lock.holders.length === 0) holders.append(el('span', 'free', 'empty'));
    // On Redis a holder's time is its grant's, by the server's clock.
    else lock.holders.forEach(o => holders.append(ownerLine(o, now, false, s.backend === 'Redis' ? 'granted' : null)));
    // Redis: the lock key's time to live, counted down between pictures.
    if (lock.expiresAtMillis) holders.append(el('span', 'expires in ' + seconds(lock.expiresAtMillis - now), 'expiry'));
    if (lock.layout) holders.title = lock.layout + ' layout';
    const waiters = el('td');
    (lock.waiters || []).forEach(o => waiters.append(ownerLine(o, now, true)));
    const action = el('td');
    if (lock.kind === 'mutex' && lock.holders && lock.holders.length > 0 && !s.backend) {
      const button = el('button', 'revoke');
      button.disabled = !s.allowWrites;
      button.title = s.allowWrites ? 'ask the holder to let go' : 'start the console with --allow-writes';
      button.addEventListener('click', () => revoke(lock.path, button));
      action.append(button);
    }
    tr.append(holders, waiters, action);
    if (lock.error) tr.title = lock.error;
    return tr;
  }, 5);
  rows('elections', s.elections, e => {
    const tr = el('tr');
    tr.append(el('td', e.path), el('td', e.leader || 'nobody'), el('td', (e.participants || []).slice(1).join(', ')));
    return tr;
  }, 3);
  rows('services', s.services, svc => {
    const tr = el('tr');
    const instances = el('td');
    (svc.instances || []).forEach(i => instances.append(el('span',
        i.id + (i.address ? ' ' + i.address + (i.port ? ':' + i.port : '') : '') + (i.enabled === false ? ' (down)' : ''),
        'owner' + (i.enabled === false ? ' down' : ''))));
    tr.append(el('td', svc.path), instances);
    return tr;
  }, 2);
  const keys = [];
  for (const center of (s.config || [])) for (const k of center.keys) keys.push({ prefix: center.prefix, k });
  rows('config', keys, ({ prefix, k }) => {
    const tr = el('tr');
    const actions = el('td');
    const history = el('button', 'history');
    history.addEventListener('click', () => showHistory(prefix, k.key));
    actions.append(history);
    if (k.gray) {
      actions.append(' ', writeButton('promote', 'release the candidate to every instance',
        b => post('api/config/promote', { prefix, key: k.key }, b, () => 'promoted')));
      actions.append(' ', writeButton('abort', 'remove the candidate',
        b => post('api/config/abort', { prefix, key: k.key }, b, () => 'aborted')));
    }
    tr.append(el('td', prefix + ' ' + k.key), el('td', k.value), el('td', k.version),
      el('td', k.gray ? k.gray.candidate + ' for ' + k.gray.rule : ''), actions);
    return tr;
  }, 5);
  rows('queues', s.queues, q => {
    const tr = el('tr');
    tr.append(el('td', q.path), el('td', q.items));
    return tr;
  }, 2);
}

function connect() {
  // An EventSource cannot send headers: the stream alone takes the token in its query.
  const events = new EventSource('api/events' + (token ? '?token=' + encodeURIComponent(token) : ''));
  events.addEventListener('state', m => {
    latest = JSON.parse(m.data);
    skew = latest.now - Date.now();
    document.body.dataset.updated = String(latest.now);
    render();
  });
  events.addEventListener('problem', m => {
    const banner = document.getElementById('banner');
    banner.hidden = false;
    banner.textContent = 'The console could not read the tree: ' + JSON.parse(m.data);
  });
  events.onerror = () => {
    const connection = document.getElementById('connection');
    connection.textContent = 'console unreachable, retrying';
    connection.className = 'state LOST';
    if (events.readyState === EventSource.CLOSED) {
      // Refused, not unreachable: say why (a missing token, a Host not allowed).
      fetch('api/state', { headers: withToken({}) }).then(r => r.ok ? null : r.json()).then(answer => {
        if (!answer) return;
        const banner = document.getElementById('banner');
        banner.hidden = false;
        banner.textContent = 'The console refused this page: ' + answer.error;
        connection.textContent = 'refused';
      }).catch(() => {});
    }
  };
}

setInterval(render, 1000);
connect();
