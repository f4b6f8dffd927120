# The two commands: `make demo` and `make test`. Each installs missing Debian packages
# (scripts/install-deps.sh, a no-op when all are present), configures, builds and runs.
BUILD ?= build
JOBS  ?= $(shell nproc)

.PHONY: deps configure build test demo format tidy clean

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/attune

# Applies .clang-format to every C++ file of the tree.
FORMAT_DIRS = src include tests bench examples
format:
	@command -v clang-format >/dev/null || { echo "format: needs clang-format (apt-get install clang-format)" >&2; exit 2; }
	@find $(FORMAT_DIRS) \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print0 | xargs -0 clang-format -i

# .clang-tidy over src/ with the build's compile_commands.json; FILES=... to check a few files.
FILES ?= $(shell find src -name '*.cpp')
tidy: configure
	@command -v clang-tidy >/dev/null || { echo "tidy: needs clang-tidy (apt-get install clang-tidy)" >&2; exit 2; }
	@clang-tidy -p $(BUILD) --quiet $(FILES)

clean:
	rm -rf $(BUILD)
