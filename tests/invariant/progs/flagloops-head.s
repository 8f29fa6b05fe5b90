# Loops whose head reads the flags that the jump back to it carries: gcc -O3 emits
# such code now and then ("cmp; jne .L226 ... .L226: setl %dl"), too rarely to catch
# it from C on purpose, so this is written by hand in gcc's style. run.sh instruments
# it with sicpp (sicc leaves hand-written assembly alone) and links it with
# flagloops.c, which checks the results against C.
	.text

# long fl_count_up(const int *a, long n): how many i with a[i] < a[i+1].
# The head's setl reads the compare made before the jump back: sicpp must put its
# counting point after the setl (where the flags are dead), not before it.
	.p2align 4
	.globl	fl_count_up
	.type	fl_count_up, @function
fl_count_up:
	.cfi_startproc
	xorl	%eax, %eax
	cmpq	$2, %rsi
	jl	.Lcu_done
	leaq	-4(%rdi,%rsi,4), %rsi
	movl	(%rdi), %edx
	movl	4(%rdi), %ecx
	cmpl	%ecx, %edx
.Lcu_head:
	setl	%r8b
	movzbl	%r8b, %r8d
	addq	%r8, %rax
	movl	%ecx, %edx
	addq	$4, %rdi
	cmpq	%rsi, %rdi
	je	.Lcu_done
	movl	4(%rdi), %ecx
	cmpl	%ecx, %edx
	jmp	.Lcu_head
.Lcu_done:
	ret
	.cfi_endproc
	.size	fl_count_up, .-fl_count_up

# long fl_signs(const int *a, long n): the sum of the signs of the elements.
# The head is a conditional jump on the flags of the compare before the jump back:
# no place in the block has them dead, so sicpp must use its flag-preserving form.
	.p2align 4
	.globl	fl_signs
	.type	fl_signs, @function
fl_signs:
	.cfi_startproc
	xorl	%eax, %eax
	testq	%rsi, %rsi
	jle	.Lsg_done
	leaq	(%rdi,%rsi,4), %rsi
	cmpl	$0, (%rdi)
.Lsg_head:
	jl	.Lsg_neg
	setg	%cl
	movzbl	%cl, %ecx
	addq	%rcx, %rax
	jmp	.Lsg_next
.Lsg_neg:
	subq	$1, %rax
.Lsg_next:
	addq	$4, %rdi
	cmpq	%rsi, %rdi
	je	.Lsg_done
	cmpl	$0, (%rdi)
	jmp	.Lsg_head
.Lsg_done:
	ret
	.cfi_endproc
	.size	fl_signs, .-fl_signs

# unsigned long fl_add_n(unsigned long *r, const unsigned long *a,
#                        const unsigned long *b, long n): r = a + b, n >= 1 limbs;
# returns the carry out. CF lives across the jump back (lea and dec keep it), and the
# head's adc reads it: a counting point there must not touch CF (decq does not).
	.p2align 4
	.globl	fl_add_n
	.type	fl_add_n, @function
fl_add_n:
	.cfi_startproc
	xorl	%eax, %eax
.Lad_head:
	movq	(%rsi), %r8
	adcq	(%rdx), %r8
	movq	%r8, (%rdi)
	leaq	8(%rsi), %rsi
	leaq	8(%rdx), %rdx
	leaq	8(%rdi), %rdi
	decq	%rcx
	jnz	.Lad_head
	setc	%al
	ret
	.cfi_endproc
	.size	fl_add_n, .-fl_add_n
	.section	.note.GNU-stack,"",@progbits
