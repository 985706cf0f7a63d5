// Parquet files that DuckDB writes, read by optimus (check.mjs runs this
// after its own checks; it hands over its helpers):
//
//   - every testbed and pipeline table, copied by DuckDB in three layouts
//     (its defaults; zstd with version 2 data pages, whose integers and
//     floats DuckDB encodes DELTA_BINARY_PACKED and BYTE_STREAM_SPLIT;
//     uncompressed), read by `optimus convert --as T` into an Arrow
//     file that must hold the values DuckDB reads from optimus' own file;
//   - a table of every integer width (signed and not), FLOAT, DOUBLE,
//     BOOLEAN and VARCHAR (dictionary-friendly, distinct, and hostile text),
//     with nulls, over several row groups, converted by optimus to Parquet:
//     DuckDB must read back the same rows, each integer as BIGINT and each
//     float as DOUBLE;
//   - columns optimus tables do not take (TIMESTAMP, DATE, DECIMAL, BLOB,
//     a list, a struct, a UUID) and a UBIGINT past int64: optimus must exit
//     with status 2, name the file and the column, and write nothing.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const LAYOUTS = [
  { name: 'duckdb', options: '' },
  { name: 'duckdb(zstd, v2 pages)', options: ", COMPRESSION zstd, PARQUET_VERSION v2" },
  { name: 'duckdb(uncompressed)', options: ', COMPRESSION uncompressed' },
];

export async function checkDuckDBWritten(h) {
  const { bin, con, tmp, tables, refs, SCHEMA, check, optimus, arrowFile, compare, sqlString } = h;
  const run = async (sql) => await con.runAndReadAll(sql);

  // The pipeline's tables, as DuckDB writes them.
  let copies = 0;
  const encodings = new Set();
  for (const name of tables) {
    const ref = refs[name];
    const decl = SCHEMA.tables.find((t) => t.name === name);
    if (!ref || !decl) continue;
    for (const [i, layout] of LAYOUTS.entries()) {
      const pq = join(tmp, `duck-${i}-${name}.parquet`);
      const out = join(tmp, `duck-${i}-${name}.arrow`);
      await run(`copy (select * from read_parquet(${sqlString(ref.path)})) to ${sqlString(pq)} (format parquet${layout.options})`);
      for (const [e] of (await run(`select distinct encodings from parquet_metadata(${sqlString(pq)})`)).getRows()) encodings.add(e);
      optimus('convert', '-i', pq, '--as', name, '-o', out);
      compare(ref, arrowFile(`optimus(${layout.name})`, decl, out, ref.cols), decl, ref.cols);
      copies++;
    }
  }
  for (const e of ['PLAIN', 'PLAIN_DICTIONARY', 'RLE_DICTIONARY', 'DELTA_BINARY_PACKED', 'BYTE_STREAM_SPLIT']) {
    check(encodings.has(e), 'duckdb-written', `no column chunk encoded ${e}: its check would prove nothing`);
  }
  console.log(`duckdb-written: ${copies} copies of ${tables.length} tables in ${LAYOUTS.length} layouts read by optimus (encodings ${[...encodings].sort().join(', ')})`);

  // Every type optimus reads, with nulls, over several row groups.
  const typed = join(tmp, 'duck-typed.parquet');
  const back = join(tmp, 'duck-typed-back.parquet');
  const nul = (expr) => `case when i % 7 = 3 then null else ${expr} end`;
  const cols = {
    i8: '(i % 256 - 128)::TINYINT', u8: '(i % 256)::UTINYINT',
    i16: '(i * 7 % 65536 - 32768)::SMALLINT', u16: '(i * 7 % 65536)::USMALLINT',
    i32: '(i * 40503 % 4294967296 - 2147483648)::INTEGER', u32: '(i * 40503 % 4294967296)::UINTEGER',
    i64: '(i * 2654435761 - 4611686018427387904)::BIGINT', u64: '(i * 92233720368547)::UBIGINT',
    f32: '(i / 3)::FLOAT', f64: '(i / 7 - 1e6)::DOUBLE',
    flag: '(i % 3 = 0)::BOOLEAN', name: `'job-' || (i % 97)::VARCHAR`,
    distinct_text: `md5(i::VARCHAR) || '-' || i::VARCHAR`,
    hostile: `'<img src=x onerror=alert(' || i::VARCHAR || ')> \u202e"''\\' || (i % 5)::VARCHAR`,
  };
  const select = Object.entries(cols).map(([c, e]) => `${nul(e)} as ${c}`).join(', ');
  await run(`copy (select ${select} from range(0, 50000) t(i)) to ${sqlString(typed)} (format parquet, row_group_size 8192)`);
  const groups = (await run(`select count(distinct row_group_id) from parquet_metadata(${sqlString(typed)})`)).getRows()[0][0];
  check(Number(groups) > 1, 'duckdb-written typed', `${groups} row groups: the check of several would prove nothing`);
  optimus('convert', '-i', typed, '-o', back);
  const types = (await run(`select column_name, column_type from (describe select * from read_parquet(${sqlString(back)}))`)).getRows();
  for (const [c, t] of types) {
    const want = /^[iu]\d/.test(c) ? 'BIGINT' : /^f\d/.test(c) ? 'DOUBLE' : c === 'flag' ? 'BOOLEAN' : 'VARCHAR';
    check(t === want, `optimus convert duck-typed.parquet, column ${c}`, `type ${t}, want ${want}`);
  }
  const cast = Object.keys(cols).map((c) => (/^[iu]\d/.test(c) ? `${c}::BIGINT as ${c}` : /^f\d/.test(c) ? `${c}::DOUBLE as ${c}` : c)).join(', ');
  const theirs = `select ${cast} from read_parquet(${sqlString(typed)})`;
  const ours = `select * from read_parquet(${sqlString(back)})`;
  for (const [a, b, what] of [[theirs, ours, 'missing from'], [ours, theirs, 'not in DuckDB\'s file but in']]) {
    const n = Number((await run(`select count(*) from ((${a}) except all (${b}))`)).getRows()[0][0]);
    check(n === 0, 'duckdb-written typed', `${n} rows ${what} optimus' conversion`);
  }
  const rows = Number((await run(`select count(*) from read_parquet(${sqlString(back)})`)).getRows()[0][0]);
  check(rows === 50000, 'duckdb-written typed', `${rows} rows back, want 50000`);
  console.log(`duckdb-written: a table of ${Object.keys(cols).length} types, 50000 rows in ${groups} row groups, read back as DuckDB wrote it`);

  // Columns optimus does not take: refused, naming the file and column.
  const refused = {
    timestamp: "TIMESTAMP '2026-12-03 10:00:00'", date: "DATE '2026-12-03'", decimal: '12.5::DECIMAL(10, 2)',
    blob: "'\\xFF\\x00'::BLOB", list: '[1, 2, 3]', struct: "{'a': 1}", uuid: "'6ba7b810-9dad-11d1-80b4-00c04fd430c8'::UUID",
    ubigint: '18446744073709551615::UBIGINT',
  };
  for (const [kind, expr] of Object.entries(refused)) {
    const pq = join(tmp, `duck-refused-${kind}.parquet`);
    const out = join(tmp, `duck-refused-${kind}.csv`);
    await run(`copy (select 'n1' as node, ${expr} as x_${kind}) to ${sqlString(pq)} (format parquet)`);
    const r = spawnSync(bin, ['convert', '-i', pq, '-o', out], { encoding: 'utf8' });
    const where = `optimus convert duck-refused-${kind}.parquet`;
    check(r.status === 2, where, `exit ${r.status}, want 2: ${r.stderr}`);
    check(r.stderr.includes(pq) && r.stderr.includes(`x_${kind}`), where, `the error does not name the file and column x_${kind}: ${r.stderr}`);
    check(!existsSync(out), where, 'wrote an output');
  }
  console.log(`duckdb-written: ${Object.keys(refused).length} columns of types optimus tables do not take refused (${Object.keys(refused).join(', ')})`);
}
