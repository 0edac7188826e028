// The render check: every report the tests produce, drawn by a real browser
// the way GitHub shows Markdown (860 px content width), with each pinned
// Mermaid version. Fails on any Mermaid error, any console or page error,
// and on charts a reader cannot read: x labels that touch, a y-axis that
// does not start at 0, a series colour under 3:1 against white, NaN in a
// path, a title wider than its chart. Writes a PNG of every page.
//
// Reports: the Markdown bodies of the insta snapshots under
// tests/cli/snapshots, and each bundled sample analysed fresh by the binary
// given with --binary, once plain (Mermaid) and once with --assets (SVG files).
//
// Usage: node render-check.mjs --root REPO --binary PATH --out DIR [--docs DIR]

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { marked } from "marked";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(
  process.argv
    .slice(2)
    .reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const root = path.resolve(args.root ?? path.join(here, "../.."));
const out = path.resolve(args.out ?? path.join(here, "out"));
const binary = args.binary;
const browserPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const GITHUB_WIDTH = 860;
const MIN_CONTRAST = 3;

const MERMAIDS = ["mermaid11", "mermaid10"].map((name) => {
  const pkg = JSON.parse(fs.readFileSync(path.join(here, "node_modules", name, "package.json"), "utf8"));
  return { name, version: pkg.version, script: path.join(here, "node_modules", name, "dist", "mermaid.min.js") };
});

// ---- the reports -----------------------------------------------------------

/** The Markdown reports among the insta snapshots (header stripped). */
function snapshotReports() {
  const dir = path.join(root, "tests/cli/snapshots");
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".snap"))
    .sort()
    .map((f) => {
      const text = fs.readFileSync(path.join(dir, f), "utf8");
      const body = text.startsWith("---\n") ? text.slice(text.indexOf("\n---\n", 4) + 5) : text;
      return { name: `snapshot-${f.replace(/\.snap$/, "")}`, markdown: body, base: dir };
    })
    .filter((r) => r.markdown.includes("## Summary"));
}

/** Each bundled sample analysed now: plain, and with --assets. */
function freshReports() {
  if (!binary) return [];
  const samples = path.join(root, "samples");
  const reports = [];
  for (const s of fs.readdirSync(samples).sort()) {
    const dir = path.join(samples, s);
    if (!fs.existsSync(path.join(dir, "truth.json"))) continue;
    const plain = path.join(out, `${s}.md`);
    const withAssets = path.join(out, `${s}-assets.md`);
    run([binary, "analyze", "-o", plain, dir]);
    run([binary, "analyze", "--assets", path.join(out, `${s}-assets`), "-o", withAssets, dir]);
    reports.push({ name: `sample-${s}`, markdown: fs.readFileSync(plain, "utf8"), base: out });
    reports.push({ name: `sample-${s}-assets`, markdown: fs.readFileSync(withAssets, "utf8"), base: out });
  }
  return reports;
}

function run(argv) {
  const r = spawnSync(argv[0], argv.slice(1), { cwd: root, encoding: "utf8", env: { ...process.env, TZ: "UTC" } });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status}: ${r.stderr}`);
}

// ---- the page --------------------------------------------------------------

const escapeHtml = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

// A Mermaid block becomes what Mermaid draws from, as on GitHub.
marked.use({
  renderer: {
    code({ text, lang }) {
      // Not class "mermaid": Mermaid would draw that by itself on load.
      return lang === "mermaid" ? `<pre class="mermaid-source">${escapeHtml(text)}</pre>\n` : false;
    },
  },
});

function html(report, mermaid) {
  const body = marked.parse(report.markdown);
  return `<!doctype html>
<html><head><meta charset="utf-8"><base href="${pathToFileURL(report.base + "/").href}">
<style>
  body { margin: 0; background: #fff; color: #1f2328;
         font: 16px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
  .markdown-body { box-sizing: border-box; width: ${GITHUB_WIDTH}px; margin: 0 20px; padding: 16px 0; }
  table { border-collapse: collapse; display: block; overflow: auto; }
  td, th { border: 1px solid #d0d7de; padding: 6px 13px; }
  pre { background: #f6f8fa; padding: 16px; overflow: auto; font-size: 85%; }
  pre.mermaid-source { background: none; padding: 0; }
  img { max-width: 100%; }
</style>
<script src="${pathToFileURL(mermaid.script).href}"></script>
<script>mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });</script>
</head><body><article class="markdown-body">${body}</article></body></html>`;
}

/** In the page: draw every Mermaid block and check what was drawn. */
async function drawAndCheck({ minContrast, svgTexts }) {
  const problems = [];
  const luminance = (css) => {
    const m = css.match(/^#([0-9a-f]{6})$/i);
    let rgb;
    if (m) rgb = [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16));
    else {
      const r = css.match(/rgba?\((\d+),\s*(\d+),\s*(\d+)/);
      if (!r) return null;
      rgb = r.slice(1, 4).map(Number);
    }
    const [R, G, B] = rgb.map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * R + 0.7152 * G + 0.0722 * B;
  };
  const contrast = (css) => {
    const l = luminance(css);
    return l === null ? null : 1.05 / (l + 0.05);
  };
  const overlapping = (texts) => {
    const boxes = texts.map((t) => t.getBoundingClientRect()).sort((a, b) => a.left - b.left);
    let touching = 0;
    for (let i = 1; i < boxes.length; i++) if (boxes[i].left < boxes[i - 1].right + 2) touching++;
    return touching;
  };
  const checkChart = (svg, where, kind) => {
    const q = (sel) => [...svg.querySelectorAll(sel)];
    const xLabels = kind === "mermaid" ? q("g.bottom-axis g.label text") : q("text.x-label");
    const yLabels = kind === "mermaid" ? q("g.left-axis g.label text") : q("text.y-label");
    const title = kind === "mermaid" ? q("g.chart-title text")[0] : q("text.title")[0];
    if (xLabels.length === 0) problems.push(`${where}: no x-axis labels drawn`);
    if (xLabels.length > 20) problems.push(`${where}: ${xLabels.length} x-axis labels (at most 20)`);
    const touching = overlapping(xLabels);
    if (touching > 0) problems.push(`${where}: ${touching} x-axis label(s) touch their neighbour`);
    const ys = yLabels.map((t) => Number(t.textContent.replace(/,/g, ""))).filter((v) => !Number.isNaN(v));
    if (ys.length === 0 || Math.min(...ys) !== 0) problems.push(`${where}: the y-axis does not start at 0 (${ys.join(", ")})`);
    const box = svg.getBoundingClientRect();
    if (!title) problems.push(`${where}: no title`);
    else {
      const t = title.getBoundingClientRect();
      if (t.left < box.left - 1 || t.right > box.right + 1) problems.push(`${where}: the title is wider than the chart`);
    }
    const marks =
      kind === "mermaid"
        ? [...q("g.plot rect").map((r) => r.getAttribute("fill")), ...q("g.plot path").map((p) => p.getAttribute("stroke"))]
        : [...q("rect.bar").map((r) => r.getAttribute("fill")), ...q(".line").map((p) => p.getAttribute("stroke") ?? p.getAttribute("fill"))];
    if (marks.length === 0) problems.push(`${where}: nothing plotted`);
    for (const colour of new Set(marks)) {
      const c = contrast(colour ?? "");
      if (c === null || c < minContrast) problems.push(`${where}: series colour ${colour} is ${c?.toFixed(2)}:1 on white`);
    }
    for (const p of q("path")) if ((p.getAttribute("d") ?? "").includes("NaN")) problems.push(`${where}: NaN in a path`);
  };

  // Mermaid blocks, one by one, so an error names its block.
  const blocks = [...document.querySelectorAll("pre.mermaid-source")];
  for (const [i, pre] of blocks.entries()) {
    const where = `mermaid block ${i + 1}`;
    try {
      const { svg } = await mermaid.render(`chart${i}`, pre.textContent);
      pre.innerHTML = svg;
      const el = pre.querySelector("svg");
      if (!el || /Syntax error/i.test(el.textContent)) problems.push(`${where}: Mermaid drew an error`);
      else checkChart(el, where, "mermaid");
    } catch (e) {
      problems.push(`${where}: ${String(e?.message ?? e).slice(0, 300)}`);
    }
  }
  // Linked SVG files: each must load, then is checked inline.
  const images = [...document.querySelectorAll("img")];
  for (const [i, img] of images.entries()) {
    const where = `image ${i + 1} (${img.getAttribute("src")})`;
    await img.decode().catch(() => {});
    if (!img.complete || img.naturalWidth === 0) {
      problems.push(`${where}: did not load`);
      continue;
    }
    // The file's text comes from Node: a file:// page may not fetch files.
    const text = svgTexts[img.getAttribute("src")] ?? "";
    const holder = document.createElement("div");
    holder.style.cssText = "position:absolute; left:0; top:0; visibility:hidden";
    holder.innerHTML = text;
    document.body.appendChild(holder);
    const svg = holder.querySelector("svg");
    if (svg) checkChart(svg, where, "svg");
    else problems.push(`${where}: not an SVG`);
    holder.remove();
  }
  return { problems, mermaidBlocks: blocks.length, images: images.length };
}

// ---- the run ---------------------------------------------------------------

fs.mkdirSync(out, { recursive: true });
const reports = [...snapshotReports(), ...freshReports()];
const browser = await chromium.launch({
  executablePath: browserPath,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
});
let failed = 0;
let charts = 0;
let pages = 0;
const screenshots = [];
for (const report of reports) {
  const usesMermaid = report.markdown.includes("```mermaid");
  for (const mermaid of usesMermaid ? MERMAIDS : MERMAIDS.slice(0, 1)) {
    const tag = usesMermaid ? `${report.name}-${mermaid.name}` : report.name;
    const file = path.join(out, `${tag}.html`);
    fs.writeFileSync(file, html(report, mermaid));
    const page = await browser.newPage({ viewport: { width: GITHUB_WIDTH + 40, height: 900 } });
    const errors = [];
    page.on("console", (m) => m.type() === "error" && errors.push(`console: ${m.text()}`));
    page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    await page.goto(pathToFileURL(file).href);
    const srcs = await page.$$eval("img", (imgs) => imgs.map((i) => i.getAttribute("src")));
    const svgTexts = Object.fromEntries(
      srcs.map((src) => {
        const file = path.resolve(report.base, src.replace(/^<|>$/g, ""));
        return [src, fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""];
      }),
    );
    const result = await page.evaluate(drawAndCheck, { minContrast: MIN_CONTRAST, svgTexts });
    const problems = [...errors, ...result.problems];
    const png = path.join(out, `${tag}.png`);
    await page.screenshot({ path: png, fullPage: true });
    screenshots.push({ tag, page, png });
    pages++;
    charts += result.mermaidBlocks + result.images;
    const label = usesMermaid ? `${report.name} (mermaid ${mermaid.version})` : report.name;
    if (problems.length > 0) {
      failed++;
      console.log(`FAIL ${label}`);
      for (const p of problems) console.log(`     ${p}`);
    } else {
      console.log(`ok   ${label}: ${result.mermaidBlocks} Mermaid chart(s), ${result.images} SVG chart(s)`);
    }
  }
}
if (args.docs) await docsScreenshots(screenshots, path.resolve(args.docs));
for (const s of screenshots) await s.page.close();
await browser.close();
console.log(`PNG screenshots in ${path.relative(root, out) || out}`);
console.log(`render-check: ${pages} page(s), ${charts} chart(s) drawn, ${failed} page(s) with problems`);
process.exit(failed > 0 || pages === 0 ? 1 : 0);

/** The two README screenshots: the bundled sample's first two charts, as
 * GitHub's Mermaid draws them and as the --assets SVG files. */
async function docsScreenshots(shots, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const pick = [
    ["sample-bulk-export-mermaid11", "pre.mermaid-source", "bulk-export-charts-mermaid.png"],
    ["sample-bulk-export-assets", "img", "bulk-export-charts-svg.png"],
  ];
  for (const [tag, selector, name] of pick) {
    const shot = shots.find((s) => s.tag === tag);
    if (!shot) throw new Error(`no page ${tag} for the docs screenshots`);
    const els = await shot.page.$$(selector);
    if (els.length < 2) throw new Error(`${tag}: fewer than two charts`);
    const a = await els[0].boundingBox();
    const b = await els[1].boundingBox();
    const pad = 8;
    await shot.page.screenshot({
      path: path.join(dir, name),
      fullPage: true,
      clip: { x: a.x - pad, y: a.y - pad, width: Math.max(a.width, b.width) + 2 * pad, height: b.y + b.height - a.y + 2 * pad },
    });
  }
}
