/*
 * sic_rt.S: the runtime half of the software instruction counter (docs/sic.md).
 *
 * Instrumented code keeps the counter in %r15, counting down. It comes here by:
 *   __sic_overflow_far   the counter reached zero at a counting point: its stub
 *   __sic_overflow_near  calls here and we return to the counting point itself
 *   __sic_overflow       the same from a stub that returns to itself (the
 *                        flag-preserving form) or from __sic_foreign_entry
 *   __sic_pause          a pause or a spin-wait's loop (sicpp/hunt.c): let others run
 *   __sic_foreign_entry  a function foreign code may call found no token in %r15
 *                        on entry: its caller is not instrumented
 * __sic_home holds the count whenever control is outside instrumented code, and an
 * instrumented caller passes RP_SIC_TOKEN in %r15 (sicpp/rewrite.h, SIC_TOKEN).
 */
#include "engine/counter/sic_xsave.h"

#define RP_SIC_TOKEN -0x61a53f22
	.data
	.p2align 3
	.globl	__sic_home
	.type	__sic_home, @object
	.size	__sic_home, 8
__sic_home:
	.quad	0
	/* The side stack of foreign entries, {foreign r15, return address, slot, rbx}
	 * each, is __sic_side_base, __sic_side_top and __sic_side_end (sic.c). */

	.text
/* The frame of the runtime's entries from a stub (__sic_overflow, __sic_pause): every
 * register but %r15, the flags and the whole extended state are saved, the stack
 * realigned, and unwinding goes through %rbp to the stub and the program.
 * SIC_PUSH_GENERAL and SIC_POP_GENERAL: the general registers and the flags, 80 bytes
 * below %rbp. SIC_XSAVE and SIC_XRSTOR: the extended state, on the stack below them. */
.macro SIC_PUSH_GENERAL
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	SIC_PUSH_REST
.endm

.macro SIC_PUSH_REST
	pushfq
	pushq	%rax
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
.endm

.macro SIC_POP_GENERAL
	SIC_POP_REST
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
.endm

.macro SIC_POP_REST
	leaq	-80(%rbp), %rsp
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rax
	popfq
.endm

.macro SIC_XSAVE
	subq	rp_sic_xsave_size(%rip), %rsp
	andq	$-64, %rsp
	SIC_XSAVE_TO 0
.endm

.macro SIC_XRSTOR
	SIC_XRSTOR_FROM 0
.endm

.macro SIC_SAVE
	SIC_PUSH_GENERAL
	SIC_XSAVE
	cld
.endm

.macro SIC_RESTORE
	SIC_XRSTOR
	SIC_POP_GENERAL
.endm

/* The new counter into %r15, from rp_sic_overflow_quick (general registers only: the
 * stress mode's reload, a hunting thread's seek) or else rp_sic_overflow_c with the
 * extended state saved; each is given the return address 8(%rbp) (rp_stub_resume_pc
 * reads the counting point's PC from it). */
.macro SIC_OVERFLOW_BODY resumed=0
	andq	$-16, %rsp
	cld
	movq	8(%rbp), %rdi		/* where in the stub we return to */
	.if \resumed			/* or the counting point itself, marked so */
	btsq	$63, %rdi		/* (rp_stub_resume_pc) */
	.endif
	call	rp_sic_overflow_quick	/* general registers only: 0 = the full path */
	testq	%rax, %rax
	jz	1f
	movq	%rax, %r15
	jmp	2f
1:	SIC_XSAVE
	movq	8(%rbp), %rdi
	.if \resumed
	btsq	$63, %rdi
	.endif
	call	rp_sic_overflow_c	/* returns the new counter */
	movq	%rax, %r15
	SIC_XRSTOR
2:
.endm

/* Called (from a stub, past the red zone) when %r15 reached zero. Preserves every
 * register but %r15, the flags and the whole extended state. The quick path
 * (rp_sic_overflow_quick, general registers only) saves no extended state. */
	.p2align 4
	.globl	__sic_overflow
	.type	__sic_overflow, @function
__sic_overflow:
	SIC_PUSH_GENERAL
	SIC_OVERFLOW_BODY
	SIC_POP_GENERAL
	.size	__sic_overflow, .-__sic_overflow

/* Counting points' stubs (sicpp/rewrite.c) come in runs, one entry per counting point:
 *	decq	%r15                      # one per entry after the one taken: the
 *	...                               # counter was 0 there, so -r15 says which
 *	leaq	-128(%rsp), %rsp          # past the red zone (not in a run of functions
 *	call	__sic_overflow_far        # that make calls: call __sic_overflow_near)
 *	.long	resume - .                # where each counting point goes on, the
 *	...                               # last entry's first: at ret - 4 * r15
 * We make the return address resume, do what __sic_overflow does, then return to
 * resume itself with the stack pointer the counting point had (ret $128; ret): no
 * instruction after the call, and so no unwind entry for the stub's return, is
 * needed. Our CFI says so to unwinders: the caller's stack pointer (the CFA) is 128
 * (0) above the stub's, and the return address is resume, computed from the table
 * by the DWARF expression
 *	ret = *(A); at = ret - 4 * r15; resume = at + sign-extended *(int32 *)at
 * (DW_CFA_val_expression for column 16, A the slot of the return address) until it
 * is stored there, so gdb and libunwind go from here straight into the counting
 * point's function. A stub of one entry (r15 0) is what older sicpps wrote.
 * SIC_OVERFLOW_RESUME name, below: below is what the stub stepped over (128, 0). */
#define SIC_RESUME_EXPR(breg, off) \
	.cfi_escape 0x16, 0x10, 0x12, breg, off, 0x06, 0x7f, 0x00, 0x32, 0x24, 0x1c, \
		0x12, 0x94, 0x04, 0x08, 0x20, 0x24, 0x08, 0x20, 0x26, 0x22
.macro SIC_OVERFLOW_RESUME name, below
	.p2align 4
	.globl	\name
	.type	\name, @function
\name:
	.cfi_startproc
	.cfi_def_cfa %rsp, 8 + \below
	SIC_RESUME_EXPR(0x77, 0x00)	/* DW_OP_breg7 (rsp) 0 */
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16 - \below
	SIC_RESUME_EXPR(0x77, 0x08)	/* DW_OP_breg7 (rsp) 8 */
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	SIC_RESUME_EXPR(0x76, 0x08)	/* DW_OP_breg6 (rbp) 8 */
	SIC_PUSH_REST
	movq	8(%rbp), %rax		/* the table's entry: the return address becomes resume */
	leaq	(,%r15,4), %rcx
	subq	%rcx, %rax
	movslq	(%rax), %rcx
	addq	%rcx, %rax
	movq	%rax, 8(%rbp)
	.cfi_offset 16, -8 - \below
	SIC_OVERFLOW_BODY 1
	SIC_POP_REST
	popq	%rbp
	.cfi_def_cfa %rsp, 8 + \below
	.cfi_restore %rbp
	.if \below
	ret	$\below
	.else
	ret
	.endif
	.cfi_endproc
	.size	\name, .-\name
.endm

	SIC_OVERFLOW_RESUME __sic_overflow_far, 128
	SIC_OVERFLOW_RESUME __sic_overflow_near, 0

/* Called from a pause's stub, or a spin-wait's backward branch (sicpp/hunt.c): the
 * thread waits for another one, so let another run (rp_sic_pause_c). The count is
 * published in __sic_home meanwhile (a switch keeps it there), and reloaded: the
 * runtime may have loaded the counter anew. Preserves everything else. */
	.p2align 4
	.globl	__sic_pause
	.type	__sic_pause, @function
__sic_pause:
	SIC_SAVE
	movq	%r15, __sic_home(%rip)
	call	rp_sic_pause_c
	movq	__sic_home(%rip), %r15
	SIC_RESTORE
	.size	__sic_pause, .-__sic_pause

/* Entered by jmp from a function's foreign-entry stub with the function's body in
 * %r11, the foreign caller's return address at (%rsp) and its r15 in %r15. Moves
 * {r15, return address, slot, rbx} to a side-stack entry, pops the return address
 * and calls the body in its place, so stack arguments stay where the body expects
 * them and every return predicts; then gives the caller its r15 and rbx back and
 * returns to it. While the body runs, %rbx points at the entry (the body keeps it:
 * callee-saved), which is how the CFI below finds the caller's return address, r15
 * and rbx: debuggers and C++ exceptions unwind through here into the caller.
 * A body that leaves by an indirect tail jump whose target takes the slow path
 * again (at the same slot) is not a new entry: the target runs as the body.
 * Flags are dead on entry and on return, by the ABI. */
	.p2align 4
	.globl	__sic_foreign_entry
	.type	__sic_foreign_entry, @function
__sic_foreign_entry:
	.cfi_startproc
	.cfi_remember_state
	movq	%r15, -8(%rsp)
	.cfi_offset %r15, -16
	/* Called from our own call below: a body entered here left by an indirect jump
	 * that may also have been a switch (sicpp: it keeps the count in r15 and passes
	 * no token). Its caller is ours: no entry, the body runs with the count. */
	leaq	4f(%rip), %r15
	cmpq	%r15, (%rsp)
	je	5f
	movq	__sic_side_top(%rip), %r15
	/* Entries whose slot is at or below ours belong to frames a longjmp (or an
	 * exception) left. */
1:	cmpq	__sic_side_base(%rip), %r15
	jbe	2f
	cmpq	%rsp, -16(%r15)
	ja	2f
	subq	$32, %r15
	jmp	1b
2:	cmpq	__sic_side_end(%rip), %r15
	jae	8f
	movq	%rsp, 16(%r15)		/* the slot */
	movq	%rbx, 24(%r15)
	movq	%r15, %rbx
	.cfi_escape 0x10, 0x03, 0x02, 0x73, 0x18	/* rbx at 24(%rbx) */
	pushq	-8(%rsp)		/* memory to memory: the foreign r15... */
	.cfi_adjust_cfa_offset 8
	popq	(%rbx)
	.cfi_adjust_cfa_offset -8
	.cfi_escape 0x10, 0x0f, 0x02, 0x73, 0x00	/* r15 at 0(%rbx) */
	popq	8(%rbx)			/* ...and the return address, off the stack */
	.cfi_adjust_cfa_offset -8
	.cfi_escape 0x10, 0x10, 0x02, 0x73, 0x08	/* the return address at 8(%rbx) */
	leaq	32(%rbx), %r15
	movq	%r15, __sic_side_top(%rip)
	movq	__sic_home(%rip), %r15
	/* The entry counts here, for a foreign caller only: an instrumented one
	 * counted at its call (docs/sic.md). The flags are dead at an entry. */
	decq	%r15
	jnz	3f
	call	__sic_overflow		/* no stub: the overflow takes no preemption here */
3:	call	*%r11
4:	/* The body stored the count in __sic_home (r15 holds it or the token). Entries above
	 * ours were left by a longjmp: drop them with it. */
	leaq	-8(%rsp), %r15
	cmpq	%r15, 16(%rbx)
	jne	9f
	movq	%rbx, __sic_side_top(%rip)
	movq	(%rbx), %r15
	pushq	8(%rbx)
	movq	24(%rbx), %rbx
	ret
5:	.cfi_restore_state
	movq	__sic_home(%rip), %r15
	jmp	*%r11
8:	jmp	rp_sic_side_overflow
9:	call	rp_sic_side_corrupt
	.cfi_endproc
	.size	__sic_foreign_entry, .-__sic_foreign_entry

/* uint64_t rp_sic_call(void *fn, uint64_t a, uint64_t b, uint64_t c):
 * call instrumented code from C with the counter in place. */
	.p2align 4
	.globl	rp_sic_call
	.type	rp_sic_call, @function
rp_sic_call:
	.cfi_startproc
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	.cfi_offset %r15, -16
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movq	$RP_SIC_TOKEN, %r15
	call	*%rax
	popq	%r15
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r15
	ret
	.cfi_endproc
	.size	rp_sic_call, .-rp_sic_call

	.section .note.GNU-stack,"",@progbits
