# The two commands of the README. Each installs missing system packages first.
.PHONY: demo test test-all test-slow test-browser bench bench-quick bench-scaling bench-instructions deps build tsan test-long preview simulate docs

deps:
	@bash scripts/ensure-system-packages.sh

## Runs `checkout demo` end to end on the embedded defaults.
demo: deps
	@swift build -q --product checkout
	@swift run --skip-build checkout demo

## A test run that takes longer than this many seconds is a hang: scripts/watchdog.sh prints every
## thread's stack of the test process and stops it (a normal `make test` takes about 90 seconds of
## test time on a 2-core machine).
TEST_TIME_LIMIT ?= 1200
LONG_TEST_TIME_LIMIT ?= 3600

## The slow tests, run by `make test-slow` (and `make test-long`) instead of `make test`: statistics over
## thousands of payments (in process and over HTTP), the simulator's 100 seeds (CI also runs 2,000
## in release), a scan of 10,000 stored cards, a build of a scaffolded module, the largest customer
## the limits allow, every TLS suite offered alone, and the slow-sender deadlines (the vault server's and the hosted checkout's) that wait out
## real seconds. Regular expressions over test ids (Target.Suite/function).
SLOW_SUITES = HostedSlowClientTests|WeightedSplitTests|OverHTTPSplitAndBreakerTests/weightedSplitOverHTTP|VaultSimulationTests/seeds\(|PaymentDataScanTests/scanFiles|QuotaTests/largestCustomerSyncs|VaultServerTLSTests/intermediateProfile|SlowSenderTests|MethodScaffolderTests/scaffoldedModuleBuildsInACopyOfThePackage
## The client floods (1,200 slow TLS connections and such): part of `make test-slow`, run last and
## alone there, as they load both cores for about a minute and measure a victim's latency that
## other suites would skew.
FLOOD_SUITES = SlowClientFloodTests

## At most this many tests run at once (Swift Testing's SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH;
## unbounded by default): a task a test starts then waits for one of the two cooperative threads
## behind at most this many tests' work, not behind the whole suite's (unbounded, a task started 35 s
## into the run waited 35 s for a thread).
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH ?= 16

## The whole test suite: the everyday tests, the slow ones, then the browser flows (the README's test command; CI runs it).
test-all: test test-slow test-browser

## Builds everything and runs the everyday tests: all but SLOW_SUITES and FLOOD_SUITES, about 90 s
## of test time on a 2-core machine. The PostgreSQL tests run against a throwaway cluster when a
## PostgreSQL server is installed, and say they were skipped otherwise.
test: deps
	swift build --build-tests
	bash scripts/watchdog.sh $(TEST_TIME_LIMIT) bash scripts/with-postgres.sh $(if $(CHECKOUTKIT_REQUIRE_POSTGRES),,--optional) swift test --skip-build --skip "$(SLOW_SUITES)|$(FLOOD_SUITES)"

## Runs the benchmarks in release mode (see the Benchmarks guide for the figures); the PostgreSQL section runs
## on a throwaway cluster (and its op batches also on a durable one: fsync=on) when a PostgreSQL server
## is installed, and says it was skipped otherwise.
## Exits 4 on a missed target; BENCH_FLAGS=--report-only reports it without failing.
bench: deps
	swift build -c release --product checkout-bench
	bash scripts/with-postgres.sh --optional --durable swift run -c release --skip-build checkout-bench $(BENCH_FLAGS)

## The benchmark smoke test CI runs: every section on tiny inputs (well under a minute once built
## in release). Fails when a section fails or a figure is missing, never on a missed target.
bench-quick: deps
	swift build -c release --product checkout-bench
	bash scripts/with-postgres.sh $(if $(CHECKOUTKIT_REQUIRE_POSTGRES),,--optional) swift run -c release --skip-build checkout-bench --quick --report-only

## The scaling section in release (how each cost grows; a few minutes), then its charts: the JSON
## goes to bench-results/scaling.json, the PNGs to docs/images/scaling-*.png and the DocC catalog (matplotlib from PyPI
## into .build/plot-venv on first use).
bench-scaling: deps
	swift build -c release --product checkout-bench
	mkdir -p bench-results
	swift run -c release --skip-build checkout-bench --only scaling --report-only --json bench-results/scaling.json
	bash scripts/plot-scaling.sh bench-results/scaling.json
	cp docs/images/scaling-*.png $(PREVIEW_CATALOG)/

build: deps
	swift build

## Runs the concurrency stress test and every suite that shares sessions, stores, engines or the
## server between tasks under the thread sanitizer, in their own build directory so the normal
## build is not rebuilt, with the PostgreSQL suites on a throwaway cluster (scripts/with-postgres.sh;
## required when CHECKOUTKIT_REQUIRE_POSTGRES is set, as in CI). CHECKOUTKIT_TSAN makes `Locked`
## (Sources/CheckoutLocking) show its lock to the sanitizer; any report fails the run (the
## sanitizer exits 66). CI runs this.
TSAN_FLAGS = --sanitize=thread -Xswiftc -DCHECKOUTKIT_TSAN --scratch-path .build/tsan
TSAN_SUITES = ReliabilityTests.Concurrency|ReliabilityTests.CooperativeThreads|CheckoutCoreTests|CardPaymentMethodTests|PaymentMethodsTests|SQLiteKitTests|CheckoutVaultTests|SyncEngineTests|VaultServerTests|VaultServerPostgresTests|CheckoutOrchestrationTests.OrchestrationConcurrency|CheckoutOrchestrationTests.PaymentSafetyTests|CheckoutOrchestrationTests.LifecycleTests
## The HTTP transport's own tests are left out: they pin deadlines and connection counts that the
## sanitizer's slowdown breaks; the client still runs sanitized under the sync and server suites.
## So are the suites that drive the server from outside processes or replay hours of writes
## (TSAN_HEAVY): no task of theirs shares state, and under the sanitizer they starve the rest.
TSAN_HEAVY = VaultServerTLSTests|WriteAmplificationTests
tsan: deps
	swift build --build-tests $(TSAN_FLAGS)
	bash scripts/watchdog.sh $(TEST_TIME_LIMIT) bash scripts/with-postgres.sh $(if $(CHECKOUTKIT_REQUIRE_POSTGRES),,--optional) swift test --skip-build $(TSAN_FLAGS) --filter "$(TSAN_SUITES)" --skip "HTTPTransportTests|$(SLOW_SUITES)|$(FLOOD_SUITES)|$(TSAN_HEAVY)"

## The hosted checkout clicked through in real Chromium (Debian's package, installed when missing) with
## Playwright from PyPI (into .build/browser-venv): ten flows, about a minute (Tests/Browser/hosted_checkout.py).
test-browser: deps
	swift build --product checkout
	bash scripts/browser-test.sh

## The slow tests: SLOW_SUITES (PostgreSQL as in `make test`), then the floods alone.
test-slow: deps
	swift build --build-tests
	bash scripts/watchdog.sh $(LONG_TEST_TIME_LIMIT) bash scripts/with-postgres.sh $(if $(CHECKOUTKIT_REQUIRE_POSTGRES),,--optional) swift test --skip-build --filter "$(SLOW_SUITES)"
	bash scripts/watchdog.sh $(LONG_TEST_TIME_LIMIT) swift test --skip-build --filter "$(FLOOD_SUITES)"

## The slow tests (`make test-slow`; SLOW=0 leaves them out, as CI does after `make test-all`),
## the long reliability variants (>= 100,000 fuzz cases per target, 50 SIGKILLs of each process, 20 fault schedules), then the OpenAPI fuzzer (schemathesis from PyPI) against the server over
## HTTPS with both kinds of key, and against sandbox-psp (Config/processor-api.openapi.yaml). CHECKOUTKIT_FUZZ_CASES=N bounds the fuzzing to fit a CI budget;
## FUZZ_API_EXAMPLES=N the examples per operation of the API fuzzer (40 by default).
## LONG_SEEDS simulator seeds (100,000 by default; after the 2,000 CI runs first) and 500 on
## PostgreSQL follow; LONG_SEEDS=0 leaves the simulator out.
LONG_SEEDS ?= 100000
test-long: deps
	swift build --build-tests
	if [ "$(SLOW)" != "0" ]; then $(MAKE) test-slow; fi
	CHECKOUTKIT_LONG_TESTS=1 bash scripts/watchdog.sh $(LONG_TEST_TIME_LIMIT) swift test --skip-build --filter ReliabilityTests
	bash scripts/fuzz-api.sh
	bash scripts/tls-scan.sh
	if [ "$(LONG_SEEDS)" != "0" ]; then \
		$(MAKE) simulate SEEDS=$(LONG_SEEDS) FROM=2001 && \
		bash scripts/with-postgres.sh swift run -c release --skip-build vault-sim --seeds 500 --storage postgres; \
	fi

## The deterministic sync simulator (vault-sim; the guide "Saved payment methods", "Convergence, proved by simulation") in
## release: SEEDS seeds from FROM, one per core. Ends with "N seeds passed", or with the failing
## seed, its shrunk schedule and the one command that replays it (exit 1).
SEEDS ?= 2000
FROM ?= 1
simulate: deps
	swift build -c release --product vault-sim
	swift run -c release --skip-build vault-sim --seeds $(SEEDS) --from $(FROM)

## The preview pictures of the README and the DocC catalog: the payment-method list, the saved methods, the card
## form with errors and with a co-badged card, light and dark (English, 375 wide), and the German card form with
## errors at 320, screenshotted with headless Chromium (installed when missing) into docs/images/ and the catalog's
## Resources/. ReferenceScreenshotTests compares them with what the preview renders. Every page is written to
## .build/preview/<variant>/.
PREVIEW_SCREENS = payment-methods vaulted card-form-errors card-form-cobadged
PREVIEW_CATALOG = Sources/CheckoutKit/CheckoutKit.docc/Resources
## The hosted checkout's steps pictured (from the browser test's screenshots).
HOSTED_SHOTS = methods card-form challenge saved declined de-dark
preview: deps
	bash scripts/ensure-chromium.sh
	swift build --product checkout
	mkdir -p docs/images $(PREVIEW_CATALOG)
	rm -f docs/images/preview-*.png $(PREVIEW_CATALOG)/preview-*.png
	for mode in light dark; do \
		swift run --skip-build checkout preview --out .build/preview/$$mode --mode $$mode --png --config-dir Config >/dev/null || exit 1; \
		for screen in $(PREVIEW_SCREENS); do cp .build/preview/$$mode/$$screen.png docs/images/preview-$$screen-$$mode.png; done; \
	done
	swift run --skip-build checkout preview --out .build/preview/de-320 --locale de --width 320 --png --config-dir Config >/dev/null
	cp .build/preview/de-320/card-form-errors.png docs/images/preview-card-form-errors-de-320-light.png
	cp docs/images/preview-*.png $(PREVIEW_CATALOG)/
	rm -rf .build/hosted-shots
	bash scripts/browser-test.sh .build/hosted-shots
	for shot in $(HOSTED_SHOTS); do cp .build/hosted-shots/hosted-$$shot.png docs/images/ && cp .build/hosted-shots/hosted-$$shot.png $(PREVIEW_CATALOG)/; done

## The DocC catalog (guides and CheckoutKit's API), built offline with the toolchain's docc into
## .build/docs; a broken link or a missing picture fails it.
docs: deps
	swift build --target CheckoutKit
	bash scripts/build-docs.sh

## Counted instructions (valgrind's callgrind, installed when missing) of one card check, one feed
## request and the pull per instrument, compared with scripts/instructions-reference.json: fails when
## one is more than 10% above it. `make bench-instructions REFRESH=1` rewrites the reference (commit
## it with the reason).
bench-instructions: deps
	swift build -c release --product checkout-bench
	bash scripts/bench-instructions.sh $(if $(REFRESH),--refresh,)
