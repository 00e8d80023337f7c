// The kvstore web console. Polls /v0/console on the node that served it and draws what it answers.
// Everything from the cluster is put into the page as text nodes or attributes, never as markup.
'use strict';

(function () {
  const REFRESH_MILLIS = 2000;
  const HISTORY = 60;
  const SVG = 'http://www.w3.org/2000/svg';
  const COLORS = ['#2e90fa', '#f79009', '#12b76a', '#9e77ed', '#f04438', '#0ba5ec', '#ee46bc', '#667085'];
  const CLIENT_TOKEN = 'kv-console-client-token';
  const ADMIN_TOKEN = 'kv-console-admin-token';
  /** Per node: the request rates shown, oldest first. */
  const history = new Map();
  const colorOf = new Map();
  let latest = null;
  let timer = null;
  /** Until when an action's outcome stays shown rather than the time of the last refresh. */
  let keepMessageUntil = 0;

  function $(id) { return document.getElementById(id); }

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (className) { node.className = className; }
    return node;
  }

  function svg(tag, attributes) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes || {})) { node.setAttribute(name, String(value)); }
    return node;
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  function message(text, isError) {
    const box = $('message');
    box.textContent = text;
    box.className = isError ? 'message error' : 'message';
  }

  function bytes(n) {
    if (n === undefined || n === null) { return '–'; }
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    let v = Number(n);
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return (i === 0 ? v : v.toFixed(1)) + ' ' + units[i];
  }

  function number(n, digits) {
    if (n === undefined || n === null) { return '–'; }
    return Number(n).toFixed(digits === undefined ? 1 : digits);
  }

  function duration(millis) {
    if (millis === undefined || millis === null) { return '–'; }
    const s = Math.floor(millis / 1000);
    if (s < 120) { return s + ' s'; }
    if (s < 7200) { return Math.floor(s / 60) + ' min'; }
    if (s < 172800) { return Math.floor(s / 3600) + ' h'; }
    return Math.floor(s / 86400) + ' d';
  }

  function color(url) {
    if (!colorOf.has(url)) { colorOf.set(url, COLORS[colorOf.size % COLORS.length]); }
    return colorOf.get(url);
  }

  function headers(admin) {
    const token = sessionStorage.getItem(admin ? ADMIN_TOKEN : CLIENT_TOKEN);
    return token ? { Authorization: 'Bearer ' + token } : {};
  }

  function cell(row, text, className) {
    const td = el('td', text, className);
    row.appendChild(td);
    return td;
  }

  function hintsPending(node) {
    const peers = node.status && node.status.peers;
    if (!Array.isArray(peers)) { return null; }
    return peers.reduce((sum, peer) => sum + (Number(peer.hintsPending) || 0), 0);
  }

  function renderSummary(view) {
    const box = $('summary');
    clear(box);
    box.appendChild(el('span', 'served by ' + view.node + ' · epoch ' + view.epoch + ' · replication factor '
        + view.replicationFactor + ' · ' + view.partitioner + ' partitioner · claimant ' + view.claimant
        + (view.changeInProgress ? ' · change in progress' : '')));
  }

  function renderNodes(view) {
    const body = $('nodes').tBodies[0];
    clear(body);
    for (const node of view.nodes) {
      const row = el('tr');
      row.dataset.node = node.url;
      const name = cell(row, node.url + (node.self ? ' (this node)' : ''));
      name.title = node.error || '';
      const draining = node.status && node.status.draining === true;
      cell(row, draining ? 'draining' : node.state, draining ? 'draining' : node.state);
      cell(row, node.liveness || '–', node.liveness || '');
      cell(row, node.reachable ? number(node.answerMillis, 0) + ' ms' : 'unreachable', node.reachable ? '' : 'unreachable');
      cell(row, duration(node.status && node.status.uptimeMillis), 'num');
      cell(row, (100 * node.keyShare).toFixed(1) + ' %', 'num');
      const requests = node.requests;
      const rate = cell(row, requests ? number(requests.requestsPerSecond) : '–', 'num rate');
      rate.dataset.rate = requests ? String(requests.requestsPerSecond) : '';
      cell(row, requests ? number(requests.errorsPerSecond) : '–', 'num');
      const hints = hintsPending(node);
      cell(row, hints === null ? '–' : hints, 'num');
      const actions = cell(row, '');
      if (node.self && node.state === 'normal') {
        actions.appendChild(actionButton('Decommission', 'Decommission ' + node.url
            + '? It streams its keys to the other nodes and leaves the cluster.',
            'POST', '/v0/admin/decommission?async=true'));
      } else if (!node.self && (node.liveness === 'down' || !node.reachable)) {
        actions.appendChild(actionButton('Remove', 'Remove the dead node ' + node.url
            + ' from the cluster? Its keys are re-replicated from the other replicas.',
            'DELETE', '/v0/admin/nodes?async=true&url=' + encodeURIComponent(node.url)));
      }
      body.appendChild(row);
    }
  }

  function renderOperations(view) {
    const body = $('operations').tBodies[0];
    clear(body);
    for (const node of view.nodes) {
      const operations = node.requests ? node.requests.operations : [];
      for (const op of operations) {
        const row = el('tr');
        cell(row, node.url);
        cell(row, op.operation);
        cell(row, number(op.requestsPerSecond), 'num');
        cell(row, number(op.errorsPerSecond), 'num');
        cell(row, number(op.p50Millis, 2), 'num');
        cell(row, number(op.p99Millis, 2), 'num');
        body.appendChild(row);
      }
    }
  }

  function renderStorage(view) {
    const body = $('storage').tBodies[0];
    clear(body);
    for (const node of view.nodes) {
      const row = el('tr');
      cell(row, node.url);
      const status = node.status;
      if (!status) {
        cell(row, 'unreachable', 'unreachable');
        body.appendChild(row);
        continue;
      }
      const storage = status.storage || {};
      const disk = status.disk || {};
      cell(row, Array.isArray(storage.tablesPerLevel) ? storage.tablesPerLevel.join(' / ') : '–');
      cell(row, bytes(storage.tableBytes), 'num');
      cell(row, bytes(storage.memtableBytes), 'num');
      cell(row, storage.compactionsPending === undefined ? '–' : storage.compactionsPending, 'num');
      cell(row, bytes(disk.freeBytes), 'num');
      const refused = disk.writesStopped || (disk.writesRefused ? disk.reason || 'refused' : null);
      cell(row, refused ? refused : 'accepted', refused ? 'down' : 'up');
      cell(row, status.openRangeIterators === undefined ? '–' : status.openRangeIterators, 'num');
      body.appendChild(row);
    }
  }

  function renderBackground(view) {
    const body = $('background').tBodies[0];
    clear(body);
    for (const node of view.nodes) {
      const row = el('tr');
      cell(row, node.url);
      const peers = node.status && Array.isArray(node.status.peers) ? node.status.peers : null;
      const work = node.requests ? node.requests.background : null;
      cell(row, peers ? hintsPending(node) : '–', 'num');
      cell(row, peers ? bytes(peers.reduce((sum, peer) => sum + (Number(peer.hintBytesPending) || 0), 0)) : '–', 'num');
      cell(row, work ? number(work.hintsReplayedPerSecond) : '–', 'num');
      cell(row, work ? work.repairExchanges + ' (' + work.repairExchangesFailed + ')' : '–', 'num');
      cell(row, work ? number(work.repairKeysPerSecond) : '–', 'num');
      cell(row, work ? number(work.readRepairsPerSecond) : '–', 'num');
      const down = peers ? peers.filter(peer => peer.state !== 'up').map(peer => peer.url) : null;
      cell(row, down === null ? '–' : down.length ? down.join(', ') : 'none', down && down.length ? 'down' : '');
      body.appendChild(row);
    }
  }

  function renderChanges(view) {
    const body = $('changes').tBodies[0];
    clear(body);
    const changes = view.changes || {};
    if (changes.error) {
      const row = el('tr');
      const td = cell(row, 'the claimant ' + changes.claimant + ' did not list its changes: ' + changes.error, 'unreachable');
      td.colSpan = 9;
      body.appendChild(row);
      return;
    }
    for (const change of changes.list || []) {
      const row = el('tr');
      cell(row, change.id, 'num');
      cell(row, change.operation);
      cell(row, change.node);
      cell(row, change.status + (change.reason ? ': ' + change.reason : ''));
      cell(row, change.step);
      cell(row, change.streamsDone + ' of ' + change.streams, 'num');
      cell(row, change.entriesStreamed, 'num');
      cell(row, change.startedAt);
      const actions = cell(row, '');
      if (change.status === 'running') {
        actions.appendChild(actionButton('Cancel', 'Cancel change ' + change.id + ' (' + change.operation + ' of '
            + change.node + ')? It is rolled back.', 'DELETE', '/v0/admin/changes/' + encodeURIComponent(change.id)));
      }
      body.appendChild(row);
    }
  }

  function remember(view) {
    const seen = new Set();
    for (const node of view.nodes) {
      seen.add(node.url);
      if (!history.has(node.url)) { history.set(node.url, []); }
      const points = history.get(node.url);
      points.push(node.requests ? Number(node.requests.requestsPerSecond) : null);
      while (points.length > HISTORY) { points.shift(); }
    }
    for (const url of [...history.keys()]) {
      if (!seen.has(url)) { history.delete(url); }
    }
  }

  function renderRateChart() {
    const chart = $('rate-chart');
    clear(chart);
    const width = 600;
    const height = 220;
    const left = 44;
    const bottom = 20;
    let max = 1;
    for (const points of history.values()) {
      for (const p of points) { if (p !== null && p > max) { max = p; } }
    }
    const magnitude = Math.pow(10, Math.floor(Math.log10(max)));
    const scale = [1, 2, 2.5, 5, 10].map(step => step * magnitude).find(top => top >= max);
    for (let i = 0; i <= 4; i++) {
      const y = 8 + (height - bottom - 8) * i / 4;
      chart.appendChild(svg('line', { x1: left, x2: width - 4, y1: y, y2: y, stroke: '#e4e7ec' }));
      const label = svg('text', { x: left - 4, y: y + 4, 'text-anchor': 'end' });
      label.textContent = String(+(scale * (4 - i) / 4).toPrecision(3));
      chart.appendChild(label);
    }
    const axis = svg('text', { x: width - 4, y: height - 4, 'text-anchor': 'end' });
    axis.textContent = 'last ' + (HISTORY * REFRESH_MILLIS / 1000) + ' s';
    chart.appendChild(axis);
    const legend = $('rate-legend');
    clear(legend);
    for (const [url, points] of history) {
      const coordinates = [];
      points.forEach((p, i) => {
        if (p === null) { return; }
        const x = left + (width - 4 - left) * (HISTORY - points.length + i) / (HISTORY - 1);
        const y = 8 + (height - bottom - 8) * (1 - p / scale);
        coordinates.push(x.toFixed(1) + ',' + y.toFixed(1));
      });
      const line = svg('polyline', { points: coordinates.join(' '), fill: 'none', stroke: color(url), 'stroke-width': 2 });
      line.dataset.node = url;
      chart.appendChild(line);
      const item = el('span');
      const swatch = el('span', null, 'swatch');
      swatch.style.background = color(url);
      item.appendChild(swatch);
      const last = points.length ? points[points.length - 1] : null;
      item.appendChild(document.createTextNode(url + ' ' + (last === null ? '–' : number(last)) + '/s'));
      legend.appendChild(item);
    }
  }

  function renderShareChart(view) {
    const chart = $('share-chart');
    clear(chart);
    const rows = view.nodes.length || 1;
    const band = Math.min(40, 200 / rows);
    view.nodes.forEach((node, i) => {
      const y = 10 + i * band;
      const width = 360 * node.keyShare;
      chart.appendChild(svg('rect', { x: 220, y: y, width: width.toFixed(1), height: band * 0.7, fill: color(node.url) }));
      const name = svg('text', { x: 214, y: y + band * 0.45, 'text-anchor': 'end' });
      name.textContent = node.url;
      chart.appendChild(name);
      const value = svg('text', { x: 224 + width, y: y + band * 0.45 });
      value.textContent = (100 * node.keyShare).toFixed(1) + ' %';
      chart.appendChild(value);
    });
  }

  function actionButton(label, question, method, path) {
    const button = el('button', label);
    button.type = 'button';
    button.addEventListener('click', () => act(question, method, path));
    return button;
  }

  async function act(question, method, path) {
    if (!sessionStorage.getItem(ADMIN_TOKEN) && !confirm('No admin token is entered: the node accepts admin calls only from'
        + ' loopback without one. Send anyway?')) {
      return;
    }
    if (!confirm(question)) { return; }
    message(method + ' ' + path + ' …', false);
    try {
      const response = await fetch(path, { method: method, headers: headers(true), cache: 'no-store' });
      const text = (await response.text()).trim();
      message(method + ' ' + path + ': ' + response.status + ' ' + text.slice(0, 400), !response.ok);
    } catch (e) {
      message(method + ' ' + path + ' failed: ' + e.message, true);
    }
    keepMessageUntil = Date.now() + 15000;
    refresh();
  }

  async function refresh() {
    clearTimeout(timer);
    try {
      const response = await fetch('/v0/console', { headers: headers(false), cache: 'no-store' });
      if (response.status === 401 || response.status === 403) {
        message('This node wants an access token (' + response.status + '): enter the client token above.', true);
      } else if (!response.ok) {
        message('/v0/console answered ' + response.status + ': ' + (await response.text()).trim(), true);
      } else {
        latest = await response.json();
        remember(latest);
        renderSummary(latest);
        renderNodes(latest);
        renderRateChart();
        renderShareChart(latest);
        renderOperations(latest);
        renderStorage(latest);
        renderBackground(latest);
        renderChanges(latest);
        if (Date.now() > keepMessageUntil) {
          message('updated ' + new Date().toLocaleTimeString(), false);
        }
      }
    } catch (e) {
      message('cannot reach this node: ' + e.message, true);
    }
    timer = setTimeout(refresh, REFRESH_MILLIS);
  }

  function start() {
    $('client-token').value = sessionStorage.getItem(CLIENT_TOKEN) || '';
    $('admin-token').value = sessionStorage.getItem(ADMIN_TOKEN) || '';
    $('tokens').addEventListener('submit', event => {
      event.preventDefault();
      for (const [id, key] of [['client-token', CLIENT_TOKEN], ['admin-token', ADMIN_TOKEN]]) {
        const value = $(id).value.trim();
        if (value) { sessionStorage.setItem(key, value); } else { sessionStorage.removeItem(key); }
      }
      message('tokens kept for this tab', false);
      refresh();
    });
    $('forget').addEventListener('click', () => {
      sessionStorage.removeItem(CLIENT_TOKEN);
      sessionStorage.removeItem(ADMIN_TOKEN);
      $('client-token').value = '';
      $('admin-token').value = '';
      message('tokens forgotten', false);
    });
    $('repair').addEventListener('click', () => act('Run anti-entropy repair between this node and every peer now?',
        'POST', '/v0/admin/repair'));
    $('cleanup').addEventListener('click', () => act('Drop the keys this node no longer owns?', 'POST', '/v0/admin/cleanup'));
    refresh();
  }

  document.addEventListener('DOMContentLoaded', start);
}());
