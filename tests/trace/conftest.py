"""Fixtures for the trace tests: tiny C programs compiled in a temporary folder."""

from __future__ import annotations

import shutil
import subprocess

import pytest

TRIAD = r"""
#include <stdlib.h>
#include <stdio.h>
__attribute__((noipa)) static void kernel(double *a, const double *b, const double *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + 3.0 * c[i];
}
int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 100000;
    size_t reps = argc > 2 ? strtoull(argv[2], 0, 10) : 2;
    double *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8);
    for (size_t i = 0; i < n; i++) { a[i] = 0; b[i] = 1; c[i] = 2; }
    for (size_t r = 0; r < reps; r++)
        kernel(a, b, c, n);
    printf("%g\n", a[n / 2]);
    return 0;
}
"""

SPIN = r"""
#include <unistd.h>
int main(void) { volatile unsigned long x = 0; for (;;) x++; }
"""

FORKER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    pid_t pid = fork();
    if (pid == 0) { /* the child outlives its parent unless its process group is killed */
        for (;;) sleep(1);
    }
    FILE *f = fopen(argv[1], "w");
    fprintf(f, "%d\n", (int)pid);
    fclose(f);
    return 0;
}
"""

OMPSUM = r"""
#include <stdio.h>
#include <stdlib.h>
__attribute__((noipa)) static double kernel(const double *a, size_t n)
{
    double s = 0.0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}
int main(void)
{
    size_t n = 200000;
    double *a = malloc(n * sizeof *a), s = 0.0;
    for (size_t i = 0; i < n; i++) a[i] = 1.0;
    for (int r = 0; r < 4; r++) s += kernel(a, n);
    printf("%g\n", s);
    return 0;
}
"""

AVX512 = r"""
#include <immintrin.h>
#include <stdio.h>
int main(void)
{
    volatile double in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    __m512d v = _mm512_loadu_pd((const double *)in);
    v = _mm512_add_pd(v, v);
    double out[8];
    _mm512_storeu_pd(out, v);
    printf("%g\n", out[3]);
    return 0;
}
"""


def compile_c(tmp, name, source, flags, *, skip_on_error=False):
    """Build ``source`` (C text) as ``tmp/name`` with ``flags``; skipped without a C compiler,
    and where it does not compile if ``skip_on_error`` (else the test fails)."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("needs a C compiler (gcc)")
    src = tmp / f"{name}.c"
    src.write_text(source)
    exe = tmp / name
    r = subprocess.run([cc, *flags, "-o", str(exe), str(src), "-lm"], capture_output=True, text=True)
    if r.returncode != 0:
        if skip_on_error:
            pytest.skip(f"cannot compile {name}: {r.stderr.strip()[:200]}")
        raise AssertionError(f"cannot compile {name}: {r.stderr.strip()[:500]}")
    return exe


def _compile(tmp, name, source, *flags):
    return compile_c(tmp, name, source, ("-O2", "-fno-tree-vectorize", "-ffp-contract=off", *flags),
                     skip_on_error=True)


@pytest.fixture
def build_c(tmp_path):
    """``build_c(name, source, *flags)``: the program built in the test's tmp_path."""
    return lambda name, source, *flags: compile_c(tmp_path, name, source, flags)


@pytest.fixture(scope="session")
def programs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("trace-programs")
    return {"triad": _compile(tmp, "triad", TRIAD), "spin": _compile(tmp, "spin", SPIN),
            "forker": _compile(tmp, "forker", FORKER)}


@pytest.fixture(scope="session")
def openmp_program(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("trace-openmp")
    return _compile(tmp, "ompsum", OMPSUM, "-fopenmp")


@pytest.fixture(scope="session")
def avx512_program(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("trace-avx512")
    return _compile(tmp, "avx512", AVX512, "-mavx512f")


@pytest.fixture
def valgrind():
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed (Debian: apt-get install valgrind)")
    if shutil.which("objdump") is None:
        pytest.skip("objdump is not installed (Debian: apt-get install binutils)")
