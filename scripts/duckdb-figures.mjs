// DuckDB's exact figures for one file, the reference `make bench-compare`
// checks dqs's profile against (cmd/dqs-bench, -compare-duckdb, compare.go
// says what is compared and how). dqs-bench writes the spec and runs this;
// make bench-compare copies it next to the installed DuckDB package first,
// so that '@duckdb/node-api' resolves.
//
// Usage: node duckdb-figures.mjs SPEC.json   (prints one JSON object)
//
// The spec names the file, its format, the null tokens dqs reads as nulls,
// and per column the kind dqs inferred and dqs's quartiles:
//
//	{"format": "csv", "path": "...", "null_tokens": ["null", ...],
//	 "columns": [{"name": "amount", "kind": "number",
//	              "probes": {"p25": 12449.36, ...}}, ...]}
//
// kind decides how a column is read, whatever type DuckDB gave it, so that
// both sides order the same values the same way:
//   number    TRY_CAST(col AS DOUBLE): a phone number "+4420..." that DuckDB
//             keeps as VARCHAR is the number dqs reads; values that are no
//             number drop out, as they do from dqs's numeric figures.
//   temporal  TRY_CAST(col AS TIMESTAMPTZ) in time zone UTC, reported as
//             microseconds since the epoch: DuckDB renders a DATE, a
//             TIMESTAMP and a TIMESTAMPTZ differently, an instant is one.
//   string    the VARCHAR itself, min and max over the non-blank values.
// Every figure is exact: count(DISTINCT), avg, stddev_samp, and quantiles
// by dqs's definition, the value at rank max(1, ceil(q·n)) of the n numbers
// in ascending order (ORDER BY … OFFSET rank-1, rather than relying on how
// DuckDB's quantile_disc rounds its index). For each dqs quartile it also
// counts the numbers below it and not above it: its rank range in the
// exact order.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

const [specPath] = process.argv.slice(2);
if (!specPath) {
  console.error('usage: node duckdb-figures.mjs SPEC.json');
  process.exit(2);
}
const spec = JSON.parse(readFileSync(specPath, 'utf8'));

const str = (s) => `'${String(s).replaceAll("'", "''")}'`;
const ident = (s) => `"${String(s).replaceAll('"', '""')}"`;
const readers = {
  csv: (p) => `read_csv(${str(p)})`,
  jsonl: (p) => `read_json(${str(p)}, format = 'newline_delimited')`,
  parquet: (p) => `read_parquet(${str(p)})`,
};
if (!readers[spec.format]) {
  console.error(`unknown format ${spec.format}`);
  process.exit(2);
}

// Counts and epoch microseconds come back as BigInt; every one here is far
// below 2^53, and a Number keeps JSON plain for the Go side.
const plain = (v) => {
  if (typeof v !== 'bigint') return v;
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Error(`integer ${v} does not fit a double exactly`);
  }
  return Number(v);
};
const one = async (con, sql) => {
  const rows = (await con.runAndReadAll(sql)).getRowObjects();
  return Object.fromEntries(Object.entries(rows[0] ?? {}).map(([k, v]) => [k, plain(v)]));
};

const db = await DuckDBInstance.create(':memory:', { threads: String(Math.min(2, cpus().length)) });
const con = await db.connect();
// Naive timestamps and dates are read as UTC instants, as dqs reads them.
await con.run(`SET TimeZone = 'UTC'`);
const version = (await one(con, 'SELECT version() AS v')).v;
// Read once: every figure below is a query over the loaded table.
await con.run(`CREATE TABLE t AS SELECT * FROM ${readers[spec.format](spec.path)}`);
const types = Object.fromEntries(
  (await con.runAndReadAll('DESCRIBE t')).getRowObjects().map((r) => [r.column_name, r.column_type]));
const rows = (await one(con, 'SELECT count(*) AS n FROM t')).n;

// dqs trims ASCII whitespace and folds ASCII case before matching a token.
const ws = "chr(32) || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)";
const tokenList = (spec.null_tokens ?? []).map(str).join(', ') || 'NULL';

const out = { format: spec.format, path: spec.path, duckdb_version: version, rows, columns: [] };
for (const c of spec.columns) {
  const type = types[c.name];
  if (type === undefined) {
    out.columns.push({ name: c.name, missing: true });
    continue;
  }
  const col = ident(c.name);
  // Blank values and null tokens exist only in text; DuckDB's typed
  // columns have none.
  const text = type === 'VARCHAR';
  const blank = text ? `trim(${col}, ${ws}) = ''` : 'false';
  const token = text ? `lower(trim(${col}, ${ws})) IN (${tokenList})` : 'false';
  const value = text ? `(${col} IS NOT NULL AND NOT (${blank}) AND NOT (${token}))` : `${col} IS NOT NULL`;
  const x = {
    number: `TRY_CAST(${col} AS DOUBLE)`,
    temporal: `TRY_CAST(${col} AS TIMESTAMPTZ)`,
    string: `CAST(${col} AS VARCHAR)`,
  }[c.kind];
  if (!x) throw new Error(`column ${c.name}: unknown kind ${c.kind}`);
  const inValues = `CASE WHEN ${value} THEN ${x} END`;
  const extremes = {
    number: `min(${inValues}) AS min_num, max(${inValues}) AS max_num`,
    temporal: `epoch_us(min(${inValues})) AS min_us, epoch_us(max(${inValues})) AS max_us`,
    string: `min(${inValues}) AS min_text, max(${inValues}) AS max_text`,
  }[c.kind];
  const moments = c.kind === 'number'
    ? `, avg(${inValues}) AS mean, stddev_samp(${inValues}) AS stddev, count(${inValues}) AS n` : '';
  const fig = await one(con, `SELECT
      count(*) AS count,
      count(*) FILTER (WHERE ${col} IS NULL) AS nulls,
      count(*) FILTER (WHERE ${blank}) AS blank,
      count(*) FILTER (WHERE ${token}) AS tokens,
      count(DISTINCT ${col}) FILTER (WHERE NOT (${token})) AS distinct,
      approx_count_distinct(${col}) FILTER (WHERE NOT (${token})) AS approx_distinct,
      ${extremes}${moments}
    FROM t`);
  const res = { name: c.name, duckdb_type: type, kind: c.kind, ...fig };
  if (c.kind === 'number' && fig.n > 0) {
    res.quantiles = {};
    for (const [key, q] of [['p25', 0.25], ['p50', 0.5], ['p75', 0.75]]) {
      const rank = Math.max(1, Math.ceil(q * fig.n));
      const at = await one(con, `SELECT v FROM (SELECT ${inValues} AS v FROM t) WHERE v IS NOT NULL
        ORDER BY v LIMIT 1 OFFSET ${rank - 1}`);
      const qr = { rank, value: at.v };
      const probe = c.probes?.[key];
      if (probe !== undefined && probe !== null) {
        const p = `CAST(${str(probe)} AS DOUBLE)`;
        Object.assign(qr, await one(con, `SELECT count(*) FILTER (WHERE v < ${p}) AS below,
          count(*) FILTER (WHERE v <= ${p}) AS not_above FROM (SELECT ${inValues} AS v FROM t)`));
      }
      res.quantiles[key] = qr;
    }
  }
  out.columns.push(res);
}
con.closeSync();
db.closeSync();
console.log(JSON.stringify(out));
