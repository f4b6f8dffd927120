# The two commands: `make demo` and `make test`. Each installs missing Debian packages
# (scripts/install-deps.sh, a no-op when all are present), configures, builds and runs.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS  ?= $(shell nproc)

.PHONY: deps configure build test test-asan demo report fuzz format tidy clean

deps:
	@bash scripts/install-deps.sh
	@bash scripts/install-ort.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

# The whole suite, then the fast unit tests again under the sanitizers (CI runs this).
test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-asan

# The fast unit tests (label `unit`, tests/CMakeLists.txt) built with ASan + UBSan in their own
# build folder. -O0 -g1: with the instrumentation, -O1 -g took twice the compile time of the
# normal -O2 build and -O0 -g1 half of it, which keeps `make test` within CI's limit; the tests
# run slower but are short, and -g1's line tables are what the reports print. No libtorch: none
# of these tests uses it, and an uninstrumented libtorch has no place in a sanitized build.
test-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DATTUNE_SANITIZE=ON -DATTUNE_WITH_TORCH=OFF -DCMAKE_BUILD_TYPE=Debug \
	       -DCMAKE_CXX_FLAGS_DEBUG="-g1 -O0" >/dev/null
	@cmake --build $(ASAN_BUILD) --target unit-tests -j $(JOBS) -- --no-print-directory
	@cd $(ASAN_BUILD) && UBSAN_OPTIONS=print_stacktrace=1 ctest -L unit --output-on-failure -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/attune

# An HTML report of the demo's database (after `make demo`): $(BUILD)/report.html, one file that
# any browser opens without network access. REPORT_DB=FILE reports another database,
# BENCH="FILE ..." adds bench results (attune-bench --json-out FILE).
REPORT_DB ?= $(BUILD)/demo.db
REPORT_OUT ?= $(BUILD)/report.html
report:
	@test -x $(BUILD)/attune -a -f $(REPORT_DB) || \
	  { echo "report: needs $(BUILD)/attune and $(REPORT_DB): run make demo first (or make report REPORT_DB=FILE)" >&2; exit 2; }
	@$(BUILD)/attune report --db $(REPORT_DB) $(foreach f,$(BENCH),--bench $(f)) --out $(REPORT_OUT)

# The libFuzzer targets of fuzz/ (clang, ASan + UBSan, in build-fuzz/), each run for
# FUZZ_SECONDS; scripts/fuzz.sh says where findings go.
FUZZ_SECONDS ?= 60
fuzz:
	@bash scripts/fuzz.sh $(FUZZ_SECONDS)

# Applies .clang-format to every C++ file of the tree.
FORMAT_DIRS = src include tests bench examples fuzz
format:
	@command -v clang-format >/dev/null || { echo "format: needs clang-format (apt-get install clang-format)" >&2; exit 2; }
	@find $(FORMAT_DIRS) \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print0 | xargs -0 clang-format -i

# .clang-tidy over src/ with the build's compile_commands.json; FILES=... to check a few files.
FILES ?= $(shell find src -name '*.cpp')
tidy: configure
	@command -v clang-tidy >/dev/null || { echo "tidy: needs clang-tidy (apt-get install clang-tidy)" >&2; exit 2; }
	@clang-tidy -p $(BUILD) --quiet $(FILES)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
