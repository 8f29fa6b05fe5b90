/* sic_xsave.h: the extended state (every vector register the C library may use) saved
 * on the stack and restored, in assembly: for the counter's overflow (sic_rt.S) and
 * for the race checks that call the C library (races/races_rt.S). The area is
 * rp_sic_xsave_size bytes (sic.c), 64-aligned. Both lose %rax and %rdx. */

/* Save it into the area at \off(%rsp), whose header is cleared first: XRSTOR wants a
 * clean one. */
.macro SIC_XSAVE_TO off
	xorl	%eax, %eax
	movq	%rax, 512+\off(%rsp)
	movq	%rax, 520+\off(%rsp)
	movq	%rax, 528+\off(%rsp)
	movq	%rax, 536+\off(%rsp)
	movq	%rax, 544+\off(%rsp)
	movq	%rax, 552+\off(%rsp)
	movq	%rax, 560+\off(%rsp)
	movq	%rax, 568+\off(%rsp)
	movl	$-1, %eax
	movl	$-1, %edx
	xsave64	\off(%rsp)
.endm

/* Restore it from the area at \off(%rsp). */
.macro SIC_XRSTOR_FROM off
	movl	$-1, %eax
	movl	$-1, %edx
	xrstor64 \off(%rsp)
.endm
