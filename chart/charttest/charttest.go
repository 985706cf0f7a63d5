// Package charttest holds what the tests of chart pages share: skipping
// those that render a page in a build without echarts' JavaScript.
//
// It takes the chart package's answer as an argument rather than importing
// the package, so that chart's own tests can use it too.
package charttest

import (
	"os"
	"testing"
)

// NeedAssets skips the test when noAssets (chart.CheckAssets()) is not nil:
// a fresh clone builds and tests without npm, and only the tests that render
// pages need echarts. Where the assets are always fetched first (make test
// and CI, marked by REQUIRE_INTEROP=1 or CI=true) nothing may be skipped, so
// there the test fails instead.
func NeedAssets(t testing.TB, noAssets error) {
	t.Helper()
	if noAssets == nil {
		return
	}
	if os.Getenv("REQUIRE_INTEROP") == "1" || os.Getenv("CI") == "true" {
		t.Fatalf("%v (REQUIRE_INTEROP=1 or CI=true: the chart assets must be there)", noAssets)
	}
	t.Skip(noAssets)
}
