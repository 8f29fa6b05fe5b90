/*
 * sched_switch.S: the context switch and the first frame of a new thread.
 *
 * A switched-out thread's stack, from its saved stack pointer up:
 *     0  MXCSR (4 bytes), x87 control word (2 bytes), 2 bytes unused
 *     8  r15   16 r14   24 r13   32 r12   40 rbx   48 rbp
 *    56  return address (into the caller of sched_switch, or sched_trampoline_entry)
 * Every switched-out thread has this frame and resumes at sched_switch_resume, so
 * the CFI there describes any of them: a debugger that sets rsp to a thread's saved
 * stack pointer and rip to sched_switch_resume can unwind its whole stack.
 * No system call: the signal mask is the process's, not a thread's.
 */
	.text

/* void sched_switch(void **save_sp, void *new_sp) */
	.p2align 4
	.globl	sched_switch
	.hidden	sched_switch
	.type	sched_switch, @function
sched_switch:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbx, 0
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r12, 0
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r13, 0
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r14, 0
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r15, 0
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	stmxcsr	(%rsp)
	fnstcw	4(%rsp)
	movl	(%rsp), %eax		/* ours, to skip loading the same again */
	movzwl	4(%rsp), %edx
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	/* Now on the next thread's stack, whose frame has the same layout. */
	.globl	sched_switch_resume
	.hidden	sched_switch_resume
sched_switch_resume:
	cmpl	(%rsp), %eax
	je	1f
	ldmxcsr	(%rsp)
1:	cmpw	4(%rsp), %dx
	je	2f
	fldcw	4(%rsp)
2:	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%r15
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r15
	popq	%r14
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r14
	popq	%r13
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r13
	popq	%r12
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r12
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	sched_switch, .-sched_switch

/* A new thread's first frame returns to sched_trampoline_entry with %r12 = its
 * descriptor and %rsp 16-byte aligned. The nop before it keeps that return address
 * minus one (where unwinders look) inside this function, whose undefined return
 * address tells them that the stack ends here. */
	.p2align 4
	.globl	sched_trampoline
	.hidden	sched_trampoline
	.type	sched_trampoline, @function
sched_trampoline:
	.cfi_startproc
	.cfi_undefined %rip
	nop
	.globl	sched_trampoline_entry
	.hidden	sched_trampoline_entry
sched_trampoline_entry:
	xorl	%ebp, %ebp
	movq	%r12, %rdi
	call	sched_thread_main
	ud2
	.cfi_endproc
	.size	sched_trampoline, .-sched_trampoline

	.section .note.GNU-stack,"",@progbits
