package chart

import (
	"embed"
	"io/fs"
	"sync"
)

// The chart pages inline echarts' dist/echarts.min.js from the npm package
// `echarts`, so that they work offline from file://. The file is fetched at
// build time into chart/assets/ (git-ignored; never committed):
//
//	make assets        (scripts/echarts-assets.sh: npm pack echarts@5.6.0; needs npm)
//	go generate ./chart
//
// then rebuild. The folder is embedded rather than the file, so that a build
// without it (a fresh clone, `go install` without npm) still compiles, its
// committed README.md keeping the pattern matched: every command but chart
// and report works, and those two fail with ErrNoAssets.
//
//go:generate ../scripts/echarts-assets.sh
//go:embed assets
var assets embed.FS

// echartsFile is the path of echarts' JavaScript inside assets.
const echartsFile = "assets/echarts.min.js"

// echartsJS is the content of echartsFile, "" when this build has none;
// read when a page is first drawn, not when the program starts (a copy of
// a megabyte that every other command would pay).
var echartsJS = sync.OnceValue(func() string {
	b, err := fs.ReadFile(assets, echartsFile)
	if err != nil {
		return ""
	}
	return string(b)
})

// EchartsVersion is the version of the embedded echarts, as pinned in
// scripts/echarts-assets.sh.
const EchartsVersion = "5.6.0"

// ErrNoAssets is the error of rendering a page in a build without echarts'
// JavaScript. It counts as the caller's to fix (exit status 2 in the CLI):
// the binary has to be rebuilt, retrying cannot help.
var ErrNoAssets error = noAssetsError{}

type noAssetsError struct{}

func (noAssetsError) Error() string {
	return "this build has no chart assets: run make assets, then rebuild"
}

// InvalidInput marks the error as one the caller must fix (cli/cmdutil.ExitCode).
func (noAssetsError) InvalidInput() bool { return true }

// CheckAssets returns ErrNoAssets when this build has no echarts to inline,
// so that a command can say so before it reads its inputs.
func CheckAssets() error {
	if echartsJS() == "" {
		return ErrNoAssets
	}
	return nil
}
