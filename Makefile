# The two commands: `make demo` and `make test`. Each installs missing Debian packages
# (scripts/install-deps.sh, a no-op when all are present), configures, builds and runs.
BUILD ?= build
JOBS  ?= $(shell nproc)

.PHONY: deps configure build test demo clean

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

clean:
	rm -rf $(BUILD)
