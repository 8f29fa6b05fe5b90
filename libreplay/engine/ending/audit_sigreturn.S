/* audit_sigreturn.S: rt_sigreturn on another frame, for --syscall-audit (audit.c).
 * glibc's restorer ends a handler with rt_sigreturn from libc, outside the range the
 * audit lets through: it traps, and the audit's handler makes the call from here, with
 * the stack pointer the restorer had (the kernel finds the frame there), so the
 * program's handler returns where it would have. In the executable, as the range
 * needs. */
	.text
	.globl	rp_audit_sigreturn
	.type	rp_audit_sigreturn, @function
rp_audit_sigreturn:
	movq	%rdi, %rsp
	movq	$15, %rax	/* SYS_rt_sigreturn */
	syscall
	ud2			/* not reached */
	.size	rp_audit_sigreturn, .-rp_audit_sigreturn

	.section .note.GNU-stack,"",@progbits
