# Sourced by the check scripts (interop, browser, notebook): test_status LINE
# appends what a check did ("browser: ran, 8 pages" or "browser: skipped
# (...)") to $OPTIMUS_TEST_STATUS, the file `make test` prints its closing
# summary from (scripts/test-summary.sh). Without it, nothing is recorded.
test_status() {
  if [ -n "${OPTIMUS_TEST_STATUS:-}" ]; then
    echo "$1" >> "$OPTIMUS_TEST_STATUS"
  fi
}
