# SPDX-License-Identifier: Apache-2.0
# The `testgen` rule of p4src/Makefile and p4src/tna/Makefile: p4testgen writes its tests of
# $(TESTGEN_PROGRAM) into $(TESTGEN_OUT), beside p4testgen.log: the command, p4testgen's
# version and the coverage after each test (without the per-path guard warnings, and only
# the last list of nodes not covered). The including Makefile sets TESTGEN_TARGET (--target
# and --arch), TESTGEN_FLAGS, TESTGEN_NAME, TESTGEN_PROGRAM, TESTGEN_OUT and SOURCES.
P4TESTGEN ?= p4testgen
TESTGEN_COMMAND = $(TESTGEN_TARGET) $(TESTGEN_FLAGS) --out-dir $(TESTGEN_OUT) --test-name $(TESTGEN_NAME) $(TESTGEN_PROGRAM)
TESTGEN_SUMMARY = awk '/^warning: Guard/ {next} /^Not covered program nodes:/ {last = $$0 "\n"; inside = 1; next} inside && /^\t/ {last = last $$0 "\n"; next} {inside = 0; print} END {printf "%s", last}'

testgen: $(SOURCES)
	rm -rf $(TESTGEN_OUT) && mkdir -p $(TESTGEN_OUT)
	{ echo "# p4testgen $(TESTGEN_COMMAND)"; \
	  "$(P4TESTGEN)" $(TESTGEN_TARGET) --version 2>&1 | grep -i version | sed "s/^/# p4testgen /"; \
	  "$(P4TESTGEN)" $(TESTGEN_COMMAND) 2>&1 | $(TESTGEN_SUMMARY); } > $(TESTGEN_OUT)/p4testgen.log

.PHONY: testgen
