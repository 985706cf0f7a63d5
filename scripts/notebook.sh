#!/usr/bin/env bash
# Runs the example notebooks (examples/*.ipynb) on the demo's outputs with
# Debian's Jupyter (python3-nbclient, python3-ipykernel, python3-pandas,
# python3-matplotlib) and fails on any cell error. Also checks that the
# notebooks are committed with their outputs cleared.
# Usage: scripts/notebook.sh BIN
# With DEMO_OUT=DIR it reads the demo's outputs in DIR, which must come from
# this BIN (make test passes the demo's out/, made or found current there);
# without it the demo runs into a temporary folder first.
# Without those packages the check is skipped with a notice, unless
# REQUIRE_INTEROP=1 (as .ci/run sets), when that is an error.
set -euo pipefail
bin=$(cd "$(dirname "${1:-bin/optimus}")" && pwd)/$(basename "${1:-bin/optimus}")
root=$(cd "$(dirname "$0")/.." && pwd)
# Debian's python, not one of pyenv's that may come first on PATH.
py=${NOTEBOOK_PYTHON:-/usr/bin/python3}
. "$root/scripts/test-status.sh"

missing() {
  if [ "${REQUIRE_INTEROP:-0}" = 1 ]; then
    echo "notebook: $1 (REQUIRE_INTEROP=1)" >&2; exit 1
  fi
  test_status "notebook: skipped ($1)"
  echo "notebook: skipped ($1; rerun 'make notebook' once it is installed)" >&2; exit 0
}
[ -x "$py" ] || missing "$py is required"
"$py" -c 'import nbclient, nbformat, ipykernel, pandas, matplotlib' 2>/dev/null ||
  missing "$py needs nbclient, nbformat, ipykernel, pandas and matplotlib (Debian: apt-get install python3-nbclient python3-nbformat python3-ipykernel python3-pandas python3-matplotlib)"
[ -x "$bin" ] || { echo "notebook: no optimus binary at $bin (run 'make build')" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${DEMO_OUT:-}" ]; then
  out=$(cd "$DEMO_OUT" && pwd)
else
  out=$tmp/out
  "$root/scripts/demo.sh" "$bin" "$out" >/dev/null
fi

export OPTIMUS_OUT="$out" OPTIMUS_BIN="$bin" MPLCONFIGDIR="$tmp/mpl" PYDEVD_DISABLE_FILE_VALIDATION=1
unset MPLBACKEND  # the kernel's inline backend, whose figures land in the outputs
keep=${NOTEBOOK_KEEP:-}  # a folder to keep the executed notebooks in
export PATH="/usr/bin:$PATH"
notebooks=("$root"/examples/*.ipynb)
"$py" - "$keep" "${notebooks[@]}" <<'PY'
import os, sys, time
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

failed = False
keep = sys.argv[1]
for path in sys.argv[2:]:
    nb = nbformat.read(path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    if dirty:
        print(f"notebook: {path}: cells {dirty} have outputs: clear them before committing")
        failed = True
    code = sum(c.cell_type == "code" for c in nb.cells)
    start = time.monotonic()
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": path.rsplit("/", 1)[0]}}).execute()
    except CellExecutionError as e:
        print(f"notebook: {path}: a cell failed:\n{e}")
        failed = True
        continue
    images = sum(o.get("output_type") == "display_data" and "image/png" in o.get("data", {})
                 for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    if keep:
        os.makedirs(keep, exist_ok=True)
        nbformat.write(nb, os.path.join(keep, os.path.basename(path)))
    if images == 0:
        print(f"notebook: {path}: drew no figure")
        failed = True
    print(f"notebook: {path.rsplit('/', 1)[-1]}: {code} code cells ran without error, "
          f"{images} figures, {time.monotonic() - start:.0f} s")
sys.exit(1 if failed else 0)
PY
test_status "notebook: ran (${#notebooks[@]} notebooks without a cell error)"
