/* SPDX-License-Identifier: MIT */
/*
 * hetrace report viewer (docs/report.md). Reads the JSON in
 * <script id="ht-data">; times are ns relative to data.t0. The
 * timelines are levels of run lists (a palette of state ids, then per
 * run a varint: bucket delta << b | palette index, b the bits of the
 * palette; an empty palette: varint pairs bucket delta, state id;
 * state 0 = nothing known), the coarsest level that resolves
 * a pixel is drawn. Rows 0..cores-1 of a level are the cores' (what
 * ran); the next ones are function rows (D.frows: [core, depth]; the
 * last depth, D.func_rows - 1, shows the innermost call at that depth
 * or deeper). window.htReport exposes the view for tests.
 */
(function () {
	'use strict';

	const D = JSON.parse(document.getElementById('ht-data').textContent);
	const T0 = Number(D.t0);
	const SPAN = Math.max(1, D.span);
	const LABEL_W = 130;
	const view = { b: 0, e: SPAN };
	const timed = []; /* canvases drawn against the shared view */

	/* ---------------------------------------------------------- */
	/* helpers */

	function fmtDur(ns) {
		const a = Math.abs(ns);
		if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
		if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
		if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' us';
		return Math.round(ns) + ' ns';
	}

	function fmtHz(hz) {
		if (hz >= 1e6) return (hz / 1e6).toFixed(4) + ' MHz';
		if (hz >= 1e3) return (hz / 1e3).toFixed(4) + ' kHz';
		return hz.toFixed(3) + ' Hz';
	}

	function el(tag, attrs, text) {
		const e = document.createElement(tag);
		if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
		if (text !== undefined) e.textContent = text;
		return e;
	}

	function b64(s) {
		const bin = atob(s);
		const u = new Uint8Array(bin.length);
		for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
		return u;
	}

	function hashHue(s) {
		let h = 2166136261;
		for (let i = 0; i < s.length; i++) {
			h ^= s.charCodeAt(i);
			h = Math.imul(h, 16777619);
		}
		return (h >>> 0) % 360;
	}

	/* the task rows' states (the process Gantt) */
	const TS_COLORS = { running: '#3a9d3a', ready: '#f3cf7a', blocked: '#c84040', interrupted: '#8a5cc8' };
	const stateColor = D.states.map(function (s) {
		if (s.k === 'idle') return '#e4e4e4';
		if (s.k === 'isr') return 'hsl(' + (hashHue(s.n) % 40) + ',75%,45%)';
		if (s.k === 'ts') return TS_COLORS[s.n] || '#999';
		if (s.k === 'func') return 'hsl(' + hashHue(s.n) + ',45%,' + (62 + hashHue(s.n + '.') % 16) + '%)';
		return 'hsl(' + (60 + hashHue(s.n) % 260) + ',50%,58%)';
	});

	/* a canvas sized to its box and the pixel ratio; returns ctx */
	function setup(canvas, height) {
		const ratio = window.devicePixelRatio || 1;
		const w = Math.max(300, canvas.parentNode.clientWidth);
		canvas.style.height = height + 'px';
		canvas.width = Math.round(w * ratio);
		canvas.height = Math.round(height * ratio);
		const ctx = canvas.getContext('2d');
		ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
		ctx.font = '12px system-ui, sans-serif';
		ctx.textBaseline = 'middle';
		canvas._w = w;
		canvas._h = height;
		return ctx;
	}

	/* @text cut from the left to fit @w pixels */
	function fit(ctx, text, w) {
		if (ctx.measureText(text).width <= w) return text;
		let t = text;
		while (t.length > 1 && ctx.measureText('\u2026' + t).width > w) t = t.slice(1);
		return '\u2026' + t;
	}

	/* @text cut at its end to fit @w pixels ('' if nothing fits) */
	function fitEnd(ctx, text, w) {
		if (ctx.measureText(text).width <= w) return text;
		let n = Math.floor(text.length * w / ctx.measureText(text).width);
		while (n > 0 && ctx.measureText(text.slice(0, n) + '\u2026').width > w) n--;
		return n > 0 ? text.slice(0, n) + '\u2026' : '';
	}

	function niceStep(span, px) {
		const raw = span / Math.max(1, px / 110);
		const p = Math.pow(10, Math.floor(Math.log10(raw)));
		for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
		return 10 * p;
	}

	function drawAxis(ctx, x0, w, y, b, e) {
		const step = niceStep(e - b, w);
		ctx.fillStyle = '#555';
		ctx.strokeStyle = '#ccc';
		ctx.beginPath();
		ctx.moveTo(x0, y + 0.5);
		ctx.lineTo(x0 + w, y + 0.5);
		ctx.stroke();
		for (let t = Math.ceil(b / step) * step; t <= e; t += step) {
			const x = x0 + (t - b) / (e - b) * w;
			ctx.fillRect(Math.round(x), y, 1, 4);
			/* a label that would be cut at the right edge is left out */
			const label = fmtDur(t);
			if (x + 2 + ctx.measureText(label).width <= x0 + w) ctx.fillText(label, x + 2, y + 10);
		}
	}

	/* ---------------------------------------------------------- */
	/* timeline levels */

	const runCache = new Map();

	/* runs of level l, row c: {t: Float64Array starts, s: Uint32Array} */
	function runs(l, c) {
		const key = l * 65536 + c;
		let r = runCache.get(key);
		if (r) return r;
		const lv = D.levels[l];
		const bytes = b64(lv.rows[c] || '');
		const unit = lv.n ? SPAN / lv.n : 1;
		const t = [], s = [];
		let i = 0, bucket = 0;
		function varint() {
			let v = 0, mul = 1, byte;
			do {
				byte = bytes[i++];
				v += (byte & 0x7f) * mul;
				mul *= 128;
			} while (byte & 0x80 && i < bytes.length);
			return v;
		}
		const k = i < bytes.length ? varint() : 0;
		const pal = [];
		for (let j = 0; j < k; j++) pal.push(varint());
		let b = 0;
		while ((1 << b) < k) b++;
		const div = 2 ** b;
		while (i < bytes.length) {
			if (k) {
				const v = varint();
				bucket += Math.floor(v / div);
				t.push(bucket * unit);
				s.push(pal[v % div]);
			} else {
				bucket += varint();
				t.push(bucket * unit);
				s.push(varint());
			}
		}
		r = { t: Float64Array.from(t), s: Uint32Array.from(s) };
		runCache.set(key, r);
		return r;
	}

	function levelFor(nsPerPx) {
		const n = D.levels.length;
		for (let l = 0; l < n; l++) {
			const lv = D.levels[l];
			const unit = lv.n ? SPAN / lv.n : 1;
			if (unit <= nsPerPx) return l;
		}
		return n - 1;
	}

	function firstRun(r, t) {
		let lo = 0, hi = r.t.length - 1;
		while (lo < hi) {
			const mid = (lo + hi + 1) >> 1;
			if (r.t[mid] <= t) lo = mid; else hi = mid - 1;
		}
		return lo;
	}

	/* ---------------------------------------------------------- */
	/* rows: one per core (and its function rows under it), or per
	 * group with thin per-core lines (no function rows); a lane is one
	 * line of drawing: a level row at a height */

	let rows = [];
	let lanes = [];
	const coreLane = [];
	const coreRow = []; /* the index in rows of each core's row */
	const NC = D.cores.length;
	/* the display order of the cores (master first, then by role and
	 * core id: host/analysis/states.h), for every list of cores */
	const ORDER = Array.isArray(D.order) && D.order.length === NC ? D.order
		: D.cores.map(function (c, i) { return i; });
	const coreByName = new Map(D.cores.map(function (c, i) { return [c.name, i]; }));
	function coreRank(name) {
		const i = coreByName.get(name);
		return i === undefined ? NC : ORDER.indexOf(i);
	}
	const FR = D.func_rows || 4;
	const frowsOf = D.cores.map(function () { return []; });
	(D.frows || []).forEach(function (f, k) {
		frowsOf[f[0]].push({ row: NC + k, depth: f[1] });
	});
	for (const l of frowsOf) l.sort(function (a, b) { return a.depth - b.depth; });
	/* the task rows of each core: after the function rows */
	const NF = (D.frows || []).length;
	const trowsOf = D.cores.map(function () { return []; });
	(D.trows || []).forEach(function (t, k) {
		if (trowsOf[t[0]]) trowsOf[t[0]].push({ row: NC + NF + k, tid: t[1], name: t[2] });
	});
	for (const l of trowsOf) l.sort(function (a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : a.tid - b.tid; });

	function buildRows(perCore) {
		rows = [];
		const n = NC;
		if (perCore || n <= 32) {
			for (const c of ORDER) {
				rows.push({ label: D.cores[c].name, cores: [c], rows: [c], h: 18 });
				for (const f of frowsOf[c]) {
					rows.push({
						label: '\u21b3 ' + (f.depth === 0 ? 'calls' : f.depth === FR - 1 ? 'depth ' + f.depth + '+' : 'depth ' + f.depth),
						cores: [c], rows: [f.row], depth: f.depth, h: 14,
					});
				}
				if (document.getElementById('task-states').checked) {
					for (const t of trowsOf[c]) {
						rows.push({ label: '\u00b7 ' + t.name, cores: [c], rows: [t.row], depth: -2, task: t.name, h: 10 });
					}
				}
			}
		} else {
			const groups = new Map();
			ORDER.forEach(function (c) {
				const core = D.cores[c];
				const g = core.group || core.name;
				if (!groups.has(g)) groups.set(g, []);
				groups.get(g).push(c);
			});
			for (const [g, list] of groups) {
				rows.push({
					label: g + ' (' + list.length + ')',
					cores: list,
					rows: list,
					h: Math.max(20, 2 * list.length),
				});
			}
		}
		let y = 4;
		lanes = [];
		for (const row of rows) {
			row.y = y;
			const per = row.h / row.rows.length;
			row.rows.forEach(function (r, k) {
				const lane = {
					row: r, core: row.cores[k], depth: row.depth === undefined ? -1 : row.depth, task: row.task,
					y: y + k * per, h: Math.max(1, per - (per > 4 ? 1 : 0)),
				};
				lanes.push(lane);
				if (lane.depth === -1) {
					coreLane[lane.core] = lane;
					coreRow[lane.core] = rows.indexOf(row);
				}
			});
			y += row.h + (row.depth === undefined ? 4 : 1);
		}
		return y;
	}

	const tl = document.getElementById('timeline');
	let tlCtx;

	function drawTimeline() {
		const perCore = document.getElementById('per-core').checked;
		const height = buildRows(perCore) + 24;
		tlCtx = setup(tl, height);
		const ctx = tlCtx;
		const w = tl._w - LABEL_W;
		const k = w / (view.e - view.b);
		const lvl = levelFor((view.e - view.b) / w);
		ctx.clearRect(0, 0, tl._w, height);
		for (const row of rows) {
			ctx.fillStyle = row.depth === undefined ? '#333' : '#777';
			ctx.fillText(fit(ctx, row.label, LABEL_W - 8), row.depth === undefined ? 4 : 14, row.y + Math.min(row.h, 18) / 2);
		}
		for (const cy of lanes) {
			const r = runs(lvl, cy.row);
			if (!r.t.length) continue;
			let lastPx = -1;
			for (let i = firstRun(r, view.b); i < r.t.length; i++) {
				const a = r.t[i];
				if (a > view.e) break;
				const b = i + 1 < r.t.length ? r.t[i + 1] : a;
				const st = r.s[i];
				if (!st || b <= view.b) continue;
				const x0 = LABEL_W + Math.max(0, (a - view.b) * k);
				const x1 = LABEL_W + Math.min(w, (b - view.b) * k);
				if (x1 - x0 < 1 && Math.floor(x1) === lastPx) continue;
				ctx.fillStyle = stateColor[st - 1];
				ctx.fillRect(x0, cy.y, Math.max(1, x1 - x0), cy.h);
				lastPx = Math.floor(x1);
				if (cy.depth >= 0 && x1 - x0 > 24) {
					/* a call wide enough: its name on it */
					ctx.fillStyle = '#111';
					ctx.fillText(fitEnd(ctx, D.states[st - 1].n, x1 - x0 - 4), x0 + 2, cy.y + cy.h / 2);
				}
			}
		}
		drawFlows(ctx, w, k);
		drawSelection(ctx, w, k, height);
		drawAxis(ctx, LABEL_W, w, height - 20, view.b, view.e);
		tl.dataset.viewBegin = String(view.b);
		tl.dataset.viewEnd = String(view.e);
		tl.dataset.level = String(lvl);
		document.getElementById('view-range').textContent =
			fmtDur(view.b) + ' .. ' + fmtDur(view.e) + ' (' +
			fmtDur(view.e - view.b) + ' shown; level ' + lvl + ' of ' +
			(D.levels.length - 1) + ')' + (measure ? '; measured ' + fmtDur(Math.abs(measure.b - measure.a)) : '') +
			(flowInfo ? '; ' + flowInfo : '');
		tl.dataset.measure = measure ? String(Math.abs(measure.b - measure.a)) : '';
	}

	/* an arrow from (x0, y0) to (x1, y1) */
	function arrow(ctx, x0, y0, x1, y1, head) {
		ctx.beginPath();
		ctx.moveTo(x0, y0);
		ctx.lineTo(x1, y1);
		ctx.stroke();
		const a = Math.atan2(y1 - y0, x1 - x0);
		ctx.beginPath();
		ctx.moveTo(x1, y1);
		ctx.lineTo(x1 - head * Math.cos(a - 0.4), y1 - head * Math.sin(a - 0.4));
		ctx.lineTo(x1 - head * Math.cos(a + 0.4), y1 - head * Math.sin(a + 0.4));
		ctx.fill();
	}

	/* the flows of the view: each one when they are few enough to be
	 * told apart (at most one per FLOW_PX pixels of width), else one
	 * bundle per core pair with its count */
	const FLOW_PX = 8;

	function drawFlows(ctx, w, k) {
		let mode = 'off', drawn = 0, drawnIn = 0;
		if (document.getElementById('show-flows').checked) {
			const vis = [];
			for (const f of D.flows) {
				if (f[3] < view.b && f[1] < view.b || f[1] > view.e && f[3] > view.e) continue;
				if (coreLane[f[0]] && coreLane[f[2]]) vis.push(f);
			}
			const ypos = function (c) { const l = coreLane[c]; return l.y + l.h / 2; };
			drawnIn = vis.length;
			if (vis.length * FLOW_PX <= w) {
				mode = 'each';
				ctx.strokeStyle = ctx.fillStyle = 'rgba(20,20,120,0.7)';
				for (const f of vis) {
					arrow(ctx, LABEL_W + (f[1] - view.b) * k, ypos(f[0]), LABEL_W + (f[3] - view.b) * k, ypos(f[2]), 6);
					drawn++;
				}
			} else if (vis.length) {
				mode = 'bundled';
				/* per core pair; with more pairs than can be told
				 * apart, per pair of rows (core groups) */
				let pairs = new Map();
				const bundle = function (keyOf, yOf) {
					pairs = new Map();
					for (const f of vis) {
						const key = keyOf(f[0]) + ':' + keyOf(f[2]);
						let p = pairs.get(key);
						if (!p) pairs.set(key, p = { y0: yOf(f[0]), y1: yOf(f[2]), n: 0, t: 0 });
						p.n++;
						p.t += Math.max(view.b, Math.min(view.e, (f[1] + f[3]) / 2));
					}
				};
				bundle(function (c) { return c; }, ypos);
				if (pairs.size > 24) {
					bundle(function (c) { return coreRow[c]; }, function (c) { const r = rows[coreRow[c]]; return r.y + Math.min(r.h, 18) / 2; });
					mode = 'bundled-rows';
				}
				const list = Array.from(pairs.values());
				for (const p of list) p.x = LABEL_W + (p.t / p.n - view.b) * k;
				list.sort(function (a, b) { return a.x - b.x; });
				/* spread apart so that every count can be read */
				let last = -Infinity;
				for (const p of list) { p.x = Math.max(p.x, last + 34); last = p.x; }
				const over = last - (LABEL_W + w - 30);
				if (over > 0) for (const p of list) p.x = Math.max(LABEL_W + 4, p.x - over);
				ctx.font = '11px system-ui, sans-serif';
				for (const p of list) {
					const y0 = p.y0, y1 = p.y1;
					ctx.strokeStyle = ctx.fillStyle = 'rgba(20,20,120,0.45)';
					ctx.lineWidth = Math.min(6, 1 + Math.log2(p.n));
					arrow(ctx, p.x, y0, p.x + 6, y1, 7);
					ctx.lineWidth = 1;
					const label = '\u00d7' + p.n;
					const ty = (y0 + y1) / 2;
					const tw = ctx.measureText(label).width;
					ctx.fillStyle = 'rgba(255,255,255,0.85)';
					ctx.fillRect(p.x + 4, ty - 7, tw + 4, 14);
					ctx.fillStyle = '#14147a';
					ctx.fillText(label, p.x + 6, ty);
					drawn++;
				}
				ctx.font = '12px system-ui, sans-serif';
			}
		}
		tl.dataset.flowMode = mode;
		tl.dataset.flowsDrawn = String(drawn);
		flowInfo = mode === 'off' || mode === 'each' ? '' : drawnIn + ' messages in view: bundled per ' +
			(mode === 'bundled' ? 'core pair' : 'pair of rows') + ' (\u00d7 count); zoom in to see each arrow';
	}
	let flowInfo = '';

	/* the selected path instance: its activities outlined on their
	 * cores, its messages drawn whatever the zoom */
	let selected = null; /* {b, e, acts: [[core index, begin, end]], flows} */

	function drawSelection(ctx, w, k, height) {
		let drawn = 0;
		if (selected) {
			const X = function (t) { return LABEL_W + Math.max(-10, Math.min(w + 10, (t - view.b) * k)); };
			ctx.fillStyle = 'rgba(255,200,0,0.10)';
			ctx.fillRect(X(selected.b), 0, Math.max(1, X(selected.e) - X(selected.b)), height - 22);
			ctx.strokeStyle = '#e07000';
			ctx.lineWidth = 2;
			for (const a of selected.acts) {
				const l = coreLane[a[0]];
				if (!l || a[2] < view.b || a[1] > view.e) continue;
				ctx.strokeRect(X(a[1]), l.y - 1, Math.max(2, X(a[2]) - X(a[1])), l.h + 2);
			}
			ctx.strokeStyle = ctx.fillStyle = '#d04000';
			for (const f of selected.flows) {
				const l0 = coreLane[f[0]], l1 = coreLane[f[2]];
				if (!l0 || !l1) continue;
				arrow(ctx, X(f[1]), l0.y + l0.h / 2, X(f[3]), l1.y + l1.h / 2, 7);
				drawn++;
			}
			ctx.lineWidth = 1;
		}
		tl.dataset.selectedFlows = String(drawn);
		if (marker !== null && marker >= view.b && marker <= view.e) {
			ctx.fillStyle = '#d00';
			ctx.fillRect(LABEL_W + (marker - view.b) * k, 0, 1, height - 22);
		}
		if (measure) {
			const xa = LABEL_W + (Math.min(measure.a, measure.b) - view.b) * k;
			const xb = LABEL_W + (Math.max(measure.a, measure.b) - view.b) * k;
			ctx.fillStyle = 'rgba(0,120,255,0.15)';
			ctx.fillRect(xa, 0, Math.max(1, xb - xa), height - 22);
			ctx.fillStyle = '#0050c0';
			ctx.fillRect(xa, 0, 1, height - 22);
			ctx.fillRect(xb, 0, 1, height - 22);
			const label = fmtDur(Math.abs(measure.b - measure.a));
			const tw = ctx.measureText(label).width;
			const tx = Math.max(LABEL_W, Math.min(LABEL_W + w - tw - 8, (xa + xb) / 2 - tw / 2));
			ctx.fillStyle = 'rgba(255,255,255,0.9)';
			ctx.fillRect(tx - 3, 2, tw + 6, 16);
			ctx.fillStyle = '#0050c0';
			ctx.fillText(label, tx, 10);
		}
	}
	let measure = null; /* {a, b}: a range measured with shift-drag */

	function legend() {
		const box = document.getElementById('legend');
		let shown = 0, funcs = 0;
		D.states.forEach(function (s, i) {
			if (s.k === 'func') {
				funcs++;
				return;
			}
			if (s.k === 'ts') return;
			if (shown++ >= 40) return;
			const span = el('span');
			const sw = el('i');
			sw.style.background = stateColor[i];
			span.appendChild(sw);
			span.appendChild(document.createTextNode(s.n + (s.k === 'isr' ? ' (interrupt)' : '')));
			box.appendChild(span);
		});
		if ((D.trows || []).length) {
			const span = el('span', { id: 'task-key' }, '\u00b7 rows: task states (' + D.trows.length + ' tasks):');
			for (const k of ['running', 'ready', 'blocked', 'interrupted']) {
				const sw = el('i');
				sw.style.background = TS_COLORS[k];
				sw.style.marginLeft = '8px';
				span.appendChild(sw);
				span.appendChild(document.createTextNode(k + (k === 'ready' ? ' (preempted or woken, waiting for the core)' :
					k === 'blocked' ? ' (waiting on a message, semaphore or queue)' : '')));
			}
			box.appendChild(span);
		}
		if (D.flows.length) {
			box.appendChild(el('span', null, 'arrows: messages (' + D.msgs.kept + ' of ' + D.msgs.matched + ' matched shown)'));
		}
		if (funcs) {
			box.appendChild(el('span', null, '\u21b3 rows: function calls by depth (' + funcs +
				' functions; names on the bars and on hover' + (NC > 32 ? '; shown with "one row per core"' : '') + ')'));
		}
	}

	/* ---------------------------------------------------------- */
	/* zoom and pan, shared by the time-synced canvases */

	function redraw() {
		for (const f of timed) f();
		queueEvents();
	}

	/* the event table: the events of the view (from D.table: all of
	 * them, or every stride-th), filtered by the search, the first
	 * EV_SHOWN shown; a click zooms to the event */
	const EV = D.table && Array.isArray(D.table.rows) ? D.table.rows : [];
	const EV_SHOWN = 300;
	const evSearch = document.getElementById('event-search');
	const evTable = document.getElementById('events-table');
	let evQueued = false, marker = null;

	function queueEvents() {
		if (evQueued) return;
		evQueued = true;
		requestAnimationFrame(function () { evQueued = false; fillEvents(); });
	}

	function firstEvent(t) {
		let lo = 0, hi = EV.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (EV[mid][1] < t) lo = mid + 1; else hi = mid;
		}
		return lo;
	}

	function fillEvents() {
		const q = evSearch.value.trim().toLowerCase();
		evTable.textContent = '';
		const hr = el('tr');
		for (const h of ['time', 'core', 'event', 'fields']) hr.appendChild(el('th', null, h));
		evTable.appendChild(hr);
		let n = 0, shown = 0;
		for (let i = firstEvent(view.b); i < EV.length && EV[i][1] <= view.e; i++) {
			const e = EV[i];
			const core = D.cores[e[0]] ? D.cores[e[0]].name : '?';
			if (q && e[2].toLowerCase().indexOf(q) < 0 && e[3].toLowerCase().indexOf(q) < 0 &&
				core.toLowerCase().indexOf(q) < 0) continue;
			n++;
			if (shown >= EV_SHOWN) continue;
			shown++;
			const r = el('tr', { class: 'ev', 'data-t': String(e[1]) });
			r.appendChild(el('td', null, fmtDur(e[1])));
			r.appendChild(el('td', null, core));
			r.appendChild(el('td', null, e[2]));
			r.appendChild(el('td', { class: 'f' }, e[3]));
			evTable.appendChild(r);
		}
		const thin = D.table && D.table.stride > 1 ? ' (the table holds 1 event of every ' + D.table.stride + ')' : '';
		document.getElementById('events-count').textContent = n + ' events in view' +
			(q ? ' matching "' + evSearch.value.trim() + '"' : '') + (n > shown ? ', the first ' + shown + ' shown' : '') + thin;
		evTable.dataset.matches = String(n);
		evTable.dataset.shown = String(shown);
	}

	evTable.addEventListener('click', function (ev) {
		const r = ev.target.closest('tr.ev');
		if (!r) return;
		const t = Number(r.dataset.t);
		const s = Math.min(view.e - view.b, 100000);
		marker = t;
		tl.dataset.marker = String(t);
		setView(t - s / 2, t + s / 2);
		tl.scrollIntoView({ block: 'nearest' });
	});
	evSearch.addEventListener('input', queueEvents);

	/* keys: W/S, +/- (and up/down on the timeline): zoom; A/D and
	 * left/right: pan by a fifth of the view */
	window.addEventListener('keydown', function (ev) {
		const tag = ev.target && ev.target.tagName;
		if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
		const s = view.e - view.b, onTl = ev.target === tl;
		switch (ev.key) {
		case 'w': case 'W': case '+': case '=': zoomAt(0.5, 0.5); break;
		case 's': case 'S': case '-': case '_': zoomAt(0.5, 2); break;
		case 'ArrowUp': if (!onTl) return; zoomAt(0.5, 0.5); break;
		case 'ArrowDown': if (!onTl) return; zoomAt(0.5, 2); break;
		case 'a': case 'A': case 'ArrowLeft': setView(view.b - s / 5, view.e - s / 5); break;
		case 'd': case 'D': case 'ArrowRight': setView(view.b + s / 5, view.e + s / 5); break;
		case 'Escape': measure = null; redraw(); break;
		default: return;
		}
		ev.preventDefault();
	});

	function setView(b, e) {
		const minSpan = Math.min(SPAN, 100);
		let s = Math.max(minSpan, Math.min(SPAN, e - b));
		b = Math.max(0, Math.min(SPAN - s, b));
		view.b = b;
		view.e = b + s;
		redraw();
	}

	function zoomAt(frac, factor) {
		const s = view.e - view.b;
		const t = view.b + frac * s;
		const ns = s * factor;
		setView(t - frac * ns, t - frac * ns + ns);
	}

	function attachZoom(canvas, x0) {
		canvas.addEventListener('wheel', function (ev) {
			ev.preventDefault();
			const rect = canvas.getBoundingClientRect();
			const w = rect.width - x0;
			const frac = Math.max(0, Math.min(1, (ev.clientX - rect.left - x0) / w));
			zoomAt(frac, Math.exp(ev.deltaY * 0.002));
		}, { passive: false });
		let drag = null;
		const timeAt = function (ev) {
			const rect = canvas.getBoundingClientRect();
			return view.b + (ev.clientX - rect.left - x0) / (rect.width - x0) * (view.e - view.b);
		};
		canvas.addEventListener('mousedown', function (ev) {
			ev.preventDefault();
			canvas.focus({ preventScroll: true });
			if (ev.shiftKey) {
				/* shift-drag: measure a range */
				const t = timeAt(ev);
				measure = { a: t, b: t };
				drag = { measure: true };
				redraw();
				return;
			}
			drag = { x: ev.clientX, b: view.b, e: view.e };
		});
		window.addEventListener('mouseup', function () { drag = null; });
		window.addEventListener('mousemove', function (ev) {
			if (!drag) return;
			if (drag.measure) {
				measure.b = timeAt(ev);
				redraw();
				return;
			}
			const w = canvas.getBoundingClientRect().width - x0;
			const dt = (ev.clientX - drag.x) / w * (drag.e - drag.b);
			setView(drag.b - dt, drag.e - dt);
		});
	}

	/* tooltip: what ran at the pointer */
	const tip = document.getElementById('tooltip');
	tl.addEventListener('mousemove', function (ev) {
		const rect = tl.getBoundingClientRect();
		const x = ev.clientX - rect.left, y = ev.clientY - rect.top;
		const w = rect.width - LABEL_W;
		tip.style.display = 'none';
		if (x < LABEL_W) return;
		const t = view.b + (x - LABEL_W) / w * (view.e - view.b);
		const lvl = levelFor((view.e - view.b) / w);
		for (const cy of lanes) {
			if (y < cy.y || y >= cy.y + Math.max(cy.h, 1)) continue;
			const r = runs(lvl, cy.row);
			if (!r.t.length) return;
			const i = firstRun(r, t);
			const st = r.s[i];
			if (!st) return;
			const s = D.states[st - 1];
			const end = i + 1 < r.t.length ? r.t[i + 1] : r.t[i];
			if (cy.task !== undefined) {
				tip.textContent = D.cores[cy.core].name + ': task ' + cy.task + ' ' + s.n + '\n' + fmtDur(r.t[i]) + ' .. ' +
					fmtDur(end) + (D.levels[lvl].n ? '\n(most of each ' + fmtDur(SPAN / D.levels[lvl].n) + ')' : '');
			} else tip.textContent = D.cores[cy.core].name + ': ' + s.n + ' (' +
				(s.k === 'func' ? 'function, depth ' + cy.depth + (cy.depth === FR - 1 ? '+' : '') : s.k) + ')\n' +
				fmtDur(r.t[i]) + ' .. ' + fmtDur(end) +
				(D.levels[lvl].n ? '\n(most of each ' + fmtDur(SPAN / D.levels[lvl].n) + ')' : '');
			tip.style.left = (ev.clientX + 12) + 'px';
			tip.style.top = (ev.clientY + 12) + 'px';
			tip.style.display = 'block';
			return;
		}
	});
	tl.addEventListener('mouseleave', function () { tip.style.display = 'none'; });

	/* ---------------------------------------------------------- */
	/* utilization */

	function drawUtil() {
		const n = D.cores.length;
		const bh = n > 32 ? 8 : 16;
		const canvas = document.getElementById('util-bars');
		const height = n * (bh + 2) + 30;
		const ctx = setup(canvas, height);
		const w = canvas._w - LABEL_W - 200;
		const parts = [['task', '#5b8fd6'], ['isr', '#d64b4b'], ['idle', '#d8d8d8'], ['unknown', '#fff']];
		ORDER.forEach(function (ci, i) {
			const c = D.cores[ci];
			const total = c.task + c.isr + c.idle + c.unknown;
			const y = 4 + i * (bh + 2);
			if (bh >= 12) {
				ctx.fillStyle = '#333';
				ctx.fillText(fit(ctx, c.name, LABEL_W - 8), 4, y + bh / 2);
			}
			let x = LABEL_W;
			for (const [k, col] of parts) {
				const pw = total ? c[k] / total * w : 0;
				ctx.fillStyle = col;
				ctx.fillRect(x, y, pw, bh);
				x += pw;
			}
			ctx.strokeStyle = '#bbb';
			ctx.strokeRect(LABEL_W + 0.5, y + 0.5, w, bh);
			if (bh >= 12) {
				ctx.fillStyle = '#333';
				const busy = total ? (c.task + c.isr) / total * 100 : 0;
				ctx.fillText(c.has_tasks ? busy.toFixed(1) + ' % busy (' +
					(total ? (c.isr / total * 100).toFixed(1) : '0') + ' % interrupts)'
					: 'no task_switch events: no task timeline', LABEL_W + w + 8, y + bh / 2);
			}
		});
		let x = LABEL_W;
		for (const [k, col] of parts) {
			ctx.fillStyle = col;
			ctx.fillRect(x, height - 16, 10, 10);
			ctx.strokeRect(x + 0.5, height - 15.5, 10, 10);
			ctx.fillStyle = '#333';
			ctx.fillText(k, x + 14, height - 11);
			x += 80;
		}
	}

	function drawHeat() {
		const n = D.cores.length;
		const rh = n > 32 ? 3 : 16;
		const canvas = document.getElementById('heatmap');
		const height = n * rh + 56;
		const ctx = setup(canvas, height);
		const w = canvas._w - LABEL_W;
		const nb = D.util.n;
		const off = document.createElement('canvas');
		off.width = nb;
		off.height = n;
		const octx = off.getContext('2d');
		const img = octx.createImageData(nb, n);
		for (let c = 0; c < n; c++) {
			const u = b64(D.util.rows[ORDER[c]] || '');
			for (let k = 0; k < nb; k++) {
				const v = u[k] || 0;
				const p = (c * nb + k) * 4;
				if (!v) {
					img.data[p] = img.data[p + 1] = img.data[p + 2] = 250;
				} else {
					const f = (v - 1) / 200;
					img.data[p] = 255;
					img.data[p + 1] = Math.round(255 * (1 - f * 0.85));
					img.data[p + 2] = Math.round(255 * (1 - f));
				}
				img.data[p + 3] = 255;
			}
			if (rh >= 14) {
				ctx.fillStyle = '#333';
				ctx.fillText(fit(ctx, D.cores[ORDER[c]].name, LABEL_W - 8), 4, 4 + c * rh + rh / 2);
			}
		}
		octx.putImageData(img, 0, 0);
		ctx.imageSmoothingEnabled = false;
		ctx.drawImage(off, LABEL_W, 4, w, n * rh);
		drawAxis(ctx, LABEL_W, w, 8 + n * rh, 0, SPAN);
		/* the key: busy share 0..100 %, and no data */
		const ky = height - 18, kw = 200;
		let kx = LABEL_W;
		const text = function (t) {
			ctx.fillStyle = '#333';
			ctx.fillText(t, kx, ky + 6);
			kx += ctx.measureText(t).width + 6;
		};
		text('busy share:');
		text('0 %');
		const grad = ctx.createLinearGradient(kx, 0, kx + kw, 0);
		grad.addColorStop(0, heatColor(0));
		grad.addColorStop(0.5, heatColor(0.5));
		grad.addColorStop(1, heatColor(1));
		ctx.fillStyle = grad;
		ctx.fillRect(kx, ky, kw, 12);
		ctx.strokeStyle = '#999';
		ctx.strokeRect(kx + 0.5, ky + 0.5, kw, 12);
		kx += kw + 6;
		text('100 %');
		kx += 20;
		ctx.fillStyle = 'rgb(250,250,250)';
		ctx.fillRect(kx, ky, 12, 12);
		ctx.strokeRect(kx + 0.5, ky + 0.5, 12, 12);
		kx += 18;
		text('nothing known');
		kx += 20;
		text('(' + fmtDur(SPAN / nb) + ' per column)');
		canvas.dataset.key = 'busy share';
	}

	function heatColor(f) {
		return 'rgb(255,' + Math.round(255 * (1 - f * 0.85)) + ',' + Math.round(255 * (1 - f)) + ')';
	}

	/* ---------------------------------------------------------- */
	/* execution paths */

	const P = D.paths;

	function instanceEnd(inst) {
		return inst.end !== undefined ? inst.end : inst.start;
	}

	function drawPathsGantt() {
		const canvas = document.getElementById('paths-gantt');
		if (!P) {
			setup(canvas, 24).fillText('No execution paths to show.', 4, 12);
			return;
		}
		const laneH = 30;
		const height = P.paths.length * (laneH + 10) + 30;
		const ctx = setup(canvas, height);
		const w = canvas._w - LABEL_W;
		const k = w / (view.e - view.b);
		P.paths.forEach(function (p, pi) {
			const y = 6 + pi * (laneH + 10);
			ctx.fillStyle = '#333';
			ctx.fillText(fit(ctx, p.name, LABEL_W - 8), 4, y + laneH / 2);
			for (const inst of p.instances) {
				const s = inst.start - T0, e = instanceEnd(inst) - T0;
				const fire = inst.firing !== undefined ? inst.firing - T0 : s;
				const dl = p.deadline_ns !== undefined ? fire + p.deadline_ns : undefined;
				const right = Math.max(e, dl === undefined ? e : dl);
				if (right < view.b || Math.min(s, fire) > view.e) continue;
				const sub = inst.n % 2 ? laneH / 2 : 0;
				const x0 = LABEL_W + (s - view.b) * k;
				const x1 = LABEL_W + (e - view.b) * k;
				ctx.fillStyle = inst.deadline === 'missed' ? '#e05555'
					: inst.deadline === 'met' ? '#6cbf6c' : '#aaa';
				ctx.fillRect(Math.max(LABEL_W, x0), y + sub + 3, Math.max(1, x1 - Math.max(LABEL_W, x0)), laneH / 2 - 6);
				/* expected firing: a tick; deadline: a bracket */
				if (inst.firing !== undefined) {
					const xf = LABEL_W + (fire - view.b) * k;
					if (xf >= LABEL_W) {
						ctx.fillStyle = '#333';
						ctx.fillRect(xf, y + sub, 1, laneH / 2);
					}
				}
				if (dl !== undefined) {
					const xd = LABEL_W + (dl - view.b) * k;
					if (xd >= LABEL_W) {
						ctx.strokeStyle = inst.deadline === 'missed' ? '#d00' : '#333';
						ctx.lineWidth = inst.deadline === 'missed' ? 2 : 1;
						ctx.beginPath();
						ctx.moveTo(xd - 4, y + sub + 1);
						ctx.lineTo(xd, y + sub + 1);
						ctx.lineTo(xd, y + sub + laneH / 2 - 1);
						ctx.lineTo(xd - 4, y + sub + laneH / 2 - 1);
						ctx.stroke();
						ctx.lineWidth = 1;
					}
				}
			}
		});
		drawAxis(ctx, LABEL_W, w, height - 20, view.b, view.e);
		canvas.dataset.viewBegin = String(view.b);
		canvas.dataset.viewEnd = String(view.e);
	}

	function pathsSummary() {
		const box = document.getElementById('paths-summary');
		if (!P) {
			box.appendChild(el('p', { class: 'empty' }, 'No path description given (hetrace report --paths FILE.yaml).'));
			return;
		}
		const t = el('table');
		const hr = el('tr');
		for (const h of ['path', 'instances', 'met', 'missed', 'incomplete', 'response min', 'mean', 'max', 'p99'])
			hr.appendChild(el('th', null, h));
		t.appendChild(hr);
		for (const p of P.paths) {
			const r = el('tr');
			const rs = p.response;
			for (const v of [p.name, p.instances_count, p.met, p.missed, p.incomplete,
				rs.count ? fmtDur(rs.min) : '-', rs.count ? fmtDur(rs.mean) : '-',
				rs.count ? fmtDur(rs.max) : '-', rs.count ? fmtDur(rs.p99) : '-'])
				r.appendChild(el('td', null, String(v)));
			if (p.missed) r.children[3].className = 'missed';
			t.appendChild(r);
		}
		box.appendChild(t);
		const t2 = el('table');
		const h2 = el('tr');
		for (const h of ['path / activity', 'join', 'wait min', 'mean', 'max', 'p99', 'exec min', 'mean', 'max', 'p99'])
			h2.appendChild(el('th', null, h));
		t2.appendChild(h2);
		for (const p of P.paths) {
			for (const a of p.activities) {
				const r = el('tr');
				const cells = [p.name + ' / ' + a.name, a.after.length ? (a.after.length > 1 ? a.join : 'seq') : '-'];
				for (const s of [a.wait, a.exec])
					for (const f of ['min', 'mean', 'max', 'p99'])
						cells.push(s.count ? fmtDur(s[f]) : '-');
				for (const v of cells) r.appendChild(el('td', null, v));
				t2.appendChild(r);
			}
		}
		box.appendChild(t2);
		box.appendChild(el('p', { class: 'hint' },
			'Gantt below: one lane per path; bars from trigger to the last activity end (green met, red missed, grey incomplete); ticks at the expected firing times; brackets at the deadlines (red when missed). It follows the timeline\'s zoom.'));
	}

	/* the path view: per activity, waiting (light) then execution (solid) */
	const sel = document.getElementById('instance-select');

	function fillInstances() {
		if (!P) {
			sel.disabled = true;
			return;
		}
		P.paths.forEach(function (p, pi) {
			const worst = new Set(p.worst.map(function (w) { return w.instance; }));
			const order = p.instances.map(function (inst, i) { return i; });
			order.sort(function (a, b) {
				const wa = worst.has(p.instances[a].n), wb = worst.has(p.instances[b].n);
				if (wa !== wb) return wa ? -1 : 1;
				return a - b;
			});
			for (const i of order.slice(0, 3000)) {
				const inst = p.instances[i];
				const o = el('option', { value: pi + ':' + i },
					p.name + ' ' + inst.n + (worst.has(inst.n) ? ' (worst)' : '') +
					(inst.deadline === 'missed' ? ' MISSED' : '') +
					(inst.response !== undefined ? ' ' + fmtDur(inst.response) : ' incomplete'));
				sel.appendChild(o);
			}
		});
		sel.addEventListener('change', function () {
			drawPathView();
			selectInstance(true);
		});
	}

	/* the chosen instance, shown in the timeline: zoomed to it (with a
	 * margin of a tenth of its length on each side) when @zoom */
	function selectInstance(zoom) {
		selected = null;
		if (!P || !sel.value) return;
		const [pi, ii] = sel.value.split(':').map(Number);
		const inst = P.paths[pi].instances[ii];
		let b = inst.start, e = instanceEnd(inst);
		const acts = [];
		const cores = new Set();
		for (const r of inst.runs) {
			if (!r || r[2] === null) continue;
			const c = coreByName.get(P.cores[r[0]]);
			if (c === undefined) continue;
			cores.add(c);
			const end = r[3] !== null ? r[3] : e;
			acts.push([c, r[2] - T0, end - T0]);
			b = Math.min(b, r[1] !== null ? r[1] : r[2]);
			e = Math.max(e, end);
		}
		b -= T0;
		e -= T0;
		const flows = D.flows.filter(function (f) {
			return cores.has(f[0]) && cores.has(f[2]) && f[1] >= b && f[3] <= e;
		});
		selected = { b: b, e: e, acts: acts, flows: flows, n: inst.n };
		tl.dataset.selected = String(inst.n);
		tl.dataset.selBegin = String(b);
		tl.dataset.selEnd = String(e);
		if (zoom) {
			const m = Math.max((e - b) / 10, 50);
			setView(b - m, e + m);
		} else {
			redraw();
		}
	}

	function drawPathView() {
		const canvas = document.getElementById('path-view');
		const blame = document.getElementById('blame');
		blame.textContent = '';
		if (!P || !sel.value) {
			setup(canvas, 30).fillText('No instance to show.', 4, 15);
			return;
		}
		const [pi, ii] = sel.value.split(':').map(Number);
		const p = P.paths[pi], inst = p.instances[ii];
		const acts = p.activities;
		const rowH = 22;
		const height = acts.length * rowH + 50;
		const ctx = setup(canvas, height);
		const w = canvas._w - LABEL_W - 10;
		const fire = inst.firing !== undefined ? inst.firing : inst.start;
		let b = Math.min(inst.start, fire), e = instanceEnd(inst);
		for (const r of inst.runs) {
			if (!r) continue;
			for (const t of r.slice(1)) if (t !== null) { b = Math.min(b, t); e = Math.max(e, t); }
		}
		if (p.deadline_ns !== undefined) e = Math.max(e, fire + p.deadline_ns);
		if (e <= b) e = b + 1;
		const k = w / (e - b);
		const X = function (t) { return LABEL_W + (t - b) * k; };
		acts.forEach(function (a, i) {
			const y = 6 + i * rowH;
			const r = inst.runs[i];
			ctx.fillStyle = '#333';
			ctx.fillText(fit(ctx, a.name, LABEL_W - 8), 4, y + rowH / 2);
			if (!r || r[2] === null) {
				ctx.fillStyle = '#999';
				ctx.fillText('did not run', LABEL_W + 4, y + rowH / 2);
				return;
			}
			const [core, ready, begin, end] = r;
			const hue = 'hsl(' + (200 + 47 * Math.max(0, core)) % 360 + ',55%,55%)';
			if (ready !== null && begin !== null) {
				ctx.fillStyle = 'rgba(240,170,60,0.35)';
				ctx.fillRect(X(ready), y + 4, Math.max(1, X(begin) - X(ready)), rowH - 8);
			}
			if (begin !== null) {
				ctx.fillStyle = hue;
				ctx.fillRect(X(begin), y + 3, Math.max(1, X(end !== null ? end : e) - X(begin)), rowH - 6);
				ctx.fillStyle = '#222';
				const label = (core >= 0 && P.cores[core] ? P.cores[core] + ': ' : '') +
					(ready !== null ? 'wait ' + fmtDur(begin - ready) + ', ' : '') +
					(end !== null ? 'exec ' + fmtDur(end - begin) : 'no end');
				const tx = Math.min(X(end !== null ? end : e) + 4, canvas._w - ctx.measureText(label).width - 2);
				ctx.fillText(label, tx, y + rowH / 2);
			}
		});
		/* firing time and deadline */
		const yb = 6 + acts.length * rowH;
		ctx.fillStyle = '#333';
		ctx.fillRect(X(fire), 2, 1, yb);
		if (p.deadline_ns !== undefined) {
			const xd = X(fire + p.deadline_ns);
			ctx.fillStyle = inst.deadline === 'missed' ? '#d00' : '#333';
			ctx.fillRect(xd, 2, 2, yb);
			ctx.fillText('deadline', Math.min(xd + 4, canvas._w - 60), yb + 6);
		}
		drawAxis(ctx, LABEL_W, w, height - 20, b - T0, e - T0);
		canvas.dataset.instance = String(inst.n);
		/* the interference, for the worst instances */
		const wst = p.worst.find(function (x) { return x.instance === inst.n; });
		const head = p.name + ' ' + inst.n + ': ' +
			(inst.response !== undefined ? 'response ' + fmtDur(inst.response) : 'incomplete') +
			(inst.deadline === 'missed' ? ', deadline missed by ' + fmtDur(inst.lateness) :
				inst.deadline === 'met' ? ', deadline met (slack ' + fmtDur(-inst.lateness) + ')' : '');
		blame.appendChild(el('p', inst.deadline === 'missed' ? { class: 'missed' } : null, head));
		if (wst) {
			const ul = el('ul');
			if (!P.has_states) ul.appendChild(el('li', null, 'no task_switch or isr events: the interference is not known'));
			else if (!wst.blame.length) ul.appendChild(el('li', null, 'nothing else ran on its cores meanwhile'));
			/* per core: who ran there instead, how long (never a sum
			 * over cores: each core's time is within the instance) */
			const per = [];
			for (const x of wst.blame) {
				for (const c in x.cores) per.push({ core: c, who: x.who, isr: x.isr, ns: x.cores[c], during: x.during });
			}
			per.sort(function (a, b) { return coreRank(a.core) - coreRank(b.core) || b.ns - a.ns; });
			blame.dataset.rows = String(per.length);
			blame.dataset.maxNs = String(per.reduce(function (m, x) { return Math.max(m, x.ns); }, 0));
			blame.dataset.response = String(inst.response !== undefined ? inst.response : '');
			if (per.length) {
				const t = el('table', { class: 'blame' });
				const hr = el('tr');
				for (const h of ['core', 'ran instead', 'how', 'for', 'share of the response', 'during']) hr.appendChild(el('th', null, h));
				t.appendChild(hr);
				for (const x of per) {
					const r = el('tr');
					const share = inst.response ? (100 * x.ns / inst.response).toFixed(1) + ' %' : '-';
					for (const v of [x.core, x.who, x.isr ? 'interrupted' : 'preempted', fmtDur(x.ns), share, x.during.join(', ')])
						r.appendChild(el('td', null, v));
					t.appendChild(r);
				}
				blame.appendChild(t);
			} else {
				blame.appendChild(ul);
			}
		}
	}

	/* ---------------------------------------------------------- */
	/* sync plots */

	function lineAt(l, x) {
		return l.y0 + (x - l.x0) * (l.y1 - l.y0) / (l.x1 - l.x0);
	}

	function niceTicks(lo, hi, n) {
		const raw = (hi - lo) / n;
		const p = Math.pow(10, Math.floor(Math.log10(raw)));
		let step = 10 * p;
		for (const m of [1, 2, 5]) if (m * p >= raw) { step = m * p; break; }
		const out = [];
		for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
		return { ticks: out, step: step };
	}

	/*
	 * One plot: x in ns (the reference clock, from the trace start), y
	 * in us within [-yr, yr]; points beyond are clipped to the edge and
	 * marked with a triangle. series: {name, color, dots | line, pts:
	 * [[x, y]] (a NaN y breaks a line)}; steps: x of the frequency
	 * steps (dashed). The legend is HTML under the canvas.
	 */
	function plot(title, series, steps, yr, ylabel, xlabel) {
		const box = el('div', { class: 'sync-plot' });
		box.appendChild(el('h3', null, title));
		const cbox = el('div', { class: 'canvas-box' });
		const canvas = el('canvas');
		cbox.appendChild(canvas);
		box.appendChild(cbox);
		document.getElementById('sync-plots').appendChild(box);
		const ctx = setup(canvas, 240);
		const L = 86, R = 16, W = canvas._w - L - R, H = 180, TOP = 20;
		let x0 = Infinity, x1 = -Infinity;
		for (const s of series) for (const p of s.pts) {
			if (!isFinite(p[0])) continue;
			x0 = Math.min(x0, p[0]); x1 = Math.max(x1, p[0]);
		}
		if (!isFinite(x0)) {
			ctx.fillText('no points', L, 20);
			return canvas;
		}
		if (x1 === x0) x1 = x0 + 1;
		const X = function (x) { return L + (x - x0) / (x1 - x0) * W; };
		const Y = function (y) { return TOP + (1 - (y + yr) / (2 * yr)) * H; };
		ctx.strokeStyle = '#ccc';
		ctx.strokeRect(L + 0.5, TOP + 0.5, W, H);
		/* y ticks in us */
		const yt = niceTicks(-yr, yr, 6);
		const dec = Math.max(0, Math.min(3, -Math.floor(Math.log10(yt.step))));
		ctx.fillStyle = '#555';
		ctx.textAlign = 'right';
		for (const v of yt.ticks) {
			ctx.fillRect(L - 4, Math.round(Y(v)), 4, 1);
			ctx.fillText(v.toFixed(dec) + ' us', L - 6, Y(v));
		}
		ctx.textAlign = 'left';
		ctx.fillText(ylabel, L + 4, TOP - 10);
		/* x ticks: the time on the reference clock */
		const xt = niceTicks(x0, x1, Math.max(2, Math.floor(W / 120)));
		for (const v of xt.ticks) {
			const x = X(v);
			ctx.fillRect(Math.round(x), TOP + H, 1, 4);
			const label = fmtDur(v);
			const lw = ctx.measureText(label).width;
			ctx.fillText(label, Math.max(L, Math.min(L + W - lw, x - lw / 2)), TOP + H + 12);
		}
		const xl = ctx.measureText(xlabel).width;
		ctx.fillText(xlabel, L + W - xl, TOP + H + 28);
		/* the frequency steps */
		ctx.strokeStyle = '#888';
		ctx.setLineDash([4, 3]);
		for (const sx of steps) {
			ctx.beginPath();
			ctx.moveTo(Math.round(X(sx)) + 0.5, TOP);
			ctx.lineTo(Math.round(X(sx)) + 0.5, TOP + H);
			ctx.stroke();
			ctx.fillStyle = '#555';
			ctx.fillText('rate step', Math.min(X(sx) + 4, L + W - 52), TOP + 8);
		}
		ctx.setLineDash([]);
		ctx.save();
		ctx.beginPath();
		ctx.rect(L, TOP, W, H);
		ctx.clip();
		let clipped = 0;
		for (const s of series) {
			ctx.fillStyle = s.color;
			ctx.strokeStyle = s.color;
			ctx.lineWidth = s.width || 1;
			if (s.line) {
				ctx.beginPath();
				let first = true;
				for (const p of s.pts) {
					if (!isFinite(p[1])) { first = true; continue; }
					const y = Y(Math.max(-yr * 1.02, Math.min(yr * 1.02, p[1])));
					if (first) ctx.moveTo(X(p[0]), y); else ctx.lineTo(X(p[0]), y);
					first = false;
				}
				ctx.stroke();
			} else {
				for (const p of s.pts) {
					if (!isFinite(p[1])) continue;
					const x = X(p[0]);
					if (p[1] > yr || p[1] < -yr) {
						/* beyond the band: a triangle at the edge */
						clipped++;
						const up = p[1] > yr, ye = up ? TOP + 1 : TOP + H - 1;
						ctx.beginPath();
						ctx.moveTo(x, ye);
						ctx.lineTo(x - 3, ye + (up ? 6 : -6));
						ctx.lineTo(x + 3, ye + (up ? 6 : -6));
						ctx.fill();
						continue;
					}
					ctx.fillRect(x - 1.5, Y(p[1]) - 1.5, 3, 3);
				}
			}
			ctx.lineWidth = 1;
		}
		ctx.restore();
		const lg = el('div', { class: 'plot-legend' });
		for (const s of series) {
			if (s.noLegend) continue;
			const span = el('span');
			const sw = el('i');
			sw.style.background = s.color;
			if (s.line) sw.className = 'line';
			span.appendChild(sw);
			span.appendChild(document.createTextNode(s.name));
			lg.appendChild(span);
		}
		if (clipped) lg.appendChild(el('span', { class: 'clipped' }, '\u25b2\u25bc ' + clipped + ' points beyond the plotted band (clipped to the edge)'));
		if (steps.length) lg.appendChild(el('span', null, 'dashed: a clock rate step (a new piece of the fit)'));
		box.appendChild(lg);
		canvas.dataset.clipped = String(clipped);
		return canvas;
	}

	/* the pieces of a fit: its segments, or the one line */
	function fitPieces(f) {
		if (Array.isArray(f.segments) && f.segments.length) {
			return f.segments.filter(function (g) { return g.slope !== null && g.offset !== null; });
		}
		return [{ begin_x: null, end_x: null, slope: f.slope, offset: f.offset, min_line: f.min_line,
			max_line: f.max_line, width_max: f.width_max }];
	}

	function pieceOf(pieces, x) {
		for (let i = 0; i < pieces.length; i++) {
			const g = pieces[i];
			if ((g.begin_x === null || g.begin_x === undefined || g.begin_x <= x) &&
				(g.end_x === null || g.end_x === undefined || x < g.end_x)) return i;
		}
		return pieces.length - 1;
	}

	/* the @q quantile of |v| */
	function pct(v, q) {
		const a = v.filter(isFinite).map(Math.abs).sort(function (x, y) { return x - y; });
		return a.length ? a[Math.min(a.length - 1, Math.floor(a.length * q))] : 0;
	}

	function p95(v) {
		return pct(v, 0.95);
	}

	function drawSync() {
		const box = document.getElementById('sync-plots');
		const S = D.sync;
		if (!S || !Array.isArray(S.cores)) {
			box.appendChild(el('p', { class: 'empty' }, 'No sync report given (hetrace sync --report sync.json, then hetrace report --sync sync.json).'));
			return;
		}
		box.appendChild(el('p', null, 'Reference: ' + S.reference + '. Per slave, on the reference clock (x: its time from the trace start) and in its units (y: us from the fitted line, per piece of a piecewise fit): the message pairs (to the slave below the line, from the slave above), the min- and max-slope lines of each piece (every valid line lies between them), the plot scaled to that band; then the bounds of the mapped time over the trace.'));
		const slaves = S.cores.filter(function (c) { return c.fit; });
		slaves.sort(function (a, b) { return coreRank(a.name) - coreRank(b.name); });
		for (const c of slaves) {
			const f = c.fit;
			const pieces = fitPieces(f);
			const est = function (x) { const g = pieces[pieceOf(pieces, x)]; return g.slope * x + g.offset; };
			const ref = function (x) { return est(x) - T0; };
			const res = function (p) { return [ref(p[0]), (p[1] - est(p[0])) / 1000]; };
			const lower = (f.lower || []).map(res), upper = (f.upper || []).map(res);
			/* per piece, over the x its pairs cover: the estimate and
			 * the min/max lines, never across a step */
			const est0 = [], minL = [], maxL = [], steps = [];
			let band = 0, tick = 0;
			pieces.forEach(function (g, i) {
				let xa = g.first_x, xb = g.last_x;
				if (xa === undefined || xa === null || xb === undefined || xb === null) {
					const xs = (f.lower || []).concat(f.upper || []).map(function (p) { return p[0]; })
						.filter(function (x) { return pieceOf(pieces, x) === i; });
					xa = Math.min.apply(null, xs.length ? xs : [0]);
					xb = Math.max.apply(null, xs.length ? xs : [1]);
				}
				if (i && g.begin_x !== null && g.begin_x !== undefined) steps.push(g.slope * g.begin_x + g.offset - T0);
				const e = function (x) { return g.slope * x + g.offset; };
				est0.push([e(xa) - T0, 0], [e(xb) - T0, 0], [NaN, NaN]);
				for (const [l, out] of [[g.min_line, minL], [g.max_line, maxL]]) {
					if (!l) continue;
					const ya = (lineAt(l, xa) - e(xa)) / 1000, yb = (lineAt(l, xb) - e(xb)) / 1000;
					out.push([e(xa) - T0, ya], [e(xb) - T0, yb], [NaN, NaN]);
					band = Math.max(band, Math.abs(ya), Math.abs(yb));
				}
				if (g.width_max) band = Math.max(band, g.width_max / 1000);
				/* a coarse slave clock: pairs spread over a tick */
				tick = Math.max(tick, Math.abs(g.slope) / 1000);
			});
			if (!band) band = Math.max(p95(lower.map(function (p) { return p[1]; })), p95(upper.map(function (p) { return p[1]; })));
			/* the band, or most of the pairs when the delays are
			 * long (a loaded link): at most a quarter clipped */
			const yr = Math.max(0.05, band * 2.5, tick * 1.5,
				1.2 * pct(lower.concat(upper).map(function (p) { return p[1]; }), 0.75));
			const canvas = plot(c.name + ' \u2192 ' + (c.parent || S.reference) + ': ' + c.quality + ', ' +
				(pieces.length > 1 ? pieces.length + ' pieces (the clock rate changed): ' + pieces.map(function (g, i) {
					return (i ? 'from ' + fmtDur(g.slope * g.begin_x + g.offset - T0) + ' ' : '') + fmtHz(1e9 / g.slope);
				}).join(', then ') : 'drift ' + (c.drift_ppm === null ? '?' : Number(c.drift_ppm).toFixed(3)) + ' ppm'),
			[
				{ name: 'to ' + c.name, color: '#2a6fd6', pts: lower },
				{ name: 'from ' + c.name, color: '#e08a1e', pts: upper },
				{ name: 'fitted line (estimate)', color: '#222', line: true, pts: est0 },
				{ name: 'min slope', color: '#2a9d2a', line: true, pts: minL },
				{ name: 'max slope', color: '#c03030', line: true, pts: maxL },
			], steps, yr, 'offset from the fitted line', S.reference + ' time from the trace start');
			canvas.dataset.core = c.name;
			canvas.dataset.pieces = String(pieces.length);
			canvas.dataset.plot = 'pairs';
			if (Array.isArray(c.bounds) && c.bounds.length) {
				const lo = [], hi = [];
				let last = -1;
				for (const b of c.bounds) {
					const pi = pieceOf(pieces, b[0]);
					if (last >= 0 && pi !== last) { lo.push([NaN, NaN]); hi.push([NaN, NaN]); }
					last = pi;
					const x = b[2] - T0;
					lo.push([x, b[1] === null ? NaN : (b[1] - b[2]) / 1000]);
					hi.push([x, b[3] === null ? NaN : (b[3] - b[2]) / 1000]);
				}
				const bw = Math.max(p95(lo.map(function (p) { return p[1]; })), p95(hi.map(function (p) { return p[1]; })));
				const bc = plot(c.name + ': bounds of the mapped time around the estimate',
					[{ name: 'lower bound', color: '#2a6fd6', line: true, pts: lo },
					 { name: 'upper bound', color: '#c03030', line: true, pts: hi },
					 { name: 'estimate', color: '#222', line: true, pts: [[c.bounds[0][2] - T0, 0], [c.bounds[c.bounds.length - 1][2] - T0, 0]] }],
					steps, Math.max(0.05, bw * 1.3), 'bound - estimate', S.reference + ' time from the trace start');
				bc.dataset.core = c.name;
				bc.dataset.plot = 'bounds';
			}
		}
		if (!slaves.length) box.appendChild(el('p', { class: 'empty' }, 'The sync report has no fitted slave.'));
	}

	/* ---------------------------------------------------------- */
	/* header and notes */

	function header() {
		document.getElementById('title').textContent = 'hetrace report: ' + D.title;
		const lv = D.levels[D.levels.length - 1];
		document.getElementById('summary').textContent =
			D.events + ' events, ' + D.cores.length + ' cores, ' + fmtDur(SPAN) +
			' from t0 = ' + D.t0 + ' ns; ' + D.msgs.matched + ' messages matched; detail down to ' +
			(lv && lv.n ? fmtDur(SPAN / lv.n) + ' buckets' : 'the exact slices') + '.';
		const ul = document.getElementById('notes');
		for (const c of D.cores) {
			if (!c.has_tasks) ul.appendChild(el('li', null, c.name + ': no task_switch events: no task timeline (only interrupts, if any)'));
			if (c.anomalies) ul.appendChild(el('li', null, c.name + ': ' + c.anomalies + ' anomalies in the states (see hetrace states)'));
		}
		if (D.msgs.sent > D.msgs.matched) ul.appendChild(el('li', null, (D.msgs.sent - D.msgs.matched) + ' messages sent without a matched receive'));
		for (const n of D.notes || []) ul.appendChild(el('li', null, n));
		if (P) {
			for (const n of P.notes) ul.appendChild(el('li', null, n));
		}
		if (!ul.children.length) ul.appendChild(el('li', { class: 'empty' }, 'nothing to note'));
	}

	/* ---------------------------------------------------------- */

	header();
	legend();
	pathsSummary();
	fillInstances();
	timed.push(drawTimeline, drawPathsGantt);
	attachZoom(tl, LABEL_W);
	if (P) {
		const pg = document.getElementById('paths-gantt');
		attachZoom(pg, LABEL_W);
		/* a click (no drag) on an instance's bar chooses it */
		let downX = null;
		pg.addEventListener('mousedown', function (ev) { downX = ev.clientX; });
		pg.addEventListener('click', function (ev) {
			if (downX === null || Math.abs(ev.clientX - downX) > 3) return;
			const rect = pg.getBoundingClientRect();
			const x = ev.clientX - rect.left - LABEL_W, y = ev.clientY - rect.top;
			if (x < 0) return;
			const t = view.b + x / (rect.width - LABEL_W) * (view.e - view.b) + T0;
			const pi = Math.floor((y - 6) / 40);
			const p = P.paths[pi];
			if (!p) return;
			const slack = (view.e - view.b) / (rect.width - LABEL_W) * 3;
			const ii = p.instances.findIndex(function (inst) {
				return inst.start - slack <= t && t <= instanceEnd(inst) + slack;
			});
			if (ii < 0) return;
			const v = pi + ':' + ii;
			if (!Array.from(sel.options).some(function (o) { return o.value === v; })) return;
			sel.value = v;
			sel.dispatchEvent(new Event('change'));
		});
	}
	document.getElementById('zoom-in').addEventListener('click', function () { zoomAt(0.5, 0.5); });
	document.getElementById('zoom-out').addEventListener('click', function () { zoomAt(0.5, 2); });
	document.getElementById('zoom-reset').addEventListener('click', function () { setView(0, SPAN); });
	document.getElementById('show-flows').addEventListener('change', redraw);
	document.getElementById('per-core').addEventListener('change', redraw);
	document.getElementById('task-states').addEventListener('change', redraw);
	if (!(D.trows || []).length) document.getElementById('task-states').parentNode.style.display = 'none';
	function all() {
		redraw();
		drawUtil();
		drawHeat();
		drawPathView();
	}
	all();
	drawSync();
	window.addEventListener('resize', all);
	window.htReport = {
		view: view, data: D, setView: setView, labelWidth: LABEL_W,
		level: function () { return Number(tl.dataset.level); },
		lanes: function () { return lanes.map(function (l) { return Object.assign({}, l); }); },
		utilOrder: function () { return ORDER.map(function (c) { return D.cores[c].name; }); },
		runs: function (l, row) { const r = runs(l, row); return { t: Array.from(r.t), s: Array.from(r.s) }; },
	};
})();
