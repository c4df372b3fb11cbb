// chainperf dashboard: draws the charts of the run, compare and trends
// pages with uPlot from the server's JSON, and keeps a live run's page up
// to date. No inline script: the pages' CSP allows only this file.
(function () {
  'use strict';
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
  const dpr = window.devicePixelRatio || 1;

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
          ctx.fillStyle = 'rgba(255,140,0,0.18)';
          (tl.faults || []).forEach(function (f) {
            const x0 = u.valToPos(f.from, 'x', true);
            const x1 = u.valToPos(f.to || u.scales.x.max, 'x', true);
            ctx.fillRect(x0, b.top, Math.max(dpr, x1 - x0), b.height);
          });
          ctx.setLineDash([4 * dpr, 3 * dpr]);
          ctx.strokeStyle = 'rgba(60,60,60,0.7)';
          (tl.phases || []).forEach(function (p) {
            const x = u.valToPos(p.from, 'x', true);
            ctx.beginPath(); ctx.moveTo(x, b.top); ctx.lineTo(x, b.top + b.height); ctx.stroke();
            ctx.fillStyle = '#333';
            ctx.fillText(p.label, x + 3 * dpr, b.top + 12 * dpr);
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
      const color = l.color || palette[i % palette.length];
      const s = { label: l.label, stroke: color, width: 1.5 };
      if (l.points) {
        s.paths = function () { return null; };
        s.points = { show: true, size: l.size || 5, fill: color, stroke: color };
      } else {
        s.points = { show: false };
      }
      return s;
    }));
  }

  function width(el) { return Math.max(320, (el.clientWidth || 900) - 10); }

  // chart draws one chart spec ({id, title, unit, x, lines}) into parent.
  function chart(parent, spec, plugins, time) {
    const box = document.createElement('div');
    box.className = 'chart';
    box.dataset.chart = spec.id;
    parent.appendChild(box);
    const opts = {
      title: spec.title,
      width: width(parent),
      height: 240,
      scales: { x: { time: time !== false } },
      series: seriesOpts(spec.lines),
      axes: [spec.xname ? { label: spec.xname } : {}, { label: spec.unit, size: 60 }],
      cursor: { drag: { x: true, y: false } },
      plugins: plugins || []
    };
    const data = [spec.x].concat(spec.lines.map(function (l) { return l.values; }));
    return new uPlot(opts, data, box);
  }

  function ready() { document.body.dataset.ready = String(Number(document.body.dataset.ready || 0) + 1); }

  // The run page: draw, and while the run goes, poll and redraw.
  function runPage(root) {
    const id = root.dataset.run, live = root.dataset.live === 'true';
    const box = document.getElementById('charts');
    let plots = {};
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
          plots[c.id] = chart(box, c, [timelinePlugin(tl)]);
        }
      });
      (tl.finding_charts || []).forEach(function (c, i) {
        // Over heights, not time: redrawn whole when the run's findings change.
        const id = 'finding-' + i;
        seen[id] = true;
        const spec = { id: id, title: c.title, unit: c.unit, xname: c.x_name, x: c.x, lines: c.lines };
        if (plots[id]) { plots[id].destroy(); plots[id].root.parentNode.remove(); }
        plots[id] = chart(box, spec, [], false);
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

  // The compare page: each figure's samples, side by side.
  function comparePage(box) {
    fromPage(box).then(function (res) {
      res.figures.forEach(function (row, i) {
        const n = Math.max(row.baseline.length, row.candidate.length);
        const x = [], b = [], c = [], bm = [], cm = [];
        for (let k = 0; k < n; k++) {
          x.push(k + 1);
          b.push(k < row.baseline.length ? row.baseline[k] : null);
          c.push(k < row.candidate.length ? row.candidate[k] : null);
          bm.push(row.baseline.length ? row.baseline_mean : null);
          cm.push(row.candidate.length ? row.candidate_mean : null);
        }
        chart(box, {
          id: 'figure-' + i, title: row.figure + ': ' + row.verdict, unit: row.unit || '', x: x,
          lines: [
            { label: 'baseline', values: b, points: true, size: 8, color: palette[0] },
            { label: 'candidate', values: c, points: true, size: 8, color: palette[1] },
            { label: 'baseline centre', values: bm, color: palette[0] },
            { label: 'candidate centre', values: cm, color: palette[1] }
          ]
        }, [], false);
      });
      ready();
    }).catch(function (e) { problem(box, e); ready(); });
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
            { label: t.figure, values: v },
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
