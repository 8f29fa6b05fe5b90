	.file	"x.c"
	.text
	.globl	h
	.type	h, @function
h:
	.cfi_startproc
	pushq	%r15
	.cfi_def_cfa_offset 16
	.cfi_offset 15, -16
	movq	%rdi, %r15
	popq	%r15
	ret
	.cfi_endproc
