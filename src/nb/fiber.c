/*
 * The context switch of the engine's coroutines (see fiber.h).
 *
 * x86-64 (System V): a switch pushes the registers a called function must
 * preserve (rbp, rbx, r12-r15) and the control words of the SSE and x87
 * units, which the ABI makes callee-saved too, on the running stack, saves
 * the stack pointer, loads the other one and pops the same from there. A
 * new fiber's stack is laid out as if it had been switched away from just
 * before entering sc__fiber_start, which calls fn(arg) with fn in r13 and
 * arg in r12. Everything else a C caller expects to survive a call is
 * saved by the caller of sc__fiber_switch itself.
 */
#define _GNU_SOURCE 1

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "fiber.h"

#if SC_FIBER_ASM

/* Saves the running context's registers on its stack and its stack
 * pointer in *save; continues the context whose stack pointer is load. */
__attribute__((visibility("hidden"))) void sc__fiber_jump(void **save, void *load);
/* The first instructions of a new fiber (never called: returned to). */
__attribute__((visibility("hidden"))) void sc__fiber_start(void);

__asm__(".pushsection .text\n"
        ".globl sc__fiber_jump\n"
        ".hidden sc__fiber_jump\n"
        ".type sc__fiber_jump, @function\n"
        ".p2align 4\n"
        "sc__fiber_jump:\n"
        "    .cfi_startproc\n"
        "    pushq %rbp\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    pushq %rbx\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    pushq %r12\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    pushq %r13\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    pushq %r14\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    pushq %r15\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    subq $8, %rsp\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    stmxcsr (%rsp)\n"
        "    fnstcw 4(%rsp)\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    ldmxcsr (%rsp)\n"
        "    fldcw 4(%rsp)\n"
        "    addq $8, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        "    .cfi_endproc\n"
        ".size sc__fiber_jump, .-sc__fiber_jump\n"
        ".globl sc__fiber_start\n"
        ".hidden sc__fiber_start\n"
        ".type sc__fiber_start, @function\n"
        ".p2align 4\n"
        "sc__fiber_start:\n"
        "    .cfi_startproc\n"
        "    .cfi_undefined %rip\n"
        "    movq %r12, %rdi\n"
        "    callq *%r13\n"
        "    ud2\n"
        "    .cfi_endproc\n"
        ".size sc__fiber_start, .-sc__fiber_start\n"
        ".popsection\n");

int sc__fiber_make(sc__fiber *f, char *stack, size_t size, void (*fn)(void *), void *arg)
{
    /* The top of the stack, 16-byte aligned, and below it the frame that
     * sc__fiber_jump pops: the control words, r15, r14, r13 = fn,
     * r12 = arg, rbx, rbp, and the address it returns to. After the
     * return the stack pointer is the aligned top, as a call needs. */
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)top - 8;
    uint32_t mxcsr = __builtin_ia32_stmxcsr();
    uint16_t fpucw;

    __asm__ volatile("fnstcw %0" : "=m"(fpucw));
    sp[0] = (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
    sp[1] = 0;
    sp[2] = 0;
    sp[3] = (uint64_t)(uintptr_t)fn;
    sp[4] = (uint64_t)(uintptr_t)arg;
    sp[5] = 0;
    sp[6] = 0;
    sp[7] = (uint64_t)(uintptr_t)sc__fiber_start;
    f->sp = sp;
    return 0;
}

void sc__fiber_switch(sc__fiber *from, sc__fiber *to)
{
    sc__fiber_jump(&from->sp, to->sp);
}

#else /* ucontext */

#include <pthread.h>

static void start(unsigned hi, unsigned lo)
{
    sc__fiber *f = (sc__fiber *)(((uintptr_t)hi << 32) | (uintptr_t)lo);

    f->fn(f->arg);
    abort(); /* fn switches away for good instead */
}

int sc__fiber_make(sc__fiber *f, char *stack, size_t size, void (*fn)(void *), void *arg)
{
    f->fn = fn;
    f->arg = arg;
    if (getcontext(&f->uc) != 0)
        return -1;
    f->uc.uc_stack.ss_sp = stack;
    f->uc.uc_stack.ss_size = size;
    f->uc.uc_link = NULL;
    makecontext(&f->uc, (void (*)(void))start, 2, (unsigned)((uintptr_t)f >> 32),
                (unsigned)((uintptr_t)f & 0xffffffffu));
    return 0;
}

void sc__fiber_switch(sc__fiber *from, sc__fiber *to)
{
    /* swapcontext installs the mask saved in *to: that of the thread it
     * was saved on. The running thread's instead (fiber.h). */
    pthread_sigmask(SIG_BLOCK, NULL, &to->uc.uc_sigmask);
    swapcontext(&from->uc, &to->uc);
}

#endif
