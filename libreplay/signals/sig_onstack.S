/* sig_onstack.S: call a signal handler on another stack (a green thread's alternate
 * signal stack, sig_altstack.c).
 *
 *   void sig_call_on_stack(void *fn, int sig, siginfo_t *info, void *uc, void *top)
 *
 * calls fn(sig, info, uc) with the stack pointer at top (rounded down to 16 bytes)
 * and returns on the caller's stack. The frame keeps the caller's stack pointer in
 * %rbp, which the CFI names, so backtraces (gdb, the crash report) go through. */
	.text
	.globl	sig_call_on_stack
	.hidden	sig_call_on_stack
	.type	sig_call_on_stack, @function
sig_call_on_stack:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	andq	$-16, %r8
	movq	%r8, %rsp
	movq	%rdi, %rax
	movl	%esi, %edi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	call	*%rax
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	sig_call_on_stack, .-sig_call_on_stack
	.section .note.GNU-stack,"",@progbits
