# optimus: build, test, run.
#   make build   build bin/optimus and bin/optimus-kubernetes (the same CLI with client-go:
#                optimus runs it for the commands that reach a cluster; README "Install")
#   make install install both into $GOBIN (go install ./cmd/...)
#   make demo    run the pipeline over the embedded testbed into out/
#   make test    vet and test everything (interop checks need Node.js; see below),
#                ending with a line that says which suites ran and which were skipped
#   make docs    regenerate docs/tables.md from the schemas
#   make bench   run the benchmarks
#   make assets  fetch echarts' JavaScript for the chart pages (needs npm)
#   make k8s-up  build and start a local kube-apiserver with the testbed's nodes (docs/kubernetes.md)

GO      ?= go
BIN     := bin/optimus
OUT     ?= out
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -X github.com/optimus-sched/optimus/cli/cmdutil.Version=$(VERSION)

.PHONY: build install demo demo-current test gotest vet interop docs bench clean FORCE k8s-build k8s-up

build: $(BIN)

# Both binaries in one go build (one link each); bin/optimus finds
# bin/optimus-kubernetes next to itself.
$(BIN): FORCE
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/optimus ./cmd/optimus-kubernetes

install: assets
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/...

# The demo's outputs are deterministic: the same binary and scripts/demo.sh
# give the same files. A stamp of both, written after a demo that succeeded,
# lets the browser and notebook checks reuse $(OUT) (demo-current) instead of
# running the demo again. Both clear $(OUT)/charts first, so that every page
# there is one this demo drew.
DEMO_STAMP := $(OUT)/.demo-stamp
DEMO_HASH  := cat $(BIN) scripts/demo.sh | sha256sum | cut -d' ' -f1

demo: build
	@rm -rf $(DEMO_STAMP) $(OUT)/charts
	scripts/demo.sh $(BIN) $(OUT)
	@$(DEMO_HASH) > $(DEMO_STAMP)

demo-current: build
	@if [ "$$($(DEMO_HASH))" = "$$(cat $(DEMO_STAMP) 2>/dev/null)" ]; then \
	  echo "demo: $(OUT) is current (made by this $(BIN) and scripts/demo.sh)"; \
	else \
	  rm -rf $(DEMO_STAMP) $(OUT)/charts && echo "scripts/demo.sh $(BIN) $(OUT)" && scripts/demo.sh $(BIN) $(OUT) >/dev/null && $(DEMO_HASH) > $(DEMO_STAMP); \
	fi

# Every suite, then one line saying which ran and which were skipped and why
# (scripts/test-summary.sh, from what each check script recorded). The
# suites share no outputs (interop and notebook write temporary folders,
# browser $(OUT)/browser*, $(OUT)/hostile and their logs; the demo they read
# is made once, by demo-current, before either starts), so they run side by
# side: most of their time is spent waiting on Chromium, Node.js or Jupyter,
# and the binary, the demo and npm's packages are made once for all of them.
# --output-sync prints each suite's output in one piece, when it is done.
TEST_STATUS := bin/.test-status
TEST_JOBS   ?= 5
test:
	@mkdir -p bin && rm -f $(TEST_STATUS)
	@OPTIMUS_TEST_STATUS=$(CURDIR)/$(TEST_STATUS) $(MAKE) --no-print-directory -j $(TEST_JOBS) --output-sync=target vet gotest interop browser notebook
	@scripts/test-summary.sh $(TEST_STATUS)

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

gotest:
	$(GO) test ./...

# Interop checks read optimus's files with DuckDB, Apache Arrow JS and
# hyparquet from npm. Without Node.js they are skipped with a notice, unless
# REQUIRE_INTEROP=1 (as CI sets).
interop: build
	scripts/interop.sh $(BIN)

docs: build
	$(BIN) schema --markdown > docs/tables.md

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# solve + place from 1,000 to 100,000 tasks on one core (benchmarks/solve-place.md)
bench-plan:
	$(GO) test ./benchmarks -run '^$$' -bench 'Plan$$|Solve|Place|Pipe' -cpu 1 -count 5 -benchmem

# --- simulate: the paper's comparison and the simulator's speed (benchmarks/simulate.md) ---
bench-simulate: assets
	$(GO) test ./benchmarks -run '^$$' -bench 'SimulateTestbed|Simulate160' -benchtime 5x -count 3
	$(GO) test ./benchmarks -run '^$$' -bench 'SimulatePhilly10k|SimulateScaling' -benchtime 1x -count 1 -timeout 60m

clean:
	rm -rf bin $(OUT)

# --- charts: echarts' JavaScript, the browser check, the notebook ----------
# The chart package embeds chart/assets/echarts.min.js (go:embed), fetched
# from npm at a pinned version: every build and test here fetches it first
# (a plain go build without it compiles, but cannot draw: chart/assets.go).
# `make browser` loads every chart kind and the report in headless Chromium;
# `make notebook` runs examples/*.ipynb with Debian's Jupyter; both on the
# demo's outputs in $(OUT) (demo-current). Both are skipped with a notice when
# Chromium, Node.js or Jupyter are missing, unless REQUIRE_INTEROP=1 (as CI sets).
.PHONY: assets browser notebook
$(BIN) vet gotest bench bench-plan: assets

assets:
	scripts/echarts-assets.sh

# The two browser checks run side by side (each mostly waits on its own
# Chromium), each into a log printed when both are done; the hostile pages
# are kept in $(OUT)/hostile and drawn again only when the binary or the
# check changed.
browser: build demo-current
	@if command -v node >/dev/null && command -v npm >/dev/null; then scripts/npm-ci.sh interop/browser; fi
	@DEMO_OUT=$(OUT) scripts/browser.sh $(BIN) > $(OUT)/browser.log 2>&1 & b=$$!; \
	HOSTILE_OUT=$(OUT)/hostile scripts/browser-hostile.sh $(BIN) > $(OUT)/browser-hostile.log 2>&1; h=$$?; \
	wait $$b; b=$$?; \
	echo "DEMO_OUT=$(OUT) scripts/browser.sh $(BIN)"; cat $(OUT)/browser.log; \
	echo "HOSTILE_OUT=$(OUT)/hostile scripts/browser-hostile.sh $(BIN)"; cat $(OUT)/browser-hostile.log; \
	test $$b = 0 && test $$h = 0

# Issue 22's scale targets (workload-1 page size, a 1,000-job report's height), about 2.5 min.
browser-scale: build
	scripts/scale-check.sh $(BIN)

notebook: build demo-current
	DEMO_OUT=$(OUT) scripts/notebook.sh $(BIN)

# --- Kubernetes (docs/kubernetes.md) ---
# k8s-build: a real kube-apiserver and etcd from the Go module proxy into tools/k8s/bin
# (minutes cold, seconds with Go's build cache); the kubernetes executor's tests find them there.
# k8s-up: start them on loopback with the testbed's nodes, pods made Running by a stand-in
# kubelet; KUBECONFIG=$(OUT)/k8s/kubeconfig reaches it. Ctrl-C stops it.
k8s-build:
	scripts/k8s-build.sh >/dev/null

k8s-up: build k8s-build
	$(BIN) datasets export testbed -o $(OUT)/testbed >/dev/null
	$(GO) run ./tools/k8s-up -cluster $(OUT)/testbed/cluster.parquet -kubeconfig $(OUT)/k8s/kubeconfig
