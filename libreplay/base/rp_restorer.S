/* rp_restorer.S: the signal return of the runtime's handlers (rp_sigaction,
 * rp_syscall.c): the bytes of "movq $15, %rax; syscall" (rt_sigreturn), which gdb and
 * libunwind recognise as a signal trampoline. No CFI: they unwind it as one. It must
 * be in the executable (engine/schedule/record.c's deferral leaves code there alone). */
	.text
	.globl	rp_sigaction_restorer
	.type	rp_sigaction_restorer, @function
	nop	/* unwinders look up the caller's pc minus one: not this function */
rp_sigaction_restorer:
	.byte	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00	/* movq $15, %rax */
	.byte	0x0f, 0x05					/* syscall */
	.size	rp_sigaction_restorer, .-rp_sigaction_restorer

	.section .note.GNU-stack,"",@progbits
