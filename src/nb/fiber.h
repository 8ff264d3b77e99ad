/*
 * The context switch of the non-blocking engine's coroutines (fiber.c).
 *
 * A fiber is a saved execution context: a stack pointer on x86-64, where a
 * switch is a dozen instructions; a ucontext_t elsewhere. glibc's
 * swapcontext, getcontext and setcontext save and restore the signal mask
 * with a system call each, and the engine's resume set the mask too (so
 * that a step runs with the mask of the thread that resumes it): four
 * system calls a step, a fifth per operation, about a fifth of bench_nb's
 * time under all=p2p on MPICH. The switch here leaves the signal mask
 * alone, which gives that rule for nothing: a mask belongs to the thread,
 * not to the stack a step runs on.
 *
 * Neither mechanism knows about the sanitizers' view of stacks: the engine
 * (nb.c) annotates its switches for AddressSanitizer itself. Under
 * ThreadSanitizer, which follows ucontext calls but not a hand-made switch,
 * and with shadow stacks (below), the ucontext switch is used.
 */
#ifndef SC_NB_FIBER_H
#define SC_NB_FIBER_H

#include <stddef.h>

#if defined(__SANITIZE_THREAD__)
#define SC_FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SC_FIBER_TSAN 1
#endif
#endif

/* Not with shadow stacks (-fcf-protection=return or full, __CET__ bit 2):
 * the first switch to a fiber returns to an address no call pushed, which
 * a shadow stack refuses; glibc's ucontext keeps one per fiber. */
#if defined(__CET__)
#define SC_FIBER_SHSTK ((__CET__ & 2) != 0)
#else
#define SC_FIBER_SHSTK 0
#endif

#if defined(__x86_64__) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__)) &&     \
    !defined(SC_FIBER_TSAN) && !SC_FIBER_SHSTK
#define SC_FIBER_ASM 1
#else
#define SC_FIBER_ASM 0
#include <ucontext.h>
#endif

typedef struct sc__fiber {
#if SC_FIBER_ASM
    void *sp; /* where the registers of the suspended context are saved */
#else
    ucontext_t uc;
    void (*fn)(void *);
    void *arg;
#endif
} sc__fiber;

/* Prepares f to call fn(arg) on the stack [stack, stack + size) at the
 * first switch to it. fn must not return: it ends by switching away for
 * good. 0, or -1 when the context cannot be made (ucontext). */
int sc__fiber_make(sc__fiber *f, char *stack, size_t size, void (*fn)(void *), void *arg);

/* Saves the running context in *from and continues the one in *to; returns
 * when something switches back to *from. The signal mask is the running
 * thread's throughout. */
void sc__fiber_switch(sc__fiber *from, sc__fiber *to);

#endif /* SC_NB_FIBER_H */
