# libsafecoll - the one Makefile (plain GNU make).
#
#   make                  the libraries: lib/libsafecoll.a, lib/libsafecoll.so*,
#                         and the command-line tool bin/safecoll; with an MPI
#                         Fortran wrapper (MPIFORT), lib/libsafecoll_f08.*
#                         and mod/safecoll_f08.mod
#   make check            deps, all, unit + MPI tests, examples, symbol check,
#                         C++ header test, runtime/toolkit header test, CLI
#                         test, install tests (pkg-config, CMake), man pages,
#                         default MPI wrapper names, doc; ends
#                         with "N passed, N failed, N skipped"
#   make check-big        the >INT_MAX tests in tests/big/ (slow, needs memory)
#   make check-fortran    the mpi_f08 binding (module safecoll_f08, built by
#                         `make` when an MPI Fortran wrapper is found) under
#                         mpiexec; part of `make check`
#   make sanitize         everything again in build-san/ with ASan + UBSan, and
#                         the unit and MPI tests run from there
#   make check-openmpi    deps-openmpi, then the checks of `make check` but the
#                         doc against Open MPI, built in build-ompi/ (the
#                         cases of the tool's own logic, run by `make
#                         check`, skipped: SAFECOLL_CHECK_SECOND_MPI=1)
#   make fuzz             the bound-file parser under libFuzzer for 60 s (clang)
#   make man              man/safecoll.1 (from the tool's --help),
#                         man/libsafecoll.3 and man/man3/safecoll_*.3 (one
#                         per function, from the Doxygen comments; needs
#                         doxygen and python3) (also part of `make`)
#   make bench | doc | demo | demo-native | install | uninstall | clean | deps |
#        deps-openmpi | print-mpi
#
# Quiet unless V=1.  The MPI wrappers are always named through variables
# (MPICC, MPICXX, MPIEXEC), defaulting to Debian's MPICH names, so that a
# second MPI on the machine never gets picked by accident; where those names
# are not on PATH but the plain ones are (an MPI from environment modules or
# Spack), the plain ones.  Nothing runs an MPI wrapper or pkg-config while
# this file is parsed: `make deps` may be what installs them.

# ---------------------------------------------------------------- toolchain
# $(call on_path,NAME): NAME's first path on PATH, or nothing (a lookup, no
# program runs).  $(call mpi_name,DEBIAN,PLAIN): DEBIAN when on PATH, else
# PLAIN when on PATH, else DEBIAN (what `make deps` installs).  A value
# given on the command line or in the environment wins; the default is
# worked out once (:=), not at every compile.
on_path  = $(firstword $(wildcard $(addsuffix /$(1),$(subst :, ,$(PATH)))))
mpi_name = $(if $(call on_path,$(1)),$(1),$(if $(call on_path,$(2)),$(2),$(1)))
ifeq ($(origin MPICC),undefined)
MPICC         := $(call mpi_name,mpicc.mpich,mpicc)
endif
ifeq ($(origin MPICXX),undefined)
MPICXX        := $(call mpi_name,mpicxx.mpich,mpicxx)
endif
ifeq ($(origin MPIEXEC),undefined)
MPIEXEC       := $(call mpi_name,mpiexec.mpich,mpiexec)
endif
# The Fortran wrapper of the same MPI as MPICC (mpicc.openmpi gives
# mpifort.openmpi), else the Debian/plain choice.  The mpi_f08 binding
# (src/fortran/) is built only when it is found: FORTRAN_OK is its path.
ifeq ($(origin MPIFORT),undefined)
MPIFORT       := $(if $(filter mpicc%,$(notdir $(MPICC))),$(patsubst mpicc%,mpifort%,$(MPICC)),$(call mpi_name,mpifort.mpich,mpifort))
endif
FORTRAN_OK    := $(if $(findstring /,$(MPIFORT)),$(wildcard $(MPIFORT)),$(call on_path,$(MPIFORT)))
AR            ?= ar
PKG_CONFIG    ?= pkg-config
DOXYGEN       ?= doxygen
CMAKE         ?= cmake
INSTALL       ?= install
export MPIEXEC
# MPIEXEC_FLAGS is exported only when given (command line or environment):
# unset, the test scripts pick what the MPI of $(MPIEXEC) needs, e.g.
# --oversubscribe for Open MPI (tests/mpi-flags.sh).
ifneq ($(origin MPIEXEC_FLAGS),undefined)
export MPIEXEC_FLAGS
endif

# ---------------------------------------------------------------- version
# Read from the header, as lz4 does: the header is the one place it lives.
version_of = $(shell sed -n 's/^\#define[[:space:]]*SAFECOLL_VERSION_$(1)[[:space:]]*\([0-9][0-9]*\).*/\1/p' include/safecoll.h)
VERSION_MAJOR := $(call version_of,MAJOR)
VERSION_MINOR := $(call version_of,MINOR)
VERSION_PATCH := $(call version_of,PATCH)
VERSION       := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
ifeq ($(strip $(VERSION_MAJOR)),)
$(error cannot read SAFECOLL_VERSION_MAJOR from include/safecoll.h)
endif

# ---------------------------------------------------------------- install dirs
DESTDIR     ?=
PREFIX      ?= /usr/local
prefix      ?= $(PREFIX)
exec_prefix ?= $(prefix)
bindir      ?= $(exec_prefix)/bin
libdir      ?= $(exec_prefix)/lib
includedir  ?= $(prefix)/include
# safecoll_f08.mod, where `mpifort -I` finds it.
fmoddir     ?= $(includedir)
pkgconfigdir ?= $(libdir)/pkgconfig
# The CMake package goes to $(cmakedir)/safecoll, where find_package looks.
cmakedir    ?= $(libdir)/cmake
datadir     ?= $(prefix)/share
mandir      ?= $(datadir)/man
man1dir     ?= $(mandir)/man1
man3dir     ?= $(mandir)/man3
docdir      ?= $(datadir)/doc/safecoll
# lz4's upper-case spellings are accepted too.
BINDIR      ?= $(bindir)
LIBDIR      ?= $(libdir)
INCLUDEDIR  ?= $(includedir)
PKGCONFIGDIR ?= $(pkgconfigdir)

# ---------------------------------------------------------------- build tree
# BUILDDIR is where every output goes; empty means the source tree itself
# (obj/, lib/, tests/bin/, examples/bin/, bench/bin/).  `make sanitize`
# re-enters this file with BUILDDIR=build-san SANITIZE=1, so the sanitizer
# build uses exactly the same rules.
BUILDDIR ?=
B        := $(if $(strip $(BUILDDIR)),$(patsubst %/,%,$(BUILDDIR))/)
SANDIR   ?= build-san

# ---------------------------------------------------------------- flags
CFLAGS   ?= $(if $(filter 1 thread,$(SANITIZE)),-O1,-O2) -g
CXXFLAGS ?= -O2 -g
FFLAGS   ?= -O2 -g
CPPFLAGS ?=
LDFLAGS  ?=

, := ,
# Kept apart from CFLAGS so that a CFLAGS given on the command line does not
# drop them.
# SANITIZE=thread: ThreadSanitizer instead (make sanitize-thread).
SAN_FLAGS := $(if $(filter 1,$(SANITIZE)),-fsanitize=address$(,)undefined -fno-omit-frame-pointer) \
             $(if $(filter thread,$(SANITIZE)),-fsanitize=thread -fno-omit-frame-pointer)

WARN_CFLAGS := -Wall -Wextra -Werror
# Module headers are included by bare name across modules ("avoid.h" from
# src/coll/), so every module folder is on the include path, after the
# source's own folder and core; "module/header.h" works too (-Isrc).
MODULE_INCS := $(patsubst %/,-I%,$(sort $(dir $(wildcard src/*/*.h))))
SRCDIR_OF = $(patsubst %/,%,$(dir $<))
LIB_CFLAGS   = -std=c11 $(CFLAGS) $(SAN_FLAGS) $(WARN_CFLAGS) -fPIC -fvisibility=hidden \
               -DSAFECOLL_BUILDING $(ISAL_DEF) -Iinclude -Isrc/core $(filter-out -Isrc/core,-I$(SRCDIR_OF)) \
               $(filter-out -Isrc/core -I$(SRCDIR_OF),$(MODULE_INCS)) -Isrc $(CPPFLAGS)
# Tests may include internal headers (src/core/core.h, "module/header.h");
# they are built like user code: no SAFECOLL_BUILDING.
TEST_CFLAGS  = -std=c11 $(CFLAGS) $(SAN_FLAGS) $(WARN_CFLAGS) -Iinclude -Isrc/core \
               $(filter-out -Isrc/core,$(MODULE_INCS)) -Isrc $(CPPFLAGS)
EX_CFLAGS    = -std=c11 $(CFLAGS) $(SAN_FLAGS) $(WARN_CFLAGS) -Iinclude $(CPPFLAGS)
# Fortran: mpi_f08 with the `_c` kinds passes MPI_COUNT_KIND arrays to C,
# which gfortran cannot prove interoperable (Open MPI's kinds are plain 8),
# hence -Wno-c-binding-type; the C half checks the sizes.
WARN_FFLAGS := -Wall -Wextra -Werror -Wno-c-binding-type
F08_FFLAGS   = -std=f2018 $(FFLAGS) $(SAN_FLAGS) $(WARN_FFLAGS)

# A shared library with ASan cannot be linked with -z defs (the runtime
# comes with the executable), so the check for undefined symbols is only
# made in the normal build.
SO_LDFLAGS  := -shared -Wl,-soname,libsafecoll.so.$(VERSION_MAJOR) \
               $(if $(filter 1 thread,$(SANITIZE)),,-Wl,-z,defs)
# ISA-L's CRC-32 (libisal-dev, in `make deps`) where its header is
# installed when make starts: the same CRC as zlib's crc32, several times
# faster on the replay log's payloads (src/replay/log.c); zlib's otherwise.
# Decided here, once, so the define and the link always go together.
HAVE_ISAL := $(shell printf '\043include <isa-l/crc.h>\n' | $(firstword $(CC) cc) -E -x c - \
                 >/dev/null 2>&1 && echo 1)
ISAL_LIB  := $(if $(HAVE_ISAL),-lisal)
ISAL_DEF  := $(if $(HAVE_ISAL),-DSC_HAVE_ISAL=1)
# zlib, ISA-L and libm are linked only when a source uses them
# (--as-needed); pthread always.
SO_LIBS     := -lpthread -Wl,--as-needed $(ISAL_LIB) -lz -lm -Wl,--no-as-needed
LIBS_PRIVATE := $(strip -lpthread $(ISAL_LIB) $(if $(shell grep -ls '<zlib\.h>' src/*/*.c),-lz) \
                $(if $(shell grep -ls '<math\.h>' src/*/*.c),-lm))
TEST_LIBS   := -lpthread $(ISAL_LIB) -lz -lm
# Evaluated when a recipe runs, never at parse time (see `deps`).
CHECK_FLAGS  = `$(PKG_CONFIG) --cflags --libs check`
RPATH        = -Wl,-rpath,$(abspath $(B)lib)

# ---------------------------------------------------------------- quiet output
ifeq ($(V),1)
Q :=
say :=
SILENT :=
else
Q := @
say = @printf '  %-6s %s\n' '$(1)' '$(2)';
SILENT := -s
endif
MAKEFLAGS += --no-print-directory

# ---------------------------------------------------------------- files
# src/fortran/ is the mpi_f08 binding, a library of its own (F08_*).
LIB_SRCS  := $(sort $(filter-out src/fortran/%,$(wildcard src/*/*.c)))
LIB_OBJS  := $(patsubst src/%.c,$(B)obj/%.o,$(LIB_SRCS)) $(B)obj/bounds/known_bounds.o
LIB_A     := $(B)lib/libsafecoll.a
LIB_SO_V  := $(B)lib/libsafecoll.so.$(VERSION)
LIB_SO_M  := $(B)lib/libsafecoll.so.$(VERSION_MAJOR)
LIB_SO    := $(B)lib/libsafecoll.so
LIBS_ALL  := $(LIB_A) $(LIB_SO_V) $(LIB_SO_M) $(LIB_SO)

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)tests/bin/unit/%,$(UNIT_SRCS))
MPI_SRCS  := $(sort $(wildcard tests/mpi/test_*.c))
MPI_BINS  := $(patsubst tests/mpi/%.c,$(B)tests/bin/mpi/%,$(MPI_SRCS))
# Programs that only a script runs, each scenario in its own job with the
# script's environment (test_traced: check-traced.sh, SAFECOLL_TRACE):
# built with the tests, left out of check-mpi's loop.
MPI_SCRIPTED := $(B)tests/bin/mpi/test_traced
BIG_SRCS  := $(sort $(wildcard tests/big/*.c))
BIG_BINS  := $(patsubst tests/big/%.c,$(B)tests/bin/big/%,$(BIG_SRCS))
EX_SRCS   := $(sort $(wildcard examples/*.c))
EX_BINS   := $(patsubst examples/%.c,$(B)examples/bin/%,$(EX_SRCS))
BENCH_SRCS := $(sort $(wildcard bench/*.c))
BENCH_BINS := $(patsubst bench/%.c,$(B)bench/bin/%,$(BENCH_SRCS))
CXX_BIN   := $(B)tests/bin/cxx/test_header
# The mpi_f08 binding: libsafecoll_f08 (the module's object and its C
# half, src/fortran/shim.c) and the module file, in $(B)mod/.
F08_SHIM_O := $(B)obj/fortran/shim.o
F08_MOD_O  := $(B)obj/fortran/safecoll_f08.o
F08_OBJS   := $(F08_MOD_O) $(F08_SHIM_O)
F08_MOD    := $(B)mod/safecoll_f08.mod
F08_A      := $(B)lib/libsafecoll_f08.a
F08_SO_V   := $(B)lib/libsafecoll_f08.so.$(VERSION)
F08_SO_M   := $(B)lib/libsafecoll_f08.so.$(VERSION_MAJOR)
F08_SO     := $(B)lib/libsafecoll_f08.so
F08_LIBS   := $(F08_A) $(F08_SO_V) $(F08_SO_M) $(F08_SO)
F08_TEST_BINS := $(patsubst tests/fortran/%.f90,$(B)tests/bin/fortran/%,$(sort $(wildcard tests/fortran/test_*.f90)))
F08_BIG_BIN   := $(B)tests/bin/big/f08_gatherv
HEADERS   := include/safecoll.h $(sort $(wildcard include/safecoll/*.h))
# bin/safecoll is made of every tools/*.c (one main, in tools/safecoll.c).
TOOL_SRCS := $(sort $(wildcard tools/*.c))
TOOL_OBJS := $(patsubst tools/%.c,$(B)obj/tools/%.o,$(TOOL_SRCS))
TOOL_BIN  := $(B)bin/safecoll
PC_FILE   := $(B)pkgconfig/safecoll.pc
# The Fortran binding's, installed beside it when the binding is built.
PC_F08_FILE := $(B)pkgconfig/safecoll_f08.pc
CMAKE_CONFIG  := $(B)cmake/safecollConfig.cmake
CMAKE_VERSION_FILE := $(B)cmake/safecollConfigVersion.cmake
# safecoll(1) is made from the built tool's --help texts (tools/man.sh),
# libsafecoll(3) from doc/man/libsafecoll.3.in; both name $(docdir).
MAN1      := $(B)man/safecoll.1
MAN3      := $(B)man/libsafecoll.3
MAN_PAGES := $(MAN1) $(MAN3)
# One page per public function, $(B)man/man3/safecoll_*.3, from the Doxygen
# comments of the public headers (Doxygen's XML through tools/man3.py);
# made where doxygen and python3 are found, else left out with a message.
PYTHON    ?= python3
MAN3_OK   := $(and $(call on_path,$(DOXYGEN)),$(call on_path,$(PYTHON)))
MAN3_DIR  := $(B)man/man3
MAN3_STAMP := $(MAN3_DIR)/.stamp
# What `make install` puts in $(docdir): the README, the documents of doc/
# but the Doxygen main page, and the examples in $(docdir)/examples.
DOC_FILES    := README.md CHANGELOG LICENSE $(filter-out doc/mainpage.md,$(sort $(wildcard doc/*.md)))
EX_DOC_FILES := $(EX_SRCS) $(sort $(wildcard examples/README*))

# Results of `make check`: one line "passed failed skipped label" per step.
SUMMARY   ?= $(CURDIR)/$(B)tests/bin/summary.txt
export SAFECOLL_SUMMARY := $(SUMMARY)
# Why the steps failed: "LABEL<tab>LINE" per failure line of a failed
# step's output (its "FAIL" lines), which SUMMARIZE prints under the
# step's "failed: LABEL" line, so that the last lines of a CI log say why.
# The output of each step is kept in $(STEP_LOGS).
DIGEST    := $(patsubst %.txt,%,$(SUMMARY))-digest.txt
STEP_LOGS := $(dir $(SUMMARY))steps
export SAFECOLL_DIGEST := $(DIGEST)
SAFECOLL_TEST_TIMEOUT ?= 300
export SAFECOLL_TEST_TIMEOUT

# Debian packages `make deps` provides.  MPICH's only when a wrapper is
# one of its Debian names: an MPI found as plain mpicc/mpiexec on PATH
# (modules, Spack) is the user's, and apt-get must not add a second one.
# groff-base renders the man pages (check-man); gnuplot-nox draws the plots
# of `safecoll scale --plot` (check-scale).
MPI_DEPS_PKGS := $(if $(filter %.mpich,$(MPICC) $(MPICXX) $(MPIEXEC)),mpich libmpich-dev)
DEPS_PKGS := make gcc g++ $(MPI_DEPS_PKGS) check pkg-config doxygen zlib1g-dev libisal-dev cmake groff-base gnuplot-nox
GROFF     ?= groff
# The second MPI, for `make check-openmpi` (`make deps-openmpi`).  Installing
# it makes Debian's plain mpicc/mpiexec point to Open MPI; nothing here uses
# the plain names.
OMPI_DEPS_PKGS := openmpi-bin libopenmpi-dev
OMPI_BUILDDIR  ?= build-ompi
# Every run of the Open MPI pass takes about a second; a hang should cost a
# minute, not the 300 s default.
OMPI_TEST_TIMEOUT ?= 60
# SAFECOLL_CHECK_SECOND_MPI=1: the scripts skip, with the reason, the cases
# of the tool's own logic that the MPICH pass has run (tests/lib.sh,
# lib_mpi_independent) and keep those that exercise the MPI.
OMPI_MAKEVARS = BUILDDIR=$(OMPI_BUILDDIR) MPICC=mpicc.openmpi MPICXX=mpicxx.openmpi \
                MPIFORT=mpifort.openmpi \
                MPIEXEC=mpiexec.openmpi SAFECOLL_TEST_TIMEOUT=$(OMPI_TEST_TIMEOUT) \
                SAFECOLL_CHECK_SECOND_MPI=1 SAFECOLL_NO_DEPS=1

.DEFAULT_GOAL := all
.PHONY: all lib bin fortran check-fortran tests examples bench-build deps deps-openmpi check-openmpi help \
        check check-run check-build check-unit check-mpi check-examples check-cli check-search check-bisect check-hang check-replay check-switch check-dlopen check-p2ponly check-fatal \
        check-guideline check-scale check-trace check-traced fuzz \
        check-symbols check-traffic check-cxx check-headers check-install check-cmake check-doc check-big \
        check-big-run check-man check-mpi-names print-mpi man man3 \
        sanitize sanitize-run sanitize-thread bench demo demo-native doc install uninstall clean

# ---------------------------------------------------------------- library
all: lib bin man fortran
lib: $(LIBS_ALL)
bin: $(TOOL_BIN)
man: $(MAN_PAGES) man3

$(B)obj/%.o: src/%.c
	$(call say,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(MPICC) $(LIB_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB_A): $(LIB_OBJS)
	$(call say,AR,$@)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIB_SO_V): $(LIB_OBJS)
	$(call say,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(MPICC) $(SO_LDFLAGS) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(SO_LIBS)

$(LIB_SO_M): $(LIB_SO_V)
	$(Q)ln -sf $(notdir $<) $@

$(LIB_SO): $(LIB_SO_M)
	$(Q)ln -sf $(notdir $<) $@

-include $(LIB_OBJS:.o=.d)

# The shipped known bounds (data/known-bounds) are compiled into the
# library, so that its protection depends on no install step and no path:
# the file's bytes become a C array in a generated source (od is POSIX and
# copies every byte as it is, so the parser sees exactly the file), made
# again whenever the file changes.  The array ends with a NUL that the
# length leaves out, so that an empty file still gives a valid initializer.
KNOWN_BOUNDS   := data/known-bounds
KNOWN_BOUNDS_C := $(B)obj/bounds/known_bounds.c
KNOWN_BOUNDS_O := $(B)obj/bounds/known_bounds.o
$(KNOWN_BOUNDS_C): $(KNOWN_BOUNDS)
	$(call say,GEN,$@)
	@mkdir -p $(@D)
	$(Q){ printf '/* Generated by the Makefile from %s: do not edit. */\n' '$<'; \
	  printf '#include "bounds.h"\n\nconst char sc__known_bounds[] = {\n'; \
	  od -A n -t x1 -v $< | sed -e 's/[[:space:]]*\([0-9a-f][0-9a-f]\)/ 0x\1,/g' -e 's/^/   /'; \
	  printf '    0x00\n};\nconst size_t sc__known_bounds_len = sizeof sc__known_bounds - 1;\n'; \
	} > $@.tmp && mv $@.tmp $@
$(KNOWN_BOUNDS_O): $(KNOWN_BOUNDS_C)
	$(call say,CC,$<)
	$(Q)$(MPICC) $(LIB_CFLAGS) -MMD -MP -c -o $@ $<

# Every object depends on a stamp naming the MPI wrappers (Fortran too), so that
# building the same tree with another MPI (MPICC=mpicc.openmpi) compiles
# everything again instead of linking objects made for two MPIs; the
# programs follow through the libraries they link.
MPI_STAMP := $(B)obj/mpi.stamp
$(LIB_OBJS) $(TOOL_OBJS): $(MPI_STAMP)
$(MPI_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(MPICC) $(MPICXX) $(MPIFORT) $(ISAL_DEF)' | cmp -s - $@ || echo '$(MPICC) $(MPICXX) $(MPIFORT) $(ISAL_DEF)' > $@
.PHONY: FORCE
FORCE:

# ---------------------------------------------------------------- programs
# Programs are compiled and linked in one step; their header dependencies go
# to the object tree (obj/tests/unit/test_x.d), not next to the binaries.
PROG_DEPFLAGS = -MMD -MP -MF $(B)obj/$(<:.c=.d) -MT $@
# Unit tests: no MPI job, static library (internal functions are reachable).
$(B)tests/bin/unit/%: tests/unit/%.c $(LIB_A)
	$(call say,CCLD,$<)
	@mkdir -p $(@D) $(dir $(B)obj/$<)
	$(Q)$(MPICC) $(TEST_CFLAGS) $(PROG_DEPFLAGS) $(LDFLAGS) -o $@ $< \
	    $(LIB_A) $(CHECK_FLAGS) $(TEST_LIBS)

# MPI tests: shared library, like an application.  A test that needs
# internal (hidden) functions says `/* mpi-link: static */` and gets the
# static one.
$(B)tests/bin/mpi/% $(B)tests/bin/big/%: LINK_LIB = $(if $(shell \
	grep -lE '^[[:space:]]*/\*[[:space:]]*mpi-link:[[:space:]]*static' $<),\
	$(LIB_A),-L$(B)lib -lsafecoll $(RPATH))
$(B)tests/bin/mpi/%: tests/mpi/%.c $(LIB_A) $(LIB_SO)
	$(call say,CCLD,$<)
	@mkdir -p $(@D) $(dir $(B)obj/$<)
	$(Q)$(MPICC) $(TEST_CFLAGS) $(PROG_DEPFLAGS) $(LDFLAGS) -o $@ $< \
	    $(LINK_LIB) $(CHECK_FLAGS) $(TEST_LIBS)

$(B)tests/bin/big/%: tests/big/%.c $(LIB_A) $(LIB_SO)
	$(call say,CCLD,$<)
	@mkdir -p $(@D) $(dir $(B)obj/$<)
	$(Q)$(MPICC) $(TEST_CFLAGS) $(PROG_DEPFLAGS) $(LDFLAGS) -o $@ $< \
	    $(LINK_LIB) $(CHECK_FLAGS) $(TEST_LIBS)

# Examples and benchmarks use only the public API, through the shared library.
$(B)examples/bin/%: examples/%.c $(LIB_SO)
	$(call say,CCLD,$<)
	@mkdir -p $(@D) $(dir $(B)obj/$<)
	$(Q)$(MPICC) $(EX_CFLAGS) $(PROG_DEPFLAGS) $(LDFLAGS) -o $@ $< \
	    -L$(B)lib -lsafecoll $(RPATH) -lm

# A benchmark that needs internal (hidden) functions says
# `/* bench-link: static */` and is built like a test, against the static
# library (bench_hang replays the hang detector, src/hang/detect.h).
$(B)bench/bin/%: BENCH_STATIC = $(shell \
	grep -lE '^[[:space:]]*/\*[[:space:]]*bench-link:[[:space:]]*static' $<)
$(B)bench/bin/%: bench/%.c $(LIB_A) $(LIB_SO)
	$(call say,CCLD,$<)
	@mkdir -p $(@D) $(dir $(B)obj/$<)
	$(Q)$(MPICC) $(if $(BENCH_STATIC),$(TEST_CFLAGS),$(EX_CFLAGS)) $(PROG_DEPFLAGS) $(LDFLAGS) \
	    -o $@ $< $(if $(BENCH_STATIC),$(LIB_A) $(TEST_LIBS),-L$(B)lib -lsafecoll $(RPATH) -lm)

# The headers must compile as C++ (extern "C", no C-only syntax).
$(CXX_BIN): tests/cxx/test_header.cpp $(HEADERS) $(LIB_SO)
	$(call say,CXXLD,$<)
	@mkdir -p $(@D)
	$(Q)$(MPICXX) -std=c++11 $(CXXFLAGS) $(SAN_FLAGS) -Wall -Wextra -Werror -Iinclude \
	    $(LDFLAGS) -o $@ $< -L$(B)lib -lsafecoll $(RPATH)

-include $(wildcard $(B)obj/tests/*/*.d $(B)obj/examples/*.d $(B)obj/bench/*.d)

# The tool is built like user code (public headers only) and links the
# static library, so that an installed bin/safecoll needs no rpath.
# The tool is built like user code, but links the static library and may
# use its internal headers ("probe/probe.h": the job launcher of
# src/probe/launch.c, shared by `search` and `guideline`).
# Its help names the installed documents, in $(docdir): a stamp holding
# docdir makes them again when it changes (make install PREFIX=...).
TOOL_DOCDIR_STAMP := $(B)obj/tools/docdir.stamp
$(TOOL_DOCDIR_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(docdir)' | cmp -s - $@ || echo '$(docdir)' > $@
$(TOOL_OBJS): $(B)obj/tools/%.o: tools/%.c $(TOOL_DOCDIR_STAMP)
	$(call say,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(MPICC) $(EX_CFLAGS) -Isrc/core -Isrc -DSAFECOLL_DOCDIR='"$(docdir)"' -MMD -MP -c -o $@ $<

$(TOOL_BIN): $(TOOL_OBJS) $(LIB_A)
	$(call say,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(MPICC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $(TOOL_OBJS) $(LIB_A) $(LIBS_PRIVATE)

-include $(TOOL_OBJS:.o=.d)

# The man pages.  safecoll(1) runs the tool just built (its --help needs
# no MPI job), so the page says what that tool says.  SOURCE_DATE_EPOCH,
# when set, gives their date.
man_date = date -u -d "@$${SOURCE_DATE_EPOCH:-$$(date +%s)}" +%Y-%m-%d
$(MAN1): $(TOOL_BIN) tools/man.sh Makefile
	$(call say,GEN,$@)
	@mkdir -p $(@D)
	$(Q)tools/man.sh $(TOOL_BIN) $(VERSION) $(docdir) > $@.tmp && mv $@.tmp $@

$(MAN3): doc/man/libsafecoll.3.in include/safecoll.h Makefile
	$(call say,GEN,$@)
	@mkdir -p $(@D)
	$(Q)sed -e 's|@VERSION@|$(VERSION)|g' -e "s|@DATE@|$$($(man_date))|g" \
	    -e 's|@DOCDIR@|$(subst -,\\-,$(docdir))|g' $< > $@.tmp && mv $@.tmp $@

# Doxygen's XML in $(B)obj/doxy-man; its warnings are check-doc's business.
ifneq ($(MAN3_OK),)
man3: $(MAN3_STAMP)
$(MAN3_STAMP): $(HEADERS) doc/Doxyfile tools/man3.py Makefile
	$(call say,GEN,$(MAN3_DIR))
	$(Q)rm -rf $(MAN3_DIR) $(B)obj/doxy-man && mkdir -p $(MAN3_DIR) $(B)obj/doxy-man
	$(Q)(cat doc/Doxyfile; printf '%s\n' 'GENERATE_HTML = NO' 'GENERATE_XML = YES' \
	    'XML_PROGRAMLISTING = NO' 'SEARCHENGINE = NO' 'WARNINGS = NO' 'WARN_AS_ERROR = NO' \
	    'OUTPUT_DIRECTORY = $(B)obj/doxy-man' 'XML_OUTPUT = xml') | \
	    SAFECOLL_VERSION=$(VERSION) SAFECOLL_EXAMPLE_PATH=$(wildcard examples) $(DOXYGEN) - >/dev/null
	$(Q)$(PYTHON) tools/man3.py $(B)obj/doxy-man/xml $(MAN3_DIR) $(VERSION) "$$($(man_date))" >/dev/null
	@touch $@
else
man3:
	@echo "skipping the per-function man pages: $(DOXYGEN) or $(PYTHON) is not installed (Debian: doxygen python3)"
endif

tests: $(UNIT_BINS) $(MPI_BINS) $(CXX_BIN) $(if $(FORTRAN_OK),$(F08_TEST_BINS))

# ---------------------------------------------------------------- Fortran
# libsafecoll_f08 and safecoll_f08.mod, made with $(MPIFORT) when it is
# found; else a message, and nothing fails.  The module is compiler
# specific: a program must be compiled by the same Fortran compiler.
ifneq ($(FORTRAN_OK),)
fortran: $(F08_LIBS) $(F08_MOD)
else
fortran:
	@echo "skipping Fortran: no MPI Fortran wrapper $(MPIFORT) (set MPIFORT=...; Debian: libmpich-dev brings mpifort.mpich)"
endif

$(F08_SHIM_O): src/fortran/shim.c $(HEADERS) $(MPI_STAMP)
	$(call say,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(MPICC) $(EX_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

# The module's .o and .mod come from one compile; the .mod is its
# by-product, made again with the object.
$(F08_MOD_O): src/fortran/safecoll_f08.f90 src/fortran/coll_spec.inc src/fortran/coll_body.inc \
              $(MPI_STAMP)
	$(call say,FC,$<)
	@mkdir -p $(@D) $(B)mod
	$(Q)$(MPIFORT) $(F08_FFLAGS) -fPIC -Isrc/fortran -J$(B)mod -c -o $@ $<
$(F08_MOD): $(F08_MOD_O)

$(F08_A): $(F08_OBJS)
	$(call say,AR,$@)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# It needs libsafecoll.so, found next to it ($$ORIGIN) once installed.
$(F08_SO_V): $(F08_OBJS) $(LIB_SO)
	$(call say,LD,$@)
	$(Q)$(MPIFORT) -shared -Wl,-soname,libsafecoll_f08.so.$(VERSION_MAJOR) \
	    $(if $(filter 1 thread,$(SANITIZE)),,-Wl,-z,defs) $(SAN_FLAGS) $(LDFLAGS) \
	    -Wl,-rpath,'$$ORIGIN' -o $@ $(F08_OBJS) -L$(B)lib -lsafecoll

$(F08_SO_M): $(F08_SO_V)
	$(Q)ln -sf $(notdir $<) $@

$(F08_SO): $(F08_SO_M)
	$(Q)ln -sf $(notdir $<) $@

F08_LINK = -I$(B)mod -L$(B)lib -lsafecoll_f08 -lsafecoll $(RPATH)
$(B)tests/bin/fortran/%: tests/fortran/%.f90 $(F08_LIBS) $(F08_MOD) $(LIB_SO)
	$(call say,FCLD,$<)
	@mkdir -p $(@D)
	$(Q)$(MPIFORT) $(F08_FFLAGS) $(LDFLAGS) -o $@ $< $(F08_LINK)

$(F08_BIG_BIN): tests/big/f08_gatherv.f90 $(F08_LIBS) $(F08_MOD) $(LIB_SO)
	$(call say,FCLD,$<)
	@mkdir -p $(@D)
	$(Q)$(MPIFORT) $(F08_FFLAGS) $(LDFLAGS) -o $@ $< $(F08_LINK)
examples: $(EX_BINS)
bench-build: $(BENCH_BINS)

# ---------------------------------------------------------------- deps
# Installs what is missing on a Debian machine, and nothing when all is
# there.  SAFECOLL_NO_DEPS=1 skips the check entirely.
# $(call apt_install,PACKAGES) is the recipe of both deps targets.
define apt_install
	$(Q)if ! command -v dpkg >/dev/null 2>&1; then \
	    echo "$@: not a Debian system; install by hand: $(1)"; exit 0; fi; \
	missing=; \
	for p in $(1); do \
	    dpkg -s $$p 2>/dev/null | grep -q '^Status: install ok installed' || missing="$$missing $$p"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	echo "$@: missing Debian packages:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null 2>&1; then sudo=sudo; \
	else echo "$@: need root or sudo to install:$$missing" >&2; exit 1; fi; \
	echo "$@: installing them: $${sudo:+sudo }apt-get update; $${sudo:+sudo }apt-get install$$missing" \
	     "(SAFECOLL_NO_DEPS=1 skips this)"; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing
endef

deps:
ifneq ($(SAFECOLL_NO_DEPS),1)
ifeq ($(strip $(MPI_DEPS_PKGS)),)
	@echo "$@: the MPI is $(MPICC) and $(MPIEXEC) from PATH, not Debian's MPICH: not installing mpich"
endif
	$(call apt_install,$(DEPS_PKGS))
else
	@:
endif

deps-openmpi:
ifneq ($(SAFECOLL_NO_DEPS),1)
	$(call apt_install,$(OMPI_DEPS_PKGS))
else
	@:
endif

# ---------------------------------------------------------------- check
# `check` installs deps first, then re-enters make so that nothing of the
# build can run before the compilers exist (also under -j).  Every step
# runs even when an earlier one failed; the summary line comes last.
CHECK_STEPS := check-unit check-mpi check-fortran check-examples check-symbols check-traffic check-cxx check-headers \
               check-switch check-dlopen check-p2ponly check-fatal check-cli check-search check-bisect check-guideline check-scale check-hang \
               check-replay check-trace check-traced check-install \
               check-cmake check-man check-mpi-names check-doc

check: deps
	@$(MAKE) $(SILENT) check-run
	@printf '\n== summary ==\n'
	@$(SUMMARIZE)

# The steps of `check`.  It always succeeds: the results, a failed build
# included, are in $(SUMMARY), printed by `check` itself so that at most one
# line of make's own follows the summary on failure.  Each step's seconds
# follow it (CI's time budget is spent by the slowest).
#
# Each step's output goes to the terminal and to $(STEP_LOGS)/STEP.log (a
# pipe through tee; /bin/sh has no pipefail, so the status travels in a
# file).  A step that fails without recording its failure (a prerequisite
# that does not build) is recorded here, with the last lines of its output.
check-run:
	@mkdir -p $(dir $(SUMMARY)) $(STEP_LOGS) && rm -f $(SUMMARY) $(DIGEST) $(STEP_LOGS)/*
	@printf '\n== build ==\n'
	@t0=$$(date +%s); log=$(STEP_LOGS)/build.log; \
	{ $(MAKE) $(SILENT) check-build; echo $$? > $$log.status; } 2>&1 | tee $$log; \
	if [ "$$(cat $$log.status 2>/dev/null)" != 0 ]; then echo "0 1 0 build" >> $(SUMMARY); \
	    { grep -E 'error|Error' $$log || tail -n 10 $$log; } | head -n 15 | $(call digest_of,build); \
	    printf '\nFAIL build\n'; exit 0; fi; \
	echo "   build: $$(( $$(date +%s) - t0 )) s"; \
	for step in $(CHECK_STEPS); do t0=$$(date +%s); log=$(STEP_LOGS)/$$step.log; \
	    n0=$$(cat $(SUMMARY) 2>/dev/null | wc -l); \
	    { $(MAKE) $(SILENT) $$step; echo $$? > $$log.status; } 2>&1 | tee $$log; \
	    st=$$(cat $$log.status 2>/dev/null || echo 1); \
	    if [ "$$st" != 0 ] && ! tail -n +$$((n0 + 1)) $(SUMMARY) 2>/dev/null | awk '$$2 > 0 { f = 1 } END { exit !f }'; then \
	        echo "0 1 0 $$step (exit $$st)" >> $(SUMMARY); \
	        tail -n 10 $$log | $(call digest_of,$$step (exit $$st)); fi; \
	    echo "   $$step: $$(( $$(date +%s) - t0 )) s"; done

check-build: all tests examples

# The same checks against Open MPI (MPI 3.1: no `_c` calls, so no largecount),
# in their own tree, $(OMPI_BUILDDIR); the doc does not depend on the MPI and
# is left to `make check`.  Open MPI's mpiexec gets --oversubscribe (and, as
# root, the allow-run-as-root variables) from tests/mpi-flags.sh.
check-openmpi: deps deps-openmpi
	@$(MAKE) $(SILENT) $(OMPI_MAKEVARS) \
	    CHECK_STEPS='$(filter-out check-doc,$(CHECK_STEPS))' check

# Totals of $(SUMMARY); the closing line is "N passed, N failed, N skipped"
# and the status is non-zero when anything failed (never for a skip: a test
# whose precondition is missing here, tests/README.md).
# Under each "failed: LABEL", the lines of $(DIGEST) for LABEL (at most 15),
# indented.
SUMMARIZE = awk -v digest=$(DIGEST) 'BEGIN { \
	    while ((getline l < digest) > 0) { i = index(l, "\t"); k = substr(l, 1, i - 1); \
	        if (i > 0 && n[k]++ < 15) why[k] = why[k] "      " substr(l, i + 1) "\n" } } \
	{ p += $$1; f += $$2; s += $$3 } \
	$$2 > 0 { sub(/^[0-9]+ [0-9]+ [0-9]+ /, ""); bad = bad "  failed: " $$0 "\n" why[$$0]; why[$$0] = "" } \
	END { printf "%s", bad; \
	      printf "%d passed, %d failed, %d skipped\n", p, f, s; exit (f > 0) }' $(SUMMARY)

# ... | $(call digest_of,LABEL): the lines read, leading blanks taken off,
# added to $(DIGEST) as LABEL's.
digest_of = awk -v k="$(1)" '{ sub(/^[ \t]+/, ""); print k "\t" $$0 }' >> $(DIGEST)

# One line per step in $(SUMMARY): "passed failed skipped label" (its
# directory made for a step run on its own, e.g. `make check-cmake`).  The
# output of COMMAND goes to the terminal and to $(STEP_LOGS)/LABEL.log; when
# it fails, its lines that start with FAIL (the first 14 and a count of the
# rest when there are more than 15; else its last 5 lines) go to $(DIGEST).
record = mkdir -p $(STEP_LOGS); log=$(STEP_LOGS)/$(1).log; rm -f $$log.status; \
         { $(2); echo $$? > $$log.status; } 2>&1 | tee $$log; \
         if [ "$$(cat $$log.status 2>/dev/null)" = 0 ]; then echo "1 0 0 $(1)" >> $(SUMMARY); echo "PASS $(1)"; \
         else echo "0 1 0 $(1)" >> $(SUMMARY); \
             n=$$(grep -cE '^[[:space:]]*FAIL' $$log); \
             { if [ "$$n" -gt 15 ]; then grep -E '^[[:space:]]*FAIL' $$log | head -n 14; \
                   echo "(and $$((n - 14)) more FAIL lines: $$log)"; \
               elif [ "$$n" -gt 0 ]; then grep -E '^[[:space:]]*FAIL' $$log; \
               else tail -n 5 $$log; fi; } | $(call digest_of,$(1)); \
             echo "FAIL $(1)"; false; fi
# $(call record_with,TOOL,LABEL,COMMAND,PACKAGE): $(call record,LABEL,COMMAND)
# where TOOL is installed; else a skip naming the Debian PACKAGE (`make deps`
# installs it; SAFECOLL_NO_DEPS=1 or a machine that is not Debian may lack it).
record_with = if command -v $(1) >/dev/null 2>&1; then $(call record,$(2),$(3)); else \
    echo "SKIP $(2): $(1) is not installed (Debian: apt-get install $(4), or make deps)"; \
    mkdir -p $(dir $(SUMMARY)); echo "0 0 1 $(2) ($(1) is not installed)" >> $(SUMMARY); fi

check-unit: $(UNIT_BINS)
	@printf '\n== unit tests ==\n'
	$(Q)UBSAN_OPTIONS=$${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
	    tests/run-unit.sh --logs $(B)tests/bin/logs $(UNIT_BINS)

check-mpi: $(filter-out $(MPI_SCRIPTED),$(MPI_BINS))
	@printf '\n== MPI tests ==\n'
	$(Q)tests/run-mpi.sh --src tests/mpi --logs $(B)tests/bin/logs $(filter-out $(MPI_SCRIPTED),$(MPI_BINS))

# The mpi_f08 binding at 1, 2 and 4 ranks; a skip where no MPI Fortran
# wrapper was found.  Also: the generated parts are what gen.py writes.
ifneq ($(FORTRAN_OK),)
check-fortran: $(F08_TEST_BINS)
	@printf '\n== Fortran (mpi_f08) ==\n'
	$(Q)tests/run-mpi.sh --src tests/fortran --default-procs "1 2 4" \
	    --logs $(B)tests/bin/logs $(F08_TEST_BINS)
	@$(call record_with,python3,fortran-generated,tests/check-fortran-gen.sh,python3)
else
check-fortran:
	@printf '\n== Fortran (mpi_f08) ==\n'
	@echo "SKIP fortran: no MPI Fortran wrapper $(MPIFORT)"
	@mkdir -p $(dir $(SUMMARY)); echo "0 0 1 fortran (no $(MPIFORT))" >> $(SUMMARY)
endif

check-examples: $(EX_BINS)
	@printf '\n== examples ==\n'
	$(Q)SAFECOLL_DEMO_SMALL=1 tests/run-mpi.sh --src examples --default-procs 4 \
	    --logs $(B)tests/bin/logs $(EX_BINS)

check-symbols: $(LIB_SO_V) $(LIB_A)
	@printf '\n== exported symbols ==\n'
	@$(call record,symbols,tests/check-symbols.sh $(LIB_SO_V) $(LIB_A))

# No MPI operation outside the traffic layer (src/traffic/traffic.h).
check-traffic:
	@printf '\n== traffic layer ==\n'
	@$(call record,traffic,tests/check-traffic.sh src)

check-cxx: $(CXX_BIN)
	@printf '\n== C++ header ==\n'
	@$(call record,cxx-header,$(CXX_BIN))

# <safecoll.h> (the runtime) declares nothing of the testing toolkit, whose
# headers compile on their own.
check-headers:
	@printf '\n== runtime and toolkit headers ==\n'
	@$(call record,headers,MPICC='$(MPICC)' tests/check-headers.sh)

check-install: lib
	@printf '\n== install ==\n'
	@$(call record,install,MAKE='$(MAKE)' MPICC='$(MPICC)' SAFECOLL_BUILD_LIB='$(abspath $(B)lib)' \
	    MPIFORT='$(MPIFORT)' SAFECOLL_FORTRAN='$(if $(FORTRAN_OK),1)' SAFECOLL_MAN3='$(if $(MAN3_OK),1)' \
	    SAFECOLL_LIBS_PRIVATE='$(LIBS_PRIVATE)' tests/check-install.sh)

# A CMake project out of the tree, against the CMake package of a DESTDIR
# install.  Skipped, not failed, where there is no cmake.
check-cmake: lib
	@printf '\n== CMake package ==\n'
	@$(call record_with,$(CMAKE),cmake,MAKE='$(MAKE)' MPICC='$(MPICC)' CMAKE='$(CMAKE)' \
	    MPIFORT='$(MPIFORT)' SAFECOLL_FORTRAN='$(if $(FORTRAN_OK),1)' tests/check-cmake.sh,cmake)

check-cli: $(TOOL_BIN)
	@printf '\n== command-line tool ==\n'
	@$(call record,cli,tests/check-cli.sh $(TOOL_BIN))

# The search against a simulated buggy MPI at tiny sizes (about 90 s with MPICH).
check-search: $(TOOL_BIN)
	@printf '\n== search (fault injection) ==\n'
	@$(call record,search,tests/check-search.sh $(TOOL_BIN))

# `safecoll bisect` on tests/bisect/app.c with an injected faulty
# MPI_Allreduce (about 50 s with MPICH).
check-bisect: $(TOOL_BIN) $(LIB_SO) $(LIB_A)
	@printf '\n== bisect (fault injection) ==\n'
	@$(call record,bisect,MPICC='$(MPICC)' SAFECOLL_LIBS_PRIVATE='$(LIBS_PRIVATE)' tests/check-bisect.sh $(TOOL_BIN) $(B)lib)

# An unmodified MPI program compiled with <safecoll/switch.h> forced in;
# and the parts written from the collective table (src/core/gen.py,
# src/fortran/gen.py) are what the generators write, a new row included.
check-switch: $(LIB_SO)
	@printf '\n== switch header ==\n'
	@$(call record,switch,MPICC='$(MPICC)' tests/check-switch.sh $(B)lib)
	@$(call record_with,python3,generated,MPICC='$(MPICC)' tests/check-generated.sh,python3)

# libsafecoll.so loaded with dlopen() (tests/dlopen/).
check-dlopen: $(LIB_SO)
	@printf '\n== dlopen ==\n'
	@$(call record,dlopen,MPICC='$(MPICC)' tests/check-dlopen.sh $(B)lib)

# The reference mode (SAFECOLL_STRATEGY=all=p2p) makes no MPI collective
# call: tests/p2ponly/app.c runs every safe collective with the PMPI
# counting library tests/p2ponly/count.c preloaded (built without the
# sanitizers, which must come first in a process).
P2PONLY := $(B)tests/bin/p2ponly
$(P2PONLY)/count.so: tests/p2ponly/count.c
	$(call say,CCLD,$<)
	@mkdir -p $(@D)
	$(Q)$(MPICC) -std=c11 $(CFLAGS) $(WARN_CFLAGS) -fPIC -shared -o $@ $<
$(P2PONLY)/app: tests/p2ponly/app.c $(LIB_SO)
	$(call say,CCLD,$<)
	@mkdir -p $(@D)
	$(Q)$(MPICC) $(EX_CFLAGS) $(LDFLAGS) -o $@ $< -L$(B)lib -lsafecoll $(RPATH)
check-p2ponly: $(P2PONLY)/count.so $(P2PONLY)/app
	@printf '\n== reference mode: no MPI collective ==\n'
	@$(call record,p2ponly,tests/check-p2ponly.sh $(P2PONLY))

# Errors say why under MPI's default (fatal) error handler: the message on
# stderr before the job ends, and MPI_Error_string naming the library.
FATAL := $(B)tests/bin/fatal
$(FATAL)/app: tests/fatal/app.c $(LIB_SO)
	$(call say,CCLD,$<)
	@mkdir -p $(@D)
	$(Q)$(MPICC) $(EX_CFLAGS) $(LDFLAGS) -o $@ $< -L$(B)lib -lsafecoll $(RPATH)
# The Fortran binding's refusal of a non-contiguous buffer, where it is built.
$(FATAL)/app_f08: tests/fatal/app_f08.f90 $(F08_LIBS) $(F08_MOD) $(LIB_SO)
	$(call say,FCLD,$<)
	@mkdir -p $(@D)
	$(Q)$(MPIFORT) $(F08_FFLAGS) $(LDFLAGS) -o $@ $< $(F08_LINK)
check-fatal: $(FATAL)/app $(if $(FORTRAN_OK),$(FATAL)/app_f08)
	@printf '\n== errors under the fatal error handler ==\n'
	@$(call record,fatal,tests/check-fatal.sh $(FATAL))

# Real hangs caught by the hang monitor, which ends the job (exit 70).
check-hang: $(B)examples/bin/hang_detect
	@printf '\n== hang detection ==\n'
	@$(call record,hang,tests/check-hang.sh $(B)examples/bin/hang_detect)

# Record and replay of point-to-point traffic (SAFECOLL_REPLAY).
check-replay: $(B)tests/bin/mpi/test_replay
	@printf '\n== record and replay ==\n'
	@$(call record,replay,tests/check-replay.sh $(B)tests/bin/mpi/test_replay)

# The guideline test against simulated slow and jittery collectives at tiny
# sizes.
check-guideline: $(TOOL_BIN)
	@printf '\n== guideline (fault injection) ==\n'
	@$(call record,guideline,tests/check-guideline.sh $(TOOL_BIN))

# `safecoll scale` on generated points (paper 003's models): its table,
# outputs, regression check and errors; then a real measurement (MPI jobs).
check-scale: $(TOOL_BIN)
	@printf '\n== scale (scalability validation) ==\n'
	@$(call record,scale,tests/check-scale.sh $(TOOL_BIN))

# `safecoll trace analyze` on a synthetic trace written by the unit test
# program with the library's trace writer.
check-trace: $(TOOL_BIN) $(B)tests/bin/unit/test_trace
	@printf '\n== trace analysis ==\n'
	@$(call record,trace,tests/check-trace.sh $(TOOL_BIN) $(B)tests/bin/unit/test_trace)

# Real traced programs (tests/mpi/test_traced.c, one scenario a job under
# SAFECOLL_TRACE) and what `safecoll trace analyze` finds in them.
check-traced: $(TOOL_BIN) $(B)tests/bin/mpi/test_traced
	@printf '\n== traced programs ==\n'
	@$(call record,traced,tests/check-traced.sh $(TOOL_BIN) $(B)tests/bin/mpi/test_traced)

# The man pages render without a warning and say what the tool's --help
# says, every command included.  Skipped where groff is missing.
check-man: $(MAN_PAGES) man3 $(TOOL_BIN) $(LIB_SO_V)
	@printf '\n== man pages ==\n'
	@$(call record_with,$(GROFF),man,GROFF='$(GROFF)' SAFECOLL_MAN3='$(if $(MAN3_OK),1)' \
	    tests/check-man.sh $(TOOL_BIN) $(B)man $(LIB_SO_V),groff-base)

# The default MPI wrappers: Debian's MPICH names when on PATH, else the
# plain mpicc/mpiexec on PATH (modules, Spack), an explicit value first;
# with the plain ones, `make deps` installs no MPICH.  Fake wrappers only:
# nothing is built.
check-mpi-names:
	@printf '\n== MPI wrapper names ==\n'
	@$(call record,mpi-names,MAKE='$(MAKE)' tests/check-mpi-names.sh)

# The wrappers this Makefile uses, one "NAME=value" a line.
print-mpi:
	@printf 'MPICC=%s\nMPICXX=%s\nMPIEXEC=%s\nMPI_DEPS_PKGS=%s\n' '$(MPICC)' '$(MPICXX)' \
	    '$(MPIEXEC)' '$(strip $(MPI_DEPS_PKGS))'

# The manual builds without a warning, and has its main page and examples.
check-doc:
	@printf '\n== doc ==\n'
	@$(call record,doc,$(MAKE) $(SILENT) doc && tests/check-doc.sh doc/html)

# ---------------------------------------------------------------- fuzz
# The bound-file parser under libFuzzer, ASan and UBSan (clang; Debian:
# clang and libclang-rt-dev).  Only the sources the parser needs are built,
# straight into one program: the registry and the core it stands on (the
# core imports no other module).  Inputs reach FUZZ_MAX_LEN bytes, past the
# longest line the parser accepts.  A bounded run: it fails on a crash, a
# leak, an input slower than FUZZ_TIMEOUT s or memory past FUZZ_RSS MB; the
# input that did it is left in $(FUZZ_DIR) (rerun: $(FUZZ_BIN) <file>).
# New inputs go to $(FUZZ_DIR)/corpus; tests/fuzz/corpus holds the seeds.
FUZZ_CC      ?= clang
FUZZ_MPI_PC  ?= mpich
FUZZ_TIME    ?= 60
FUZZ_TIMEOUT ?= 5
FUZZ_RSS     ?= 2048
FUZZ_MAX_LEN ?= 16384
FUZZ_DIR     := $(B)tests/bin/fuzz
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_bounds
FUZZ_SRCS    := tests/fuzz/fuzz_bounds.c $(sort $(wildcard src/bounds/*.c)) $(KNOWN_BOUNDS_C) \
                $(sort $(wildcard src/core/*.c))
FUZZ_CFLAGS  := -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined -fno-omit-frame-pointer $(WARN_CFLAGS) \
                -Iinclude -Isrc/core -Isrc/bounds -Isrc

$(FUZZ_BIN): $(FUZZ_SRCS) $(wildcard src/bounds/*.h src/core/*.h) $(HEADERS)
	$(call say,CCLD,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(FUZZ_SRCS) `$(PKG_CONFIG) --cflags --libs $(FUZZ_MPI_PC)`

fuzz: $(FUZZ_BIN)
	@mkdir -p $(FUZZ_DIR)/corpus
	@printf '\n== fuzz (%s s) ==\n' '$(FUZZ_TIME)'
	$(Q)SAFECOLL_KNOWN_BOUNDS= SAFECOLL_BOUNDS= \
	    ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=1} \
	    UBSAN_OPTIONS=$${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
	    $(FUZZ_BIN) -max_total_time=$(FUZZ_TIME) -rss_limit_mb=$(FUZZ_RSS) \
	    -timeout=$(FUZZ_TIMEOUT) -max_len=$(FUZZ_MAX_LEN) -dict=tests/fuzz/bounds.dict \
	    -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_DIR)/corpus tests/fuzz/corpus \
	    > $(FUZZ_DIR)/fuzz.log 2>&1; st=$$?; \
	    grep -E '^#[0-9]+.*(DONE|INITED)|^stat::number_of_executed_units|^stat::peak_rss_mb|ERROR|SUMMARY|Test unit written' \
	        $(FUZZ_DIR)/fuzz.log | sed 's/^/  /'; \
	    if [ $$st -eq 0 ]; then echo "PASS fuzz (log: $(FUZZ_DIR)/fuzz.log)"; \
	    else echo "FAIL fuzz: exit $$st (log: $(FUZZ_DIR)/fuzz.log)"; exit 1; fi

# ---------------------------------------------------------------- check-big
check-big: deps
	$(Q)$(MAKE) $(SILENT) check-big-run SUMMARY=$(CURDIR)/$(B)tests/bin/summary-big.txt

# tests/big/run.sh, when present, decides how the programs run (it gets
# SAFECOLL_BIG_BIN, MPIEXEC, MPIEXEC_FLAGS) and prints the closing
# "N passed, M failed" line itself; else each tests/big/test_*
# runs through run-mpi.sh, by default under -n 4, one at a time, with a
# timeout of SAFECOLL_BIG_TIMEOUT seconds (default 3600).
check-big-run: lib $(TOOL_BIN) $(BIG_BINS) $(if $(FORTRAN_OK),$(F08_BIG_BIN))
	@mkdir -p $(dir $(SUMMARY)) && rm -f $(SUMMARY) $(DIGEST)
	@printf '\n== big tests ==\n'
	$(Q)if [ -x tests/big/run.sh ]; then \
	    out=$(B)tests/bin/big/run.out; \
	    { SAFECOLL_BIG_BIN=$(CURDIR)/$(B)tests/bin/big tests/big/run.sh; \
	      echo $$? > $$out.rc; } | tee $$out; st=$$(cat $$out.rc); \
	    awk '/^PASS / { p++ } /^FAIL / { print "0 1 0 big " $$2 } \
	         /^SKIP / { print "0 1 0 big " $$2 " (skipped)" } \
	         END { print p + 0, 0, 0, "big" }' $$out >> $(SUMMARY); \
	    awk '/^(FAIL|SKIP) / { k = "big " $$2 ($$1 == "SKIP" ? " (skipped)" : ""); n = 0; \
	                          print k "\t" $$0; next } \
	         /^[A-Z]+ / { k = "" } \
	         k != "" && n < 14 && /^    \| .*(FAIL|[Ff]ailed|[Ee]rror|\[rank [0-9]+\] )/ { \
	             n++; sub(/^    \| /, ""); print k "\t" $$0 }' $$out >> $(DIGEST); \
	    [ "$$st" = 0 ] || grep -q '^0 1 0 big' $(SUMMARY) || \
	        { echo "0 1 0 big tests/big/run.sh exit $$st" >> $(SUMMARY); \
	          tail -n 5 $$out | $(call digest_of,big tests/big/run.sh exit $$st); }; \
	    exit $$st; \
	elif [ -n "$(filter $(B)tests/bin/big/test_%,$(BIG_BINS))" ]; then \
	    SAFECOLL_TEST_TIMEOUT=$${SAFECOLL_BIG_TIMEOUT:-3600} \
	    tests/run-mpi.sh --src tests/big --default-procs 4 --logs $(B)tests/bin/logs \
	        $(filter $(B)tests/bin/big/test_%,$(BIG_BINS)); \
	else echo "no tests in tests/big/"; touch $(SUMMARY); fi; \
	st=$$?; printf '\n== summary ==\n'; $(SUMMARIZE) && exit $$st

# ---------------------------------------------------------------- sanitize
sanitize: deps
	$(Q)$(MAKE) $(SILENT) BUILDDIR=$(SANDIR) SANITIZE=1 sanitize-run

sanitize-run:
	@mkdir -p $(dir $(SUMMARY)) && rm -f $(SUMMARY) $(DIGEST)
	$(Q)$(MAKE) $(SILENT) all tests
	$(Q)st=0; \
	ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=1} \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $(MAKE) $(SILENT) check-unit || st=1; \
	ASAN_OPTIONS=detect_leaks=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $(MAKE) $(SILENT) check-mpi || st=1; \
	$(SUMMARIZE) && exit $$st

# The code with threads (the hang monitor) under ThreadSanitizer: its unit
# test and its MPI test, in their own tree, against Open MPI (MPICH 4.0.2's
# ch4:ucx crashes in MPI_Init under ThreadSanitizer, even a program that
# only calls MPI_Init and MPI_Barrier).
TSANDIR ?= build-tsan
sanitize-thread: deps deps-openmpi
	$(Q)$(MAKE) $(SILENT) BUILDDIR=$(TSANDIR) SANITIZE=thread MPICC=mpicc.openmpi \
	    MPICXX=mpicxx.openmpi $(TSANDIR)/tests/bin/unit/test_hang $(TSANDIR)/tests/bin/unit/test_thread \
	    $(TSANDIR)/tests/bin/mpi/test_hang
	$(Q)TSAN_OPTIONS=$${TSAN_OPTIONS:-halt_on_error=1} tests/run-unit.sh \
	    --logs $(TSANDIR)/tests/bin/logs $(TSANDIR)/tests/bin/unit/test_hang \
	    $(TSANDIR)/tests/bin/unit/test_thread
	$(Q)TSAN_OPTIONS=$${TSAN_OPTIONS:-halt_on_error=1} MPIEXEC=mpiexec.openmpi \
	    tests/run-mpi.sh --src tests/mpi --logs $(TSANDIR)/tests/bin/logs \
	    $(TSANDIR)/tests/bin/mpi/test_hang

# ---------------------------------------------------------------- bench, demo
bench: lib $(TOOL_BIN) $(BENCH_BINS)
	$(Q)if [ -x bench/run.sh ]; then \
	    SAFECOLL_BENCH_BIN=$(CURDIR)/$(B)bench/bin bench/run.sh; \
	else echo "bench: built $(words $(BENCH_BINS)) program(s) in $(B)bench/bin; no bench/run.sh"; fi

demo: deps
	$(Q)$(MAKE) $(SILENT) lib $(B)examples/bin/overflow_gatherv
	$(Q)$(if $(SAFECOLL_DEMO_SMALL),SAFECOLL_DEMO_SMALL=$(SAFECOLL_DEMO_SMALL)) \
	    $(MPIEXEC) $(MPIEXEC_FLAGS) -n 4 $(B)examples/bin/overflow_gatherv

# The same program with the plain MPI_Gatherv, which is expected to crash on
# MPICH 4.0.2; the crash is the point, so it does not fail the target.
demo-native: deps
	$(Q)$(MAKE) $(SILENT) lib $(B)examples/bin/overflow_gatherv
	$(Q)$(if $(SAFECOLL_DEMO_SMALL),SAFECOLL_DEMO_SMALL=$(SAFECOLL_DEMO_SMALL)) \
	    $(MPIEXEC) $(MPIEXEC_FLAGS) -n 4 $(B)examples/bin/overflow_gatherv --native; \
	    echo "demo-native: mpiexec exited with status $$?"

# ---------------------------------------------------------------- doc
doc:
	$(call say,DOXY,doc/Doxyfile)
	$(Q)rm -rf doc/html
	$(Q)SAFECOLL_VERSION=$(VERSION) SAFECOLL_EXAMPLE_PATH=$(wildcard examples) \
	    $(DOXYGEN) doc/Doxyfile

# ---------------------------------------------------------------- install
# $(call prefix_rel,DIR,VAR): DIR, when under the prefix, written relative to
# it through VAR (VAR/lib), else as it is.  In the .pc, VAR is ${prefix}, as
# lz4 does, so the file can be relocated.
prefix_rel = $(if $(filter $(prefix)/%,$(1)),$(2)$(patsubst $(prefix)%,%,$(1)),$(1))
pc_rel = $(call prefix_rel,$(1),$${prefix})
# One substitution for both .pc files (each names only what it needs).
pc_subst = sed -e 's|@PREFIX@|$(prefix)|' \
	        -e 's|@LIBDIR@|$(call pc_rel,$(libdir))|' \
	        -e 's|@INCLUDEDIR@|$(call pc_rel,$(includedir))|' \
	        -e 's|@FMODDIR@|$(call pc_rel,$(fmoddir))|' \
	        -e 's|@VERSION@|$(VERSION)|g' \
	        -e 's|@LIBS_PRIVATE@|$(LIBS_PRIVATE)|' $< > $@
$(PC_FILE): pkgconfig/safecoll.pc.in include/safecoll.h Makefile
	$(call say,GEN,$@)
	@mkdir -p $(@D)
	$(Q)$(pc_subst)
$(PC_F08_FILE): pkgconfig/safecoll_f08.pc.in include/safecoll.h Makefile
	$(call say,GEN,$@)
	@mkdir -p $(@D)
	$(Q)$(pc_subst)

# The CMake package finds the prefix from where its file lies
# (${CMAKE_CURRENT_LIST_DIR}/../../.. for $(prefix)/lib/cmake/safecoll), so
# it works from a DESTDIR or a moved tree; directories outside the prefix
# are written as they are.  It records the MPI C wrapper the library was
# built with (FindMPI must find the same MPI), and its version file the
# compiler's pointer size; `make install` needs no cmake.
empty :=
space := $(empty) $(empty)
ups_to_prefix = $(subst $(space),,$(patsubst %,/..,$(subst /, ,$(patsubst $(prefix)/%,%,$(1)))))
cmake_up = $(if $(filter $(prefix)/%,$(1)),$${CMAKE_CURRENT_LIST_DIR}$(call ups_to_prefix,$(1)),$(prefix))
cmake_rel = $(call prefix_rel,$(1),$${_safecoll_prefix})
$(CMAKE_CONFIG): cmake/safecollConfig.cmake.in include/safecoll.h Makefile
	$(call say,GEN,$@)
	@mkdir -p $(@D)
	$(Q)wrapper=$$(command -v '$(MPICC)' || true); \
	fwrapper=$(if $(FORTRAN_OK),$$(command -v '$(MPIFORT)' || true)); \
	sed -e 's|@PREFIX_FROM_HERE@|$(call cmake_up,$(cmakedir)/safecoll)|' \
	    -e 's|@LIBDIR@|$(call cmake_rel,$(libdir))|' \
	    -e 's|@INCLUDEDIR@|$(call cmake_rel,$(includedir))|' \
	    -e "s|@MPI_C_COMPILER@|$$wrapper|" \
	    -e "s|@MPI_Fortran_COMPILER@|$$fwrapper|" \
	    -e 's|@FMODDIR@|$(call cmake_rel,$(fmoddir))|' \
	    -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' \
	    -e 's|@LIBS_PRIVATE@|$(subst $(space),;,$(LIBS_PRIVATE))|' $< > $@.tmp && mv $@.tmp $@

$(CMAKE_VERSION_FILE): cmake/safecollConfigVersion.cmake.in include/safecoll.h Makefile
	$(call say,GEN,$@)
	@mkdir -p $(@D)
	$(Q)ptr=$$($(MPICC) -dM -E -x c /dev/null 2>/dev/null | \
	    sed -n 's/^#define __SIZEOF_POINTER__ \([0-9]*\)$$/\1/p'); \
	sed -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' \
	    -e "s|@SIZEOF_VOID_P@|$$ptr|" $< > $@.tmp && mv $@.tmp $@

# The .pc and the CMake package hold the install paths, so they are made
# again at every install.
# The library carries the known bounds built in and never reads
# $(datadir)/safecoll/known-bounds: that copy is installed for reference,
# for `safecoll bounds check` and as the base of an edited file to name in
# SAFECOLL_KNOWN_BOUNDS.
install: lib bin fortran
	@rm -f $(PC_FILE) $(PC_F08_FILE) $(CMAKE_CONFIG) $(CMAKE_VERSION_FILE) $(MAN_PAGES)
	$(Q)$(MAKE) $(SILENT) $(PC_FILE) $(CMAKE_CONFIG) $(CMAKE_VERSION_FILE) $(MAN_PAGES) \
	    $(if $(FORTRAN_OK),$(PC_F08_FILE))
	$(call say,INSTALL,$(DESTDIR)$(prefix))
	$(Q)$(INSTALL) -d -m 755 $(DESTDIR)$(libdir) $(DESTDIR)$(pkgconfigdir) \
	    $(DESTDIR)$(includedir)/safecoll $(DESTDIR)$(cmakedir)/safecoll
	$(Q)$(INSTALL) -m 644 include/safecoll.h $(DESTDIR)$(includedir)/safecoll.h
	$(Q)$(INSTALL) -m 644 $(wildcard include/safecoll/*.h) $(DESTDIR)$(includedir)/safecoll/
	$(Q)$(INSTALL) -m 644 $(LIB_A) $(DESTDIR)$(libdir)/libsafecoll.a
	$(Q)$(INSTALL) -m 755 $(LIB_SO_V) $(DESTDIR)$(libdir)/$(notdir $(LIB_SO_V))
	$(Q)ln -sf $(notdir $(LIB_SO_V)) $(DESTDIR)$(libdir)/$(notdir $(LIB_SO_M))
	$(Q)ln -sf $(notdir $(LIB_SO_M)) $(DESTDIR)$(libdir)/$(notdir $(LIB_SO))
	$(Q)$(INSTALL) -m 644 $(PC_FILE) $(DESTDIR)$(pkgconfigdir)/safecoll.pc
	$(Q)$(INSTALL) -m 644 $(CMAKE_CONFIG) $(CMAKE_VERSION_FILE) $(DESTDIR)$(cmakedir)/safecoll/
	$(Q)$(INSTALL) -d -m 755 $(DESTDIR)$(bindir) $(DESTDIR)$(datadir)/safecoll
	$(Q)$(INSTALL) -m 755 $(TOOL_BIN) $(DESTDIR)$(bindir)/safecoll
	$(Q)$(INSTALL) -m 644 data/known-bounds $(DESTDIR)$(datadir)/safecoll/known-bounds
	$(Q)$(INSTALL) -m 644 data/scale-table1 $(DESTDIR)$(datadir)/safecoll/scale-table1
	$(Q)$(INSTALL) -d -m 755 $(DESTDIR)$(man1dir) $(DESTDIR)$(man3dir) $(DESTDIR)$(docdir)/examples
	$(Q)$(INSTALL) -m 644 $(MAN1) $(DESTDIR)$(man1dir)/safecoll.1
	$(Q)$(INSTALL) -m 644 $(MAN3) $(DESTDIR)$(man3dir)/libsafecoll.3
ifneq ($(MAN3_OK),)
	$(Q)$(MAKE) $(SILENT) man3
	$(Q)$(INSTALL) -m 644 $(MAN3_DIR)/safecoll_*.3 $(DESTDIR)$(man3dir)/
endif
	$(Q)$(INSTALL) -m 644 $(filter-out README.md,$(DOC_FILES)) $(DESTDIR)$(docdir)/
	$(Q)sed 's|](doc/|](|g' README.md > $(DESTDIR)$(docdir)/README.md && \
	    chmod 644 $(DESTDIR)$(docdir)/README.md
	$(Q)$(INSTALL) -m 644 $(EX_DOC_FILES) $(DESTDIR)$(docdir)/examples/
ifneq ($(FORTRAN_OK),)
	$(Q)$(INSTALL) -d -m 755 $(DESTDIR)$(fmoddir)
	$(Q)$(INSTALL) -m 644 $(F08_MOD) $(DESTDIR)$(fmoddir)/safecoll_f08.mod
	$(Q)$(INSTALL) -m 644 $(F08_A) $(DESTDIR)$(libdir)/libsafecoll_f08.a
	$(Q)$(INSTALL) -m 755 $(F08_SO_V) $(DESTDIR)$(libdir)/$(notdir $(F08_SO_V))
	$(Q)ln -sf $(notdir $(F08_SO_V)) $(DESTDIR)$(libdir)/$(notdir $(F08_SO_M))
	$(Q)ln -sf $(notdir $(F08_SO_M)) $(DESTDIR)$(libdir)/$(notdir $(F08_SO))
	$(Q)$(INSTALL) -m 644 $(PC_F08_FILE) $(DESTDIR)$(pkgconfigdir)/safecoll_f08.pc
endif

uninstall:
	$(call say,RM,$(DESTDIR)$(prefix))
	$(Q)rm -f $(DESTDIR)$(libdir)/libsafecoll.so \
	          $(DESTDIR)$(libdir)/libsafecoll.so.$(VERSION_MAJOR) \
	          $(DESTDIR)$(libdir)/libsafecoll.so.$(VERSION) \
	          $(DESTDIR)$(libdir)/libsafecoll.a \
	          $(DESTDIR)$(libdir)/libsafecoll_f08.so \
	          $(DESTDIR)$(libdir)/libsafecoll_f08.so.$(VERSION_MAJOR) \
	          $(DESTDIR)$(libdir)/libsafecoll_f08.so.$(VERSION) \
	          $(DESTDIR)$(libdir)/libsafecoll_f08.a $(DESTDIR)$(fmoddir)/safecoll_f08.mod \
	          $(DESTDIR)$(pkgconfigdir)/safecoll.pc $(DESTDIR)$(pkgconfigdir)/safecoll_f08.pc \
	          $(DESTDIR)$(cmakedir)/safecoll/safecollConfig.cmake \
	          $(DESTDIR)$(cmakedir)/safecoll/safecollConfigVersion.cmake \
	          $(DESTDIR)$(bindir)/safecoll \
	          $(DESTDIR)$(datadir)/safecoll/known-bounds \
	          $(DESTDIR)$(datadir)/safecoll/scale-table1 \
	          $(DESTDIR)$(includedir)/safecoll.h \
	          $(DESTDIR)$(includedir)/safecoll/*.h \
	          $(DESTDIR)$(man1dir)/safecoll.1 $(DESTDIR)$(man3dir)/libsafecoll.3 \
	          $(DESTDIR)$(man3dir)/safecoll_*.3 \
	          $(addprefix $(DESTDIR)$(docdir)/,$(notdir $(DOC_FILES))) \
	          $(addprefix $(DESTDIR)$(docdir)/examples/,$(notdir $(EX_DOC_FILES)))
	$(Q)for d in $(DESTDIR)$(docdir)/examples $(DESTDIR)$(docdir); do \
	    if [ -d $$d ]; then rmdir $$d || \
	        echo "uninstall: $$d is not empty; left in place" >&2; fi; done
	$(Q)if [ -d $(DESTDIR)$(includedir)/safecoll ]; then \
	    rmdir $(DESTDIR)$(includedir)/safecoll || \
	    echo "uninstall: $(DESTDIR)$(includedir)/safecoll is not empty; left in place" >&2; fi
	$(Q)if [ -d $(DESTDIR)$(datadir)/safecoll ]; then \
	    rmdir $(DESTDIR)$(datadir)/safecoll || \
	    echo "uninstall: $(DESTDIR)$(datadir)/safecoll is not empty; left in place" >&2; fi
	$(Q)if [ -d $(DESTDIR)$(cmakedir)/safecoll ]; then \
	    rmdir $(DESTDIR)$(cmakedir)/safecoll || \
	    echo "uninstall: $(DESTDIR)$(cmakedir)/safecoll is not empty; left in place" >&2; fi

# ---------------------------------------------------------------- clean
clean:
	$(call say,CLEAN,build outputs)
	$(Q)rm -rf obj lib bin man mod tests/bin examples/bin bench/bin doc/html pkgconfig/safecoll.pc \
	    pkgconfig/safecoll_f08.pc \
	    cmake/safecollConfig.cmake cmake/safecollConfigVersion.cmake $(SANDIR) $(OMPI_BUILDDIR)

help:
	@sed -n '3,/^#$$/{/^#$$/!s/^# \{0,1\}//p;}' Makefile
	@echo "Variables: MPICC=$(MPICC) MPICXX=$(MPICXX) MPIEXEC=$(MPIEXEC) MPIFORT=$(MPIFORT)"
	@echo "  MPIEXEC_FLAGS PREFIX DESTDIR libdir includedir pkgconfigdir cmakedir datadir"
	@echo "  mandir docdir V=1"
	@echo "  CMAKE=cmake (make check-cmake)"
	@echo "  SAFECOLL_NO_DEPS=1 SAFECOLL_TEST_TIMEOUT=seconds SAFECOLL_DEMO_SMALL=1"
	@echo "  FUZZ_CC=clang FUZZ_TIME=60 (make fuzz)"
	@echo "  OMPI_BUILDDIR=build-ompi OMPI_TEST_TIMEOUT=60 (make check-openmpi)"
