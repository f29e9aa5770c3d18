// SPDX-License-Identifier: MIT
// Loads a hetrace report in Debian's chromium, headless, through
// playwright-core (NODE_PATH finds it): no console error, every section
// present and drawn, wheel zoom and drag pan change the view, the path
// view follows the instance chosen; screenshots into OUTDIR.
// Usage: node browser.js REPORT.html OUTDIR NAME [--expect-paths] [--expect-sync]
//        [--expect-funcs FUNCTION]
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

	for (const id of ['sec-timeline', 'sec-util', 'sec-paths', 'sec-sync', 'sec-notes',
		'timeline', 'util-bars', 'heatmap', 'paths-gantt', 'path-view', 'legend', 'notes']) {
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
	} else if (syncPlots) {
		fail('sync plots without a sync report');
	}
	await page.screenshot({ path: path.join(outdir, name + '-page.png'), fullPage: true });

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
		const last = await page.$eval('#instance-select', (s) => s.options[s.options.length - 1].value);
		await page.selectOption('#instance-select', last);
		const shown = await page.$eval('#path-view', (c) => c.dataset.instance);
		const want = await page.$eval('#instance-select', (s) => s.options[s.selectedIndex].textContent.split(' ')[1]);
		if (shown !== want) fail('path view shows ' + shown + ', chose ' + want);
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
