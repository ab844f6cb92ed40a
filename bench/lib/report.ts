// Figures (value, target, pass/fail, baseline, ratio), the printed table and the JSON result file.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Target {
  op: '>=' | '<=';
  value: number;
  /** also required: at most this slowdown against the baseline */
  maxRatio?: number;
}

export interface Figure {
  scenario: string;
  name: string;
  unit: string;
  /** whether a larger value is better (throughput) or worse (latency) */
  better: 'higher' | 'lower';
  value: number;
  target: Target | null;
  pass: boolean | null;
  baseline: { name: string; value: number } | null;
  /**
   * slowdown against the baseline, ≥ 1 means worse than the baseline:
   * baseline/value for throughput, value/baseline for latency
   */
  ratio: number | null;
  details?: Record<string, unknown>;
}

export function figure(f: Omit<Figure, 'pass' | 'ratio'>): Figure {
  let ratio: number | null = null;
  if (f.baseline && f.baseline.value > 0 && f.value > 0) {
    ratio = f.better === 'higher' ? f.baseline.value / f.value : f.value / f.baseline.value;
  }
  let pass: boolean | null = null;
  if (f.target) {
    pass = f.target.op === '>=' ? f.value >= f.target.value : f.value <= f.target.value;
    if (f.target.maxRatio !== undefined) pass = pass && ratio !== null && ratio <= f.target.maxRatio;
  }
  return { ...f, pass, ratio };
}

const fmt = (v: number) => {
  if (!Number.isFinite(v)) return String(v);
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString('en-US');
  if (Math.abs(v) >= 10) return v.toFixed(1);
  return v.toFixed(2);
};

export function formatTarget(t: Target | null, unit: string): string {
  if (!t) return '-';
  const base = `${t.op === '>=' ? '≥' : '≤'} ${fmt(t.value)} ${unit}`;
  return t.maxRatio !== undefined ? `${base}, ≤ ${t.maxRatio}× base` : base;
}

export function renderTable(figures: Figure[]): string {
  const header = ['scenario', 'figure', 'value', 'target', 'result', 'baseline', '× base'];
  const rows = figures.map((f) => [
    f.scenario,
    f.name,
    `${fmt(f.value)} ${f.unit}`,
    formatTarget(f.target, f.unit),
    f.pass === null ? 'info' : f.pass ? 'PASS' : 'FAIL',
    f.baseline ? `${fmt(f.baseline.value)} ${f.unit}` : '-',
    f.ratio === null ? '-' : `${f.ratio.toFixed(2)}×`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => [...r[i]].length)));
  const line = (cells: string[]) => cells.map((c, i) => c + ' '.repeat(widths[i] - [...c].length)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function writeResults(dir: string, result: Record<string, unknown>, startedAt: Date): string {
  mkdirSync(dir, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const file = path.join(dir, `${stamp}.json`);
  const text = `${JSON.stringify(result, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`;
  writeFileSync(file, text);
  writeFileSync(path.join(dir, 'latest.json'), text);
  return file;
}
