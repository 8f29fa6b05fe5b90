/* Foreign code that uses %r15 as an ordinary callee-saved register, as any library
 * compiled without -ffixed-r15 may. */
	.text
	.globl	foreign_r15_call
	.type	foreign_r15_call, @function
foreign_r15_call:			/* (cb, arg, magic) */
	.cfi_startproc
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	.cfi_offset %r15, -16
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -24
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	movq	%rdx, %r15
	movq	%rdx, %rbx
	movq	%rdi, %rax
	movq	%rsi, %rdi
	call	*%rax
	cmpq	%rbx, %r15
	je	1f
	movq	$-1, %rax
1:	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	popq	%r15
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size	foreign_r15_call, .-foreign_r15_call

	.globl	foreign_r15_loop
	.type	foreign_r15_loop, @function
foreign_r15_loop:			/* (cb, n) */
	.cfi_startproc
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	.cfi_offset %r15, -16
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	.cfi_offset %r14, -24
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	.cfi_offset %r13, -32
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	.cfi_offset %r12, -40
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -48
	movq	%rdi, %r12		/* cb */
	movq	%rsi, %r13		/* n */
	xorl	%r15d, %r15d		/* i, in r15 */
	xorl	%r14d, %r14d		/* sum */
2:	cmpq	%r13, %r15
	jge	3f
	movq	%r15, %rbx
	movq	%r15, %rdi
	call	*%r12
	cmpq	%rbx, %r15
	jne	4f
	addq	%rax, %r14
	incq	%r15
	jmp	2b
4:	movq	$-1, %r14
3:	movq	%r14, %rax
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	popq	%r12
	.cfi_adjust_cfa_offset -8
	popq	%r13
	.cfi_adjust_cfa_offset -8
	popq	%r14
	.cfi_adjust_cfa_offset -8
	popq	%r15
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size	foreign_r15_loop, .-foreign_r15_loop
	.section .note.GNU-stack,"",@progbits
