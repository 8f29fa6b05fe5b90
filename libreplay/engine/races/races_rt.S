/*
 * races_rt.S: the race build's entries into the detector (sicpp/races.c inserts the
 * calls, races.c checks). The call sequence saved %rdi, %rsi, %rdx and %rcx and
 * stepped over the red zone; here the flags and the other registers the C code may
 * change are saved, the stack realigned, and the check runs with the general
 * registers alone (races.c is compiled with -mgeneral-regs-only). A race to report,
 * a free() or a malloc() (which call the C library) run with the extended state saved
 * too (XSAVE, as the counter's overflow does). Unwinding goes through %rbp to the
 * program's frame, whose CFA the call sequence described.
 */
#include "engine/counter/sic_xsave.h"

	.text

.macro RACE_ENTER
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushfq
	pushq	%rax
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	andq	$-16, %rsp
	cld
.endm

.macro RACE_LEAVE
	leaq	-48(%rbp), %rsp
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rax
	popfq
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
.endm

/* Call \fn with the extended state saved (every vector register the C library may use). */
.macro RACE_XSAVE_CALL fn
	movq	%rsp, %r11
	subq	rp_sic_xsave_size(%rip), %rsp
	andq	$-64, %rsp
	pushq	%r11
	pushq	%r11			/* 16 bytes: the XSAVE area stays 64-aligned above */
	movq	%rdi, %r8
	movq	%rdx, %r9
	SIC_XSAVE_TO 16
	movq	%r8, %rdi
	movq	%r9, %rdx
	call	\fn
	SIC_XRSTOR_FROM 16
	popq	%r11
	movq	%r11, %rsp
.endm

/* The program's %rsp at the checked instruction: the call sequence stepped over the
 * red zone (128), pushed four registers and the return address; RACE_ENTER %rbp. */
#define PROGRAM_RSP 176(%rbp)

/* __race_access: %rdi the address, %esi the kind and size, %rdx the pc. */
	.globl	__race_access
	.type	__race_access, @function
__race_access:
	RACE_ENTER
	movq	%r15, %rcx
	leaq	PROGRAM_RSP, %r8
	call	rp_race_access
	testl	%eax, %eax
	jz	1f
	RACE_XSAVE_CALL rp_race_report_pending
1:	RACE_LEAVE
	.size	__race_access, .-__race_access

/* __race_range: %rdi the destination, %rsi the source (0: none), %rdx the length,
 * %rcx the pc. */
	.globl	__race_range
	.type	__race_range, @function
__race_range:
	RACE_ENTER
	movq	%r15, %r8
	leaq	PROGRAM_RSP, %r9
	call	rp_race_range
	testl	%eax, %eax
	jz	1f
	RACE_XSAVE_CALL rp_race_report_pending
1:	RACE_LEAVE
	.size	__race_range, .-__race_range

/* __race_free: %rdi the block, %rcx the pc. */
	.globl	__race_free
	.type	__race_free, @function
__race_free:
	RACE_ENTER
	movq	%rcx, %rsi
	movq	%r15, %rdx
	leaq	PROGRAM_RSP, %rcx
	RACE_XSAVE_CALL rp_race_free_c
	RACE_LEAVE
	.size	__race_free, .-__race_free

/* __race_call: %rdi the pc of a call the program makes (its shadow stack). */
	.globl	__race_call
	.type	__race_call, @function
__race_call:
	RACE_ENTER
	leaq	PROGRAM_RSP, %rsi
	call	rp_race_call
	RACE_LEAVE
	.size	__race_call, .-__race_call

/* __race_alloc: %rdi the block malloc, calloc or realloc returned. */
	.globl	__race_alloc
	.type	__race_alloc, @function
__race_alloc:
	RACE_ENTER
	RACE_XSAVE_CALL rp_race_alloc_c
	RACE_LEAVE
	.size	__race_alloc, .-__race_alloc

	.section .note.GNU-stack,"",@progbits
