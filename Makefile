# The kprobes workshop.  `make run` boots a kernel with the series and shows
# kprobes at work; `make check` tests it on every arch.  See README.md.
ARCH ?= x86_64
VARIANT ?= ours
ARCHES ?= x86_64 arm64 riscv powerpc
EXTRA ?=
export ARCH VARIANT

.PHONY: help setup kernel run check bench series series-check clean

help:
	@echo "make run     [ARCH=x86_64] [VARIANT=ours|upstream] [EXTRA=\"my.ko my.sh\"]"
	@echo "make check   [ARCHES=\"$(ARCHES)\"] [VARIANT=ours|upstream]"
	@echo "make bench   [ARCH=x86_64]   (upstream and ours, QEMU -icount)"
	@echo "make series         (the patch series against the base, in out/series)"
	@echo "make series-check   (apply, checkpatch and build each patch on x86_64)"
	@echo "make setup | kernel | clean"

setup:
	ws/setup.sh $(ARCHES)

kernel:
	ws/setup.sh $(ARCH)
	ws/kernel.sh

run:
	ws/run.sh $(EXTRA)

check:
	ws/check.sh $(ARCHES)

bench:
	ws/bench.sh

series:
	ws/series.py --checkpatch

series-check:
	ws/series-check.sh

clean:
	bash -c '. ws/lib.sh && rm -rf "$$WS_CACHE/build"'
