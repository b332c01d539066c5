// DuckDB's SUMMARIZE on the files `make bench` generated: the reference the
// engine's speed targets are stated against, measured on this machine.
// `make bench-duckdb` installs DuckDB's Node.js package and runs this.
//
// Usage: node duckdb-summarize.mjs DIR [RUNS]
// Each file is summarized RUNS times (default 3), each time in a fresh
// in-memory database with 2 threads at most, and the best time, the range
// and the process's peak RSS (Node.js included) are printed.
import { DuckDBInstance } from '@duckdb/node-api';
import { statSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

const [dir, runsArg] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node duckdb-summarize.mjs DIR [RUNS]');
  process.exit(2);
}
const runs = Number(runsArg || 3);
const threads = String(Math.min(2, cpus().length));
const files = [
  ['csv', 'bench.csv', (p) => `read_csv('${p}')`],
  ['jsonl', 'bench.jsonl', (p) => `read_json('${p}', format = 'newline_delimited')`],
  ['parquet', 'bench.parquet', (p) => `read_parquet('${p}')`],
];

console.log(`DuckDB SUMMARIZE, ${threads} threads, best of ${runs}`);
console.log('   FORMAT  SIZE MB  SECONDS (RANGE)        MB/S');
for (const [format, name, source] of files) {
  const path = join(dir, name);
  let size;
  try {
    size = statSync(path).size;
  } catch {
    console.error(`${path} is missing: run make bench first`);
    process.exit(1);
  }
  const times = [];
  for (let i = 0; i < runs; i++) {
    const db = await DuckDBInstance.create(':memory:', { threads });
    const con = await db.connect();
    const start = performance.now();
    await con.runAndReadAll(`SUMMARIZE SELECT * FROM ${source(path)}`);
    times.push((performance.now() - start) / 1000);
    con.closeSync();
    db.closeSync();
  }
  const best = Math.min(...times);
  const worst = Math.max(...times);
  console.log(`${format.padStart(9)} ${(size / 1e6).toFixed(1).padStart(8)}  ` +
    `${best.toFixed(2)} (${best.toFixed(2)}–${worst.toFixed(2)})`.padEnd(22) +
    `${(size / 1e6 / best).toFixed(1).padStart(8)}`);
}
console.log(`peak RSS of this process (Node.js included): ${(process.resourceUsage().maxRSS / 1024).toFixed(1)} MB`);
