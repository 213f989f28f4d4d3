# xputrace: one binary from C user space and CO-RE BPF programs.
#
#   make            build ./xputrace (libbpf linked dynamically)
#   make static     build ./xputrace-static (one file to copy onto a GPU node or into a lab guest)
#   make image      the OCI image xputrace:VERSION, FROM scratch, running `serve` (docs/deploy.md)
#   make test       install what is missing, build, run every test layer (tests/run.sh)
#   make run        install what is missing, build, run the default job (scripts/run.sh)
#   make bench      run the benchmarks in bench/ and write their figures there
#   make fuzz       fuzz the trace file reader with libFuzzer for FUZZ_TIME seconds (60)
#   make check-asan the unit and end-to-end tests on a build with ASan and UBSan
#                   (build/asan/xputrace; not part of `make test`)
#
# Kernel types: the BPF programs do not include a generated vmlinux.h. They
# declare the few kernel structures they read in src/bpf/kernel_types.h, with
# CO-RE relocations (preserve_access_index), so libbpf fixes every field offset
# against the running kernel's BTF at load time. The build therefore needs no
# BTF from the build machine and the binary runs on every kernel with BTF.

CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
BUILD    := build
ARCH     := x86

CFLAGS   ?= -O2 -g
# SAN: extra flags for compiling and linking alike (check-asan's sanitizers)
SAN      ?=
CFLAGS   += -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -Isrc -I$(BUILD)/skel $(SAN)
BPF_CFLAGS := -O2 -g -target bpf -D__TARGET_ARCH_$(ARCH) -Isrc -Wall -Werror \
	      -I/usr/include/$(shell $(CC) -dumpmachine)
# Each compile writes the headers it read into a .d file beside its output
# (-MP: a header that goes away does not break the next build); the rules
# below name only their source, and the .d files included at the end add
# the headers, so an edit rebuilds only what includes it.
DEPFLAGS  = -MMD -MP -MF $@.d
LIBS     := -lbpf -lelf -lz -ldeflate -lncurses -ltinfo
# zstd for `record --compress`: on when libzstd's header is there (ZSTD=n turns
# it off); a build without it reads and writes every file but zstd-compressed ones.
ZSTD     ?= $(shell echo '\#include <zstd.h>' | $(CC) -E -x c - >/dev/null 2>&1 && echo y)
CORE_LIBS := -lm -ldeflate	# libdeflate: export --compress (src/sinks/perfetto_proto.c)
ifeq ($(ZSTD),y)
CFLAGS   += -DXP_HAVE_ZSTD
LIBS     += -lzstd
CORE_LIBS += -lzstd
endif

# A capability lives in one folder, src/caps/NAME/ (src/caps/README.md).
# BPF programs: the generic families in src/bpf/ and each capability's own
# beside it; the skeleton is named after the file alone (ioctl.skel.h), so
# two programs must not share a file name.
BPF_SRCS  := $(wildcard src/bpf/*.bpf.c) $(wildcard src/caps/*/*.bpf.c)
BPF_OBJS  := $(patsubst %.bpf.c,$(BUILD)/bpf/%.bpf.o,$(notdir $(BPF_SRCS)))
SKELS     := $(patsubst %.bpf.c,$(BUILD)/skel/%.skel.h,$(notdir $(BPF_SRCS)))
vpath %.bpf.c src/bpf $(sort $(dir $(wildcard src/caps/*/*.bpf.c)))

# The split of a capability folder, by file name: its row (NAME/NAME.c) and
# its kernel-side glue (*_live.c, *_kside.c) include libbpf or a skeleton and
# link into the app; everything else in it (records, analysis, text, JSON,
# stream and Perfetto writers) goes into libxpcore.a with the framework core
# and sinks, which do not link libbpf: the unit tests link that library alone
# (`nm build/libxpcore.a | grep ' U bpf_'` finds nothing).
CAP_DIRS     := $(patsubst %/,%,$(sort $(dir $(wildcard src/caps/*/*.c))))
CAP_SRCS     := $(filter-out %.bpf.c,$(wildcard src/caps/*/*.c))
CAP_APP_SRCS := $(filter %_live.c %_kside.c $(foreach d,$(CAP_DIRS),$(d)/$(notdir $(d)).c),$(CAP_SRCS))
CAP_CORE_SRCS := $(filter-out $(CAP_APP_SRCS),$(CAP_SRCS))

# The analysis core, the sinks and the what-if scheduler (src/sim) do not link
# libbpf: they are tested alone.
CORE_SRCS := $(wildcard src/core/*.c) $(wildcard src/sinks/*.c) $(wildcard src/sim/*.c) $(CAP_CORE_SRCS)
CORE_OBJS := $(patsubst src/%.c,$(BUILD)/%.o,$(CORE_SRCS))
APP_SRCS  := src/main.c $(wildcard src/caps/*.c) $(CAP_APP_SRCS) $(wildcard src/live/*.c) \
	     $(wildcard src/cmd/*.c)
APP_OBJS  := $(patsubst src/%.c,$(BUILD)/%.o,$(APP_SRCS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
HELPER_SRCS := $(wildcard tests/e2e/*.c) $(wildcard bench/*.c)
HELPER_BINS := $(patsubst %.c,$(BUILD)/%,$(HELPER_SRCS))
# The latency tests' library for uprobes, beside its driver.
HELPER_BINS += $(BUILD)/tests/e2e/liblatwork.so
# The api tests' stand-in runtime, copied under runtimes' sonames by the test.
HELPER_BINS += $(BUILD)/tests/e2e/libapiwork.so
# The writer of the golden tests' synthetic trace files (tests/golden/data/gen).
HELPER_BINS += $(BUILD)/tests/golden/mkfixtures
# The ioctl driver as a 32-bit program too (compat ioctls), where the
# compiler has the multilib runtime (gcc-multilib); its test SKIPs otherwise.
HAVE_M32 := $(shell echo 'int main(void){return 0;}' | $(CC) -m32 -x c - -o /dev/null 2>/dev/null && echo y)
ifeq ($(HAVE_M32),y)
HELPER_BINS += $(BUILD)/tests/e2e/ioctl_driver32
endif

PREFIX  ?= /usr/local
DESTDIR ?=

.SECONDARY:
.PHONY: all static test unit run bench deps clean install fuzz check-asan image image-save
all: xputrace

deps:
	@bash scripts/deps.sh

# The completion and the man page, written by the binary from its capability table.
DOCS := $(BUILD)/completion/xputrace.bash $(BUILD)/completion/_xputrace $(BUILD)/man/xputrace.1
GEN_DOCS = mkdir -p $(BUILD)/completion $(BUILD)/man && ./xputrace --gen bash > $(BUILD)/completion/xputrace.bash && \
	   ./xputrace --gen zsh > $(BUILD)/completion/_xputrace && ./xputrace --gen man > $(BUILD)/man/xputrace.1

xputrace: $(APP_OBJS) $(BUILD)/libxpcore.a
	$(CC) $(CFLAGS) -o $@ $(APP_OBJS) $(BUILD)/libxpcore.a $(LIBS)
	$(GEN_DOCS) || { rm -f $@ $(DOCS); exit 1; }

$(DOCS): xputrace
	$(GEN_DOCS) || { rm -f $(DOCS); exit 1; }

# the same under another build directory (the sanitized build of check-asan)
$(BUILD)/xputrace: $(APP_OBJS) $(BUILD)/libxpcore.a
	$(CC) $(CFLAGS) -o $@ $(APP_OBJS) $(BUILD)/libxpcore.a $(LIBS)

static: xputrace-static
xputrace-static: $(APP_OBJS) $(BUILD)/libxpcore.a
	$(CC) $(CFLAGS) -static -o $@ $(APP_OBJS) $(BUILD)/libxpcore.a $(LIBS)

# The OCI image (deploy/Containerfile, docs/deploy.md): FROM scratch, the
# static binary and, where built, the CUDA injection library; tagged
# $(IMAGE):VERSION and $(IMAGE):latest by podman (or buildah). image-save
# writes it as an OCI archive, build/xputrace-VERSION.oci.tar, for nodes
# that cannot pull.
IMAGE ?= xputrace
image: xputrace-static
	bash scripts/image.sh build $(IMAGE)

image-save: image
	bash scripts/image.sh save $(IMAGE)

# made anew: `ar r` into an old archive would keep the objects of sources
# since renamed or removed, whose symbols then clash with their new homes
$(BUILD)/libxpcore.a: $(CORE_OBJS)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/bpf/%.bpf.o: %.bpf.c
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

# api's counts take an index from an atomic add's result (BPF atomics, 5.12+)
$(BUILD)/bpf/api.bpf.o: BPF_CFLAGS += -mcpu=v3

$(BUILD)/skel/%.skel.h: $(BUILD)/bpf/%.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

# Skeletons are generated headers: before any .d file exists (a clean tree)
# nothing says which object includes which, so every object that may include
# one waits for all of them to be written (order-only: a skeleton rewritten
# later rebuilds only the objects whose .d file names it).
$(APP_OBJS): | $(SKELS)

$(BUILD)/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# A unit test is compiled apart from its link: a rebuilt library relinks
# every test but recompiles only those that include the edited header.
$(BUILD)/tests/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -Itests/unit -c $< -o $@

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(BUILD)/libxpcore.a
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libxpcore.a $(CORE_LIBS)

$(BUILD)/tests/e2e/%: tests/e2e/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $<

$(BUILD)/tests/e2e/liblatwork.so: tests/e2e/lib/latwork.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -O1 -fPIC -shared -o $@ $<

$(BUILD)/tests/e2e/libapiwork.so: tests/e2e/lib/apiwork.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -O1 -fPIC -shared -o $@ $<

$(BUILD)/tests/e2e/api_driver: tests/e2e/api_driver.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< -ldl -lpthread

$(BUILD)/tests/e2e/lat_driver: tests/e2e/lat_driver.c $(BUILD)/tests/e2e/liblatwork.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< -L$(BUILD)/tests/e2e -llatwork -Wl,-rpath,'$$ORIGIN' -lpthread

$(BUILD)/tests/golden/mkfixtures: tests/golden/mkfixtures.c $(BUILD)/libxpcore.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -Itests/unit -o $@ $< $(BUILD)/libxpcore.a $(CORE_LIBS)

$(BUILD)/tests/e2e/ioctl_driver32: tests/e2e/ioctl_driver.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -m32 -o $@ $<

$(BUILD)/bench/%: bench/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $<

# The trace file benchmark's generator: the core library and the fixtures' kinds.
$(BUILD)/bench/filegen: bench/filegen.c $(BUILD)/libxpcore.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -Itests/unit -o $@ $< $(BUILD)/libxpcore.a $(CORE_LIBS)

# The fdinfo sample's cost with many processes: the core library's scan.
$(BUILD)/bench/fdinfo_sample: bench/fdinfo_sample.c $(BUILD)/libxpcore.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(BUILD)/libxpcore.a $(CORE_LIBS)

# The benchmark's count-only floor: a BPF program of its own, not the tool's.
$(BUILD)/bpf/floor.bpf.o: bench/bpf/floor.bpf.c
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/bench/floor: bench/floor.c $(BUILD)/skel/floor.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(LIBS)

# the api benchmark's loop, static, for a host whose C library is older
$(BUILD)/bench/ioctl_loop-static: bench/ioctl_loop.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $<

# the same, static, for the lab's guests (lab/test.sh builds it)
$(BUILD)/bench/floor-static: bench/floor.c $(BUILD)/skel/floor.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $< $(LIBS)

# libxputrace-cuda.so (src/cuda/, docs/nvidia.md): CUDA's injection library
# that hands CUPTI's activity to `xputrace cuda` through USDT probes (sys/sdt.h:
# systemtap-sdt-dev). Built without CUDA's headers; where they are installed
# (CUDA_INC), cupti_check.c compares every declaration it uses with them.
CUDA_LIB    := $(BUILD)/libxputrace-cuda.so
CUDA_INC    ?= /usr/local/cuda/include
CUPTI_CHECK := $(if $(wildcard $(CUDA_INC)/cupti.h),$(BUILD)/cuda/cupti_check.o)
all: $(CUDA_LIB)
HELPER_BINS += $(CUDA_LIB)
# the cuda tests' stand-in libcupti and the program that drives it
HELPER_BINS += $(BUILD)/tests/e2e/libcupti-stub.so

$(CUDA_LIB): src/cuda/xputrace_cuda.c src/cuda/cupti_min.h src/shared/cuda_probes.h $(CUPTI_CHECK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -fPIC -shared -fvisibility=hidden -Wl,-soname,libxputrace-cuda.so -o $@ $< -ldl

$(BUILD)/cuda/cupti_check.o: src/cuda/cupti_check.c src/cuda/cupti_min.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(CUDA_INC) -c $< -o $@

$(BUILD)/tests/e2e/libcupti-stub.so: tests/e2e/lib/cuptistub.c src/cuda/cupti_min.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -fPIC -shared -o $@ $< -lpthread

$(BUILD)/tests/e2e/cuda_app: tests/e2e/cuda_app.c src/shared/cuda_probes.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< -ldl -lpthread

install: install-cuda
install-cuda: $(CUDA_LIB)
	install -D -m 0644 $(CUDA_LIB) $(DESTDIR)$(PREFIX)/lib/libxputrace-cuda.so
.PHONY: install-cuda

unit: $(UNIT_BINS)
helpers: $(HELPER_BINS)

# the README's two commands build on every core
XP_MAKE_JOBS ?= $(shell nproc 2>/dev/null || echo 1)

test: deps
	$(MAKE) -j$(XP_MAKE_JOBS) xputrace unit helpers
	bash tests/run.sh

run: deps
	$(MAKE) -j$(XP_MAKE_JOBS) xputrace
	bash scripts/run.sh

bench: deps
	$(MAKE) xputrace helpers
	bash bench/ioctl_overhead.sh
	bash bench/api_overhead.sh
	bash bench/soak.sh
	bash bench/file.sh
	bash bench/export.sh

# The reader under libFuzzer with ASan and UBSan (clang's libclang-rt-*-dev
# has libFuzzer); not part of `make test`, which must not need it.
FUZZ_TIME ?= 60
FUZZ_CFLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE -Isrc -fsanitize=fuzzer,address,undefined \
	       -fno-sanitize-recover=undefined -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
$(BUILD)/fuzz/fuzz_reader: fuzz/fuzz_reader.c $(CORE_SRCS) $(wildcard src/*/*.h) $(wildcard src/caps/*/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $(filter -DXP_HAVE_ZSTD,$(CFLAGS)) -Itests/unit -o $@ fuzz/fuzz_reader.c $(CORE_SRCS) $(CORE_LIBS)

fuzz: $(BUILD)/fuzz/fuzz_reader
	bash fuzz/run.sh $(FUZZ_TIME)

# xputrace and the unit tests with AddressSanitizer and UndefinedBehaviorSanitizer
# (any report fails the run, and so does a command no test ran: tests/asan.sh),
# the e2e helpers as `make helpers` builds them. Not part of `make test`: CI runs
# it after (.ci/run).
ASAN_BUILD  := $(BUILD)/asan
ASAN_FLAGS  := -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
check-asan: deps
	$(MAKE) -j$(XP_MAKE_JOBS) helpers
	$(MAKE) -j$(XP_MAKE_JOBS) BUILD=$(ASAN_BUILD) SAN="$(ASAN_FLAGS)" $(ASAN_BUILD)/xputrace unit
	bash tests/asan.sh $(ASAN_BUILD)

install: xputrace $(DOCS)
	install -D -m 0755 xputrace $(DESTDIR)$(PREFIX)/sbin/xputrace
	install -D -m 0644 $(BUILD)/completion/xputrace.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/xputrace
	install -D -m 0644 $(BUILD)/completion/_xputrace $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_xputrace
	install -D -m 0644 $(BUILD)/man/xputrace.1 $(DESTDIR)$(PREFIX)/share/man/man1/xputrace.1

clean:
	rm -rf $(BUILD) xputrace xputrace-static

# The headers each output was built from (written by the compiles above).
# An output that has no .d file yet (built before the Makefile wrote them)
# is built again once, so that its headers are known from then on.
DEP_OUTS := $(APP_OBJS) $(CORE_OBJS) $(BPF_OBJS) $(UNIT_BINS:=.o) $(HELPER_BINS) $(BUILD)/bpf/floor.bpf.o
DEP_FILES := $(wildcard $(addsuffix .d,$(DEP_OUTS)))
$(filter-out $(DEP_FILES:.d=),$(DEP_OUTS)): FORCE
.PHONY: FORCE
FORCE:
-include $(DEP_FILES)
