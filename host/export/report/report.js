/* SPDX-License-Identifier: MIT */
/*
 * hetrace report viewer (docs/report.md). Reads the JSON in
 * <script id="ht-data">; times are ns relative to data.t0. The
 * timelines are levels of run lists (varint pairs: bucket delta,
 * state id; state 0 = nothing known), the coarsest level that resolves
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

	const stateColor = D.states.map(function (s) {
		if (s.k === 'idle') return '#e4e4e4';
		if (s.k === 'isr') return 'hsl(' + (hashHue(s.n) % 40) + ',75%,45%)';
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
			ctx.fillText(fmtDur(t), x + 2, y + 10);
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
		while (i < bytes.length) {
			bucket += varint();
			t.push(bucket * unit);
			s.push(varint());
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
	const NC = D.cores.length;
	const FR = D.func_rows || 4;
	const frowsOf = D.cores.map(function () { return []; });
	(D.frows || []).forEach(function (f, k) {
		frowsOf[f[0]].push({ row: NC + k, depth: f[1] });
	});
	for (const l of frowsOf) l.sort(function (a, b) { return a.depth - b.depth; });

	function buildRows(perCore) {
		rows = [];
		const n = NC;
		if (perCore || n <= 32) {
			for (let c = 0; c < n; c++) {
				rows.push({ label: D.cores[c].name, cores: [c], rows: [c], h: 18 });
				for (const f of frowsOf[c]) {
					rows.push({
						label: '\u21b3 ' + (f.depth === 0 ? 'calls' : f.depth === FR - 1 ? 'depth ' + f.depth + '+' : 'depth ' + f.depth),
						cores: [c], rows: [f.row], depth: f.depth, h: 14,
					});
				}
			}
		} else {
			const groups = new Map();
			D.cores.forEach(function (core, c) {
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
					row: r, core: row.cores[k], depth: row.depth === undefined ? -1 : row.depth,
					y: y + k * per, h: Math.max(1, per - (per > 4 ? 1 : 0)),
				};
				lanes.push(lane);
				if (lane.depth < 0) coreLane[lane.core] = lane;
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
		if (document.getElementById('show-flows').checked) {
			ctx.strokeStyle = 'rgba(20,20,120,0.7)';
			ctx.fillStyle = 'rgba(20,20,120,0.7)';
			let drawn = 0;
			for (const f of D.flows) {
				if (f[3] < view.b || f[1] > view.e) continue;
				const l0 = coreLane[f[0]], l1 = coreLane[f[2]];
				if (!l0 || !l1) continue;
				const x0 = LABEL_W + (f[1] - view.b) * k;
				const x1 = LABEL_W + (f[3] - view.b) * k;
				const y0 = l0.y + l0.h / 2;
				const y1 = l1.y + l1.h / 2;
				ctx.beginPath();
				ctx.moveTo(x0, y0);
				ctx.lineTo(x1, y1);
				ctx.stroke();
				const a = Math.atan2(y1 - y0, x1 - x0);
				ctx.beginPath();
				ctx.moveTo(x1, y1);
				ctx.lineTo(x1 - 6 * Math.cos(a - 0.4), y1 - 6 * Math.sin(a - 0.4));
				ctx.lineTo(x1 - 6 * Math.cos(a + 0.4), y1 - 6 * Math.sin(a + 0.4));
				ctx.fill();
				if (++drawn >= 3000) break;
			}
		}
		drawAxis(ctx, LABEL_W, w, height - 20, view.b, view.e);
		tl.dataset.viewBegin = String(view.b);
		tl.dataset.viewEnd = String(view.e);
		tl.dataset.level = String(lvl);
		document.getElementById('view-range').textContent =
			fmtDur(view.b) + ' .. ' + fmtDur(view.e) + ' (' +
			fmtDur(view.e - view.b) + ' shown; level ' + lvl + ' of ' +
			(D.levels.length - 1) + ')';
	}

	function legend() {
		const box = document.getElementById('legend');
		let shown = 0, funcs = 0;
		D.states.forEach(function (s, i) {
			if (s.k === 'func') {
				funcs++;
				return;
			}
			if (shown++ >= 40) return;
			const span = el('span');
			const sw = el('i');
			sw.style.background = stateColor[i];
			span.appendChild(sw);
			span.appendChild(document.createTextNode(s.n + (s.k === 'isr' ? ' (interrupt)' : '')));
			box.appendChild(span);
		});
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
	}

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
		canvas.addEventListener('mousedown', function (ev) {
			drag = { x: ev.clientX, b: view.b, e: view.e };
		});
		window.addEventListener('mouseup', function () { drag = null; });
		window.addEventListener('mousemove', function (ev) {
			if (!drag) return;
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
			tip.textContent = D.cores[cy.core].name + ': ' + s.n + ' (' +
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
		D.cores.forEach(function (c, i) {
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
		const height = n * rh + 30;
		const ctx = setup(canvas, height);
		const w = canvas._w - LABEL_W;
		const nb = D.util.n;
		const off = document.createElement('canvas');
		off.width = nb;
		off.height = n;
		const octx = off.getContext('2d');
		const img = octx.createImageData(nb, n);
		for (let c = 0; c < n; c++) {
			const u = b64(D.util.rows[c] || '');
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
				ctx.fillText(fit(ctx, D.cores[c].name, LABEL_W - 8), 4, 4 + c * rh + rh / 2);
			}
		}
		octx.putImageData(img, 0, 0);
		ctx.imageSmoothingEnabled = false;
		ctx.drawImage(off, LABEL_W, 4, w, n * rh);
		drawAxis(ctx, LABEL_W, w, 8 + n * rh, 0, SPAN);
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
		sel.addEventListener('change', drawPathView);
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
			for (const x of wst.blame) {
				const cores = Object.keys(x.cores);
				const where = cores.length > 1 ? cores.slice(0, -1).join(', ') + ' and ' + cores[cores.length - 1] : cores[0];
				ul.appendChild(el('li', null, x.who + (x.isr ? ' interrupted ' : ' preempted ') + where +
					' for ' + fmtDur(x.ns) + (x.during.length ? ' (during ' + x.during.join(', ') + ')' : '')));
			}
			blame.appendChild(ul);
		}
	}

	/* ---------------------------------------------------------- */
	/* sync plots */

	function lineAt(l, x) {
		return l.y0 + (x - l.x0) * (l.y1 - l.y0) / (l.x1 - l.x0);
	}

	function scatter(title, series, xlabel, ylabel) {
		const box = el('div', { class: 'sync-plot' });
		box.appendChild(el('h3', null, title));
		const cbox = el('div', { class: 'canvas-box' });
		const canvas = el('canvas');
		cbox.appendChild(canvas);
		box.appendChild(cbox);
		document.getElementById('sync-plots').appendChild(box);
		const ctx = setup(canvas, 220);
		const L = 70, W = canvas._w - L - 10, H = 180;
		let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
		for (const s of series) for (const p of s.pts) {
			if (!isFinite(p[0]) || !isFinite(p[1])) continue;
			x0 = Math.min(x0, p[0]); x1 = Math.max(x1, p[0]);
			y0 = Math.min(y0, p[1]); y1 = Math.max(y1, p[1]);
		}
		if (!isFinite(x0)) {
			ctx.fillText('no points', L, 20);
			return;
		}
		if (x1 === x0) x1 = x0 + 1;
		if (y1 === y0) { y0 -= 1; y1 += 1; }
		const pad = (y1 - y0) * 0.05;
		y0 -= pad; y1 += pad;
		const X = function (x) { return L + (x - x0) / (x1 - x0) * W; };
		const Y = function (y) { return 10 + (1 - (y - y0) / (y1 - y0)) * H; };
		ctx.strokeStyle = '#ccc';
		ctx.strokeRect(L + 0.5, 10.5, W, H);
		ctx.fillStyle = '#555';
		ctx.fillText(y1.toPrecision(4), 2, 14);
		ctx.fillText(y0.toPrecision(4), 2, 10 + H - 4);
		ctx.fillText(xlabel + ': ' + x0.toPrecision(6) + ' .. ' + x1.toPrecision(6), L + W - 260, 10 + H + 26);
		ctx.fillText(ylabel, L + 4, 18);
		let lx = L;
		for (const s of series) {
			ctx.fillStyle = s.color;
			ctx.strokeStyle = s.color;
			if (s.line) {
				ctx.beginPath();
				let first = true;
				for (const p of s.pts) {
					if (!isFinite(p[1])) { first = true; continue; }
					if (first) ctx.moveTo(X(p[0]), Y(p[1])); else ctx.lineTo(X(p[0]), Y(p[1]));
					first = false;
				}
				ctx.stroke();
			} else {
				for (const p of s.pts) ctx.fillRect(X(p[0]) - 1.5, Y(p[1]) - 1.5, 3, 3);
			}
			ctx.fillRect(lx, 10 + H + 25, 10, 3);
			ctx.fillStyle = '#333';
			ctx.fillText(s.name, lx + 14, 10 + H + 26);
			lx += 110;
		}
	}

	function drawSync() {
		const box = document.getElementById('sync-plots');
		const S = D.sync;
		if (!S || !Array.isArray(S.cores)) {
			box.appendChild(el('p', { class: 'empty' }, 'No sync report given (hetrace sync --report sync.json, then hetrace report --sync sync.json).'));
			return;
		}
		box.appendChild(el('p', null, 'Reference: ' + S.reference + '. Per slave: the pairs as offsets from the estimate (child clock on x, parent clock minus the estimate on y): messages to the slave below, from the slave above; the min- and max-slope lines bound every valid line; then the bounds of the mapped time over the trace.'));
		let plotted = 0;
		for (const c of S.cores) {
			if (!c.fit) continue;
			const f = c.fit;
			/* the estimate: the piece holding x when the fit is
			 * piecewise (a clock rate step), else the one line */
			const segs = Array.isArray(f.segments) ? f.segments : [];
			const est = function (x) {
				for (const g of segs) {
					if ((g.begin_x === null || g.begin_x <= x) && (g.end_x === null || x < g.end_x) &&
						g.slope !== null && g.offset !== null) return g.slope * x + g.offset;
				}
				return f.slope * x + f.offset;
			};
			const res = function (p) { return [p[0], p[1] - est(p[0])]; };
			const lower = (f.lower || []).map(res), upper = (f.upper || []).map(res);
			const xs = lower.concat(upper).map(function (p) { return p[0]; });
			const xa = Math.min.apply(null, xs.length ? xs : [0]);
			const xb = Math.max.apply(null, xs.length ? xs : [1]);
			const series = [
				{ name: 'to ' + c.name, color: '#2a6fd6', pts: lower },
				{ name: 'from ' + c.name, color: '#e08a1e', pts: upper },
				{ name: 'estimate', color: '#222', line: true, pts: [[xa, 0], [xb, 0]] },
			];
			if (f.min_line) series.push({ name: 'min slope', color: '#2a9d2a', line: true, pts: [[xa, lineAt(f.min_line, xa) - est(xa)], [xb, lineAt(f.min_line, xb) - est(xb)]] });
			if (f.max_line) series.push({ name: 'max slope', color: '#c03030', line: true, pts: [[xa, lineAt(f.max_line, xa) - est(xa)], [xb, lineAt(f.max_line, xb) - est(xb)]] });
			scatter(c.name + ' -> ' + (c.parent || S.reference) + ' (' + c.quality + ', drift ' +
				(c.drift_ppm === null ? '?' : Number(c.drift_ppm).toFixed(3)) + ' ppm)', series,
				c.name + ' clock', 'parent clock - estimate');
			if (Array.isArray(c.bounds) && c.bounds.length) {
				const lo = [], hi = [];
				for (const b of c.bounds) {
					lo.push([b[0], b[1] === null ? NaN : b[1] - b[2]]);
					hi.push([b[0], b[3] === null ? NaN : b[3] - b[2]]);
				}
				scatter(c.name + ': bounds of the mapped time (ns, around the estimate)',
					[{ name: 'lower bound', color: '#2a6fd6', line: true, pts: lo },
					 { name: 'upper bound', color: '#c03030', line: true, pts: hi },
					 { name: 'estimate', color: '#222', line: true, pts: [[c.bounds[0][0], 0], [c.bounds[c.bounds.length - 1][0], 0]] }],
					c.name + ' clock', 'ns');
			}
			plotted++;
		}
		if (!plotted) box.appendChild(el('p', { class: 'empty' }, 'The sync report has no fitted slave.'));
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
	if (P) attachZoom(document.getElementById('paths-gantt'), LABEL_W);
	document.getElementById('zoom-in').addEventListener('click', function () { zoomAt(0.5, 0.5); });
	document.getElementById('zoom-out').addEventListener('click', function () { zoomAt(0.5, 2); });
	document.getElementById('zoom-reset').addEventListener('click', function () { setView(0, SPAN); });
	document.getElementById('show-flows').addEventListener('change', redraw);
	document.getElementById('per-core').addEventListener('change', redraw);
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
		runs: function (l, row) { const r = runs(l, row); return { t: Array.from(r.t), s: Array.from(r.s) }; },
	};
})();
