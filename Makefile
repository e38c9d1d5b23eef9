# The SGEMM assignment kit: builds the handout driver, the grader and its tests.
#   make                 build everything (student/sgemm, build/grade, runner pieces, tests)
#   make test            build and run every test; ends with "N passed, N failed, N skipped"
#   make grade [SUBMISSION=path] [OUT=results] [SUITE=file] [BACKEND=auto|gpu|cpu] [SEED=n]
#   make handout         dist/sgemm-handout.tar.gz: exactly the student files
#   make ci              the course-CI check of the kit itself
#   make clean
SHELL := /bin/bash
.DEFAULT_GOAL := all

NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
# Without nvcc (no CUDA Toolkit) only the CUDA-free build can be made: the
# grader without cuBLAS/cudart (NO_CUDA, below), which grades with the cpu backend.
ifeq ($(NO_CUDA),)
  ifeq ($(shell command -v $(NVCC) 2>/dev/null),)
    NO_CUDA := 1
    $(info make: no nvcc ($(NVCC)): building the CUDA-free grader, which grades with the cpu backend)
  endif
endif
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(realpath $(NVCC)))
CUDA_INC := $(CUDA_HOME)/include
CUDA_LIB := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib) $(CUDA_HOME)/lib64)

# The GPU in this machine, if any (e.g. "90"); otherwise a build that runs on any recent GPU.
GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .\r')
ifneq ($(GPU_CC),)
  GPU_ARCH := -arch=sm_$(GPU_CC)
else
  GPU_ARCH := -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 \
              -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
endif

BUILD := build
CXX ?= g++
# -Werror=switch: a switch over an enum with no default (e.g. the check kinds,
# pipeline/checks.cpp) must handle every value.
WARN := -Wall -Wextra -Werror=switch
CXXFLAGS := -std=c++17 -O2 $(WARN) -Igrader/src -I$(CUDA_INC) -MMD -MP
NVCCFLAGS := -std=c++17 -O3 $(GPU_ARCH) -Igrader/src -Xcompiler -Wall,-Wextra
# libseccomp (the sandbox's filters, grader/src/process/seccomp_policy.cpp), linked statically so
# the grader runs where only bubblewrap is installed. Its headers and archive come from Debian's
# libseccomp-dev, or, on a machine without a package registry, from .devcarry/seccomp (that
# package unpacked with `dpkg -x`; see grader/tools/gpu_sandbox_check.sh).
SECCOMP_INC := $(patsubst %/seccomp.h,%,$(firstword $(wildcard /usr/include/seccomp.h .devcarry/seccomp/usr/include/seccomp.h)))
SECCOMP_LIB := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libseccomp.a /usr/lib/aarch64-linux-gnu/libseccomp.a \
                 .devcarry/seccomp/usr/lib/x86_64-linux-gnu/libseccomp.a) -lseccomp)
# CLI11 (the command lines, grader/src/cli/), header-only: Debian's libcli11-dev, or .devcarry/cli11
# (that package unpacked with `dpkg -x`).
CLI11_INC := $(patsubst %/CLI/CLI.hpp,%,$(firstword $(wildcard /usr/include/CLI/CLI.hpp .devcarry/cli11/usr/include/CLI/CLI.hpp)))
# libmd (SHA-256 of submissions, grader/src/batch/content_hash.cpp), linked statically: Debian's
# libmd-dev, or .devcarry/libmd (that package unpacked with `dpkg -x`).
MD_INC := $(patsubst %/sha2.h,%,$(firstword $(wildcard /usr/include/sha2.h .devcarry/libmd/usr/include/sha2.h)))
MD_LIB := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libmd.a /usr/lib/aarch64-linux-gnu/libmd.a \
            .devcarry/libmd/usr/lib/x86_64-linux-gnu/libmd.a) -lmd)
# fmt (the numbers in the sentences of grader/src/words/), used header-only: Debian's libfmt-dev,
# or .devcarry/fmt (that package unpacked with `dpkg -x`).
FMT_INC := $(patsubst %/fmt/format.h,%,$(firstword $(wildcard /usr/include/fmt/format.h .devcarry/fmt/usr/include/fmt/format.h)))
CXXFLAGS += -DFMT_HEADER_ONLY
# Headers found outside /usr/include (the .devcarry copies) come in as system headers.
CXXFLAGS += $(addprefix -isystem ,$(sort $(filter-out /usr/include,$(SECCOMP_INC) $(CLI11_INC) $(MD_INC) $(FMT_INC))))
# CUPTI's PM sampling (CUDA 12.6+) counts the structure check's loads; without it, ncu does.
CUPTI_LIB := $(if $(wildcard $(CUDA_INC)/cupti_pmsampling.h),$(if $(wildcard $(CUDA_LIB)/libcupti.so),-lcupti))
# cuBLAS is not linked: the GPU oracle loads it through the run path when it starts
# (grader/src/backends/gpu/cublas_calls.h), so no other grade process pays its load.
LDLIBS := -lyaml-cpp -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) $(CUPTI_LIB) -lcudart_static $(SECCOMP_LIB) $(MD_LIB) -ldl -lrt -pthread

# Grader library: every .cpp under grader/src except the CLI's main. The
# CUDA-on-CPU layer (grader/cudacpu) is a library of its own (libcudacpu.a, below).
CPU_RT := grader/cudacpu
LIB_SRCS := $(filter-out grader/src/cli/main.cpp,$(shell find grader/src -name '*.cpp' | sort))
LIB_OBJS := $(LIB_SRCS:%.cpp=$(BUILD)/obj/%.o)
TEST_SRCS := $(wildcard grader/tests/*_test.cpp $(CPU_RT)/tests/*_test.cpp) grader/tests/test_main.cpp
TEST_OBJS := $(TEST_SRCS:%.cpp=$(BUILD)/obj/%.o)

# The CUDA-on-CPU layer the cpu backend compiles submissions against.
CPU_RT_SRCS := $(wildcard $(CPU_RT)/lib/*.cpp)
CPU_RT_OBJS := $(CPU_RT_SRCS:%.cpp=$(BUILD)/obj/%.o)
CPU_RT_FLAGS := -std=c++17 -O2 $(WARN) -Igrader/src -I$(CPU_RT)/include -MMD -MP

# The student's runner holds no reference code (it times nothing the judge
# trusts); the baseline runner is the same program built from the reference
# kernels alone, never linked with student code.
RUNNER_OBJS := $(BUILD)/runner/runner_main.o $(BUILD)/runner/runner_selftest.o $(BUILD)/runner/protocol.o
BASELINE_RUNNER := $(BUILD)/runner/baseline_runner
GPU_RUNNER := $(RUNNER_OBJS) $(BASELINE_RUNNER)
CPU_OBJS := $(BUILD)/cpu/libcudacpu.a $(BUILD)/cpu/cpu_runner.o

SUBMISSION ?=
NPROC := $(shell nproc 2>/dev/null || echo 2)
OUT ?= results
SUITE ?=
BACKEND ?= auto
SEED ?=

# What students get from student/ (one path a line in grader/handout/files.txt,
# which the handout tests read too); grader/handout/pack.sh adds cudacpu/ (the
# CUDA-on-CPU layer, for `make cpu`) and check/ (the CPU grader and the public
# suite, for `make check`).
# (Read only where it exists: the Gradescope zip ships no grader/handout/, and
# its build log then stays clean.)
HANDOUT_FILES := $(if $(wildcard grader/handout/files.txt),$(shell cat grader/handout/files.txt))

.PHONY: all deps test grade grade-deps handout ci clean student cpu-grader

all: deps $(BUILD)/grade $(if $(NO_CUDA),,$(GPU_RUNNER)) $(CPU_OBJS) $(BUILD)/grader_tests student

# Installs yaml-cpp, nlohmann-json and GoogleTest when missing (as root), or
# prints the exact command to run.
deps:
	@bash grader/tools/install-deps.sh

$(BUILD)/obj/%.o: %.cpp | deps
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -DSG_SOURCE_ROOT='"$(CURDIR)"' -DSG_BUILD_DIR='"$(CURDIR)/$(BUILD)"' -c $< -o $@

$(BUILD)/libsg.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/grade: $(BUILD)/obj/grader/src/cli/main.o $(BUILD)/libsg.a
	$(CXX) -o $@ $^ $(LDLIBS)

$(BUILD)/grader_tests: $(TEST_OBJS) $(BUILD)/libsg.a
	$(CXX) -o $@ $^ -lgtest $(LDLIBS)

# Runner pieces, linked with each submission's object at grading time.
RUNNER_DEPS := grader/src/backends/gpu/runner_main.cu grader/src/proto/protocol.h grader/src/proto/seeded_inputs.h \
               grader/src/backends/gpu/device_pool.h grader/src/backends/gpu/runner_cuda.h grader/src/backends/gpu/sm_partition.h \
               grader/src/backends/gpu/runner_selftest.h
# Beside it, `arch`: the one architecture it was built for ("sm_90"; empty when
# built for several). A single grading compiles the submission for it while
# CUDA starts, instead of asking CUDA first (backends/registry.cpp).
RUNNER_ARCH := $(if $(GPU_CC),sm_$(GPU_CC))
$(BUILD)/runner/runner_main.o: $(RUNNER_DEPS)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
	@echo '$(RUNNER_ARCH)' > $(BUILD)/runner/arch
$(BUILD)/runner/runner_selftest.o: grader/src/backends/gpu/runner_selftest.cu grader/src/backends/gpu/runner_selftest.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
# The baseline runner: the runner with the tiled reference as its basicSgemm and the naive kernel.
$(BUILD)/runner/baseline_main.o: $(RUNNER_DEPS)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -DSG_BASELINE_RUNNER -c $< -o $@
$(BUILD)/runner/ref_basic.o: reference/kernel.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
$(BASELINE_RUNNER): $(BUILD)/runner/baseline_main.o $(BUILD)/runner/runner_selftest.o $(BUILD)/runner/ref_basic.o \
                    $(BUILD)/runner/ref_naive.o $(BUILD)/runner/protocol.o
	$(NVCC) $(NVCCFLAGS) -o $@ $^ -cudart static
$(BUILD)/runner/ref_naive.o: reference/naive.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Dmysgemm=ref_naive_kernel -DbasicSgemm=ref_naive_sgemm -c $< -o $@
$(BUILD)/runner/protocol.o: $(BUILD)/obj/grader/src/proto/protocol.o
	@mkdir -p $(dir $@)
	cp $< $@

$(BUILD)/obj/$(CPU_RT)/lib/%.o: $(CPU_RT)/lib/%.cpp | deps
	@mkdir -p $(dir $@)
	$(CXX) $(CPU_RT_FLAGS) -c $< -o $@
$(BUILD)/cpu/libcudacpu.a: $(CPU_RT_OBJS) $(BUILD)/obj/grader/src/proto/protocol.o
	@mkdir -p $(dir $@)
	@rm -f $@
	ar rcs $@ $^
# Its dependency file is named for its source (grader/cudacpu/runner_main.cpp):
# a build folder from before the layer moved keeps a cpu_runner.d naming the old path.
$(BUILD)/cpu/cpu_runner.o: $(CPU_RT)/runner_main.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CPU_RT_FLAGS) -MF $(BUILD)/cpu/cudacpu_runner_main.d -c $< -o $@

# student/ holds no copy of the CUDA-on-CPU layer: its CPU build (no GPU here)
# takes the one staged from grader/cudacpu.
student:
	@bash grader/handout/stage_cudacpu.sh $(BUILD)/student-cudacpu
	$(MAKE) -C student NVCC=$(NVCC) CUDACPU=$(CURDIR)/$(BUILD)/student-cudacpu

# What grading on the CPU backend needs (student/'s `make check` in this repository).
cpu-grader: $(BUILD)/grade $(CPU_OBJS)

test: all
	@bash grader/tools/install-deps.sh --test-extras
	@grader/tools/run-tests.sh $(BUILD)/grader_tests

# What grading needs, built in parallel (all cores unless -j was given).
grade-deps: $(BUILD)/grade $(if $(NO_CUDA),,$(GPU_RUNNER)) $(CPU_OBJS)

# Without SUBMISSION: a built-in class graded as one batch into $(OUT)/demo
# (grader/tools/demo_class.sh), to show what the kit does.
GRADE_BACKEND = $(if $(NO_CUDA),$(BACKEND:auto=cpu),$(BACKEND))
grade:
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)) $(findstring j,$(firstword -$(MAKEFLAGS))),,-j$(NPROC)) grade-deps
ifeq ($(strip $(SUBMISSION)),)
	@bash grader/tools/demo_class.sh --grade $(BUILD)/grade --out $(OUT)/demo --backend $(GRADE_BACKEND) $(if $(SUITE),--suite $(SUITE)) $(if $(SEED),--seed $(SEED))
else
	$(BUILD)/grade --out $(OUT) --backend $(GRADE_BACKEND) $(if $(SUITE),--suite $(SUITE)) $(if $(SEED),--seed $(SEED)) $(SUBMISSION)
endif

handout:
	@rm -rf $(BUILD)/handout && mkdir -p $(BUILD)/handout dist
	bash grader/handout/pack.sh $(BUILD)/handout $(HANDOUT_FILES)
	tar -C $(BUILD)/handout -czf dist/sgemm-handout.tar.gz sgemm
	@echo "dist/sgemm-handout.tar.gz:" && tar -tzf dist/sgemm-handout.tar.gz

clean:
	rm -rf $(BUILD) dist results
	$(MAKE) -C student clean

-include $(LIB_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(BUILD)/obj/grader/src/cli/main.d $(CPU_RT_OBJS:.o=.d) $(BUILD)/cpu/cudacpu_runner_main.d

# ---- gradescope and course CI (see grader/gradescope/, grader/ci/) ----
# NO_CUDA=1 builds a grader that needs no CUDA toolkit (Gradescope, GitHub-hosted
# CI): sources compiled with -DSG_NO_CUDA, `grade` linked without cuBLAS/cudart,
# grading with the cpu backend. Only these variables change; every rule above
# reads them when its recipe runs, so the same rules serve both builds.
#   make grade-cpu-only     build/grade and the cpu backend, CUDA-free
#   make gradescope         dist/gradescope-autograder.zip (grader/gradescope/README.md)
#   make ci [NO_CUDA=1]     grader/ci/course_ci.sh: the kit's own sanity checks
SG_FLAVOUR := $(if $(NO_CUDA),no-cuda,cuda)
ifneq ($(NO_CUDA),)
  CXXFLAGS := $(filter-out -I$(CUDA_INC),$(CXXFLAGS)) -DSG_NO_CUDA
  LDLIBS := -lyaml-cpp $(SECCOMP_LIB) $(MD_LIB) -ldl -lrt -pthread
  CUPTI_LIB :=
endif
$(BUILD)/obj/grader/src/backends/gpu/pm_loads.o: CXXFLAGS += $(if $(CUPTI_LIB),-DSG_PM_SAMPLING_LINKED)

# Remembers which flavour the objects were built for; rewritten only when it
# changes, so switching NO_CUDA on or off rebuilds just the objects whose
# source mentions SG_NO_CUDA (gpu_oracle.o at least), and so relinks grade.
$(BUILD)/cuda-flavour: sg-flavour-check
	@mkdir -p $(dir $@)
	@if [ "$$(cat $@ 2>/dev/null)" != "$(SG_FLAVOUR)" ]; then echo "$(SG_FLAVOUR)" > $@; fi
SG_FLAVOUR_SRCS := $(shell grep -l SG_NO_CUDA $(LIB_SRCS) $(TEST_SRCS) grader/src/cli/main.cpp 2>/dev/null)
$(SG_FLAVOUR_SRCS:%.cpp=$(BUILD)/obj/%.o): $(BUILD)/cuda-flavour

grade-cpu-only:
	$(MAKE) NO_CUDA=1 $(BUILD)/grade $(CPU_OBJS)

gradescope:
	bash grader/gradescope/make_zip.sh dist/gradescope-autograder.zip

# The GPU backend's runner pieces are needed only where a GPU will be used.
ci: $(BUILD)/grade $(CPU_OBJS) $(if $(NO_CUDA),,$(if $(GPU_CC),$(GPU_RUNNER)))
	bash grader/ci/course_ci.sh

.PHONY: grade-cpu-only gradescope sg-flavour-check
