import { WORKLOAD_NAMES } from "./workloads";

/**
 * The p50 chart of the report, as hand-written SVG text (no chart library:
 * one grouped bar chart does not earn a dependency). One group per
 * workload, one bar per fixture size, the value printed on each bar, the
 * p50 targets as dashed lines. When the values span more than ~20× (search
 * next to item reads) the y axis is logarithmic, else small bars would
 * vanish; the axis title says which.
 */

export interface ChartPoint {
  workload: string;
  events: number;
  db: string;
  p50_ms: number;
  flagged: boolean;
}

/** p50 targets of the report (100k events; SQLite, and the issue-21 ones PostgreSQL too), drawn as dashed lines in their groups. */
const P50_TARGETS: Record<string, number> = {
  by_id: 2,
  by_slug: 2,
  default: 10,
  month_category: 10,
  search: 25,
  month_category_varied: 10,
  pages_varied: 10,
  venue_varied: 10,
  search_varied: 10,
};

const COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948"];

const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function label(n: number): string {
  if (n >= 100) return n.toFixed(0);
  if (n >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

function tickLabel(n: number): string {
  return n >= 1 ? String(Number(n.toPrecision(3))) : String(Number(n.toPrecision(2)));
}

interface Scale {
  y: (v: number) => number;
  ticks: number[];
  minor: number[];
  log: boolean;
  base: number;
}

function makeScale(values: number[], top: number, bottom: number): Scale {
  const finite = values.filter((v) => Number.isFinite(v) && v > 0);
  const max = finite.length ? Math.max(...finite) : 1;
  const min = finite.length ? Math.min(...finite) : 1;
  if (max / min > 20) {
    const lo = Math.pow(10, Math.floor(Math.log10(min)));
    const hi = Math.pow(10, Math.ceil(Math.log10(max * 1.15)));
    const span = Math.log10(hi) - Math.log10(lo);
    const y = (v: number): number => bottom - ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / span) * (bottom - top);
    const ticks: number[] = [];
    const minor: number[] = [];
    for (let d = lo; d <= hi * 1.0001; d *= 10) {
      ticks.push(d);
      if (d < hi) minor.push(d * 2, d * 5);
    }
    return { y, ticks, minor, log: true, base: lo };
  }
  // Linear: a "nice" top (1, 2 or 5 × a power of ten) and five steps.
  const raw = (max * 1.15) / 5;
  const pow = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const hi = step * 5;
  const y = (v: number): number => bottom - (Math.max(0, v) / hi) * (bottom - top);
  return { y, ticks: [0, 1, 2, 3, 4, 5].map((i) => i * step), minor: [], log: false, base: 0 };
}

export function latencyChart(points: ChartPoint[]): string {
  const seriesKeys = [...new Map(points.map((p) => [`${p.events}|${p.db}`, p])).values()]
    .sort((a, b) => a.events - b.events || a.db.localeCompare(b.db))
    .map((p) => ({ key: `${p.events}|${p.db}`, events: p.events, db: p.db }));
  const multiDb = new Set(seriesKeys.map((s) => s.db)).size > 1;
  const groups = WORKLOAD_NAMES.filter((w) => points.some((p) => p.workload === w));
  for (const p of points) if (!groups.includes(p.workload as (typeof WORKLOAD_NAMES)[number])) groups.push(p.workload as (typeof WORKLOAD_NAMES)[number]);

  const nSeries = Math.max(1, seriesKeys.length);
  const barW = nSeries <= 2 ? 30 : nSeries <= 4 ? 20 : 14;
  // Wide enough for the longest workload name (venues_upcoming) and its target line under it.
  const groupW = Math.max(108, nSeries * barW + 34);
  const left = 78;
  const right = 24;
  const top = 78;
  const plotH = 300;
  const bottom = top + plotH;
  const width = Math.max(680, left + groups.length * groupW + right);
  const height = bottom + 66;

  const targetValues = groups.map((g) => P50_TARGETS[g]).filter((v): v is number => v !== undefined);
  const scale = makeScale([...points.map((p) => p.p50_ms), ...targetValues], top, bottom);

  const s: string[] = [];
  s.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
  );
  s.push(
    `<defs><pattern id="flag" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#d62728" stroke-width="3"/></pattern></defs>`,
  );
  s.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  s.push(`<text x="${left}" y="26" font-size="16" font-weight="bold">calpress: median (p50) latency per workload</text>`);
  s.push(`<text x="${left}" y="44" fill="#555">lower is better; dashed red lines are the p50 targets (SQLite, 100k events); hatched bars had errors</text>`);

  // Legend: one swatch per series, then the target line.
  let lx = left;
  seriesKeys.forEach((k, i) => {
    const text = `${k.events.toLocaleString("en")} events${multiDb ? ` (${k.db})` : ""}`;
    s.push(`<rect x="${lx}" y="56" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`);
    s.push(`<text x="${lx + 17}" y="66">${esc(text)}</text>`);
    lx += 30 + text.length * 6.5;
  });
  if (targetValues.length > 0) {
    s.push(`<line x1="${lx}" y1="62" x2="${lx + 22}" y2="62" stroke="#d62728" stroke-width="1.5" stroke-dasharray="4 3"/>`);
    s.push(`<text x="${lx + 27}" y="66">target</text>`);
  }

  // Grid and y axis.
  for (const m of scale.minor) {
    const y = scale.y(m).toFixed(1);
    s.push(`<line x1="${left}" y1="${y}" x2="${width - right}" y2="${y}" stroke="#f0f0f0"/>`);
  }
  for (const t of scale.ticks) {
    const y = scale.y(t).toFixed(1);
    s.push(`<line x1="${left}" y1="${y}" x2="${width - right}" y2="${y}" stroke="#ddd"/>`);
    s.push(`<text x="${left - 8}" y="${Number(y) + 4}" text-anchor="end" fill="#333">${tickLabel(t)}</text>`);
  }
  s.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#333"/>`);
  s.push(`<line x1="${left}" y1="${bottom}" x2="${width - right}" y2="${bottom}" stroke="#333"/>`);
  const yTitle = `p50 latency (ms${scale.log ? ", log scale" : ""})`;
  s.push(`<text transform="translate(20 ${(top + bottom) / 2}) rotate(-90)" text-anchor="middle" font-weight="bold">${esc(yTitle)}</text>`);
  s.push(`<text x="${(left + width - right) / 2}" y="${height - 14}" text-anchor="middle" font-weight="bold">workload</text>`);

  groups.forEach((g, gi) => {
    const gx = left + gi * groupW + (groupW - nSeries * barW) / 2;
    const center = gx + (nSeries * barW) / 2;
    s.push(`<text x="${center}" y="${bottom + 20}" text-anchor="middle">${esc(g)}</text>`);
    seriesKeys.forEach((k, si) => {
      const p = points.find((q) => q.workload === g && `${q.events}|${q.db}` === k.key);
      if (!p) return;
      const x = gx + si * barW;
      if (!Number.isFinite(p.p50_ms)) {
        s.push(`<text x="${x + barW / 2}" y="${bottom - 6}" text-anchor="middle" fill="#d62728" font-size="10">n/a</text>`);
        return;
      }
      const y = scale.y(p.p50_ms);
      const h = Math.max(1, bottom - y);
      const fill = p.flagged ? "url(#flag)" : COLORS[si % COLORS.length];
      const stroke = p.flagged ? ` stroke="#d62728" stroke-width="1.5"` : "";
      s.push(
        `<rect x="${x + 1}" y="${(bottom - h).toFixed(1)}" width="${barW - 2}" height="${h.toFixed(1)}" fill="${fill}"${stroke}><title>${esc(
          `${g}, ${k.events} events (${k.db}): p50 ${label(p.p50_ms)} ms${p.flagged ? " — had errors" : ""}`,
        )}</title></rect>`,
      );
      s.push(
        `<text x="${x + barW / 2}" y="${(bottom - h - 4).toFixed(1)}" text-anchor="middle" font-size="${barW < 20 ? 9 : 10}"${p.flagged ? ' fill="#d62728"' : ""}>${p.flagged ? "!" : ""}${label(p.p50_ms)}</text>`,
      );
    });
    const target = P50_TARGETS[g];
    if (target !== undefined) {
      const ty = scale.y(target).toFixed(1);
      // A white halo under the dashes keeps the line visible where it crosses a bar.
      s.push(`<line x1="${gx - 6}" y1="${ty}" x2="${gx + nSeries * barW + 6}" y2="${ty}" stroke="#fff" stroke-width="3.5"/>`);
      s.push(`<line x1="${gx - 6}" y1="${ty}" x2="${gx + nSeries * barW + 6}" y2="${ty}" stroke="#d62728" stroke-width="2" stroke-dasharray="5 3"/>`);
      // The target's value goes under the workload name: above the line it would collide with bar labels.
      s.push(`<text x="${center}" y="${bottom + 34}" text-anchor="middle" font-size="10" fill="#d62728">target ≤ ${target} ms</text>`);
    }
  });
  s.push("</svg>");
  return `${s.join("\n")}\n`;
}
