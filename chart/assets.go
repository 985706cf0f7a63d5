package chart

import _ "embed"

// echartsJS is echarts' dist/echarts.min.js from the npm package `echarts`,
// inlined into every page so that it works offline from file://.
//
// The file is fetched at build time, never committed. If the build stops here
// with "pattern assets/echarts.min.js: no matching files found", run
//
//	make assets        (scripts/echarts-assets.sh: npm pack echarts@5.6.0; needs npm)
//
// from the repository root, then build again.
//
//go:generate ../scripts/echarts-assets.sh
//go:embed assets/echarts.min.js
var echartsJS string

// EchartsVersion is the version of the embedded echarts, as pinned in
// scripts/echarts-assets.sh.
const EchartsVersion = "5.6.0"
