	.intel_syntax noprefix
	.text
	.globl	g
	.type	g, @function
g:
	.cfi_startproc
	lea	eax, 1[rdi]
	ret
	.cfi_endproc
