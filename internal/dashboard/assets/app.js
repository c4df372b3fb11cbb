// chainperf dashboard: draws the charts of the run, compare and trends
// pages with uPlot from the server's JSON, and keeps a live run's page up
// to date. No inline script: the pages' CSP allows only this file.
(function () {
  'use strict';
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
  const dpr = window.devicePixelRatio || 1;
  // Every chart drawn, by id: what the page's browser tests read.
  const plots = window.chainperfPlots = {};

  function getJSON(url) {
    return fetch(url, { headers: { Accept: 'application/json' } }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body.error || r.statusText);
        return body;
      });
    });
  }

  // fromPage reads the data a page carries in its data-json attribute.
  function fromPage(el) {
    return new Promise(function (resolve) { resolve(JSON.parse(el.dataset.json)); });
  }

  function problem(el, err) {
    const p = document.createElement('p');
    p.className = 'problem';
    p.textContent = 'Could not load the data: ' + err.message;
    el.appendChild(p);
  }

  // timelinePlugin shades faults, draws phase starts and marks events.
  function timelinePlugin(tl) {
    return {
      hooks: {
        draw: [function (u) {
          const ctx = u.ctx, b = u.bbox;
          ctx.save();
          ctx.beginPath();
          ctx.rect(b.left, b.top, b.width, b.height);
          ctx.clip();
          ctx.font = (11 * dpr) + 'px sans-serif';
          // uPlot leaves the context right-aligned from its axes: a label
          // drawn so ran left of its point and out of the plot.
          ctx.textAlign = 'left';
          ctx.textBaseline = 'alphabetic';
          // A pause between phases has no load: shaded grey, so it does
          // not read as a stall.
          ctx.fillStyle = 'rgba(128,128,128,0.22)';
          (tl.pauses || []).forEach(function (p) {
            const x0 = u.valToPos(p.from, 'x', true), x1 = u.valToPos(p.to, 'x', true);
            ctx.fillRect(x0, b.top, Math.max(dpr, x1 - x0), b.height);
            ctx.fillText('pause', x0 + 3 * dpr, b.top + b.height - 4 * dpr);
          });
          ctx.fillStyle = 'rgba(255,140,0,0.18)';
          (tl.faults || []).forEach(function (f) {
            const x0 = u.valToPos(f.from, 'x', true);
            const x1 = u.valToPos(f.to || u.scales.x.max, 'x', true);
            ctx.fillRect(x0, b.top, Math.max(dpr, x1 - x0), b.height);
          });
          ctx.setLineDash([4 * dpr, 3 * dpr]);
          ctx.strokeStyle = 'rgba(60,60,60,0.7)';
          // A phase's label goes right of its line, or left of it where
          // the plot ends, a row lower where it would cover the one
          // before: never clipped, never over another (the boxes are kept
          // for the page's tests).
          const boxes = u.labelBoxes = [];
          (tl.phases || []).forEach(function (p) {
            let x = u.valToPos(p.from, 'x', true);
            if (x > b.left + b.width + 1) return;
            if (x < b.left - 1) {
              // Begun before the plot's left edge: named there if it lasts into it.
              if (!p.to || u.valToPos(p.to, 'x', true) <= b.left) return;
              x = b.left;
            } else {
              ctx.beginPath(); ctx.moveTo(x, b.top); ctx.lineTo(x, b.top + b.height); ctx.stroke();
            }
            const w = ctx.measureText(p.label).width, h = 12 * dpr;
            let left = x + 3 * dpr;
            if (left + w > b.left + b.width) left = Math.max(b.left, x - 3 * dpr - w);
            let row = 0;
            while (boxes.some(function (o) { return o.row === row && left < o.right + 4 * dpr && o.left < left + w + 4 * dpr; })) row++;
            const top = b.top + row * h;
            boxes.push({ label: p.label, row: row, left: left, right: left + w, top: top, bottom: top + h });
            ctx.fillStyle = '#333';
            ctx.fillText(p.label, left, top + h);
          });
          ctx.strokeStyle = 'rgba(200,0,0,0.6)';
          (tl.marks || []).forEach(function (m) {
            const x = u.valToPos(m.at, 'x', true);
            ctx.beginPath(); ctx.moveTo(x, b.top); ctx.lineTo(x, b.top + b.height); ctx.stroke();
          });
          ctx.restore();
        }]
      }
    };
  }

  function seriesOpts(lines) {
    return [{}].concat(lines.map(function (l, i) {
      const color = l.color || colorOf(l.slot != null ? l.slot : i);
      const s = { label: l.label, stroke: color, width: 1.5 };
      if (l.points) {
        s.paths = function () { return null; };
        s.points = { show: true, size: l.size || 5, fill: color, stroke: color };
      } else {
        // A line with few points shows them: one run is a dot, not nothing.
        s.points = { show: l.dots ? true : false, size: 6, fill: color, stroke: color };
      }
      if (l.dash) s.dash = [6 * dpr, 4 * dpr];
      if (l.span) s.spanGaps = true;
      return s;
    }));
  }

  // colorOf is line i's colour: the palette, then hues a golden ratio
  // apart (as the report's), so no two lines of a chart share one.
  function colorOf(i) {
    if (i < palette.length) return palette[i];
    return 'hsl(' + Math.round((i * 0.6180339887 % 1) * 360) + ',70%,40%)';
  }

  // utc writes a time (seconds since the epoch) as chainperf writes times
  // everywhere: 2026-11-29 14:05:30, in UTC (the zone is in the axis's
  // name).
  function utc(t) { return new Date(Math.round(t) * 1000).toISOString().slice(0, 19).replace('T', ' '); }

  function width(el) { return Math.max(320, (el.clientWidth || 900) - 10); }

  // timeRange is a time axis's span: the data's, a little wider; one
  // instant (a trend of one run) gets the day around it, where uPlot 1.6
  // spans 86,400,000 seconds (a day in its milliseconds) past it.
  function timeRange(u, min, max) {
    if (min == null || max == null) return [min, max];
    const xs = u.data[0];
    if (xs.length === 1 || max - min < 1) return [xs[0] - 43200, xs[0] + 43200];
    const pad = (max - min) * 0.02;
    return [min - pad, max + pad];
  }

  // fromZero is a y axis that starts at zero (a magnitude read from a
  // baseline above zero makes 1 % look like a cliff), its top a little
  // above the data's.
  function fromZero(u, min, max) {
    if (min == null || max == null) return [0, 1];
    const lo = Math.min(0, min), hi = Math.max(0, max);
    if (hi === lo) return [lo, lo + 1];
    return [lo, uPlot.rangeNum(lo, hi, 0.1, true)[1]];
  }

  // chart draws one chart spec into parent: {id, title, unit, x, lines},
  // over time unless it names its own axis (xname, with xticks, xrange),
  // logy for a log scale. The legend goes under the plot, not over it.
  function chart(parent, spec, plugins) {
    const box = document.createElement('div');
    box.className = 'chart';
    box.dataset.chart = spec.id;
    parent.appendChild(box);
    const x = spec.xname ? { time: false } : { time: true, range: timeRange };
    if (spec.xrange) x.range = function () { return spec.xrange.slice(); };
    const xs = spec.x.filter(function (v) { return v != null; });
    const oneDay = xs.length > 0 && utc(xs[0]).slice(0, 10) === utc(xs[xs.length - 1]).slice(0, 10);
    const xaxis = { label: spec.xname || 'time (UTC' + (oneDay ? ', ' + utc(xs[0]).slice(0, 10) : '') + ')' };
    if (!spec.xname) {
      // A run's hours: the time of day (its day in the axis's name); a
      // trend's days: the date, and the time where the ticks are hours.
      xaxis.values = function (u, splits) {
        const span = splits.length > 1 ? splits[splits.length - 1] - splits[0] : 0;
        return splits.map(function (v) {
          const s = utc(v);
          if (oneDay && span < 86400) return s.slice(11);
          if (span < 3 * 86400) return s.slice(5, 16);
          return s.slice(11) === '00:00:00' ? s.slice(0, 10) : ''; // a date at each midnight
        });
      };
      xaxis.space = 80; // room for a label between ticks
    }
    if (spec.xticks) {
      const at = spec.xticks.map(function (t) { return t.at; });
      xaxis.splits = function () { return at; };
      xaxis.values = function (u, splits) {
        return splits.map(function (v) { const k = at.indexOf(v); return k < 0 ? '' : spec.xticks[k].label; });
      };
    }
    const series = seriesOpts(spec.lines);
    if (!spec.xname) series[0] = { label: 'time (UTC)', value: function (u, v) { return v == null ? '--' : utc(v); } };
    const opts = {
      title: spec.title,
      width: width(parent),
      height: 260,
      scales: { x: x, y: spec.logy ? { distr: 3 } : { range: fromZero } },
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'); },
      series: series,
      axes: [xaxis, { label: spec.unit, size: 60 }],
      cursor: { drag: { x: true, y: false } },
      plugins: plugins || []
    };
    if (!spec.xname && spec.onZoom) {
      // A zoom, not the first drawing: the pane keeps the whole run until
      // a reader picks a time.
      let drawn = false;
      opts.hooks = {
        ready: [function () { drawn = true; }],
        setScale: [function (u, key) { if (drawn && key === 'x') spec.onZoom(u.scales.x.min, u.scales.x.max); }]
      };
    }
    const data = [spec.x].concat(spec.lines.map(function (l) { return l.values; }));
    const u = new uPlot(opts, data, box);
    plots[spec.id] = u;
    return u;
  }

  function ready() { document.body.dataset.ready = String(Number(document.body.dataset.ready || 0) + 1); }

  // logPane shows one node's log lines in the time a chart is zoomed to
  // (the whole run at first), at a level and above; lines are text,
  // never markup.
  function logPane(box) {
    const id = box.dataset.run, sel = document.getElementById('log-node'), level = document.getElementById('log-level');
    const pre = document.getElementById('log-lines'), said = document.getElementById('log-window');
    let win = null, timer = null, asked = 0;
    function load() {
      const q = new URLSearchParams();
      if (sel.value) q.set('node', sel.value);
      if (level.value) q.set('level', level.value);
      if (win) { q.set('from', String(win[0])); q.set('to', String(win[1])); }
      const n = ++asked;
      return getJSON('/api/runs/' + encodeURIComponent(id) + '/logs?' + q.toString()).then(function (p) {
        if (n !== asked) return; // a newer request is on its way
        if (!sel.options.length) {
          p.nodes.forEach(function (name) { const o = document.createElement('option'); o.textContent = name; sel.appendChild(o); });
          sel.value = p.node;
        }
        const fmt = function (t) { return new Date(t * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'); };
        said.textContent = win ? fmt(win[0]) + ' to ' + fmt(win[1]) : 'the whole run';
        pre.textContent = p.none || (p.lines.join('\n') + (p.more ? '\n... ' + p.more + ' more lines in this window' : ''));
        box.dataset.shown = q.toString();
      }).catch(function (e) { pre.textContent = 'Could not load the logs: ' + e.message; });
    }
    sel.addEventListener('change', load);
    level.addEventListener('change', load);
    load();
    return function (min, max) {
      if (min == null || max == null) return;
      clearTimeout(timer);
      timer = setTimeout(function () { win = [Math.floor(min), Math.ceil(max)]; load(); }, 150);
    };
  }

  // The run page: draw, and while the run goes, poll and redraw.
  function runPage(root) {
    const id = root.dataset.run, live = root.dataset.live === 'true';
    const box = document.getElementById('charts');
    const logs = document.getElementById('logs');
    const follow = logs ? logPane(logs) : null;
    const plots = {};
    function draw(tl) {
      const seen = {};
      tl.charts.forEach(function (c) {
        seen[c.id] = true;
        const data = [c.x].concat(c.lines.map(function (l) { return l.values; }));
        const old = plots[c.id];
        if (old && old.series.length === data.length) {
          old.setData(data);
        } else {
          if (old) { old.destroy(); old.root.parentNode.remove(); }
          if (follow) c.onZoom = follow;
          plots[c.id] = chart(box, c, c.xname ? [] : [timelinePlugin(tl)]);
        }
      });
      (tl.finding_charts || []).forEach(function (c, i) {
        // Over heights, not time: redrawn whole when the run's findings change.
        const id = 'finding-' + i;
        seen[id] = true;
        const spec = { id: id, title: c.title, unit: c.unit, xname: c.x_name || 'x', x: c.x, lines: c.lines };
        if (plots[id]) { plots[id].destroy(); plots[id].root.parentNode.remove(); }
        plots[id] = chart(box, spec, []);
      });
      Object.keys(plots).forEach(function (k) {
        if (!seen[k]) { plots[k].destroy(); plots[k].root.parentNode.remove(); delete plots[k]; }
      });
      ['blocks', 'height', 'committed', 'samples'].forEach(function (k) {
        const el = document.getElementById('live-' + k);
        if (el) el.textContent = String(tl[k]);
      });
      ready();
    }
    function load() {
      return getJSON('/api/runs/' + encodeURIComponent(id)).then(function (tl) {
        if (live && tl.status !== 'running') { window.location.reload(); return; }
        draw(tl);
      });
    }
    load().catch(function (e) { problem(box, e); ready(); });
    if (live) {
      const every = Math.max(500, Number(root.dataset.poll) || 2000);
      setInterval(function () { load().catch(function (e) { problem(box, e); }); }, every);
    }
  }

  // The compare page: each figure's samples, the two sides side by side
  // (baseline at 1, candidate at 2, repeats spread across), each side's
  // centre a dashed bar; then the runs' time series over one another.
  function comparePage(box) {
    fromPage(box).then(function (res) {
      res.figures.forEach(function (row, i) {
        const pts = [];
        function side(vals, at, s) {
          vals.forEach(function (v, k) {
            const spread = vals.length > 1 ? (k / (vals.length - 1) - 0.5) * 0.4 : 0;
            pts.push({ x: at + spread, s: s, y: v });
          });
        }
        side(row.baseline, 1, 0);
        side(row.candidate, 2, 1);
        if (row.baseline.length) pts.push({ x: 0.7, s: 2, y: row.baseline_mean }, { x: 1.3, s: 2, y: row.baseline_mean });
        if (row.candidate.length) pts.push({ x: 1.7, s: 3, y: row.candidate_mean }, { x: 2.3, s: 3, y: row.candidate_mean });
        pts.sort(function (a, b) { return a.x - b.x || a.s - b.s; });
        const cols = [0, 1, 2, 3].map(function (s) { return pts.map(function (p) { return p.s === s ? p.y : null; }); });
        chart(box, {
          id: 'figure-' + i, title: row.figure + ': ' + row.verdict, unit: row.unit || '',
          xname: 'side', xrange: [0.5, 2.5],
          xticks: [{ at: 1, label: 'baseline (' + row.baseline.length + ')' }, { at: 2, label: 'candidate (' + row.candidate.length + ')' }],
          x: pts.map(function (p) { return p.x; }),
          lines: [
            { label: 'baseline', values: cols[0], points: true, size: 8, color: palette[0] },
            { label: 'candidate', values: cols[1], points: true, size: 8, color: palette[1] },
            { label: 'baseline centre', values: cols[2], color: palette[0], dash: true, span: true },
            { label: 'candidate centre', values: cols[3], color: palette[1], dash: true, span: true }
          ]
        });
      });
      const over = document.getElementById('overlay');
      if (over) overlayCharts(over, JSON.parse(over.dataset.json || '[]'));
      ready();
    }).catch(function (e) { problem(box, e); ready(); });
  }

  // overlayCharts draws the runs' main phases over one another, by the
  // second since each one's start: baseline runs in blues, candidate in
  // reds.
  function overlayCharts(box, runs) {
    if (!runs.length) return;
    const n = Math.max.apply(null, runs.map(function (r) { return (r.committed || []).length; }));
    const x = [];
    for (let k = 0; k < n; k++) x.push(k + 0.5);
    const shade = { baseline: 0, candidate: 0 };
    const colors = runs.map(function (r) {
      const k = shade[r.side]++;
      const light = 30 + 12 * (k % 4);
      return r.side === 'baseline' ? 'hsl(210,70%,' + light + '%)' : 'hsl(0,70%,' + light + '%)';
    });
    [['committed', 'Committed tx/s over 5 s of whole blocks', 'tx/s'], ['p99', 'Commit latency p99 of the txs seen each second', 'ms']].forEach(function (c) {
      chart(box, {
        id: 'overlay-' + c[0], title: c[1], unit: c[2], xname: 'seconds since the phase started', x: x,
        lines: runs.map(function (r, i) {
          const v = (r[c[0]] || []).slice();
          while (v.length < n) v.push(null);
          return { label: r.side + ' ' + r.run, values: v, color: colors[i] };
        })
      });
    });
  }

  // The trends page: the figure over time, regressions in red, the
  // first run of each new level (a change point) in orange.
  function trendPage(box) {
    fromPage(box).then(function (t) {
      const x = [], v = [], reg = [], lvl = [];
      const first = {};
      (t.shifts || []).forEach(function (s) { first[s.run] = true; });
      t.points.forEach(function (p) {
        x.push(p.start);
        v.push(p.value);
        reg.push(p.verdict === 'regressed' ? p.value : null);
        lvl.push(first[p.run] ? p.value : null);
      });
      if (x.length > 0) {
        chart(box, {
          id: 'trend', title: t.figure + ' by run start', unit: t.unit, x: x,
          lines: [
            { label: t.figure, values: v, dots: true },
            { label: 'regressed', values: reg, points: true, size: 10, color: '#d62728' },
            { label: 'new level', values: lvl, points: true, size: 14, color: '#ff7f0e' }
          ]
        });
      }
      ready();
    }).catch(function (e) { problem(box, e); ready(); });
  }

  document.addEventListener('DOMContentLoaded', function () {
    const run = document.getElementById('run');
    const dist = document.getElementById('distributions');
    const trend = document.getElementById('trend');
    if (run) runPage(run);
    else if (dist) comparePage(dist);
    else if (trend) trendPage(trend);
    else ready();
  });
})();
