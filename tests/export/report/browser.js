// SPDX-License-Identifier: MIT
// Loads a hetrace report in Debian's chromium, headless, through
// playwright-core (NODE_PATH finds it): no console error, every section
// present and drawn, wheel zoom and drag pan change the view, the path
// view follows the instance chosen; the core rows in display order
// (master first, then by role and core id), message arrows bundled per
// core pair when too dense and drawn for the selected instance, the
// timeline zoomed to the instance chosen, the event table filtered by
// its search and zooming on a click, keyboard zoom and pan, a range
// measured with shift-drag, sync plots with one piece per piece of the
// fit; screenshots into OUTDIR.
// Usage: node browser.js REPORT.html OUTDIR NAME [--expect-paths] [--expect-sync]
//        [--expect-funcs FUNCTION] [--expect-order CORE,CORE,...]
//        [--expect-bundled] [--expect-blame] [--expect-pieces CORE=N] [--search TEXT]
//        [--expect-task-states]
'use strict';
const { chromium } = require('playwright-core');
const path = require('path');

const [file, outdir, name, ...flags] = process.argv.slice(2);
const errors = [];
const fail = (msg) => errors.push(msg);

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
	});
	const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
	page.on('console', (m) => {
		// the test's own pixel readbacks make chromium suggest willReadFrequently
		if (/willReadFrequently/.test(m.text())) return;
		if (m.type() === 'error' || m.type() === 'warning') fail('console ' + m.type() + ': ' + m.text());
	});
	page.on('pageerror', (e) => fail('page error: ' + e.message));
	page.on('request', (r) => {
		if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) fail('network request: ' + r.url());
	});
	const t0 = Date.now();
	await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
	const loadMs = Date.now() - t0;

	const flag = (f) => { const i = flags.indexOf(f); return i >= 0 ? flags[i + 1] : null; };
	for (const id of ['sec-timeline', 'sec-util', 'sec-paths', 'sec-sync', 'sec-notes',
		'timeline', 'util-bars', 'heatmap', 'paths-gantt', 'path-view', 'legend', 'notes',
		'event-search', 'events-table']) {
		if (!(await page.$('#' + id))) fail('missing #' + id);
	}
	// every canvas of the page has something drawn on it
	const blank = await page.evaluate(() => {
		const out = [];
		for (const c of document.querySelectorAll('canvas')) {
			if (!c.width || !c.height) { out.push((c.id || 'canvas') + ' (size 0)'); continue; }
			const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
			let ink = 0;
			for (let i = 3; i < d.length; i += 4 * 7) if (d[i]) ink++;
			if (!ink) out.push(c.id || 'canvas');
		}
		return out;
	});
	if (blank.length) fail('blank canvases: ' + blank.join(', '));

	const summary = await page.$eval('#summary', (e) => e.textContent);
	if (!/events, \d+ cores/.test(summary)) fail('summary: ' + summary);
	const pathsText = await page.$eval('#sec-paths', (e) => e.textContent);
	const syncPlots = await page.$$eval('#sync-plots canvas', (l) => l.length);
	if (flags.includes('--expect-paths')) {
		const rows = await page.$$eval('#paths-summary table tr', (l) => l.length);
		if (rows < 2) fail('paths summary table is empty');
		const opts = await page.$$eval('#instance-select option', (l) => l.length);
		if (!opts) fail('no instance to choose');
	} else if (!/No path description/.test(pathsText)) {
		fail('paths section does not say there is no path description');
	}
	if (flags.includes('--expect-sync')) {
		if (syncPlots < 2) fail('sync plots: ' + syncPlots);
		// every pairs plot: one piece per piece of the fit
		const pieces = await page.evaluate(() => {
			const out = {};
			for (const c of window.htReport.data.sync.cores) {
				if (!c.fit) continue;
				const cv = document.querySelector('#sync-plots canvas[data-plot="pairs"][data-core="' + c.name + '"]');
				const want = Array.isArray(c.fit.segments) && c.fit.segments.length ? c.fit.segments.length : 1;
				out[c.name] = [cv ? Number(cv.dataset.pieces) : -1, want];
			}
			return out;
		});
		for (const c in pieces) if (pieces[c][0] !== pieces[c][1]) fail('sync plot of ' + c + ': ' + pieces[c][0] + ' pieces, the fit has ' + pieces[c][1]);
		const ep = flag('--expect-pieces');
		if (ep) {
			const [core, n] = ep.split('=');
			if (!pieces[core] || pieces[core][0] !== Number(n)) fail('sync plot of ' + core + ': ' + JSON.stringify(pieces[core]) + ', want ' + n + ' pieces');
			const cv = await page.$('#sync-plots canvas[data-plot="pairs"][data-core="' + core + '"]');
			if (cv) {
				const box = await page.evaluateHandle((c) => c.closest('.sync-plot'), cv);
				await box.asElement().screenshot({ path: path.join(outdir, name + '-sync-' + core + '.png') });
			}
		}
		// the plots are scaled to the band, or to most pairs: at most a
		// quarter of them clipped (triangles at the edge)
		const clipped = await page.$$eval('#sync-plots canvas[data-plot="pairs"]', (l) => l.map((c) => Number(c.dataset.clipped)));
		const npairs = await page.evaluate(() => window.htReport.data.sync.cores.filter((c) => c.fit).map((c) => c.fit.lower.length + c.fit.upper.length));
		clipped.forEach((n, i) => { if (!(n <= npairs[i] * 0.3)) fail('sync plot ' + i + ': ' + n + ' of ' + npairs[i] + ' pairs clipped'); });
	} else if (syncPlots) {
		fail('sync plots without a sync report');
	}
	await page.screenshot({ path: path.join(outdir, name + '-page.png'), fullPage: true });
	const tlShot = async (what) => {
		const sec = await page.$('#sec-timeline');
		await sec.screenshot({ path: path.join(outdir, name + '-' + what + '.png') });
	};
	await tlShot('timeline-first');

	// the heat map has its colour key
	if ((await page.$eval('#heatmap', (c) => c.dataset.key || '')) !== 'busy share') fail('the heat map has no key');
	// the core rows, top to bottom: the display order
	const order = flag('--expect-order');
	if (order) {
		const got = await page.evaluate(() => {
			const R = window.htReport;
			return R.lanes().filter((l) => l.depth === -1).sort((a, b) => a.y - b.y).map((l) => R.data.cores[l.core].name);
		});
		if (got.join(',') !== order) fail('core rows: ' + got.join(',') + ', want ' + order);
		const util = await page.evaluate(() => window.htReport.utilOrder ? window.htReport.utilOrder() : []);
		if (util.join(',') !== order) fail('utilization rows: ' + util.join(',') + ', want ' + order);
	}
	// task rows (the process Gantt): a lane per task, running, ready
	// and blocked among their states, the key shown
	if (flags.includes('--expect-task-states')) {
		const ts = await page.evaluate(() => {
			const R = window.htReport, D = R.data, L = D.levels.length - 1;
			const lanes = R.lanes().filter((l) => l.task !== undefined);
			const seen = new Set();
			for (const l of lanes) {
				const r = R.runs(L, l.row);
				for (const s of r.s) if (s && D.states[s - 1].k === 'ts') seen.add(D.states[s - 1].n);
			}
			return { trows: (D.trows || []).length, lanes: lanes.length, seen: Array.from(seen).sort(), key: !!document.getElementById('task-key') };
		});
		if (!ts.trows || ts.lanes !== ts.trows || !ts.key) fail('task rows: ' + JSON.stringify(ts));
		for (const k of ['blocked', 'ready', 'running']) if (!ts.seen.includes(k)) fail('task rows without ' + k + ': ' + JSON.stringify(ts));
	}
	// arrows at the first view: bundled per core pair when too many
	const flows = await page.$eval('#timeline', (c) => ({ mode: c.dataset.flowMode, drawn: Number(c.dataset.flowsDrawn) }));
	const nflows = await page.evaluate(() => window.htReport.data.flows.length);
	if (flags.includes('--expect-bundled')) {
		if (!/^bundled/.test(flows.mode)) fail('first view: ' + nflows + ' arrows drawn ' + flows.mode + ', want bundled');
		if (!(flows.drawn > 0 && flows.drawn < nflows)) fail('first view: ' + flows.drawn + ' bundles for ' + nflows + ' arrows');
	}

	// keyboard: W zooms in, D pans, S zooms out
	{
		const v0 = await page.evaluate(() => [window.htReport.view.b, window.htReport.view.e]);
		await page.focus('#timeline');
		await page.keyboard.press('w');
		const v1 = await page.evaluate(() => [window.htReport.view.b, window.htReport.view.e]);
		await page.keyboard.press('d');
		const v2 = await page.evaluate(() => [window.htReport.view.b, window.htReport.view.e]);
		await page.keyboard.press('-');
		const v3 = await page.evaluate(() => [window.htReport.view.b, window.htReport.view.e]);
		if (!(v1[1] - v1[0] < 0.6 * (v0[1] - v0[0]))) fail('key w: ' + v0 + ' -> ' + v1);
		if (!(v2[0] > v1[0])) fail('key d: ' + v1 + ' -> ' + v2);
		if (!(v3[1] - v3[0] > 1.5 * (v2[1] - v2[0]))) fail('key -: ' + v2 + ' -> ' + v3);
		await page.evaluate(() => window.htReport.setView(0, 1e300));
	}
	// a range measured with shift-drag: its duration shown
	{
		const b = await (await page.$('#timeline')).boundingBox();
		const R = await page.evaluate(() => ({ w: window.htReport.labelWidth, b: window.htReport.view.b, e: window.htReport.view.e }));
		const x0 = b.x + R.w + 100, x1 = b.x + R.w + 400;
		await page.keyboard.down('Shift');
		await page.mouse.move(x0, b.y + 10);
		await page.mouse.down();
		await page.mouse.move(x1, b.y + 10, { steps: 4 });
		await page.mouse.up();
		await page.keyboard.up('Shift');
		const m = await page.$eval('#timeline', (c) => Number(c.dataset.measure));
		const want = 300 / (b.width - R.w) * (R.e - R.b);
		if (!(Math.abs(m - want) < want * 0.02)) fail('shift-drag measure: ' + m + ', want ' + want);
		const v = await page.evaluate(() => [window.htReport.view.b, window.htReport.view.e]);
		if (v[0] !== R.b || v[1] !== R.e) fail('shift-drag moved the view');
		const txt = await page.$eval('#view-range', (e) => e.textContent);
		if (!/measured /.test(txt)) fail('the measure is not shown: ' + txt);
		await tlShot('measure');
		await page.keyboard.press('Escape');
	}
	// the event table: the events of the view, filtered by the search;
	// a click zooms to the event
	if (await page.$('#events-table')) {
		const all = await page.$eval('#events-table', (t) => Number(t.dataset.matches));
		const nev = await page.evaluate(() => window.htReport.data.table ? window.htReport.data.table.rows.length : -1);
		if (!(all > 0) || all !== nev) fail('event table at the whole trace: ' + all + ' events of ' + nev);
		const q = flag('--search') || 'msg_send';
		const want = await page.evaluate((q) => window.htReport.data.table.rows.filter((r) =>
			(r[2] + ' ' + r[3]).toLowerCase().includes(q.toLowerCase()) ||
			window.htReport.data.cores[r[0]].name.toLowerCase().includes(q.toLowerCase())).length, q);
		await page.fill('#event-search', q);
		await page.waitForTimeout(100);
		const got = await page.$eval('#events-table', (t) => Number(t.dataset.matches));
		if (got !== want || !(got < all)) fail('search "' + q + '": ' + got + ' events, want ' + want + ' of ' + all);
		const rows = await page.$$eval('#events-table tr.ev', (l) => l.map((r) => r.textContent));
		if (rows.some((r) => !r.toLowerCase().includes(q.toLowerCase()))) fail('search "' + q + '": a row without it');
		const evRows = await page.$$('#events-table tr.ev');
		if (!evRows.length) fail('search "' + q + '": no event found');
		else {
			const row = evRows[Math.min(2, evRows.length - 1)];
			const t = Number(await row.getAttribute('data-t'));
			await row.click();
			await page.waitForTimeout(50);
			const v = await page.evaluate(() => [window.htReport.view.b, window.htReport.view.e]);
			if (!(v[0] <= t && t <= v[1] && v[1] - v[0] <= 100001)) fail('click on an event at ' + t + ': view ' + v);
		}
		await page.fill('#event-search', '');
		await page.evaluate(() => window.htReport.setView(0, 1e300));
	}

	// wheel zoom around the middle of the timeline
	const tl = await page.$('#timeline');
	const box = await tl.boundingBox();
	const range = () => page.$eval('#timeline', (c) => [Number(c.dataset.viewBegin), Number(c.dataset.viewEnd), Number(c.dataset.level)]);
	const before = await range();
	await page.mouse.move(box.x + 130 + (box.width - 130) / 2, box.y + 20);
	for (let i = 0; i < 6; i++) {
		await page.mouse.wheel(0, -400);
		await page.waitForTimeout(50);
	}
	const zoomed = await range();
	if (!(zoomed[1] - zoomed[0] < (before[1] - before[0]) / 4)) fail('wheel zoom: ' + before + ' -> ' + zoomed);
	const gantt = await page.$eval('#paths-gantt', (c) => [Number(c.dataset.viewBegin || 0), Number(c.dataset.viewEnd || 0)]);
	if (flags.includes('--expect-paths') && (gantt[0] !== zoomed[0] || gantt[1] !== zoomed[1])) fail('paths Gantt does not follow the zoom: ' + gantt);
	// drag to pan
	await page.mouse.move(box.x + 700, box.y + 20);
	await page.mouse.down();
	await page.mouse.move(box.x + 500, box.y + 20, { steps: 5 });
	await page.mouse.up();
	const panned = await range();
	if (!(panned[0] > zoomed[0])) fail('drag pan: ' + zoomed + ' -> ' + panned);
	await tl.screenshot({ path: path.join(outdir, name + '-zoomed.png') });
	// choose the last instance: the path view follows
	if (flags.includes('--expect-paths')) {
		// the worst instance (chosen first): its interference per core,
		// none longer than the instance itself
		const bl = await page.$eval('#blame', (b) => ({ rows: Number(b.dataset.rows), max: Number(b.dataset.maxNs), resp: Number(b.dataset.response),
			text: b.textContent }));
		if (flags.includes('--expect-blame') && !(bl.rows > 0 && bl.max <= bl.resp)) fail('blame of the worst instance: ' + JSON.stringify(bl));
		const last = await page.$eval('#instance-select', (s) => s.options[s.options.length - 1].value);
		await page.selectOption('#instance-select', last);
		const shown = await page.$eval('#path-view', (c) => c.dataset.instance);
		const want = await page.$eval('#instance-select', (s) => s.options[s.selectedIndex].textContent.split(' ')[1]);
		if (shown !== want) fail('path view shows ' + shown + ', chose ' + want);
		// the timeline is zoomed to the instance, its arrows drawn
		const sel = await page.evaluate(() => {
			const R = window.htReport, D = R.data, tl = document.getElementById('timeline');
			const [pi, ii] = document.getElementById('instance-select').value.split(':').map(Number);
			const inst = D.paths.paths[pi].instances[ii];
			let b = inst.start, e = inst.end !== undefined ? inst.end : inst.start;
			for (const r of inst.runs) if (r && r[2] !== null) { b = Math.min(b, r[1] !== null ? r[1] : r[2]); if (r[3] !== null) e = Math.max(e, r[3]); }
			return { b: b - Number(D.t0), e: e - Number(D.t0), vb: R.view.b, ve: R.view.e, n: inst.n, sel: tl.dataset.selected,
				flows: Number(tl.dataset.selectedFlows), mode: tl.dataset.flowMode };
		});
		if (!(sel.vb <= sel.b && sel.e <= sel.ve)) fail('instance ' + sel.n + ' [' + sel.b + ', ' + sel.e + '] not in the view [' + sel.vb + ', ' + sel.ve + ']');
		if (!(sel.ve - sel.vb < 2 * (sel.e - sel.b) + 200)) fail('instance ' + sel.n + ': the view [' + sel.vb + ', ' + sel.ve + '] is not zoomed to it');
		if (sel.sel !== String(sel.n)) fail('timeline: selected ' + sel.sel + ', want ' + sel.n);
		if (flags.includes('--expect-bundled') && !(sel.flows > 0)) fail('instance ' + sel.n + ': no arrow drawn for it');
		await tlShot('timeline-selected');
		await (await page.$('#sec-paths')).screenshot({ path: path.join(outdir, name + '-paths.png') });
	}
	// function rows: the widest call of FUNC, zoomed to, is drawn there
	// and named on hover
	const fi = flags.indexOf('--expect-funcs');
	if (fi >= 0) {
		const fname = flags[fi + 1];
		const call = await page.evaluate((name) => {
			const R = window.htReport, D = R.data, L = D.levels.length - 1;
			const lanes = R.lanes().filter((l) => l.depth >= 0);
			let best = null;
			for (const lane of lanes) {
				const r = R.runs(L, lane.row);
				for (let i = 0; i + 1 < r.t.length; i++) {
					if (r.s[i] && D.states[r.s[i] - 1].n === name && (!best || r.t[i + 1] - r.t[i] > best.e - best.b))
						best = { row: lane.row, b: r.t[i], e: r.t[i + 1] };
				}
			}
			return { lanes: lanes.length, best };
		}, fname);
		if (!call.lanes) fail('no function rows');
		else if (!call.best) fail('no call of ' + fname + ' in the function rows');
		else {
			await page.evaluate((c) => window.htReport.setView(c.b - (c.e - c.b) / 4, c.e + (c.e - c.b) / 4), call.best);
			const pos = await page.evaluate((c) => {
				const R = window.htReport, lane = R.lanes().find((l) => l.row === c.row);
				const cv = document.getElementById('timeline'), rect = cv.getBoundingClientRect();
				const fx = ((c.b + c.e) / 2 - R.view.b) / (R.view.e - R.view.b);
				const x = R.labelWidth + fx * (rect.width - R.labelWidth), y = lane.y + lane.h / 2;
				const ratio = cv.width / rect.width;
				const px = cv.getContext('2d').getImageData(Math.round(x * ratio), Math.round(y * ratio), 1, 1).data;
				return { x: rect.left + x, y: rect.top + y, px: Array.from(px) };
			}, call.best);
			if (pos.px[3] === 0 || (pos.px[0] > 250 && pos.px[1] > 250 && pos.px[2] > 250))
				fail('the call of ' + fname + ' is not drawn: pixel ' + pos.px);
			await page.mouse.move(pos.x, pos.y);
			const tipText = await page.$eval('#tooltip', (e) => e.style.display === 'block' ? e.textContent : '');
			if (!tipText.includes(fname + ' (function, depth')) fail('hover on the call: "' + tipText + '"');
			await tl.screenshot({ path: path.join(outdir, name + '-functions.png') });
		}
	}
	await browser.close();
	console.log(JSON.stringify({ name, loadMs, before, zoomed, panned, errors }));
	process.exit(errors.length ? 1 : 0);
})().catch((e) => {
	console.log('browser test: ' + e.stack + '\n' + errors.join('\n'));
	process.exit(1);
});
