// Interop checks: the files and pipes that optimus writes, read by real
// readers from npm, must hold what optimus meant them to hold.
//
//   node check.mjs path/to/optimus
//
// It exports the embedded testbed with the given optimus binary (as Parquet,
// Arrow IPC file and Arrow IPC stream), converts each Parquet table to CSV,
// and then, for every table:
//
//   - DuckDB (@duckdb/node-api) reads the Parquet file: each column has the
//     SQL type its declared type maps to (VARCHAR, BIGINT, DOUBLE, BOOLEAN),
//     REQUIRED/OPTIONAL repetition matches the declared nullability, the
//     key-value metadata names the table and its schema version, and the
//     row count is right;
//   - hyparquet (a strict pure-JS Parquet reader) parses the file's footer
//     (physical and logical types, repetition, key-value metadata, row count)
//     and decodes every row;
//   - Apache Arrow JS (apache-arrow) reads the .arrow file, the .arrows file
//     and two live pipes: `optimus convert -i T.parquet` with its standard
//     output a pipe, and that pipe fed through a second `optimus convert`
//     (so optimus also reads a pipe): Utf8/Int64/Float64/Bool types,
//     nullability flags, schema metadata, row counts;
//   - DuckDB reads the CSV file optimus wrote, with the declared types given
//     (so NaN, null and number spellings are checked) and again with its own
//     type detection (whose guesses must be the declared types wherever a
//     column holds a value);
//   - every reader agrees with DuckDB's reading of the Parquet file on every
//     value of every row and column (nulls, NaN and int64 included);
//   - optimus reads the Parquet files DuckDB writes (duckdb-written.mjs).
//
// The expected types come from optimus itself (`optimus schema --json`).
// Every failure names the reader, table, column and row; the exit status is
// 1 when any check failed. The last line counts checks: "N passed, N failed".

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { DuckDBInstance } from '@duckdb/node-api';
import { RecordBatchReader, tableFromIPC } from 'apache-arrow';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';

import { checkDuckDBWritten } from './duckdb-written.mjs';

const bin = resolve(process.argv[2] ?? '../bin/optimus');

// The tables the testbed must hold, and facts about it that make the checks
// meaningful (a check of nulls over a column without nulls proves nothing).
// The generator puts them there on purpose (datasets/testbed.go).
const TESTBED_TABLES = ['cluster', 'jobs', 'loss', 'speed', 'truth'];
// The tables fit, predict, solve and place write from the testbed.
const PIPELINE_TABLES = ['models', 'predictions', 'allocation', 'plan'];

// How each declared type must look to each reader.
const TYPES = {
  string: { duckdb: 'VARCHAR', arrow: 'Utf8', parquet: 'BYTE_ARRAY', logical: 'STRING' },
  int64: { duckdb: 'BIGINT', arrow: 'Int64', parquet: 'INT64', logical: 'INTEGER' },
  float64: { duckdb: 'DOUBLE', arrow: 'Float64', parquet: 'DOUBLE', logical: undefined },
  bool: { duckdb: 'BOOLEAN', arrow: 'Bool', parquet: 'BOOLEAN', logical: undefined },
};
const fromDuckDB = Object.fromEntries(Object.entries(TYPES).map(([k, v]) => [v.duckdb, k]));

// ---- reporting ----

let passed = 0;
let failed = 0;
const MAX_DIFFS = 5; // value differences shown per reader, table and column

function check(ok, where, msg) {
  if (ok) {
    passed++;
  } else {
    failed++;
    console.error(`FAIL ${where}: ${msg}`);
  }
  return ok;
}

function show(v) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

// ---- running optimus ----

function optimus(...args) {
  try {
    return execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`optimus ${args.join(' ')}: exit ${e.status}: ${e.stderr}`);
  }
}

// spawnOptimus starts optimus with its standard output a pipe; done resolves
// to its exit code and standard error.
function spawnOptimus(args, stdin = 'ignore') {
  const child = spawn(bin, args, { stdio: [stdin, 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s) => (stderr += s));
  // Not 'close': that waits for the child's standard output to be closed
  // here too, and when it feeds another process this side never reads it.
  const exited = new Promise((res, rej) => {
    child.on('error', rej);
    child.on('exit', (code, signal) => res(code ?? signal));
  });
  const errDone = new Promise((res) => child.stderr.on('end', res));
  const done = Promise.all([exited, errDone]).then(([code]) => ({ code, stderr }));
  return { child, done };
}

// ---- what each table must be ----

// expectedColumns says, for the columns a file has (in order), what type and
// nullability each must have: declared columns come first in schema order;
// the rest must match a column pattern (then float64 and not nullable) or be
// carried-through extra columns (nullable, of one of the four types).
function expectedColumns(decl, names, typeOf) {
  const where = `${decl.name}`;
  const declared = decl.columns.map((c) => c.name);
  check(
    names.slice(0, declared.length).join(',') === declared.join(','),
    where,
    `columns start ${names.slice(0, declared.length).join(',')}; the schema declares ${declared.join(',')}`,
  );
  return names.map((name) => {
    const c = decl.columns.find((c) => c.name === name);
    if (c) return { name, type: c.type, nullable: c.nullable, declared: true };
    const numeric = ['int64', 'float64'].includes(typeOf(name));
    const pat = decl.patterns
      .filter((p) => name.startsWith(p.prefix) && name.length > p.prefix.length && (p.prefix !== '' || numeric))
      .sort((a, b) => b.prefix.length - a.prefix.length)[0];
    if (pat) return { name, type: pat.type, nullable: false, pattern: pat.prefix };
    return { name, type: typeOf(name), nullable: true, extra: true };
  });
}

// ---- readers: each returns { reader, names, columns: {name: values[]}, rows } ----

async function duckdbRun(con, sql) {
  return await con.runAndReadAll(sql);
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

async function duckdbParquet(con, decl, path) {
  const reader = 'duckdb(parquet)';
  const r = await duckdbRun(con, `select * from read_parquet(${sqlString(path)})`);
  const names = r.columnNames();
  const sqlTypes = Object.fromEntries(names.map((n, i) => [n, String(r.columnTypes()[i])]));
  const cols = expectedColumns(decl, names, (n) => fromDuckDB[sqlTypes[n]]);
  for (const c of cols) {
    const want = TYPES[c.type]?.duckdb;
    check(sqlTypes[c.name] === want, `${reader} ${decl.name}.${c.name}`, `type ${sqlTypes[c.name]}, want ${want} (${c.type})`);
  }
  // Nullability: REQUIRED or OPTIONAL in the Parquet schema.
  const ps = await duckdbRun(con, `select name, repetition_type from parquet_schema(${sqlString(path)}) where num_children is null`);
  const rep = Object.fromEntries(ps.getRows().map(([n, t]) => [n, t]));
  for (const c of cols) {
    const want = c.nullable ? 'OPTIONAL' : 'REQUIRED';
    check(rep[c.name] === want, `${reader} ${decl.name}.${c.name}`, `repetition ${rep[c.name]}, want ${want}`);
  }
  // Key-value metadata.
  const kv = await duckdbRun(con, `select decode(key), decode(value) from parquet_kv_metadata(${sqlString(path)})`);
  checkMeta(reader, decl, new Map(kv.getRows()));
  const columns = Object.fromEntries(names.map((n, i) => [n, r.getColumns()[i]]));
  return { reader, names, columns, rows: r.currentRowCount, cols };
}

async function duckdbCSV(con, decl, path, cols) {
  const reader = 'duckdb(csv)';
  // With the declared types given: reads the values as optimus meant them.
  const spec = cols.map((c) => `${sqlString(c.name)}: ${sqlString(TYPES[c.type].duckdb)}`).join(', ');
  const r = await duckdbRun(con, `select * from read_csv(${sqlString(path)}, header = true, auto_detect = false, delim = ',', quote = '"', escape = '"', columns = {${spec}})`);
  const names = r.columnNames();
  const columns = Object.fromEntries(names.map((n, i) => [n, r.getColumns()[i]]));
  // With DuckDB's own detection: every column that holds a value must be
  // guessed as its declared type (a column of only nulls has nothing to go by).
  const auto = await duckdbRun(con, `select * from read_csv(${sqlString(path)})`);
  const autoNames = auto.columnNames();
  check(autoNames.join(',') === names.join(','), `duckdb(csv, detected) ${decl.name}`, `header ${autoNames.join(',')}, want ${names.join(',')}`);
  for (const c of cols) {
    const i = autoNames.indexOf(c.name);
    if (i < 0 || columns[c.name].every((v) => v === null)) continue;
    const got = String(auto.columnTypes()[i]);
    check(got === TYPES[c.type].duckdb, `duckdb(csv, detected) ${decl.name}.${c.name}`, `detected ${got}, want ${TYPES[c.type].duckdb}`);
  }
  return { reader, names, columns, rows: r.currentRowCount };
}

function hyparquetFooter(decl, path, cols) {
  const reader = 'hyparquet';
  const buf = readFileSync(path);
  const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const md = parquetMetadata(file); // throws on a malformed footer
  const leaves = md.schema.slice(1);
  check(md.schema[0].num_children === leaves.length, `${reader} ${decl.name}`, `nested schema: root has ${md.schema[0].num_children} children, ${leaves.length} elements follow`);
  check(leaves.map((e) => e.name).join(',') === cols.map((c) => c.name).join(','), `${reader} ${decl.name}`,
    `columns ${leaves.map((e) => e.name).join(',')}, want ${cols.map((c) => c.name).join(',')}`);
  for (const c of cols) {
    const e = leaves.find((e) => e.name === c.name);
    if (!e) continue;
    const t = TYPES[c.type];
    const where = `${reader} ${decl.name}.${c.name}`;
    check(e.type === t.parquet, where, `physical type ${e.type}, want ${t.parquet}`);
    check(e.logical_type?.type === t.logical, where, `logical type ${JSON.stringify(e.logical_type)}, want ${t.logical ?? 'none'}`);
    if (c.type === 'int64') {
      check(e.logical_type?.bitWidth === 64 && e.logical_type?.isSigned === true, where, `integer logical type ${JSON.stringify(e.logical_type)}, want signed 64-bit`);
    }
    check(e.repetition_type === (c.nullable ? 'OPTIONAL' : 'REQUIRED'), where, `repetition ${e.repetition_type}, want ${c.nullable ? 'OPTIONAL' : 'REQUIRED'}`);
  }
  checkMeta(reader, decl, new Map((md.key_value_metadata ?? []).map(({ key, value }) => [key, value])));
  return { file, md };
}

async function hyparquetRows(decl, path, cols) {
  const reader = 'hyparquet';
  const { file, md } = hyparquetFooter(decl, path, cols);
  const rows = await parquetReadObjects({ file, metadata: md });
  check(rows.length === Number(md.num_rows), `${reader} ${decl.name}`, `decoded ${rows.length} rows, footer says ${md.num_rows}`);
  const names = md.schema.slice(1).map((e) => e.name);
  const columns = Object.fromEntries(names.map((n) => [n, rows.map((r) => r[n])]));
  return { reader, names, columns, rows: rows.length };
}

// arrowTable checks an Apache Arrow JS schema and collects its columns from
// record batches.
function arrowView(reader, decl, schema, batches, cols) {
  const names = schema.fields.map((f) => f.name);
  check(names.join(',') === cols.map((c) => c.name).join(','), `${reader} ${decl.name}`, `columns ${names.join(',')}, want ${cols.map((c) => c.name).join(',')}`);
  for (const c of cols) {
    const f = schema.fields.find((f) => f.name === c.name);
    if (!f) continue;
    const where = `${reader} ${decl.name}.${c.name}`;
    check(String(f.type) === TYPES[c.type].arrow, where, `type ${f.type}, want ${TYPES[c.type].arrow}`);
    check(f.nullable === c.nullable, where, `nullable=${f.nullable}, want ${c.nullable}`);
  }
  checkMeta(reader, decl, schema.metadata);
  const columns = Object.fromEntries(names.map((n) => [n, []]));
  let rows = 0;
  for (const b of batches) {
    rows += b.numRows;
    for (const [i, n] of names.entries()) {
      const v = b.getChildAt(i);
      for (let r = 0; r < b.numRows; r++) columns[n].push(v.get(r));
    }
  }
  return { reader, names, columns, rows };
}

function arrowFile(reader, decl, path, cols) {
  const t = tableFromIPC(readFileSync(path));
  return arrowView(reader, decl, t.schema, t.batches, cols);
}

async function arrowPipe(reader, decl, stdout, cols) {
  const r = await RecordBatchReader.from(stdout);
  await r.open();
  const schema = r.schema; // the reader forgets it once the stream ends
  const batches = [];
  for await (const b of r) batches.push(b);
  return arrowView(reader, decl, schema, batches, cols);
}

function checkMeta(reader, decl, meta) {
  const where = `${reader} ${decl.name}`;
  check(meta?.get(SCHEMA.meta_name) === decl.name, where, `metadata ${SCHEMA.meta_name}=${show(meta?.get(SCHEMA.meta_name))}, want ${show(decl.name)}`);
  check(meta?.get(SCHEMA.meta_version) === String(decl.version), where, `metadata ${SCHEMA.meta_version}=${show(meta?.get(SCHEMA.meta_version))}, want "${decl.version}"`);
}

// ---- comparing values ----

// norm turns a reader's value into a comparable one for the column's type:
// null for null, bigint for int64, number for float64 (NaN kept), string,
// boolean. A value of the wrong JS type is returned wrapped, so that it
// differs from everything.
function norm(v, type) {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'int64':
      if (typeof v === 'bigint') return v;
      if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
      break;
    case 'float64':
      if (typeof v === 'number') return v;
      break;
    case 'string':
      if (typeof v === 'string') return v;
      break;
    case 'bool':
      if (typeof v === 'boolean') return v;
      break;
  }
  return { wrongType: `${typeof v} ${show(v)}` };
}

function same(a, b) {
  if (a === null || b === null) return a === b;
  if (typeof a === 'object' || typeof b === 'object') return false;
  return Object.is(a, b); // NaN equals NaN; -0 differs from 0
}

const showNorm = (v) => (v && typeof v === 'object' ? `<${v.wrongType}>` : show(v));

function compare(ref, view, decl, cols) {
  const where = `${view.reader} vs ${ref.reader} ${decl.name}`;
  check(view.rows === ref.rows, where, `${view.rows} rows vs ${ref.rows}`);
  for (const c of cols) {
    const a = ref.columns[c.name];
    const b = view.columns[c.name];
    if (!check(b !== undefined, where, `no column ${c.name}`)) continue;
    let diffs = 0;
    for (let r = 0; r < Math.max(a.length, b.length); r++) {
      const x = norm(a[r], c.type);
      const y = norm(b[r], c.type);
      if (same(x, y)) continue;
      if (++diffs <= MAX_DIFFS) {
        console.error(`FAIL ${view.reader} ${decl.name}.${c.name} row ${r + 1}: ${showNorm(y)}, but ${ref.reader} reads ${showNorm(x)}`);
      }
    }
    if (diffs > MAX_DIFFS) console.error(`FAIL ${view.reader} ${decl.name}.${c.name}: ${diffs - MAX_DIFFS} more differing rows`);
    check(diffs === 0, `${view.reader} ${decl.name}.${c.name}`, `${diffs} of ${a.length} values differ from ${ref.reader}'s`);
  }
}

// ---- the testbed's own features ----

function count(values, pred) {
  return values.reduce((n, v) => n + (pred(v) ? 1 : 0), 0);
}

function checkTestbed(views) {
  const jobs = views.jobs.columns;
  const n = views.jobs.rows;
  const budgets = count(jobs.epoch_budget, (v) => v !== null);
  check(n > 1 && budgets === 1, 'testbed jobs.epoch_budget', `${budgets} of ${n} rows have a budget; the testbed sets exactly one (the others are null)`);
  for (const c of ['max_ps', 'max_workers']) {
    check(count(jobs[c], (v) => v === null) > 0, `testbed jobs.${c}`, 'no nulls: the check of nullable int64 columns would prove nothing');
  }
  const value = views.loss.columns.value;
  const nulls = count(value, (v) => v === null);
  const nans = count(value, (v) => typeof v === 'number' && Number.isNaN(v));
  check(nulls === 1, 'testbed loss.value', `${nulls} nulls, want exactly 1`);
  check(nans === 1, 'testbed loss.value', `${nans} NaNs, want exactly 1`);
  check(views.loss.columns.higher_is_better.every((v) => typeof v === 'boolean'), 'testbed loss.higher_is_better', 'not all booleans');
  console.log(`testbed: jobs.epoch_budget ${budgets} set of ${n}; loss.value ${nulls} null and ${nans} NaN of ${value.length}`);
}

// ---- main ----

let SCHEMA;

async function main(tmp) {
  console.log(`interop: ${bin}`);
  SCHEMA = JSON.parse(optimus('schema', '--json'));
  const dirs = {};
  for (const format of ['parquet', 'arrow', 'arrows']) {
    dirs[format] = join(tmp, format);
    optimus('datasets', 'export', 'testbed', '-o', dirs[format], '--format', format);
  }
  // The pipeline's own outputs, from the testbed: they hold the most
  // nullable columns (a model not fitted, a job not running).
  {
    const d = dirs.parquet;
    optimus('fit', '-i', join(d, 'loss.parquet'), '--speed', join(d, 'speed.parquet'), '--jobs', join(d, 'jobs.parquet'), '-o', join(d, 'models.parquet'));
    optimus('predict', '-i', join(d, 'jobs.parquet'), '--models', join(d, 'models.parquet'), '-o', join(d, 'predictions.parquet'));
    optimus('solve', '--cluster', join(d, 'cluster.parquet'), '-i', join(d, 'predictions.parquet'), '-o', join(d, 'allocation.parquet'));
    optimus('place', '--cluster', join(d, 'cluster.parquet'), '-i', join(d, 'allocation.parquet'), '-o', join(d, 'plan.parquet'));
    for (const t of PIPELINE_TABLES) {
      for (const format of ['arrow', 'arrows']) {
        optimus('convert', '-i', join(d, `${t}.parquet`), '-o', join(dirs[format], `${t}.${format}`));
      }
    }
  }
  const tables = readdirSync(dirs.parquet).filter((f) => f.endsWith('.parquet')).map((f) => f.slice(0, -'.parquet'.length)).sort();
  for (const t of PIPELINE_TABLES) check(tables.includes(t), 'pipeline', `no ${t}.parquet written`);
  for (const t of TESTBED_TABLES) check(tables.includes(t), 'testbed', `no ${t}.parquet in the export`);

  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  const refs = {};
  for (const name of tables) {
    const decl = SCHEMA.tables.find((t) => t.name === name);
    if (!check(decl !== undefined, name, `optimus schema --json declares no table ${name}`)) continue;
    const pq = join(dirs.parquet, `${name}.parquet`);
    const csv = join(tmp, `${name}.csv`);
    optimus('convert', '-i', pq, '-o', csv);

    const ref = await duckdbParquet(con, decl, pq);
    ref.path = pq;
    const cols = ref.cols;
    check(ref.rows > 0, `${ref.reader} ${name}`, 'no rows');
    refs[name] = ref;
    const views = [
      await hyparquetRows(decl, pq, cols),
      arrowFile('arrow-js(.arrow)', decl, join(dirs.arrow, `${name}.arrow`), cols),
      arrowFile('arrow-js(.arrows)', decl, join(dirs.arrows, `${name}.arrows`), cols),
      await duckdbCSV(con, decl, csv, cols),
    ];

    // A live pipe: optimus convert -i T.parquet | (Arrow JS).
    {
      const p = spawnOptimus(['convert', '-i', pq]);
      const view = await arrowPipe('arrow-js(pipe)', decl, p.child.stdout, cols);
      const { code, stderr } = await p.done;
      check(code === 0, `optimus convert -i ${name}.parquet | arrow-js`, `exit ${code}: ${stderr}`);
      views.push(view);
    }
    // Two: optimus convert -i T.parquet | optimus convert | (Arrow JS).
    {
      const p1 = spawnOptimus(['convert', '-i', pq]);
      const p2 = spawnOptimus(['convert'], p1.child.stdout);
      p1.child.stdout.destroy(); // p2 reads it; this side's copy would keep the pipe open
      const view = await arrowPipe('arrow-js(pipe|pipe)', decl, p2.child.stdout, cols);
      const r1 = await p1.done;
      const r2 = await p2.done;
      check(r1.code === 0 && r2.code === 0, `optimus convert -i ${name}.parquet | optimus convert | arrow-js`, `exits ${r1.code}, ${r2.code}: ${r1.stderr}${r2.stderr}`);
      views.push(view);
    }

    for (const v of views) compare(ref, v, decl, cols);
    const nulls = cols.filter((c) => ref.columns[c.name].some((v) => v === null)).map((c) => c.name);
    console.log(`${name}: ${ref.rows} rows, ${cols.length} columns (${cols.map((c) => c.type).filter((t, i, a) => a.indexOf(t) === i).join(', ')}); ` +
      `read by ${[ref, ...views].map((v) => v.reader).join(', ')}; columns with nulls: ${nulls.join(', ') || 'none'}`);
  }
  if (refs.jobs && refs.loss) checkTestbed(refs);
  await checkDuckDBWritten({ bin, con, tmp, tables, refs, SCHEMA, check, optimus, arrowFile, compare, sqlString });
  con.closeSync?.();
  instance.closeSync?.();
}

const tmp = mkdtempSync(join(tmpdir(), 'optimus-interop-'));
let code = 0;
try {
  await main(tmp);
} catch (e) {
  console.error(`FAIL ${e.stack ?? e}`);
  failed++;
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
if (failed > 0) code = 1;
console.log(`interop: ${passed} passed, ${failed} failed`);
process.exit(code);
